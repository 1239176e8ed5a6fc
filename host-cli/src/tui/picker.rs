//! The session picker (`/resume`, `reasonix -r`): type to filter by title or id, ↑/↓ to
//! move, Enter to open, Esc to leave.

use super::text::{safe_line, truncate};
use super::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};
use reasonix_agent::session::Summary;

pub struct Picker {
    sessions: Vec<Summary>,
    pub query: String,
    selected: usize,
}

pub enum Outcome {
    Open,
    Cancelled,
    Chosen(String),
}

/// Rows of sessions shown at once.
pub const ROWS: usize = 10;

impl Picker {
    pub fn new(sessions: Vec<Summary>, query: &str) -> Picker {
        Picker {
            sessions,
            query: query.to_string(),
            selected: 0,
        }
    }

    pub fn matches(&self) -> Vec<&Summary> {
        let query = self.query.to_lowercase();
        self.sessions
            .iter()
            .filter(|s| {
                query.is_empty()
                    || s.title.to_lowercase().contains(&query)
                    || s.id.starts_with(&query)
            })
            .collect()
    }

    pub fn paste(&mut self, text: &str) {
        self.query.push_str(&safe_line(text));
        self.selected = 0;
    }

    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        let count = self.matches().len();
        match key.code {
            KeyCode::Esc => return Outcome::Cancelled,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Outcome::Cancelled;
            }
            KeyCode::Enter => {
                return match self.matches().get(self.selected) {
                    Some(s) => Outcome::Chosen(s.id.clone()),
                    None => Outcome::Open,
                };
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(count.saturating_sub(1)),
            KeyCode::Backspace => {
                self.query.pop();
                self.selected = 0;
            }
            KeyCode::Char(c) => {
                self.query.push(c);
                self.selected = 0;
            }
            _ => {}
        }
        Outcome::Open
    }

    pub fn lines(&self, theme: Theme, width: u16, now_ms: u64) -> Vec<Line<'static>> {
        let matches = self.matches();
        let mut lines = vec![Line::from(vec![
            Span::styled("Resume a session  ", theme.heading()),
            Span::styled("type to filter · ↑/↓ · Enter · Esc", theme.dim()),
        ])];
        lines.push(Line::from(vec![
            Span::styled("search: ", theme.accent()),
            Span::raw(self.query.clone()),
        ]));
        if matches.is_empty() {
            lines.push(Line::from(Span::styled(
                "  no session matches",
                theme.dim(),
            )));
        }
        let start = self.selected.saturating_sub(ROWS - 1);
        for (i, s) in matches.iter().enumerate().skip(start).take(ROWS) {
            let when = ago(now_ms.saturating_sub(s.updated_ms));
            let text = format!(
                "{} {:>8}  {:>4} msgs  {}",
                if i == self.selected { "›" } else { " " },
                when,
                s.messages,
                safe_line(&s.title)
            );
            let text = truncate(&text, usize::from(width)).into_owned();
            let style = if i == self.selected {
                theme.selected()
            } else {
                theme.plain()
            };
            lines.push(Line::from(Span::styled(text, style)));
        }
        lines
    }
}

fn ago(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s ago"),
        60..3600 => format!("{}m ago", s / 60),
        3600..86_400 => format!("{}h ago", s / 3600),
        _ => format!("{}d ago", s / 86_400),
    }
}
