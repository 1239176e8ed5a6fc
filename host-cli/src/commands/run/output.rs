//! What `reasonix run` prints, per `--output-format`.
//!
//! The `stream-json` lines and the result object are a PUBLIC schema (docs/RUN.md,
//! `schema_version` 1): the types here are separate from the kernel's `AgentEvent`, which may
//! change; a field is only ever added to them, never renamed or removed, without a new
//! `schema_version`.

use crate::term;
use reasonix_agent::agent_loop::{AgentEvent, ModelSpend, RunOutcome, RunStatus, UsageTotals};
use reasonix_core::terminal::shown;
use reasonix_core::types::{FinishReason, Message, Role, Usage};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The version of the `stream-json-v1` schema, on its first line.
pub const SCHEMA_VERSION: u32 = 1;
/// The version of the `stream-json` schema (Claude Code's shapes), on its first line.
pub const CLAUDE_SCHEMA_VERSION: u32 = 2;

/// `--output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Streamed answer on stdout; tool activity, notices and retries on stderr.
    Text,
    /// One result object at the end.
    Json,
    /// One JSON event per line in Claude Code's shapes (schema 2), the result object last.
    StreamJson,
    /// The schema-1 event lines of Reasonix 0.1 (`assistant` content as a string,
    /// `tool_calls`, top-level `tool_result`), the result object last.
    #[value(name = "stream-json-v1")]
    StreamJsonV1,
    /// The session protocol's events (`reasonix-protocol`, docs/PROTOCOL.md), one JSON object
    /// per line: every line names the session, agent and turn and carries the next `seq`.
    Events,
}

/// The first `stream-json` line.
#[derive(Debug, Clone, Serialize)]
pub struct Init {
    pub session_id: String,
    pub model: String,
    pub provider: String,
    pub cwd: String,
    pub tools: Vec<String>,
    pub permission_mode: String,
    /// The session already held this many messages (`--continue` / `--resume`).
    pub resumed_messages: usize,
    /// The MCP servers and how they stand when the run starts (Claude Code's field).
    pub mcp_servers: Vec<McpServerLine>,
}

/// One MCP server in the `init` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpServerLine {
    pub name: String,
    /// `connected`, `failed`, `pending`, `disabled` or `not-approved`.
    pub status: &'static str,
}

impl McpServerLine {
    pub fn of(status: &reasonix_mcp::ServerStatus) -> McpServerLine {
        use reasonix_mcp::ServerState;
        McpServerLine {
            name: status.name.clone(),
            status: match status.state {
                ServerState::Ready { .. } => "connected",
                ServerState::Failed { .. } => "failed",
                ServerState::Starting => "pending",
                ServerState::Disabled => "disabled",
                ServerState::NotApproved => "not-approved",
            },
        }
    }
}

/// Token counts with Anthropic's meaning, as Claude Code–style consumers expect:
/// `input_tokens` are the prompt tokens NOT read from the cache; the whole prompt is
/// `input_tokens + cache_read_input_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PublicUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    /// Always 0: no supported backend bills cache writes separately in what it reports.
    pub cache_creation_input_tokens: u64,
    /// Part of `output_tokens`.
    pub reasoning_tokens: u64,
}

impl PublicUsage {
    fn of_request(u: &Usage) -> PublicUsage {
        PublicUsage {
            input_tokens: u.prompt_tokens.saturating_sub(u.cache_hit_tokens),
            output_tokens: u.completion_tokens,
            cache_read_input_tokens: u.cache_hit_tokens,
            cache_creation_input_tokens: 0,
            reasoning_tokens: u.reasoning_tokens,
        }
    }

    fn of_run(u: &UsageTotals) -> PublicUsage {
        PublicUsage {
            input_tokens: u.input_tokens.saturating_sub(u.cache_read_tokens),
            output_tokens: u.output_tokens,
            cache_read_input_tokens: u.cache_read_tokens,
            cache_creation_input_tokens: 0,
            reasoning_tokens: u.reasoning_tokens,
        }
    }
}

/// The result object: the whole `json` output and the last `stream-json` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultObject {
    /// `success`, `error_max_turns`, `error_during_execution` or `cancelled`.
    pub subtype: &'static str,
    pub is_error: bool,
    pub duration_ms: u64,
    /// Model requests made in this run.
    pub num_turns: u32,
    /// The final answer, or what went wrong.
    pub result: String,
    pub session_id: Option<String>,
    pub usage: PublicUsage,
    /// The cost in US dollars (Claude Code's field, always a number: consumers format it).
    /// `0` when there is no price in dollars, with `total_cost_usd_unpriced`.
    pub total_cost_usd: f64,
    /// `total_cost_usd` is not a cost: no price, or prices in another currency.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub total_cost_usd_unpriced: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<f64>,
    /// ISO 4217 code of `total_cost` (`USD`, `CNY` …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// Why the model stopped its final answer: `stop`, `length` (the output limit),
    /// `content_filter`, `tool_calls`, `other`; `null` when the run ended without one.
    pub stop_reason: Option<&'static str>,
    /// Tool calls refused before running, in order.
    pub permission_denials: Vec<PermissionDenial>,
    /// Usage and cost by model (`provider/model`), in Claude Code's `modelUsage` shape plus
    /// `cost`/`currency` for any currency.
    #[serde(rename = "modelUsage")]
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// `--json-schema`: the final answer as the validated JSON value (Claude Code's field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
}

