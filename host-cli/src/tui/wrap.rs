//! Wrapping styled lines to the terminal width, by display columns (wide characters count
//! two), breaking at spaces where a word fits, else inside the word. A line's gutter — its
//! leading indentation, quote bars and list marker — hangs: continuation rows repeat the
//! indentation and bars and pad under the marker, so a wrapped item or quote stays one.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `lines` wrapped to `width` columns; each line's style is carried to its continuations.
pub fn wrap_lines(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        wrap_line(line, width, &mut out);
    }
    out
}

fn wrap_line(line: Line<'static>, width: usize, out: &mut Vec<Line<'static>>) {
    if line.width() <= width {
        out.push(line);
        return;
    }
    let style = line.style;
    let alignment = line.alignment;
    let (hang, gutter) = hanging_prefix(&line.spans, width);
    let hang_width: usize = hang.iter().map(|s| s.width()).sum();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0usize;
    // Where the current row can break last: (span index in `current`, byte offset in that
    // span's text where the next row begins): after a space, or before a CJK character.
    let mut last_break: Option<(usize, usize)> = None;
    let push_row = |spans: Vec<Span<'static>>, out: &mut Vec<Line<'static>>| {
        let mut row = Line::from(spans).style(style);
        row.alignment = alignment;
        out.push(row);
    };
    for (i, span) in line.spans.into_iter().enumerate() {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            // CJK text has no spaces: a row may end before any ideograph (this one included).
            if i >= gutter && breaks_before(c) && used > hang_width {
                last_break = Some((current.len(), text.len()));
            }
            if used + w > width && used > 0 {
                // Break: at the last space when there is one on this row, else here.
                current.push(Span::styled(std::mem::take(&mut text), span.style));
                let mut carry = match last_break {
                    Some((index, offset)) => split_at(&mut current, index, offset),
                    None => Vec::new(),
                };
                // A word too long for a continuation row stays on this one and is cut.
                if carry.iter().map(|s| s.width()).sum::<usize>() + hang_width > width {
                    current.append(&mut carry);
                }
                push_row(std::mem::take(&mut current), out);
                current = hang.clone();
                current.append(&mut carry);
                used = current.iter().map(|s| s.width()).sum();
                last_break = None;
            }
            // Never break inside the gutter: the row would hold nothing but it.
            if c == ' ' && i >= gutter {
                last_break = Some((current.len(), text.len() + 1));
            }
            text.push(c);
            used += w;
        }
        current.push(Span::styled(text, span.style));
    }
    if !current.is_empty() {
        push_row(current, out);
    }
}

