//! Two-model collaboration (`[agent] planner_model`): the host routes each turn from the
//! user's own words; a planner on another model, in its own session with read-only tools,
//! writes the plan the executor carries out; plan-only and plan-for-approval turns never run
//! the executor, and fail closed when the planner fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};

/// What only the planner's requests hold (its system prompt).
const PLANNER: &str = "You are the planner of a two-model team";
const PLAN: &str =
    "1. Read notes.txt.\n2. Write journal.txt with one line.\nVerify: `test -s journal.txt`.";

fn setup() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    let base = mock.base_url();
    let config = env.mock_provider(
        "openai",
        &base,
        "sk-test",
        &format!(
            "\n[[providers]]\nname = \"planning\"\nkind = \"openai\"\nbase_url = \"{base}\"\nmodel = \"planner-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n\n[agent]\nplanner_model = \"planning\""
        ),
    );
    env.project_config(&config);
    std::fs::write(env.workspace().join("notes.txt"), "alpha\n").unwrap();
    (env, mock)
}

fn run(env: &Env, task: &str) -> std::process::Output {
    let ws = env.workspace();
    env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--permission-mode",
        "auto",
        "--output-format",
        "json",
        task,
    ])
}

fn system(body: &Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| {
                    t["function"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn last_user(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_wide_change_is_planned_in_its_own_session_then_executed_with_the_plan() {
    let (env, mock) = setup();
    mock.enqueue_when(
        PLANNER,
        Reply::tool_calls(
            &[("r1", "read_file", &json!({"path": "notes.txt"}).to_string())],
            1,
        ),
    );
    mock.enqueue_when(PLANNER, Reply::text(&[PLAN]));
    let write = json!({"path": "journal.txt", "content": "alpha\n"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("w1", "write_file", &write)], 1));
    mock.enqueue(Reply::text(&["journal.txt is written."]));
    let out = run(
        &env,
        "refactor the notes module so that every change is written through a journal",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("planner route: full (wide or high-risk work)"),
        "{}",
        stderr(&out)
    );
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(
        requests.len(),
        4,
        "two planner requests, two executor requests"
    );
    let (planner, executor): (Vec<&Value>, Vec<&Value>) =
        requests.iter().partition(|b| system(b).contains(PLANNER));
    assert_eq!(planner.len(), 2);
    for body in &planner {
        assert_eq!(body["model"], "planner-model");
        let offered = tools(body);
        assert!(offered.contains(&"read_file".to_string()), "{offered:?}");
        for writer in ["write_file", "bash", "edit_file", "task", "complete_step"] {
            assert!(
                !offered.contains(&writer.to_string()),
                "{writer} in {offered:?}"
            );
        }
        assert!(last_user(body).contains("<planner-turn depth=\"full\">"));
    }
    for body in &executor {
        assert_eq!(body["model"], "mock-model");
        assert!(
            !system(body).contains(PLANNER),
            "the executor's prefix is its own"
        );
    }
    let handed = last_user(executor[0]);
    assert!(
        handed.starts_with("refactor the notes module")
            && handed.contains("<plan from=\"planner\">")
            && handed.contains("Write journal.txt with one line."),
        "{handed}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("journal.txt")).unwrap(),
        "alpha\n"
    );
    // The turn's usage counts the planner's requests too.
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let models = result["modelUsage"].as_object().expect("modelUsage");
    assert!(
        models.keys().any(|m| m.contains("planner-model")),
        "{result}"
    );
    // The planner keeps its own session beside the executor's.
    let listing = walk(&env.home());
    assert!(
        listing.iter().any(|p| p.contains("subagents")),
        "{listing:?}"
    );
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path.display().to_string());
            }
        }
    }
    out
}

#[test]
fn a_plan_only_turn_answers_with_the_plan_and_runs_nothing() {
    let (env, mock) = setup();
    mock.enqueue_when(PLANNER, Reply::text(&[PLAN]));
    let out = run(
        &env,
        "add a journal for every change to the notes; plan only",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = mock.requests();
    assert_eq!(requests.len(), 1, "the planner only");
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["result"], PLAN, "{result}");
    assert!(!env.workspace().join("journal.txt").exists());
}

#[test]
fn a_failed_planner_fails_closed_for_approval_and_falls_back_otherwise() {
    // Plan-for-approval: nothing is executed.
    let (env, mock) = setup();
    mock.enqueue_when(PLANNER, Reply::text(&[""]));
    let out = run(
        &env,
        "add a journal for every change to the notes, and wait for my approval before changing files",
    );
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let text = result["result"].as_str().unwrap_or_default();
    assert!(
        text.contains("the planner did not produce a plan")
            && text.contains("nothing was executed (plan-for-approval)"),
        "{result}"
    );
    assert_eq!(mock.requests().len(), 1, "the executor never ran");

    // Plan then execute: the executor goes on with the untouched task.
    let (env, mock) = setup();
    mock.enqueue_when(PLANNER, Reply::text(&[""]));
    mock.enqueue(Reply::text(&["done without a plan"]));
    let task = "refactor the notes module so that every change is written through a journal";
    let out = run(&env, task);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "the planner did not produce a plan (its answer was empty): the executor goes on"
        ),
        "{}",
        stderr(&out)
    );
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 2);
    assert_eq!(last_user(&requests[1]), task);
}

