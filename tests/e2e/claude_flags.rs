//! The Claude Code flags scripts use beyond the basics (#26 item 7): each checked by what it
//! does — the requests the mock LLM received, the session store, the output lines — with the
//! real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply, Usage};
use serde_json::Value;
use std::process::{Command, Output};

struct Setup {
    env: Env,
    mock: MockLlm,
}

const USD_PRICE: &str = "price = { input = 2.0, output = 8.0, cache_hit = 0.5, currency = \"$\" }";

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

    /// `reasonix run --dir <workspace> <args…>`.
    fn command(&self, args: &[&str]) -> Command {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.env.command(&all)
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// The run with `input` on its stdin.
    fn run_fed(&self, args: &[&str], input: &str) -> Output {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.env.reasonix_fed(&all, input)
    }

    fn sessions(&self) -> Vec<Value> {
        let ws = self.env.workspace();
        let out = self
            .env
            .command(&["sessions", "list", "--json", "--dir", ws.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
        v["sessions"].as_array().unwrap().clone()
    }

    /// The messages of request `i`.
    fn messages(&self, i: usize) -> Vec<Value> {
        self.mock.requests()[i].json()["messages"]
            .as_array()
            .unwrap()
            .clone()
    }
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// The JSON lines of a stream-json run.
fn lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn result_of(out: &Output) -> Value {
    serde_json::from_str(stdout(out).lines().last().unwrap()).unwrap()
}

/// 400 misses × 2 + 600 hits × 0.5 + 20 out × 8 per million dollars = 0.00126 USD a request.
fn priced_usage() -> Usage {
    Usage {
        prompt: 1000,
        completion: 20,
        cache_hit: 600,
        cache_miss: 400,
        reasoning: 0,
    }
}

fn script_two_tool_steps(mock: &MockLlm) {
    for i in 1..=2 {
        mock.enqueue(
            Reply::tool_calls(&[(&format!("call_{i}"), "ls", "{}")], 1).with_usage(priced_usage()),
        );
    }
    mock.enqueue(Reply::text(&["done"]).with_usage(priced_usage()));
}

#[test]
fn max_budget_usd_stops_the_run_once_the_spend_reaches_it() {
    let s = Setup::with_extra(USD_PRICE);
    script_two_tool_steps(&s.mock);
    // Two requests cost 0.00252 USD: the budget is reached after the second, and the third is
    // never sent.
    let out = s.run(&[
        "--output-format",
        "json",
        "--max-budget-usd",
        "0.002",
        "list the files",
    ]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(s.mock.requests().len(), 2);
    let r = result_of(&out);
    assert_eq!(r["subtype"], "error_max_budget_usd", "{r}");
    assert_eq!(r["is_error"], true);
    assert!(
        (r["total_cost_usd"].as_f64().unwrap() - 0.00252).abs() < 1e-9,
        "{r}"
    );
    let err = stderr(&out);
    assert!(
        err.contains("spent 0.0025 USD") && err.contains("budget of 0.002 USD"),
        "{err}"
    );

    // A budget above the spend changes nothing.
    let s = Setup::with_extra(USD_PRICE);
    script_two_tool_steps(&s.mock);
    let out = s.run(&["--output-format", "json", "--max-budget-usd", "1", "list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(result_of(&out)["subtype"], "success");
    assert_eq!(s.mock.requests().len(), 3);
}

#[test]
fn max_budget_usd_without_a_dollar_price_is_refused_before_any_request() {
    for (extra, why) in [
        ("", "has no price configured"),
        (
            "price = { input = 2.0, output = 8.0, currency = \"¥\" }",
            "is priced in CNY, not in US dollars",
        ),
    ] {
        let s = Setup::with_extra(extra);
        s.mock.enqueue(Reply::text(&["ok"]));
        let out = s.run(&["--max-budget-usd", "0.5", "say ok"]);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("--max-budget-usd 0.5: `mock/mock-model` "),
            "{err}"
        );
        assert!(err.contains(why), "{err}");
        assert!(s.mock.requests().is_empty());
    }
    let s = Setup::new();
    let out = s.run(&["--max-budget-usd", "0", "x"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("not an amount of dollars"),
        "{}",
        stderr(&out)
    );
}

const SCHEMA: &str = r#"{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}"#;

/// The content of the last user message of request `i`.
fn last_user(s: &Setup, i: usize) -> String {
    s.messages(i)
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .unwrap()
}

#[test]
fn json_schema_validates_the_answer_and_asks_again_until_it_does() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["The answer is 42."]));
    s.mock
        .enqueue(Reply::text(&["```json\n{\"answer\": 42}\n```"]));
    let out = s.run(&[
        "--output-format",
        "json",
        "--json-schema",
        SCHEMA,
        "what is the answer?",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let r = result_of(&out);
    assert_eq!(r["subtype"], "success", "{r}");
    assert_eq!(
        r["structured_output"],
        serde_json::json!({"answer": 42}),
        "{r}"
    );
    assert_eq!(r["num_turns"], 2, "{r}");
    // The model was told the schema, then what was wrong with its first answer.
    let system = s.messages(0)[0]["content"].as_str().unwrap().to_string();
    assert!(system.contains("# Structured output"), "{system}");
    assert!(system.contains(r#""required":["answer"]"#), "{system}");
    let correction = last_user(&s, 1);
    assert!(
        correction.contains("the answer is not one JSON value"),
        "{correction}"
    );

    // From a file, in stream-json: the schema's rule (an integer) is enforced.
    let s = Setup::new();
    let file = s.env.workspace().join("schema.json");
    std::fs::write(&file, SCHEMA).unwrap();
    s.mock.enqueue(Reply::text(&["{\"answer\": \"42\"}"]));
    s.mock.enqueue(Reply::text(&["{\"answer\": 42}"]));
    let out = s.run(&[
        "--output-format",
        "stream-json",
        "--json-schema",
        file.to_str().unwrap(),
        "what is the answer?",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let r = lines(&out).pop().unwrap();
    assert_eq!(r["structured_output"]["answer"], 42, "{r}");
    assert!(
        last_user(&s, 1).contains("/answer: expected integer, got a string"),
        "{}",
        last_user(&s, 1)
    );
}

#[test]
fn json_schema_fails_after_the_corrections_run_out() {
    let s = Setup::new();
    for _ in 0..3 {
        s.mock.enqueue(Reply::text(&["{\"answer\": 4.5}"]));
    }
    let out = s.run(&["--output-format", "json", "--json-schema", SCHEMA, "answer"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(s.mock.requests().len(), 3);
    let r = result_of(&out);
    assert_eq!(r["subtype"], "error_max_structured_output_retries", "{r}");
    assert_eq!(r["is_error"], true);
    assert!(r.get("structured_output").is_none(), "{r}");
    let err = stderr(&out);
    assert!(
        err.contains("did not validate against --json-schema after 2 corrections")
            && err.contains("/answer: expected integer, got a number"),
        "{err}"
    );

    // A schema it cannot check is refused before any request.
    let s = Setup::new();
    let out = s.run(&["--json-schema", r#"{"if": {}}"#, "answer"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("`if` at #"), "{}", stderr(&out));
    assert!(s.mock.requests().is_empty());
}

fn user_line(text: &str) -> String {
    serde_json::json!({"type": "user", "message": {"role": "user", "content": text}}).to_string()
}

#[test]
fn input_format_stream_json_runs_one_turn_per_line() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["first answer"]));
    s.mock.enqueue(Reply::text(&["second answer"]));
    let input = format!(
        "{}\n\n{}\n",
        user_line("first question"),
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"second question"}]}}"#
    );
    let out = s.run_fed(
        &[
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ],
        &input,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(last_user(&s, 0), "first question");
    assert_eq!(last_user(&s, 1), "second question");
    // The second turn goes on in the same conversation.
    let second = s.messages(1);
    assert!(
        second.iter().any(|m| m["content"] == "first answer"),
        "{second:?}"
    );
    let results: Vec<Value> = lines(&out)
        .into_iter()
        .filter(|l| l["type"] == "result")
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["result"], "first answer");
    assert_eq!(results[1]["result"], "second answer");
    assert_eq!(results[0]["session_id"], results[1]["session_id"]);
}

#[test]
fn input_format_stream_json_names_a_bad_line_and_needs_stream_json_output() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["ok"]));
    let input = format!("{}\n{{\"type\":\"user\"\n", user_line("hello"));
    let out = s.run_fed(
        &[
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ],
        &input,
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert_eq!(s.mock.requests().len(), 1);
    let err = stderr(&out);
    assert!(
        err.contains("--input-format stream-json: stdin line 2: not JSON"),
        "{err}"
    );
    // The good turn before it ran and has its result.
    assert_eq!(lines(&out).last().unwrap()["type"], "result");

    let out = s.run_fed(&["--input-format", "stream-json"], &user_line("hello"));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("needs --output-format stream-json"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn include_partial_messages_streams_text_deltas() {
    let s = Setup::new();
    s.mock.enqueue(
        // Whole lines: the display holds back a word still being written.
        Reply::text(&["Hello\n", "world\n"])
            .with_reasoning("hmm\n", None)
            .with_chunk_delay_ms(50),
    );
    let out = s.run(&[
        "--output-format",
        "stream-json",
        "--include-partial-messages",
        "say hello",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let all = lines(&out);
    let events: Vec<&Value> = all
        .iter()
        .filter(|l| l["type"] == "stream_event")
        .map(|l| &l["event"])
        .collect();
    let texts: Vec<&str> = events
        .iter()
        .filter(|e| e["delta"]["type"] == "text_delta")
        .map(|e| e["delta"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["Hello\n", "world\n"]);
    assert!(events.iter().any(|e| e["delta"]["thinking"] == "hmm\n"));
    assert_eq!(events[0]["type"], "message_start");
    assert_eq!(events.last().unwrap()["type"], "message_stop");
    // Each line names the session; the complete message still follows.
    let stream_line = all.iter().find(|l| l["type"] == "stream_event").unwrap();
    assert_eq!(stream_line["session_id"], all[0]["session_id"]);
    let stop = all
        .iter()
        .position(|l| l["event"]["type"] == "message_stop")
        .unwrap();
    assert_eq!(all[stop + 1]["type"], "assistant");

    // Without the flag, no such line.
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["Hello"]));
    let out = s.run(&["--output-format", "stream-json", "say hello"]);
    assert!(!stdout(&out).contains("stream_event"));
}

const UUID: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

#[test]
fn session_id_names_the_new_session_and_refuses_a_used_or_bad_one() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["--output-format", "json", "--session-id", UUID, "hi"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(result_of(&out)["session_id"], UUID);
    let sessions = s.sessions();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["id"], UUID);

    let out = s.run(&["--session-id", UUID, "again"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    let out = s.run(&["--session-id", "not-a-uuid", "again"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("not a UUID"), "{}", stderr(&out));
    assert_eq!(s.mock.requests().len(), 1);
}

#[test]
fn fork_session_continues_into_a_new_session_and_leaves_the_old_one() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["first"]));
    let out = s.run(&["--output-format", "json", "--session-id", UUID, "one"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let old = s.env.home().join("projects");
    let transcript = |id: &str| {
        walk(&old)
            .into_iter()
            .find(|p| p.file_name().unwrap().to_str().unwrap() == format!("{id}.jsonl"))
            .unwrap()
    };
    let before = std::fs::read(transcript(UUID)).unwrap();

    s.mock.enqueue(Reply::text(&["second"]));
    let forked = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
    let out = s.run(&[
        "--output-format",
        "json",
        "--resume",
        UUID,
        "--fork-session",
        "--session-id",
        forked,
        "two",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(result_of(&out)["session_id"], forked);
    // The model saw the old conversation; the old transcript did not change.
    assert!(s.messages(1).iter().any(|m| m["content"] == "first"));
    assert_eq!(std::fs::read(transcript(UUID)).unwrap(), before);
    let sessions = s.sessions();
    assert_eq!(sessions.len(), 2);
    let fork = sessions.iter().find(|x| x["id"] == forked).unwrap();
    assert_eq!(fork["parent"], UUID);
    assert_eq!(fork["messages"], 4);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn no_session_persistence_writes_nothing() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["--output-format", "json", "--no-session-persistence", "hi"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(s.sessions().is_empty());
    assert!(
        walk(&s.env.home().join("projects"))
            .iter()
            .all(|p| p.extension().is_none_or(|e| e != "jsonl")),
        "a transcript was written"
    );
    // The result still names a session id (a UUID of its own).
    let id = result_of(&out)["session_id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 36, "{id}");

    // Resuming without persistence reads the session and leaves it as it was.
    s.mock.enqueue(Reply::text(&["saved"]));
    let out = s.run(&["--output-format", "json", "hello"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let before = s.sessions();
    s.mock.enqueue(Reply::text(&["again"]));
    let out = s.run(&["--continue", "--no-session-persistence", "more"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(s.messages(2).iter().any(|m| m["content"] == "saved"));
    assert_eq!(s.sessions()[0]["messages"], before[0]["messages"]);
}

#[test]
fn name_sets_the_session_title() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["-n", "nightly triage", "look at the failures"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(s.sessions()[0]["title"], "nightly triage");
}

/// The names of the tools offered in request `i`.
fn offered(s: &Setup, i: usize) -> Vec<String> {
    s.mock.requests()[i].json()["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn tools_restricts_what_the_model_is_offered() {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["--tools", "Bash,Read", "hi"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(offered(&s, 0), ["bash", "read_file"]);

    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["--tools", "", "hi"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(offered(&s, 1).is_empty(), "{:?}", offered(&s, 1));

    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["--tools", "default", "hi"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(offered(&s, 2).len() > 5, "{:?}", offered(&s, 2));

    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["--tools", "Read,WebSearch", "hi"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(offered(&s, 3), ["read_file"]);
    assert!(
        stderr(&out).contains("no `WebSearch` tool"),
        "{}",
        stderr(&out)
    );

    // Several values after the flag, then the task (as Claude Code's list flags).
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["--tools", "Bash", "LS", "list the files"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(offered(&s, 4), ["bash", "ls"]);
    assert_eq!(last_user(&s, 4), "list the files");

    let out = s.run(&["--tools", "Nope", "hi"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("`Nope` is not a tool"),
        "{}",
        stderr(&out)
    );
}

/// The `mcp_servers` of the `init` line: `(name, status)`.
fn mcp_servers(out: &Output) -> Vec<(String, String)> {
    let init = &lines(out)[0];
    init["mcp_servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn mcp_config_adds_servers_and_strict_keeps_only_them() {
    let s = Setup::new();
    std::fs::write(
        s.env.home().join("mcp.json"),
        r#"{"mcpServers": {"configured": {"command": "/nonexistent/configured-server"}}}"#,
    )
    .unwrap();
    let file = s.env.workspace().join("extra.json");
    std::fs::write(
        &file,
        r#"{"mcpServers": {"from-file": {"command": "/nonexistent/file-server"}}}"#,
    )
    .unwrap();
    let inline = r#"{"mcpServers": {"inline": {"command": "/nonexistent/inline-server"}}}"#;
    for _ in 0..2 {
        s.mock.enqueue(Reply::text(&["ok"]));
    }
    // Several values after one flag, then the task.
    let out = s.run(&[
        "--output-format",
        "stream-json",
        "--mcp-config",
        file.to_str().unwrap(),
        inline,
        "say ok",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(last_user(&s, 0), "say ok");
    let names: Vec<String> = mcp_servers(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["configured", "from-file", "inline"]);
    // The command line's servers are the user's own: started (and failing), not held back.
    assert!(
        stderr(&out).contains("/nonexistent/inline-server"),
        "{}",
        stderr(&out)
    );

    let out = s.run(&[
        "--output-format",
        "stream-json",
        "--strict-mcp-config",
        "--mcp-config",
        inline,
        "--",
        "say ok",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let names: Vec<String> = mcp_servers(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["inline"]);

    let out = s.run(&["--mcp-config", "{\"mcpServers\": 1}", "x"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--mcp-config"), "{}", stderr(&out));
}

/// The content of the first tool result in request `i`.
fn tool_result(s: &Setup, i: usize) -> String {
    s.messages(i)
        .iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .unwrap()
}

fn script_read_then_answer(mock: &MockLlm) {
    mock.enqueue(Reply::tool_calls(
        &[("call_r", "read_file", r#"{"path":"a.txt"}"#)],
        1,
    ));
    mock.enqueue(Reply::text(&["done"]));
}

#[test]
fn setting_sources_chooses_which_settings_files_are_read() {
    let s = Setup::new();
    std::fs::write(s.env.workspace().join("a.txt"), "the-content\n").unwrap();
    let claude = s.env.project().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join("settings.json"),
        r#"{"permissions": {"deny": ["Read"]}}"#,
    )
    .unwrap();
    // Every source: the project file's deny rule refuses the read.
    script_read_then_answer(&s.mock);
    let out = s.run(&["--yolo", "read a.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let refused = tool_result(&s, 1);
    assert!(!refused.contains("the-content"), "{refused}");

    // User settings only: the project file is not read, the read runs.
    script_read_then_answer(&s.mock);
    let out = s.run(&["--yolo", "--setting-sources", "user,local", "read a.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        tool_result(&s, 3).contains("the-content"),
        "{}",
        tool_result(&s, 3)
    );

    let out = s.run(&["--setting-sources", "global", "x"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("`global` is not a source"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn settings_adds_a_settings_document_from_the_command_line() {
    let s = Setup::new();
    std::fs::write(s.env.workspace().join("a.txt"), "the-content\n").unwrap();
    script_read_then_answer(&s.mock);
    let out = s.run(&[
        "--yolo",
        "--settings",
        r#"{"permissions": {"deny": ["Read"]}}"#,
        "read a.txt",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let refused = tool_result(&s, 1);
    assert!(!refused.contains("the-content"), "{refused}");

    // From a file, the same.
    let file = s.env.workspace().join("settings.json");
    std::fs::write(&file, r#"{"permissions": {"deny": ["Read"]}}"#).unwrap();
    script_read_then_answer(&s.mock);
    let out = s.run(&["--yolo", "--settings", file.to_str().unwrap(), "read a.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!tool_result(&s, 3).contains("the-content"));

    let out = s.run(&["--settings", r#"{"permissions": 3}"#, "x"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--settings (inline)"),
        "{}",
        stderr(&out)
    );
}
