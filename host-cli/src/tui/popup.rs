//! The small list drawn just above the composer: the slash-command menu and `@` completions.

use crate::tui::mention::Candidate;
use crate::tui::slash::CommandSpec;
use crate::tui::text;
use crate::tui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

/// Rows shown at most; the list scrolls past this.
pub const MAX_ROWS: usize = 8;
/// Widest the name column of the slash menu gets.
const NAME_COLUMN: usize = 30;

/// Rows a popup with `items` entries takes.
pub fn height(items: usize) -> u16 {
    items.min(MAX_ROWS) as u16
}

/// `/name hint` and the description of each command; `selected` highlighted.
pub fn render_slash_menu(
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    items: &[&CommandSpec],
    selected: usize,
) {
    let usage = |c: &CommandSpec| {
        let name = format!("/{}", text::safe_line(&c.name));
        let hint = c
            .argument_hint
            .as_deref()
            .map(|h| format!(" {}", text::safe_line(h)))
            .unwrap_or_default();
        (name, hint)
    };
    let column = items
        .iter()
        .map(|c| {
            let (n, h) = usage(c);
            text::width(&n) + text::width(&h)
        })
        .max()
        .unwrap_or(0)
        .min(NAME_COLUMN);
    let rows: Vec<Line<'static>> = items
        .iter()
        .map(|c| {
            let (name, hint) = usage(c);
            let left = text::truncate(&format!("{name}{hint}"), column).into_owned();
            let name_part: String = left.chars().take(name.chars().count()).collect();
            let hint_part: String = left.chars().skip(name.chars().count()).collect();
            let pad = column.saturating_sub(text::width(&left));
            Line::from(vec![
                Span::styled(name_part, theme.accent()),
                Span::styled(hint_part, theme.dim()),
                Span::raw(" ".repeat(pad + 2)),
                Span::raw(text::safe_line(&c.description).into_owned()),
            ])
        })
        .collect();
    render_rows(area, buf, theme, rows, selected);
}

/// Entry names, directories marked with `/`; `selected` highlighted.
pub fn render_mentions(
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    items: &[Candidate],
    selected: usize,
) {
    let rows = items
        .iter()
        .map(|c| {
            let style = if c.is_dir {
                theme.accent()
            } else {
                theme.plain()
            };
            Line::from(Span::styled(
                text::safe_line(&c.display).into_owned(),
                style,
            ))
        })
        .collect();
    render_rows(area, buf, theme, rows, selected);
}

/// The window of rows that keeps `selected` visible.
fn first_visible(len: usize, visible: usize, selected: usize) -> usize {
    if visible == 0 || selected < visible {
        0
    } else {
        (selected + 1 - visible).min(len.saturating_sub(visible))
    }
}

fn render_rows(
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    rows: Vec<Line<'static>>,
    selected: usize,
) {
    Clear.render(area, buf);
    let visible = area.height as usize;
    let first = first_visible(rows.len(), visible, selected);
    let more_above = first > 0;
    let more_below = first + visible < rows.len();
    for (i, line) in rows.into_iter().enumerate().skip(first).take(visible) {
        let y = area.y + (i - first) as u16;
        let row = Rect::new(area.x, y, area.width, 1);
        let is_selected = i == selected;
        let marker = if is_selected {
            "› "
        } else if more_above && i == first {
            "↑ "
        } else if more_below && i + 1 == first + visible {
            "↓ "
        } else {
            "  "
        };
        let marker_style = if is_selected {
            theme.accent()
        } else {
            theme.dim()
        };
        let mut spans = vec![Span::styled(marker, marker_style)];
        spans.extend(line.spans);
        let line = Line::from(spans);
        let truncated = truncate_line(line, area.width as usize);
        truncated.render(row, buf);
        if is_selected {
            buf.set_style(row, theme.selected());
        }
    }
}

/// A line cut to `max` columns (with `…`), span styles kept.
fn truncate_line(line: Line<'static>, max: usize) -> Line<'static> {
    let total: usize = line.spans.iter().map(|s| text::width(&s.content)).sum();
    if total <= max {
        return line;
    }
    let mut out = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let w = text::width(&span.content);
        if used + w < max {
            used += w;
            out.push(span);
            continue;
        }
        let room = max.saturating_sub(used);
        let cut = text::truncate(&span.content, room).into_owned();
        out.push(Span::styled(cut, span.style));
        break;
    }
    Line::from(out).style(Style::default())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn selected_row_stays_visible() {
        assert_eq!(first_visible(20, 8, 0), 0);
        assert_eq!(first_visible(20, 8, 7), 0);
        assert_eq!(first_visible(20, 8, 8), 1);
        assert_eq!(first_visible(20, 8, 19), 12);
        assert_eq!(height(3), 3);
        assert_eq!(height(30), MAX_ROWS as u16);
    }

    #[test]
    fn long_lines_are_cut_with_an_ellipsis() {
        let line = Line::from(vec![Span::raw("abcdef"), Span::raw("ghij")]);
        let cut = truncate_line(line, 8);
        let s: String = cut.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(s, "abcdefg…");
    }
}
