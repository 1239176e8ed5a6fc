#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::tui::theme::ColorLevel;
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::widgets::{Paragraph, Wrap};

fn plain() -> Theme {
    Theme::new(ColorLevel::None)
}

fn texts(lines: &[Line<'_>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

#[test]
fn a_line_is_committed_when_its_newline_arrives() {
    let mut s = MarkdownStream::new(plain(), 80);
    assert!(s.push("# Tit").is_empty());
    assert_eq!(texts(&s.pending()), ["Tit"]);
    assert!(s.push("le").is_empty());
    assert_eq!(texts(&s.push("\nSome ")), ["Title"]);
    assert!(s.push("text").is_empty());
    assert_eq!(texts(&s.push("\n\n- item\n")), ["Some text", "", "• item"]);
    assert!(s.pending().is_empty());
    assert!(s.finish().is_empty());
}

#[test]
fn an_open_table_is_held_until_it_ends() {
    let mut s = MarkdownStream::new(plain(), 80);
    assert!(
        s.push("| a | b |\n").is_empty(),
        "a pipe line waits for the next"
    );
    assert!(s.push("|---|--:|\n").is_empty());
    assert!(s.push("| 1 | 2 |\n| long | 3 |\n").is_empty());
    // The live view shows the table so far.
    assert_eq!(texts(&s.pending())[1], "│ a    │ b │");
    let done = s.push("\nafter\n");
    assert_eq!(
        texts(&done),
        [
            "┌──────┬───┐",
            "│ a    │ b │",
            "├──────┼───┤",
            "│ 1    │ 2 │",
            "│ long │ 3 │",
            "└──────┴───┘",
            "",
            "after",
        ]
    );
    // A line without a pipe ends the table too.
    let mut s = MarkdownStream::new(plain(), 80);
    assert!(s.push("| a |\n|---|\n| 1 |\n").is_empty());
    assert_eq!(
        texts(&s.push("text\n")),
        ["┌───┐", "│ a │", "├───┤", "│ 1 │", "└───┘", "text"]
    );
    // A pipe line that is not a table header is released as text with the next line.
    let mut s = MarkdownStream::new(plain(), 80);
    assert!(s.push("a | b in prose\n").is_empty());
    assert_eq!(texts(&s.push("next\n")), ["a | b in prose", "next"]);
}

#[test]
fn code_lines_commit_as_they_complete_and_an_unclosed_fence_is_closed() {
    let mut s = MarkdownStream::new(plain(), 80);
    assert_eq!(texts(&s.push("```py\n")), ["```py"]);
    assert!(s.push("x = 1").is_empty());
    assert_eq!(
        texts(&s.pending()),
        ["x = 1"],
        "no closing fence while open"
    );
    assert_eq!(
        texts(&s.push("\n# not a heading\n")),
        ["x = 1", "# not a heading"]
    );
    assert_eq!(texts(&s.finish()), ["```"]);
    // In a list item, the code is indented with the item's text.
    let lines = render("1. Run:\n   ```sh\n   make\n   ```\n2. Done\n", plain(), 80);
    assert_eq!(
        texts(&lines),
        ["1. Run:", "   ```sh", "   make", "   ```", "2. Done"]
    );
}

#[test]
fn highlighted_code_streams_line_by_line_like_the_whole_block() {
    crate::tui::highlight::load_now();
    let theme = Theme::new(ColorLevel::Full);
    let doc = "```rust\n/* multi\nline */\nfn main() { let s = \"x\"; }\n```\n";
    let whole = render(doc, theme, 80);
    let mut s = MarkdownStream::new(theme, 80);
    let mut streamed = Vec::new();
    for c in doc.chars() {
        streamed.extend(s.push(&c.to_string()));
    }
    streamed.extend(s.finish());
    assert_eq!(streamed, whole);
    assert!(
        whole[2].spans.iter().any(|s| s.style.fg.is_some()),
        "{:?}",
        whole[2]
    );
}

#[test]
fn lists_nest_and_keep_their_numbers() {
    let doc = "- a\n  - b\n    - c\n      more of c\n- [x] done\n- [ ] todo\n\n3. three\n4) four\nlazy\n\nafter\n";
    assert_eq!(
        texts(&render(doc, plain(), 80)),
        [
            "• a",
            "  ◦ b",
            "    ▪ c",
            "      more of c",
            "• [x] done",
            "• [ ] todo",
            "",
            "3. three",
            "4) four",
            "   lazy",
            "",
            "after",
        ]
    );
}

#[test]
fn blocks_render() {
    let doc = "\n\nIntro with `code`, **bold** and [a link](https://x.y).\n\n\n> quoted *text*\n> - item\n\n---\n\n    indented code\n### Small\n";
    assert_eq!(
        texts(&render(doc, plain(), 10)),
        [
            "Intro with code, bold and a link (https://x.y).",
            "",
            "│ quoted text",
            "│ • item",
            "",
            "──────────",
            "",
            "    indented code",
            "Small",
        ]
    );
}

#[test]
fn escape_sequences_never_reach_a_span() {
    let doc = "# \x1b[2Jtitle\npara \x1b]0;pwn\x07 [l](http://x/\x1b) `\x1b`\n- \u{202e}item\r\n| \x1b | b |\n|---|---|\n| \u{9b} | x |\n\n```sh\necho \x1b[31m\n```\n";
    for theme in [plain(), Theme::new(ColorLevel::Full)] {
        crate::tui::highlight::load_now();
        let mut s = MarkdownStream::new(theme, 80);
        let mut lines = s.push(doc);
        lines.extend(s.pending());
        lines.extend(s.finish());
        let all = texts(&lines).join("\n");
        assert!(all.contains("\\x1b[2Jtitle"), "{all}");
        for span in lines.iter().flat_map(|l| l.spans.iter()) {
            assert!(
                !span
                    .content
                    .chars()
                    .any(|c| c.is_control() || c == '\u{202e}'),
                "{span:?}"
            );
        }
    }
}

#[test]
fn no_color_means_no_colours() {
    crate::tui::highlight::load_now();
    let doc = "# T\n*a* `b` [c](d)\n- [x] e\n> f\n| g | h |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn x() {}\n```\n---\n";
    for span in render(doc, plain(), 80).iter().flat_map(|l| l.spans.iter()) {
        assert!(
            span.style.fg.is_none() && span.style.bg.is_none(),
            "{span:?}"
        );
    }
    // and with colours, there are some
    let coloured = render(doc, Theme::new(ColorLevel::Ansi16), 80);
    assert!(
        coloured
            .iter()
            .flat_map(|l| l.spans.iter())
            .any(|s| s.style.fg.is_some())
    );
}

const STREAM: &str = "# Fixing the parser\n\nThe bug is in `parse_line`: it reads past the **end** of the buffer. See [the issue](https://example.com/i/42).\n\n1. Check the bounds\n2. Add a test\n   - [x] unit\n   - [ ] property\n\n| Case | Before | After |\n|:-----|:------:|------:|\n| empty | panic | ok |\n| one line | ok | ok |\n\n```rust\nfn parse_line(buf: &[u8]) -> Option<&[u8]> {\n    // stop at the end\n    let end = buf.iter().position(|b| *b == b'\\n')?;\n    Some(&buf[..end";

fn frame(w: u16, h: u16) -> String {
    crate::tui::highlight::load_now();
    let mut s = MarkdownStream::new(Theme::new(ColorLevel::Ansi16), w);
    let mut lines = Vec::new();
    for chunk in STREAM.as_bytes().chunks(7) {
        lines.extend(s.push(std::str::from_utf8(chunk).unwrap()));
    }
    lines.extend(s.pending());
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), f.area()))
        .unwrap();
    format!("{}", terminal.backend())
}

