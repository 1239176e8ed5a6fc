//! Wrapping styled lines to the terminal width, by display columns (wide characters count
//! two), breaking at spaces where a word fits, else inside the word.

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
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0usize;
    // (span index in `current`, byte offset) of the last space on the current row.
    let mut last_space: Option<(usize, usize)> = None;
    let push_row = |spans: Vec<Span<'static>>, out: &mut Vec<Line<'static>>| {
        let mut row = Line::from(spans).style(style);
        row.alignment = alignment;
        out.push(row);
    };
    for span in line.spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && used > 0 {
                // Break: at the last space when there is one on this row, else here.
                current.push(Span::styled(std::mem::take(&mut text), span.style));
                let carry = match last_space {
                    Some((index, offset)) => split_at_space(&mut current, index, offset),
                    None => Vec::new(),
                };
                push_row(std::mem::take(&mut current), out);
                used = carry.iter().map(|s| s.width()).sum();
                current = carry;
                last_space = None;
            }
            if c == ' ' {
                last_space = Some((current.len(), text.len()));
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

/// Cut `row` after the space at (`index`, `offset`); return what follows it.
fn split_at_space(row: &mut Vec<Span<'static>>, index: usize, offset: usize) -> Vec<Span<'static>> {
    let mut carry = row.split_off(index.min(row.len()));
    if let Some(first) = carry.first_mut() {
        let content = first.content.to_string();
        let (head, tail) = content.split_at((offset + 1).min(content.len()));
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
    fn keeps_span_styles_across_breaks() {
        use ratatui::style::Style;
        let bold = Style::default().add_modifier(ratatui::style::Modifier::BOLD);
        let line = Line::from(vec![Span::raw("aa "), Span::styled("bbbb cc", bold)]);
        let wrapped = wrap_lines(vec![line], 6);
        assert_eq!(texts(&wrapped), ["aa ", "bbbb ", "cc"]);
        assert_eq!(wrapped[2].spans[0].style, bold);
    }
}
