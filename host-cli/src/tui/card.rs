//! A tool call in the transcript as a compact card: status, tool, the argument worth showing,
//! duration, and a one-line result; expanded, its arguments, output and diff.
//!
//! Nothing here knows any tool by name: the key argument is found by argument names common to
//! tools (`command`, `path`, …), so plugin tools get the same card.

pub mod outcome;

use super::diff;
use super::markdown::spans::{expand_tabs, safe_span, spans_width, wrap};
use super::text;
use super::theme::Theme;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use reasonix_core::types::FileChange;
use reasonix_i18n::t;
use serde_json::Value;

/// Argument names worth showing, in order of preference.
/// A search's pattern or query comes before its path (the path is usually just its scope).
const KEY_ARGUMENTS: &[&str] = &[
    "command",
    "cmd",
    "pattern",
    "query",
    "url",
    "path",
    "file_path",
    "filePath",
    "file",
    "dir",
    "directory",
];
/// A string argument longer than this is not "short".
const SHORT: usize = 80;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardStatus {
    Running,
    Done,
    Failed,
    /// Refused by the user or a rule; the reason as given.
    Denied(String),
    Cancelled,
}

#[derive(Debug, Clone)]
pub struct ToolCard {
    pub id: String,
    pub name: String,
    /// The raw JSON arguments from the model.
    pub arguments: String,
    pub status: CardStatus,
    pub duration_ms: Option<u64>,
    pub output: Option<String>,
    pub changes: Option<Vec<FileChange>>,
}

