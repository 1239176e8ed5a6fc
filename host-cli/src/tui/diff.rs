//! A proposed or applied change to files, as a coloured unified diff: per file a header (kind,
//! path, +added −removed), hunks with three lines of context and line numbers. Binary and very
//! large contents are summarised; the whole is capped at `max_lines` with a note.

use super::markdown::spans::{expand_tabs, safe_span};
use super::text;
use super::theme::Theme;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use reasonix_core::types::{ChangeKind, FileChange};
use reasonix_i18n::t;
use similar::{ChangeTag, TextDiff};
use std::time::Duration;

/// Above this many bytes (old + new) a file's change is summarised, not diffed.
const HUGE: usize = 1 << 20;
const CONTEXT: usize = 3;
/// Past this, similar approximates (a less minimal diff) instead of running on: two unrelated
/// 10,000-line files cost O(N·D) otherwise.
const TIME_LIMIT: Duration = Duration::from_millis(200);

fn line_diff<'a>(old: &'a str, new: &'a str) -> TextDiff<'a, 'a, 'a, str> {
    TextDiff::configure()
        .timeout(TIME_LIMIT)
        .diff_lines(old, new)
}

/// Lines added and removed by `change` (whole-file line counts when it is too large to diff).
pub fn counts(change: &FileChange) -> (usize, usize) {
    let old = change.old_text.as_deref().unwrap_or("");
    let new = change.new_text.as_deref().unwrap_or("");
    if old.len() + new.len() > HUGE {
        return (count_lines(new), count_lines(old));
    }
    tally(&line_diff(old, new))
}

fn tally<'a>(diff: &TextDiff<'a, 'a, 'a, str>) -> (usize, usize) {
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    (added, removed)
}

/// Lines of output, at most `max`; the rest only counted.
struct Sink {
    out: Vec<Line<'static>>,
    max: usize,
    hidden: usize,
}

impl Sink {
    fn push(&mut self, make: impl FnOnce() -> Line<'static>) {
        if self.out.len() < self.max {
            self.out.push(make());
        } else {
            self.hidden += 1;
        }
    }
}

/// `changes` as diff lines fitted to `width` columns, at most `max_lines` of them (the last
/// one then says how many more there are).
pub fn render(
    changes: &[FileChange],
    theme: Theme,
    width: u16,
    max_lines: usize,
) -> Vec<Line<'static>> {
    let mut sink = Sink {
        out: Vec::new(),
        max: max_lines.max(1),
        hidden: 0,
    };
    for change in changes {
        file(change, theme, usize::from(width).max(20), &mut sink);
    }
    if sink.hidden > 0 {
        sink.out.pop();
        let more = sink.hidden + 1;
        sink.out.push(Line::from(Span::styled(
            t!("diff-more", more = more),
            theme.dim(),
        )));
    }
    sink.out
}

fn count_lines(s: &str) -> usize {
    if s.is_empty() {
        return 0;
    }
    s.bytes().filter(|b| *b == b'\n').count() + usize::from(!s.ends_with('\n'))
}

fn file(change: &FileChange, theme: Theme, width: usize, sink: &mut Sink) {
    let old = change.old_text.as_deref().unwrap_or("");
    let new = change.new_text.as_deref().unwrap_or("");
    let (word, word_style) = match change.kind {
        ChangeKind::Create => (t!("diff-created"), theme.added()),
        ChangeKind::Modify => (t!("diff-modified"), theme.accent()),
        ChangeKind::Delete => (t!("diff-deleted"), theme.removed()),
    };
    let header = |added: Option<usize>, removed: Option<usize>| {
        let mut spans = vec![
            Span::styled(format!("{word} "), word_style.add_modifier(Modifier::BOLD)),
            safe_span(&change.path, theme.plain().add_modifier(Modifier::BOLD)),
        ];
        if let Some(a) = added.filter(|a| *a > 0) {
            spans.push(Span::styled(format!(" +{a}"), theme.added()));
        }
        if let Some(r) = removed.filter(|r| *r > 0) {
            spans.push(Span::styled(format!(" −{r}"), theme.removed()));
        }
        Line::from(spans)
    };
    if old.contains('\0') || new.contains('\0') {
        sink.push(|| header(None, None));
        sink.push(|| note(t!("diff-binary", old = old.len(), new = new.len()), theme));
        return;
    }
    if old.len() + new.len() > HUGE {
        let (o, n) = (count_lines(old), count_lines(new));
        sink.push(|| header(None, None));
        sink.push(|| note(t!("diff-too-large", old = o, new = n), theme));
        return;
    }
    let diff = line_diff(old, new);
    let (added, removed) = tally(&diff);
    sink.push(|| header(Some(added), Some(removed)));
    let digits = count_lines(old)
        .max(count_lines(new))
        .max(1)
        .to_string()
        .len();
    for (i, group) in diff.grouped_ops(CONTEXT).iter().enumerate() {
        if i > 0 {
            sink.push(|| Line::from(Span::styled(format!("{:>digits$} ⋮", ""), theme.dim())));
        }
        for op in group {
            for change in diff.iter_changes(op) {
                sink.push(|| {
                    let (sign, style, number) = match change.tag() {
                        ChangeTag::Insert => ("+", theme.added(), change.new_index()),
                        ChangeTag::Delete => ("-", theme.removed(), change.old_index()),
                        ChangeTag::Equal => (" ", theme.plain(), change.new_index()),
                    };
                    let number = number.map_or(String::new(), |n| (n + 1).to_string());
                    let value = change.value();
                    let value = value.strip_suffix('\n').unwrap_or(value);
                    let value = value.strip_suffix('\r').unwrap_or(value);
                    row(&number, digits, sign, value, style, width, theme)
                });
            }
        }
    }
}

