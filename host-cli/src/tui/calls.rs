//! Ctrl+T: the tool calls of this session, newest first; Enter writes the chosen one in full
//! (arguments, output, diff) into the scrollback. Cards already in the scrollback cannot
//! change, so this is how an earlier card "expands".

use super::card::ToolCard;
use super::text::{safe_line, truncate};
use super::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};
use reasonix_i18n::t;

/// Calls kept for the list (the oldest are dropped; their output is in the session file).
pub const KEPT: usize = 500;
/// Rows of the list shown at once.
const ROWS: usize = 10;

pub struct CallPicker {
    selected: usize,
}

pub enum Outcome {
    Open,
    Cancelled,
    Chosen(usize),
}

impl CallPicker {
    pub fn new() -> CallPicker {
        CallPicker { selected: 0 }
    }

    /// `count` calls are listed; the answer is an index into them, newest first.
    pub fn key(&mut self, key: KeyEvent, count: usize) -> Outcome {
        match key.code {
            KeyCode::Esc => Outcome::Cancelled,
            KeyCode::Char('c' | 't') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                Outcome::Cancelled
            }
            KeyCode::Up => {
                self.selected = self.selected.saturating_sub(1);
                Outcome::Open
            }
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(count.saturating_sub(1));
                Outcome::Open
            }
            KeyCode::Enter if count > 0 => Outcome::Chosen(self.selected.min(count - 1)),
            _ => Outcome::Open,
        }
    }

    /// `calls` oldest first, as the app keeps them.
    pub fn lines(
        &self,
        calls: &std::collections::VecDeque<ToolCard>,
        theme: Theme,
        width: u16,
    ) -> Vec<Line<'static>> {
        let mut lines = vec![Line::from(vec![
            Span::styled(t!("calls-title"), theme.heading()),
            Span::styled(t!("calls-keys"), theme.dim()),
        ])];
        if calls.is_empty() {
            lines.push(Line::from(Span::styled(t!("calls-none"), theme.dim())));
        }
        let start = self.selected.saturating_sub(ROWS - 1);
        for (i, card) in calls.iter().rev().enumerate().skip(start).take(ROWS) {
            let header = card
                .render_collapsed(theme, width.saturating_sub(2))
                .into_iter()
                .next()
                .map(|l| l.to_string())
                .unwrap_or_else(|| safe_line(&card.name).into_owned());
            let marker = if i == self.selected { "› " } else { "  " };
            let style = if i == self.selected {
                theme.selected()
            } else {
                theme.plain()
            };
            let text = truncate(&format!("{marker}{header}"), usize::from(width)).into_owned();
            lines.push(Line::from(Span::styled(text, style)));
        }
        lines
    }
}
