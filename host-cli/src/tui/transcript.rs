//! What goes into the scrollback: the user's messages, answers, reasoning, tool cards, and a
//! resumed session's history. The Markdown and card renderers do the work; this module
//! decides what is shown for each kind of entry.

use super::text::{safe, safe_line, truncate};
use super::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_core::types::{Message, Role};
use reasonix_i18n::t;
use std::time::Instant;

/// Messages of a resumed session shown at most; earlier ones are summarised in one line.
const HISTORY_SHOWN: usize = 200;

pub use super::card::{CardStatus, ToolCard};

/// A tool call in progress, and when it started (for the live duration).
#[derive(Debug, Clone)]
pub struct Running {
    pub card: ToolCard,
    pub started: Instant,
}

/// The answer as it streams: complete lines are committed as Markdown, the open tail stays
/// live.
pub type LiveAnswer = super::markdown::MarkdownStream;

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
        t!(
            "app-reasoning-folded",
            first = truncate(first, 60).into_owned(),
            count = count.to_string()
        ),
        theme.dim(),
    ))]
}

/// A card as committed to the scrollback: collapsed; a writer's diff is shown whole at the
/// approval, so here only its counts.
pub fn card_lines(card: &ToolCard, theme: Theme, width: u16) -> Vec<Line<'static>> {
    card.render_collapsed(theme, width)
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
pub fn history_lines(messages: &[Message], theme: Theme, width: u16) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let skip = messages.len().saturating_sub(HISTORY_SHOWN);
    if skip > 0 {
        lines.push(Line::from(Span::styled(
            t!("app-history-earlier", count = skip.to_string()),
            theme.dim(),
        )));
    }
    for message in &messages[skip..] {
        match message.role {
            Role::User => lines.extend(user_lines(&message.content, theme)),
            Role::Assistant => {
                if !message.content.is_empty() {
                    lines.extend(super::markdown::render(&message.content, theme, width));
                }
                for call in &message.tool_calls {
                    let mut card = ToolCard::new(&call.id, &call.name, &call.arguments);
                    card.status = CardStatus::Done;
                    lines.extend(card.render_collapsed(theme, width).into_iter().take(1));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorLevel;
    use reasonix_i18n::{Language, with_language};

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn folded_reasoning_and_a_long_history_in_both_languages() {
        let theme = Theme::new(ColorLevel::None);
        let folded = |language| {
            with_language(language, || {
                text(&reasoning_lines("weigh it\nthen act", false, theme))
            })
        };
        assert_eq!(
            folded(Language::En),
            ["  ∴ weigh it (2 lines of reasoning, Ctrl+O shows them)"]
        );
        assert_eq!(
            folded(Language::ZhCn),
            ["  ∴ weigh it（2 行推理，Ctrl+O 展开）"]
        );
        let messages: Vec<Message> = (0..HISTORY_SHOWN + 3)
            .map(|i| Message::text(Role::User, format!("m{i}")))
            .collect();
        let first = |language| {
            with_language(language, || {
                text(&history_lines(&messages, theme, 80))[0].clone()
            })
        };
        assert_eq!(
            first(Language::En),
            "… 3 earlier messages (reasonix sessions list)"
        );
        assert_eq!(
            first(Language::ZhCn),
            "… 更早的 3 条消息（reasonix sessions list）"
        );
    }

    #[test]
    fn a_sub_agent_counts_its_requests_in_english_plurals() {
        let finished = |steps: u32| {
            with_language(Language::En, || {
                t!(
                    "app-subagent-finished",
                    label = "scout",
                    status = "success",
                    steps = steps
                )
            })
        };
        assert_eq!(finished(1), "⇠ sub-agent scout: success (1 request)");
        assert_eq!(finished(3), "⇠ sub-agent scout: success (3 requests)");
        let zh = with_language(Language::ZhCn, || {
            t!(
                "app-subagent-finished",
                label = "scout",
                status = "success",
                steps = 3u32
            )
        });
        assert_eq!(zh, "⇠ 子代理 scout：success（3 次请求）");
    }
}
