//! The turn picker (`/rewind`, Esc Esc): ↑/↓ to a turn, Enter rewinds files and conversation,
//! `c` the files only, `v` the conversation only, `u` undoes the last rewind, Esc leaves.

use super::text::{safe_line, truncate};
use super::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};
use reasonix_i18n::t;

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
            Span::styled(format!("{}  ", t!("rewind-picker-title")), theme.heading()),
            Span::styled(t!("rewind-picker-keys"), theme.dim()),
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
                text.push_str(&t!("rewind-picker-ran-shell"));
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorLevel;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::widgets::Paragraph;

    fn picker() -> TurnPicker {
        let rows = [
            (1, "add a --json flag to the list command", false),
            (2, "run the tests and fix what fails", true),
            (3, "把错误信息改得更清楚一些", false),
        ];
        TurnPicker::new(
            rows.into_iter()
                .map(|(turn, prompt, ran_shell)| TurnRow {
                    turn,
                    prompt: prompt.into(),
                    ran_shell,
                })
                .collect(),
        )
    }

    /// The picker in a `w`×`h` terminal, wrapped as the live area wraps it.
    fn draw(w: u16, h: u16) -> String {
        let lines = picker().lines(Theme::new(ColorLevel::Ansi16), w);
        let lines = crate::tui::wrap::wrap_lines(lines, usize::from(w));
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| f.render_widget(Paragraph::new(lines), f.area()))
            .unwrap();
        format!("{}", terminal.backend())
    }

    #[test]
    fn turn_picker_zh_cn_80x24() {
        let screen = reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || draw(80, 24));
        assert!(screen.contains("回退到某一轮开头"), "{screen}");
        assert!(screen.contains("运行过 shell 命令"), "{screen}");
        insta::assert_snapshot!(screen);
    }

    #[test]
    fn rows_fit_the_width_in_either_language() {
        for language in [reasonix_i18n::Language::En, reasonix_i18n::Language::ZhCn] {
            let lines = reasonix_i18n::with_language(language, || {
                picker().lines(Theme::new(ColorLevel::None), 40)
            });
            for line in &lines[1..] {
                let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
                assert!(crate::tui::text::width(&text) <= 40, "{text}");
            }
        }
    }
}
