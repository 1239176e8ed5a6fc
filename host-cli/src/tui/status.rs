//! The status line: model, posture, context used of the window, tokens, the session's
//! cache-hit rate, cost, and the tool running now.

use super::text::{safe_line, truncate};
use super::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_agent::agent_loop::Spend;
use reasonix_agent::permissions::Posture;
use reasonix_config::run_mode::RunMode;
use reasonix_core::types::Usage;
use reasonix_i18n::t;
use std::time::Duration;

#[derive(Debug, Clone, Default)]
pub struct Status {
    pub model: String,
    pub posture: Posture,
    pub session_id: String,
    /// Prompt tokens of the last request: what the context holds now.
    pub context_used: u64,
    pub context_window: Option<u64>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_hit_tokens: u64,
    pub cache_miss_tokens: u64,
    /// The session's usage and cost by model (the agent's, after each turn).
    pub spend: Spend,
    pub running_tool: Option<String>,
    pub last_turn: Option<Duration>,
    /// `MCP 2/3`: servers ready of those configured (see `tui::mcp`).
    pub mcp: Option<String>,
    /// The run mode (shown when not `balanced`).
    pub mode: RunMode,
    /// `goal 2/10` while a goal is pursued.
    pub goal: Option<String>,
}

impl Status {
    pub fn add_usage(&mut self, usage: &Usage) {
        self.context_used = usage.prompt_tokens;
        self.input_tokens += usage.prompt_tokens;
        self.output_tokens += usage.completion_tokens;
        self.cache_hit_tokens += usage.cache_hit_tokens;
        self.cache_miss_tokens += usage.cache_miss_tokens;
    }

    /// The session's cost, one amount per currency (`¥0.0123 + $0.0040`); `None` while no
    /// request was priced.
    pub fn cost_text(&self) -> Option<String> {
        let totals = self.spend.totals();
        (!totals.is_empty()).then(|| {
            totals
                .iter()
                .map(|c| money(c.total, &c.currency))
                .collect::<Vec<_>>()
                .join(" + ")
        })
    }

    pub fn reset_usage(&mut self) {
        let keep = Status {
            model: std::mem::take(&mut self.model),
            posture: self.posture,
            session_id: std::mem::take(&mut self.session_id),
            context_window: self.context_window,
            mcp: self.mcp.take(),
            mode: self.mode,
            goal: self.goal.take(),
            ..Status::default()
        };
        *self = keep;
    }

    /// Share of prompt tokens served from the provider's cache, when it reports the split.
    pub fn cache_hit_rate(&self) -> Option<f64> {
        let total = self.cache_hit_tokens + self.cache_miss_tokens;
        (total > 0).then(|| self.cache_hit_tokens as f64 / total as f64)
    }

    pub fn line(&self, theme: Theme, width: u16, spinner: Option<&str>) -> Line<'static> {
        let posture = posture_name(self.posture);
        let posture_style = match self.posture {
            Posture::Yolo => theme.danger(),
            Posture::Auto => theme.warning(),
            Posture::Ask | Posture::AcceptEdits | Posture::DontAsk | Posture::Plan => {
                theme.accent()
            }
        };
        let mut parts: Vec<String> = Vec::new();
        if let Some(goal) = &self.goal {
            parts.push(goal.clone());
        }
        if self.mode != RunMode::Balanced {
            parts.push(mode_name(self.mode));
        }
        parts.push(match self.context_window {
            Some(window) => t!(
                "status-context",
                used = tokens(self.context_used),
                window = tokens(window)
            ),
            None => t!("status-context-used", used = tokens(self.context_used)),
        });
        // By priority: what is left out on a narrow terminal is what matters least.
        if let Some(cost) = self.cost_text() {
            parts.push(cost);
        }
        if let Some(rate) = self.cache_hit_rate() {
            parts.push(t!("status-cache", percent = format!("{:.0}", rate * 100.0)));
        }
        parts.push(format!(
            "↑{} ↓{}",
            tokens(self.input_tokens),
            tokens(self.output_tokens)
        ));
        if let Some(mcp) = &self.mcp {
            parts.push(mcp.clone());
        }
        let mut spans = vec![
            Span::styled(format!(" {posture} "), posture_style),
            Span::raw(" "),
            Span::styled(safe_line(&self.model).into_owned(), theme.accent()),
        ];
        let mut used: usize = spans.iter().map(|s| s.width()).sum();
        // The running tool's room is kept first: it says what is happening now.
        let tool_room = self
            .running_tool
            .as_ref()
            .map_or(0, |tool| 5 + super::text::width(&safe_line(tool)).min(16));
        let budget = usize::from(width).saturating_sub(tool_room);
        for part in parts {
            let piece = format!(" · {part}");
            if used + super::text::width(&piece) > budget {
                break;
            }
            used += super::text::width(&piece);
            spans.push(Span::styled(piece, theme.dim()));
        }
        if let Some(tool) = &self.running_tool {
            let marker = spinner.unwrap_or("…");
            let piece = format!(" · {marker} {}", safe_line(tool));
            let room = usize::from(width).saturating_sub(used);
            if room > 4 {
                spans.push(Span::styled(
                    truncate(&piece, room).into_owned(),
                    theme.accent(),
                ));
            }
        }
        Line::from(spans)
    }
}

