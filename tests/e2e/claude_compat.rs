//! `reasonix run` as a Claude Code headless user drives it: the flag spellings (`-p`,
//! `--allowedTools` lists followed by the task, `--max-turns`, `--system-prompt` …) and the
//! `json` / `stream-json` output read by a consumer written for Claude Code
//! (`tests/consumers/claude_consumer.py`, Python standard library only), against the mock LLM.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{self, Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply, Usage};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    fn with_extra(extra: &str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        env.project_config(&env.mock_provider(
            "openai",
            &mock.base_url(),
            "sk-test",
            &format!("stall_timeout_seconds = 5\n{extra}"),
        ));
        Setup { env, mock }
    }

    fn new() -> Setup {
        Setup::with_extra("")
    }

    fn command(&self, args: &[&str]) -> Command {
        self.env.command(args)
    }

    /// `reasonix <first…> --dir <workspace> <args…>`.
    fn run_with(&self, first: &[&str], args: &[&str]) -> Output {
        let ws = self.env.workspace();
        let mut all = first.to_vec();
        all.extend(["--dir", ws.to_str().unwrap()]);
        all.extend_from_slice(args);
        self.command(&all).output().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with(&["run"], args)
    }

    /// The last user message of request `i` (the task as the model got it).
    fn task_sent(&self, i: usize) -> String {
        let body = self.mock.requests()[i].json();
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .map(|m| m["content"].as_str().unwrap_or_default().to_string())
            .unwrap()
    }

    fn system_sent(&self, i: usize) -> String {
        let body = self.mock.requests()[i].json();
        body["messages"][0]["content"].as_str().unwrap().to_string()
    }
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// The consumer script on `output`; its summary.
fn consume(mode: &str, output: &str) -> Value {
    let script = support::repo_root().join("tests/consumers/claude_consumer.py");
    let mut child = Command::new("python3")
        .arg(&script)
        .arg(mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs the consumer");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(output.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the consumer failed: {}\non:\n{output}",
        stderr(&out)
    );
    serde_json::from_str(&stdout(&out)).unwrap()
}

/// The model writes `hello.txt`, then answers.
fn script_write_then_answer(mock: &MockLlm) {
    mock.enqueue(
        Reply::tool_calls(
            &[(
                "call_1",
                "write_file",
                r#"{"path":"hello.txt","content":"hi\n"}"#,
            )],
            2,
        )
        .with_usage(Usage {
            prompt: 1000,
            completion: 20,
            cache_hit: 600,
            cache_miss: 400,
            reasoning: 0,
        }),
    );
    mock.enqueue(Reply::text(&["Wrote ", "hello.txt."]).with_usage(Usage {
        prompt: 1100,
        completion: 5,
        cache_hit: 1000,
        cache_miss: 100,
        reasoning: 0,
    }));
}

const USD_PRICE: &str = "price = { input = 2.0, output = 8.0, cache_hit = 0.5, currency = \"$\" }";

