//! `reasonix mcp add|remove|list|get|import|trust|untrust` against the real binary, a private
//! home and real server processes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use support::{Env, stderr, stdout};

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn user_file(env: &Env) -> PathBuf {
    env.home().join("mcp.json")
}

fn project_dir(env: &Env) -> PathBuf {
    std::fs::canonicalize(env.project()).unwrap()
}

fn project_file(env: &Env) -> PathBuf {
    project_dir(env).join(".mcp.json")
}

/// What the test servers print on stderr when they start.
const STARTED: &str = "server-started-here";

/// Whether server `name` started when `reasonix mcp get` probed it (its stderr, quoted in the
/// failure report, says so).
fn started(env: &Env, name: &str) -> bool {
    let out = env.reasonix(&["mcp", "get", name, "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    report["status"]["stderr"]
        .as_str()
        .is_some_and(|s| s.contains(STARTED))
}

/// `reasonix mcp list --json`, parsed.
fn list(env: &Env) -> Value {
    let out = env.reasonix(&["mcp", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn listed(list: &Value, name: &str) -> Value {
    list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} not listed: {list}"))
}

/// The JS entry of `@modelcontextprotocol/server-everything`, or `None` (the test is skipped
/// with a note) unless `REASONIX_REQUIRE_MCP_SERVERS=1`.
#[allow(clippy::disallowed_macros)] // the skip note, fixed text
fn everything() -> Option<PathBuf> {
    let path = std::env::var_os("REASONIX_MCP_EVERYTHING")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| support::repo_root().join("target"));
            target.join(
                "mcp-servers/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
            )
        });
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var("REASONIX_REQUIRE_MCP_SERVERS").as_deref() != Ok("1"),
        "server-everything not found at {} (REASONIX_REQUIRE_MCP_SERVERS=1)",
        path.display()
    );
    eprintln!(
        "note: skipped, server-everything not found at {}",
        path.display()
    );
    None
}

