//! Approval questions in the interactive session, in a pseudo-terminal against the mock LLM:
//! keys typed ahead never answer them, "always" takes a second deliberate key, Shift+Tab never
//! reaches a posture that runs commands in one press, and a question taller than the screen
//! keeps its header and leaves nothing stale in the scrollback. At 80×24 and 120×40.

use super::tui::{Session, WAIT, write_call};
use crate::support::pty::Pty;
use reasonix_mock_llm::{Reply, Step};
use std::time::{Duration, Instant};

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];
/// Longer than the session's guard: keys sent after this pause are deliberate answers.
const PAUSE: Duration = Duration::from_millis(900);

fn bash_call(id: &str, command: &str) -> Step {
    Step::ToolCall {
        id: id.into(),
        name: "bash".into(),
        arguments: serde_json::json!({ "command": command }).to_string(),
        fragments: 1,
    }
}

/// Send `key` every few milliseconds until `needle` is on the visible screen, then `after`
/// at once: the keys race the question being drawn, as a person's typing does.
fn type_until(pty: &Pty, key: &str, needle: &str, after: &str) {
    let deadline = Instant::now() + WAIT;
    while !pty.screen().contains(needle) {
        assert!(
            Instant::now() < deadline,
            "`{needle}` never appeared:\n{}",
            pty.screen()
        );
        pty.send(key);
        std::thread::sleep(Duration::from_millis(8));
    }
    pty.send(after);
}

/// The composer's row: the line above the status line.
fn composer_row(pty: &Pty) -> String {
    let screen = pty.screen();
    let rows: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    rows.iter()
        .rev()
        .nth(1)
        .map(|r| r.to_string())
        .unwrap_or_default()
}

#[test]
fn keys_typed_ahead_never_answer_a_question() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        let victim = s.env.project().join("victim_dir");
        std::fs::create_dir(&victim).unwrap();
        std::fs::write(victim.join("keep.txt"), "keep\n").unwrap();
        let config = s.user_config();
        s.mock.enqueue(
            Reply::text(&["Cleaning up. "])
                .then(Step::Gate("hold".into()))
                .then(bash_call("call_rm", "rm -rf ./victim_dir")),
        );
        s.mock.enqueue(Reply::text(&["Left it alone."]));
        let pty = s.open_at(&[], cols, rows);
        pty.type_text("clean up");
        pty.send("\r");
        pty.wait_for("Cleaning up.", WAIT);
        // Typing the next message while the turn runs, on through the moment the question
        // appears: `y`, `a` and `p` are all answer keys.
        pty.type_text("qwerty");
        s.mock.release("hold");
        type_until(&pty, "y", "Allow bash?", "ap");
        std::thread::sleep(PAUSE);
        let screen = pty.screen();
        assert!(
            screen.contains("Allow bash?"),
            "the question was answered:\n{screen}"
        );
        assert!(
            screen.contains("kept in the composer"),
            "the question says what happens to typed-ahead keys:\n{screen}"
        );
        assert!(
            victim.join("keep.txt").exists(),
            "the command ran at {cols}x{rows}"
        );
        assert_eq!(s.user_config(), config, "an allow rule was written");
        assert_eq!(s.mock.requests().len(), 1);
        // What was typed is still in the composer, every key of it.
        let composer = composer_row(&pty);
        assert!(screen.contains("qwertyy"), "{composer:?}\n{screen}");
        assert!(
            composer.trim_end().ends_with("yap"),
            "{composer:?}\n{screen}"
        );

        // A deliberate answer after the pause: deny.
        pty.send("n");
        pty.wait_for("note to the model", WAIT);
        pty.send("\r");
        pty.wait_for("Left it alone.", WAIT);
        assert!(victim.join("keep.txt").exists());
        assert_eq!(s.user_config(), config);
        // The live area is drawn again once the turn has ended.
        let screen = pty.wait_on_screen("qwertyy", WAIT);
        assert!(screen.contains("qwertyy"), "{screen}");
    }
}

