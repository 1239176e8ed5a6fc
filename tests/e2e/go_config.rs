//! Configs of the original Reasonix (Reasonix-Go) end to end: the real binary, the `llm`
//! provider component and the mock LLM server.
//!
//! - The file its `setup` writes (docs/reference: the spec's default config; `default_model =
//!   "deepseek-flash"`, no `[[providers]]`) loads: the alias resolves to the built-in `deepseek`
//!   preset as an implicit provider, and the original's sections this build does not read are
//!   named in one `ignored:` warning with their lines.
//! - `[[plugins]]` (MCP servers), `[lsp]` and `[browser]`: the MCP servers load; one whose
//!   command is not installed and one whose `${VAR}` is unset are each a clear warning, and the
//!   model is offered no tool of them. (A `[[plugins]]` server that runs: tests/e2e/mcp.rs.)
//!
//! An implicit preset always talks to its vendor (its key goes nowhere else), so a run against
//! the mock adds one user-level line block to the setup-written file — `[[providers]] preset =
//! "deepseek"` with the mock's `base_url` — the documented way to point a preset elsewhere; the
//! alias then resolves through that entry. Resolution without any `[[providers]]` is checked
//! here up to the key lookup (no request leaves the machine) and in the unit tests
//! (`kernel/config/src/providers/tests.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use std::path::PathBuf;
use std::process::{Command, Output};

/// `<home>/config.toml` as the original's `setup` writes it (its default config, SPEC §5),
/// with the model alias its setup chooses and without a `[[providers]]` entry.
const SETUP_WRITTEN: &str = r#"default_model = "deepseek-flash"   # provider name (→ its default model) or "provider/model"
# language    = "zh"                # ui language tag; empty = auto-detect from $LANG / $REASONIX_LANG

[ui]
# shortcut_layout = "desktop"       # classic|desktop; compatibility setting
# cursor_shape = "bar"              # CLI/TUI textarea cursor: underline|block|bar

[agent]
system_prompt = "You are Reasonix, a coding agent..."  # or system_prompt_file = "..."
temperature       = 0.0
reasoning_language = "auto"       # visible reasoning text: auto|zh|en

[environment]
enabled = true   # inject a stable startup summary of OS, shell, and common tool versions

[tools]
enabled = []   # omit/empty = all built-ins
bash_timeout_seconds = 120   # foreground safety cap; set 0 for no tool-local cap
mcp_call_timeout_seconds = 300   # default MCP call safety cap; plugin/tool overrides may raise it

[tools.shell]
prefer = "auto"   # auto (default) | bash | powershell | pwsh — force the shell tool's interpreter

[skills]
# paths = ["~/my-skills", "../shared/skills"]   # extra custom skill roots

[permissions]
mode  = "ask"                              # writer fallback when no rule matches: ask|allow|deny
deny  = ["Bash(rm -rf*)", "Bash(git push*)"]   # hard-blocked in every mode
allow = ["Bash(go test:*)", "Bash(git status:*)"]  # never prompted
ask   = []                                 # force a prompt even if otherwise allowed

[sandbox]
# workspace_root = ""          # file-writers confined here; empty = cwd

[serve]
auth_mode = "none"             # none|token|password; use auth before binding beyond localhost
"#;

/// What the setup-written file has that this build does not read, as the warning lists it.
// `language` and `agent.reasoning_language` are read now (docs/I18N.md).
const SETUP_IGNORED: &str = "ignored: [ui] (line 4), \
     [environment] (line 13), `tools.shell` (line 21), \
     [serve] (line 36) — not supported yet";

/// MCP servers, `[lsp]` and `[browser]` sections of the original.
const MCP_LSP_BROWSER: &str = r#"
[[plugins]]
name    = "fs"
command = "mcp-server-filesystem"
args    = ["/tmp"]

[[plugins]]
name    = "stripe"
type    = "http"
url     = "https://mcp.stripe.com"
headers = { Authorization = "Bearer ${STRIPE_KEY}" }

