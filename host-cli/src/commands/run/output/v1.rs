//! `--output-format stream-json-v1`: the schema-1 lines of Reasonix 0.1 (`assistant` content
//! as a string, `tool_calls`, top-level `tool_result`), projected from the session protocol's
//! events. A PUBLIC schema (docs/RUN.md): a field is only ever added, never renamed or
//! removed, without a new [`SCHEMA_VERSION`].

use super::result::{PublicUsage, ResultObject};
use super::{Init, McpServerLine, input};
use crate::wording::{english, not_run, restarted_text, tools_changed};
use reasonix_protocol::{Event, EventKind};
use serde::Serialize;
use serde_json::Value;

/// The version of the `stream-json-v1` schema, on its first line.
pub const SCHEMA_VERSION: u32 = 1;

/// A tool call inside an `assistant` line.
#[derive(Debug, Clone, Serialize)]
pub struct PublicToolCall {
    pub id: String,
    pub name: String,
    /// The arguments parsed as JSON; the raw text when they are not valid JSON.
    pub input: Value,
}

#[derive(Debug, Clone, Serialize)]
pub struct AssistantMessage {
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    pub tool_calls: Vec<PublicToolCall>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UserMessage {
    pub content: String,
}

/// One `stream-json-v1` line.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line {
    System {
        subtype: &'static str,
        schema_version: u32,
        #[serde(flatten)]
        init: Init,
    },
    /// A model request starts (1-based).
    Turn {
        turn: u32,
    },
    Text {
        text: String,
    },
    Reasoning {
        text: String,
    },
    User {
        message: UserMessage,
    },
    Assistant {
        message: AssistantMessage,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        id: String,
        name: String,
        is_error: bool,
        content: String,
        duration_ms: u64,
    },
    Retry {
        provider: String,
        attempt: u32,
        max_retries: u32,
        delay_ms: u64,
        reason: String,
    },
    Notice {
        message: String,
    },
    /// A running call's progress (MCP `notifications/progress`).
    ToolProgress {
        id: String,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        fraction: Option<f32>,
    },
    Usage {
        usage: PublicUsage,
    },
    /// The history was compacted (docs/COMPACTION.md).
    Compaction {
        tier: String,
        number: u32,
        tokens_before: u64,
        tokens_after: u64,
        manual: bool,
    },
    /// A sub-agent starts (its own lines carry `agent_id` and `parent_agent_id`).
    SubagentStarted {
        call_id: String,
        profile: String,
        description: String,
        model: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// A sub-agent ended: `answered`, `refused`, `failed` or `cancelled`.
    SubagentFinished {
        call_id: String,
        status: String,
        steps: u32,
    },
    Result(ResultObject),
}

impl Line {
    /// The line for a protocol event; `None` for events the schema does not carry (the turn
    /// and session bookkeeping, questions, previews).
    pub fn of(event: &Event) -> Option<Line> {
        Some(match &event.kind {
            EventKind::SessionStarted {
                provider,
                model,
                cwd,
                tools,
                permission_mode,
                resumed_messages,
                mcp_servers,
            } => Line::System {
                subtype: "init",
                schema_version: SCHEMA_VERSION,
                init: Init {
                    session_id: event.session_id.clone().unwrap_or_default(),
                    model: model.clone(),
                    provider: provider.clone(),
                    cwd: cwd.clone(),
                    tools: tools.clone(),
                    permission_mode: permission_mode.clone(),
                    resumed_messages: usize::try_from(*resumed_messages).unwrap_or(usize::MAX),
                    mcp_servers: mcp_servers.iter().map(McpServerLine::of_protocol).collect(),
                },
            },
            EventKind::RequestStarted { step } => Line::Turn { turn: *step },
            EventKind::Retry {
                provider,
                attempt,
                max_retries,
                delay_ms,
                reason,
            } => Line::Retry {
                provider: provider.clone(),
                attempt: *attempt,
                max_retries: *max_retries,
                delay_ms: *delay_ms,
                reason: reason.clone(),
            },
            EventKind::TextDelta { text } => Line::Text { text: text.clone() },
            EventKind::ReasoningDelta { text } => Line::Reasoning { text: text.clone() },
            EventKind::UserMessage { text, .. } => Line::User {
                message: UserMessage {
                    content: text.clone(),
                },
            },
            EventKind::AssistantMessage {
                text,
                reasoning,
                tool_calls,
            } => Line::Assistant {
                message: AssistantMessage {
                    content: text.clone(),
                    reasoning: reasoning.clone(),
                    tool_calls: tool_calls
                        .iter()
                        .map(|c| PublicToolCall {
                            id: c.id.clone(),
                            name: c.name.clone(),
                            input: input(&c.arguments),
                        })
                        .collect(),
                },
            },
            EventKind::ToolStarted {
                call_id,
                name,
                arguments,
            } => Line::ToolUse {
                id: call_id.clone(),
                name: name.clone(),
                input: input(arguments),
            },
            EventKind::ToolFinished {
                call_id,
                name,
                is_error,
                output,
                duration_ms,
            } => Line::ToolResult {
                id: call_id.clone(),
                name: name.clone(),
                is_error: *is_error,
                content: output.clone(),
                duration_ms: *duration_ms,
            },
            EventKind::Usage(u) => Line::Usage {
                usage: PublicUsage::of_request(u),
            },
            EventKind::Notice { text } => Line::Notice {
                message: text.clone(),
            },
            EventKind::StreamRestarted { reasoning } => Line::Notice {
                message: english(|| restarted_text(*reasoning)),
            },
            EventKind::ToolProgress {
                call_id,
                message,
                fraction,
            } => Line::ToolProgress {
                id: call_id.clone(),
                message: message.clone(),
                fraction: *fraction,
            },
            EventKind::ToolsChanged { added, removed } => Line::Notice {
                message: english(|| tools_changed(added, removed)),
            },
            EventKind::Compacted {
                tier,
                number,
                tokens_before,
                tokens_after,
                manual,
            } => Line::Compaction {
                tier: tier.clone(),
                number: *number,
                tokens_before: *tokens_before,
                tokens_after: *tokens_after,
                manual: *manual,
            },
            EventKind::PermissionDenied { name, reason, .. } => Line::Notice {
                message: english(|| not_run(name, reason)),
            },
            EventKind::SubagentStarted {
                call_id,
                profile,
                description,
                model,
                session_id,
            } => Line::SubagentStarted {
                call_id: call_id.clone(),
                profile: profile.clone(),
                description: description.clone(),
                model: model.clone(),
                session_id: session_id.clone(),
            },
            EventKind::SubagentFinished {
                call_id,
                status,
                steps,
            } => Line::SubagentFinished {
                call_id: call_id.clone(),
                status: status.clone(),
                steps: *steps,
            },
            EventKind::TurnStarted {}
            | EventKind::ToolPreview { .. }
            | EventKind::Question { .. }
            | EventKind::QuestionClosed { .. }
            | EventKind::SessionChanged { .. }
            | EventKind::ModelChanged { .. }
            | EventKind::Rewound { .. }
            | EventKind::OpFailed { .. }
            | EventKind::TurnFinished { .. } => return None,
        })
    }
}