impl ToolCard {
    /// A running call.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> ToolCard {
        ToolCard {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            status: CardStatus::Running,
            duration_ms: None,
            output: None,
            changes: None,
        }
    }

    /// The argument worth showing (raw: the renderer escapes it): the first present of the
    /// usual names (`command`, `pattern`, `query`, `url`, `path`, `file_path`, …), else the
    /// first short one-line string argument (in key order).
    pub fn key_argument(&self) -> Option<String> {
        let value: Value = serde_json::from_str(&self.arguments).ok()?;
        let args = value.as_object()?;
        KEY_ARGUMENTS
            .iter()
            .filter_map(|k| args.get(*k))
            .find_map(shown)
            .or_else(|| {
                args.values().find_map(|v| {
                    v.as_str()
                        .filter(|s| !s.is_empty() && s.len() <= SHORT && !s.contains('\n'))
                        .map(String::from)
                })
            })
    }

    fn header(&self, theme: Theme, width: usize) -> Line<'static> {
        let (glyph, style) = match self.status {
            CardStatus::Running => ("●", theme.accent()),
            CardStatus::Done => ("✓", theme.success()),
            CardStatus::Failed => ("✗", theme.error()),
            CardStatus::Denied(_) => ("⊘", theme.warning()),
            CardStatus::Cancelled => ("■", theme.dim()),
        };
        let duration = match (&self.status, self.duration_ms) {
            (CardStatus::Running, _) => format!(" {}", t!("card-running")),
            (_, Some(ms)) => format!(" · {}", format_duration(ms)),
            (_, None) => String::new(),
        };
        let name = text::safe_line(&self.name);
        let name = text::truncate(&name, width.saturating_sub(2).max(1) / 2 + 8);
        let mut spans = vec![
            Span::styled(format!("{glyph} "), style),
            Span::styled(
                name.into_owned(),
                theme.plain().add_modifier(Modifier::BOLD),
            ),
        ];
        let used = spans_width(&spans) + text::width(&duration);
        if let Some(arg) = self.key_argument() {
            let room = width.saturating_sub(used + 1);
            if room >= 4 {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(one_line(&arg, room), theme.plain()));
            }
        }
        spans.push(Span::styled(duration, theme.dim()));
        Line::from(spans)
    }

    /// The header and at most one line of result; every line fits `width`. Cost: one pass
    /// over the output to count its lines, plus the first line.
    pub fn render_collapsed(&self, theme: Theme, width: u16) -> Vec<Line<'static>> {
        let width = usize::from(width).max(20);
        let mut lines = vec![self.header(theme, width)];
        let room = width - 4;
        let result: Option<Vec<Span<'static>>> = match &self.status {
            CardStatus::Running => None,
            CardStatus::Denied(reason) => Some(vec![Span::styled(
                one_line(&denied(reason), room),
                theme.warning(),
            )]),
            CardStatus::Cancelled => Some(vec![Span::styled(t!("card-cancelled"), theme.dim())]),
            CardStatus::Failed => Some(self.output_summary(theme.error(), room, theme)),
            CardStatus::Done => Some(match self.changes.as_deref() {
                Some(changes) if !changes.is_empty() => changes_summary(changes, room, theme),
                _ => self.output_summary(theme.plain(), room, theme),
            }),
        };
        if let Some(result) = result {
            let mut spans = vec![Span::styled("  └ ", theme.dim())];
            spans.extend(result);
            lines.push(Line::from(spans));
        }
        lines
    }

    fn output_summary(&self, style: Style, room: usize, theme: Theme) -> Vec<Span<'static>> {
        let (body, ended) = outcome::split(self.output.as_deref().unwrap_or(""));
        let output = outcome::printed(body);
        let end = match ended {
            Some(outcome::Ended::Exit(0)) | None => None,
            Some(outcome::Ended::Exit(code)) => Some(t!("card-exit-code", code = code)),
            Some(outcome::Ended::Killed(reason)) => Some(t!(
                "card-killed",
                reason = text::safe_line(&reason).into_owned()
            )),
        };
        let total = count_lines(output);
        let Some(first) = output.split('\n').find(|l| !l.trim().is_empty()) else {
            let text = end.unwrap_or_else(|| t!("card-no-output"));
            return vec![Span::styled(one_line(&text, room), theme.dim())];
        };
        let more = match (total > 1, end) {
            (true, Some(end)) => t!("card-extra-lines-end", count = total - 1, end = end),
            (true, None) => t!("card-extra-lines", count = total - 1),
            (false, Some(end)) => t!("card-end", end = end),
            (false, None) => String::new(),
        };
        let room = room.saturating_sub(text::width(&more)).max(4);
        vec![
            Span::styled(one_line(first.trim_end_matches('\r'), room), style),
            Span::styled(more, theme.dim()),
        ]
    }

    /// Header, arguments (one line each), the diff, the output wrapped to `width`; at most
    /// `max_lines` lines in all (at least 4), the last saying how much was left out.
    pub fn render_expanded(
        &self,
        theme: Theme,
        width: u16,
        max_lines: usize,
    ) -> Vec<Line<'static>> {
        let w = usize::from(width).max(20);
        let max = max_lines.max(4);
        let mut lines = vec![self.header(theme, w)];
        // The note line is kept free until the end.
        let mut left = max - 2;

        let args = argument_lines(&self.arguments, theme, w);
        let arg_room = args.len().min(left / 3).max(1).min(left);
        let args_hidden = args.len().saturating_sub(arg_room);
        lines.extend(args.into_iter().take(arg_room));
        left -= arg_room.min(left);

        if let Some(changes) = self.changes.as_deref().filter(|c| !c.is_empty())
            && left > 0
        {
            let room = if self.output.is_some() {
                left - left / 4
            } else {
                left
            };
            let diff = diff::render(changes, theme, width.saturating_sub(2), room.max(1));
            left -= diff.len().min(left);
            lines.extend(diff.into_iter().map(|l| indent(l, 2)));
        }

        let mut hidden = 0;
        match &self.status {
            CardStatus::Denied(reason) => {
                lines.push(Line::from(Span::styled(
                    format!("  {}", one_line(&denied(reason), w - 2)),
                    theme.warning(),
                )));
            }
            CardStatus::Cancelled => lines.push(Line::from(Span::styled(
                format!("  {}", t!("card-cancelled")),
                theme.dim(),
            ))),
            _ => {}
        }
        if matches!(self.status, CardStatus::Denied(_) | CardStatus::Cancelled) {
            left = left.saturating_sub(1);
        }
        if let Some(output) = self.output.as_deref() {
            let style = if self.status == CardStatus::Failed {
                theme.error()
            } else {
                theme.plain()
            };
            let total = count_lines(output);
            let mut shown = 0;
            for source in output.split('\n').take(total) {
                if left == 0 {
                    break;
                }
                let source = source.strip_suffix('\r').unwrap_or(source);
                // Bounded before escaping: only what can be shown is processed.
                let bounded = prefix(source, left.saturating_mul(w) * 4 + 4);
                let span = safe_span(bounded, style);
                let (rows, cut) = wrap(&[span], w - 2, left);
                left -= rows.len();
                lines.extend(rows.into_iter().map(|l| indent(l, 2)));
                if cut || bounded.len() < source.len() {
                    break;
                }
                shown += 1;
            }
            hidden = total - shown;
        }
        if hidden > 0 || args_hidden > 0 {
            let what = if hidden > 0 {
                t!("card-more-lines", count = hidden)
            } else {
                t!("card-more-arguments", count = args_hidden)
            };
            lines.push(Line::from(Span::styled(
                format!("  {}", one_line(&what, w - 2)),
                theme.dim(),
            )));
        }
        lines.truncate(max);
        lines
    }
}

