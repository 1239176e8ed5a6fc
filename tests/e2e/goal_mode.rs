//! `reasonix run --goal`: an objective worked on across turns until the host's acceptance
//! checks pass (commands it runs itself, judged by their exit status), or a budget is spent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};

fn setup() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    (env, mock)
}

fn write_call(id: &str, path: &str, content: &str) -> Reply {
    let args = json!({"path": path, "content": content}).to_string();
    Reply::tool_calls(&[(id, "write_file", &args)], 1)
}

fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_goal_is_worked_on_until_its_check_passes_then_stops() {
    let (env, mock) = setup();
    // Turn 1: the model claims success without doing anything; the check says otherwise.
    mock.enqueue(Reply::text(&["Done, the flag is set."]));
    // Turn 2: it writes the file; the check passes and the run stops.
    mock.enqueue(write_call("w1", "flag.txt", "on\n"));
    mock.enqueue(Reply::text(&["Now flag.txt exists."]));
    let ws = env.workspace();
    let out = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--permission-mode",
        "auto",
        "--goal",
        "--goal-check",
        "test -f flag.txt",
        "create flag.txt",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("goal check `test -f flag.txt`: exit 1"),
        "{err}"
    );
    assert!(
        err.contains("goal check `test -f flag.txt`: exit 0"),
        "{err}"
    );
    assert!(err.contains("goal met after 2 turns"), "{err}");
    assert_eq!(
        std::fs::read_to_string(ws.join("flag.txt")).unwrap(),
        "on\n"
    );
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 3, "no turn after the check passed");
    let users = user_texts(&requests[1]);
    assert!(users[0].contains("<goal>") && users[0].contains("`test -f flag.txt`"));
    assert!(
        users[1].starts_with("The goal is not met yet.")
            && users[1].contains("`test -f flag.txt`: exit 1"),
        "{}",
        users[1]
    );
    assert!(stdout(&out).contains("Now flag.txt exists."));
}

#[test]
fn a_goal_whose_budget_runs_out_stops_saying_so() {
    let (env, mock) = setup();
    for _ in 0..2 {
        mock.enqueue(Reply::text(&["I believe it is done."]));
    }
    let ws = env.workspace();
    let out = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--output-format",
        "stream-json",
        "--goal",
        "--goal-check",
        "test -f flag.txt",
        "--goal-max-turns",
        "2",
        "create flag.txt",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(mock.requests().len(), 2, "two turns, then the budget");
    let notices: Vec<String> = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["type"] == "notice")
        .map(|l| l["message"].as_str().unwrap_or_default().to_string())
        .collect();
    let last = notices.last().unwrap();
    assert!(
        last.starts_with("goal not met: the turn budget (2, --goal-max-turns) is spent")
            && last.contains("`test -f flag.txt`: exit 1"),
        "{notices:?}"
    );
    // A check is the host's evidence, not the model's: the file was never created.
    assert!(!ws.join("flag.txt").exists());
    // Flags that make no sense alone are usage errors.
    let out = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--goal-max-turns",
        "2",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

fn call(id: &str, tool: &str, args: Value) -> Reply {
    Reply::tool_calls(&[(id, tool, &args.to_string())], 1)
}

fn todo(status: &str) -> Value {
    json!({"todos": [{"content": "Create flag.txt", "status": status}]})
}

/// The tool result of call `id` in the request that follows it.
fn result_of(requests: &[Value], id: &str) -> String {
    requests
        .iter()
        .flat_map(|body| crate::support::tool_results("openai", body))
        .find(|(call, _)| call == id)
        .map(|(_, content)| content)
        .unwrap_or_else(|| panic!("no result for {id}"))
}

#[test]
fn a_goal_without_checks_is_met_only_when_every_step_is_done_with_evidence() {
    let (env, mock) = setup();
    // Claimed done without evidence: refused.
    mock.enqueue(call("t1", "todo_write", todo("completed")));
    // Evidence the host never saw: refused.
    let made_up = json!({"step": "Create flag.txt", "result": "done", "evidence": [
        {"kind": "verification", "summary": "tests pass", "command": "cargo test"}]});
    mock.enqueue(call("s1", "complete_step", made_up));
    mock.enqueue(write_call("w1", "flag.txt", "on\n"));
    mock.enqueue(call("b1", "bash", json!({"command": "test -f flag.txt"})));
    let real = json!({"step": "Create flag.txt", "result": "flag.txt exists", "evidence": [
        {"kind": "verification", "summary": "the file is there", "command": "test -f flag.txt"},
        {"kind": "diff", "summary": "wrote it", "paths": ["flag.txt"]}]});
    mock.enqueue(call("s2", "complete_step", real));
    mock.enqueue(call("t2", "todo_write", todo("completed")));
    mock.enqueue(Reply::text(&["flag.txt is created."]));
    let ws = env.workspace();
    let out = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--permission-mode",
        "auto",
        "--goal",
        "create flag.txt",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("goal met after 1 turn: every task-list item is completed with evidence"),
        "{err}"
    );
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(
        requests.len(),
        7,
        "one turn, then the task list meets the goal"
    );
    let users = user_texts(&requests[0]);
    assert!(users[0].contains("`complete_step`"), "{}", users[0]);
    let refused = result_of(&requests, "t1");
    assert!(
        refused.contains("`Create flag.txt` cannot be marked completed yet")
            && refused.contains("complete_step"),
        "{refused}"
    );
    let made_up = result_of(&requests, "s1");
    assert!(
        made_up.contains("`cargo test` was not run in this session"),
        "{made_up}"
    );
    let accepted = result_of(&requests, "s2");
    assert!(
        accepted.contains("verified: `test -f flag.txt` exited 0")
            && accepted.contains("changed: flag.txt"),
        "{accepted}"
    );
    let list = result_of(&requests, "t2");
    assert!(list.contains("[x] Create flag.txt"), "{list}");
}

