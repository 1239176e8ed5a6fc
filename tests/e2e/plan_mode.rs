//! Plan mode (`--permission-mode plan`, Shift+Tab in the terminal): research only, writers and
//! commands refused without a question, a plan presented with `exit_plan_mode`; approved, the
//! same turn carries it out; a headless plan-only run prints the plan and changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::events::OpsClient;
use crate::support::{Env, result_of, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};

fn setup() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    std::fs::write(env.workspace().join("notes.txt"), "alpha\n").unwrap();
    (env, mock)
}

fn calls(list: &[(&str, &str, Value)]) -> Reply {
    let args: Vec<String> = list.iter().map(|(_, _, a)| a.to_string()).collect();
    let refs: Vec<(&str, &str, &str)> = list
        .iter()
        .zip(&args)
        .map(|((id, name, _), a)| (*id, *name, a.as_str()))
        .collect();
    Reply::tool_calls(&refs, 1)
}

const PLAN: &str = "1. Add `beta` to notes.txt.\n2. Check it with `cat notes.txt`.";

#[test]
fn a_headless_plan_only_run_prints_the_plan_and_changes_nothing() {
    let (env, mock) = setup();
    mock.enqueue(calls(&[
        (
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "changed\n"}),
        ),
        ("b1", "bash", json!({"command": "touch made-by-bash"})),
        ("r1", "read_file", json!({"path": "notes.txt"})),
    ]));
    mock.enqueue(calls(&[("p1", "exit_plan_mode", json!({"plan": PLAN}))]));
    let ws = env.workspace();
    let out = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--permission-mode",
        "plan",
        "add beta to the notes",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), PLAN, "the plan is the answer");
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "alpha\n"
    );
    assert!(!ws.join("made-by-bash").exists());
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 2, "the run ends with the plan");
    let second = &requests[1];
    for id in ["w1", "b1"] {
        let refused = result_of(second, id);
        assert!(refused.starts_with("Plan mode: `"), "{refused}");
        assert!(refused.contains("exit_plan_mode"), "{refused}");
    }
    assert!(result_of(second, "r1").contains("alpha"), "reads run");
    // The turn says plan mode is on (in its own message, never in the cached prefix).
    let user = second["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.starts_with("add beta to the notes") && user.contains("<plan-mode>"),
        "{user}"
    );
    assert!(
        !second["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("<plan-mode>")
    );
    // The tools are the same bytes as outside plan mode: `exit_plan_mode` is always offered.
    let tools = second["tools"].to_string();
    assert!(tools.contains("\"exit_plan_mode\""), "{tools}");
}

#[test]
fn an_approved_plan_runs_in_the_same_turn_and_a_trivial_prompt_gets_an_answer() {
    let (env, mock) = setup();
    // A question in plan mode is answered, with no plan and no card.
    mock.enqueue(Reply::text(&["notes.txt holds one line."]));
    // The task: a write refused without a question, then the plan, approved for `auto`.
    mock.enqueue(calls(&[(
        "w1",
        "write_file",
        json!({"path": "notes.txt", "content": "too early\n"}),
    )]));
    mock.enqueue(calls(&[("p1", "exit_plan_mode", json!({"plan": PLAN}))]));
    mock.enqueue(calls(&[(
        "w2",
        "write_file",
        json!({"path": "notes.txt", "content": "alpha\nbeta\n"}),
    )]));
    mock.enqueue(Reply::text(&["done"]));
    let ws = env.workspace();
    let mut client = OpsClient::start_with(&env, &["--permission-mode", "plan"]);
    client.send(r#"{"type":"prompt","text":"what is in notes.txt?"}"#);
    let first = client.until("turn_finished");
    assert_eq!(first["result"], "notes.txt holds one line.", "{first}");
    client.send(r#"{"type":"prompt","text":"add beta to the notes"}"#);
    let question = client.until("question");
    assert_eq!(question["tool"], "exit_plan_mode", "{question}");
    assert_eq!(question["plan"], PLAN, "{question}");
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "alpha\n"
    );
    let id = question["question_id"].as_str().unwrap().to_string();
    client.send(&format!(
        r#"{{"type":"approve","question_id":"{id}","scope":"session"}}"#
    ));
    let finished = client.until("turn_finished");
    assert_eq!(finished["status"], "success", "{finished}");
    let (_, events) = client.finish();
    // One question in the whole session: the plan's. The refused write asked nothing, and
    // the approved plan's write ran in `auto`.
    let questions = events.iter().filter(|e| e["type"] == "question").count();
    assert_eq!(questions, 1, "{events:?}");
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "alpha\nbeta\n"
    );
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert!(result_of(&requests[2], "w1").starts_with("Plan mode:"));
    assert!(result_of(&requests[3], "p1").contains("approved the plan"));
}
