//! The composer as the session uses it. (Interim: plain multi-line text; the full editor
//! replaces the body.)

use super::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};

#[derive(Debug, Default)]
pub struct Input {
    text: String,
}

impl Input {
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
    pub fn clear(&mut self) {
        self.text.clear();
    }
    pub fn popup_open(&self) -> bool {
        false
    }
    pub fn paste(&mut self, text: &str) {
        self.text.push_str(&text.replace("\r\n", "\n"));
    }
    /// A key; `Some(text)` when Enter submits.
    pub fn key(&mut self, key: KeyEvent, _actions: &super::actions::Context) -> Option<String> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Enter
                if key
                    .modifiers
                    .intersects(KeyModifiers::SHIFT | KeyModifiers::ALT) =>
            {
                self.text.push('\n')
            }
            KeyCode::Char('j') if ctrl => self.text.push('\n'),
            KeyCode::Enter => return Some(std::mem::take(&mut self.text)),
            KeyCode::Backspace => {
                self.text.pop();
            }
            KeyCode::Char('u') if ctrl => self.text.clear(),
            KeyCode::Char(c) if !ctrl => self.text.push(c),
            _ => {}
        }
        None
    }
    pub fn lines(&self, theme: Theme) -> Vec<Line<'static>> {
        let safe = super::text::safe(&self.text).into_owned();
        let mut lines: Vec<Line<'static>> = safe
            .split('\n')
            .enumerate()
            .map(|(i, l)| {
                let marker = if i == 0 { "› " } else { "  " };
                Line::from(vec![
                    Span::styled(marker, theme.accent()),
                    Span::raw(l.to_string()),
                ])
            })
            .collect();
        if lines.is_empty() {
            lines.push(Line::from(Span::styled("› ", theme.accent())));
        }
        lines
    }
    pub fn height(&self, _width: u16) -> u16 {
        u16::try_from(self.text.split('\n').count().clamp(1, 8)).unwrap_or(8)
    }
    pub fn cursor(&self, area: ratatui::layout::Rect) -> (u16, u16) {
        let last = self.text.rsplit('\n').next().unwrap_or_default();
        let rows = self.height(area.width).saturating_sub(1);
        let x = 2 + u16::try_from(super::text::width(last)).unwrap_or(0);
        (area.x + x.min(area.width.saturating_sub(1)), area.y + rows)
    }
}
