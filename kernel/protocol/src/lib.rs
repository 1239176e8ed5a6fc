//! The session protocol: every event a Reasonix session reports, as one JSON object each, in
//! the order it happened. `reasonix run --output-format events` prints them as lines; a server,
//! an editor bridge or a fleet of headless runs reads the same objects. The published JSON
//! Schema is `docs/schemas/protocol/event.json`; a test keeps it in step with these types.
//!
//! Every event names its session, the agent that produced it (`main` for the top-level one; a
//! sub-agent names its parent), the user turn it belongs to (`turn_id`, from 1; 0 before the
//! first turn) and its place in the stream (`seq`, from 1, one more on every event of the
//! stream, whatever its agent). One fact is one event: a tool's result is in `tool_finished`
//! only, never repeated as a message.
#![forbid(unsafe_code)]

mod op;

pub use op::{Op, Scope};
use serde::{Deserialize, Serialize};

/// The protocol's version; `v` of every event. A consumer refuses a version it does not know.
pub const VERSION: u32 = 1;

/// The id of the top-level agent of a session.
pub const MAIN_AGENT: &str = "main";

/// One event of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Event {
    /// [`VERSION`].
    pub v: u32,
    /// The session's id; `None` for a run that keeps no session.
    pub session_id: Option<String>,
    /// The agent that produced it: [`MAIN_AGENT`], or a sub-agent's id.
    pub agent_id: String,
    /// The agent that started this one; `None` for the top-level agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_agent_id: Option<String>,
    /// The user turn, from 1; 0 for what comes before the first.
    pub turn_id: u64,
    /// The place in the stream, from 1, one more on every event.
    pub seq: u64,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// The session is ready: the first event.
    SessionStarted {
        provider: String,
        model: String,
        /// The workspace.
        cwd: String,
        /// The tools offered to the model, by name.
        tools: Vec<String>,
        /// `ask`, `acceptEdits`, `auto`, `dontAsk` or `bypassPermissions`.
        permission_mode: String,
        /// The session already held this many messages (a resumed session).
        #[serde(default, skip_serializing_if = "is_zero_u64")]
        resumed_messages: u64,
        /// The MCP servers and how they stand when the session starts.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        mcp_servers: Vec<McpServer>,
    },
    /// A user turn begins.
    TurnStarted {},
    /// The user's message, as the model gets it (commands and references expanded).
    UserMessage {
        text: String,
        /// Images attached to it.
        #[serde(default, skip_serializing_if = "is_zero")]
        images: u32,
    },
    /// A model request is about to be sent (1-based within the turn).
    RequestStarted { step: u32 },
    /// The request failed before streaming and is retried after `delay_ms`.
    Retry {
        provider: String,
        attempt: u32,
        max_retries: u32,
        delay_ms: u64,
        reason: String,
    },
    /// A piece of answer text, as it streams.
    TextDelta { text: String },
    /// A piece of reasoning text, as it streams.
    ReasoningDelta { text: String },
    /// A replayed stream says something else than what was shown: the answer (or, with
    /// `reasoning`, the reasoning) shown so far is void and the deltas repeat it from its start.
    StreamRestarted { reasoning: bool },
    /// The model's complete message: its text, reasoning and tool calls.
    AssistantMessage {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
        tool_calls: Vec<ToolCall>,
    },
    /// What a file writer about to run will change.
    ToolPreview {
        call_id: String,
        changes: Vec<FileChange>,
    },
    /// A tool call starts (its permission check passed).
    ToolStarted {
        call_id: String,
        name: String,
        /// The arguments as JSON text.
        arguments: String,
    },
    /// A running call reported progress.
    ToolProgress {
        call_id: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fraction: Option<f32>,
    },
    /// A tool call ended; `output` is exactly what the model receives.
    ToolFinished {
        call_id: String,
        name: String,
        is_error: bool,
        output: String,
        duration_ms: u64,
    },
    /// A tool call was refused before running; `reason` is what the model receives.
    PermissionDenied {
        call_id: String,
        name: String,
        arguments: String,
        reason: String,
    },
    /// A sub-agent starts (ADR 0035): its first event, under its own `agent_id`
    /// (`<parent>/<call id>`, `<parent>/<call id>.<n>` in a batch) with `parent_agent_id`.
    SubagentStarted {
        /// The parent's `task` / `fleet` / `parallel_tasks` call.
        call_id: String,
        profile: String,
        description: String,
        /// `provider/model`.
        model: String,
        /// Its own session (transcript), when it keeps one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// A sub-agent ended: `status` is `answered`, `refused`, `failed` or `cancelled`.
    SubagentFinished {
        call_id: String,
        status: String,
        steps: u32,
    },
    /// The offered tools changed between two turns.
    ToolsChanged {
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// Token usage of one model request.
    Usage(Usage),
    /// Something the user should know that is not an error.
    Notice { text: String },
    /// The history was compacted (`tier`: `snip`, `prune` or `summary`); token counts are
    /// estimates of the next request's prompt.
    Compacted {
        tier: String,
        number: u32,
        tokens_before: u64,
        tokens_after: u64,
        manual: bool,
    },
    /// A call waits for the user's answer: an `approve` or `deny` operation naming
    /// `question_id`. A cancelled turn withdraws it (`question_closed`).
    Question {
        question_id: String,
        call_id: String,
        tool: String,
        /// The arguments as JSON text.
        arguments: String,
        /// Why the rules ask.
        reason: String,
        /// Rules an approval for the session or for good could be saved as, narrowest first.
        scopes: Vec<String>,
        /// What a file writer would change, when it could say.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        changes: Option<Vec<FileChange>>,
        /// Why a file writer could not say what it would change.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        preview_error: Option<String>,
        /// The sub-agent asking (its label), absent for the main agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        /// A plan to approve (plan mode): `once` approves it and goes on asking, `session`
        /// goes on in `auto`, `deny` with a note sends it back to the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan: Option<String>,
    },
    /// A question is no longer open: `answer` is `once`, `session`, `always`, `denied` or
    /// `withdrawn`; `rule` is the rule granted; `note` what a denial tells the model or why
    /// `always` was kept to the session.
    QuestionClosed {
        question_id: String,
        answer: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// The session changed (`new_session`, `resume`, `fork`): the session's id now, and how
    /// many messages its history holds.
    SessionChanged { session_id: String, messages: u64 },
    /// The model changed (`set_model`) from the next turn.
    ModelChanged { provider: String, model: String },
    /// A rewind or its undo was done; the history now holds `messages` messages.
    Rewound {
        messages: u64,
        /// The prompt of the turn rewound to, when the conversation went back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
        /// Files the rewind restored.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        files_restored: Option<u64>,
    },
    /// An operation could not be done; nothing changed.
    OpFailed { error: String },
    /// The turn ended.
    TurnFinished {
        /// `success`, `max_steps`, `cancelled`, `timed_out`, `budget_exceeded` or `error`.
        status: String,
        /// The final answer, or what went wrong.
        result: String,
        /// Model requests made in the turn.
        steps: u32,
        usage: TurnUsage,
        /// The turn's cost, when the provider's prices are configured and in one currency.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost: Option<Cost>,
    },
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// An MCP server of the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct McpServer {
    pub name: String,
    /// `connected`, `failed`, `pending`, `disabled` or `not-approved`.
    pub status: String,
}

/// A tool call of an assistant message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// JSON text.
    pub arguments: String,
}

/// One file a writer will change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct FileChange {
    pub path: String,
    /// `create`, `modify` or `delete`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_text: Option<String>,
}