#[test]
fn a_claude_json_consumer_reads_the_result() {
    let s = Setup::with_extra(USD_PRICE);
    script_write_then_answer(&s.mock);
    let out = s.run(&["--output-format", "json", "--yolo", "create hello.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let summary = consume("json", &stdout(&out));
    assert_eq!(summary["result"], "Wrote hello.txt.");
    assert_eq!(summary["subtype"], "success");
    assert_eq!(summary["is_error"], false);
    assert_eq!(summary["num_turns"], 2);
    assert!(
        summary["session_id"]
            .as_str()
            .unwrap()
            .ends_with("-mock-model")
    );
    // 500 miss × 2 + 1600 hit × 0.5 + 25 out × 8, per million dollars.
    let cost = summary["total_cost_usd"].as_f64().unwrap();
    assert!((cost - 0.002).abs() < 1e-9, "{cost}");
    assert_eq!(summary["usage"]["input_tokens"], 500);
    assert_eq!(summary["usage"]["cache_read_input_tokens"], 1600);
    assert_eq!(summary["usage"]["cache_creation_input_tokens"], 0);
    assert_eq!(summary["usage"]["output_tokens"], 25);
    assert_eq!(summary["permission_denials"], serde_json::json!([]));
    // The original's fields stay, with an ISO currency code instead of the configured `$`.
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["currency"], "USD");
    assert_eq!(r["total_cost"], r["total_cost_usd"]);
}

#[test]
fn a_cost_in_yuan_has_no_usd_field() {
    let s = Setup::with_extra(
        "price = { input = 2.0, output = 8.0, cache_hit = 0.5, currency = \"¥\" }",
    );
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["--output-format", "json", "say ok"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["currency"], "CNY");
    assert!(r["total_cost"].is_number(), "{r}");
    // Always a number (a consumer's `printf "%.4f"` must not break), flagged as no cost.
    assert_eq!(r["total_cost_usd"], 0.0, "{r}");
    assert_eq!(r["total_cost_usd_unpriced"], true, "{r}");
}

#[test]
fn a_claude_stream_json_consumer_pairs_tools_and_sees_denials() {
    let s = Setup::with_extra(USD_PRICE);
    s.mock.enqueue(
        Reply::tool_calls(
            &[
                ("call_w", "write_file", r#"{"path":"a.txt","content":"A"}"#),
                ("call_b", "bash", r#"{"command":"echo hi"}"#),
            ],
            1,
        )
        .with_reasoning("planning", None),
    );
    s.mock.enqueue(Reply::text(&["Wrote ", "a.txt."]));
    // Claude Code's spelling: `-p` first (no subcommand), `--verbose` with stream-json, a
    // space-separated `--allowedTools` list, then the task.
    let out = s.run_with(
        &["-p", "--output-format", "stream-json", "--verbose"],
        &["--allowedTools", "Edit", "Read", "write a.txt"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(s.task_sent(0), "write a.txt");
    let summary = consume("stream-json", &stdout(&out));
    let init = &summary["init"];
    assert_eq!(init["model"], "mock-model");
    assert_eq!(init["permissionMode"], "ask");
    assert_eq!(init["cwd"], s.env.workspace().to_str().unwrap());
    assert!(
        init["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "write_file")
    );
    assert_eq!(init["session_id"], summary["session_id"]);
    assert_eq!(summary["result"], "Wrote a.txt.");
    assert_eq!(summary["thinking"], serde_json::json!(["planning"]));
    assert_eq!(summary["texts"], serde_json::json!(["Wrote a.txt."]));
    let pairs = summary["tool_pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2, "{pairs:?}");
    assert_eq!(pairs[0]["id"], "call_w");
    assert_eq!(pairs[0]["name"], "write_file");
    assert_eq!(pairs[0]["input"]["path"], "a.txt");
    assert_eq!(pairs[0]["is_error"], false);
    // `bash` was not allowed: refused, reported as an error result and a denial.
    assert_eq!(pairs[1]["id"], "call_b");
    assert_eq!(pairs[1]["is_error"], true);
    let denials = summary["permission_denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1, "{denials:?}");
    assert_eq!(denials[0]["tool_name"], "bash");
    assert_eq!(denials[0]["tool_use_id"], "call_b");
    assert_eq!(denials[0]["tool_input"]["command"], "echo hi");
    assert!(denials[0]["reason"].as_str().unwrap().len() > 10);
    assert!(summary["total_cost_usd"].is_number());
    assert_eq!(
        std::fs::read_to_string(s.env.workspace().join("a.txt")).unwrap(),
        "A"
    );
}

#[test]
fn allowed_tools_list_ends_where_the_task_begins() {
    let s = Setup::new();
    script_write_then_answer(&s.mock);
    let out = s.run(&["--allowedTools", "Bash(git status:*)", "Edit", "the task"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(s.task_sent(0), "the task");
    // `Edit` was a rule: the write ran.
    assert_eq!(
        std::fs::read_to_string(s.env.workspace().join("hello.txt")).unwrap(),
        "hi\n"
    );
}

#[test]
fn allowed_tools_forms() {
    // (arguments after `run --dir WS`, the task the model must get, whether Edit was granted)
    let cases: &[(&[&str], &str, bool)] = &[
        // Comma-separated, then a multi-word task in several words.
        (
            &[
                "--allowed-tools",
                "Bash(git status:*),Edit",
                "create",
                "hello.txt",
            ],
            "create hello.txt",
            true,
        ),
        // `=` form takes one value; the rest is the task.
        (
            &["--allowedTools=Edit", "create hello.txt"],
            "create hello.txt",
            true,
        ),
        // A known lowercase tool name is a rule; an unknown word is the task.
        (
            &["--allowedTools", "write_file", "refactor"],
            "refactor",
            true,
        ),
        // A task that is itself a tool name: `--` ends the list.
        (&["--allowedTools", "Edit", "--", "Read"], "Read", true),
        // The task first, the list last.
        (
            &["create hello.txt", "--allowedTools", "Edit"],
            "create hello.txt",
            true,
        ),
        // A rule the user did not grant: Read only, the write is refused.
        (
            &["--allowedTools", "Read", "create hello.txt"],
            "create hello.txt",
            false,
        ),
    ];
    for (args, task, granted) in cases {
        let s = Setup::new();
        script_write_then_answer(&s.mock);
        let out = s.run(args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        assert_eq!(s.task_sent(0), *task, "{args:?}");
        assert_eq!(
            s.env.workspace().join("hello.txt").exists(),
            *granted,
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn disallowed_tools_deny_even_with_yolo() {
    let s = Setup::new();
    script_write_then_answer(&s.mock);
    let out = s.run(&[
        "--yolo",
        "--output-format",
        "json",
        "--disallowedTools",
        "Edit",
        "create hello.txt",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(s.task_sent(0), "create hello.txt");
    assert!(!s.env.workspace().join("hello.txt").exists());
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["permission_denials"][0]["tool_name"], "write_file");
}

#[test]
fn prompt_and_budget_flags() {
    let s = Setup::new();
    s.mock.enqueue(Reply::tool_calls(&[("c1", "ls", "{}")], 1));
    let out = s.run(&[
        "--max-turns",
        "1",
        "--system-prompt",
        "You are a test persona.",
        "--append-system-prompt",
        "Always end with DONE.",
        "--output-format",
        "json",
        "look",
    ]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["subtype"], "error_max_turns");
    assert_eq!(r["is_error"], true);
    let system = s.system_sent(0);
    assert!(system.starts_with("You are a test persona.\n"), "{system}");
    assert!(!system.contains("You are Reasonix"), "{system}");
    assert!(system.contains("# Environment"), "{system}");
    assert!(system.ends_with("\n\nAlways end with DONE."), "{system}");
}

/// Issue #26 item 7: `--system-prompt-file` and `--append-system-prompt-file`, as Claude Code
/// reads them; a missing file is a usage error naming the flag and the file.
#[test]
fn prompt_file_flags() {
    let s = Setup::new();
    let dir = tempfile::tempdir().unwrap();
    let persona = dir.path().join("persona.md");
    let tail = dir.path().join("tail.md");
    std::fs::write(&persona, "You are a file persona.\n").unwrap();
    std::fs::write(&tail, "End with FILE-DONE.\n\n").unwrap();
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&[
        "--system-prompt-file",
        persona.to_str().unwrap(),
        "--append-system-prompt-file",
        tail.to_str().unwrap(),
        "look",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let system = s.system_sent(0);
    assert!(system.starts_with("You are a file persona.\n"), "{system}");
    assert!(system.ends_with("\n\nEnd with FILE-DONE."), "{system}");

    let missing = dir.path().join("nope.md");
    let out = s.run(&[
        "--append-system-prompt-file",
        missing.to_str().unwrap(),
        "look",
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--append-system-prompt-file") && stderr(&out).contains("nope.md"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn model_flag_and_print_shorthand() {
    let s = Setup::with_extra("models = [\"mock-model\", \"other-model\"]");
    s.mock.enqueue(Reply::text(&["hello"]));
    let out = s.run_with(&["-p", "--model", "mock/other-model"], &["say hello"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "hello\n");
    assert_eq!(s.mock.requests()[0].json()["model"], "other-model");
}

/// `--add-dir` is `[sandbox] allow_write` for one run: commands may write there (the built-in
/// file tools still write only inside the workspace, as with the config key).
#[test]
fn add_dir_widens_the_writable_roots() {
    let s = Setup::new();
    let extra = tempfile::tempdir().unwrap();
    let extra_path = std::fs::canonicalize(extra.path()).unwrap();
    let target = extra_path.join("out.txt");
    let args = serde_json::json!({"command": format!("echo x > {}", target.display())}).to_string();
    for with_flag in [false, true] {
        s.mock
            .enqueue(Reply::tool_calls(&[("c1", "bash", &args)], 1));
        s.mock.enqueue(Reply::text(&["done"]));
        let mut run_args = vec!["--yolo", "write outside"];
        if with_flag {
            run_args.splice(0..0, ["--add-dir", extra_path.to_str().unwrap()]);
        }
        let out = s.run(&run_args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(target.exists(), with_flag, "{}", stderr(&out));
    }
    let out = s.run(&["--add-dir", "/no/such/dir", "task"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--add-dir /no/such/dir"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unknown_flags_and_bad_rules_are_usage_errors() {
    let s = Setup::new();
    let out = s.run(&["--fallbak-model", "x", "hello"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--fallbak-model"), "{}", stderr(&out));
    let out = s.run(&["--allowedTools", "Bash(", "hello"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--allowed-tools: `Bash(`"),
        "{}",
        stderr(&out)
    );
    let out = s.run(&["--disallowedTools", "Bash(", "hello"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--disallowed-tools: `Bash(`"),
        "{}",
        stderr(&out)
    );
    assert!(s.mock.requests().is_empty());
}

#[test]
fn fallback_model_takes_over_when_the_main_one_fails_before_answering() {
    let s = Setup::with_extra("models = [\"mock-model\", \"other-model\"]");
    s.mock.enqueue(Reply::status(
        400,
        r#"{"error":{"message":"model overloaded"}}"#,
    ));
    s.mock.enqueue(Reply::text(&["from the fallback"]));
    let out = s.run(&["--fallback-model", "other-model", "-p", "say hi"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "from the fallback\n");
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].json()["model"], "mock-model");
    assert_eq!(requests[1].json()["model"], "other-model");
    assert!(
        stderr(&out).contains("switching to the fallback model `mock/other-model`"),
        "{}",
        stderr(&out)
    );

    // Without the flag the same failure ends the run; the fallback cannot be the main model.
    s.mock.enqueue(Reply::status(
        400,
        r#"{"error":{"message":"model overloaded"}}"#,
    ));
    let out = s.run(&["-p", "say hi"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let out = s.run(&["--fallback-model", "mock-model", "say hi"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("that is the main model"),
        "{}",
        stderr(&out)
    );
    assert_eq!(s.mock.requests().len(), 3);
}

/// An index that does not parse: `plugin install` says so once, with the position once (it
/// was printed as a load note and again as the error, each naming the position twice).
#[test]
fn a_broken_plugin_index_is_reported_once() {
    let env = Env::new();
    std::fs::write(env.plugins_dir().join("index.json"), "{bad").unwrap();
    let fixture = support::fixture("scribe");
    let out = env.reasonix(&["plugin", "install", fixture.to_str().unwrap(), "--yes"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.matches("key must be a string").count(), 1, "{err}");
    assert_eq!(err.matches("line 1").count(), 1, "{err}");
    assert!(
        err.contains("index.json: line 1, column 2: key must be a string"),
        "{err}"
    );
}

/// Claude Code's documented command file (`.claude/commands/review-pr.md`, positional
/// arguments) invoked as `reasonix -p "/review-pr 456 high alice"`: the model gets the expanded
/// template, exactly as the session sends it; a `/word` that is no command goes as it is.
#[test]
fn a_custom_command_as_the_task_sends_its_template() {
    let s = Setup::new();
    let commands = s.env.workspace().join(".claude").join("commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("review-pr.md"),
        "---\nargument-hint: [pr-number] [priority] [assignee]\ndescription: Review pull request\n---\n\nReview PR #$1 with priority $2 and assign to $3.\nFocus on security, performance, and code style.\n",
    )
    .unwrap();
    s.mock.enqueue(Reply::text(&["reviewed"]));
    s.mock.enqueue(Reply::text(&["as is"]));
    let out = s.run_with(&["-p"], &["/review-pr 456 high alice"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        s.task_sent(0),
        "Review PR #456 with priority high and assign to alice.\nFocus on security, performance, and code style."
    );
    let out = s.run(&["/usr/bin/env is missing"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(s.task_sent(1), "/usr/bin/env is missing");
}
