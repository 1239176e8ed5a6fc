//! Sub-agents as a host tool sees them (ADR 0035): a tool that delegates (`task`, `fleet`,
//! `parallel_tasks`) describes the children it wants as [`ChildSpec`]s and hands them to the
//! [`AgentHost`] its call carries. The agent implements the host: it checks the limits and the
//! write claims, builds each child no stronger than its parent, runs it on the call's thread
//! under the call's cancellation and reports its events. Only the composition root's own tools
//! are given a host ([`crate::tool::Tool::delegates`]); a component, an MCP server or a sidecar
//! never is.

use std::sync::Arc;

/// Which tools a child is offered, always among its parent's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildTools {
    /// The parent's read-only tools, without delegation (an `explore` child).
    ReadOnly,
    /// Every tool the parent has.
    Inherit,
    /// These names (those the parent has; a name it lacks is dropped with a notice).
    Named(Vec<String>),
}

impl ChildTools {
    /// A child that can only read never claims a path.
    pub fn is_read_only(&self) -> bool {
        matches!(self, ChildTools::ReadOnly)
    }
}

/// One child a delegating tool asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildSpec {
    /// The profile it runs as (`explore`, `general`, a custom one), for people and hooks.
    pub profile: String,
    /// A short label (`description` of the call), shown on its card and with its questions.
    pub description: String,
    /// The task: the child's first and only user message.
    pub prompt: String,
    /// The child's system prompt before `system_prompt.build` (its profile's body).
    pub system_prompt: String,
    pub tools: ChildTools,
    /// A model reference (`provider/model` or an alias) among the user's configured models.
    pub model: Option<String>,
    pub effort: Option<String>,
    /// What a writer child may change, relative to the workspace; `None` claims the whole
    /// workspace (or, for a nested child, its parent's claim).
    pub write_paths: Option<Vec<String>>,
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildStatus {
    /// It gave its final answer.
    Answered,
    /// It was not started: a limit, a claim or its model refused it (the answer says why).
    Refused,
    /// It stopped before an answer (an error, its step limit, its budget).
    Failed,
    /// Its call, its parent's turn or the user cancelled it.
    Cancelled,
}

impl ChildStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChildStatus::Answered => "answered",
            ChildStatus::Refused => "refused",
            ChildStatus::Failed => "failed",
            ChildStatus::Cancelled => "cancelled",
        }
    }
}

/// What a child returns to its parent: its final answer (bounded), never its working context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildOutcome {
    pub status: ChildStatus,
    /// The final answer, or why there is none.
    pub answer: String,
    /// The child's own session (its transcript), when it keeps one.
    pub session_id: Option<String>,
    /// Its model requests.
    pub steps: u32,
}

impl ChildOutcome {
    /// A child that never started, and why.
    pub fn refused(why: impl Into<String>) -> ChildOutcome {
        ChildOutcome {
            status: ChildStatus::Refused,
            answer: why.into(),
            session_id: None,
            steps: 0,
        }
    }
}

/// Runs children for one tool call.
pub trait AgentHost: Send + Sync {
    /// Run `children` (at once, as far as the session's limits let them) and return their
    /// outcomes in the same order. `Err` when none may start: a write claim overlaps another
    /// of the batch or a running writer's, the depth limit is reached, or more were asked for
    /// than a batch may hold. The message says which and why, for the model.
    fn run(&self, children: Vec<ChildSpec>) -> Result<Vec<ChildOutcome>, String>;
}

/// The host one call may use; compared by identity.
#[derive(Clone)]
pub struct Delegation(pub Arc<dyn AgentHost>);

impl std::fmt::Debug for Delegation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Delegation")
    }
}

impl PartialEq for Delegation {
    fn eq(&self, other: &Delegation) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Delegation {}