/// Token usage of one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cache_hit_tokens: u64,
    pub cache_miss_tokens: u64,
    pub reasoning_tokens: u64,
}

/// Token totals of a turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct TurnUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_miss_tokens: u64,
    pub reasoning_tokens: u64,
    pub requests: u32,
}

/// Money spent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Cost {
    pub total: f64,
    /// The configured currency (`USD`, `CNY` …).
    pub currency: String,
}

/// Numbers the events of one stream: `seq` one more each time, `turn_id` one more at each
/// [`Sequencer::start_turn`].
#[derive(Debug, Clone)]
pub struct Sequencer {
    session_id: Option<String>,
    agent_id: String,
    parent_agent_id: Option<String>,
    turn_id: u64,
    seq: u64,
}

impl Sequencer {
    /// The top-level agent's events of session `session_id`.
    pub fn main(session_id: Option<String>) -> Sequencer {
        Sequencer {
            session_id,
            agent_id: MAIN_AGENT.to_string(),
            parent_agent_id: None,
            turn_id: 0,
            seq: 0,
        }
    }

    /// The session's id from now on (a run learns it once the session is written).
    pub fn set_session(&mut self, session_id: Option<String>) {
        self.session_id = session_id;
    }

    /// The next turn; returns its [`EventKind::TurnStarted`] event.
    pub fn start_turn(&mut self) -> Event {
        self.turn_id += 1;
        self.next(EventKind::TurnStarted {})
    }

    /// `kind` as the next event of the stream, from sub-agent `agent_id` started by
    /// `parent_agent_id`.
    pub fn next_as(&mut self, agent_id: String, parent_agent_id: String, kind: EventKind) -> Event {
        let mut event = self.next(kind);
        event.agent_id = agent_id;
        event.parent_agent_id = Some(parent_agent_id);
        event
    }

