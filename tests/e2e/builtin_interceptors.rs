//! The built-in interceptor components end to end (real `reasonix run`, real components, the
//! mock LLM recording what the model was sent): `environment` and `instructions` build the
//! system prompt at `system_prompt.build`, `redact` and `bound` shape what the model reads of a
//! tool result at `tool.after`, and each can be switched off with `[plugin.<name>] enabled =
//! false`.

use crate::support::{self, Env, stderr, tool_results};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A key shape the redactor knows, in a workspace file.
const FAKE_KEY: &str = "sk-proj-abcdefghij0123456789KLMNOP";
/// The provider's key (in `<home>/.env`): long enough to be a known secret.
const PROVIDER_KEY: &str = "mock-provider-key-0123456789";

struct Setup {
    env: Env,
    mock: MockLlm,
    /// `$HOME` of the run (holds `.claude/`), apart from Reasonix's home.
    user_home: PathBuf,
}

impl Setup {
    fn new(extra: &str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let config = env.mock_provider("openai", &mock.base_url(), PROVIDER_KEY, "");
        env.project_config(&format!("{config}\n{extra}"));
        let user_home = env.root.path().join("user");
        std::fs::create_dir_all(&user_home).unwrap();
        Setup {
            env,
            mock,
            user_home,
        }
    }

    fn run(&self, task: &str) -> Output {
        let ws = self.env.workspace();
        self.env
            .command(&["run", "--dir", ws.to_str().unwrap(), "--yolo", task])
            .env("HOME", &self.user_home)
            .env("SHELL", "/bin/bash")
            .output()
            .unwrap()
    }

    fn system_prompt(&self, i: usize) -> String {
        let body: Value = self.mock.requests()[i].json();
        body["messages"][0]["content"].as_str().unwrap().to_string()
    }

    fn result(&self, i: usize, id: &str) -> String {
        tool_results("openai", &self.mock.requests()[i].json())
            .into_iter()
            .find(|(call, _)| call == id)
            .map(|(_, content)| content)
            .unwrap_or_else(|| panic!("no result for {id} in request {i}"))
    }

    /// Every line of every session transcript under the test's directories.
    fn transcript(&self) -> String {
        let mut out = String::new();
        collect_jsonl(self.env.root.path(), &mut out);
        out
    }
}