#[test]
fn streaming_open_code_block_80x24() {
    shared_snapshot(|| insta::assert_snapshot!(frame(80, 24)));
}

#[test]
fn streaming_open_code_block_120x40() {
    shared_snapshot(|| insta::assert_snapshot!(frame(120, 40)));
}

/// Markdown-ish text: the constructs whose boundaries the stream decides.
fn markdownish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\n".to_string()),
        Just("\n\n".to_string()),
        Just("\r\n".to_string()),
        Just("# ".to_string()),
        Just("### ".to_string()),
        Just("- ".to_string()),
        Just("  - ".to_string()),
        Just("1. ".to_string()),
        Just("    ".to_string()),
        Just("\t".to_string()),
        Just("> ".to_string()),
        Just("```".to_string()),
        Just("```rust\n".to_string()),
        Just("~~~\n".to_string()),
        Just("|".to_string()),
        Just("| a | b |\n".to_string()),
        Just("|---|:-:|\n".to_string()),
        Just("---\n".to_string()),
        Just("[x] ".to_string()),
        Just("*".to_string()),
        Just("**".to_string()),
        Just("`".to_string()),
        Just("[l](u)".to_string()),
        Just("\x1b[2J".to_string()),
        Just("é日本".to_string()),
        "[a-z ]{1,8}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn any_chunking_commits_what_rendering_at_once_does(
        doc in markdownish(),
        cuts in prop::collection::vec(0usize..400, 0..12),
    ) {
        let whole = render(&doc, plain(), 40);
        let mut bounds: Vec<usize> = cuts
            .into_iter()
            .map(|c| c % (doc.len() + 1))
            .filter(|c| doc.is_char_boundary(*c))
            .collect();
        bounds.push(0);
        bounds.push(doc.len());
        bounds.sort_unstable();
        bounds.dedup();
        let mut s = MarkdownStream::new(plain(), 40);
        let mut streamed = Vec::new();
        for pair in bounds.windows(2) {
            streamed.extend(s.push(&doc[pair[0]..pair[1]]));
            // The provisional view never fails and never shows raw controls.
            for span in s.pending().iter().flat_map(|l| l.spans.iter()) {
                prop_assert!(!span.content.chars().any(char::is_control));
            }
        }
        streamed.extend(s.finish());
        prop_assert_eq!(&streamed, &whole);
        for span in whole.iter().flat_map(|l| l.spans.iter()) {
            prop_assert!(!span.content.chars().any(char::is_control), "{:?}", span);
        }
    }
}

