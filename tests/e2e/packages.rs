//! Plugin packages (docs/PACKAGES.md) through the real binary: a Claude Code plugin from a
//! local bare git repository pinned to a commit, whose command, skill, hook and Python MCP
//! server all work in a mock-driven run and leave nothing behind when removed; a package
//! changed after install refused at load; an update that adds a hook asks again; a marketplace
//! with a folder entry and an unpinned repository entry.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mcp::sdk_python;
use crate::support::{Env, result_of, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn commit_all(work: &Path, message: &str) -> String {
    git(work, &["add", "-A"]);
    git(work, &["commit", "--quiet", "-m", message]);
    git(work, &["rev-parse", "HEAD"])
}

/// The guard of Claude Code's hook documentation, as a package ships it.
const GUARD: &str = "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in *'\"tool_name\":\"Bash\"'*) ;; *) exit 0;; esac\nprintf '%s\\n' '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"PKG-HOOK: no shell in the notes kit\"}}'\n";

const SERVER: &str = "from mcp.server.mcpserver import MCPServer\n\nserver = MCPServer(\"notes\", version=\"1.0.0\")\n\n\n@server.tool()\ndef note_count() -> str:\n    \"\"\"How many notes there are.\"\"\"\n    return \"notes=3\"\n\n\nif __name__ == \"__main__\":\n    server.run()\n";

/// A Claude Code plugin folder: a command, an agent, a skill with a script, a hook and an
/// MCP server run by `python`.
fn claude_plugin(root: &Path, python: &str, command_body: &str) {
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        ".claude-plugin/plugin.json",
        r#"{"name": "notes-kit", "version": "1.0.0", "description": "Notes tools", "author": {"name": "N"}}"#,
    );
    write(
        "commands/hello.md",
        &format!("---\ndescription: Greet\n---\n{command_body} $ARGUMENTS\n"),
    );
    write(
        "agents/rev.md",
        "---\nname: rev\ndescription: Reviews notes\n---\nYou review notes.\n",
    );
    write(
        "skills/tidy/SKILL.md",
        "---\ndescription: Tidy the notes folder\n---\nPKG-SKILL-BODY: run scripts/tidy.sh\n",
    );
    write("skills/tidy/scripts/tidy.sh", "echo tidy\n");
    write(
        "hooks/hooks.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"}]}]}}"#,
    );
    write("hooks/guard.sh", GUARD);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        root.join("hooks/guard.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    write("server.py", SERVER);
    write(
        ".mcp.json",
        &json!({"mcpServers": {"notes": {"command": python, "args": ["${CLAUDE_PLUGIN_ROOT}/server.py"]}}}).to_string(),
    );
}

fn setup() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    (env, mock)
}

