//! `reasonix run --output-format events`: the session protocol (`reasonix-protocol`,
//! docs/PROTOCOL.md) as a consumer reads it — every line an event naming its session, agent
//! and turn with a `seq` one more than the line before; one event per fact.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;

fn run(env: &Env, args: &[&str], input: &str) -> (i32, Vec<Value>, String) {
    let ws = env.workspace();
    let mut all = vec![
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--output-format",
        "events",
    ];
    all.extend_from_slice(args);
    let out = env.reasonix_fed(&all, input);
    let lines = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (out.status.code().unwrap_or(-1), lines, stderr(&out))
}

fn setup() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    std::fs::write(env.workspace().join("notes.txt"), "alpha\n").unwrap();
    (env, mock)
}

fn types(lines: &[Value]) -> Vec<&str> {
    lines.iter().map(|l| l["type"].as_str().unwrap()).collect()
}

/// Every line names the session, `main`, a turn, and the next `seq`.
fn assert_numbered(lines: &[Value]) {
    let session = lines[0]["session_id"].clone();
    assert!(session.is_string(), "{}", lines[0]);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["v"], 1, "{line}");
        assert_eq!(line["seq"], i as u64 + 1, "{line}");
        assert_eq!(line["session_id"], session, "{line}");
        assert_eq!(line["agent_id"], "main", "{line}");
        assert!(line["turn_id"].is_u64(), "{line}");
        assert!(line.get("parent_agent_id").is_none(), "{line}");
    }
}

#[test]
fn a_run_is_a_numbered_stream_of_events_one_per_fact() {
    let (env, mock) = setup();
    mock.enqueue(Reply::tool_calls(
        &[("call_1", "read_file", r#"{"path":"notes.txt"}"#)],
        2,
    ));
    mock.enqueue(Reply::text(&["it says ", "alpha"]));
    let (code, lines, err) = run(&env, &["read notes.txt"], "");
    assert_eq!(code, 0, "{err}");
    assert_numbered(&lines);
    let kinds = types(&lines);
    assert_eq!(kinds[0], "session_started");
    assert_eq!(kinds[1], "turn_started");
    assert_eq!(*kinds.last().unwrap(), "turn_finished");
    for kind in [
        "user_message",
        "request_started",
        "assistant_message",
        "tool_started",
        "tool_finished",
        "text_delta",
        "usage",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    assert_eq!(lines[0]["turn_id"], 0);
    assert!(lines[1..].iter().all(|l| l["turn_id"] == 1));
    // The tool's result is one event, not a message again.
    let results: Vec<&Value> = lines
        .iter()
        .filter(|l| l.to_string().contains("alpha\\n") || l.to_string().contains("alpha\""))
        .filter(|l| {
            l["type"] != "text_delta"
                && l["type"] != "assistant_message"
                && l["type"] != "turn_finished"
        })
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["type"], "tool_finished");
    assert_eq!(results[0]["call_id"], "call_1");
    let finished = lines.last().unwrap();
    assert_eq!(finished["status"], "success");
    assert_eq!(finished["result"], "it says alpha");
    assert_eq!(finished["steps"], 2);
    // The session the events name is the one the run saved.
    let ws = env.workspace();
    let listed = env
        .command(&["sessions", "list", "--json", "--dir", ws.to_str().unwrap()])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_str(&stdout(&listed)).unwrap();
    assert_eq!(listed["sessions"][0]["id"], lines[0]["session_id"]);
}

#[test]
fn stream_json_input_gives_one_turn_per_line_in_one_stream() {
    let (env, mock) = setup();
    mock.enqueue(Reply::text(&["one"]));
    mock.enqueue(Reply::text(&["two"]));
    let line = |text: &str| {
        serde_json::json!({"type": "user", "message": {"role": "user", "content": text}})
            .to_string()
    };
    let (code, lines, err) = run(
        &env,
        &["--input-format", "stream-json"],
        &format!("{}\n{}\n", line("first"), line("second")),
    );
    assert_eq!(code, 0, "{err}");
    assert_numbered(&lines);
    let turns: Vec<(u64, &str)> = lines
        .iter()
        .filter(|l| {
            ["turn_started", "turn_finished", "user_message"].contains(&l["type"].as_str().unwrap())
        })
        .map(|l| (l["turn_id"].as_u64().unwrap(), l["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        turns,
        [
            (1, "turn_started"),
            (1, "user_message"),
            (1, "turn_finished"),
            (2, "turn_started"),
            (2, "user_message"),
            (2, "turn_finished"),
        ]
    );
}
