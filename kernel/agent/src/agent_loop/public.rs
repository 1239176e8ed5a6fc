//! The agent's events as the session protocol's (`reasonix-protocol`): what front ends and
//! `reasonix run --output-format events` publish. One fact is one event: a tool result is
//! `tool_finished`, and the tool message that carries the same text to the model is not
//! published again.

use super::events::{AgentEvent, RunOutcome, RunStatus};
use crate::types::{ChangeKind, Message, Role};
use reasonix_protocol::{self as protocol, EventKind};

impl AgentEvent {
    /// This event in the protocol; `None` for what the protocol carries elsewhere (tool
    /// messages: `tool_finished` has them; system messages).
    pub fn to_protocol(&self) -> Option<EventKind> {
        Some(match self {
            AgentEvent::Child { .. } => {
                let (path, inner) = self.lineage();
                let call_id = path.last().map(|c| c.call_id.clone()).unwrap_or_default();
                return match inner {
                    AgentEvent::SubagentStarted {
                        profile,
                        description,
                        model,
                        session_id,
                    } => Some(EventKind::SubagentStarted {
                        call_id,
                        profile: profile.clone(),
                        description: description.clone(),
                        model: model.clone(),
                        session_id: session_id.clone(),
                    }),
                    AgentEvent::SubagentFinished { status, steps } => {
                        Some(EventKind::SubagentFinished {
                            call_id,
                            status: status.clone(),
                            steps: *steps,
                        })
                    }
                    other => other.to_protocol(),
                };
            }
            // Only ever inside a `Child`.
            AgentEvent::SubagentStarted { .. } | AgentEvent::SubagentFinished { .. } => {
                return None;
            }
            AgentEvent::RequestStarted { step } => EventKind::RequestStarted { step: *step },
            AgentEvent::Retry(n) => EventKind::Retry {
                provider: n.provider.clone(),
                attempt: n.attempt,
                max_retries: n.max_retries,
                delay_ms: u64::try_from(n.delay.as_millis()).unwrap_or(u64::MAX),
                reason: n.reason.clone(),
            },
            AgentEvent::TextDelta(text) => EventKind::TextDelta { text: text.clone() },
            AgentEvent::ReasoningDelta(text) => EventKind::ReasoningDelta { text: text.clone() },
            AgentEvent::StreamRestarted { reasoning } => EventKind::StreamRestarted {
                reasoning: *reasoning,
            },
            AgentEvent::Message(message) => return message_event(message),
            AgentEvent::ToolPreview { id, changes } => EventKind::ToolPreview {
                call_id: id.clone(),
                changes: changes.iter().map(change).collect(),
            },
            AgentEvent::ToolStarted {
                id,
                name,
                arguments,
            } => EventKind::ToolStarted {
                call_id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            },
            AgentEvent::ToolProgress {
                id,
                message,
                fraction,
            } => EventKind::ToolProgress {
                call_id: id.clone(),
                message: message.clone(),
                fraction: *fraction,
            },
            AgentEvent::ToolsChanged { added, removed } => EventKind::ToolsChanged {
                added: added.clone(),
                removed: removed.clone(),
            },
            AgentEvent::ToolFinished {
                id,
                name,
                is_error,
                output,
                duration_ms,
                ..
            } => EventKind::ToolFinished {
                call_id: id.clone(),
                name: name.clone(),
                is_error: *is_error,
                output: output.clone(),
                duration_ms: *duration_ms,
            },
            AgentEvent::Usage(u) => EventKind::Usage(protocol::Usage {
                prompt_tokens: u.prompt_tokens,
                completion_tokens: u.completion_tokens,
                cache_hit_tokens: u.cache_hit_tokens,
                cache_miss_tokens: u.cache_miss_tokens,
                reasoning_tokens: u.reasoning_tokens,
            }),
            AgentEvent::Notice(text) => EventKind::Notice { text: text.clone() },
            AgentEvent::Compacted {
                tier,
                number,
                tokens_before,
                tokens_after,
                manual,
            } => EventKind::Compacted {
                tier: tier.as_str().to_string(),
                number: *number,
                tokens_before: *tokens_before,
                tokens_after: *tokens_after,
                manual: *manual,
            },
            AgentEvent::PermissionDenied {
                id,
                name,
                arguments,
                reason,
            } => EventKind::PermissionDenied {
                call_id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
                reason: reason.clone(),
            },
        })
    }
}

impl AgentEvent {
    /// A sub-agent's event: its agent id and its parent's, from the main agent's
    /// (`main/<call>`, `main/<call>/<call>`); `None` for the agent's own event.
    pub fn agent_ids(&self) -> Option<(String, String)> {
        let (path, _) = self.lineage();
        if path.is_empty() {
            return None;
        }
        let mut parent = protocol::MAIN_AGENT.to_string();
        let mut id = parent.clone();
        for child in path {
            parent = id.clone();
            id = format!("{id}/{}", child.id);
        }
        Some((id, parent))
    }
}

fn message_event(message: &Message) -> Option<EventKind> {
    match message.role {
        Role::User => Some(EventKind::UserMessage {
            text: message.content.clone(),
            images: u32::try_from(message.images.len()).unwrap_or(u32::MAX),
        }),
        Role::Assistant => Some(EventKind::AssistantMessage {
            text: message.content.clone(),
            reasoning: message.reasoning.clone(),
            tool_calls: message
                .tool_calls
                .iter()
                .map(|c| protocol::ToolCall {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    arguments: c.arguments.clone(),
                })
                .collect(),
        }),
        Role::Tool | Role::System => None,
    }
}

impl RunOutcome {
    /// The protocol's `turn_finished` for this outcome.
    pub fn to_protocol(&self) -> EventKind {
        EventKind::TurnFinished {
            status: match self.status {
                RunStatus::Success => "success",
                RunStatus::MaxSteps => "max_steps",
                RunStatus::Cancelled => "cancelled",
                RunStatus::TimedOut => "timed_out",
                RunStatus::BudgetExceeded => "budget_exceeded",
                RunStatus::Error => "error",
            }
            .to_string(),
            result: self.result.clone(),
            steps: self.steps,
            usage: protocol::TurnUsage {
                input_tokens: self.usage.input_tokens,
                output_tokens: self.usage.output_tokens,
                cache_read_tokens: self.usage.cache_read_tokens,
                cache_miss_tokens: self.usage.cache_miss_tokens,
                reasoning_tokens: self.usage.reasoning_tokens,
                requests: self.usage.requests,
            },
            cost: self.cost.as_ref().map(|c| protocol::Cost {
                total: c.total,
                currency: c.currency.clone(),
            }),
        }
    }
}

/// One file change as the protocol says it.
pub fn change(c: &reasonix_core::types::FileChange) -> protocol::FileChange {
    protocol::FileChange {
        path: c.path.clone(),
        kind: match c.kind {
            ChangeKind::Create => "create",
            ChangeKind::Modify => "modify",
            ChangeKind::Delete => "delete",
        }
        .to_string(),
        old_text: c.old_text.clone(),
        new_text: c.new_text.clone(),
    }
}
