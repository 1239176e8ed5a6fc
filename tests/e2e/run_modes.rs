//! Run modes (`--mode`, `[agent] mode`): presets over the effort level, the sub-agent limits
//! and how strictly task-list steps are verified.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, tool_results};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};

fn setup(extra: &str) -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", extra));
    (env, mock)
}

fn run(env: &Env, flags: &[&str]) -> std::process::Output {
    let ws = env.workspace();
    let mut args = vec![
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--permission-mode",
        "auto",
    ];
    args.extend_from_slice(flags);
    args.push("do it");
    env.reasonix(&args)
}

#[test]
fn a_mode_sets_the_effort_only_when_nothing_else_did_and_the_model_offers_it() {
    let (env, mock) = setup("reasoning_protocol = \"generic\"");
    for _ in 0..4 {
        mock.enqueue(Reply::text(&["ok"]));
    }
    for (flags, wanted) in [
        (vec!["--mode", "economy"], json!("low")),
        (vec!["--mode", "delivery"], json!("high")),
        (vec!["--mode", "balanced"], Value::Null),
        (
            vec!["--mode", "economy", "--effort", "medium"],
            json!("medium"),
        ),
    ] {
        let out = run(&env, &flags);
        assert_eq!(out.status.code(), Some(0), "{flags:?}: {}", stderr(&out));
        let body = mock.requests().last().unwrap().json();
        assert_eq!(body["reasoning_effort"], wanted, "{flags:?}");
    }
    // A model without effort levels is not given one.
    let (env, mock) = setup("reasoning_protocol = \"none\"");
    mock.enqueue(Reply::text(&["ok"]));
    let out = run(&env, &["--mode", "economy"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(mock.requests()[0].json()["reasoning_effort"], Value::Null);
    // A wrong name says what is valid.
    let out = run(&env, &["--mode", "turbo"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("use economy, balanced or delivery"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn delivery_takes_a_step_only_with_a_check_that_passed_after_the_last_change() {
    // `[agent] mode` in the file, no flag.
    let (env, mock) = setup("\n[agent]\nmode = \"delivery\"");
    let step = |evidence: Value| {
        json!({"step": "Write notes", "result": "written", "evidence": evidence}).to_string()
    };
    let write = json!({"path": "notes.md", "content": "# notes\n"}).to_string();
    let check = json!({"command": "test -s notes.md"}).to_string();
    let manual = step(json!([{"kind": "manual", "summary": "looks right"}]));
    let verified = step(
        json!([{"kind": "verification", "summary": "non-empty", "command": "test -s notes.md"}]),
    );
    let todo = json!({"todos": [{"content": "Write notes", "status": "completed"}]}).to_string();
    mock.enqueue(Reply::tool_calls(&[("c0", "bash", &check)], 1));
    mock.enqueue(Reply::tool_calls(&[("w1", "write_file", &write)], 1));
    mock.enqueue(Reply::tool_calls(&[("s1", "complete_step", &manual)], 1));
    mock.enqueue(Reply::tool_calls(&[("s2", "complete_step", &verified)], 1));
    mock.enqueue(Reply::tool_calls(&[("c1", "bash", &check)], 1));
    mock.enqueue(Reply::tool_calls(&[("s3", "complete_step", &verified)], 1));
    mock.enqueue(Reply::tool_calls(&[("t1", "todo_write", &todo)], 1));
    mock.enqueue(Reply::text(&["done"]));
    let out = run(&env, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    let result = |id: &str| {
        requests
            .iter()
            .flat_map(|b| tool_results("openai", b))
            .find(|(call, _)| call == id)
            .map(|(_, c)| c)
            .unwrap()
    };
    assert!(
        result("s1").contains("needs a `verification`"),
        "{}",
        result("s1")
    );
    // `test -s` ran (and failed) before the file was written: stale and failing.
    assert!(result("s2").contains("last exited 1"), "{}", result("s2"));
    assert!(
        result("s3").contains("verified: `test -s notes.md` exited 0"),
        "{}",
        result("s3")
    );
    assert!(result("t1").contains("[x] Write notes"), "{}", result("t1"));
}

/// A resumed session has its receipts, steps and task list back: an item completed with
/// evidence before stays completed, and a command run before still counts.
#[test]
fn a_resumed_session_keeps_its_evidence() {
    let (env, mock) = setup("\n[agent]\nmode = \"delivery\"");
    let check = json!({"command": "test -d ."}).to_string();
    let step = json!({"step": "Look around", "result": "seen", "evidence": [
        {"kind": "verification", "summary": "dir", "command": "test -d ."}]})
    .to_string();
    let first = json!({"todos": [
        {"content": "Look around", "status": "completed"},
        {"content": "Write notes", "status": "in_progress"}]})
    .to_string();
    mock.enqueue(Reply::tool_calls(&[("c1", "bash", &check)], 1));
    mock.enqueue(Reply::tool_calls(&[("s1", "complete_step", &step)], 1));
    mock.enqueue(Reply::tool_calls(&[("t1", "todo_write", &first)], 1));
    mock.enqueue(Reply::text(&["first turn done"]));
    let out = run(&env, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The next run goes on in the same session: the completed item stays accepted, and the
    // earlier command is cited again for a new step.
    let again = json!({"step": "Recheck", "result": "still there", "evidence": [
        {"kind": "verification", "summary": "dir", "command": "test -d ."}]})
    .to_string();
    let second = json!({"todos": [
        {"content": "Look around", "status": "completed"},
        {"content": "Recheck", "status": "completed"},
        {"content": "Write notes", "status": "in_progress"}]})
    .to_string();
    mock.enqueue(Reply::tool_calls(&[("s2", "complete_step", &again)], 1));
    mock.enqueue(Reply::tool_calls(&[("t2", "todo_write", &second)], 1));
    mock.enqueue(Reply::text(&["second turn done"]));
    let out = run(&env, &["-c"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    let result = |id: &str| {
        requests
            .iter()
            .flat_map(|b| tool_results("openai", b))
            .find(|(call, _)| call == id)
            .map(|(_, c)| c)
            .unwrap()
    };
    assert!(
        result("s2").contains("verified: `test -d .` exited 0"),
        "{}",
        result("s2")
    );
    assert!(result("t2").contains("[x] Recheck"), "{}", result("t2"));
}

/// `/mode` in the terminal changes the effort of the next requests, back to the configured
/// one for `balanced` (the mode's level belongs to the client, not to each request).
#[test]
fn slash_mode_switches_the_effort_of_the_next_requests() {
    use crate::tui::WAIT;
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    let config = env.mock_provider(
        "openai",
        &mock.base_url(),
        "k",
        "reasoning_protocol = \"generic\"",
    );
    std::fs::write(env.home().join("config.toml"), config).unwrap();
    for answer in ["alpha reply", "beta reply", "gamma reply"] {
        mock.enqueue(Reply::text(&[answer]));
    }
    let mut pty = env.pty(&["--mode", "economy"], 100, 30, &[]);
    pty.wait_for("/help for commands", WAIT);
    let ask = |text: &str, answer: &str| {
        pty.type_text(text);
        pty.send("\r");
        pty.wait_for(answer, WAIT);
    };
    ask("first", "alpha reply");
    ask("/mode balanced", "mode: balanced · effort auto");
    ask("second", "beta reply");
    ask("/mode delivery", "mode: delivery · effort high");
    ask("third", "gamma reply");
    let efforts: Vec<Value> = mock
        .requests()
        .iter()
        .map(|r| r.json()["reasoning_effort"].clone())
        .collect();
    assert_eq!(efforts, vec![json!("low"), Value::Null, json!("high")]);
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}
