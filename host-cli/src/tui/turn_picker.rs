//! The turn picker (`/rewind`, Esc Esc): ↑/↓ to a turn, Enter rewinds files and conversation,
//! `c` the files only, `v` the conversation only, `u` undoes the last rewind, Esc leaves.

use super::text::{safe_line, truncate};
use super::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};

/// One turn as the picker shows it.
pub struct TurnRow {
    pub turn: u32,
    pub prompt: String,
    pub ran_shell: bool,
}

pub struct TurnPicker {
    rows: Vec<TurnRow>,
    selected: usize,
}

pub enum Outcome {
    Open,
    Cancelled,
    Rewind {
        turn: u32,
        code: bool,
        conversation: bool,
    },
    Undo,
}

/// Rows shown at once.
const ROWS: usize = 10;

impl TurnPicker {
    /// The newest turn is selected first.
    pub fn new(rows: Vec<TurnRow>) -> TurnPicker {
        let selected = rows.len().saturating_sub(1);
        TurnPicker { rows, selected }
    }

    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        let chosen =
            |picker: &TurnPicker, code, conversation| match picker.rows.get(picker.selected) {
                Some(row) => Outcome::Rewind {
                    turn: row.turn,
                    code,
                    conversation,
                },
                None => Outcome::Cancelled,
            };
        match key.code {
            KeyCode::Esc => Outcome::Cancelled,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                Outcome::Cancelled
            }
            KeyCode::Enter => chosen(self, true, true),
            KeyCode::Char('c') => chosen(self, true, false),
            KeyCode::Char('v') => chosen(self, false, true),
            KeyCode::Char('u') => Outcome::Undo,
            KeyCode::Up => {
                self.selected = self.selected.saturating_sub(1);
                Outcome::Open
            }
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.rows.len().saturating_sub(1));
                Outcome::Open
            }
            _ => Outcome::Open,
        }
    }

    pub fn lines(&self, theme: Theme, width: u16) -> Vec<Line<'static>> {
        let mut lines = vec![Line::from(vec![
            Span::styled("Rewind to the start of a turn  ", theme.heading()),
            Span::styled(
                "↑/↓ · Enter files+conversation · c files · v conversation · u undo last · Esc",
                theme.dim(),
            ),
        ])];
        let start = self.selected.saturating_sub(ROWS - 1);
        for (i, row) in self.rows.iter().enumerate().skip(start).take(ROWS) {
            let mut text = format!(
                "{} {:>3}  {}",
                if i == self.selected { "›" } else { " " },
                row.turn,
                safe_line(&row.prompt)
            );
            if row.ran_shell {
                text.push_str("  (ran shell commands: not undone)");
            }
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