[lsp]
enabled = true

[browser]
headless = true
"#;

/// The user-level block that points the `deepseek` preset at the mock.
fn point_preset_at(mock: &MockLlm) -> String {
    format!(
        "\n[[providers]]\npreset = \"deepseek\"\nbase_url = \"{}\"\nstall_timeout_seconds = 5\n",
        mock.base_url()
    )
}

struct Home {
    env: Env,
}

impl Home {
    /// A home with `config` as `<home>/config.toml` and `env` as `<home>/.env`; no project file.
    fn new(config: &str, dotenv: &str) -> Home {
        let env = Env::untrusted();
        std::fs::write(env.home().join("config.toml"), config).unwrap();
        std::fs::write(env.home().join(".env"), dotenv).unwrap();
        Home { env }
    }

    fn config_path(&self) -> PathBuf {
        self.env.home().join("config.toml")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = self.env.command(args);
        command.env_remove("DEEPSEEK_API_KEY");
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.command(&all).output().unwrap()
    }
}

fn warnings(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter_map(|l| l.strip_prefix("warning: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn setup_written_config_runs_with_its_alias_and_names_what_it_ignores() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["hello from ", "the preset"]));
    let home = Home::new(
        &format!("{SETUP_WRITTEN}{}", point_preset_at(&mock)),
        "DEEPSEEK_API_KEY=sk-go-setup\n",
    );
    let out = home.run(&["say hello"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(
        stdout(&out).contains("hello from the preset"),
        "{}",
        stdout(&out)
    );

    // One warning for the whole file, naming it, each ignored key with its line.
    let file = home.config_path().display().to_string();
    assert_eq!(
        warnings(&out)
            .iter()
            .filter(|w| w.contains("ignored:"))
            .count(),
        1,
        "{}",
        stderr(&out)
    );
    let expected = format!("{file}: {SETUP_IGNORED}");
    assert!(
        warnings(&out).iter().any(|w| w.starts_with(&expected)),
        "expected {expected}\nstderr: {}",
        stderr(&out)
    );

    // `deepseek-flash` = the preset's flash model, sent with the key from <home>/.env.
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].json()["model"], "deepseek-v4-flash");
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-go-setup")
    );

    // `--model deepseek-pro` (the other alias) and `deepseek/deepseek-v4-pro` pick the pro model.
    for model in ["deepseek-pro", "deepseek/deepseek-v4-pro"] {
        mock.enqueue(Reply::text(&["pro"]));
        let out = home.run(&["--model", model, "again"]);
        assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
        let last = mock.requests().pop().unwrap();
        assert_eq!(last.json()["model"], "deepseek-v4-pro", "{model}");
        // Issue #26 item 10: the same file does not warn again on every run.
        assert!(
            !stderr(&out).contains("ignored:"),
            "warned again for an unchanged file: {}",
            stderr(&out)
        );
    }

    // A changed file warns again, once; `doctor` always lists it.
    let mut text = std::fs::read_to_string(home.config_path()).unwrap();
    text.push_str(
        "
# edited
",
    );
    std::fs::write(home.config_path(), text).unwrap();
    for expected in [1, 0] {
        mock.enqueue(Reply::text(&["ok"]));
        let out = home.run(&["once more"]);
        assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
        let shown = warnings(&out)
            .iter()
            .filter(|w| w.starts_with(&expected_start(&file)))
            .count();
        assert_eq!(shown, expected, "{}", stderr(&out));
    }
    let out = home.command(&["doctor"]).output().unwrap();
    assert!(stdout(&out).contains("ignored:") || stderr(&out).contains("ignored:"));
}

fn expected_start(file: &str) -> String {
    format!("{file}: {SETUP_IGNORED}")
}

#[test]
fn mcp_servers_lsp_and_browser_are_announced_and_the_run_works() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["no mcp here"]));
    let home = Home::new(
        &format!("{SETUP_WRITTEN}{MCP_LSP_BROWSER}{}", point_preset_at(&mock)),
        "DEEPSEEK_API_KEY=sk-go-mcp\n",
    );
    let out = home.run(&["list the mcp tools"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(stdout(&out).contains("no mcp here"), "{}", stdout(&out));

    let file = home.config_path().display().to_string();
    let warnings = warnings(&out);
    let ignored: Vec<&String> = warnings.iter().filter(|w| w.contains("ignored:")).collect();
    assert_eq!(ignored.len(), 1, "{warnings:#?}");
    // `[lsp]` is read now (docs/LSP.md): the original's `enabled = true` is a key it knows.
    assert!(
        ignored[0].contains("[browser] (line 53) — not supported yet"),
        "{}",
        ignored[0]
    );
    assert!(!warnings.iter().any(|w| w.contains("lsp")), "{warnings:#?}");
    let expected = [
        "MCP server `fs` failed to start: `mcp-server-filesystem` could not be started".to_string(),
        format!(
            "{file}: MCP server `stripe`: `headers.Authorization`: `${{STRIPE_KEY}}` is not set"
        ),
    ];
    for expected in expected {
        assert!(
            warnings.iter().any(|w| w.contains(&expected)),
            "{expected}\n{warnings:#?}"
        );
    }
    // No tool of a server that did not start is offered to the model.
    let body = mock.requests()[0].json();
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"read_file"), "{tools:?}");
    assert!(
        !tools
            .iter()
            .any(|t| t.starts_with("mcp") || t.contains("fs__") || t.contains("stripe")),
        "{tools:?}"
    );
    // And `plugin list` shows no such plugin.
    let list = home.command(&["plugin", "list"]).output().unwrap();
    assert!(list.status.success(), "{}", stderr(&list));
    assert!(!stdout(&list).contains("stripe"), "{}", stdout(&list));
}