/// The spans continuation rows of a line start with: its leading spans of spaces and quote
/// bars as they are, a list marker (`• `, `1. `, `[x] `) as spaces. None when that would take
/// more than half the width (the text would have no room). Also how many leading spans form
/// the gutter.
fn hanging_prefix(spans: &[Span<'static>], width: usize) -> (Vec<Span<'static>>, usize) {
    let mut hang = Vec::new();
    let mut gutter = 0;
    for span in spans {
        let content: &str = &span.content;
        gutter += 1;
        if content.is_empty() {
            continue;
        }
        if content.chars().all(|c| c == ' ' || c == '│') {
            hang.push(span.clone());
        } else if is_marker(content) {
            hang.push(Span::raw(" ".repeat(span.width())));
        } else {
            gutter -= 1;
            break;
        }
    }
    let used: usize = hang.iter().map(|s| s.width()).sum();
    if used * 2 > width {
        (Vec::new(), 0)
    } else {
        (hang, gutter)
    }
}

/// A list item's marker span as the Markdown renderer writes it.
fn is_marker(content: &str) -> bool {
    let Some(mark) = content.strip_suffix(' ') else {
        return false;
    };
    matches!(mark, "•" | "◦" | "▪" | "›" | "[x]" | "[ ]")
        || mark
            .strip_suffix(['.', ')'])
            .is_some_and(|n| !n.is_empty() && n.len() <= 9 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a row may end just before `c`: a wide (CJK) character that is not punctuation
/// closing what comes before it (`，` `。` `）` must not start a row).
fn breaks_before(c: char) -> bool {
    c.width() == Some(2) && !"，。、；：！？）」』】》〉”’…—".contains(c)
}

/// Cut `row` at (`index`, `offset`): the span's text from `offset` on, and the spans after
/// it, are returned.
fn split_at(row: &mut Vec<Span<'static>>, index: usize, offset: usize) -> Vec<Span<'static>> {
    let mut carry = row.split_off(index.min(row.len()));
    if let Some(first) = carry.first_mut() {
        let content = first.content.to_string();
        let (head, tail) = content.split_at(offset.min(content.len()));
        row.push(Span::styled(head.to_string(), first.style));
        *first = Span::styled(tail.to_string(), first.style);
    }
    carry.retain(|s| !s.content.is_empty());
    carry
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_at_spaces_then_inside_words() {
        let wrapped = wrap_lines(vec![Line::from("hello brave new world")], 11);
        assert_eq!(texts(&wrapped), ["hello ", "brave new ", "world"]);
        let wrapped = wrap_lines(vec![Line::from("abcdefghij")], 4);
        assert_eq!(texts(&wrapped), ["abcd", "efgh", "ij"]);
        let wrapped = wrap_lines(vec![Line::from("日本語日本語")], 5);
        assert_eq!(texts(&wrapped), ["日本", "語日", "本語"]);
        for line in &wrapped {
            assert!(line.width() <= 5);
        }
    }

    #[test]
    fn chinese_breaks_between_characters_but_not_before_closing_punctuation() {
        // Without spaces, the row still fills before it breaks.
        let line = Line::from(vec![
            Span::raw("  "),
            Span::raw("/mode  "),
            Span::raw("查看或设置运行模式，以及更多"),
        ]);
        let wrapped = wrap_lines(vec![line], 20);
        assert_eq!(
            texts(&wrapped),
            ["  /mode  查看或设置", "  运行模式，以及更多"]
        );
        let wrapped = wrap_lines(vec![Line::from("你好世界，再见")], 9);
        assert_eq!(texts(&wrapped), ["你好世", "界，再见"]);
        for line in &wrapped {
            assert!(line.width() <= 9);
        }
    }

    #[test]
    fn list_items_and_quotes_hang_under_their_gutter() {
        let item = Line::from(vec![
            Span::raw("  "),
            Span::raw("12. "),
            Span::raw("alpha beta gamma delta"),
        ]);
        assert_eq!(
            texts(&wrap_lines(vec![item], 16)),
            ["  12. alpha ", "      beta ", "      gamma ", "      delta"]
        );
        let quote = Line::from(vec![
            Span::raw("│ │ "),
            Span::raw("• "),
            Span::raw("one two three"),
        ]);
        assert_eq!(
            texts(&wrap_lines(vec![quote], 12)),
            ["│ │ • one ", "│ │   two ", "│ │   three"]
        );
        // Plain text does not hang; a gutter wider than half the width does not either.
        assert_eq!(
            texts(&wrap_lines(vec![Line::from("ab cd")], 3)),
            ["ab ", "cd"]
        );
        let deep = Line::from(vec![Span::raw("        "), Span::raw("x y z")]);
        assert_eq!(texts(&wrap_lines(vec![deep], 10)), ["        x ", "y z"]);
    }

    #[test]
    fn keeps_span_styles_across_breaks() {
        use ratatui::style::Style;
        let bold = Style::default().add_modifier(ratatui::style::Modifier::BOLD);
        let line = Line::from(vec![Span::raw("aa "), Span::styled("bbbb cc", bold)]);
        let wrapped = wrap_lines(vec![line], 6);
        assert_eq!(texts(&wrapped), ["aa ", "bbbb ", "cc"]);
        assert_eq!(wrapped[2].spans[0].style, bold);
    }
}
