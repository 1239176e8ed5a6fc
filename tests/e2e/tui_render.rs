//! What the interactive session leaves in the terminal's scrollback, read back through a
//! terminal emulator (vt100) at 80×24 and 120×40: wide characters intact, wrapped items and
//! quotes hanging under their gutter, joiners kept, tool cards that say how a command ended,
//! and how many bytes a streamed answer costs.

use super::tui::{Session, WAIT};
use crate::support::pty::Pty;
use reasonix_mock_llm::{Reply, Step};
use std::time::Duration;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

const SENTENCE: &str = "这是一个很长的中文句子，用来检查写进终端回滚缓冲区的每一行是否完整无缺，既没有多余的空格，也没有丢失任何一个字符，无论终端是八十列还是一百二十列。";

fn chinese_answer() -> String {
    format!(
        "## 总结\n\n{SENTENCE}\n\n| 名称 | 说明 |\n|---|---|\n| 甲 | 第一项，较短 |\n| 乙 | 第二项 |\n\n- 列表项目：这一项的文字足够长，在八十列的终端里一定会换行，换行以后的部分应该和上面的文字对齐。\n- 第二项\n\n完成。\n"
    )
}

/// The transcript from the line holding `from` to the line holding `to`, inclusive, with
/// trailing blanks cut.
fn excerpt(text: &str, from: &str, to: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.contains(from)).expect("start");
    let end = start
        + lines[start..]
            .iter()
            .position(|l| l.contains(to))
            .expect("end");
    lines[start..=end]
        .iter()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rows joined back into one text, each row's indentation dropped.
fn joined(text: &str) -> String {
    text.lines().map(str::trim).collect()
}

fn leave(mut pty: Pty) {
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn chinese_survives_the_scrollback() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        s.mock.enqueue(Reply::text(&[&chinese_answer()]));
        let pty = s.open_at(&[], cols, rows);
        let prompt = "请用中文总结一下这个项目的现状，包括表格和列表，并且句子要足够长以便换行显示";
        pty.type_text(prompt);
        pty.send("\r");
        pty.wait_for("完成。", WAIT);
        let text = pty.transcript();
        let answer = excerpt(&text, "总结", "完成。");
        assert!(
            joined(&answer).contains(SENTENCE),
            "at {cols}x{rows}:\n{answer}"
        );
        assert!(
            !answer.contains("这 是"),
            "a space after a wide glyph:\n{answer}"
        );
        let echo = excerpt(&text, "› 请用中文", "换行显示");
        assert!(
            joined(&echo).contains(prompt),
            "the echo at {cols}x{rows}:\n{echo}"
        );
        insta::assert_snapshot!(format!("chinese_answer_{cols}x{rows}"), answer);
        leave(pty);

        // The resumed transcript is written the same way.
        let again = s.open_at(&["-c"], cols, rows);
        let text = again.wait_for("完成。", WAIT);
        let resumed = excerpt(&text, "总结", "完成。");
        assert!(
            joined(&resumed).contains(SENTENCE),
            "resumed at {cols}x{rows}:\n{resumed}"
        );
        leave(again);
    }
}

#[test]
fn wrapped_items_and_quotes_hang_and_joiners_stay() {
    let long = "words that go on and on until the line has to wrap at least once more";
    let answer = format!(
        "Start.\n\n- bullet {long} {long}\n  - nested {long} {long}\n1. ordered {long} {long}\n\n> quoted {long} {long}\n\nfamily 👨\u{200d}👩\u{200d}👧 and می\u{200c}خواهم end.\n"
    );
    for (cols, rows) in SIZES {
        let s = Session::new();
        s.mock.enqueue(Reply::text(&[&answer]));
        let pty = s.open_at(&[], cols, rows);
        pty.type_text("lists please");
        pty.send("\r");
        let text = pty.wait_for("end.", WAIT);
        let shown = excerpt(&text, "Start.", "end.");
        let lines: Vec<&str> = shown.lines().collect();
        let row_after = |start: &str| {
            let i = lines.iter().position(|l| l.contains(start)).expect(start);
            lines[i + 1]
        };
        // Continuations start under the text, not at the margin.
        assert!(row_after("• bullet").starts_with("  "), "{shown}");
        assert!(row_after("◦ nested").starts_with("    "), "{shown}");
        assert!(row_after("1. ordered").starts_with("   "), "{shown}");
        assert!(row_after("│ quoted").starts_with("│ "), "{shown}");
        assert!(
            !shown.contains("\\u{200d}") && !shown.contains("\\u{200c}"),
            "{shown}"
        );
        // The joiners reach the terminal as joiners (how it draws the family is its own).
        assert!(shown.contains("👨\u{200d}"), "{shown:?}");
        assert!(shown.contains("می\u{200c}خواهم"), "{shown:?}");
        leave(pty);
    }
}

fn bash(id: &str, command: &str) -> Reply {
    let args = serde_json::json!({ "command": command }).to_string();
    Reply::tool_calls(&[(id, "bash", &args)], 1)
}