/// How a `--json-schema` run's final answer came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Structured {
    /// It validated: this value.
    Valid(Value),
    /// It still did not validate after the corrections: why.
    Invalid(String),
}

/// The result subtype of a `--json-schema` run whose answer never validated (Claude Code's).
pub const STRUCTURED_FAILED: &str = "error_max_structured_output_retries";

/// One model's share of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub requests: u32,
    #[serde(rename = "costUSD", skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
}

impl ModelUsage {
    fn of(spend: &ModelSpend) -> ModelUsage {
        let usage = PublicUsage::of_run(&spend.usage);
        let currency = spend.cost.as_ref().map(|c| currency_code(&c.currency));
        let cost = spend.cost.as_ref().map(|c| c.total);
        ModelUsage {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            cache_creation_input_tokens: 0,
            requests: spend.usage.requests,
            cost_usd: cost.filter(|_| currency.as_deref() == Some("USD")),
            cost,
            currency,
        }
    }
}

/// One refused tool call, as Claude Code names its fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PermissionDenial {
    pub tool_name: String,
    pub tool_use_id: String,
    /// The arguments parsed as JSON; the raw text when they are not valid JSON.
    pub tool_input: Value,
    /// The refusal, as the model received it.
    pub reason: String,
}

pub use crate::wording::{compacted, restarted, tools_changed};
pub use reasonix_agent::agent_loop::cost::currency_code;

impl ResultObject {
    pub fn new(
        outcome: &RunOutcome,
        duration_ms: u64,
        permission_denials: Vec<PermissionDenial>,
    ) -> ResultObject {
        let currency = outcome.cost.as_ref().map(|c| currency_code(&c.currency));
        let total_cost = outcome.cost.as_ref().map(|c| c.total);
        let usd = total_cost.filter(|_| currency.as_deref() == Some("USD"));
        ResultObject {
            subtype: subtype(&outcome.status),
            // A cut-off answer is an error unless `[agent] accept_cut_off_answer` (see
            // `Printer::accept_cut_off`).
            is_error: outcome.status != RunStatus::Success || outcome.cut_off(),
            duration_ms,
            num_turns: outcome.steps,
            result: outcome.result.clone(),
            session_id: outcome.session_id.clone(),
            usage: PublicUsage::of_run(&outcome.usage),
            total_cost_usd: usd.unwrap_or(0.0),
            total_cost_usd_unpriced: usd.is_none(),
            total_cost,
            currency,
            stop_reason: outcome.stop_reason.map(stop_reason),
            permission_denials,
            model_usage: outcome
                .spend
                .models
                .iter()
                .map(|m| (format!("{}/{}", m.provider, m.model), ModelUsage::of(m)))
                .collect(),
            structured_output: None,
        }
    }
}

/// The result object's `stop_reason`: the wire-neutral finish reason, snake_case.
pub fn stop_reason(finish: FinishReason) -> &'static str {
    match finish {
        FinishReason::Stop => "stop",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::Length => "length",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Other => "other",
    }
}

pub fn subtype(status: &RunStatus) -> &'static str {
    match status {
        RunStatus::Success => "success",
        RunStatus::MaxSteps => "error_max_turns",
        RunStatus::Error => "error_during_execution",
        RunStatus::Cancelled => "cancelled",
        RunStatus::TimedOut => "error_timeout",
        RunStatus::BudgetExceeded => "error_max_budget_usd",
    }
}

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

/// One `stream-json` line.
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
        tier: &'static str,
        number: u32,
        tokens_before: u64,
        tokens_after: u64,
        manual: bool,
    },
    Result(ResultObject),
}

/// How `run` says a call was refused before running ([`AgentEvent::PermissionDenied`]).
fn denied(name: &str, reason: &str) -> String {
    format!("`{name}` not run: {reason}")
}