#[test]
fn always_takes_a_second_deliberate_key() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        let config = s.user_config();
        s.mock.enqueue(write_call("notes.txt", "hello\n"));
        s.mock.enqueue(Reply::text(&["Wrote it."]));
        let pty = s.open_at(&[], cols, rows);
        pty.type_text("write the notes");
        pty.send("\r");
        pty.wait_for("Allow write_file?", WAIT);
        std::thread::sleep(PAUSE);
        // One `p` only asks for the confirmation; `pp` typed at once does not confirm it.
        pty.send("pp");
        pty.wait_for("press p again", WAIT);
        std::thread::sleep(PAUSE);
        assert_eq!(s.user_config(), config, "one p wrote the rule");
        assert!(!s.env.project().join("notes.txt").exists());
        // Any other key goes back to the question; then p, pause, p writes the rule.
        pty.send("x");
        std::thread::sleep(PAUSE);
        assert!(!pty.screen().contains("press p again"), "{}", pty.screen());
        pty.send("p");
        pty.wait_for("press p again", WAIT);
        std::thread::sleep(PAUSE);
        pty.send("p");
        pty.wait_for("Wrote it.", WAIT);
        let written = s.user_config();
        assert!(written.contains("notes.txt"), "{written}");
        assert!(s.env.project().join("notes.txt").exists());
    }
}

#[test]
fn shift_tab_accepts_edits_while_commands_still_ask() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        let write = serde_json::json!({ "path": "notes.txt", "content": "new\n" }).to_string();
        let bash = serde_json::json!({ "command": "echo ran > ran.txt" }).to_string();
        s.mock
            .enqueue(Reply::tool_calls(&[("call_w", "write_file", &write)], 1));
        s.mock
            .enqueue(Reply::tool_calls(&[("call_b", "bash", &bash)], 1));
        s.mock.enqueue(Reply::text(&["Both done."]));
        let pty = s.open_at(&[], cols, rows);
        pty.send("\x1b[Z");
        pty.wait_for(" accept-edits ", WAIT);
        assert_ne!(posture_colour(&pty, " accept-edits "), vt100::Color::Idx(3));
        pty.type_text("write, then run");
        pty.send("\r");
        // The write runs unasked; the command asks.
        pty.wait_for("Allow bash?", WAIT);
        assert_eq!(
            std::fs::read_to_string(s.env.project().join("notes.txt")).unwrap(),
            "new\n"
        );
        assert!(!s.env.project().join("ran.txt").exists());
        std::thread::sleep(PAUSE);
        pty.send("y");
        pty.wait_for("Both done.", WAIT);
        // Shift+Tab again: auto, in the warning colour (yellow), unlike accept-edits.
        pty.send("\x1b[Z");
        pty.wait_for(" auto ", WAIT);
        assert_eq!(posture_colour(&pty, " auto "), vt100::Color::Idx(3));
    }
}

/// The foreground colour of the status line's posture badge `badge`.
fn posture_colour(pty: &Pty, badge: &str) -> vt100::Color {
    let screen = pty.screen();
    let lines: Vec<&str> = screen.lines().collect();
    let (row, line) = lines
        .iter()
        .enumerate()
        .rev()
        .find(|(_, l)| l.contains(badge))
        .expect("the status line");
    let col = line[..line.find(badge).unwrap()].chars().count() + 1;
    pty.cell_fg(row as u16, col as u16)
}

#[test]
fn a_question_taller_than_the_screen_keeps_its_header_and_leaves_nothing_stale() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        // One JSON line of arguments that wraps to far more rows than the screen has.
        let content: String = (1..=80)
            .map(|i| format!("line {i} of a long file written by the model, padded out\n"))
            .collect();
        s.mock.enqueue(write_call("big.txt", &content));
        s.mock.enqueue(Reply::text(&["Wrote the big file."]));
        let pty = s.open_at(&[], cols, rows);
        pty.type_text("write a big file");
        pty.send("\r");
        pty.wait_for("Yes, once", WAIT);
        std::thread::sleep(PAUSE);
        let screen = pty.screen();
        assert!(
            screen.contains("Allow write_file?"),
            "header scrolled off:\n{screen}"
        );
        // The diff is shown; the same content is not dumped again as JSON.
        assert!(!screen.contains("\"content\""), "{screen}");
        pty.send("y");
        pty.wait_for("Wrote the big file.", WAIT);
        std::thread::sleep(PAUSE);
        let text = pty.transcript();
        for stale in [
            "Yes, once",
            "Esc to cancel",
            "kept in the composer",
            "Ask anything",
        ] {
            let copies = text.matches(stale).count();
            let allowed = usize::from(stale == "Ask anything");
            assert!(
                copies <= allowed,
                "{copies} copies of `{stale}` at {cols}x{rows}:\n{text}"
            );
        }
        let status = text
            .lines()
            .filter(|l| l.contains(" ask ") && l.contains("mock-model"))
            .count();
        assert_eq!(status, 1, "stale status lines:\n{text}");
        // Resizing while a question is open leaves no fragments of it either.
        s.mock.enqueue(write_call("small.txt", "x\n"));
        s.mock.enqueue(Reply::text(&["Second write done."]));
        pty.type_text("one more");
        pty.send("\r");
        pty.wait_for("Yes, once", WAIT);
        pty.resize(cols - 10, rows - 4);
        pty.wait_for("Yes, once", WAIT);
        pty.resize(cols, rows);
        std::thread::sleep(PAUSE);
        pty.send("y");
        pty.wait_for("Second write done.", WAIT);
        std::thread::sleep(PAUSE);
        let text = pty.transcript();
        assert_eq!(text.matches("Yes, once").count(), 0, "{text}");
        assert_eq!(text.matches("Allow write_file?").count(), 0, "{text}");
    }
}

