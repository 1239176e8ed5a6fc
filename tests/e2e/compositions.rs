//! Agent compositions (docs/CONFIG.md, "Agent compositions"): a read-only composition offers
//! no writer, its persona follows the system prompt, `-c` keeps it without the flag and refuses
//! another; a composition that would allow more than the configuration is refused, naming the
//! key, before anything starts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;

const COMPOSITIONS: &str = "\n[compositions.reviewer]\ndescription = \"Reads and reviews\"\npersona = \"PERSONA-7c1: you review; you never change files.\"\ntools = [\"read_file\", \"grep\", \"glob\", \"ls\"]\n[compositions.reviewer.permissions]\ndeny = [\"Bash\"]\n\n[compositions.loose.permissions]\nallow = [\"Bash\"]\n";

fn setup() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    let provider = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
    env.project_config(&format!("{provider}{COMPOSITIONS}"));
    (env, mock)
}

fn tools(request: &Value) -> Vec<String> {
    let mut names: Vec<String> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn a_read_only_composition_offers_no_writer_and_a_continued_session_keeps_it() {
    let (env, mock) = setup();
    let ws = env.workspace();
    let dir = ws.to_str().unwrap();
    mock.enqueue(Reply::text(&["looked"]));
    let out = env.reasonix(&[
        "run",
        "--dir",
        dir,
        "--agent-composition",
        "reviewer",
        "look around",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    mock.enqueue(Reply::text(&["again"]));
    let out = env.reasonix(&["run", "--dir", dir, "-c", "look again"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    for request in &requests {
        assert_eq!(tools(request), ["glob", "grep", "ls", "read_file"]);
        assert!(
            request.to_string().contains("PERSONA-7c1"),
            "the persona is sent"
        );
    }
    // The same prefix bytes on the continued run.
    assert_eq!(requests[0]["messages"][0], requests[1]["messages"][0]);

    let other = env.reasonix(&[
        "run",
        "--dir",
        dir,
        "-c",
        "--agent-composition",
        "loose",
        "x",
    ]);
    assert_eq!(other.status.code(), Some(2));
    assert!(
        stderr(&other).contains("was started with the composition `reviewer` and keeps it"),
        "{}",
        stderr(&other)
    );

    // Without a composition, the writers are back.
    mock.enqueue(Reply::text(&["plain"]));
    let out = env.reasonix(&["run", "--dir", dir, "plain run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plain = mock.requests().last().unwrap().json();
    assert!(tools(&plain).contains(&"write_file".to_string()));
    assert!(!plain.to_string().contains("PERSONA-7c1"));
}

#[test]
fn a_composition_that_allows_more_than_the_configuration_is_refused_naming_the_key() {
    let (env, mock) = setup();
    let ws = env.workspace();
    let out = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--agent-composition",
        "loose",
        "anything",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("`compositions.loose.permissions.allow[0]`"),
        "{err}"
    );
    assert!(err.contains("can only narrow"), "{err}");
    assert!(mock.requests().is_empty(), "nothing was sent");
    let unknown = env.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--agent-composition",
        "nope",
        "x",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("no composition `nope`; defined: loose, reviewer"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn a_new_session_keeps_the_composition_and_a_differently_bound_one_is_not_resumed() {
    let (env, mock) = setup();
    // A session without a composition, to try to resume into.
    mock.enqueue(Reply::text(&["plain"]));
    let out = env.reasonix(&["run", "--dir", env.workspace().to_str().unwrap(), "plain"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plain_id = String::from_utf8_lossy(&out.stderr)
        .split("session ")
        .last()
        .and_then(|t| t.split(']').next())
        .unwrap()
        .trim()
        .to_string();

    let mut client =
        crate::events::OpsClient::start_with(&env, &["--agent-composition", "reviewer"]);
    client.send(r#"{"type":"new_session"}"#);
    let changed = client.until("session_changed");
    let new_id = changed["session_id"].as_str().unwrap().to_string();
    client.send(&format!(r#"{{"type":"resume","session_id":"{plain_id}"}}"#));
    let failed = client.until("op_failed");
    assert!(
        failed.to_string().contains("not resumed") && failed.to_string().contains("no composition"),
        "{failed}"
    );
    client.send(r#"{"type":"quit"}"#);
    let _ = client.finish();

    // The new session was bound: continuing it restores the composition without the flag.
    mock.enqueue(Reply::text(&["kept"]));
    let out = env.reasonix(&[
        "run",
        "--dir",
        env.workspace().to_str().unwrap(),
        "-r",
        &new_id,
        "go on",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = mock.requests().last().unwrap().json();
    assert_eq!(tools(&request), ["glob", "grep", "ls", "read_file"]);
}

#[test]
fn a_composition_chooses_the_custom_commands_that_expand() {
    let (env, mock) = setup();
    let provider = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
    env.project_config(&format!(
        "{provider}{COMPOSITIONS}\n[compositions.few]\ncommands = [\"keep\"]\nhooks = [\"Stop\"]\n"
    ));
    let commands = env.workspace().join(".reasonix/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(commands.join("keep.md"), "KEEP-BODY $ARGUMENTS").unwrap();
    std::fs::write(commands.join("drop.md"), "DROP-BODY $ARGUMENTS").unwrap();
    let dir = env.workspace();
    let dir = dir.to_str().unwrap();
    for task in ["/keep one", "/drop two"] {
        mock.enqueue(Reply::text(&["ok"]));
        let out = env.reasonix(&["run", "--dir", dir, "--agent-composition", "few", task]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let sent: Vec<String> = mock
        .requests()
        .iter()
        .map(|r| r.json()["messages"].as_array().unwrap().last().unwrap()["content"].to_string())
        .collect();
    assert!(sent[0].contains("KEEP-BODY one"), "{}", sent[0]);
    assert!(
        sent[1].contains("/drop two") && !sent[1].contains("DROP-BODY"),
        "a command the composition left out is sent as typed: {}",
        sent[1]
    );
}

#[test]
fn agent_name_in_the_terminal_leaves_the_session_and_starts_one_as_that_composition() {
    use crate::tui::{Session, WAIT};
    let s = Session::new();
    let config = s.env.home().join("config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(COMPOSITIONS);
    std::fs::write(&config, text).unwrap();
    s.mock.enqueue(Reply::text(&["FIRST-ANSWER"]));
    s.mock.enqueue(Reply::text(&["SECOND-ANSWER"]));
    let mut pty = s.open_at(&[], 100, 30);
    pty.type_text("hello there");
    pty.send("\r");
    pty.wait_for("FIRST-ANSWER", WAIT);

    pty.type_text("/agent nosuch");
    pty.send("\r");
    pty.wait_for("no composition `nosuch`", WAIT);
    pty.type_text("/agent reviewer");
    pty.send("\r");
    pty.wait_for(
        "starting a new session as the agent composition reviewer",
        WAIT,
    );
    pty.wait_for("mock/mock-model  as reviewer", WAIT);
    pty.type_text("/agent");
    pty.send("\r");
    pty.wait_for("Agent composition: reviewer", WAIT);
    pty.type_text("look");
    pty.send("\r");
    pty.wait_for("SECOND-ANSWER", WAIT);
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));

    let requests: Vec<Value> = s.mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 2);
    assert!(tools(&requests[0]).contains(&"write_file".to_string()));
    assert!(!requests[0].to_string().contains("PERSONA-7c1"));
    assert_eq!(tools(&requests[1]), ["glob", "grep", "ls", "read_file"]);
    assert!(requests[1].to_string().contains("PERSONA-7c1"));
    // A new session: the first one's conversation is not in it.
    assert!(!requests[1].to_string().contains("hello there"));
}