impl Line {
    /// The public line for an internal event; `None` for events the schema does not carry
    /// (tool messages: `tool_result` already has them).
    pub fn from_event(event: &AgentEvent) -> Option<Line> {
        Some(match event {
            AgentEvent::RequestStarted { step } => Line::Turn { turn: *step },
            AgentEvent::Retry(n) => Line::Retry {
                provider: n.provider.clone(),
                attempt: n.attempt,
                max_retries: n.max_retries,
                delay_ms: u64::try_from(n.delay.as_millis()).unwrap_or(u64::MAX),
                reason: n.reason.clone(),
            },
            AgentEvent::TextDelta(text) => Line::Text { text: text.clone() },
            AgentEvent::ReasoningDelta(text) => Line::Reasoning { text: text.clone() },
            AgentEvent::Message(m) => match m.role {
                Role::User => Line::User {
                    message: UserMessage {
                        content: m.content.clone(),
                    },
                },
                Role::Assistant => Line::Assistant {
                    message: assistant(m),
                },
                Role::Tool | Role::System => return None,
            },
            AgentEvent::ToolStarted {
                id,
                name,
                arguments,
            } => Line::ToolUse {
                id: id.clone(),
                name: name.clone(),
                input: input(arguments),
            },
            AgentEvent::ToolFinished {
                id,
                name,
                is_error,
                output,
                duration_ms,
                ..
            } => Line::ToolResult {
                id: id.clone(),
                name: name.clone(),
                is_error: *is_error,
                content: output.clone(),
                duration_ms: *duration_ms,
            },
            AgentEvent::Usage(u) => Line::Usage {
                usage: PublicUsage::of_request(u),
            },
            AgentEvent::Notice(message) => Line::Notice {
                message: message.clone(),
            },
            AgentEvent::StreamRestarted { reasoning } => Line::Notice {
                message: restarted(*reasoning).to_string(),
            },
            AgentEvent::ToolProgress {
                id,
                message,
                fraction,
            } => Line::ToolProgress {
                id: id.clone(),
                message: message.clone(),
                fraction: *fraction,
            },
            AgentEvent::ToolsChanged { .. } => Line::Notice {
                message: tools_changed(event),
            },
            AgentEvent::Compacted {
                tier,
                number,
                tokens_before,
                tokens_after,
                manual,
            } => Line::Compaction {
                tier: tier.as_str(),
                number: *number,
                tokens_before: *tokens_before,
                tokens_after: *tokens_after,
                manual: *manual,
            },
            AgentEvent::PermissionDenied { name, reason, .. } => Line::Notice {
                message: denied(name, reason),
            },
            AgentEvent::ToolPreview { .. } => return None,
        })
    }
}

/// The `stream-json` line (Claude Code's shapes) for an internal event; `None` for events it
/// does not carry. Messages become `assistant` / `user` lines with content blocks; a tool's
/// result is a `user` line with a `tool_result` block. Reasonix-only events keep their
/// schema-1 `type`s (`turn`, `text`, `reasoning`, `tool_use`, `usage`, `retry`, `notice`),
/// which a Claude Code consumer ignores.
fn claude_line(event: &AgentEvent, model: &str) -> Option<Value> {
    match event {
        AgentEvent::Message(m) => match m.role {
            Role::User => Some(json!({
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": m.content}]},
                "parent_tool_use_id": null,
            })),
            Role::Assistant => {
                let mut content = Vec::new();
                if let Some(thinking) = m.reasoning.as_deref().filter(|t| !t.is_empty()) {
                    content.push(json!({"type": "thinking", "thinking": thinking}));
                }
                if !m.content.is_empty() {
                    content.push(json!({"type": "text", "text": m.content}));
                }
                for call in &m.tool_calls {
                    content.push(json!({
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.name,
                        "input": input(&call.arguments),
                    }));
                }
                Some(json!({
                    "type": "assistant",
                    "message": {
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": content,
                    },
                    "parent_tool_use_id": null,
                }))
            }
            Role::Tool | Role::System => None,
        },
        AgentEvent::ToolFinished {
            id,
            name,
            is_error,
            output,
            duration_ms,
            ..
        } => Some(json!({
            "type": "user",
            "message": {
                "role": "user",
                "content": [{
                    "type": "tool_result",
                    "tool_use_id": id,
                    "content": output,
                    "is_error": is_error,
                    "name": name,
                    "duration_ms": duration_ms,
                }],
            },
            "parent_tool_use_id": null,
        })),
        other => Line::from_event(other).and_then(|line| serde_json::to_value(line).ok()),
    }
}

fn assistant(m: &Message) -> AssistantMessage {
    AssistantMessage {
        content: m.content.clone(),
        reasoning: m.reasoning.clone(),
        tool_calls: m
            .tool_calls
            .iter()
            .map(|c| PublicToolCall {
                id: c.id.clone(),
                name: c.name.clone(),
                input: input(&c.arguments),
            })
            .collect(),
    }
}

fn input(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}

