//! The session picker (`/resume`, `reasonix -r`): type to filter by title or id, ↑/↓ to
//! move, Enter to open, Esc to leave.

use super::text::{safe_line, truncate, width as text_width};
use super::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};
use reasonix_agent::session::Summary;
use reasonix_i18n::t;

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
            Span::styled(format!("{}  ", t!("picker-title")), theme.heading()),
            Span::styled(t!("picker-keys"), theme.dim()),
        ])];
        lines.push(Line::from(vec![
            Span::styled(t!("picker-search"), theme.accent()),
            Span::raw(self.query.clone()),
        ]));
        if matches.is_empty() {
            lines.push(Line::from(Span::styled(
                format!("  {}", t!("picker-no-match")),
                theme.dim(),
            )));
        }
        let start = self.selected.saturating_sub(ROWS - 1);
        for (i, s) in matches.iter().enumerate().skip(start).take(ROWS) {
            let when = ago(now_ms.saturating_sub(s.updated_ms));
            // Padded by display width: a translated "ago" may hold wide characters.
            let pad = " ".repeat(8usize.saturating_sub(text_width(&when)));
            let text = format!(
                "{} {pad}{when}  {:>4} {}  {}",
                if i == self.selected { "›" } else { " " },
                s.messages,
                t!("picker-messages"),
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
        0..60 => t!("picker-ago-seconds", n = s),
        60..3600 => t!("picker-ago-minutes", n = s / 60),
        3600..86_400 => t!("picker-ago-hours", n = s / 3600),
        _ => t!("picker-ago-days", n = s / 86_400),
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

    const NOW: u64 = 10 * 86_400_000;

    fn session(id: &str, title: &str, messages: usize, ago_ms: u64) -> Summary {
        Summary {
            id: id.into(),
            title: title.into(),
            parent: None,
            parent_turn: None,
            provider: "deepseek".into(),
            model: "deepseek-chat".into(),
            messages,
            created_ms: 0,
            updated_ms: NOW - ago_ms,
            path: std::path::PathBuf::from("/tmp/x.jsonl"),
            composition: None,
        }
    }

    fn picker() -> Picker {
        Picker::new(
            vec![
                session("a1", "fix the flaky network test", 12, 42_000),
                session("b2", "重构配置加载", 3, 5 * 60_000),
                session("c3", "write the release notes", 148, 3 * 3_600_000),
                session("d4", "old experiment", 1, 4 * 86_400_000),
            ],
            "",
        )
    }

    fn draw(w: u16, h: u16) -> String {
        let lines = picker().lines(Theme::new(ColorLevel::Ansi16), w, NOW);
        let lines = crate::tui::wrap::wrap_lines(lines, usize::from(w));
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| f.render_widget(Paragraph::new(lines), f.area()))
            .unwrap();
        format!("{}", terminal.backend())
    }

    #[test]
    fn session_picker_zh_cn_80x24() {
        let screen = reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || draw(80, 24));
        assert!(screen.contains("恢复会话"), "{screen}");
        assert!(screen.contains("5 分钟前"), "{screen}");
        insta::assert_snapshot!(screen);
    }

    #[test]
    fn ages_are_right_aligned_by_display_width() {
        let rows = |language| {
            reasonix_i18n::with_language(language, || {
                picker()
                    .lines(Theme::new(ColorLevel::None), 80, NOW)
                    .iter()
                    .skip(2)
                    .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
                    .collect::<Vec<String>>()
            })
        };
        let en = rows(reasonix_i18n::Language::En);
        assert_eq!(en[0], "›  42s ago    12 msgs  fix the flaky network test");
        // The message counts line up whatever the width of the age before them.
        let zh = rows(reasonix_i18n::Language::ZhCn);
        let column = |row: &String| crate::tui::text::width(&row[..row.find("条消息").unwrap()]);
        assert!(zh.iter().all(|r| column(r) == column(&zh[0])), "{zh:?}");
    }
}