#[test]
fn a_goal_without_checks_whose_list_is_never_done_runs_out_of_turns() {
    let (env, mock) = setup();
    for i in 0..2 {
        mock.enqueue(call(&format!("t{i}"), "todo_write", todo("in_progress")));
        mock.enqueue(Reply::text(&["Working on it."]));
    }
    let ws = env.workspace();
    let out = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--goal",
        "--goal-max-turns",
        "2",
        "create flag.txt",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("goal check task list: 0 of 1 task-list items are completed with evidence"),
        "{err}"
    );
    assert!(
        err.contains("the turn budget (2, --goal-max-turns) is spent"),
        "{err}"
    );
}

/// `/goal` in the interactive session: worked on turn after turn until its check passes, the
/// status line shows it and the mode; `/mode` switches the mode.
#[test]
fn the_interactive_goal_works_until_its_check_passes_and_the_mode_shows() {
    use crate::tui::{Session, WAIT};
    for (cols, rows) in [(80, 24), (120, 40)] {
        let s = Session::new();
        s.mock.enqueue(Reply::text(&["Done, I think."]));
        s.mock.enqueue(write_call("w1", "flag.txt", "on\n"));
        s.mock.enqueue(Reply::text(&["flag.txt is written."]));
        let ws = s.env.workspace();
        let mut pty = s.open_at(
            &[
                "--dir",
                ws.to_str().unwrap(),
                "--permission-mode",
                "auto",
                "--mode",
                "delivery",
            ],
            cols,
            rows,
        );
        let screen = pty.wait_on_screen("delivery", WAIT);
        assert!(screen.contains("delivery · ctx"), "{screen}");
        pty.type_text("/goal create flag.txt --check \"test -f flag.txt\"");
        pty.send("\r");
        pty.wait_for("goal met after 2 turns", WAIT);
        let transcript = pty.transcript();
        assert!(
            transcript.contains("goal check `test -f flag.txt`: exit 1"),
            "{transcript}"
        );
        assert!(
            transcript.contains("goal check `test -f flag.txt`: exit 0"),
            "{transcript}"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join("flag.txt")).unwrap(),
            "on\n"
        );
        let requests: Vec<Value> = s.mock.requests().iter().map(|r| r.json()).collect();
        assert_eq!(requests.len(), 3, "no turn after the check passed");
        let users = user_texts(&requests[1]);
        assert!(users[0].contains("<goal>"), "{}", users[0]);
        assert!(
            users[1].starts_with("The goal is not met yet."),
            "{}",
            users[1]
        );
        pty.type_text("/goal status");
        pty.send("\r");
        pty.wait_for("no goal:", WAIT);
        pty.type_text("/mode economy");
        pty.send("\r");
        pty.wait_for("mode: economy", WAIT);
        let screen = pty.wait_on_screen("economy · ctx", WAIT);
        assert!(screen.contains("economy · ctx"), "{screen}");
        pty.send("\x04");
        assert_eq!(pty.wait_exit(WAIT), Some(0));
    }
}

/// A cancelled turn pauses the goal (nothing more is sent on its own); `/goal resume` goes
/// on and the goal is met.
#[test]
fn a_cancelled_turn_pauses_the_goal_until_it_is_resumed() {
    use crate::tui::{Session, WAIT};
    use reasonix_mock_llm::Step;
    let s = Session::new();
    s.mock.enqueue(
        Reply::text(&["Looking "])
            .then(Step::Gate("hold".into()))
            .then(Step::Text("never".into())),
    );
    s.mock.enqueue(write_call("w1", "flag.txt", "on\n"));
    s.mock.enqueue(Reply::text(&["flag.txt is written."]));
    let ws = s.env.workspace();
    let mut pty = s.open_at(
        &["--dir", ws.to_str().unwrap(), "--permission-mode", "auto"],
        80,
        24,
    );
    pty.type_text("/goal create flag.txt --check \"test -f flag.txt\"");
    pty.send("\r");
    s.mock.wait_for_requests(1, WAIT);
    pty.wait_for("Looking", WAIT);
    pty.send("\x1b");
    pty.wait_for("goal paused: the turn was cancelled", WAIT);
    s.mock.release("hold");
    pty.type_text("/goal status");
    pty.send("\r");
    pty.wait_for("state     paused: the turn was cancelled", WAIT);
    assert_eq!(s.mock.requests().len(), 1, "a paused goal sends nothing");
    pty.type_text("/goal resume");
    pty.send("\r");
    pty.wait_for("goal met after 2 turns", WAIT);
    assert_eq!(
        std::fs::read_to_string(ws.join("flag.txt")).unwrap(),
        "on\n"
    );
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}