/// Writes one run's output. Write errors (a closed pipe) are ignored: the run and its
/// session go on, and the exit code still tells how it ended.
pub struct Printer {
    format: Format,
    /// `-p`: text mode prints only the final answer.
    print_only: bool,
    /// `--show-thinking`: reasoning to stderr in text mode.
    show_thinking: bool,
    /// Text mode: the last byte written to stdout was a newline (or nothing was written).
    stdout_at_line_start: bool,
    stderr_at_line_start: bool,
    /// Text mode: tool calls started and not finished yet, in order.
    started: Vec<String>,
    /// Text mode: the last notice shown (a refusal is not shown twice).
    last_notice: Option<String>,
    /// Refused tool calls, for the result object.
    denials: Vec<PermissionDenial>,
    /// `stream-json`: the session and model every line names.
    session_id: String,
    model: String,
    /// `[agent] accept_cut_off_answer`: a cut-off final answer is not an error.
    accept_cut_off: bool,
    /// `--json-schema`: what came of the final answer.
    structured: Option<Structured>,
    /// `--include-partial-messages` (stream-json): the streamed message so far.
    partial: Option<super::partial::Partial>,
    /// `events`: the stream's numbering, and whether a turn is open.
    events: reasonix_protocol::Sequencer,
    turn_open: bool,
}

impl Printer {
    pub fn new(format: Format, print_only: bool, show_thinking: bool) -> Printer {
        Printer {
            format,
            print_only,
            show_thinking,
            stdout_at_line_start: true,
            stderr_at_line_start: true,
            started: Vec::new(),
            last_notice: None,
            denials: Vec::new(),
            session_id: String::new(),
            model: String::new(),
            accept_cut_off: false,
            structured: None,
            partial: None,
            events: reasonix_protocol::Sequencer::main(None),
            turn_open: false,
        }
    }

    /// `--include-partial-messages`: `stream_event` lines as the answer streams (stream-json
    /// only).
    pub fn include_partial(mut self, include: bool) -> Printer {
        self.partial =
            (include && self.format == Format::StreamJson).then(super::partial::Partial::default);
        self
    }

    /// `--json-schema`: the final answer validated (`structured_output`), or never did (the
    /// run fails with [`STRUCTURED_FAILED`]).
    pub fn structured(&mut self, structured: Structured) {
        self.structured = Some(structured);
    }

    /// `[agent] accept_cut_off_answer = true`: a final answer cut off by the output limit or
    /// a content filter ends the run as a success (`is_error: false`).
    pub fn accept_cut_off(mut self, accept: bool) -> Printer {
        self.accept_cut_off = accept;
        self
    }

    pub fn init(&mut self, init: Init) {
        self.session_id = init.session_id.clone();
        self.model = init.model.clone();
        if self.format == Format::Events {
            self.events
                .set_session(Some(init.session_id.clone()).filter(|id| !id.is_empty()));
            self.protocol(reasonix_protocol::EventKind::SessionStarted {
                provider: init.provider.clone(),
                model: init.model.clone(),
                cwd: init.cwd.clone(),
                tools: init.tools.clone(),
                permission_mode: init.permission_mode.clone(),
            });
        }
        if self.format == Format::StreamJson {
            let mut value = json!({
                "type": "system",
                "subtype": "init",
                "schema_version": CLAUDE_SCHEMA_VERSION,
                "permissionMode": init.permission_mode,
            });
            if let (Some(map), Ok(Value::Object(fields))) =
                (value.as_object_mut(), serde_json::to_value(&init))
            {
                map.extend(fields);
            }
            self.value_line(value);
        }
        if self.format == Format::StreamJsonV1 {
            self.line(&Line::System {
                subtype: "init",
                schema_version: SCHEMA_VERSION,
                init,
            });
        }
    }

    pub fn event(&mut self, event: &AgentEvent) {
        if let AgentEvent::PermissionDenied {
            id,
            name,
            arguments,
            reason,
        } = event
        {
            self.denials.push(PermissionDenial {
                tool_name: name.clone(),
                tool_use_id: id.clone(),
                tool_input: input(arguments),
                reason: reason.clone(),
            });
        }
        match self.format {
            Format::StreamJson => {
                let partial = match &mut self.partial {
                    Some(partial) => partial.events(event, &self.model),
                    None => Vec::new(),
                };
                for inner in partial {
                    self.value_line(json!({
                        "type": "stream_event",
                        "event": inner,
                        "parent_tool_use_id": null,
                    }));
                }
                if let Some(value) = claude_line(event, &self.model) {
                    self.value_line(value);
                }
            }
            Format::StreamJsonV1 => {
                if let Some(line) = Line::from_event(event) {
                    self.line(&line);
                }
            }
            Format::Events => {
                if let Some(kind) = event.to_protocol() {
                    self.protocol(kind);
                }
            }
            Format::Json => self.stderr_notice(event),
            Format::Text => self.text(event),
        }
    }

