//! What a session reports, in order: the agent's events, the end of each turn, questions and
//! what became of them, and the results of operations run between turns.

use crate::question::{Answered, Question};
use reasonix_agent::agent_loop::{AgentEvent, Rewound, RunOutcome, Spend};
use reasonix_core::types::Message;
use std::sync::Arc;

/// Where the session's events go (called from the session's thread, and from the thread that
/// answers a question).
pub(crate) type Emit = Arc<dyn Fn(SessionEvent) + Send + Sync>;

/// Everything a session reports, in order.
#[derive(Debug)]
pub enum SessionEvent {
    /// What the agent reports while a turn runs.
    Agent(AgentEvent),
    TurnDone(Box<RunOutcome>),
    /// What the session has spent so far, by model (after each turn and session change).
    Spend(Spend),
    /// The session changed (new, resume, fork): its id and the messages it holds.
    Session {
        id: String,
        messages: Vec<Message>,
    },
    ModelChanged {
        provider: String,
        model: String,
    },
    /// A rewind or its undo was done.
    Rewound(Box<Rewound>),
    /// An operation failed; nothing changed.
    Failed(String),
    /// A call waits for the user's answer ([`Session::answer`]).
    Question(Question),
    /// A question was answered or withdrawn.
    QuestionClosed {
        id: String,
        answered: Answered,
    },
    /// The session has ended and its thread stopped.
    Stopped,
}
