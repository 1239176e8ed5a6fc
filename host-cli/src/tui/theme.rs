//! Colours and emphasis by role, degraded to what the terminal can show.
//!
//! Everything is expressed in the 16 named ANSI colours, which every colour terminal maps
//! to its own palette (so light and dark themes both stay readable); `NO_COLOR` keeps only
//! bold, dim, italic, underline and reverse.

use ratatui::style::{Color, Modifier, Style};

/// What the terminal can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorLevel {
    /// `NO_COLOR` is set (any value but empty), or the terminal is `dumb`.
    None,
    /// The 16 ANSI colours.
    Ansi16,
    /// 256 colours or more (`COLORTERM=truecolor|24bit`, `TERM=*256color*`).
    Full,
}

impl ColorLevel {
    /// From the environment, as documented at <https://no-color.org>.
    pub fn detect() -> ColorLevel {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> ColorLevel {
        if var("NO_COLOR").is_some_and(|v| !v.is_empty()) {
            return ColorLevel::None;
        }
        let term = var("TERM").unwrap_or_default();
        if term == "dumb" {
            return ColorLevel::None;
        }
        let colorterm = var("COLORTERM").unwrap_or_default();
        if colorterm == "truecolor" || colorterm == "24bit" || term.contains("256color") {
            ColorLevel::Full
        } else {
            ColorLevel::Ansi16
        }
    }
}

/// Styles by role. Cheap to copy; one per session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub level: ColorLevel,
}

impl Theme {
    pub fn new(level: ColorLevel) -> Theme {
        Theme { level }
    }

    /// A colour when the terminal has colours, else `fallback` emphasis.
    fn paint(&self, color: Color, fallback: Modifier) -> Style {
        match self.level {
            ColorLevel::None => Style::default().add_modifier(fallback),
            _ => Style::default().fg(color),
        }
    }

    pub fn plain(&self) -> Style {
        Style::default()
    }
    /// Secondary text: reasoning, durations, hints.
    pub fn dim(&self) -> Style {
        Style::default().add_modifier(Modifier::DIM)
    }
    /// The product's accent: prompts, headings, selection markers.
    pub fn accent(&self) -> Style {
        self.paint(Color::Cyan, Modifier::BOLD)
    }
    pub fn heading(&self) -> Style {
        self.accent().add_modifier(Modifier::BOLD)
    }
    pub fn success(&self) -> Style {
        self.paint(Color::Green, Modifier::empty())
    }
    pub fn warning(&self) -> Style {
        self.paint(Color::Yellow, Modifier::BOLD)
    }
    /// Errors must stand out, with or without colour.
    pub fn error(&self) -> Style {
        self.paint(Color::Red, Modifier::empty())
            .add_modifier(Modifier::BOLD)
    }
    pub fn added(&self) -> Style {
        self.paint(Color::Green, Modifier::empty())
    }
    pub fn removed(&self) -> Style {
        self.paint(Color::Red, Modifier::empty())
    }
    /// Inline code and code blocks without highlighting.
    pub fn code(&self) -> Style {
        self.paint(Color::Yellow, Modifier::empty())
    }
    /// The highlighted row of a menu or picker.
    pub fn selected(&self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }
    /// The posture when it lets everything run (yolo): always visible.
    pub fn danger(&self) -> Style {
        match self.level {
            ColorLevel::None => Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
            _ => Style::default()
                .fg(Color::White)
                .bg(Color::Red)
                .add_modifier(Modifier::BOLD),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(vars: &[(&str, &str)]) -> ColorLevel {
        ColorLevel::from_vars(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn no_color_and_dumb_terminals_get_no_colours() {
        assert_eq!(
            level(&[("NO_COLOR", "1"), ("TERM", "xterm-256color")]),
            ColorLevel::None
        );
        assert_eq!(
            level(&[("NO_COLOR", ""), ("TERM", "xterm")]),
            ColorLevel::Ansi16
        );
        assert_eq!(level(&[("TERM", "dumb")]), ColorLevel::None);
        assert_eq!(level(&[("TERM", "xterm-256color")]), ColorLevel::Full);
        assert_eq!(level(&[("COLORTERM", "truecolor")]), ColorLevel::Full);
        let none = Theme::new(ColorLevel::None);
        assert_eq!(none.error().fg, None);
        assert!(none.error().add_modifier.contains(Modifier::BOLD));
        assert_eq!(Theme::new(ColorLevel::Ansi16).error().fg, Some(Color::Red));
    }
}
