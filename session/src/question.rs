//! An approval question and its answers: what the session asks, what a front end answers,
//! and what the answer did.

use reasonix_agent::permissions::Preview;
use std::path::PathBuf;

/// One question waiting for the user.
#[derive(Debug, Clone)]
pub struct Question {
    /// Unique within the session (`q1`, `q2` …): what an answer names.
    pub id: String,
    pub call_id: String,
    pub tool: String,
    /// The call's arguments, pretty-printed.
    pub arguments: String,
    /// Why the rules ask (an `ask` rule, a protected file, the fallback).
    pub reason: String,
    /// Rules the answer could be saved as, narrowest first.
    pub scopes: Vec<String>,
    pub preview: Preview,
    /// The sub-agent asking (its label); `None` for the main agent.
    pub agent: Option<String>,
    /// A plan to approve (plan mode's `exit_plan_mode`): "once" goes on asking, "session"
    /// in `auto`, a denial's note sends it back.
    pub plan: Option<String>,
}

/// A user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Once,
    /// For the session: this rule (one of the question's scopes), else the narrowest.
    Session(Option<String>),
    /// For good: the rule is added to the user's configuration file.
    Always(Option<String>),
    /// Refused, with the note the model reads.
    Deny(Option<String>),
}

/// What an answer did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answered {
    Once,
    Session(String),
    Persisted {
        rule: String,
        file: PathBuf,
    },
    /// "Always" could not be written; the rule holds for this session only.
    SessionOnly {
        rule: String,
        why: String,
    },
    Denied(Option<String>),
    /// The turn was cancelled before an answer came.
    Withdrawn,
}

impl Answered {
    /// What it did, in the user's words.
    pub fn summary(&self) -> String {
        match self {
            Answered::Once => "allowed once".into(),
            Answered::Session(rule) => format!("allowed for this session: {rule}"),
            Answered::Persisted { rule, file } => {
                format!("always allowed: {rule} (written to {})", file.display())
            }
            Answered::SessionOnly { why, .. } => format!("allowed for this session only: {why}"),
            Answered::Denied(Some(note)) => format!("denied; the model is told: {note}"),
            Answered::Denied(None) => "denied".into(),
            Answered::Withdrawn => "withdrawn: the turn was cancelled".into(),
        }
    }

    /// The rule granted for the session (also when "always" was written).
    pub fn granted(&self) -> Option<&str> {
        match self {
            Answered::Session(rule)
            | Answered::Persisted { rule, .. }
            | Answered::SessionOnly { rule, .. } => Some(rule),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("no open question `{0}` (it was answered, withdrawn, or never asked)")]
    Unknown(String),
    #[error("`{rule}` is not one of the rules question `{question}` offered ({offered})")]
    NotOffered {
        question: String,
        rule: String,
        offered: String,
    },
    #[error("question `{0}` offered no rule to grant beyond this call: answer once or deny")]
    NoScope(String),
}
