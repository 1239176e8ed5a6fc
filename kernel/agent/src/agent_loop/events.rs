//! What the agent reports while it works, and what a run ends with. These are the kernel's
//! internal events: front ends map them to their own output (the `stream-json` public schema is
//! defined by the CLI, separately, so it can stay stable while these evolve).

use super::cost::{Cost, Spend};
use crate::completion::RetryNotice;
use crate::types::{Message, Usage};
use serde::Serialize;

/// One thing that happened during a run, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// A model request is about to be sent (1-based; counts toward `--max-steps`).
    RequestStarted { step: u32 },
    /// The request failed before streaming and will be retried after `notice.delay`.
    Retry(RetryNotice),
    /// A piece of answer text, as it streams.
    TextDelta(String),
    /// A piece of reasoning text, as it streams.
    ReasoningDelta(String),
    /// A cut or stalled stream was replayed and the replay says something other than what
    /// was already shown of the answer text (or, with `reasoning`, of the reasoning): what was
    /// shown of it is void, and the deltas that follow repeat it from its start. (A replay that
    /// repeats what was shown only sends what it adds, with no such event.)
    StreamRestarted { reasoning: bool },
    /// A complete message was appended to the conversation (the user task, an assistant
    /// answer with its tool calls, or a tool result).
    Message(Message),
    /// What a file writer that is about to run will change (from its `preview`), for front
    /// ends that asked for it ([`super::Agent::with_write_previews`]); just before the
    /// matching `ToolStarted`.
    ToolPreview {
        id: String,
        changes: Vec<crate::types::FileChange>,
    },
    /// A tool call is about to run (after the permission check passed).
    ToolStarted {
        id: String,
        name: String,
        arguments: String,
    },
    /// A running call reported progress (MCP `notifications/progress`): a message and, when
    /// the tool knows its total, the fraction done.
    ToolProgress {
        id: String,
        message: String,
        fraction: Option<f32>,
    },
    /// The offered tools changed between two turns (an MCP server became ready, failed for
    /// good or said its list changed); the provider's prefix cache starts over from here.
    ToolsChanged {
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// A tool call finished; `output` is exactly what the model receives.
    ToolFinished {
        id: String,
        name: String,
        is_error: bool,
        output: String,
        duration_ms: u64,
    },
    /// Token usage of one model request.
    Usage(Usage),
    /// Something the user should know that is not an error: a replay after a cut stream, a
    /// loop guard firing, a tool blocked by permissions.
    Notice(String),
    /// The history was compacted before a model request (or by `/compact`): the
    /// provider-visible prefix changes here, and only here. `number` counts the session's
    /// compactions from 1; the tokens are estimates of the next request's prompt.
    Compacted {
        tier: crate::compaction::Tier,
        number: u32,
        tokens_before: u64,
        tokens_after: u64,
        manual: bool,
    },
    /// A tool call was refused before running (a permission rule or posture, or an
    /// interceptor). No `Notice` repeats it: a front end says it once, as it shows denials
    /// (`run`: a `note:` / `notice` line; the session: the denied card). `arguments` is the raw
    /// text the model sent; `reason` the refusal the model receives.
    PermissionDenied {
        id: String,
        name: String,
        arguments: String,
        reason: String,
    },
    /// Something a sub-agent did, as it happened (ADR 0035): `event` is the child's own event
    /// (itself a `Child` for a grandchild's).
    Child {
        child: ChildRef,
        event: Box<AgentEvent>,
    },
    /// A sub-agent starts: the first event inside its `Child`.
    SubagentStarted {
        profile: String,
        description: String,
        /// `provider/model`.
        model: String,
        /// Its own session, when it keeps one.
        session_id: Option<String>,
    },
    /// A sub-agent ended: the last event inside its `Child`.
    SubagentFinished {
        /// [`reasonix_core::delegation::ChildStatus::as_str`].
        status: String,
        steps: u32,
    },
}

/// Which sub-agent an event is from, as its parent knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildRef {
    /// The parent's `task` / `fleet` / `parallel_tasks` call that started it.
    pub call_id: String,
    /// Its part of the agent id (`<call id>`, or `<call id>.<n>` in a batch): the child of
    /// agent `main` is `main/<id>`.
    pub id: String,
    /// Profile and description, for people (cards, questions).
    pub label: String,
}

impl AgentEvent {
    /// The event without its `Child` wrappers, and the children it passed through, outermost
    /// first (empty for the agent's own event).
    pub fn lineage(&self) -> (Vec<&ChildRef>, &AgentEvent) {
        let mut path = Vec::new();
        let mut event = self;
        while let AgentEvent::Child {
            child,
            event: inner,
        } = event
        {
            path.push(child);
            event = inner;
        }
        (path, event)
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The model answered without tool calls.
    Success,
    /// `--max-steps` model requests were made and the model still wanted tools.
    MaxSteps,
    /// Ctrl-C / SIGTERM.
    Cancelled,
    /// The run's time limit (`reasonix run --timeout`, `[agent] run_timeout`) was reached;
    /// `result` names it and what the run was waiting for.
    TimedOut,
    /// The session's spend reached the budget (`reasonix run --max-budget-usd`) before a
    /// model request; `result` names the budget and the spend.
    BudgetExceeded,
    /// The provider failed for good, or the loop guard stopped a stuck run.
    Error,
}

pub use crate::cost::UsageTotals;

/// What a run ends with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunOutcome {
    pub status: RunStatus,
    /// The final answer text (the last assistant message), or the error message.
    pub result: String,
    /// Model requests made in this run.
    pub steps: u32,
    pub usage: UsageTotals,
    /// The run's cost when every priced request was in one currency (see `spend`).
    pub cost: Option<Cost>,
    /// The run's usage and cost by model.
    pub spend: Spend,
    pub session_id: Option<String>,
    /// Why the model stopped its final answer (`None` when the run ended without one: an
    /// error, a cancel, `--max-steps`). `Length` and `ContentFilter` mean the answer in
    /// `result` is incomplete; see [`RunOutcome::cut_off`].
    pub stop_reason: Option<crate::types::FinishReason>,
}

impl RunOutcome {
    /// A successful run whose final answer was cut off by the output limit or a content
    /// filter: `result` holds only what came before the cut.
    pub fn cut_off(&self) -> bool {
        self.status == RunStatus::Success
            && matches!(
                self.stop_reason,
                Some(
                    crate::types::FinishReason::Length | crate::types::FinishReason::ContentFilter
                )
            )
    }
}

/// The notice for an answer the model did not finish (`None` for a finished one).
pub fn cut_off_notice(finish: crate::types::FinishReason) -> Option<String> {
    use crate::types::FinishReason;
    match finish {
        FinishReason::Length => Some(
            "the answer was cut off: the model hit its output limit (finish_reason: length)".into(),
        ),
        FinishReason::ContentFilter => Some(
            "the answer was cut off: the provider's content filter stopped it \
             (finish_reason: content_filter)"
                .into(),
        ),
        FinishReason::Stop | FinishReason::ToolCalls | FinishReason::Other => None,
    }
}
