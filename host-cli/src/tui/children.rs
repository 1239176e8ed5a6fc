//! Running sub-agents as cards in the live area: each shows its label, model, latest tool call
//! and how long it has run. ↓/↑ (composer empty) select one; Esc on a selected card stops that
//! child only, Enter writes what it did so far into the scrollback.

use super::text::{safe_line, truncate};
use super::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_agent::agent_loop::AgentEvent;
use reasonix_i18n::t;
use std::time::Instant;

/// Lines of a child's activity kept for Enter (its tool calls, notices, its answer).
const KEPT: usize = 200;

#[derive(Debug, Clone)]
pub struct ChildCard {
    /// As the session's events name it (`main/<call>`): what cancelling it names.
    pub agent_id: String,
    pub label: String,
    pub model: String,
    pub started: Instant,
    pub calls: u32,
    /// The tool call running or last run.
    pub last: Option<String>,
    pub log: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Children {
    pub cards: Vec<ChildCard>,
    /// The card ↓/↑ selected, by agent id.
    pub selected: Option<String>,
}

impl Children {
    /// Follow one event of a child: a card appears when it starts and goes when it ends.
    pub fn observe(&mut self, event: &AgentEvent) {
        let Some((agent_id, _)) = event.agent_ids() else {
            return;
        };
        let (path, inner) = event.lineage();
        let label = path
            .iter()
            .map(|c| c.label.as_str())
            .collect::<Vec<_>>()
            .join(" › ");
        match inner {
            AgentEvent::SubagentStarted { model, .. } => self.cards.push(ChildCard {
                agent_id,
                label,
                model: model.clone(),
                started: Instant::now(),
                calls: 0,
                last: None,
                log: Vec::new(),
            }),
            AgentEvent::SubagentFinished { .. } => {
                self.cards.retain(|c| c.agent_id != agent_id);
                if self.selected.as_deref() == Some(agent_id.as_str()) {
                    self.selected = None;
                }
            }
            other => {
                if let Some(card) = self.cards.iter_mut().find(|c| c.agent_id == agent_id) {
                    card.follow(other);
                }
            }
        }
    }

    /// ↓: the next card (from none, the first); `false` when there is none to select.
    pub fn select_next(&mut self) -> bool {
        if self.cards.is_empty() {
            return false;
        }
        let at = self.position();
        let next = at.map_or(0, |i| (i + 1).min(self.cards.len() - 1));
        self.selected = Some(self.cards[next].agent_id.clone());
        true
    }

    /// ↑: the previous card, or none above the first; `false` when none was selected.
    pub fn select_previous(&mut self) -> bool {
        match self.position() {
            None => false,
            Some(0) => {
                self.selected = None;
                true
            }
            Some(i) => {
                self.selected = Some(self.cards[i - 1].agent_id.clone());
                true
            }
        }
    }

    pub fn selected(&self) -> Option<&ChildCard> {
        let id = self.selected.as_deref()?;
        self.cards.iter().find(|c| c.agent_id == id)
    }

    fn position(&self) -> Option<usize> {
        let id = self.selected.as_deref()?;
        self.cards.iter().position(|c| c.agent_id == id)
    }

    pub fn clear(&mut self) {
        self.cards.clear();
        self.selected = None;
    }

    /// One line per running child; the selected one says what its keys do.
    pub fn lines(&self, theme: Theme, width: u16) -> Vec<Line<'static>> {
        let width = usize::from(width.max(20));
        self.cards
            .iter()
            .map(|card| {
                let chosen = self.selected.as_deref() == Some(card.agent_id.as_str());
                let last = card
                    .last
                    .as_deref()
                    .map(|l| format!(" · {}", safe_line(l)))
                    .unwrap_or_default();
                // What the keys do first, so a narrow terminal still shows it.
                let marker = if chosen {
                    format!("›◆ {} · ", t!("children-keys"))
                } else {
                    " ◇ ".to_string()
                };
                let card_text = t!(
                    "children-card",
                    label = safe_line(&card.label).into_owned(),
                    calls = card.calls,
                    secs = card.started.elapsed().as_secs(),
                    last = last,
                    model = safe_line(&card.model).into_owned()
                );
                let text = format!("{marker}{card_text}");
                let style = if chosen {
                    theme.selected()
                } else {
                    theme.dim()
                };
                Line::from(Span::styled(truncate(&text, width).into_owned(), style))
            })
            .collect()
    }
}