    /// `events`: `kind` as the next line, opening the turn first when none is open.
    fn protocol(&mut self, kind: reasonix_protocol::EventKind) {
        let starts_turn = !matches!(kind, reasonix_protocol::EventKind::SessionStarted { .. });
        if starts_turn && !self.turn_open {
            self.turn_open = true;
            let turn = self.events.start_turn();
            self.event_line(&turn);
        }
        let event = self.events.next(kind);
        self.event_line(&event);
    }

    /// `events`: a session event that is not the agent's (a question, a session change, an
    /// operation that failed): inside the open turn, or between turns without opening one.
    pub fn protocol_event(&mut self, kind: reasonix_protocol::EventKind) {
        let event = self.events.next(kind);
        self.event_line(&event);
    }

    fn event_line(&mut self, event: &reasonix_protocol::Event) {
        match serde_json::to_string(event) {
            Ok(text) => self.stdout_line(&text),
            Err(e) => self.stderr(&format!("error: cannot encode an event: {e}\n")),
        }
    }

    /// The end of the run: the result object, or the answer / error in text mode.
    pub fn finish(&mut self, outcome: &RunOutcome, duration_ms: u64) {
        let mut result = ResultObject::new(outcome, duration_ms, std::mem::take(&mut self.denials));
        if result.session_id.is_none() && !self.session_id.is_empty() {
            // A run that writes no session still names the id its lines carry.
            result.session_id = Some(self.session_id.clone());
        }
        if self.accept_cut_off && outcome.cut_off() {
            result.is_error = false;
        }
        let mut failed = outcome.status != RunStatus::Success;
        match self.structured.take() {
            Some(Structured::Valid(value)) => result.structured_output = Some(value),
            Some(Structured::Invalid(why)) => {
                result.subtype = STRUCTURED_FAILED;
                result.is_error = true;
                result.result = why;
                failed = true;
            }
            None => {}
        }
        match self.format {
            Format::Events => {
                if outcome.session_id.is_some() {
                    self.events.set_session(outcome.session_id.clone());
                }
                let mut kind = outcome.to_protocol();
                if let reasonix_protocol::EventKind::TurnFinished {
                    status,
                    result: text,
                    ..
                } = &mut kind
                    && result.subtype == STRUCTURED_FAILED
                {
                    *status = "error".to_string();
                    *text = result.result.clone();
                }
                self.protocol(kind);
                self.turn_open = false;
            }
            Format::StreamJsonV1 | Format::Json => self.line(&Line::Result(result)),
            Format::StreamJson => match serde_json::to_value(Line::Result(result)) {
                Ok(value) => self.value_line(value),
                Err(e) => self.stderr(&format!("error: cannot encode the result: {e}\n")),
            },
            Format::Text => {
                if !failed {
                    if self.print_only {
                        let mut text = outcome.result.clone();
                        if !text.ends_with('\n') {
                            text.push('\n');
                        }
                        self.stdout(&text);
                    } else {
                        self.end_stdout_line();
                    }
                } else {
                    self.end_stdout_line();
                    self.stderr(&format!("error: {}\n", result.result));
                }
                if !self.print_only {
                    self.stderr(&format!("{}\n", summary(&result)));
                }
            }
        }
    }