#[test]
fn without_providers_the_preset_is_implicit_and_asks_for_its_key() {
    // The setup-written file as it is: no [[providers]], no key anywhere. The alias resolves to
    // the built-in preset, which needs DEEPSEEK_API_KEY; the run stops before any request.
    let home = Home::new(SETUP_WRITTEN, "");
    for args in [
        vec!["hi"],
        vec!["--model", "deepseek/deepseek-chat", "hi"],
        vec!["--model", "deepseek-pro", "hi"],
    ] {
        let out = home.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("deepseek") && err.contains("DEEPSEEK_API_KEY"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("no providers are configured"), "{err}");
    }
    // A reference neither a preset nor an alias names: the error says where to look.
    let out = home.run(&["--model", "no-such-model", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("reasonix providers presets"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn presets_list_the_aliases() {
    let home = Home::new("", "");
    let out = home.command(&["providers", "presets"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for line in [
        "deepseek-flash   deepseek/deepseek-v4-flash",
        "deepseek-pro     deepseek/deepseek-v4-pro",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
}

#[test]
fn doctor_and_providers_list_show_the_implicit_preset() {
    let findings = |home: &Home| -> Vec<(String, String)> {
        let out = home.command(&["doctor", "--json"]).output().unwrap();
        let value: serde_json::Value =
            serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
        value["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["area"] == "providers")
            .map(|f| {
                (
                    f["status"].as_str().unwrap().to_string(),
                    f["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let with_key = Home::new(SETUP_WRITTEN, "DEEPSEEK_API_KEY=sk-doctor\n");
    let found = findings(&with_key);
    let ok = |needle: &str| {
        found
            .iter()
            .any(|(status, m)| status == "ok" && m.contains(needle))
    };
    assert!(
        ok("default model: deepseek/deepseek-v4-flash (the built-in preset `deepseek`"),
        "{found:#?}"
    );
    assert!(ok("`deepseek`: API key: <home>/.env"), "{found:#?}");
    assert!(found.iter().all(|(status, _)| status == "ok"), "{found:#?}");

    let without_key = Home::new(SETUP_WRITTEN, "");
    let found = findings(&without_key);
    assert!(
        found
            .iter()
            .any(|(status, m)| status == "FAIL" && m.contains("DEEPSEEK_API_KEY is not set")),
        "{found:#?}"
    );

    let out = with_key.command(&["providers", "list"]).output().unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("default model: deepseek/deepseek-v4-flash"),
        "{text}\n{}",
        stderr(&out)
    );
    assert!(text.contains("built-in preset as it is"), "{text}");
}

/// Issue #26 item 10: sessions of the original (its `sessions-v4` directories) are hinted at
/// where this build finds none, and `reasonix sessions import` converts them: `-c` then
/// continues the conversation. A broken transcript is named with its file and line, converts
/// nothing, and does not stop the others.
#[test]
fn sessions_of_the_original_are_hinted_at_and_imported() {
    let mock = MockLlm::start().unwrap();
    let home = Home::new(
        &format!("{SETUP_WRITTEN}{}", point_preset_at(&mock)),
        "DEEPSEEK_API_KEY=sk-go-sessions\n",
    );
    let go = home.env.home().join("projects/-work-app/sessions-v4");
    std::fs::create_dir_all(&go).unwrap();
    let id = "20260105-093000.123456789-deepseek-v4-flash";
    std::fs::write(
        go.join(format!("{id}.jsonl")),
        concat!(
            r#"{"role":"system","content":"You are Reasonix"}"#,
            "\n",
            r#"{"role":"user","content":"what is in the box?","createdAt":"2026-01-05T09:30:00Z"}"#,
            "\n",
            r#"{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"read_file","arguments":"{\"path\":\"box\"}"}]}"#,
            "\n",
            r#"{"role":"tool","tool_call_id":"c1","content":"a cat"}"#,
            "\n",
            r#"{"role":"assistant","content":"a cat from the go days"}"#,
            "\n",
        ),
    )
    .unwrap();
    std::fs::write(go.join(format!("{id}.jsonl.meta")), "{}").unwrap();
    let ws = home.env.workspace();
    let dir = ws.to_str().unwrap();

    let out = home
        .command(&["sessions", "list", "--dir", dir])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("no sessions for"), "{text}");
    assert!(
        text.contains("1 session of the original Reasonix (Go)")
            && text.contains("sessions-v4")
            && text.contains("`reasonix sessions import`"),
        "{text}"
    );
    let out = home.run(&["-c", "go on"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`reasonix sessions import`"),
        "{}",
        stderr(&out)
    );

    // One good transcript and one broken at line 2.
    std::fs::write(
        go.join("20260106-100000.1-x.jsonl"),
        "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":7}\n",
    )
    .unwrap();
    let out = home
        .command(&["sessions", "import", "--dir", dir])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(&format!("as {id} (4 messages)")),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("20260106-100000.1-x.jsonl:2: `content` is not a string"),
        "{}",
        stderr(&out)
    );
    let out = home
        .command(&["sessions", "list", "--dir", dir])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains(id) && text.contains("what is in the box?"),
        "{text}"
    );
    assert!(!text.contains("20260106"), "{text}");

    // Importing again changes nothing.
    let out = home
        .command(&[
            "sessions",
            "import",
            "--dir",
            dir,
            "--from",
            go.join(format!("{id}.jsonl")).to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("already imported"),
        "{}",
        stdout(&out)
    );

    // `-c` continues it: the model sees the original's conversation.
    mock.enqueue(Reply::text(&["still a cat"]));
    let out = home.run(&["-c", "and now?"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let body = mock.requests().pop().unwrap().json();
    let sent = body["messages"].to_string();
    for part in [
        "what is in the box?",
        "a cat from the go days",
        "a cat",
        "and now?",
    ] {
        assert!(sent.contains(part), "{part}: {sent}");
    }
}