    /// `kind` as the next event of the stream.
    pub fn next(&mut self, kind: EventKind) -> Event {
        self.seq += 1;
        Event {
            v: VERSION,
            session_id: self.session_id.clone(),
            agent_id: self.agent_id.clone(),
            parent_agent_id: self.parent_agent_id.clone(),
            turn_id: self.turn_id,
            seq: self.seq,
            kind,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// `docs/schemas/protocol/<name>.json` equals `value`; `REASONIX_BLESS=1 cargo test -p
    /// reasonix-protocol` rewrites it.
    fn published(name: &str, mut value: serde_json::Value, title: &str) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../docs/schemas/protocol/{name}.json"));
        value["title"] = serde_json::json!(format!("{title}, protocol v{VERSION}"));
        let text = serde_json::to_string_pretty(&value).unwrap() + "\n";
        if std::env::var_os("REASONIX_BLESS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
            return;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "docs/schemas/protocol/{name}.json is out of date with its type; run `REASONIX_BLESS=1 cargo test -p reasonix-protocol`"
        );
    }

    #[test]
    fn the_published_schema_matches_the_event_type() {
        published(
            "event",
            schemars::schema_for!(Event).to_value(),
            "Reasonix session event",
        );
    }

    #[test]
    fn the_published_schema_matches_the_op_type() {
        published(
            "op",
            schemars::schema_for!(Op).to_value(),
            "Reasonix session operation",
        );
    }

    #[test]
    fn ops_are_tagged_lines_and_refuse_what_they_do_not_know() {
        let op: Op = serde_json::from_str(r#"{"type":"approve","question_id":"q1"}"#).unwrap();
        assert_eq!(
            op,
            Op::Approve {
                question_id: "q1".into(),
                scope: Scope::Once,
                rule: None
            }
        );
        let op: Op =
            serde_json::from_str(r#"{"type":"approve","question_id":"q2","scope":"always"}"#)
                .unwrap();
        assert!(matches!(
            op,
            Op::Approve {
                scope: Scope::Always,
                ..
            }
        ));
        assert_eq!(
            serde_json::to_string(&Op::Cancel {}).unwrap(),
            r#"{"type":"cancel"}"#
        );
        // A typo is an error, not an operation that silently does less.
        let wrong = serde_json::from_str::<Op>(r#"{"type":"deny","question":"q1"}"#);
        assert!(wrong.is_err());
        let unknown = serde_json::from_str::<Op>(r#"{"type":"approve_all"}"#);
        assert!(unknown.is_err());
    }

    #[test]
    fn events_are_flat_lines_numbered_in_order() {
        let mut s = Sequencer::main(Some("s1".into()));
        let first = s.next(EventKind::Notice { text: "hi".into() });
        let turn = s.start_turn();
        let delta = s.next(EventKind::TextDelta { text: "a".into() });
        assert_eq!((first.turn_id, first.seq), (0, 1));
        assert_eq!((turn.turn_id, turn.seq), (1, 2));
        assert_eq!((delta.turn_id, delta.seq), (1, 3));
        let line = serde_json::to_string(&delta).unwrap();
        assert_eq!(
            line,
            r#"{"v":1,"session_id":"s1","agent_id":"main","turn_id":1,"seq":3,"type":"text_delta","text":"a"}"#
        );
        let back: Event = serde_json::from_str(&line).unwrap();
        assert_eq!(back, delta);
        let usage = s.next(EventKind::Usage(Usage {
            prompt_tokens: 5,
            ..Usage::default()
        }));
        let line = serde_json::to_string(&usage).unwrap();
        assert!(
            line.contains(r#""type":"usage","prompt_tokens":5"#),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<Event>(&line).unwrap(), usage);
    }

    mod parsing {
        use super::super::{Op, Scope};
        use proptest::prelude::*;

        fn scope() -> impl Strategy<Value = Scope> {
            prop_oneof![Just(Scope::Once), Just(Scope::Session), Just(Scope::Always)]
        }

        fn op() -> impl Strategy<Value = Op> {
            let text = ".{0,40}";
            prop_oneof![
                text.prop_map(|text| Op::Prompt { text }),
                (text, scope(), proptest::option::of(text)).prop_map(|(id, scope, rule)| {
                    Op::Approve {
                        question_id: id,
                        scope,
                        rule,
                    }
                }),
                (text, proptest::option::of(text)).prop_map(|(id, note)| Op::Deny {
                    question_id: id,
                    note
                }),
                Just(Op::Cancel {}),
                text.prop_map(|focus| Op::Compact { focus }),
                text.prop_map(|model| Op::SetModel { model }),
                (any::<u32>(), any::<bool>(), any::<bool>()).prop_map(
                    |(turn, code, conversation)| Op::Rewind {
                        turn,
                        code,
                        conversation
                    }
                ),
                proptest::option::of(any::<u32>()).prop_map(|turn| Op::Fork { turn }),
                Just(Op::Quit {}),
            ]
        }

        proptest! {
            /// What a client writes is what the session reads.
            #[test]
            fn every_op_survives_its_line(op in op()) {
                let line = serde_json::to_string(&op).unwrap();
                prop_assert!(!line.contains('\n'));
                prop_assert_eq!(serde_json::from_str::<Op>(&line).unwrap(), op);
            }

            /// A line from a client is untrusted input: any text is an op or an error, never a
            /// panic.
            #[test]
            fn any_line_is_an_op_or_an_error(line in ".{0,200}") {
                let _ = serde_json::from_str::<Op>(&line);
            }

            /// Near misses of real ops: a field added or a type misspelt is refused.
            #[test]
            fn unknown_fields_are_refused(op in op(), field in "[a-z]{1,8}") {
                let mut value = serde_json::to_value(&op).unwrap();
                let known = value.as_object().unwrap().contains_key(&field);
                value["x_".to_string() + &field] = serde_json::json!(1);
                prop_assume!(!known);
                prop_assert!(serde_json::from_value::<Op>(value).is_err());
            }
        }
    }
}
