//! `reasonix run` and `reasonix sessions list` end to end: the real binary, the built-in tool
//! components and the `llm` provider component, against the mock LLM server. Each test scripts
//! the model, runs the CLI, and checks what really happened: exit code, stdout/stderr, files on
//! disk, the request bodies the mock recorded, and the session files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use reasonix_mock_llm::{MockLlm, Reply, Step, Usage};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{Env, shared_artifact_cache, stderr, stdout};

/// A temp home/workspace, the mock, and a provider `mock` (kind openai) pointing at it.
struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    fn new() -> Setup {
        Setup::with_extra("")
    }

    /// `extra` is appended to the `[[providers]]` entry (e.g. a price).
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

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_reasonix"));
        command
            .args(args)
            .current_dir(self.env.project())
            .env("REASONIX_HOME", self.env.home())
            .env("REASONIX_CACHE_HOME", shared_artifact_cache())
            .env_remove("REASONIX_STATE_HOME")
            .env_remove("REASONIX_LOG")
            .env_remove("MOCK_LLM_KEY");
        command
    }

    /// `reasonix run --dir <workspace> <args…>` started in the background, output piped.
    fn spawn_run(&self, args: &[&str]) -> Child {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.command(&all)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// `reasonix run --dir <workspace> <args…>`.
    fn run(&self, args: &[&str]) -> Output {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.command(&all).stdin(Stdio::null()).output().unwrap()
    }

    fn sessions_json(&self) -> Value {
        let ws = self.env.workspace();
        let out = self
            .command(&["sessions", "list", "--json", "--dir", ws.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str(&stdout(&out)).unwrap()
    }

    fn request_body(&self, i: usize) -> Value {
        self.mock.requests()[i].json()
    }
}

/// The model writes `hello.txt`, then answers.
fn script_write_then_answer(mock: &MockLlm) {
    mock.enqueue(
        Reply::tool_calls(
            &[(
                "call_1",
                "write_file",
                r#"{"path":"hello.txt","content":"hi from the agent\n"}"#,
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

fn messages(body: &Value) -> &Vec<Value> {
    body["messages"].as_array().expect("messages array")
}

fn tool_message(body: &Value) -> String {
    messages(body)
        .iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .expect("a tool message")
}

fn exit_code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

#[test]
fn yolo_run_changes_the_file_and_prints_the_answer() {
    let s = Setup::new();
    script_write_then_answer(&s.mock);
    let out = s.run(&["--yolo", "create", "hello.txt"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(s.env.workspace().join("hello.txt")).unwrap(),
        "hi from the agent\n"
    );
    assert_eq!(stdout(&out), "Wrote hello.txt.\n");
    let err = stderr(&out);
    assert!(err.contains("→ write_file {"), "{err}");
    assert!(err.contains("← ok"), "{err}");

    // The request: the system prompt first (Reasonix guidance, the workspace), then the task;
    // the tools offered include the writers.
    let first = s.request_body(0);
    let msgs = messages(&first);
    assert_eq!(msgs[0]["role"], "system");
    let system = msgs[0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are Reasonix"), "{system}");
    assert!(
        system.contains(s.env.workspace().to_str().unwrap()),
        "{system}"
    );
    assert_eq!(msgs[1]["role"], "user");
    assert_eq!(msgs[1]["content"], "create hello.txt");
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"write_file") && tools.contains(&"read_file"));
    // The result went back to the model.
    let second = s.request_body(1);
    assert!(!tool_message(&second).contains("Permission needed"));
}

#[test]
fn headless_default_refuses_writers_and_tells_the_model_how_to_allow_them() {
    let s = Setup::new();
    script_write_then_answer(&s.mock);
    let out = s.run(&["create hello.txt"]);
    // The model answered, so the run itself succeeded.
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    assert!(!s.env.workspace().join("hello.txt").exists());
    let refusal = tool_message(&s.request_body(1));
    assert!(refusal.contains("Permission needed"), "{refusal}");
    assert!(refusal.contains("--auto"), "{refusal}");
    assert!(refusal.contains("--allowed-tools"), "{refusal}");
    // The user sees it too.
    let err = stderr(&out);
    assert!(err.contains("write_file"), "{err}");
    assert!(err.contains("--auto"), "{err}");
}

#[test]
fn allowed_tools_and_auto_let_writers_run() {
    for flags in [
        &["--allowed-tools", "Edit, Bash(cargo test:*)"][..],
        &["--allowedTools", "Edit(hello.txt)"][..],
        &["--auto"][..],
        &["-y"][..],
        &["--permission-mode", "acceptEdits"][..],
    ] {
        let s = Setup::new();
        script_write_then_answer(&s.mock);
        let mut args = flags.to_vec();
        args.push("create hello.txt");
        let out = s.run(&args);
        assert_eq!(exit_code(&out), 0, "{flags:?}: {}", stderr(&out));
        assert!(
            s.env.workspace().join("hello.txt").is_file(),
            "{flags:?}: the file was not written"
        );
    }
}

#[test]
fn print_shows_only_the_final_answer() {
    let s = Setup::new();
    script_write_then_answer(&s.mock);
    // Flags may follow the task.
    let out = s.run(&["create hello.txt", "-p", "--yolo"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Wrote hello.txt.\n");
    assert!(!stderr(&out).contains('→'), "{}", stderr(&out));
}

#[test]
fn json_output_is_one_result_object() {
    let s = Setup::with_extra(
        "price = { input = 2.0, output = 8.0, cache_hit = 0.5, currency = \"CNY\" }",
    );
    script_write_then_answer(&s.mock);
    let out = s.run(&["--output-format", "json", "--yolo", "create hello.txt"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["type"], "result");
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["is_error"], false);
    assert_eq!(r["num_turns"], 2);
    assert_eq!(r["result"], "Wrote hello.txt.");
    assert!(r["duration_ms"].as_u64().is_some());
    let session = r["session_id"].as_str().unwrap();
    assert!(session.ends_with("-mock-model"), "{session}");
    assert_eq!(r["usage"]["input_tokens"], 400 + 100);
    assert_eq!(r["usage"]["cache_read_input_tokens"], 600 + 1000);
    assert_eq!(r["usage"]["output_tokens"], 25);
    assert_eq!(r["usage"]["cache_creation_input_tokens"], 0);
    // 500 miss × 2 + 1600 hit × 0.5 + 25 out × 8, per million.
    let cost = r["total_cost"].as_f64().unwrap();
    assert!((cost - 0.002).abs() < 1e-9, "{cost}");
    assert_eq!(r["currency"], "CNY");
}

#[test]
fn json_output_without_prices_has_no_cost_fields() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["--output-format", "json", "say ok"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["result"], "ok");
    assert!(r.get("total_cost").is_none(), "{r}");
    assert!(r.get("currency").is_none(), "{r}");
}

#[test]
fn stream_json_lines_parse_init_first_result_last() {
    let s = Setup::new();
    s.mock.enqueue(
        Reply::tool_calls(
            &[
                ("call_1", "write_file", r#"{"path":"a.txt","content":"A"}"#),
                ("call_2", "write_file", r#"{"path":"b.txt","content":"B"}"#),
            ],
            1,
        )
        .with_reasoning("planning", None),
    );
    s.mock.enqueue(Reply::text(&["Both ", "written."]));
    let out = s.run(&[
        "--output-format",
        "stream-json-v1",
        "--yolo",
        "write a and b",
    ]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let init = &lines[0];
    assert_eq!(init["type"], "system");
    assert_eq!(init["subtype"], "init");
    assert_eq!(init["schema_version"], 1);
    assert_eq!(init["model"], "mock-model");
    assert_eq!(init["provider"], "mock");
    assert_eq!(init["cwd"], s.env.workspace().to_str().unwrap());
    assert_eq!(init["permission_mode"], "bypassPermissions");
    assert!(
        init["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "write_file")
    );
    let session = init["session_id"].as_str().unwrap();
    assert!(!session.is_empty());

    let last = lines.last().unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(last["subtype"], "success");
    assert_eq!(last["session_id"], session);
    assert_eq!(last["result"], "Both written.");

    let of_type = |t: &str| -> Vec<&Value> { lines.iter().filter(|l| l["type"] == t).collect() };
    assert_eq!(of_type("result").len(), 1);
    assert_eq!(of_type("user")[0]["message"]["content"], "write a and b");
    assert_eq!(of_type("turn").len(), 2);
    let text: String = of_type("text")
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Both written.");
    assert_eq!(of_type("reasoning")[0]["text"], "planning");
    let assistant = of_type("assistant");
    assert_eq!(assistant.len(), 2);
    assert_eq!(
        assistant[0]["message"]["tool_calls"][1]["input"]["path"],
        "b.txt"
    );
    let uses = of_type("tool_use");
    assert_eq!(uses.len(), 2);
    assert_eq!(uses[0]["id"], "call_1");
    assert_eq!(uses[0]["name"], "write_file");
    assert_eq!(uses[0]["input"]["content"], "A");
    let results = of_type("tool_result");
    assert_eq!(results.len(), 2);
    assert_eq!(results[1]["id"], "call_2");
    assert_eq!(results[1]["is_error"], false);
    assert!(results[1]["content"].is_string());
    // Every tool_use comes before its result.
    let pos = |t: &str, id: &str| {
        lines
            .iter()
            .position(|l| l["type"] == t && l["id"] == id)
            .unwrap()
    };
    assert!(pos("tool_use", "call_1") < pos("tool_result", "call_1"));
    assert_eq!(of_type("usage").len(), 2);
    assert!(std::fs::read_to_string(s.env.workspace().join("b.txt")).unwrap() == "B");
}

#[test]
fn usage_errors_exit_2_before_any_request() {
    let s = Setup::new();
    let cases: [(&[&str], &str); 5] = [
        (
            &["--auto", "--permission-mode", "ask", "x"],
            "--permission-mode",
        ),
        (&["--yolo", "--auto", "x"], "--auto"),
        (
            &["--permission-mode", "sideways", "x"],
            "unknown permission mode",
        ),
        (&["--continue", "--resume", "abc", "x"], "--resume"),
        (&["--allowed-tools", "Bash(", "x"], "--allowed-tools"),
    ];
    for (args, expect) in cases {
        let out = s.run(args);
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(expect), "{args:?}: {}", stderr(&out));
    }
    // No task: stdin is empty (not a terminal).
    let out = s.run(&[]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("task is empty"), "{}", stderr(&out));
    let out = s.run(&["   "]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    // Nothing to continue yet, an unknown session.
    let out = s.run(&["--continue", "more"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no earlier session"),
        "{}",
        stderr(&out)
    );
    let out = s.run(&["--resume", "nope", "more"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    // An unknown model.
    let out = s.run(&["--model", "other", "x"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    // An effort level the backend does not know: the provider component's message, naming the
    // provider, the model and the valid levels.
    let out = s.run(&["--effort", "ultra", "x"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("provider `mock` (model mock-model): effort `ultra`")
            && stderr(&out).contains("auto, low, medium, high"),
        "{}",
        stderr(&out)
    );
    assert!(s.mock.requests().is_empty());
}

#[test]
fn the_task_can_come_from_stdin() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["piped ok"]));
    let ws = s.env.workspace();
    let mut child = s
        .command(&["run", "--dir", ws.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"summarise\nthe repo\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "piped ok\n");
    let body = s.request_body(0);
    assert_eq!(messages(&body)[1]["content"], "summarise\nthe repo");
}

/// Issue #26 item 4: `printf 'E1\n' | reasonix -p "explain"` sends the piped text after the
/// task, as Claude Code does; past the cap it is cut with a note.
#[test]
fn piped_text_follows_a_task_given_as_arguments() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["explained"]));
    s.mock.enqueue(Reply::text(&["cut"]));
    let ws = s.env.workspace();
    let send = |input: Vec<u8>| {
        let mut child = s
            .command(&["-p", "--dir", ws.to_str().unwrap(), "explain"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Past the cap the rest is never read: the write ends with a broken pipe.
        let _ = child.stdin.take().unwrap().write_all(&input);
        child.wait_with_output().unwrap()
    };
    let out = send(b"E1\n".to_vec());
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(messages(&s.request_body(0))[1]["content"], "explain\n\nE1");

    let big = "x".repeat(600 * 1024);
    let out = send(big.into_bytes());
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let body = s.request_body(1);
    let sent = messages(&body)[1]["content"].as_str().unwrap().to_string();
    assert!(sent.starts_with("explain\n\nxxx"), "{}", &sent[..40]);
    assert!(
        sent.ends_with("[stdin was cut at 512 KiB; the rest was not read]"),
        "{}",
        &sent[sent.len() - 80..]
    );
    assert!(sent.len() < 512 * 1024 + 200, "{}", sent.len());
}

/// A stdin that stays open and silent (a parent that never writes nor closes it) does not
/// hang the run: after a bounded wait it runs without it, and says so.
#[test]
fn a_silent_open_stdin_is_not_waited_for_forever() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["fine"]));
    let ws = s.env.workspace();
    let mut child = s
        .command(&["run", "--dir", ws.to_str().unwrap(), "hello"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Held open, never written, until the run is over.
    let stdin = child.stdin.take().unwrap();
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing arrived on stdin in 3 s; running without it"),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(messages(&s.request_body(0))[1]["content"], "hello");
}

#[test]
fn runtime_failures_exit_1_with_the_subtype() {
    // The step budget runs out while the model still wants tools.
    let s = Setup::new();
    s.mock.enqueue(Reply::tool_calls(&[("c1", "ls", "{}")], 1));
    let out = s.run(&["--max-steps", "1", "--output-format", "json", "list"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["subtype"], "error_max_turns");
    assert_eq!(r["is_error"], true);
    assert_eq!(r["num_turns"], 1);

    // The provider refuses the request.
    let s = Setup::new();
    s.mock.enqueue(Reply::status(400, ""));
    let out = s.run(&["--output-format", "json", "hello"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["subtype"], "error_during_execution");
    assert!(r["result"].as_str().unwrap().contains("mock"), "{r}");

    // Text mode says so on stderr.
    let s = Setup::new();
    s.mock.enqueue(Reply::status(400, ""));
    let out = s.run(&["hello"]);
    assert_eq!(exit_code(&out), 1);
    assert!(stderr(&out).contains("error: "), "{}", stderr(&out));
}

#[test]
fn sessions_list_shows_the_run_and_continue_appends_to_it() {
    let s = Setup::new();
    assert_eq!(s.sessions_json()["sessions"].as_array().unwrap().len(), 0);

    s.mock.enqueue(Reply::text(&["first answer"]));
    let out = s.run(&["--output-format", "json", "first task"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let first: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let id = first["session_id"].as_str().unwrap().to_string();

    let list = s.sessions_json();
    assert_eq!(list["workspace"], s.env.workspace().to_str().unwrap());
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["id"], id.as_str());
    assert_eq!(sessions[0]["title"], "first task");
    assert_eq!(sessions[0]["model"], "mock-model");
    assert_eq!(sessions[0]["messages"], 2);
    assert!(sessions[0]["updated_ms"].as_u64().unwrap() > 0);

    // --continue: the same session, the earlier messages sent again.
    s.mock.enqueue(Reply::text(&["second answer"]));
    let out = s.run(&["--continue", "--output-format", "json", "second task"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let second: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(second["session_id"], id.as_str());
    let body = s.request_body(1);
    let contents: Vec<&str> = messages(&body)
        .iter()
        .map(|m| m["content"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        &contents[1..],
        ["first task", "first answer", "second task"]
    );
    // The prefix is byte-identical across the two runs.
    let system = |i: usize| messages(&s.request_body(i))[0].to_string();
    assert_eq!(system(0), system(1));
    assert_eq!(
        s.request_body(0)["tools"].to_string(),
        s.request_body(1)["tools"].to_string()
    );

    // --resume by title text, spelled `-r` as in Claude Code's `claude -p -r …` (issue #26
    // item 7), through the top-level `reasonix -p` form scripts use.
    s.mock.enqueue(Reply::text(&["third answer"]));
    let ws = s.env.workspace();
    let out = s
        .command(&[
            "-p",
            "-r",
            "FIRST",
            "--dir",
            ws.to_str().unwrap(),
            "third task",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "third answer\n");

    let list = s.sessions_json();
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["messages"], 6);

    // A new run starts a second session, listed first.
    s.mock.enqueue(Reply::text(&["fresh"]));
    let out = s.run(&["another task"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let list = s.sessions_json();
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0]["title"], "another task");

    // The text listing.
    let ws = s.env.workspace();
    let out = s
        .command(&["sessions", "list", "--dir", ws.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.starts_with("ID "), "{text}");
    assert!(
        text.contains(&id) && text.contains("mock/mock-model"),
        "{text}"
    );
}

#[test]
fn sigterm_cancels_the_run_and_keeps_the_session() {
    let s = Setup::new();
    s.mock.enqueue(
        Reply::text(&["partial "])
            .then(Step::Gate("hold".into()))
            .then(Step::Text("never".into())),
    );
    let child = s.spawn_run(&["--output-format", "stream-json", "wait for me"]);
    s.mock.wait_for_requests(1, Duration::from_secs(60));
    // Let the first delta arrive, then ask the process to stop.
    let out = terminate_after(child, Duration::from_millis(300));
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let last: Value = serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert_eq!(last["subtype"], "cancelled");
    assert_eq!(last["is_error"], true);
    // The task was saved before the request; the session can be continued.
    let list = s.sessions_json();
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["title"], "wait for me");
    assert!(
        !Path::new(sessions[0]["path"].as_str().unwrap())
            .with_extension("lock")
            .exists(),
        "the lock was not released"
    );
    s.mock.release("hold");
    s.mock.enqueue(Reply::text(&["resumed"]));
    let out = s.run(&["--continue", "-p", "go on"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "resumed\n");
}

#[test]
fn a_second_signal_exits_at_once_with_130() {
    // The first signal cancels, but this run cannot stop on its own: its stdout is a full pipe
    // nobody reads (as when piped into a pager that was suspended). The second one exits.
    let s = Setup::new();
    let chunk = "x".repeat(1024);
    let chunks: Vec<&str> = std::iter::repeat_n(chunk.as_str(), 200).collect();
    s.mock.enqueue(Reply::text(&chunks));
    let mut child = s.spawn_run(&["--output-format", "stream-json", "talk a lot"]);
    s.mock.wait_for_requests(1, Duration::from_secs(60));
    std::thread::sleep(Duration::from_millis(1500));
    let pid = child.id().to_string();
    let signal = || {
        let status = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(status.success());
    };
    signal();
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended although its output is blocked"
    );
    let started = Instant::now();
    signal();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no exit after the second signal"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.contains("interrupted"), "{err}");
}

#[test]
fn a_signal_stops_a_running_command_and_the_run() {
    let s = Setup::with_extra("[sandbox]\nbash = \"off\"");
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "bash", r#"{"command":"sleep 30"}"#)],
        1,
    ));
    let child = s.spawn_run(&["--yolo", "--output-format", "json", "sleep"]);
    s.mock.wait_for_requests(1, Duration::from_secs(60));
    let out = terminate_after(child, Duration::from_millis(700));
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["subtype"], "cancelled");
    // Only the one request: the run did not go on after the cancelled tool.
    assert_eq!(s.mock.requests().len(), 1);
}

#[test]
fn agent_config_shapes_the_prompt_tools_and_budget() {
    let s = Setup::with_extra(
        "[agent]\nsystem_prompt = \"You are a test persona.\"\nmax_steps = 1\n[tools]\nenabled = [\"read_file\", \"ls\"]",
    );
    std::fs::write(
        s.env.workspace().join("AGENTS.md"),
        "Always answer in haiku.\n",
    )
    .unwrap();
    s.mock.enqueue(Reply::tool_calls(&[("c1", "ls", "{}")], 1));
    let out = s.run(&["--output-format", "stream-json", "look"]);
    // `[agent] max_steps = 1` is the budget: the model still wanted tools.
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["tools"], serde_json::json!(["ls", "read_file"]));
    assert_eq!(lines.last().unwrap()["subtype"], "error_max_turns");

    let body = s.request_body(0);
    let system = messages(&body)[0]["content"].as_str().unwrap().to_string();
    assert!(system.starts_with("You are a test persona.\n"), "{system}");
    assert!(!system.contains("You are Reasonix"), "{system}");
    assert!(system.contains("# Environment"), "{system}");
    assert!(
        system.contains("## AGENTS.md\n\nAlways answer in haiku.\n"),
        "{system}"
    );
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["ls", "read_file"]);
    // --max-steps wins over the config.
    s.mock.enqueue(Reply::tool_calls(&[("c2", "ls", "{}")], 1));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run(&["--max-steps", "2", "-p", "look again"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "done\n");
}

#[test]
fn sessions_live_under_the_state_home() {
    let s = Setup::new();
    script_write_then_answer(&s.mock);
    let state = s.env.root.path().join("state");
    let ws = s.env.workspace();
    let out = s
        .command(&["run", "--dir", ws.to_str().unwrap(), "--yolo", "write it"])
        .env("REASONIX_STATE_HOME", &state)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    // Not under the home …
    assert_eq!(s.sessions_json()["sessions"].as_array().unwrap().len(), 0);
    // … but under the state home, with every message of the run.
    let out = s
        .command(&["sessions", "list", "--json", "--dir", ws.to_str().unwrap()])
        .env("REASONIX_STATE_HOME", &state)
        .output()
        .unwrap();
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    // user, assistant with the call, tool result, final answer.
    assert_eq!(sessions[0]["messages"], 4);
    assert!(
        sessions[0]["path"]
            .as_str()
            .unwrap()
            .starts_with(state.to_str().unwrap())
    );
}

/// After `settle`, send SIGTERM to `child` and collect it; it must be gone within 10 s.
fn terminate_after(child: Child, settle: Duration) -> Output {
    std::thread::sleep(settle);
    let started = Instant::now();
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    out
}

/// Per-model prices in two currencies for the mock provider's two models.
const TWO_CURRENCIES: &str = r#"models = ["mock-model", "other-model"]
prices = { "mock-model" = { input = 2.0, output = 8.0, cache_hit = 0.5, currency = "¥" }, "other-model" = { input = 1.0, output = 4.0, currency = "$" } }"#;

fn usage(prompt: u64, hit: u64, completion: u64) -> Usage {
    Usage {
        prompt,
        completion,
        cache_hit: hit,
        cache_miss: prompt - hit,
        reasoning: 0,
    }
}

#[test]
fn each_request_is_priced_with_its_model_and_recorded_with_it() {
    let s = Setup::with_extra(TWO_CURRENCIES);
    s.mock
        .enqueue(Reply::text(&["first"]).with_usage(usage(1_000_000, 800_000, 100_000)));
    let out = s.run(&["--output-format", "json", "say first"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    // 0.2 M miss × 2 + 0.8 M hit × 0.5 + 0.1 M out × 8.
    assert!(
        (r["total_cost"].as_f64().unwrap() - 1.6).abs() < 1e-9,
        "{r}"
    );
    assert_eq!(r["currency"], "CNY");
    let first = &r["modelUsage"]["mock/mock-model"];
    assert_eq!(first["requests"], 1, "{r}");
    assert_eq!(first["cacheReadInputTokens"], 800_000);
    assert_eq!(first["currency"], "CNY");

    // The same session goes on with the other model, billed in dollars.
    s.mock
        .enqueue(Reply::text(&["second"]).with_usage(usage(2_000_000, 0, 0)));
    let out = s.run(&[
        "--output-format",
        "json",
        "-c",
        "--model",
        "mock/other-model",
        "say second",
    ]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["total_cost_usd"], 2.0, "{r}");
    assert!(r["modelUsage"].get("mock/mock-model").is_none(), "{r}");
    assert_eq!(r["modelUsage"]["mock/other-model"]["costUSD"], 2.0);

    // The transcript names the model and the price of every request, so a resumed session
    // (the TUI's /cost) sums what each model cost.
    let sessions = s.sessions_json();
    let path = sessions["sessions"][0]["path"].as_str().unwrap();
    let recorded: Vec<Value> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "usage")
        .collect();
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert_eq!(recorded[0]["model"], "mock-model");
    assert_eq!(recorded[0]["cost"]["currency"], "CNY");
    assert!((recorded[0]["cost"]["total"].as_f64().unwrap() - 1.6).abs() < 1e-9);
    assert_eq!(recorded[1]["model"], "other-model");
    assert_eq!(recorded[1]["cost"]["currency"], "USD");
}

#[test]
fn after_a_fallback_each_model_is_priced_at_its_own_rates() {
    let s = Setup::with_extra(TWO_CURRENCIES);
    // Step 1 on mock-model (¥) asks for a tool; step 2 fails before answering, so the
    // fallback (other-model, $) takes over for the rest of the run.
    s.mock.enqueue(
        Reply::tool_calls(&[("call_1", "read_file", r#"{"path":"missing.txt"}"#)], 1)
            .with_usage(usage(1_000_000, 0, 0)),
    );
    s.mock.enqueue(Reply::status(
        400,
        r#"{"error":{"message":"model overloaded"}}"#,
    ));
    s.mock
        .enqueue(Reply::text(&["from the fallback"]).with_usage(usage(1_000_000, 0, 0)));
    let out = s.run(&[
        "--output-format",
        "json",
        "--fallback-model",
        "other-model",
        "say hi",
    ]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let models = &r["modelUsage"];
    assert_eq!(models["mock/mock-model"]["cost"], 2.0, "{r}");
    assert_eq!(models["mock/mock-model"]["currency"], "CNY");
    assert_eq!(models["mock/other-model"]["costUSD"], 1.0, "{r}");
    // Two currencies: no single total is made up.
    assert!(r.get("total_cost").is_none(), "{r}");
    assert_eq!(r["total_cost_usd"], 0.0, "{r}");
    assert_eq!(r["total_cost_usd_unpriced"], true, "{r}");
}
