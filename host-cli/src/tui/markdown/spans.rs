//! Span building shared by the transcript renderers: every piece of outside text becomes a
//! `Span` here, escaped, with tabs expanded; plus a span-aware wrapper for laid-out blocks
//! (tables, expanded tool output).

use crate::tui::text;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Columns between tab stops.
pub const TAB: usize = 4;

/// Tabs replaced by spaces up to the next stop (measured from the start of `s`).
pub fn expand_tabs(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\t') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut col = 0;
    for c in s.chars() {
        if c == '\t' {
            let n = TAB - col % TAB;
            out.extend(std::iter::repeat_n(' ', n));
            col += n;
        } else {
            out.push(c);
            col += c.width().unwrap_or(0);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Outside text as one span: tabs expanded, then controls, newlines and invisible characters
/// escaped (`text::safe_prose`: the zero-width joiners of emoji and scripts stay), so nothing
/// raw reaches the terminal.
pub fn safe_span(s: &str, style: Style) -> Span<'static> {
    let expanded = expand_tabs(s);
    Span::styled(text::safe_prose(&expanded).into_owned(), style)
}

/// Display width of a sequence of spans.
pub fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| text::width(&s.content)).sum()
}

/// `spans` cut into rows of at most `width` columns, breaking after the last space when a
/// row overflows (else mid-word). Stops after `max_rows` rows; the second value says whether
/// something was left over. Spans must already be safe (no tabs or controls).
pub fn wrap(spans: &[Span<'static>], width: usize, max_rows: usize) -> (Vec<Line<'static>>, bool) {
    let width = width.max(1);
    let mut rows: Vec<Vec<(char, Style)>> = Vec::new();
    let mut row: Vec<(char, Style)> = Vec::new();
    let mut used = 0;
    let mut cut = false;
    'outer: for span in spans {
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && !row.is_empty() {
                if rows.len() + 1 >= max_rows.max(1) {
                    rows.push(std::mem::take(&mut row));
                    cut = true;
                    break 'outer;
                }
                let carry = match row.iter().rposition(|(ch, _)| *ch == ' ') {
                    Some(at) if at > 0 && c != ' ' => {
                        let rest = row.split_off(at + 1);
                        row.pop();
                        rest
                    }
                    _ => Vec::new(),
                };
                rows.push(std::mem::replace(&mut row, carry));
                used = row.iter().map(|(ch, _)| ch.width().unwrap_or(0)).sum();
                if c == ' ' {
                    continue;
                }
            }
            row.push((c, span.style));
            used += w;
        }
    }
    if !cut && (!row.is_empty() || rows.is_empty()) {
        rows.push(row);
    }
    let lines = rows.into_iter().map(|r| Line::from(group(r))).collect();
    (lines, cut)
}

/// Runs of characters with the same style as spans.
fn group(chars: Vec<(char, Style)>) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut buf = String::new();
    let mut style = None;
    for (c, s) in chars {
        if style.is_some_and(|cur| cur != s) {
            spans.push(Span::styled(
                std::mem::take(&mut buf),
                style.unwrap_or_default(),
            ));
        }
        style = Some(s);
        buf.push(c);
    }
    if let Some(s) = style {
        spans.push(Span::styled(buf, s));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn tabs_expand_to_stops_and_controls_are_escaped() {
        assert_eq!(expand_tabs("a\tb\t\tc"), "a   b       c");
        assert_eq!(
            safe_span("x\x1b[2Jy", Style::default()).content,
            "x\\x1b[2Jy"
        );
    }

    #[test]
    fn wraps_at_spaces_and_caps_rows() {
        let spans = vec![Span::raw("hello brave new world")];
        let (lines, cut) = wrap(&spans, 11, 10);
        let texts: Vec<String> = lines.iter().map(text_of).collect();
        assert_eq!(texts, ["hello brave", "new world"]);
        assert!(!cut);
        let (lines, cut) = wrap(&[Span::raw("abcdefghij")], 3, 2);
        assert_eq!(
            lines.iter().map(text_of).collect::<Vec<_>>(),
            ["abc", "def"]
        );
        assert!(cut);
    }
}