/// The row of the visible screen the status line is on.
fn status_row(pty: &Pty) -> Option<usize> {
    let screen = pty.screen();
    screen
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("mock-model") && l.contains("ctx"))
        .map(|(i, _)| i)
        .last()
}

#[test]
fn the_composer_stays_at_the_bottom_after_a_question_or_picker_closes() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        // An answer that fills the screen, so the live area sits on the bottom row.
        let long: String = (1..=rows).map(|i| format!("filler line {i}\n")).collect();
        s.mock.enqueue(Reply::text(&[&long]));
        s.mock.enqueue(write_call("notes.txt", "hello\n"));
        s.mock.enqueue(Reply::text(&["Done writing."]));
        let pty = s.open_at(&[], cols, rows);
        pty.type_text("fill the screen");
        pty.send("\r");
        pty.wait_for(&format!("filler line {rows}"), WAIT);
        pty.type_text("now write");
        pty.send("\r");
        pty.wait_for("Yes, once", WAIT);
        std::thread::sleep(PAUSE);
        pty.send("y");
        pty.wait_for("Done writing.", WAIT);
        std::thread::sleep(PAUSE);
        let bottom = usize::from(rows) - 1;
        assert_eq!(
            status_row(&pty),
            Some(bottom),
            "after the question:\n{}",
            pty.screen()
        );
        // The tool-call picker is taller than the idle live area; closing it keeps the
        // composer where it was.
        pty.send("\x14");
        pty.wait_for("Tool calls of this session", WAIT);
        pty.send("\x1b");
        std::thread::sleep(PAUSE);
        assert_eq!(
            status_row(&pty),
            Some(bottom),
            "after the picker:\n{}",
            pty.screen()
        );
    }
}

#[test]
fn permissions_lists_the_grants_of_this_session() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        s.mock.enqueue(write_call("a.txt", "a\n"));
        s.mock.enqueue(write_call("b.txt", "b\n"));
        s.mock.enqueue(Reply::text(&["Both written."]));
        let pty = s.open_at(&[], cols, rows);
        pty.type_text("write two files");
        pty.send("\r");
        pty.wait_for("Yes, once", WAIT);
        std::thread::sleep(PAUSE);
        pty.send("a");
        pty.wait_for("allowed for this session", WAIT);
        pty.wait_for("Yes, once", WAIT);
        std::thread::sleep(PAUSE);
        pty.send("p");
        pty.wait_for("press p again", WAIT);
        std::thread::sleep(PAUSE);
        pty.send("p");
        pty.wait_for("Both written.", WAIT);
        pty.type_text("/permissions");
        pty.send("\r");
        // One commit holds the whole listing: once its heading is there, all of it is.
        let text = pty.wait_for("posture: ask", WAIT);
        let text = &text[text.rfind("posture: ask").unwrap_or(0)..];
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with("session ") && l.contains("a.txt")),
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with("allow") && l.contains("b.txt")),
            "{text}"
        );
        // Revoked, the grant is gone: the same write asks again.
        pty.type_text("/permissions revoke 1");
        pty.send("\r");
        pty.wait_for("revoked for this session", WAIT);
        s.mock.enqueue(write_call("a.txt", "again\n"));
        s.mock.enqueue(Reply::text(&["Asked again."]));
        pty.type_text("write a.txt again");
        pty.send("\r");
        let text = pty.wait_for("Yes, once", WAIT);
        assert!(text.contains("Allow write_file?"), "{text}");
        std::thread::sleep(PAUSE);
        pty.send("y");
        pty.wait_for("Asked again.", WAIT);
        assert_eq!(
            std::fs::read_to_string(s.env.project().join("a.txt")).unwrap(),
            "again\n"
        );
    }
}