fn row(
    number: &str,
    digits: usize,
    sign: &str,
    value: &str,
    style: Style,
    width: usize,
    theme: Theme,
) -> Line<'static> {
    let room = width.saturating_sub(digits + 3);
    // Bounded before escaping: a 5 MB minified line costs no more than a short one.
    let mut end = value.len().min(room.saturating_mul(4) + 4);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    let shown = expand_tabs(&value[..end]);
    let shown = text::safe_line(&shown);
    let shown = text::truncate(&shown, room);
    let cut = end < value.len() && !shown.ends_with('…');
    let mut spans = vec![
        Span::styled(format!("{number:>digits$} "), theme.dim()),
        Span::styled(format!("{sign} "), style),
        Span::styled(shown.into_owned(), style),
    ];
    if cut {
        spans.push(Span::styled("…", theme.dim()));
    }
    Line::from(spans)
}

fn note(s: String, theme: Theme) -> Line<'static> {
    Line::from(Span::styled(format!("  {s}"), theme.dim()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorLevel;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::widgets::Paragraph;

    fn change(kind: ChangeKind, path: &str, old: Option<&str>, new: Option<&str>) -> FileChange {
        FileChange {
            path: path.to_string(),
            kind,
            old_text: old.map(String::from),
            new_text: new.map(String::from),
        }
    }

    fn sample() -> Vec<FileChange> {
        let old: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 5\n", "line five\n")
            .replace("line 20\n", "line 20\nadded after 20\n")
            .replace("line 28\n", "");
        vec![
            change(ChangeKind::Modify, "src/lib.rs", Some(&old), Some(&new)),
            change(
                ChangeKind::Create,
                "notes/todo.md",
                None,
                Some("# Todo\n\n- [ ] tabs\there\n"),
            ),
            change(
                ChangeKind::Delete,
                "old.txt",
                Some("bye\n\x1b[31mred\n"),
                None,
            ),
        ]
    }

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    fn draw(w: u16, h: u16) -> String {
        let lines = render(&sample(), Theme::new(ColorLevel::Ansi16), w, usize::from(h));
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| f.render_widget(Paragraph::new(lines), f.area()))
            .unwrap();
        format!("{}", terminal.backend())
    }

    #[test]
    fn diff_snapshot_80x24() {
        insta::assert_snapshot!(draw(80, 24));
    }

    #[test]
    fn diff_snapshot_120x40() {
        insta::assert_snapshot!(draw(120, 40));
    }

    #[test]
    fn counts_hunks_and_escapes() {
        let lines = render(&sample(), Theme::new(ColorLevel::Ansi16), 80, 1000);
        let t = texts(&lines);
        assert_eq!(t[0], "modified src/lib.rs +2 −2");
        assert!(
            t.contains(&"created notes/todo.md +3".to_string()),
            "{t:#?}"
        );
        assert!(t.contains(&"deleted old.txt −2".to_string()), "{t:#?}");
        assert!(t.iter().any(|l| l.contains("\\x1b[31mred")));
        assert!(t.iter().all(|l| !l.contains('\x1b') && !l.contains('\t')));
        // Line numbers of the new file on context and added lines, of the old on removed.
        assert!(t.contains(&" 5 - line 5".to_string()), "{t:#?}");
        assert!(t.contains(&" 5 + line five".to_string()), "{t:#?}");
        assert!(t.contains(&"21 + added after 20".to_string()), "{t:#?}");
        // Three lines of context: line 1 is outside the first hunk, line 2 inside.
        assert!(!t.contains(&" 1   line 1".to_string()));
        assert!(t.contains(&" 2   line 2".to_string()));
        let added = lines[0].spans.iter().find(|s| s.content == " +2").unwrap();
        assert_eq!(added.style, Theme::new(ColorLevel::Ansi16).added());
    }

    #[test]
    fn caps_with_a_note_and_summarises_binary_and_huge() {
        let lines = render(&sample(), Theme::new(ColorLevel::None), 80, 6);
        let t = texts(&lines);
        assert_eq!(t.len(), 6);
        let total = render(&sample(), Theme::new(ColorLevel::None), 80, 10_000).len();
        assert_eq!(t[5], format!("… {} more diff lines", total - 5));
        let bin = [change(
            ChangeKind::Modify,
            "a.png",
            Some("\0PNG"),
            Some("\0PNG2"),
        )];
        assert_eq!(
            texts(&render(&bin, Theme::new(ColorLevel::None), 80, 10))[1],
            "  binary: 4 → 5 bytes"
        );
        let big = "x\n".repeat(HUGE);
        let huge = [change(ChangeKind::Create, "big.txt", None, Some(&big))];
        let t = texts(&render(&huge, Theme::new(ColorLevel::None), 80, 10));
        assert_eq!(
            t,
            [
                "created big.txt",
                &format!("  too large to show: 0 → {} lines", HUGE)
            ]
        );
        let long = "y".repeat(5000);
        let one = [change(ChangeKind::Create, "min.js", None, Some(&long))];
        let t = texts(&render(&one, Theme::new(ColorLevel::None), 80, 10));
        assert!(t[1].ends_with('…') && text::width(&t[1]) <= 80, "{t:?}");
    }

    #[test]
    fn no_color_means_no_colours() {
        let lines = render(&sample(), Theme::new(ColorLevel::None), 80, 1000);
        for span in lines.iter().flat_map(|l| l.spans.iter()) {
            assert!(
                span.style.fg.is_none() && span.style.bg.is_none(),
                "{span:?}"
            );
        }
    }
}