#[test]
fn add_writes_claude_codes_schema_and_keeps_what_else_is_in_the_file() {
    let env = Env::new();
    let before = json!({
        "mcpServers": {"old": {"command": "old-server", "futureKey": {"x": 1}}},
        "someOtherTool": [1, 2, 3]
    });
    std::fs::write(user_file(&env), before.to_string()).unwrap();

    let out = env.reasonix(&[
        "mcp",
        "add",
        "--scope",
        "user",
        "fs",
        "-e",
        "DEBUG=1",
        "-e",
        "TOKEN=${MY_TOKEN}",
        "--",
        "npx",
        "-y",
        "@scope/server fs",
        "--flag",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("added stdio server `fs`"),
        "{}",
        stdout(&out)
    );
    let out = env.reasonix(&[
        "mcp",
        "add",
        "--scope",
        "user",
        "--transport",
        "http",
        "remote",
        "https://mcp.example.com/mcp",
        "-H",
        "Authorization: Bearer ${API_TOKEN}",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = env.reasonix(&[
        "mcp",
        "add",
        "--scope",
        "user",
        "--transport",
        "sse",
        "legacy",
        "http://127.0.0.1:9/sse",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));

    let after = read_json(&user_file(&env));
    assert_eq!(after["someOtherTool"], before["someOtherTool"]);
    assert_eq!(after["mcpServers"]["old"], before["mcpServers"]["old"]);
    assert_eq!(
        after["mcpServers"]["fs"],
        json!({"command": "npx", "args": ["-y", "@scope/server fs", "--flag"],
               "env": {"DEBUG": "1", "TOKEN": "${MY_TOKEN}"}})
    );
    assert_eq!(
        after["mcpServers"]["remote"],
        json!({"type": "http", "url": "https://mcp.example.com/mcp",
               "headers": {"Authorization": "Bearer ${API_TOKEN}"}})
    );
    assert_eq!(
        after["mcpServers"]["legacy"],
        json!({"type": "sse", "url": "http://127.0.0.1:9/sse"})
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(user_file(&env))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // A name that exists is refused, naming the file; --force replaces it.
    let out = env.reasonix(&["mcp", "add", "--scope", "user", "fs", "--", "other"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("already in") && err.contains("mcp.json"),
        "{err}"
    );
    assert_eq!(
        read_json(&user_file(&env))["mcpServers"]["fs"]["command"],
        "npx"
    );
    let out = env.reasonix(&[
        "mcp", "add", "--scope", "user", "--force", "fs", "--", "other",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("replaced"), "{}", stdout(&out));
    assert_eq!(
        read_json(&user_file(&env))["mcpServers"]["fs"],
        json!({"command": "other"})
    );
}

#[test]
fn add_refuses_bad_names_bad_urls_and_misplaced_options() {
    let env = Env::new();
    for (args, says) in [
        (
            vec!["mcp", "add", "a b", "--", "x"],
            "not a valid MCP server name",
        ),
        (
            vec!["mcp", "add", "a/b", "--", "x"],
            "not a valid MCP server name",
        ),
        (
            vec![
                "mcp",
                "add",
                "--transport",
                "http",
                "r",
                "file:///etc/passwd",
            ],
            "not an http",
        ),
        (
            vec!["mcp", "add", "r", "--", "https://x/mcp"],
            "--transport http",
        ),
        (
            vec!["mcp", "add", "s", "-H", "A: b", "--", "x"],
            "for http and sse",
        ),
        (
            vec![
                "mcp",
                "add",
                "--transport",
                "sse",
                "s",
                "-e",
                "A=b",
                "http://x",
            ],
            "only for stdio",
        ),
        (
            vec!["mcp", "add", "s", "-e", "NOEQUALS", "--", "x"],
            "KEY=VALUE",
        ),
        (
            vec![
                "mcp",
                "add",
                "--transport",
                "http",
                "s",
                "http://x",
                "-H",
                "Bad",
            ],
            "Name: value",
        ),
    ] {
        let out = env.reasonix(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    assert!(!user_file(&env).exists(), "nothing written");
}

#[test]
fn a_broken_file_is_named_with_its_line_and_column_and_never_overwritten() {
    let env = Env::new();
    let broken = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n";
    std::fs::write(user_file(&env), broken).unwrap();
    for args in [
        vec!["mcp", "add", "b", "--", "y"],
        vec!["mcp", "remove", "a", "--scope", "user"],
    ] {
        let out = env.reasonix(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        let at = format!("{}:3:", user_file(&env).display());
        assert!(err.contains(&at), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(user_file(&env)).unwrap(), broken);
    }
    // list still lists the other sources and names the broken file.
    std::fs::write(
        project_file(&env),
        r#"{"mcpServers": {"p": {"command": "x", "disabled": true}}}"#,
    )
    .unwrap();
    let out = env.reasonix(&["mcp", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed(&v, "p")["status"]["state"], "disabled");
    assert!(
        v["problems"][0].as_str().unwrap().contains("mcp.json:3:"),
        "{v}"
    );
}

#[test]
fn remove_edits_the_file_that_defines_the_server_and_never_toml() {
    let env = Env::new();
    std::fs::write(
        env.home().join("config.toml"),
        "[[plugins]]\nname = \"tomlsrv\"\ncommand = \"x\"\n",
    )
    .unwrap();
    let config_before = std::fs::read_to_string(env.home().join("config.toml")).unwrap();
    let out = env.reasonix(&["mcp", "remove", "tomlsrv"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("config.toml") && err.contains("[[plugins]]"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(env.home().join("config.toml")).unwrap(),
        config_before
    );

    let out = env.reasonix(&["mcp", "add", "--scope", "user", "both", "--", "u"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = env.reasonix(&["mcp", "add", "--scope", "project", "both", "--", "p"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = env.reasonix(&["mcp", "remove", "both"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--scope"), "{}", stderr(&out));
    let out = env.reasonix(&["mcp", "remove", "both", "--scope", "project"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("still configured"),
        "{}",
        stdout(&out)
    );
    assert!(read_json(&project_file(&env))["mcpServers"]["both"].is_null());
    assert_eq!(
        read_json(&user_file(&env))["mcpServers"]["both"]["command"],
        "u"
    );
    let out = env.reasonix(&["mcp", "remove", "both"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(read_json(&user_file(&env))["mcpServers"]["both"].is_null());

    let out = env.reasonix(&["mcp", "remove", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no MCP server named `nowhere`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn get_shows_environment_and_header_names_never_their_values() {
    let env = Env::new();
    let out = env.reasonix(&[
        "mcp",
        "add",
        "--scope",
        "user",
        "s",
        "-e",
        "SECRET=hunter2-value",
        "--",
        "srv",
        "--verbose",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = env.reasonix(&[
        "mcp",
        "add",
        "--scope",
        "user",
        "--transport",
        "http",
        "r",
        "http://127.0.0.1:9/mcp",
        "-H",
        "Authorization: Bearer tok-value-123",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for name in ["s", "r"] {
        for json in [false, true] {
            let mut args = vec!["mcp", "get", name];
            if json {
                args.push("--json");
            }
            let out = env.reasonix(&args);
            assert!(out.status.success(), "{}", stderr(&out));
            let text = format!("{}{}", stdout(&out), stderr(&out));
            assert!(!text.contains("hunter2-value"), "{text}");
            assert!(!text.contains("tok-value-123"), "{text}");
        }
    }
    let out = env.reasonix(&["mcp", "get", "s", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["env_keys"], json!(["SECRET"]));
    assert_eq!(v["command"], "srv");
    assert_eq!(v["args"], json!(["--verbose"]));
    assert_eq!(v["source"]["file"], user_file(&env).display().to_string());
    let out = env.reasonix(&["mcp", "get", "r"]);
    let text = stdout(&out);
    assert!(
        text.contains("headers: Authorization (values not shown)"),
        "{text}"
    );
    assert!(text.contains("url: http://127.0.0.1:9/mcp"), "{text}");

    let out = env.reasonix(&["mcp", "get", "missing"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn project_servers_start_only_from_the_approved_file_content() {
    let env = Env::new();
    let marker = env.root.path().join("started");
    // Starting this server at all would leave the marker behind, were it not confined, and
    // says so on stderr, which its failure report quotes.
    let project = json!({"mcpServers": {"p": {
        "command": "sh",
        "args": ["-c", format!("touch '{}'; echo {STARTED} >&2; exit 3", marker.display())]
    }}});
    std::fs::write(project_file(&env), project.to_string()).unwrap();

    let v = list(&env);
    let p = listed(&v, "p");
    assert_eq!(p["approval"], "not-approved");
    assert_eq!(p["status"]["state"], "not-approved");
    assert_eq!(p["source"]["scope"], "project");
    let out = env.reasonix(&["mcp", "get", "p"]);
    assert!(
        stdout(&out).contains("reasonix mcp trust"),
        "{}",
        stdout(&out)
    );
    assert!(!marker.exists(), "an unapproved project server was started");

    let out = env.reasonix(&["mcp", "trust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("p: stdio: sh -c 'touch"), "{text}");
    let trust = read_json(&env.home().join("trust.json"));
    assert_eq!(trust["version"], 1);
    assert_eq!(
        trust["mcp_approvals"][0]["path"],
        project_dir(&env).display().to_string()
    );
    assert_eq!(list(&env)["servers"][0]["approval"], "approved");
    assert!(started(&env, "p"), "the approved server was started");
    assert!(
        !marker.exists(),
        "a project server wrote outside the OS sandbox"
    );

    // The user's own edit through `mcp add` keeps the approval; anyone else's does not.
    let out = env.reasonix(&["mcp", "add", "--scope", "project", "q", "--", "true"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("stays approved"), "{}", stdout(&out));
    assert_eq!(listed(&list(&env), "q")["approval"], "approved");
    let mut edited = read_json(&project_file(&env));
    edited["mcpServers"]["p"]["args"][1] = Value::from(format!("touch '{}'", marker.display()));
    std::fs::write(project_file(&env), edited.to_string()).unwrap();
    let p = listed(&list(&env), "p");
    assert_eq!(p["approval"], "changed-since-approved");
    assert_eq!(p["status"]["state"], "not-approved");
    assert!(
        !started(&env, "p"),
        "a changed project file's server started"
    );

    let out = env.reasonix(&["mcp", "untrust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(listed(&list(&env), "p")["approval"], "not-approved");
    let out = env.reasonix(&["mcp", "untrust"]);
    assert_eq!(out.status.code(), Some(2));
    // The workspace's reasonix.toml trust is a separate list entry, untouched.
    assert_eq!(
        read_json(&env.home().join("trust.json"))["workspaces"][0]["path"],
        project_dir(&env).display().to_string()
    );
    assert!(!marker.exists(), "an unapproved project server was started");
}

#[test]
fn hostile_strings_from_config_files_reach_the_terminal_escaped() {
    let env = Env::new();
    // Controls, bidi, and a newline that would start a line looking like ours.
    let hostile = "evil\u{1b}[2J\u{1b}]0;title\u{7}\u{202e}\nfake: ready, 99 tools";
    let project = json!({"mcpServers": {
        "p": {"command": hostile, "args": [hostile], "env": {"K": hostile}},
        "r": {"type": "http", "url": format!("http://127.0.0.1:9/{hostile}"), "headers": {"H": "v"}}
    }});
    std::fs::write(project_file(&env), project.to_string()).unwrap();
    for args in [
        vec!["mcp", "trust"],
        vec!["mcp", "list"],
        vec!["mcp", "list", "--json"],
        vec!["mcp", "get", "p"],
        vec!["mcp", "get", "r", "--json"],
    ] {
        let out = env.reasonix(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        for stream in [&out.stdout, &out.stderr] {
            assert!(
                !stream.contains(&0x1b),
                "{args:?}: raw ESC in {}",
                String::from_utf8_lossy(stream)
            );
            assert!(!stream.contains(&0x07), "{args:?}: raw BEL");
            let text = String::from_utf8_lossy(stream);
            assert!(!text.contains('\u{202e}'), "{args:?}: raw bidi override");
            // Our lines sit at indents 0 and 2; a server's own stderr (a confined server's
            // launcher echoes the command it could not run) is quoted at indent 4.
            assert!(
                !text
                    .lines()
                    .any(|l| l.starts_with("fake:") || l.starts_with("  fake:")),
                "{args:?}: a newline from the file started a line: {text}"
            );
        }
    }
}

#[test]
fn import_copies_claude_codes_servers_and_says_what_it_skipped() {
    let env = Env::new();
    let out = env.reasonix(&["mcp", "add", "--scope", "user", "clash", "--", "mine"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let claude = json!({
        "numStartups": 12,
        "mcpServers": {
            "global": {"type": "stdio", "command": "npx", "args": ["-y", "g"], "env": {"K": "${K}"}},
            "clash": {"command": "theirs"},
            "websock": {"type": "ws", "url": "ws://x"},
            "bad name": {"command": "x"}
        },
        "projects": {
            project_dir(&env).display().to_string(): {
                "mcpServers": {"proj": {"type": "http", "url": "https://p/mcp"}}
            },
            "/some/other/project": {"mcpServers": {"other": {"command": "o"}}}
        }
    });
    std::fs::write(env.user_home().join(".claude.json"), claude.to_string()).unwrap();
    let out = env.reasonix(&["mcp", "import"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("imported `global`"), "{text}");
    assert!(text.contains("imported `proj`"), "{text}");
    assert!(
        text.contains("skipped `clash`") && text.contains("already in"),
        "{text}"
    );
    assert!(
        text.contains("skipped `websock`") && text.contains("`ws` is not supported"),
        "{text}"
    );
    assert!(text.contains("skipped `bad name`"), "{text}");
    assert!(text.contains("2 imported"), "{text}");
    assert!(!text.contains("other"), "{text}");
    let ours = read_json(&user_file(&env));
    assert_eq!(ours["mcpServers"]["global"], claude["mcpServers"]["global"]);
    assert_eq!(ours["mcpServers"]["clash"]["command"], "mine");
    assert!(ours["mcpServers"]["other"].is_null());
    // Issue #26 item 8: Claude's project-only (`local`) server stays project-only: never in the
    // user-wide servers, only under this workspace.
    assert!(ours["mcpServers"]["proj"].is_null(), "{ours}");
    let here = std::fs::canonicalize(project_dir(&env)).unwrap();
    assert_eq!(
        ours["projects"][here.display().to_string()]["mcpServers"]["proj"]["url"],
        "https://p/mcp",
        "{ours}"
    );
    assert!(text.contains("as local (this workspace only)"), "{text}");

    // From a project .mcp.json into the project scope of this workspace.
    let other = env.root.path().join("other.mcp.json");
    std::fs::write(&other, r#"{"mcpServers": {"fromfile": {"command": "f"}}}"#).unwrap();
    let out = env.reasonix(&[
        "mcp",
        "import",
        "--from",
        other.to_str().unwrap(),
        "--scope",
        "project",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        read_json(&project_file(&env))["mcpServers"]["fromfile"]["command"],
        "f"
    );
    assert!(
        stdout(&out).contains("reasonix mcp trust"),
        "{}",
        stdout(&out)
    );

    let out = env.reasonix(&["mcp", "import", "--from", "/nonexistent/x.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nonexistent/x.json"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn list_starts_each_server_and_reports_ready_failed_or_disabled() {
    let Some(everything) = everything() else {
        return;
    };
    let env = Env::new();
    let servers = json!({"mcpServers": {
        "every": {"command": "node", "args": [everything.display().to_string(), "stdio"],
                  "startup_timeout_seconds": 60},
        "missing": {"command": "/nonexistent/mcp-server-binary"},
        "off": {"command": "node", "disabled": true}
    }});
    std::fs::write(user_file(&env), servers.to_string()).unwrap();
    let v = list(&env);
    let every = listed(&v, "every");
    assert_eq!(every["status"]["state"], "ready", "{every}");
    assert!(every["status"]["tools"].as_u64().unwrap() >= 5, "{every}");
    let missing = listed(&v, "missing");
    assert_eq!(missing["status"]["state"], "failed", "{missing}");
    assert!(
        missing["status"]["reason"]
            .as_str()
            .unwrap()
            .contains("nonexistent"),
        "{missing}"
    );
    assert_eq!(listed(&v, "off")["status"]["state"], "disabled");

    let out = env.reasonix(&["mcp", "get", "every"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("status: ready"), "{text}");
    assert!(text.contains("    echo: "), "{text}");
    let out = env.reasonix(&["mcp", "list"]);
    assert!(stdout(&out).contains("every: ready,"), "{}", stdout(&out));
}

#[test]
fn project_toml_servers_follow_workspace_trust_not_mcp_approval() {
    let env = Env::untrusted();
    let marker = env.root.path().join("started");
    let toml = format!(
        "[[plugins]]\nname = \"tp\"\ncommand = \"sh\"\nargs = [\"-c\", \"touch '{}'; echo {STARTED} >&2; exit 3\"]\n",
        marker.display()
    );
    std::fs::write(env.project().join("reasonix.toml"), toml).unwrap();
    std::fs::write(project_file(&env), r#"{"mcpServers": {}}"#).unwrap();
    let out = env.reasonix(&["mcp", "trust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tp = listed(&list(&env), "tp");
    assert_eq!(tp["approval"], "workspace-not-trusted", "{tp}");
    assert_eq!(tp["status"]["state"], "not-approved", "{tp}");
    assert!(
        !marker.exists(),
        "a server of an untrusted reasonix.toml was started"
    );
    let out = env.reasonix(&["mcp", "remove", "tp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("reasonix.toml"), "{}", stderr(&out));

    env.trust_project();
    let tp = listed(&list(&env), "tp");
    assert_eq!(tp["approval"], "workspace-trusted", "{tp}");
    assert_eq!(tp["status"]["state"], "failed", "{tp}");
    assert!(
        started(&env, "tp"),
        "the trusted workspace's server was not started"
    );
    assert!(
        !marker.exists(),
        "a project server wrote outside the OS sandbox"
    );
}

/// A server that closes stdout, then writes its last words to stderr a moment later and
/// exits: the failure report carries them (the stderr reader is waited for, not raced).
#[test]
fn a_failed_servers_report_carries_what_it_wrote_to_stderr_last() {
    let env = Env::new();
    let servers = json!({"mcpServers": {
        "late": {"command": "sh", "args": ["-c",
            "exec 1>&-; sleep 0.3; printf 'late words before exiting\\n' >&2; exit 3"]}
    }});
    std::fs::write(user_file(&env), servers.to_string()).unwrap();
    let out = env.reasonix(&["mcp", "get", "late", "--json"]);
    let late: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(late["status"]["state"], "failed", "{late}");
    assert!(
        late["status"]["stderr"]
            .as_str()
            .unwrap_or_default()
            .contains("late words before exiting"),
        "{late}"
    );
}

/// Issue #26 item 8: Claude Code's scopes. `local` (the default, as in Claude Code) is this
/// workspace only: the server starts here and nowhere else; `user` starts everywhere;
/// `project` writes the workspace's `.mcp.json`. `add-json` takes an entry as Claude's does.
#[test]
fn scopes_keep_a_local_server_to_its_workspace() {
    let env = Env::new();
    let elsewhere = env.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();

    let out = env.reasonix(&["mcp", "add", "mine", "--", "true"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("(local: only in"), "{}", stdout(&out));
    let out = env.reasonix(&[
        "mcp",
        "add-json",
        "-s",
        "user",
        "everywhere",
        r#"{"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"X-Key":"${K:-x}"}}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = env.reasonix(&[
        "mcp",
        "add-json",
        "--scope",
        "project",
        "shared",
        r#"{"command":"node","args":["srv.js"]}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));

    let user = read_json(&user_file(&env));
    assert!(user["mcpServers"]["mine"].is_null(), "{user}");
    assert_eq!(
        user["mcpServers"]["everywhere"],
        json!({"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"X-Key":"${K:-x}"}})
    );
    let here = std::fs::canonicalize(project_dir(&env)).unwrap();
    assert_eq!(
        user["projects"][here.display().to_string()]["mcpServers"]["mine"],
        json!({"command": "true"})
    );
    assert_eq!(
        read_json(&project_file(&env))["mcpServers"]["shared"],
        json!({"command":"node","args":["srv.js"]})
    );

    // Here: listed as local; elsewhere: not at all.
    let listed_here = list(&env);
    assert_eq!(
        listed(&listed_here, "mine")["source"]["scope"],
        "local",
        "{listed_here}"
    );
    assert_eq!(
        listed(&listed_here, "everywhere")["source"]["scope"],
        "user"
    );
    let out = env
        .command(&["mcp", "list", "--json"])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    let there: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = there["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(
        names.contains(&"everywhere") && !names.contains(&"mine"),
        "{there}"
    );

    // Removing finds it in its scope.
    let out = env.reasonix(&["mcp", "remove", "mine"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let user = read_json(&user_file(&env));
    assert!(
        user["projects"][here.display().to_string()]["mcpServers"]["mine"].is_null(),
        "{user}"
    );

    // add-json refuses what is not an entry, naming the problem.
    for (json, why) in [
        ("{not json", "line 1, column 2"),
        ("[1]", "must be an object"),
        (r#"{"type":"ws","url":"ws://x"}"#, "`ws` is not supported"),
        (r#"{"command":"x","bogus":1}"#, "bogus"),
    ] {
        let out = env.reasonix(&["mcp", "add-json", "bad", json]);
        assert_eq!(out.status.code(), Some(2), "{json}");
        assert!(stderr(&out).contains(why), "{json}: {}", stderr(&out));
    }
}
