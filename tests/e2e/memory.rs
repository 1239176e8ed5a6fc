//! Standing memory (docs/MEMORY.md) through the real binary and the mock LLM: a fact the model
//! saves with `remember` in one session is found by `memory` in the next and recalled into a
//! turn whose words match it; a key-shaped fact is saved redacted (and asks first); the first
//! request's system prompt and tools are the same bytes with and without saved facts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, result_of, stderr};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn fact_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(fact_files(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out
}

fn body(mock: &MockLlm, n: usize) -> Value {
    serde_json::from_str(&mock.requests()[n].body).unwrap()
}

/// The cached prefix of a request: its system message and its tools.
fn prefix(request: &Value) -> String {
    format!("{}{}", request["messages"][0], request["tools"])
}

#[test]
fn a_fact_remembered_in_one_session_is_found_and_recalled_in_the_next_and_the_prefix_stays() {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    let memory_dir = env.home().join("memory");

    // Session 1: a short project fact is saved without asking (a headless run asks nobody).
    let fact = json!({"fact": "The staging database is called heron-7"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("m1", "remember", &fact)], 1));
    mock.enqueue(Reply::text(&["Noted."]));
    let out = env.reasonix(&["run", "note where staging lives"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let saved = result_of(&body(&mock, 1), "m1");
    assert!(saved.starts_with("Saved as m"), "{saved}");
    let files = fact_files(&memory_dir);
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(
        std::fs::read_to_string(&files[0])
            .unwrap()
            .contains("heron-7")
    );
    let without_memories = prefix(&body(&mock, 0));

    // A key-shaped fact reaches wider: refused headless without a rule …
    let secret = json!({"fact": "The deploy token is sk-abcdefghijklmnopqrstuvwx"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("m2", "remember", &secret)], 1));
    mock.enqueue(Reply::text(&["Could not."]));
    let out = env.reasonix(&["run", "keep the token"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fact_files(&memory_dir).len(), 1);
    // … and saved redacted when allowed.
    mock.enqueue(Reply::tool_calls(&[("m3", "remember", &secret)], 1));
    mock.enqueue(Reply::text(&["Kept."]));
    let out = env.reasonix(&["run", "--allowed-tools", "remember", "keep the token"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let texts: Vec<String> = fact_files(&memory_dir)
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.contains("deploy token is [REDACTED]")),
        "{texts:?}"
    );
    assert!(
        texts.iter().all(|t| !t.contains("abcdefghijklmnop")),
        "{texts:?}"
    );

    // Session 2: the words match the fact, so the turn carries it; `memory` finds it.
    let before = mock.requests().len();
    let query = json!({"query": "staging database"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("q1", "memory", &query)], 1));
    mock.enqueue(Reply::text(&["It is heron-7."]));
    let out = env.reasonix(&["run", "what is the staging database called?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first = body(&mock, before);
    let user = first["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .to_string();
    assert!(
        user.contains("<recalled-memory") && user.contains("heron-7"),
        "{user}"
    );
    let found = result_of(&body(&mock, before + 1), "q1");
    assert!(found.contains("heron-7"), "{found}");
    // The cached prefix is the same bytes as before any fact was saved.
    assert_eq!(prefix(&first), without_memories);

    // A turn whose words match nothing carries no recall.
    let before = mock.requests().len();
    mock.enqueue(Reply::text(&["Hello."]));
    let out = env.reasonix(&["run", "say hello"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!body(&mock, before).to_string().contains("recalled-memory"));
}

#[test]
fn the_terminal_saves_lists_and_forgets_facts() {
    let s = crate::tui::Session::new();
    let wait = crate::tui::WAIT;
    let mut pty = s.open_at(&[], 100, 30);
    pty.type_text("/remember The CI runs cargo nextest");
    pty.send("\r");
    let screen = pty.wait_for("saved as m", wait);
    let id = screen
        .split("saved as ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap()
        .trim()
        .to_string();
    // `# fact` on one line is the same; nothing goes to the model.
    pty.type_text("# Deploys go through argo");
    pty.send("\r");
    let deadline = std::time::Instant::now() + wait;
    while pty.transcript().matches("saved as m").count() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "`# fact` was not saved:\n{}",
            pty.transcript()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    pty.type_text("/memory");
    pty.send("\r");
    let listed = pty.wait_for("Memory (2 facts)", wait);
    assert!(
        listed.contains("The CI runs cargo nextest") && listed.contains("Deploys go through argo"),
        "{listed}"
    );
    assert!(
        s.mock.requests().is_empty(),
        "a memory command reached the model"
    );
    pty.type_text(&format!("/forget {id}"));
    pty.send("\r");
    pty.wait_for(&format!("forgot {id}"), wait);
    pty.type_text("/memory");
    pty.send("\r");
    pty.wait_for("Memory (1 facts)", wait);
    // The user may keep a fact in the project's instructions instead, or for every workspace.
    pty.type_text("/remember --file Release notes live in docs/RELEASES.md");
    pty.send("\r");
    pty.wait_for("added to", wait);
    let instructions = std::fs::read_to_string(s.env.project().join("REASONIX.md")).unwrap();
    assert_eq!(instructions, "- Release notes live in docs/RELEASES.md\n");
    pty.type_text("/remember --user I prefer short answers");
    pty.send("\r");
    let deadline = std::time::Instant::now() + wait;
    while pty.transcript().matches("saved as m").count() < 3 {
        assert!(std::time::Instant::now() < deadline, "{}", pty.transcript());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        fact_files(&s.env.home().join("memory/user"))
            .iter()
            .any(|f| std::fs::read_to_string(f)
                .unwrap()
                .contains("I prefer short answers"))
    );
    pty.send("\x04");
    assert_eq!(pty.wait_exit(wait), Some(0));
    let files = fact_files(&s.env.home().join("memory"));
    // One in use, one in the archive, the user's.
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(
        files
            .iter()
            .any(|f| f.to_string_lossy().contains("/archive/"))
    );
}
