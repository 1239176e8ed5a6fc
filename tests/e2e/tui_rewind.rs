//! `/rewind` and Esc Esc in the interactive session: the turn picker, a rewind of files and
//! conversation that puts the prompt back into the composer, and its undo.

use crate::support::Env;
use reasonix_mock_llm::{MockLlm, Reply};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

#[test]
fn esc_esc_lists_turns_and_rewind_restores_files_conversation_and_prompt() {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    let config = env.mock_provider("openai", &mock.base_url(), "k", "");
    std::fs::write(env.home().join("config.toml"), config).unwrap();
    let notes = env.project().join("notes.txt");
    std::fs::write(&notes, "alpha\n").unwrap();
    let args = serde_json::json!({"path": "notes.txt", "content": "beta\n"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("call_w", "write_file", &args)], 1));
    mock.enqueue(Reply::text(&["Done."]));

    let mut pty = env.pty(&["--permission-mode", "auto"], 100, 30, &[]);
    pty.wait_for("Ctrl+D to leave", WAIT);
    pty.type_text("change alpha");
    pty.send("\r");
    pty.wait_for("Done.", WAIT);
    // The turn that showed its answer may still be ending (saving the session); an Esc then
    // cancels it instead of opening the picker.
    pty.wait_gone("(Esc to cancel)", WAIT);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "beta\n");

    // Two separate key presses (sent in one write, a terminal reader may see one Alt+Esc).
    pty.send("\x1b");
    std::thread::sleep(Duration::from_millis(300));
    pty.send("\x1b");
    pty.wait_for("Rewind to the start of a turn", WAIT);
    pty.wait_for("1  change alpha", WAIT);
    // Enter on the (only) turn: files and conversation.
    pty.send("\r");
    pty.wait_for("restored: notes.txt", WAIT);
    pty.wait_for("conversation: 0 messages", WAIT);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "alpha\n");

    // The prompt is back in the composer: Enter sends it again, without the old turn.
    mock.enqueue(Reply::text(&["Again."]));
    pty.send("\r");
    pty.wait_for("Again.", WAIT);
    let body = mock.requests()[2].json();
    let users: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(users, ["change alpha"]);

    pty.type_text("/rewind undo");
    pty.send("\r");
    // The files come back; the conversation went on since the rewind, so it stays.
    pty.wait_for("conversation: 2 messages", WAIT);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "beta\n");
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

/// The answer is on screen while the turn still ends (here a `Stop` hook that takes a moment):
/// Esc then is not a cancel, it is the first of Esc Esc.
#[test]
fn esc_after_the_answer_opens_the_rewind_list_instead_of_cancelling_the_save() {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    let config = env.mock_provider("openai", &mock.base_url(), "k", "");
    std::fs::write(env.home().join("config.toml"), config).unwrap();
    let stop_hook = serde_json::json!({"hooks": {"Stop": [
        {"matcher": "", "hooks": [{"type": "command", "command": "sleep 4"}]}
    ]}});
    std::fs::write(env.home().join("settings.json"), stop_hook.to_string()).unwrap();
    mock.enqueue(Reply::text(&["Done."]));

    let pty = env.pty(&[], 100, 30, &[]);
    pty.wait_for("Ctrl+D to leave", WAIT);
    pty.type_text("say done");
    pty.send("\r");
    pty.wait_for("Done.", WAIT);
    // The live line says what is left, and offers no cancel.
    pty.wait_for("saving", Duration::from_secs(3));
    assert!(
        !pty.screen().contains("(Esc to cancel)"),
        "{}",
        pty.screen()
    );
    pty.send("\x1b");
    std::thread::sleep(Duration::from_millis(300));
    pty.send("\x1b");
    pty.wait_for("Rewind to the start of a turn", WAIT);
    assert!(!pty.screen().contains("cancelling"), "{}", pty.screen());
    pty.send("\x1b");
    pty.wait_gone("saving", WAIT);
    assert!(
        !pty.transcript().contains("cancelled"),
        "{}",
        pty.transcript()
    );
}