#[test]
fn command_cards_say_how_the_command_ended() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        // Commands run unconfined: the cards are the point, not the sandbox (which needs
        // bubblewrap on the machine).
        let config = s.user_config() + "\n[sandbox]\nbash = \"off\"\n";
        std::fs::write(s.env.home().join("config.toml"), config).unwrap();
        s.mock.enqueue(bash("call_ok", "echo fine"));
        s.mock.enqueue(bash("call_3", "echo failing; exit 3"));
        s.mock.enqueue(Reply::text(&["Checked."]));
        s.mock.enqueue(bash("call_s", "sleep 30"));
        let pty = s.open_at(&["--yolo"], cols, rows);
        pty.type_text("run them");
        pty.send("\r");
        let text = pty.wait_for("Checked.", WAIT);
        let ok = text
            .lines()
            .position(|l| l.contains("echo fine"))
            .expect("card");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[ok].starts_with("✓ bash"), "{text}");
        assert_eq!(lines[ok + 1].trim_end(), "  └ fine", "{text}");
        let failed = lines
            .iter()
            .position(|l| l.contains("echo failing; exit 3"))
            .expect("card");
        assert!(lines[failed].starts_with("✗ bash"), "{text}");
        assert!(
            lines[failed + 1].contains("failing (exit code 3)"),
            "{text}"
        );

        pty.type_text("now wait");
        pty.send("\r");
        pty.wait_for("sleep 30", WAIT);
        std::thread::sleep(Duration::from_millis(500));
        pty.send("\x1b");
        let text = pty.wait_for("· cancelled", WAIT);
        let card = text
            .lines()
            .rev()
            .find(|l| l.contains("bash") && l.contains("sleep 30"))
            .expect("card");
        assert!(card.starts_with("■ bash"), "{text}");
        leave(pty);
    }
}

#[test]
// Prints the figure docs/PERFORMANCE.md quotes (run with --nocapture).
#[allow(clippy::disallowed_macros)]
fn a_streamed_answer_costs_few_bytes_per_kilobyte() {
    // About 6.7 KB of Markdown in 8-byte deltas, each line committed as it completes.
    let paragraph = "The streaming answer goes on line after line, as a model writes it.";
    let answer: String = (1..=96).map(|i| format!("{i}. {paragraph}\n")).collect();
    let chunks: Vec<String> = answer
        .as_bytes()
        .chunks(8)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect();
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let s = Session::new();
    s.mock.enqueue(
        Reply::text(&refs)
            .with_chunk_delay_ms(1)
            .then(Step::Text("\nAll streamed.".into())),
    );
    let pty = s.open_at(&[], 120, 40);
    pty.type_text("stream");
    let before = pty.bytes_written();
    pty.send("\r");
    pty.wait_for("All streamed.", WAIT);
    let written = pty.bytes_written() - before;
    let per_kb = written as f64 / (answer.len() as f64 / 1024.0);
    eprintln!(
        "streamed {} bytes of answer: {written} bytes written to the terminal, {per_kb:.0} per KB",
        answer.len()
    );
    // Every line went into the scrollback once, in order.
    let text = pty.transcript();
    for i in [1, 48, 96] {
        let line = format!("{i}. {paragraph}");
        let copies = text.lines().filter(|l| l.trim_end() == line).count();
        assert_eq!(copies, 1, "{text}");
    }
    leave(pty);
}

#[test]
fn bang_output_is_shown_whole() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        let config = s.user_config() + "\n[sandbox]\nbash = \"off\"\n";
        std::fs::write(s.env.home().join("config.toml"), config).unwrap();
        let pty = s.open_at(&[], cols, rows);
        pty.type_text("!printf 'out-%s\\n' one two three; exit 2");
        pty.send("\r");
        let text = pty.wait_for("out-three", WAIT);
        assert!(text.contains("out-two"), "{text}");
        let header = text.lines().find(|l| l.contains("!bash")).expect(&text);
        assert!(header.starts_with("✗"), "exit 2 is a failure: {text}");
        leave(pty);
    }
}

/// Narrowing the terminal keeps every line already on screen (ratatui's own resize clears the
/// whole screen on a horizontal shrink, erasing the visible part of the transcript) and leaves
/// no copy of the live area behind, while an answer streams and after it.
#[test]
fn resizing_keeps_the_transcript_and_leaves_no_fragments() {
    for (cols, rows) in SIZES {
        let s = Session::new();
        let filler: String = (1..rows).map(|i| format!("kept line {i:02}\n")).collect();
        s.mock.enqueue(Reply::text(&[&filler]));
        s.mock.enqueue(
            Reply::text(&["streaming ", "while ", "the terminal ", "changes size."])
                .with_chunk_delay_ms(150),
        );
        let pty = s.open_at(&[], cols, rows);
        pty.type_text("fill the screen");
        pty.send("\r");
        pty.wait_for(&format!("kept line {:02}", rows - 1), WAIT);
        std::thread::sleep(Duration::from_millis(300));
        pty.type_text("then stream");
        pty.send("\r");
        pty.wait_for("streaming", WAIT);
        pty.resize(cols - 20, rows - 5);
        std::thread::sleep(Duration::from_millis(200));
        pty.resize(cols - 30, rows);
        std::thread::sleep(Duration::from_millis(200));
        pty.resize(cols, rows);
        pty.wait_for("changes size.", WAIT);
        std::thread::sleep(Duration::from_millis(400));
        let text = pty.transcript();
        for i in 1..rows {
            let line = format!("kept line {i:02}");
            assert_eq!(
                text.matches(&line).count(),
                1,
                "`{line}` at {cols}x{rows}:\n{text}"
            );
        }
        let status = text
            .lines()
            .filter(|l| l.contains("mock-model") && l.contains("ctx"))
            .count();
        assert_eq!(status, 1, "stale status lines at {cols}x{rows}:\n{text}");
        leave(pty);
    }
}