fn reasonix(env: &Env, args: &[&str]) -> std::process::Output {
    env.command(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_claude_plugin_from_a_pinned_commit_brings_its_command_skill_hook_and_mcp_tool() {
    let Some(python) = sdk_python() else { return };
    let python = python.display().to_string();
    let (env, mock) = setup();
    let repos = tempfile::tempdir().unwrap();
    let work = repos.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "--quiet"]);
    claude_plugin(&work, &python, "PKG-CMD-BODY greet");
    let pinned = commit_all(&work, "v1");
    claude_plugin(&work, &python, "LATER-BODY");
    commit_all(&work, "v2");
    let bare = repos.path().join("notes-kit.git");
    git(
        repos.path(),
        &[
            "clone",
            "--quiet",
            "--bare",
            work.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let url = format!("file://{}", bare.display());
    let home = env.home();
    let root = home.join("packages/notes-kit");

    // Asked first: every hook command and MCP command named; nothing written without --yes.
    let asked = reasonix(&env, &["plugin", "install", &url, "--ref", &pinned]);
    assert_eq!(asked.status.code(), Some(2), "{}", stderr(&asked));
    let question = stderr(&asked);
    assert!(
        question.contains(&format!(
            "hook PreToolUse (Bash): {}/hooks/guard.sh",
            root.display()
        )),
        "{question}"
    );
    assert!(
        question.contains(&format!(
            "MCP server plugin_notes-kit_notes: {python} {}/server.py",
            root.display()
        )),
        "{question}"
    );
    assert!(
        question.contains("skill notes-kit:tidy bundles scripts"),
        "{question}"
    );
    assert!(
        question.contains(&format!("at commit {pinned}")),
        "{question}"
    );
    assert!(question.contains("Pass --yes"), "{question}");
    assert!(!home.join("packages.json").exists());
    assert!(!root.exists());

    let installed = reasonix(
        &env,
        &["plugin", "install", &url, "--ref", &pinned, "--yes"],
    );
    assert_eq!(installed.status.code(), Some(0), "{}", stderr(&installed));
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("packages.json")).unwrap())
            .unwrap();
    assert_eq!(index["packages"][0]["origin"]["commit"], pinned.as_str());
    // `mcp list` shows the package's server, started and answering.
    let listed = reasonix(&env, &["mcp", "list", "--json"]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let server = listed["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "plugin_notes-kit_notes")
        .unwrap_or_else(|| panic!("{listed}"))
        .clone();
    assert_eq!(server["status"]["state"], "ready", "{server}");

    // The command, namespaced, expands to the pinned commit's text.
    let ws = env.workspace();
    mock.enqueue(Reply::text(&["greeted"]));
    let out = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "/notes-kit:hello world",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = mock.requests()[0].json();
    let user = first["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(user.contains("PKG-CMD-BODY greet world"), "{user}");
    assert!(
        !user.contains("LATER-BODY"),
        "the pinned commit, not the branch: {user}"
    );
    let names = tool_names(&first);
    assert!(
        names
            .iter()
            .any(|n| n == "mcp__plugin_notes-kit_notes__note_count"),
        "{names:?}"
    );

    // A composition that starts no MCP server leaves the package's out too.
    let provider = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
    env.project_config(&format!(
        "{provider}\n[compositions.quiet]\nmcp_servers = []\n"
    ));
    mock.enqueue(Reply::text(&["quiet"]));
    let out = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--agent-composition",
        "quiet",
        "hi",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let quiet = tool_names(&mock.requests().last().unwrap().json());
    assert!(!quiet.iter().any(|n| n.starts_with("mcp__")), "{quiet:?}");

    // The skill loads, the hook denies the shell, the MCP tool answers.
    let skill = json!({"name": "notes-kit:tidy"}).to_string();
    mock.enqueue(Reply::tool_calls(
        &[
            ("s1", "skill", &skill),
            ("b1", "bash", r#"{"command":"echo hi"}"#),
            ("m1", "mcp__plugin_notes-kit_notes__note_count", "{}"),
        ],
        1,
    ));
    mock.enqueue(Reply::text(&["all checked"]));
    let out = env.reasonix(&[
        "run",
        "--yolo",
        "--dir",
        ws.to_str().unwrap(),
        "check the notes",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "all checked");
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    let last = requests.last().unwrap();
    assert!(
        result_of(last, "s1").contains("PKG-SKILL-BODY"),
        "{}",
        result_of(last, "s1")
    );
    assert!(
        result_of(last, "b1").contains("PKG-HOOK: no shell in the notes kit"),
        "{}",
        result_of(last, "b1")
    );
    assert!(
        result_of(last, "m1").contains("notes=3"),
        "{}",
        result_of(last, "m1")
    );

    // Removed: nothing of it is left.
    let removed = reasonix(&env, &["plugin", "remove", "notes-kit"]);
    assert_eq!(removed.status.code(), Some(0), "{}", stderr(&removed));
    assert!(!root.exists());
    let left: Vec<_> = std::fs::read_dir(home.join("packages")).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("packages.json")).unwrap())
            .unwrap();
    assert_eq!(index["packages"], json!([]));
}

/// A package without Python: a command only.
fn command_package(root: &Path, name: &str, hook: bool) {
    std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        json!({"name": name, "version": if hook { "2.0.0" } else { "1.0.0" }}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("commands")).unwrap();
    std::fs::write(root.join("commands/hi.md"), "CMD-HI $ARGUMENTS\n").unwrap();
    if hook {
        std::fs::create_dir_all(root.join("hooks")).unwrap();
        std::fs::write(
            root.join("hooks/hooks.json"),
            r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo started"}]}]}}"#,
        )
        .unwrap();
    }
}

#[test]
fn a_package_changed_after_install_is_refused_with_the_file_named() {
    let (env, mock) = setup();
    let src = tempfile::tempdir().unwrap();
    command_package(src.path(), "kit", false);
    let out = reasonix(
        &env,
        &["plugin", "install", src.path().to_str().unwrap(), "--yes"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::write(
        env.home().join("packages/kit/commands/hi.md"),
        "TAMPERED $ARGUMENTS\n",
    )
    .unwrap();
    mock.enqueue(Reply::text(&["ok"]));
    let ws = env.workspace();
    let out = env.reasonix(&["run", "--dir", ws.to_str().unwrap(), "/kit:hi there"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("package `kit` is not loaded")
            && err.contains("commands/hi.md: changed since install"),
        "{err}"
    );
    let sent = mock.requests()[0].json()["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .to_string();
    assert!(!sent.contains("TAMPERED"), "{sent}");
    let doctor = reasonix(&env, &["plugin", "doctor", "kit"]);
    assert_eq!(doctor.status.code(), Some(1));
    assert!(
        stdout(&doctor).contains("commands/hi.md: changed since install"),
        "{}",
        stdout(&doctor)
    );
}

#[test]
fn an_update_that_adds_a_hook_asks_again() {
    let (env, _mock) = setup();
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "--quiet"]);
    command_package(repo.path(), "kit", false);
    commit_all(repo.path(), "v1");
    let url = format!("file://{}", repo.path().display());
    let out = reasonix(&env, &["plugin", "install", &url, "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    command_package(repo.path(), "kit", true);
    commit_all(repo.path(), "v2 adds a hook");

    let asked = reasonix(&env, &["plugin", "update", "kit"]);
    assert_eq!(asked.status.code(), Some(2), "{}", stderr(&asked));
    let err = stderr(&asked);
    assert!(
        err.contains("NEW") && err.contains("+ hook SessionStart: echo started"),
        "{err}"
    );
    let version = |env: &Env| -> Value {
        let index: Value = serde_json::from_str(
            &std::fs::read_to_string(env.home().join("packages.json")).unwrap(),
        )
        .unwrap();
        index["packages"][0]["version"].clone()
    };
    assert_eq!(version(&env), "1.0.0", "nothing changed without an answer");
    let agreed = reasonix(&env, &["plugin", "update", "kit", "--yes"]);
    assert_eq!(agreed.status.code(), Some(0), "{}", stderr(&agreed));
    assert_eq!(version(&env), "2.0.0");
}

#[test]
fn a_marketplace_entry_installs_by_name_and_an_unpinned_one_is_refused() {
    let (env, _mock) = setup();
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "--quiet"]);
    command_package(&other, "remote-kit", false);
    commit_all(&other, "r");
    let market = dir.path().join("market");
    command_package(&market.join("plugins/local-kit"), "local-kit", false);
    std::fs::create_dir_all(market.join(".claude-plugin")).unwrap();
    std::fs::write(
        market.join(".claude-plugin/marketplace.json"),
        json!({
            "name": "team",
            "owner": {"name": "T"},
            "plugins": [
                {"name": "local-kit", "source": "./plugins/local-kit", "description": "Local"},
                {"name": "floating", "source": {"source": "url", "url": format!("file://{}", other.display())}}
            ]
        })
        .to_string(),
    )
    .unwrap();
    git(&market, &["init", "--quiet"]);
    commit_all(&market, "m");
    let add = reasonix(
        &env,
        &[
            "plugin",
            "marketplace",
            "add",
            &format!("file://{}", market.display()),
        ],
    );
    assert_eq!(add.status.code(), Some(0), "{}", stderr(&add));
    assert!(
        stdout(&add).contains("marketplace `team` added"),
        "{}",
        stdout(&add)
    );
    let list = reasonix(&env, &["plugin", "marketplace", "list"]);
    assert!(
        stdout(&list).contains("local-kit@team"),
        "{}",
        stdout(&list)
    );

    let ok = reasonix(&env, &["plugin", "install", "local-kit@team", "--yes"]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    assert!(
        env.home()
            .join("packages/local-kit/commands/hi.md")
            .is_file()
    );
    let refused = reasonix(&env, &["plugin", "install", "floating@team", "--yes"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("without pinning a full 40-hex commit"),
        "{}",
        stderr(&refused)
    );
    assert!(!env.home().join("packages/remote-kit").exists());
}

/// A native package bringing a WebAssembly component (the `scribe` fixture, which asks to
/// write the workspace), a prompt and a composition.
fn native_package(root: &Path) {
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "reasonix-plugin.json",
        &json!({
            "apiVersion": "reasonix.io/plugin/v2",
            "name": "scribe-kit",
            "version": "1.0.0",
            "description": "Notes written by a component",
            "contributes": {
                "components": ["wasm/scribe.wasm"],
                "prompts": ["prompts"],
                "compositions": ["compositions"]
            }
        })
        .to_string(),
    );
    write("prompts/jot.md", "PKG-PROMPT-JOT $ARGUMENTS\n");
    write(
        "compositions/reader.toml",
        "description = \"Reads only\"\npersona = \"PKG-PERSONA-r1\"\ntools = [\"read_file\"]\n",
    );
    std::fs::create_dir_all(root.join("wasm")).unwrap();
    std::fs::copy(
        crate::support::fixture("scribe"),
        root.join("wasm/scribe.wasm"),
    )
    .unwrap();
}

#[test]
fn a_native_package_brings_a_component_a_prompt_and_a_composition() {
    let (env, mock) = setup();
    let src = tempfile::tempdir().unwrap();
    native_package(src.path());
    let home = env.home();
    let root = home.join("packages/scribe-kit");
    let source = src.path().to_str().unwrap();

    // The question names the component, what it serves and what it asks, pinned by hash.
    let asked = reasonix(&env, &["plugin", "install", source]);
    assert_eq!(asked.status.code(), Some(2), "{}", stderr(&asked));
    let question = stderr(&asked);
    let line = question
        .lines()
        .find(|l| l.contains("wasm component"))
        .unwrap_or_else(|| panic!("{question}"));
    assert!(
        line.contains(&format!("{}/wasm/scribe.wasm", root.display()))
            && line.contains("`scribe` 0.1.0 (tools scribe_write)")
            && line.contains("asks: ")
            && line.contains("workspace")
            && line.contains("[wasm/scribe.wasm sha256:"),
        "{line}"
    );
    assert!(
        question.contains("composition scribe-kit:reader"),
        "{question}"
    );
    assert!(!root.exists());
    let out = reasonix(&env, &["plugin", "install", source, "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // The component's tool is offered and runs with what the review showed (a write).
    let ws = env.workspace();
    let dir = ws.to_str().unwrap();
    mock.enqueue(Reply::tool_calls(
        &[("w1", "scribe_write", r#"{"text":"PKG-WASM-NOTE"}"#)],
        1,
    ));
    mock.enqueue(Reply::text(&["written"]));
    let out = env.reasonix(&["run", "--yolo", "--dir", dir, "write the note"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(tool_names(&mock.requests()[0].json()).contains(&"scribe_write".to_string()));
    assert_eq!(
        std::fs::read_to_string(ws.join("note.txt")).unwrap(),
        "PKG-WASM-NOTE"
    );
    let listed = reasonix(&env, &["plugin", "list", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let scribe = listed["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "scribe")
        .unwrap_or_else(|| panic!("{listed}"))
        .clone();
    assert_eq!(scribe["source"], "package", "{scribe}");
    assert_eq!(scribe["package"], "scribe-kit", "{scribe}");

    // The prompt expands as `/<package>:<name>`.
    mock.enqueue(Reply::text(&["jotted"]));
    let out = env.reasonix(&["run", "--dir", dir, "/scribe-kit:jot milk"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = mock.requests().last().unwrap().json()["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .to_string();
    assert!(sent.contains("PKG-PROMPT-JOT milk"), "{sent}");

    // The composition it brings is chosen by its namespaced name and narrows.
    mock.enqueue(Reply::text(&["read"]));
    let out = env.reasonix(&[
        "run",
        "--dir",
        dir,
        "--agent-composition",
        "scribe-kit:reader",
        "read",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = mock.requests().last().unwrap().json();
    assert_eq!(tool_names(&request), ["read_file"]);
    assert!(request.to_string().contains("PKG-PERSONA-r1"));

    // Disabled, the component is not loaded; a changed component refuses the package.
    let out = reasonix(&env, &["plugin", "disable", "scribe-kit"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    mock.enqueue(Reply::text(&["off"]));
    let out = env.reasonix(&["run", "--dir", dir, "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!tool_names(&mock.requests().last().unwrap().json()).contains(&"scribe_write".into()));
    let out = reasonix(&env, &["plugin", "enable", "scribe-kit"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::copy(
        crate::support::fixture("netprobe"),
        root.join("wasm/scribe.wasm"),
    )
    .unwrap();
    mock.enqueue(Reply::text(&["refused"]));
    let out = env.reasonix(&["run", "--dir", dir, "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("wasm/scribe.wasm: changed since install"),
        "{}",
        stderr(&out)
    );
    let names = tool_names(&mock.requests().last().unwrap().json());
    assert!(
        !names.contains(&"scribe_write".into()) && !names.contains(&"http_get".into()),
        "{names:?}"
    );

    let out = reasonix(&env, &["plugin", "remove", "scribe-kit"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!root.exists());
}
