//! What `reasonix run` prints, per `--output-format`. Every format is a projection of the
//! session protocol's events (`reasonix-protocol`, docs/PROTOCOL.md): the agent's events are
//! turned into protocol events once, numbered, and each format renders those: `events`
//! prints them as they are, `stream-json` ([`claude`]) and `stream-json-v1` ([`v1`]) map
//! them onto their public schemas (docs/RUN.md), `text` and `json` onto a terminal's lines.
//! The result object ([`result`]) sums up the turn's outcome.

mod claude;
mod partial;
mod result;
mod v1;

use crate::term;
use crate::wording::{compacted, not_run, restarted_text, tools_changed};
use reasonix_agent::agent_loop::{AgentEvent, RunOutcome, RunStatus};
use reasonix_core::terminal::shown;
use reasonix_i18n::t;
use reasonix_protocol::{Event, EventKind, Sequencer};
use serde::Serialize;
use serde_json::Value;

use result::summary;
pub use result::{PermissionDenial, ResultObject, STRUCTURED_FAILED, Structured};
use v1::Line;

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

/// How the run starts: the first line of every streamed format.
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
    pub status: String,
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
            }
            .to_string(),
        }
    }

    fn of_protocol(server: &reasonix_protocol::McpServer) -> McpServerLine {
        McpServerLine {
            name: server.name.clone(),
            status: server.status.clone(),
        }
    }
}

