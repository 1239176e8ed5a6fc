//! `reasonix sessions fork|tree|show|export|rename|delete` end to end, on sessions made by real
//! `reasonix run` turns against the mock.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::rewind::Setup;
use crate::support::{stderr, stdout};
use serde_json::Value;

fn two_turns(s: &Setup) -> String {
    let write = serde_json::json!({"path": "a.txt", "content": "one\n"}).to_string();
    s.turn("turn one", false, &[("c1", "write_file", &write)]);
    s.turn("turn two", true, &[]);
    s.session_id()
}

fn user_prompts(s: &Setup, id: &str) -> Vec<String> {
    let out = s.sessions(&["export", id, "--format", "jsonl"]);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_fork_shares_the_history_before_its_turn_and_the_tree_shows_it() {
    let s = Setup::new();
    let parent = two_turns(&s);
    let out = s.sessions(&["fork", &parent, "--turn", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let fork = text
        .lines()
        .next()
        .and_then(|l| l.rsplit(" as ").next())
        .unwrap()
        .trim()
        .to_string();
    assert_ne!(fork, parent);
    assert_eq!(user_prompts(&s, &fork), ["turn one"]);
    assert_eq!(user_prompts(&s, &parent), ["turn one", "turn two"]);

    let tree = stdout(&s.sessions(&["tree"]));
    let lines: Vec<&str> = tree.lines().collect();
    let p = lines.iter().position(|l| l.starts_with(&parent)).unwrap();
    assert!(
        lines[p + 1].starts_with(&format!("  └─ {fork} (before turn 2)")),
        "{tree}"
    );

    // The fork goes on by itself: the model sees turn one and the new prompt only.
    let before = s.mock.requests().len();
    s.mock.enqueue(reasonix_mock_llm::Reply::text(&["ok"]));
    let ws = s.env.workspace();
    let out = s.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--resume",
        &fork,
        "in the fork",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let body = s.mock.requests()[before].json();
    let sent: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["turn one", "in the fork"]);
    // The fork kept turn 1's checkpoint: it can rewind its files there.
    std::fs::write(ws.join("a.txt"), "edited\n").unwrap();
    let out = s.sessions(&["rewind", &fork, "--turn", "1", "--code"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!ws.join("a.txt").exists());

    let bad = s.sessions(&["fork", &parent, "--turn", "9"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("has no turn 9 in its conversation (turns: 1, 2)"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn show_escapes_what_the_transcript_holds_and_export_writes_markdown() {
    let s = Setup::new();
    s.turn("paint it \u{1b}[31mred\u{1b}[0m please", false, &[]);
    let id = s.session_id();
    let out = s.sessions(&["show", &id]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("── turn 1 ──"), "{text}");
    assert!(text.contains("assistant: done"), "{text}");

    let file = s.env.workspace().join("out.md");
    let out = s.sessions(&[
        "export",
        &id,
        "--format",
        "markdown",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = std::fs::read_to_string(&file).unwrap();
    assert!(md.starts_with("# paint it"), "{md}");
    assert!(md.contains("## Turn 1\n\n**User**\n\npaint it"), "{md}");
    assert!(md.contains("**Assistant**\n\ndone\n"), "{md}");

    // An export into a directory that does not exist fails and says where.
    let out = s.sessions(&["export", &id, "-o", "/nonexistent-dir/x.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("/nonexistent-dir/x.md"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn rename_titles_a_session_and_delete_removes_it_with_its_checkpoints() {
    let s = Setup::new();
    let id = two_turns(&s);
    let out = s.sessions(&["rename", &id[..12], "Refactor the parser"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let list: Value = serde_json::from_str(&stdout(&s.sessions(&["list", "--json"]))).unwrap();
    assert_eq!(list["sessions"][0]["title"], "Refactor the parser");
    // Title text finds it, as for --resume.
    assert!(s.sessions(&["show", "parser"]).status.success());

    let transcript = std::path::PathBuf::from(list["sessions"][0]["path"].as_str().unwrap());
    let ckpt = transcript.with_extension("ckpt");
    assert!(ckpt.join("turn-1.json").is_file());
    // A live process holding the session: refused, nothing removed.
    let lock = transcript.with_extension("lock");
    std::fs::write(&lock, std::process::id().to_string()).unwrap();
    let out = s.sessions(&["delete", &id]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("open in another Reasonix process"),
        "{}",
        stderr(&out)
    );
    assert!(transcript.is_file() && ckpt.is_dir());
    // A rewind would append to the transcript and change files under that process: refused.
    std::fs::write(s.env.workspace().join("a.txt"), "edited\n").unwrap();
    let out = s.sessions(&["rewind", &id, "--turn", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("open in another Reasonix process"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(s.env.workspace().join("a.txt")).unwrap(),
        "edited\n"
    );
    std::fs::remove_file(&lock).unwrap();

    let out = s.sessions(&["delete", "parser"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!transcript.exists() && !ckpt.exists() && !lock.exists());
    let list: Value = serde_json::from_str(&stdout(&s.sessions(&["list", "--json"]))).unwrap();
    assert_eq!(list["sessions"].as_array().unwrap().len(), 0);

    let out = s.sessions(&["rename", "nothing-like-this", "x"]);
    assert_eq!(out.status.code(), Some(2));
}
