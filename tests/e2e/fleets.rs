//! Fleets (docs/FLEETS.md): a session run on one machine continues on another — exported as its
//! transcript, imported into a different home, state directory and workspace, and resumed
//! there with its history — and the deployment examples are what they claim to be.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;

fn env_with_mock() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    (env, mock)
}

#[test]
fn a_session_exported_on_one_machine_continues_on_another() {
    let (worker, worker_mock) = env_with_mock();
    let ws = worker.workspace();
    worker_mock.enqueue(Reply::text(&["Noted: PINEAPPLE-42."]));
    let out = worker.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "remember PINEAPPLE-42",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = worker.reasonix(&["sessions", "list", "--json", "--dir", ws.to_str().unwrap()]);
    let listed: Value = serde_json::from_str(&stdout(&listed)).unwrap();
    let id = listed["sessions"][0]["id"].as_str().unwrap().to_string();
    let file = worker.root.path().join("export.jsonl");
    let out = worker.reasonix(&[
        "sessions",
        "export",
        &id,
        "--format",
        "transcript",
        "-o",
        file.to_str().unwrap(),
        "--dir",
        ws.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Another machine: its own home, state and workspace path.
    let (laptop, laptop_mock) = env_with_mock();
    let there = laptop.workspace();
    assert_ne!(there, ws);
    let imported = laptop.reasonix(&[
        "sessions",
        "import",
        "--from",
        file.to_str().unwrap(),
        "--dir",
        there.to_str().unwrap(),
    ]);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    assert!(
        stdout(&imported).contains(&format!("as {id} (2 messages)")),
        "{}",
        stdout(&imported)
    );
    laptop_mock.enqueue(Reply::text(&["It was PINEAPPLE-42."]));
    let out = laptop.reasonix(&[
        "run",
        "--dir",
        there.to_str().unwrap(),
        "-r",
        &id,
        "what was it?",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = laptop_mock.requests()[0].json();
    let messages = request["messages"].as_array().unwrap();
    assert!(
        messages
            .iter()
            .any(|m| m["role"] == "user" && m["content"] == "remember PINEAPPLE-42"),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m["role"] == "assistant" && m["content"] == "Noted: PINEAPPLE-42."),
        "{messages:?}"
    );
    // The session works in the workspace it now belongs to.
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains(&format!("Workspace (working directory): {}", there.display())),
        "{}",
        messages[0]
    );

    // Importing again leaves it; a transcript naming a path as its id is refused.
    let again = laptop.reasonix(&[
        "sessions",
        "import",
        "--from",
        file.to_str().unwrap(),
        "--dir",
        there.to_str().unwrap(),
    ]);
    assert!(
        stdout(&again).contains("already imported"),
        "{}",
        stdout(&again)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let mut header: Value = serde_json::from_str(first).unwrap();
    header["id"] = "../../../outside".into();
    let hostile = laptop.root.path().join("hostile.jsonl");
    std::fs::write(&hostile, format!("{header}\n{rest}")).unwrap();
    let refused = laptop.reasonix(&[
        "sessions",
        "import",
        "--from",
        hostile.to_str().unwrap(),
        "--dir",
        there.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("is not a file name"),
        "{}",
        stderr(&refused)
    );
}