/// The arguments parsed as JSON; the raw text when they are not valid JSON.
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
    partial: Option<partial::Partial>,
    /// The stream's numbering, and whether a turn is open.
    events: Sequencer,
    turn_open: bool,
    /// Each sub-agent's model, by agent id (for its `stream-json` lines).
    child_models: std::collections::HashMap<String, String>,
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
            events: Sequencer::main(None),
            turn_open: false,
            child_models: std::collections::HashMap::new(),
        }
    }

    /// `--include-partial-messages`: `stream_event` lines as the answer streams (stream-json
    /// only).
    pub fn include_partial(mut self, include: bool) -> Printer {
        self.partial =
            (include && self.format == Format::StreamJson).then(partial::Partial::default);
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

    /// The session is ready: `session_started`.
    pub fn init(&mut self, init: Init) {
        self.session_id = init.session_id.clone();
        self.model = init.model.clone();
        self.events
            .set_session(Some(init.session_id.clone()).filter(|id| !id.is_empty()));
        let event = self.events.next(EventKind::SessionStarted {
            provider: init.provider,
            model: init.model,
            cwd: init.cwd,
            tools: init.tools,
            permission_mode: init.permission_mode,
            resumed_messages: init.resumed_messages as u64,
            mcp_servers: init
                .mcp_servers
                .into_iter()
                .map(|s| reasonix_protocol::McpServer {
                    name: s.name,
                    status: s.status,
                })
                .collect(),
        });
        self.print(&event);
    }

    /// One of the agent's events, as the protocol's.
    pub fn event(&mut self, event: &AgentEvent) {
        let Some(kind) = event.to_protocol() else {
            return;
        };
        let Some((agent_id, parent_agent_id)) = event.agent_ids() else {
            return self.agent_event(kind);
        };
        let (path, _) = event.lineage();
        let call_id = path.last().map(|c| c.call_id.clone()).unwrap_or_default();
        let label = path
            .iter()
            .map(|c| c.label.as_str())
            .collect::<Vec<_>>()
            .join(" › ");
        self.open_turn();
        let event = self.events.next_as(agent_id, parent_agent_id, kind);
        self.print_child(&event, &call_id, &label);
    }

    fn open_turn(&mut self) {
        if !self.turn_open {
            self.turn_open = true;
            let turn = self.events.start_turn();
            self.print(&turn);
        }
    }

    /// A sub-agent's event in the run's format: its own `agent_id` in `events`, its messages
    /// marked with `parent_tool_use_id` in `stream-json`, `agent_id` and `parent_agent_id` on
    /// its `stream-json-v1` lines, its activity labelled on stderr in text and json.
    fn print_child(&mut self, event: &Event, call_id: &str, label: &str) {
        if let EventKind::SubagentStarted { model, .. } = &event.kind {
            self.child_models
                .insert(event.agent_id.clone(), model.clone());
        }
        if let EventKind::PermissionDenied {
            call_id,
            name,
            arguments,
            reason,
        } = &event.kind
        {
            self.denials.push(PermissionDenial {
                tool_name: name.clone(),
                tool_use_id: call_id.clone(),
                tool_input: input(arguments),
                reason: reason.clone(),
            });
        }
        match self.format {
            Format::Events => match serde_json::to_string(event) {
                Ok(text) => self.stdout_line(&text),
                Err(e) => self.stderr(&format!("error: cannot encode an event: {e}\n")),
            },
            Format::StreamJson => {
                let model = self
                    .child_models
                    .get(&event.agent_id)
                    .cloned()
                    .unwrap_or_else(|| self.model.clone());
                if let Some(value) = claude::child_line(event, &model, call_id) {
                    self.value_line(value);
                }
            }
            Format::StreamJsonV1 => {
                if matches!(
                    event.kind,
                    EventKind::TextDelta { .. } | EventKind::ReasoningDelta { .. }
                ) {
                    return;
                }
                if let Some(line) = Line::of(event)
                    && let Ok(mut value) = serde_json::to_value(&line)
                {
                    if let Some(map) = value.as_object_mut() {
                        map.insert("agent_id".into(), Value::String(event.agent_id.clone()));
                        map.insert(
                            "parent_agent_id".into(),
                            Value::String(event.parent_agent_id.clone().unwrap_or_default()),
                        );
                    }
                    self.stdout_line(&value.to_string());
                }
            }
            Format::Json | Format::Text => self.child_text(&event.kind, label),
        }
    }

    /// A sub-agent's activity on stderr: when it starts and ends, its tool calls and notices,
    /// each labelled; never its answer text (stdout is the main agent's answer).
    fn child_text(&mut self, event: &EventKind, label: &str) {
        let label = shown(label);
        let line = match event {
            EventKind::SubagentStarted { model, .. } if self.format == Format::Text => {
                format!(
                    "{}\n",
                    t!(
                        "run-subagent-started",
                        label = label.to_string(),
                        model = shown(model).to_string()
                    )
                )
            }
            EventKind::SubagentFinished { status, steps, .. } if self.format == Format::Text => {
                let status = status.to_string();
                format!(
                    "{}\n",
                    t!(
                        "run-subagent-finished",
                        label = label.to_string(),
                        status = status,
                        steps = *steps
                    )
                )
            }
            EventKind::ToolStarted {
                name, arguments, ..
            } if self.format == Format::Text && !self.print_only => {
                let args = match input(arguments) {
                    Value::String(raw) => raw,
                    other => other.to_string(),
                };
                format!(
                    "{}\n",
                    t!(
                        "run-child-tool-started",
                        label = label.to_string(),
                        name = shown(name).to_string(),
                        arguments = shown(&clip(&args, 120)).to_string()
                    )
                )
            }
            EventKind::ToolFinished {
                name,
                is_error: true,
                output,
                ..
            } if self.format == Format::Text && !self.print_only => format!(
                "{}\n",
                t!(
                    "run-child-tool-error",
                    label = label.to_string(),
                    name = shown(name).to_string(),
                    first = shown(&clip(output.lines().next().unwrap_or(""), 200)).to_string()
                )
            ),
            EventKind::Notice { text } => format!(
                "{}\n",
                t!(
                    "run-child-note",
                    label = label.to_string(),
                    text = shown(text).to_string()
                )
            ),
            EventKind::PermissionDenied { name, reason, .. } => format!(
                "{}\n",
                t!(
                    "run-child-note",
                    label = label.to_string(),
                    text = shown(&not_run(name, reason)).to_string()
                )
            ),
            EventKind::Retry {
                attempt,
                max_retries,
                delay_ms,
                reason,
                ..
            } => format!(
                "{}\n",
                t!(
                    "run-child-retrying",
                    label = label.to_string(),
                    attempt = attempt.to_string(),
                    max = max_retries.to_string(),
                    delay = format!("{:.1}", *delay_ms as f64 / 1000.0),
                    reason = shown(reason).to_string()
                )
            ),
            _ => return,
        };
        if self.print_only && self.format == Format::Text {
            return;
        }
        self.stderr_fresh(&line);
    }

    /// An agent's event: inside the open turn, opening one first when none is open.
    fn agent_event(&mut self, kind: EventKind) {
        if !self.turn_open {
            self.turn_open = true;
            let turn = self.events.start_turn();
            self.print(&turn);
        }
        let event = self.events.next(kind);
        self.print(&event);
    }

    /// A session event that is not the agent's (a question, a session change, an operation
    /// that failed): inside the open turn, or between turns without opening one.
    pub fn protocol_event(&mut self, kind: EventKind) {
        let event = self.events.next(kind);
        self.print(&event);
    }

    /// `event` in the run's format.
    fn print(&mut self, event: &Event) {
        if let EventKind::PermissionDenied {
            call_id,
            name,
            arguments,
            reason,
        } = &event.kind
        {
            self.denials.push(PermissionDenial {
                tool_name: name.clone(),
                tool_use_id: call_id.clone(),
                tool_input: input(arguments),
                reason: reason.clone(),
            });
        }
        match self.format {
            Format::Events => match serde_json::to_string(event) {
                Ok(text) => self.stdout_line(&text),
                Err(e) => self.stderr(&format!("error: cannot encode an event: {e}\n")),
            },
            Format::StreamJson => {
                let partial = match &mut self.partial {
                    Some(partial) => partial.events(&event.kind, &self.model),
                    None => Vec::new(),
                };
                for inner in partial {
                    self.value_line(serde_json::json!({
                        "type": "stream_event",
                        "event": inner,
                        "parent_tool_use_id": null,
                    }));
                }
                if let Some(value) = claude::line(event, &self.model) {
                    self.value_line(value);
                }
            }
            Format::StreamJsonV1 => {
                if let Some(line) = Line::of(event) {
                    self.line(&line);
                }
            }
            Format::Json => self.stderr_notice(&event.kind),
            Format::Text => self.text(&event.kind),
        }
    }

    /// The end of the turn: `turn_finished`, or the result object, or the answer / error in
    /// text mode.
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
        if outcome.session_id.is_some() {
            self.events.set_session(outcome.session_id.clone());
        }
        let mut finished = outcome.to_protocol();
        if let EventKind::TurnFinished {
            status,
            result: text,
            ..
        } = &mut finished
            && result.subtype == STRUCTURED_FAILED
        {
            *status = "error".to_string();
            *text = result.result.clone();
        }
        self.agent_event(finished);
        self.turn_open = false;
        match self.format {
            Format::Events => {}
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

    fn text(&mut self, event: &EventKind) {
        match event {
            EventKind::TextDelta { text } if !self.print_only => {
                // Shown reasoning ends its line before the answer starts.
                if !self.stderr_at_line_start {
                    self.stderr("\n");
                }
                self.stdout(text);
            }
            EventKind::ReasoningDelta { text } if self.show_thinking && !self.print_only => {
                self.stderr(text)
            }
            // What was printed cannot be taken back: mark where the answer starts again.
            EventKind::StreamRestarted { reasoning: false } if !self.print_only => {
                self.end_stdout_line();
                self.stdout(&format!("[{}]\n", restarted_text(false)));
            }
            EventKind::StreamRestarted { reasoning: true }
                if self.show_thinking && !self.print_only =>
            {
                self.stderr_fresh(&format!("[{}]\n", restarted_text(true)));
            }
            EventKind::AssistantMessage { .. } if !self.print_only => {
                self.end_stdout_line();
                if !self.stderr_at_line_start {
                    self.stderr("\n");
                }
            }
            EventKind::ToolStarted {
                call_id,
                name,
                arguments,
            } if !self.print_only => {
                let args = input(arguments);
                let args = match &args {
                    Value::String(raw) => raw.clone(),
                    other => other.to_string(),
                };
                self.stderr_fresh(&format!("→ {} {}\n", shown(name), shown(&clip(&args, 160))));
                self.started.push(call_id.clone());
            }
            EventKind::ToolFinished {
                call_id,
                name,
                is_error,
                output,
                ..
            } if !self.print_only => {
                let first = clip(output.lines().next().unwrap_or(""), 200);
                let ran = self.started.iter().any(|s| s == call_id);
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
                let who = if self.started.last() == Some(call_id) && self.started.len() == 1 {
                    String::new()
                } else {
                    format!("{}: ", shown(name))
                };
                let line = match (ran, *is_error) {
                    (false, _) => t!(
                        "run-tool-not-run",
                        name = shown(name).to_string(),
                        first = first.to_string()
                    ),
                    (true, true) => t!(
                        "run-tool-error",
                        who = who.as_str(),
                        first = first.to_string()
                    ),
                    (true, false) => t!(
                        "run-tool-ok",
                        who = who.as_str(),
                        lines = output.lines().count()
                    ),
                };
                let line = format!("{line}\n");
                self.stderr_fresh(&line);
                self.started.retain(|s| s != call_id);
            }
            _ => self.stderr_notice(event),
        }
    }

    /// Retries and notices go to stderr in text and json mode.
    fn stderr_notice(&mut self, event: &EventKind) {
        match event {
            EventKind::Retry {
                attempt,
                max_retries,
                delay_ms,
                reason,
                ..
            } => {
                let line = format!(
                    "{}\n",
                    t!(
                        "run-retrying",
                        attempt = attempt.to_string(),
                        max = max_retries.to_string(),
                        delay = format!("{:.1}", *delay_ms as f64 / 1000.0),
                        reason = reason.as_str()
                    )
                );
                self.stderr_fresh(&line);
            }
            EventKind::Notice { text } => {
                self.stderr_fresh(&format!("{}\n", t!("run-note", text = text.as_str())));
                self.last_notice = Some(text.clone());
            }
            EventKind::PermissionDenied { name, reason, .. } => {
                let message = not_run(name, reason);
                self.stderr_fresh(&format!("{}\n", t!("run-note", text = message.as_str())));
                self.last_notice = Some(message);
            }
            EventKind::ToolsChanged { added, removed } => {
                let text = tools_changed(added, removed);
                self.stderr_fresh(&format!("{}\n", t!("run-note", text = text)));
            }
            EventKind::Compacted {
                tier,
                number,
                tokens_before,
                tokens_after,
                manual,
            } => {
                let text = compacted(tier, *number, *tokens_before, *tokens_after, *manual);
                self.stderr_fresh(&format!("{}\n", t!("run-note", text = text)));
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

/// At most `max` characters, with `…` when cut.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::result::{currency_code, subtype};
    use super::*;
    use reasonix_agent::agent_loop::{Cost, UsageTotals};
    use reasonix_core::types::{FinishReason, Message, Role, ToolCall, Usage};

    /// `event` as the protocol event a printer projects.
    fn numbered(event: &AgentEvent) -> Option<Event> {
        event
            .to_protocol()
            .map(|kind| Sequencer::main(Some("s".into())).next(kind))
    }

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
        let line = Line::of(&numbered(&AgentEvent::Message(message)).unwrap()).unwrap();
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
        assert!(numbered(&AgentEvent::Message(tool_message)).is_none());

        let value = serde_json::to_value(
            Line::of(
                &numbered(&AgentEvent::ToolFinished {
                    id: "c1".into(),
                    name: "write_file".into(),
                    is_error: true,
                    output: "Permission needed".into(),
                    duration_ms: 0,
                })
                .unwrap(),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(value["type"], "tool_result");
        assert_eq!(value["is_error"], true);
        assert_eq!(value["content"], "Permission needed");

        let value = serde_json::to_value(Line::System {
            subtype: "init",
            schema_version: v1::SCHEMA_VERSION,
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
                    status: "connected".into(),
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
        let value = claude::line(&numbered(&AgentEvent::Message(message)).unwrap(), "m").unwrap();
        assert_eq!(value["type"], "assistant");
        assert_eq!(value["message"]["model"], "m");
        let blocks = value["message"]["content"].as_array().unwrap();
        assert_eq!(blocks[0]["type"], "thinking");
        assert_eq!(blocks[0]["thinking"], "hmm");
        assert_eq!(blocks[1]["text"], "ok");
        assert_eq!(blocks[2]["type"], "tool_use");
        assert_eq!(blocks[2]["id"], "c1");
        assert!(!value.to_string().contains("opaque"));
        let finished = AgentEvent::ToolFinished {
            id: "c1".into(),
            name: "ls".into(),
            is_error: true,
            output: "no".into(),
            duration_ms: 3,
        };
        let value = claude::line(&numbered(&finished).unwrap(), "m").unwrap();
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