#[test]
fn questions_and_small_edits_go_to_the_executor_alone() {
    let (env, mock) = setup();
    mock.enqueue(Reply::text(&["It holds alpha."]));
    let out = run(&env, "what is in notes.txt?");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("planner route: executor-only (a question)"),
        "{}",
        stderr(&out)
    );
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 1);
    assert!(!system(&requests[0]).contains(PLANNER));
}

/// A session that can ask: the plan is shown for approval; denied, nothing runs and the plan
/// stays in the conversation; approved, the executor carries it out.
#[test]
fn a_plan_for_approval_is_asked_and_only_an_approved_one_runs() {
    use crate::events::OpsClient;
    let (env, mock) = setup();
    let task = "add a journal for every change to the notes, but wait for my approval first";
    mock.enqueue_when(PLANNER, Reply::text(&[PLAN]));
    mock.enqueue_when(PLANNER, Reply::text(&[PLAN]));
    let write = json!({"path": "journal.txt", "content": "alpha\n"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("w1", "write_file", &write)], 1));
    mock.enqueue(Reply::text(&["journal.txt is written."]));
    let mut client = OpsClient::start_with(&env, &["--permission-mode", "auto"]);
    client.send(&json!({"type": "prompt", "text": task}).to_string());
    let question = client.until("question");
    assert_eq!(question["plan"], PLAN, "{question}");
    let id = question["question_id"].as_str().unwrap().to_string();
    client.send(&json!({"type": "deny", "question_id": id, "note": "not yet"}).to_string());
    let first = client.until("turn_finished");
    assert!(
        first["result"]
            .as_str()
            .unwrap_or_default()
            .contains("nothing was executed"),
        "{first}"
    );
    assert!(!env.workspace().join("journal.txt").exists());
    client.send(&json!({"type": "prompt", "text": task}).to_string());
    let question = client.until("question");
    let id = question["question_id"].as_str().unwrap().to_string();
    // Approved for the session: it runs in `auto` (approved once, it would ask first).
    client.send(&json!({"type": "approve", "question_id": id, "scope": "session"}).to_string());
    let second = client.until("turn_finished");
    assert_eq!(second["status"], "success", "{second}");
    client.finish();
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("journal.txt")).unwrap(),
        "alpha\n"
    );
    // The executor's second turn carries the plan, and its history keeps the first one.
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    let executor: Vec<&Value> = requests
        .iter()
        .filter(|b| !system(b).contains(PLANNER))
        .collect();
    assert_eq!(executor.len(), 2, "only after the approval");
    assert!(last_user(executor[0]).contains("<plan from=\"planner\">"));
    let history = executor[0]["messages"].to_string();
    assert!(
        history.contains("Write journal.txt with one line."),
        "{history}"
    );
}

/// The terminal shows the route and the planner as a sub-agent, then the executor's answer.
#[test]
fn the_terminal_shows_the_route_and_the_planner_at_work() {
    use crate::tui::WAIT;
    for (cols, rows) in [(80, 24), (120, 40)] {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let base = mock.base_url();
        let config = env.mock_provider(
            "openai",
            &base,
            "k",
            &format!(
                "\n[[providers]]\nname = \"planning\"\nkind = \"openai\"\nbase_url = \"{base}\"\nmodel = \"planner-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n\n[agent]\nplanner_model = \"planning\""
            ),
        );
        std::fs::write(env.home().join("config.toml"), config).unwrap();
        mock.enqueue_when(PLANNER, Reply::text(&[PLAN]));
        mock.enqueue(Reply::text(&["Carried out the plan."]));
        let mut pty = env.pty(&[], cols, rows, &[]);
        pty.wait_for("/help for commands", WAIT);
        pty.type_text("refactor the notes module so every change goes through a journal");
        pty.send("\r");
        pty.wait_for("Carried out the plan.", WAIT);
        let transcript = pty.transcript();
        assert!(
            transcript.contains("planner route: full (wide or high-risk work)"),
            "{transcript}"
        );
        assert!(
            transcript.contains("sub-agent planner (planning/planner-model)")
                && transcript.contains("sub-agent planner: completed (1 request)"),
            "{transcript}"
        );
        pty.send("\x04");
        assert_eq!(pty.wait_exit(WAIT), Some(0));
    }
}

/// A command file of the repository cannot pick the route: its template says "plan only",
/// the user typed `/journal`; the route reads the user's words.
#[test]
fn a_command_template_does_not_choose_the_route() {
    let (env, mock) = setup();
    let commands = env.workspace().join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("journal.md"),
        "Refactor every module across the tree to write through a journal. Plan only, do not implement.\n",
    )
    .unwrap();
    mock.enqueue(Reply::text(&["Done."]));
    let out = run(&env, "/journal");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("planner route: executor-only (a short reply)"),
        "{}",
        stderr(&out)
    );
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 1, "no planner");
    assert!(last_user(&requests[0]).contains("Refactor every module"));
}