fn denied(reason: &str) -> String {
    if reason.trim().is_empty() {
        t!("card-denied")
    } else {
        t!("card-denied-reason", reason = reason)
    }
}

/// A JSON value as a short one-line string, when it is a string, number, bool or a list of
/// strings (a command as argv).
fn shown(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|i| i.as_str().map(String::from))
            .collect::<Option<Vec<_>>>()
            .map(|parts| parts.join(" ")),
        _ => None,
    }
}

/// Outside text as one escaped line of at most `room` columns; only a bounded prefix is read.
fn one_line(s: &str, room: usize) -> String {
    let first = s.split('\n').next().unwrap_or("");
    let multi = first.len() < s.len();
    let bounded = prefix(first, room.saturating_mul(4) + 4);
    let cut = bounded.len() < first.len() || multi;
    let safe = text::safe_line(&expand_tabs(bounded)).into_owned();
    if cut {
        let mut t = text::truncate(&safe, room.saturating_sub(1)).into_owned();
        if !t.ends_with('…') {
            t.push('…');
        }
        t
    } else {
        text::truncate(&safe, room).into_owned()
    }
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn count_lines(s: &str) -> usize {
    if s.is_empty() {
        return 0;
    }
    s.bytes().filter(|b| *b == b'\n').count() + usize::from(!s.ends_with('\n'))
}

fn indent(mut line: Line<'static>, n: usize) -> Line<'static> {
    line.spans.insert(0, Span::raw(" ".repeat(n)));
    line
}

fn changes_summary(changes: &[FileChange], room: usize, theme: Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let first = &changes[0];
    let (added, removed) = diff::counts(first);
    let counts = format!(" +{added} −{removed}");
    let others = if changes.len() > 1 {
        t!("card-and-more-files", count = changes.len() - 1)
    } else {
        String::new()
    };
    let room = room
        .saturating_sub(text::width(&counts) + text::width(&others))
        .max(4);
    spans.push(Span::styled(one_line(&first.path, room), theme.plain()));
    spans.push(Span::styled(format!(" +{added}"), theme.added()));
    spans.push(Span::styled(format!(" −{removed}"), theme.removed()));
    spans.push(Span::styled(others, theme.dim()));
    spans
}

/// `key: value`, one line per top-level argument.
fn argument_lines(arguments: &str, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let room = width.saturating_sub(2);
    let Ok(Value::Object(args)) = serde_json::from_str::<Value>(arguments) else {
        if arguments.trim().is_empty() {
            return Vec::new();
        }
        return vec![Line::from(vec![
            Span::raw("  "),
            Span::styled(one_line(arguments, room), theme.dim()),
        ])];
    };
    args.iter()
        .map(|(key, value)| {
            let key = one_line(key, room / 2);
            let value_room = room.saturating_sub(text::width(&key) + 2);
            let mut spans = vec![
                Span::raw("  "),
                Span::styled(format!("{key}: "), theme.dim()),
            ];
            match value {
                Value::String(s) => {
                    let lines = count_lines(s);
                    let more = if lines > 1 {
                        t!("card-extra-lines", count = lines - 1)
                    } else {
                        String::new()
                    };
                    let r = value_room.saturating_sub(text::width(&more)).max(4);
                    spans.push(Span::styled(one_line(s, r), theme.plain()));
                    spans.push(Span::styled(more, theme.dim()));
                }
                other => {
                    let compact = other.to_string();
                    spans.push(Span::styled(one_line(&compact, value_room), theme.plain()));
                }
            }
            Line::from(spans)
        })
        .collect()
}

fn format_duration(ms: u64) -> String {
    match ms {
        0..1000 => format!("{ms}ms"),
        1000..60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        _ => format!("{}m {:02}s", ms / 60_000, (ms / 1000) % 60),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