/// The posture as the user interface names it.
pub fn posture_name(posture: Posture) -> String {
    match posture {
        Posture::Ask => t!("posture-ask"),
        Posture::AcceptEdits => t!("posture-accept-edits"),
        Posture::Auto => t!("posture-auto"),
        Posture::DontAsk => t!("posture-dont-ask"),
        Posture::Yolo => t!("posture-yolo"),
        Posture::Plan => t!("posture-plan"),
    }
}

/// The run mode as the user interface names it.
pub fn mode_name(mode: RunMode) -> String {
    match mode {
        RunMode::Economy => t!("mode-economy"),
        RunMode::Balanced => t!("mode-balanced"),
        RunMode::Delivery => t!("mode-delivery"),
    }
}

/// 1234 → "1.2k", 1_250_000 → "1.2M".
pub fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1_000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

/// An amount with its currency's symbol when it has a common one, else the ISO code.
pub fn money(amount: f64, currency: &str) -> String {
    match currency {
        "USD" => format!("${amount:.4}"),
        "CNY" => format!("¥{amount:.4}"),
        "EUR" => format!("€{amount:.4}"),
        other => format!("{amount:.4} {}", safe_line(other)),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::tui::theme::ColorLevel;
    use reasonix_agent::agent_loop::Cost;

    /// A session that spent `amount` in `currency` on one model each.
    pub fn spend(costs: &[(&str, f64)]) -> Spend {
        let mut spend = Spend::default();
        for (i, (currency, total)) in costs.iter().enumerate() {
            let cost = Cost {
                total: *total,
                currency: (*currency).to_string(),
            };
            spend.add("p", &format!("m{i}"), &Usage::default(), Some(&cost));
        }
        spend
    }

    #[test]
    fn costs_in_several_currencies_are_shown_apart() {
        let status = Status {
            spend: spend(&[("CNY", 0.5), ("USD", 0.25), ("CNY", 0.25)]),
            ..Status::default()
        };
        assert_eq!(status.cost_text().as_deref(), Some("¥0.7500 + $0.2500"));
        assert_eq!(Status::default().cost_text(), None);
    }

    #[test]
    fn status_line_fits_and_keeps_the_posture() {
        let mut status = Status {
            model: "deepseek/deepseek-v4-flash".into(),
            posture: Posture::Yolo,
            context_window: Some(1_000_000),
            spend: spend(&[("CNY", 0.0)]),
            running_tool: Some("bash".into()),
            ..Status::default()
        };
        status.add_usage(&Usage {
            prompt_tokens: 12_345,
            completion_tokens: 678,
            cache_hit_tokens: 10_000,
            cache_miss_tokens: 2_345,
            reasoning_tokens: 0,
        });
        let theme = Theme::new(ColorLevel::None);
        let wide = status.line(theme, 120, None).to_string();
        assert!(wide.contains("YOLO"), "{wide}");
        assert!(!wide.contains("balanced"), "{wide}");
        let delivery = Status {
            mode: RunMode::Delivery,
            goal: Some("goal 2/10".into()),
            ..status.clone()
        };
        let shown = delivery.line(theme, 120, None).to_string();
        assert!(shown.contains("goal 2/10 · delivery · ctx"), "{shown}");
        assert!(wide.contains("ctx 12.3k/1.0M"), "{wide}");
        assert!(wide.contains("cache 81%"), "{wide}");
        assert!(wide.contains("¥0.0000"), "{wide}");
        assert!(wide.contains("bash"), "{wide}");
        let narrow = status.line(theme, 40, None);
        assert!(narrow.width() <= 40, "{narrow}");
        assert!(narrow.to_string().contains("YOLO"));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod snapshots {
    use super::*;
    use crate::tui::theme::ColorLevel;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::layout::Rect;
    use ratatui::widgets::Paragraph;

    fn draw(w: u16, h: u16) -> String {
        let theme = Theme::new(ColorLevel::Ansi16);
        let mut status = Status {
            model: "deepseek/deepseek-v4-flash".into(),
            posture: Posture::Auto,
            context_window: Some(1_000_000),
            spend: super::tests::spend(&[("CNY", 0.0123)]),
            running_tool: Some("bash".into()),
            ..Status::default()
        };
        status.add_usage(&Usage {
            prompt_tokens: 48_200,
            completion_tokens: 1_350,
            cache_hit_tokens: 45_000,
            cache_miss_tokens: 3_200,
            reasoning_tokens: 0,
        });
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| {
                let area = f.area();
                let row = |y: u16| Rect {
                    y,
                    height: 1,
                    ..area
                };
                f.render_widget(Paragraph::new(status.line(theme, w, Some("⠋"))), row(h - 1));
                let mut yolo = status.clone();
                yolo.posture = Posture::Yolo;
                yolo.running_tool = None;
                f.render_widget(Paragraph::new(yolo.line(theme, w, None)), row(h - 3));
            })
            .unwrap();
        format!("{}", terminal.backend())
    }

    #[test]
    fn status_line_80x24() {
        insta::assert_snapshot!(draw(80, 24));
    }

    #[test]
    fn status_line_120x40() {
        insta::assert_snapshot!(draw(120, 40));
    }

    #[test]
    fn status_line_zh_cn_80x24() {
        let screen = reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || draw(80, 24));
        assert!(screen.contains("上下文 48.2k/1.0M"), "{screen}");
        assert!(screen.contains("自动"), "{screen}");
        insta::assert_snapshot!(screen);
    }
}
