//! Interim slash registry (replaced by `slash`).
use super::theme::Theme;
use ratatui::text::Line;

#[derive(Debug, Default)]
pub struct SlashRegistry;

impl SlashRegistry {
    pub fn help_lines(&self, _theme: Theme) -> Vec<Line<'static>> {
        vec![Line::from(
            "/help /new /clear /resume /model /effort /status /cost /permissions /plugins /tools /sessions /compact /init /quit",
        )]
    }
    pub fn expand(&self, _name: &str, _args: &str) -> Option<String> {
        None
    }
}