/// Snapshots live with the other TUI snapshots in `tui/snapshots/`.
fn shared_snapshot(check: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.bind(check);
}

#[test]
fn a_cut_off_last_line_is_rendered_like_any_other() {
    // A cancelled turn ends the stream mid-line: the partial line is Markdown too.
    let mut stream = MarkdownStream::new(plain(), 80);
    stream.push("Intro\n- an item with **bold** and `code`");
    let out = texts(&stream.finish());
    assert_eq!(
        out.last().map(String::as_str),
        Some("• an item with bold and code"),
        "{out:?}"
    );
    let mut stream = MarkdownStream::new(plain(), 80);
    stream.push("## Head\n| a | b |");
    let out = texts(&stream.finish());
    assert!(!out.iter().any(|l| l.contains("**")), "{out:?}");
}

#[test]
fn a_long_open_line_is_shown_by_its_lead_and_its_tail() {
    let mut stream = MarkdownStream::new(plain(), 80);
    let words: String = (0..2000).map(|i| format!("w{i} ")).collect();
    stream.push(&format!("> - {words}"));
    let shown = texts(&stream.pending_within(400));
    assert_eq!(shown.len(), 1, "{shown:?}");
    let line = &shown[0];
    // The quote bar and the list marker survive; the end is the end.
    assert!(line.starts_with("│ • w0 w1 "), "{line}");
    assert!(line.contains(" … "), "{line}");
    assert!(line.trim_end().ends_with("w1999"), "{line}");
    assert!(line.chars().count() < 460, "{}", line.chars().count());
    // Short enough: as it is.
    assert_eq!(
        texts(&stream.pending_within(usize::MAX)),
        texts(&stream.pending())
    );
    let mut short = MarkdownStream::new(plain(), 80);
    short.push("just this");
    assert_eq!(texts(&short.pending_within(20)), ["just this"]);
}

#[test]
fn a_long_open_line_of_wide_glyphs_is_cut_by_columns() {
    let mut stream = MarkdownStream::new(plain(), 80);
    stream.push(&"中文字符".repeat(500));
    let line = texts(&stream.pending_within(100)).join("");
    use unicode_width::UnicodeWidthStr;
    let width = line.width();
    assert!((100..=160).contains(&width), "{width}: {line}");
    assert!(line.ends_with("中文字符"), "{line}");
}

proptest! {
    #[test]
    fn shortening_never_panics(text in "\\PC{0,300}", columns in 1usize..120) {
        let mut stream = MarkdownStream::new(plain(), 80);
        stream.push(&text);
        let _ = stream.pending_within(columns);
    }

    /// A long open line is cut to about `columns`: its lead (24 characters, at most two
    /// columns each), ` … `, and its tail (which starts at most 32 characters later).
    #[test]
    fn a_shortened_line_is_bounded_by_its_budget(text in "[ -~中文]{0,400}", columns in 1usize..120) {
        use unicode_width::UnicodeWidthStr;
        let mut stream = MarkdownStream::new(plain(), 80);
        stream.push(&text);
        let shown: usize = texts(&stream.pending_within(columns)).iter().map(|l| l.width()).sum();
        // Lead 48, ` … ` 3, a wide glyph straddling the cut 2, and slack for markers.
        prop_assert!(shown <= columns + 60, "{shown} columns for a budget of {columns}");
    }
}

#[test]
fn live_rows_follow_every_change_of_the_stream() {
    let mut stream = MarkdownStream::new(plain(), 80);
    stream.push("one two");
    assert_eq!(texts(&stream.live_rows(80, 6, 12)), ["one two"]);
    // Asked again without a change: the same rows (from the cache).
    assert_eq!(texts(&stream.live_rows(80, 6, 12)), ["one two"]);
    stream.push(" three");
    assert_eq!(texts(&stream.live_rows(80, 6, 12)), ["one two three"]);
    // Another width, or fewer rows: computed again.
    assert_eq!(texts(&stream.live_rows(8, 6, 12)), ["one two ", "three"]);
    assert_eq!(texts(&stream.live_rows(8, 6, 1)), ["three"]);
    stream.push("\n");
    assert!(stream.live_rows(8, 6, 12).is_empty());
    stream.push("four");
    let _ = stream.finish();
    assert!(
        stream.live_rows(8, 6, 12).is_empty(),
        "finish empties the live rows"
    );
}