impl ChildCard {
    fn follow(&mut self, event: &AgentEvent) {
        let line = match event {
            AgentEvent::ToolStarted {
                name, arguments, ..
            } => {
                self.calls += 1;
                let args: String = arguments.chars().take(80).collect();
                self.last = Some(format!("{name} {args}"));
                format!("→ {name} {args}")
            }
            AgentEvent::ToolFinished {
                name,
                is_error,
                output,
                ..
            } => {
                let first: String = output
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(120)
                    .collect();
                if *is_error {
                    t!("children-tool-failed", name = name.as_str(), output = first)
                } else {
                    t!("children-tool-ok", name = name.as_str())
                }
            }
            AgentEvent::Message(m) if m.role == reasonix_core::types::Role::Assistant => {
                if m.content.trim().is_empty() {
                    return;
                }
                m.content.trim().to_string()
            }
            AgentEvent::Notice(text) => format!("· {text}"),
            AgentEvent::PermissionDenied { name, reason, .. } => {
                crate::wording::not_run(name, reason)
            }
            _ => return,
        };
        if self.log.len() < KEPT {
            self.log.push(line);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use reasonix_agent::agent_loop::ChildRef;

    fn child(id: &str, event: AgentEvent) -> AgentEvent {
        AgentEvent::Child {
            child: ChildRef {
                call_id: id.into(),
                id: id.into(),
                label: format!("explore: {id}"),
            },
            event: Box::new(event),
        }
    }

    #[test]
    fn cards_follow_their_children_and_selection_moves_between_them() {
        let mut c = Children::default();
        for id in ["a", "b"] {
            c.observe(&child(
                id,
                AgentEvent::SubagentStarted {
                    profile: "explore".into(),
                    description: id.into(),
                    model: "m/x".into(),
                    session_id: None,
                },
            ));
        }
        c.observe(&child(
            "a",
            AgentEvent::ToolStarted {
                id: "t".into(),
                name: "grep".into(),
                arguments: "{\"pattern\":\"\u{1b}[2Jx\"}".into(),
            },
        ));
        assert_eq!(c.cards[0].calls, 1);
        assert!(c.select_next());
        assert_eq!(c.selected().unwrap().agent_id, "main/a");
        assert!(c.select_next());
        assert_eq!(c.selected().unwrap().agent_id, "main/b");
        assert!(c.select_previous() && c.select_previous());
        assert!(c.selected().is_none());
        let lines = c.lines(Theme::new(super::super::theme::ColorLevel::None), 120);
        let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(
            text.contains("explore: a") && text.contains("grep"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "escapes are shown, not obeyed");
        c.observe(&child(
            "a",
            AgentEvent::SubagentFinished {
                status: "answered".into(),
                steps: 2,
            },
        ));
        assert_eq!(c.cards.len(), 1);
    }

    #[test]
    fn a_wide_label_fits_a_narrow_terminal() {
        let mut c = Children::default();
        let event = AgentEvent::Child {
            child: ChildRef {
                call_id: "t".into(),
                id: "t".into(),
                label: "general: 把入口函数改成异步并补上测试用例，然后运行全部测试".into(),
            },
            event: Box::new(AgentEvent::SubagentStarted {
                profile: "general".into(),
                description: String::new(),
                model: "deepseek/deepseek-chat".into(),
                session_id: None,
            }),
        };
        c.observe(&event);
        assert!(c.select_next());
        for width in [80u16, 40] {
            let lines = c.lines(Theme::new(super::super::theme::ColorLevel::None), width);
            let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
            assert!(
                super::super::text::width(&text) <= usize::from(width),
                "{width}: {text}"
            );
            assert!(text.starts_with("›◆ Esc stops it"), "{text}");
        }
    }
}
