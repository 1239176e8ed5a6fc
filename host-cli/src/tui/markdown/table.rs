//! A GFM table laid out in box-drawing characters, fitted to the width: columns take their
//! natural width, and when the table is too wide the widest columns shrink and their cells
//! wrap.

use super::block::{Align, cells};
use super::inline::inline;
use super::spans::{spans_width, wrap};
use crate::tui::theme::Theme;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

/// Narrowest a column shrinks to (unless its content is narrower).
const MIN_COLUMN: usize = 3;

pub fn render(
    header: &str,
    aligns: &[Align],
    rows: &[String],
    indent: usize,
    width: u16,
    theme: Theme,
) -> Vec<Line<'static>> {
    let columns = aligns.len().max(1);
    let parse = |row: &str, header: bool| -> Vec<Vec<Span<'static>>> {
        let base = if header {
            theme.plain().add_modifier(Modifier::BOLD)
        } else {
            theme.plain()
        };
        let mut cells: Vec<Vec<Span<'static>>> = cells(row)
            .into_iter()
            .take(columns)
            .map(|cell| inline(cell, base, theme))
            .collect();
        cells.resize(columns, Vec::new());
        cells
    };
    let head = parse(header, true);
    let body: Vec<_> = rows.iter().map(|r| parse(r, false)).collect();

    let natural: Vec<usize> = (0..columns)
        .map(|c| {
            std::iter::once(&head)
                .chain(body.iter())
                .map(|row| spans_width(&row[c]))
                .max()
                .unwrap_or(0)
                .max(1)
        })
        .collect();
    let widths = fit(
        &natural,
        (width as usize).saturating_sub(indent + 3 * columns + 1),
    );

    let border = theme.dim();
    let rule = |left: &str, mid: &str, right: &str| -> Line<'static> {
        let mut s = String::from(left);
        for (i, w) in widths.iter().enumerate() {
            s.push_str(&"─".repeat(w + 2));
            s.push_str(if i + 1 == columns { right } else { mid });
        }
        Line::from(vec![Span::raw(" ".repeat(indent)), Span::styled(s, border)])
    };
    let mut out = vec![rule("┌", "┬", "┐")];
    out.extend(row_lines(&head, &widths, aligns, indent, theme));
    out.push(rule("├", "┼", "┤"));
    for row in &body {
        out.extend(row_lines(row, &widths, aligns, indent, theme));
    }
    out.push(rule("└", "┴", "┘"));
    out
}

/// Column widths summing to at most `avail` where possible: the widest shrink first.
fn fit(natural: &[usize], avail: usize) -> Vec<usize> {
    let mut widths = natural.to_vec();
    let mut total: usize = widths.iter().sum();
    while total > avail {
        let widest = widths
            .iter()
            .enumerate()
            .filter(|(i, w)| **w > MIN_COLUMN.min(natural[*i]))
            .max_by_key(|(_, w)| **w)
            .map(|(i, _)| i);
        let Some(i) = widest else { break };
        widths[i] -= 1;
        total -= 1;
    }
    widths
}

fn row_lines(
    cells: &[Vec<Span<'static>>],
    widths: &[usize],
    aligns: &[Align],
    indent: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let wrapped: Vec<Vec<Line<'static>>> = cells
        .iter()
        .zip(widths)
        .map(|(spans, w)| wrap(spans, *w, usize::MAX).0)
        .collect();
    let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
    let border = theme.dim();
    (0..height)
        .map(|r| {
            let mut spans = vec![Span::raw(" ".repeat(indent)), Span::styled("│ ", border)];
            for (c, cell) in wrapped.iter().enumerate() {
                let content = cell.get(r).map(|l| l.spans.clone()).unwrap_or_default();
                let free = widths[c].saturating_sub(spans_width(&content));
                let (before, after) = match aligns.get(c).copied().unwrap_or(Align::Left) {
                    Align::Left => (0, free),
                    Align::Right => (free, 0),
                    Align::Center => (free / 2, free - free / 2),
                };
                if before > 0 {
                    spans.push(Span::raw(" ".repeat(before)));
                }
                spans.extend(content);
                if after > 0 {
                    spans.push(Span::raw(" ".repeat(after)));
                }
                let sep = if c + 1 == wrapped.len() {
                    " │"
                } else {
                    " │ "
                };
                spans.push(Span::styled(sep, border));
            }
            Line::from(spans)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorLevel;

    fn text(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn aligns_and_fits_the_width() {
        let theme = Theme::new(ColorLevel::None);
        let lines = render(
            "| a | b |",
            &[Align::Left, Align::Right],
            &["| long cell | 1 |".to_string()],
            0,
            80,
            theme,
        );
        let texts: Vec<String> = lines.iter().map(text).collect();
        assert_eq!(
            texts,
            [
                "┌───────────┬───┐",
                "│ a         │ b │",
                "├───────────┼───┤",
                "│ long cell │ 1 │",
                "└───────────┴───┘",
            ]
        );
        let narrow = render(
            "| a | b |",
            &[Align::Left, Align::Left],
            &["| one two three four five six | x |".to_string()],
            2,
            20,
            theme,
        );
        for line in &narrow {
            assert!(line.width() <= 20, "{:?}", text(line));
        }
        assert!(narrow.len() > 5, "the long cell wraps");
    }
}
