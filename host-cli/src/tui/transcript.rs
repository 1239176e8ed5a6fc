//! What goes into the scrollback: the user's messages, answers, reasoning, tool cards, and a
//! resumed session's history. The Markdown and card renderers do the work; this module
//! decides what is shown for each kind of entry.

use super::text::{safe, safe_line, truncate};
use super::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_core::types::{FileChange, Message, Role};
use std::time::Instant;

/// Messages of a resumed session shown at most; earlier ones are summarised in one line.
const HISTORY_SHOWN: usize = 200;

/// How a tool call stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardStatus {
    Running,
    Done,
    Failed,
    Denied(String),
    Cancelled,
}

/// One tool call as the transcript shows it.
#[derive(Debug, Clone)]
pub struct Card {
    pub id: String,
    pub name: String,
    pub arguments: String,
    pub status: CardStatus,
    pub started: Instant,
    pub duration_ms: Option<u64>,
    pub output: Option<String>,
    pub changes: Option<Vec<FileChange>>,
}

/// The answer as it streams: complete lines are committed, the open tail stays live.
pub struct LiveAnswer {
    theme: Theme,
    buffer: String,
}

impl LiveAnswer {
    pub fn new(theme: Theme) -> LiveAnswer {
        LiveAnswer {
            theme,
            buffer: String::new(),
        }
    }

    /// Add a delta; the lines that are final now.
    pub fn push(&mut self, delta: &str) -> Vec<Line<'static>> {
        self.buffer.push_str(delta);
        let Some(end) = self.buffer.rfind('\n') else {
            return Vec::new();
        };
        let done: String = self.buffer.drain(..=end).collect();
        render_plain(&done, self.theme)
    }

    /// The open tail, for the live area.
    pub fn pending(&self) -> Vec<Line<'static>> {
        render_plain(&self.buffer, self.theme)
    }

    /// Everything left, at the end of the answer.
    pub fn finish(&mut self) -> Vec<Line<'static>> {
        let rest = std::mem::take(&mut self.buffer);
        render_plain(&rest, self.theme)
    }
}

fn render_plain(text: &str, _theme: Theme) -> Vec<Line<'static>> {
    if text.is_empty() {
        return Vec::new();
    }
    safe(text.trim_end_matches('\n'))
        .split('\n')
        .map(|l| Line::from(l.replace('\t', "    ")))
        .collect()
}

pub fn user_lines(text: &str, theme: Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::default()];
    for (i, line) in safe(text).split('\n').enumerate() {
        let marker = if i == 0 { "› " } else { "  " };
        lines.push(Line::from(vec![
            Span::styled(marker, theme.accent()),
            Span::styled(line.replace('\t', "    "), theme.heading()),
        ]));
    }
    lines
}

pub fn reasoning_lines(text: &str, verbose: bool, theme: Theme) -> Vec<Line<'static>> {
    let text = safe(text.trim());
    if verbose {
        return text
            .split('\n')
            .map(|l| Line::from(Span::styled(format!("  {l}"), theme.dim())))
            .collect();
    }
    let count = text.split('\n').count();
    let first = text.split('\n').next().unwrap_or_default();
    vec![Line::from(Span::styled(
        format!(
            "  ∴ {} ({count} lines of reasoning, Ctrl+O shows them)",
            truncate(first, 60)
        ),
        theme.dim(),
    ))]
}

/// The argument worth showing on a card's header.
pub fn key_argument(arguments: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(arguments).ok()?;
    let object = value.as_object()?;
    for key in ["command", "path", "file_path", "pattern", "url", "query"] {
        if let Some(text) = object.get(key).and_then(|v| v.as_str()) {
            return Some(text.to_string());
        }
    }
    object
        .values()
        .find_map(|v| v.as_str().filter(|s| s.len() <= 200).map(str::to_string))
}

pub fn card_lines(card: &Card, theme: Theme) -> Vec<Line<'static>> {
    let (glyph, style) = match &card.status {
        CardStatus::Running => ("…", theme.accent()),
        CardStatus::Done => ("✓", theme.success()),
        CardStatus::Failed => ("✗", theme.error()),
        CardStatus::Denied(_) => ("⊘", theme.warning()),
        CardStatus::Cancelled => ("⊘", theme.dim()),
    };
    let mut header = vec![
        Span::styled(format!("{glyph} "), style),
        Span::styled(safe_line(&card.name).into_owned(), theme.heading()),
    ];
    if let Some(arg) = key_argument(&card.arguments) {
        header.push(Span::raw(format!("  {}", truncate(&safe_line(&arg), 60))));
    }
    if let Some(ms) = card.duration_ms {
        header.push(Span::styled(format!("  {}", duration(ms)), theme.dim()));
    }
    let mut lines = vec![Line::from(header)];
    match (&card.status, &card.output) {
        (CardStatus::Denied(reason), _) => lines.push(Line::from(Span::styled(
            format!("  └ {}", truncate(&safe_line(reason), 100)),
            theme.warning(),
        ))),
        (_, Some(output)) => {
            let count = output.lines().count();
            let first = output.lines().next().unwrap_or_default();
            let tail = if count > 1 {
                format!(" (+{} lines)", count - 1)
            } else {
                String::new()
            };
            let style = if card.status == CardStatus::Failed {
                theme.error()
            } else {
                theme.dim()
            };
            lines.push(Line::from(Span::styled(
                format!("  └ {}{tail}", truncate(&safe_line(first), 100)),
                style,
            )));
        }
        _ => {}
    }
    if let Some(changes) = &card.changes {
        lines.extend(super::diff_lines(changes, theme));
    }
    lines
}

pub fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    }
}

/// A resumed session, as it would have looked: the last [`HISTORY_SHOWN`] messages.
pub fn history_lines(messages: &[Message], theme: Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let skip = messages.len().saturating_sub(HISTORY_SHOWN);
    if skip > 0 {
        lines.push(Line::from(Span::styled(
            format!("… {skip} earlier messages (reasonix sessions list)"),
            theme.dim(),
        )));
    }
    for message in &messages[skip..] {
        match message.role {
            Role::User => lines.extend(user_lines(&message.content, theme)),
            Role::Assistant => {
                if !message.content.is_empty() {
                    lines.extend(super::markdown_lines(&message.content, theme));
                }
                for call in &message.tool_calls {
                    let card = Card {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                        status: CardStatus::Done,
                        started: Instant::now(),
                        duration_ms: None,
                        output: None,
                        changes: None,
                    };
                    lines.extend(card_lines(&card, theme));
                }
            }
            Role::Tool => {
                let first = message.content.lines().next().unwrap_or_default();
                lines.push(Line::from(Span::styled(
                    format!("  └ {}", truncate(&safe_line(first), 100)),
                    theme.dim(),
                )));
            }
            Role::System => {}
        }
    }
    lines
}