    fn text(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::TextDelta(text) if !self.print_only => {
                // Shown reasoning ends its line before the answer starts.
                if !self.stderr_at_line_start {
                    self.stderr("\n");
                }
                self.stdout(text);
            }
            AgentEvent::ReasoningDelta(text) if self.show_thinking && !self.print_only => {
                self.stderr(text)
            }
            // What was printed cannot be taken back: mark where the answer starts again.
            AgentEvent::StreamRestarted { reasoning: false } if !self.print_only => {
                self.end_stdout_line();
                self.stdout(&format!("[{}]\n", restarted(false)));
            }
            AgentEvent::StreamRestarted { reasoning: true }
                if self.show_thinking && !self.print_only =>
            {
                self.stderr_fresh(&format!("[{}]\n", restarted(true)));
            }
            AgentEvent::Message(m) if m.role == Role::Assistant && !self.print_only => {
                self.end_stdout_line();
                if !self.stderr_at_line_start {
                    self.stderr("\n");
                }
            }
            AgentEvent::ToolStarted {
                id,
                name,
                arguments,
            } if !self.print_only => {
                let args = input(arguments);
                let args = match &args {
                    Value::String(raw) => raw.clone(),
                    other => other.to_string(),
                };
                self.stderr_fresh(&format!("→ {} {}\n", shown(name), shown(&clip(&args, 160))));
                self.started.push(id.clone());
            }
            AgentEvent::ToolFinished {
                id,
                name,
                is_error,
                output,
                ..
            } if !self.print_only => {
                let first = clip(output.lines().next().unwrap_or(""), 200);
                let ran = self.started.iter().any(|s| s == id);
                // Calls refused before running were already explained by a notice.
                if !ran
                    && self
                        .last_notice
                        .as_deref()
                        .is_some_and(|n| n.contains(output.as_str()))
                {
                    return;
                }
                // Name the call unless its `→` line is right above.
                let who = if self.started.last() == Some(id) && self.started.len() == 1 {
                    String::new()
                } else {
                    format!("{}: ", shown(name))
                };
                let line = match (ran, *is_error) {
                    (false, _) => format!("✗ {} not run: {first}\n", shown(name)),
                    (true, true) => format!("← {who}error: {first}\n"),
                    (true, false) => {
                        let n = output.lines().count();
                        format!("← {who}ok {n} line{}\n", if n == 1 { "" } else { "s" })
                    }
                };
                self.stderr_fresh(&line);
                self.started.retain(|s| s != id);
            }
            _ => self.stderr_notice(event),
        }
    }

    /// Retries and notices go to stderr in text and json mode.
    fn stderr_notice(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::Retry(n) => {
                let line = format!(
                    "retrying ({}/{}) in {:.1} s: {}\n",
                    n.attempt,
                    n.max_retries,
                    n.delay.as_secs_f64(),
                    n.reason
                );
                self.stderr_fresh(&line);
            }
            AgentEvent::Notice(message) => {
                self.stderr_fresh(&format!("note: {message}\n"));
                self.last_notice = Some(message.clone());
            }
            AgentEvent::PermissionDenied { name, reason, .. } => {
                let message = denied(name, reason);
                self.stderr_fresh(&format!("note: {message}\n"));
                self.last_notice = Some(message);
            }
            AgentEvent::ToolsChanged { .. } => {
                self.stderr_fresh(&format!("note: {}\n", tools_changed(event)));
            }
            AgentEvent::Compacted { .. } => {
                self.stderr_fresh(&format!("note: {}\n", compacted(event)));
            }
            _ => {}
        }
    }

    /// A `stream-json` line: `session_id` added when the line has none.
    fn value_line(&mut self, mut value: Value) {
        if let Some(map) = value.as_object_mut()
            && map.get("session_id").is_none_or(Value::is_null)
        {
            map.insert("session_id".into(), Value::String(self.session_id.clone()));
        }
        self.stdout_line(&value.to_string());
    }

    fn line(&mut self, line: &Line) {
        match serde_json::to_string(line) {
            Ok(text) => self.stdout_line(&text),
            Err(e) => self.stderr(&format!("error: cannot encode an event: {e}\n")),
        }
    }

    /// One JSON event, with the characters a terminal obeys as `\uXXXX` escapes.
    fn stdout_line(&mut self, text: &str) {
        term::json_out(text);
    }

    fn stdout(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        // The model's text: escape sequences escaped, newlines and tabs kept.
        term::write_out(text);
        self.stdout_at_line_start = text.ends_with('\n');
    }

    fn end_stdout_line(&mut self) {
        if !self.stdout_at_line_start {
            self.stdout("\n");
        }
    }

    fn stderr(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        term::write_err(text);
        self.stderr_at_line_start = text.ends_with('\n');
    }

    /// On a line of its own, even after streamed reasoning.
    fn stderr_fresh(&mut self, text: &str) {
        if !self.stderr_at_line_start {
            self.stderr("\n");
        }
        self.stderr(text);
    }
}

/// `3 turns · 1200 in + 800 cached · 56 out · 0.0012 USD · session <id>`.
fn summary(r: &ResultObject) -> String {
    let mut parts = vec![format!(
        "{} turn{}",
        r.num_turns,
        if r.num_turns == 1 { "" } else { "s" }
    )];
    parts.push(format!(
        "{} in + {} cached · {} out tokens",
        r.usage.input_tokens, r.usage.cache_read_input_tokens, r.usage.output_tokens
    ));
    if let (Some(cost), Some(currency)) = (r.total_cost, &r.currency) {
        parts.push(format!("{cost:.4} {currency}"));
    }
    if let Some(id) = &r.session_id {
        parts.push(format!("session {id}"));
    }
    format!("[{}]", parts.join(" · "))
}