fn collect_jsonl(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_jsonl(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
        }
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The system prompt a real run sends, built by the kernel (guidance) and the `environment`
/// component, is byte for byte the pinned one (bless with `REASONIX_BLESS=1`). The machine's
/// own facts are put back to the pinned machine's.
#[test]
fn the_system_prompt_of_a_real_run_is_the_pinned_one() {
    let s = Setup::new("");
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run("hi");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ws = s.env.workspace().display().to_string();
    let prompt = s
        .system_prompt(0)
        .replace(
            &format!("- Workspace (working directory): {ws}\n"),
            "- Workspace (working directory): /work/project\n",
        )
        .replace(
            &format!("- Operating system: {}\n", std::env::consts::OS),
            "- Operating system: linux\n",
        )
        .replace(
            &format!("- Architecture: {}\n", std::env::consts::ARCH),
            "- Architecture: x86_64\n",
        );
    let golden = support::repo_root().join("tests/e2e/golden/system_prompt.txt");
    if std::env::var_os("REASONIX_BLESS").is_some() {
        std::fs::write(&golden, &prompt).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap();
    assert_eq!(
        prompt, expected,
        "the built-in system prompt changed; if on purpose, say so in CHANGELOG.md and rerun with REASONIX_BLESS=1"
    );
}

#[test]
fn instruction_files_from_every_source_in_order_with_imports() {
    let s = Setup::new("");
    let ws = s.env.workspace();
    let home = s.env.home();
    write(&home.join("REASONIX.md"), "USER-REASONIX\n@.env\n");
    write(
        &s.user_home.join(".claude/CLAUDE.md"),
        "USER-CLAUDE\n@.credentials.json\n",
    );
    write(
        &s.user_home.join(".claude/.credentials.json"),
        "CREDENTIAL-VALUE",
    );
    write(
        &ws.join("AGENTS.md"),
        "ROOT-AGENTS\n@docs/style.md\n@../escape.md\n",
    );
    write(&ws.join("docs/style.md"), "IMPORTED-STYLE");
    write(&s.env.root.path().join("escape.md"), "ESCAPED-TEXT");
    write(&ws.join("CLAUDE.local.md"), "ROOT-CLAUDE-LOCAL");
    write(&ws.join(".claude/CLAUDE.md"), "DOT-CLAUDE");
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run("hi");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let prompt = s.system_prompt(0);
    let at = |needle: &str| {
        prompt
            .find(needle)
            .unwrap_or_else(|| panic!("`{needle}` not in the prompt:\n{prompt}"))
    };
    let order = [
        at("USER-REASONIX"),
        at("USER-CLAUDE"),
        at("ROOT-AGENTS"),
        at("IMPORTED-STYLE"),
        at("ROOT-CLAUDE-LOCAL"),
        at("DOT-CLAUDE"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{prompt}");
    assert!(at("# Environment") < order[0]);
    at("## AGENTS.md\n\nROOT-AGENTS\nIMPORTED-STYLE\n");
    at("## .claude/CLAUDE.md\n\nDOT-CLAUDE\n");
    at(
        "[Reasonix did not import @../escape.md (AGENTS.md, line 3): the path leaves the importing file's directory]",
    );
    // `<home>/.env` (the provider keys) is out of the component's sight: not Markdown.
    at("[Reasonix did not import @.env (REASONIX.md, line 2): the file cannot be read]");
    // So is everything in `~/.claude` but Markdown: Claude's credentials are next door.
    at("[Reasonix did not import @.credentials.json (CLAUDE.md, line 2): the file cannot be read]");
    assert!(!prompt.contains("ESCAPED-TEXT"));
    assert!(!prompt.contains(PROVIDER_KEY));
    assert!(!prompt.contains("CREDENTIAL-VALUE"));
}

/// Claude Code's own CLAUDE.md import example, 4 of 4 in a workspace the user trusted; the home
/// import is refused, visibly, in one the user did not.
#[test]
fn claude_codes_import_example_imports_four_of_four_in_a_trusted_workspace() {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    // The provider in the user's own config: Reasonix runs in the workspace itself.
    let config = env.mock_provider("openai", &mock.base_url(), PROVIDER_KEY, "");
    std::fs::write(env.home().join("config.toml"), config).unwrap();
    let ws = env.workspace();
    let user_home = env.root.path().join("user");
    write(
        &ws.join("CLAUDE.md"),
        "See @README for project overview and @package.json for available npm commands for this project.\n\
         \n\
         # Additional Instructions\n\
         - git workflow @docs/git-instructions.md\n\
         - @~/.claude/my-project-instructions.md\n",
    );
    write(&ws.join("README"), "README-BODY");
    write(
        &ws.join("package.json"),
        "{\"scripts\": {\"test\": \"PACKAGE-BODY\"}}",
    );
    write(&ws.join("docs/git-instructions.md"), "GIT-BODY");
    write(
        &user_home.join(".claude/my-project-instructions.md"),
        "MY-OWN-PREFERENCES",
    );
    let run = || {
        env.command(&["run", "--yolo", "hi"])
            .current_dir(&ws)
            .env("HOME", &user_home)
            .output()
            .unwrap()
    };
    let prompt = |i: usize| -> String {
        let body: Value = mock.requests()[i].json();
        body["messages"][0]["content"].as_str().unwrap().to_string()
    };

    mock.enqueue(Reply::text(&["ok"]));
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let untrusted = prompt(0);
    for body in ["README-BODY", "PACKAGE-BODY", "GIT-BODY"] {
        assert!(untrusted.contains(body), "{body}\n{untrusted}");
    }
    assert!(!untrusted.contains("MY-OWN-PREFERENCES"), "{untrusted}");
    assert!(
        untrusted.contains("[Reasonix did not import @~/.claude/my-project-instructions.md (CLAUDE.md, line 5): a workspace's file imports from your home only once you trust the workspace"),
        "{untrusted}"
    );

    let trust = env
        .command(&["trust", ws.to_str().unwrap()])
        .env("HOME", &user_home)
        .output()
        .unwrap();
    assert!(trust.status.success(), "{}", stderr(&trust));
    mock.enqueue(Reply::text(&["ok"]));
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let trusted = prompt(1);
    for body in [
        "README-BODY",
        "PACKAGE-BODY",
        "GIT-BODY",
        "MY-OWN-PREFERENCES",
    ] {
        assert!(trusted.contains(body), "{body}\n{trusted}");
    }
    assert!(!trusted.contains("did not import"), "{trusted}");
}

#[test]
fn a_key_in_a_tool_result_reaches_the_model_redacted_and_the_file_stays() {
    let s = Setup::new("");
    let ws = s.env.workspace();
    let text = format!("api = {FAKE_KEY}\nprovider = {PROVIDER_KEY}\nplain = visible\n");
    write(&ws.join("config.txt"), &text);
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "read_file", r#"{"path":"config.txt"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("read config.txt");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = s.result(1, "c1");
    assert!(result.contains("api = [REDACTED]"), "{result}");
    assert!(result.contains("provider = [REDACTED]"), "{result}");
    assert!(result.contains("plain = visible"), "{result}");
    let request = s.mock.requests()[1].json().to_string();
    assert!(!request.contains(FAKE_KEY) && !request.contains(PROVIDER_KEY));
    assert_eq!(
        std::fs::read_to_string(ws.join("config.txt")).unwrap(),
        text
    );
    // What the user is shown is redacted too.
    let shown = support::stdout(&out) + &stderr(&out);
    assert!(!shown.contains(FAKE_KEY), "{shown}");
}

fn giant_file(ws: &Path) -> String {
    let text: String = (0..1500)
        .map(|i| format!("line {i:05} {}\n", "x".repeat(90)))
        .collect();
    write(&ws.join("big.txt"), &text);
    text
}

#[test]
fn a_giant_result_reaches_the_model_bounded_and_the_transcript_keeps_it_whole() {
    let s = Setup::new("");
    let text = giant_file(&s.env.workspace());
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "read_file", r#"{"path":"big.txt"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("read big.txt");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = s.result(1, "c1");
    assert!(result.len() <= 32 * 1024, "{} bytes", result.len());
    assert!(
        result.contains("`read_file` and a later `offset`"),
        "{result}"
    );
    assert!(!result.contains("line 01499"));
    // The transcript has the full result (`raw_content`), the model never saw it.
    let transcript = s.transcript();
    let raw = transcript
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| {
            let m = v.get("message").cloned().unwrap_or(v);
            m["raw_content"].as_str().map(str::to_string)
        })
        .unwrap_or_else(|| panic!("no raw_content in the transcript:\n{transcript:.2000}"));
    assert!(raw.contains("line 01499"), "{raw:.300}");
    assert!(raw.len() > text.len() / 2);
    assert!(
        !s.mock.requests()[1]
            .json()
            .to_string()
            .contains("raw_content")
    );
}

#[test]
fn bounding_is_configurable_and_each_built_in_can_be_switched_off() {
    let s = Setup::new("[plugin.bound.config]\nmax_bytes = 4096\n");
    giant_file(&s.env.workspace());
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "read_file", r#"{"path":"big.txt"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("read big.txt");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(s.result(1, "c1").len() <= 4096);

    let off = Setup::new(
        "[plugin.bound]\nenabled = false\n[plugin.environment]\nenabled = false\n[plugin.redact]\nenabled = false\n",
    );
    giant_file(&off.env.workspace());
    write(&off.env.workspace().join("AGENTS.md"), "ROOT-AGENTS");
    write(&off.env.workspace().join("key.txt"), FAKE_KEY);
    off.mock.enqueue(Reply::tool_calls(
        &[
            ("c1", "read_file", r#"{"path":"big.txt"}"#),
            ("c2", "read_file", r#"{"path":"key.txt"}"#),
        ],
        1,
    ));
    off.mock.enqueue(Reply::text(&["done"]));
    let out = off.run("read");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let prompt = off.system_prompt(0);
    assert!(!prompt.contains("# Environment"), "{prompt}");
    assert!(
        prompt.contains("user can find it.\n\n# Project instructions"),
        "{prompt}"
    );
    assert!(off.result(1, "c1").len() > 32 * 1024);
    assert!(off.result(1, "c2").contains(FAKE_KEY));
}

/// `frontend.event`: what the user is shown of a complete message passes the redactor; the
/// conversation keeps what the model said.
#[test]
fn a_key_in_the_answer_is_redacted_in_what_the_user_is_shown() {
    let s = Setup::new("");
    s.mock.enqueue(Reply::text(&[&format!(
        "The key is {FAKE_KEY}, keep it safe."
    )]));
    let ws = s.env.workspace();
    let out = s
        .env
        .command(&[
            "run",
            "--dir",
            ws.to_str().unwrap(),
            "--output-format",
            "stream-json",
            "what is the key?",
        ])
        .env("HOME", &s.user_home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let assistant: Vec<Value> = support::stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "assistant")
        .collect();
    assert_eq!(assistant.len(), 1, "{}", support::stdout(&out));
    let shown = assistant[0]["message"]["content"].to_string();
    assert!(
        shown.contains("The key is [REDACTED], keep it safe."),
        "{shown}"
    );
    assert!(!shown.contains(FAKE_KEY), "{shown}");
    // The session keeps the model's words as they were.
    assert!(s.transcript().contains(FAKE_KEY));
}

/// What the user is shown of the streamed answer passes the redactor too (issue #32 item 6),
/// in lines, so a key split across two deltas is still found: the text output, and the
/// `result` of `--output-format json`.
#[test]
fn a_key_streamed_in_pieces_is_redacted_in_the_text_output_and_the_result() {
    let (head, tail) = FAKE_KEY.split_at(12);
    for format in ["text", "json"] {
        let s = Setup::new("");
        s.mock.enqueue(Reply::text(&[
            "The key is ",
            head,
            &format!("{tail}, keep it safe.\nNothing else."),
        ]));
        let ws = s.env.workspace();
        let out = s
            .env
            .command(&[
                "run",
                "--dir",
                ws.to_str().unwrap(),
                "--output-format",
                format,
                "what is the key?",
            ])
            .env("HOME", &s.user_home)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let shown = support::stdout(&out) + &stderr(&out);
        assert!(!shown.contains(FAKE_KEY), "{format}: {shown}");
        assert!(!shown.contains(tail), "{format}: half the key: {shown}");
        assert!(
            shown.contains("The key is [REDACTED], keep it safe.")
                && shown.contains("Nothing else."),
            "{format}: {shown}"
        );
    }
}

/// The transcript keeps the original of a result an interceptor replaced, for the user to
/// read (`raw_content`): that is something the user is shown, so the redactor sees it first,
/// and a key in a file the model read is in neither the transcript nor an export.
#[test]
fn a_replaced_results_original_is_kept_redacted_and_exported_redacted() {
    let s = Setup::new("");
    let ws = s.env.workspace();
    write(&ws.join("config.txt"), &format!("api = {FAKE_KEY}\n"));
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "read_file", r#"{"path":"config.txt"}"#)], 1),
        Reply::text(&["done"]),
    ]);
    let out = s
        .env
        .command(&[
            "run",
            "--dir",
            ws.to_str().unwrap(),
            "--output-format",
            "json",
            "read config.txt",
        ])
        .env("HOME", &s.user_home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(s.result(1, "c1").contains("[REDACTED]"));
    let transcript = s.transcript();
    assert!(transcript.contains("read_file"), "no transcript found");
    assert!(!transcript.contains(FAKE_KEY), "{transcript}");
    let result: Value = serde_json::from_str(support::stdout(&out).trim()).unwrap();
    let session = result["session_id"].as_str().unwrap();
    let export = s
        .env
        .command(&[
            "sessions",
            "export",
            session,
            "--format",
            "jsonl",
            "--dir",
            ws.to_str().unwrap(),
        ])
        .env("HOME", &s.user_home)
        .output()
        .unwrap();
    assert_eq!(export.status.code(), Some(0), "{}", stderr(&export));
    let exported = support::stdout(&export);
    assert!(exported.contains("config.txt"), "{exported}");
    assert!(!exported.contains(FAKE_KEY), "{exported}");
}
