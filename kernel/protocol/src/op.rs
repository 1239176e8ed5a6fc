//! What a front end asks of a session: one JSON object each, handled in the order submitted.
//! Answers to questions and `cancel` act at once (a turn waits on them); the rest run between
//! turns. The published JSON Schema is `docs/schemas/protocol/op.json`.

use serde::{Deserialize, Serialize};

/// An operation submitted to a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// A user turn: what the user typed. A custom command (`/name args`), an MCP prompt
    /// command and `@server:uri` references are expanded as in the interactive session.
    Prompt { text: String },
    /// Allow the call a `question` event asked about.
    Approve {
        question_id: String,
        /// How far the answer reaches; `once` when left out.
        #[serde(default)]
        scope: Scope,
        /// For `session` and `always`: one of the question's `scopes` (default: its first,
        /// the narrowest). An answer is never wider than what the question offered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
    /// Refuse the call a `question` event asked about; `note` is what the model is told.
    Deny {
        question_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Stop the turn in progress (its open questions are withdrawn).
    Cancel {},
    /// Stop one running sub-agent (`agent_id` as its events name it, `main/<call id>`) and
    /// its own children; the turn goes on, the child's call answered as cancelled.
    CancelAgent { agent_id: String },
    /// Compact the history now, keeping what `focus` names.
    Compact {
        #[serde(default, skip_serializing_if = "String::is_empty")]
        focus: String,
    },
    /// Go on with another model (a provider name, `provider/model`, or a model name) from
    /// the next turn.
    SetModel { model: String },
    /// The reasoning effort from the next request (`None`: the provider's default).
    SetEffort {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        effort: Option<String>,
    },
    /// Take back a rule granted for this session.
    Revoke { rule: String },
    /// Go on in a new, empty session.
    NewSession {},
    /// Go on in a saved session.
    Resume { session_id: String },
    /// Rewind to the start of `turn`: its files (`code`), its conversation, or both.
    Rewind {
        turn: u32,
        code: bool,
        conversation: bool,
    },
    /// Undo the latest rewind.
    UndoRewind {},
    /// Go on in a copy of this session (cut before `turn`, when given).
    Fork {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn: Option<u32>,
    },
    /// End the session.
    Quit {},
}

/// How far an approval reaches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// This call only.
    #[default]
    Once,
    /// Calls the rule covers, for the rest of the session.
    Session,
    /// Calls the rule covers, from now on: the rule is added to `[permissions] allow` of the
    /// user's own configuration file.
    Always,
}