/// At most `max` characters, with `…` when cut.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reasonix_agent::agent_loop::Cost;
    use reasonix_core::types::ToolCall;

    fn outcome(status: RunStatus) -> RunOutcome {
        RunOutcome {
            status,
            result: "done".into(),
            steps: 2,
            usage: UsageTotals {
                input_tokens: 1000,
                output_tokens: 50,
                cache_read_tokens: 800,
                cache_miss_tokens: 200,
                reasoning_tokens: 5,
                requests: 2,
            },
            cost: None,
            spend: Default::default(),
            session_id: Some("s1".into()),
            stop_reason: None,
        }
    }

    #[test]
    fn result_object_fields() {
        let value = serde_json::to_value(Line::Result(ResultObject::new(
            &outcome(RunStatus::Success),
            12,
            Vec::new(),
        )))
        .unwrap();
        assert_eq!(value["type"], "result");
        assert_eq!(value["subtype"], "success");
        assert_eq!(value["is_error"], false);
        assert_eq!(value["duration_ms"], 12);
        assert_eq!(value["num_turns"], 2);
        assert_eq!(value["result"], "done");
        assert_eq!(value["session_id"], "s1");
        assert_eq!(value["usage"]["input_tokens"], 200);
        assert_eq!(value["usage"]["cache_read_input_tokens"], 800);
        assert_eq!(value["usage"]["cache_creation_input_tokens"], 0);
        assert_eq!(value["usage"]["output_tokens"], 50);
        assert!(value.get("total_cost").is_none());
        assert!(value.get("currency").is_none());

        let mut priced = outcome(RunStatus::MaxSteps);
        priced.cost = Some(Cost {
            total: 0.5,
            currency: "CNY".into(),
        });
        let value = serde_json::to_value(ResultObject::new(&priced, 1, Vec::new())).unwrap();
        assert_eq!(value["subtype"], "error_max_turns");
        assert_eq!(value["is_error"], true);
        assert_eq!(value["total_cost"], 0.5);
        assert_eq!(value["currency"], "CNY");
        assert_eq!(subtype(&RunStatus::Error), "error_during_execution");
        assert_eq!(subtype(&RunStatus::Cancelled), "cancelled");
        assert_eq!(subtype(&RunStatus::TimedOut), "error_timeout");
        assert_eq!(subtype(&RunStatus::BudgetExceeded), "error_max_budget_usd");
    }

    #[test]
    fn a_cut_off_answer_is_an_error_unless_accepted() {
        let mut run = outcome(RunStatus::Success);
        run.stop_reason = Some(FinishReason::Length);
        let value = serde_json::to_value(ResultObject::new(&run, 1, Vec::new())).unwrap();
        assert_eq!(value["stop_reason"], "length");
        assert_eq!(value["subtype"], "success");
        assert_eq!(value["is_error"], true);
        run.stop_reason = Some(FinishReason::ContentFilter);
        let value = serde_json::to_value(ResultObject::new(&run, 1, Vec::new())).unwrap();
        assert_eq!(value["stop_reason"], "content_filter");
        run.stop_reason = Some(FinishReason::Stop);
        let value = serde_json::to_value(ResultObject::new(&run, 1, Vec::new())).unwrap();
        assert_eq!(value["stop_reason"], "stop");
        assert_eq!(value["is_error"], false);
        let value =
            serde_json::to_value(ResultObject::new(&outcome(RunStatus::Error), 1, Vec::new()))
                .unwrap();
        assert_eq!(value["stop_reason"], Value::Null);
    }

    #[test]
    fn events_map_to_public_lines() {
        let message = Message {
            role: Role::Assistant,
            content: "writing".into(),
            reasoning: None,
            reasoning_state: Some("opaque".into()),
            tool_calls: vec![
                ToolCall {
                    id: "c1".into(),
                    name: "write_file".into(),
                    arguments: r#"{"path":"a"}"#.into(),
                },
                ToolCall {
                    id: "c2".into(),
                    name: "ls".into(),
                    arguments: "{cut".into(),
                },
            ],
            tool_call_id: None,
            raw_content: None,
            images: Vec::new(),
        };
        let line = Line::from_event(&AgentEvent::Message(message)).unwrap();
        let value = serde_json::to_value(line).unwrap();
        assert_eq!(value["type"], "assistant");
        assert_eq!(value["message"]["content"], "writing");
        assert_eq!(value["message"]["tool_calls"][0]["input"]["path"], "a");
        assert_eq!(value["message"]["tool_calls"][1]["input"], "{cut");
        // The provider's opaque reasoning state is not part of the public schema.
        assert!(!value.to_string().contains("opaque"));

        let tool_message = Message {
            role: Role::Tool,
            content: "x".into(),
            reasoning: None,
            reasoning_state: None,
            tool_calls: vec![],
            tool_call_id: Some("c1".into()),
            raw_content: None,
            images: Vec::new(),
        };
        assert!(Line::from_event(&AgentEvent::Message(tool_message)).is_none());

        let value = serde_json::to_value(
            Line::from_event(&AgentEvent::ToolFinished {
                id: "c1".into(),
                name: "write_file".into(),
                is_error: true,
                output: "Permission needed".into(),
                duration_ms: 0,
            })
            .unwrap(),
        )
        .unwrap();
        assert_eq!(value["type"], "tool_result");
        assert_eq!(value["is_error"], true);
        assert_eq!(value["content"], "Permission needed");

        let value = serde_json::to_value(Line::System {
            subtype: "init",
            schema_version: SCHEMA_VERSION,
            init: Init {
                session_id: "s".into(),
                model: "m".into(),
                provider: "p".into(),
                cwd: "/w".into(),
                tools: vec!["ls".into()],
                permission_mode: "ask".into(),
                resumed_messages: 0,
                mcp_servers: vec![McpServerLine {
                    name: "docs".into(),
                    status: "connected",
                }],
            },
        })
        .unwrap();
        assert_eq!(value["type"], "system");
        assert_eq!(value["subtype"], "init");
        assert_eq!(value["schema_version"], 1);
        assert_eq!(value["tools"][0], "ls");
        assert_eq!(value["mcp_servers"][0]["name"], "docs");
        assert_eq!(value["mcp_servers"][0]["status"], "connected");
    }

    #[test]
    fn currencies_are_iso_codes() {
        for (configured, code) in [
            ("$", "USD"),
            ("usd", "USD"),
            (" USD ", "USD"),
            ("¥", "CNY"),
            ("￥", "CNY"),
            ("RMB", "CNY"),
            ("cny", "CNY"),
            ("€", "EUR"),
            ("gbp", "GBP"),
            ("credits", "credits"),
        ] {
            assert_eq!(currency_code(configured), code, "{configured}");
        }
        let mut priced = outcome(RunStatus::Success);
        priced.cost = Some(Cost {
            total: 0.25,
            currency: "$".into(),
        });
        let value = serde_json::to_value(ResultObject::new(&priced, 1, Vec::new())).unwrap();
        assert_eq!(value["total_cost_usd"], 0.25);
        assert_eq!(value["currency"], "USD");
        assert_eq!(value["permission_denials"], serde_json::json!([]));
    }

    #[test]
    fn model_usage_is_listed_per_model_in_its_currency() {
        use reasonix_agent::agent_loop::{Cost, Spend};
        let usage = |prompt, hit, out| Usage {
            prompt_tokens: prompt,
            completion_tokens: out,
            cache_hit_tokens: hit,
            cache_miss_tokens: prompt - hit,
            reasoning_tokens: 0,
        };
        let mut spend = Spend::default();
        let cny = Cost {
            total: 0.5,
            currency: "CNY".into(),
        };
        let usd = Cost {
            total: 0.25,
            currency: "USD".into(),
        };
        spend.add("deepseek", "v4", &usage(100, 60, 10), Some(&cny));
        spend.add("deepseek", "v4", &usage(200, 150, 20), Some(&cny));
        spend.add("openai", "gpt", &usage(50, 0, 5), Some(&usd));
        let mut run = outcome(RunStatus::Success);
        run.cost = spend.single_total();
        run.spend = spend;
        let value = serde_json::to_value(ResultObject::new(&run, 1, Vec::new())).unwrap();
        // Two currencies: no single total, each model in its own.
        assert!(value.get("total_cost").is_none(), "{value}");
        let deepseek = &value["modelUsage"]["deepseek/v4"];
        assert_eq!(deepseek["inputTokens"], 90);
        assert_eq!(deepseek["cacheReadInputTokens"], 210);
        assert_eq!(deepseek["outputTokens"], 30);
        assert_eq!(deepseek["requests"], 2);
        assert_eq!(deepseek["cost"], 1.0);
        assert_eq!(deepseek["currency"], "CNY");
        assert!(deepseek.get("costUSD").is_none());
        assert_eq!(value["modelUsage"]["openai/gpt"]["costUSD"], 0.25);
    }

    #[test]
    fn claude_lines_use_content_blocks() {
        let message = Message {
            role: Role::Assistant,
            content: "ok".into(),
            reasoning: Some("hmm".into()),
            reasoning_state: Some("opaque".into()),
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "ls".into(),
                arguments: "{}".into(),
            }],
            tool_call_id: None,
            raw_content: None,
            images: Vec::new(),
        };
        let value = claude_line(&AgentEvent::Message(message), "m").unwrap();
        assert_eq!(value["type"], "assistant");
        assert_eq!(value["message"]["model"], "m");
        let blocks = value["message"]["content"].as_array().unwrap();
        assert_eq!(blocks[0]["type"], "thinking");
        assert_eq!(blocks[0]["thinking"], "hmm");
        assert_eq!(blocks[1]["text"], "ok");
        assert_eq!(blocks[2]["type"], "tool_use");
        assert_eq!(blocks[2]["id"], "c1");
        assert!(!value.to_string().contains("opaque"));
        let value = claude_line(
            &AgentEvent::ToolFinished {
                id: "c1".into(),
                name: "ls".into(),
                is_error: true,
                output: "no".into(),
                duration_ms: 3,
            },
            "m",
        )
        .unwrap();
        assert_eq!(value["type"], "user");
        let block = &value["message"]["content"][0];
        assert_eq!(block["type"], "tool_result");
        assert_eq!(block["tool_use_id"], "c1");
        assert_eq!(block["is_error"], true);
        assert_eq!(block["content"], "no");
    }

    #[test]
    fn clip_counts_characters() {
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("hi", 2), "hi");
    }
}
