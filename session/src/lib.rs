//! A Reasonix session as a service that any front end drives: the interactive terminal
//! session, `reasonix run`, and later a server or an editor bridge. A front end submits
//! operations ([`reasonix_protocol::Op`]) and receives [`SessionEvent`]s; the session owns the
//! agent, its store, the open approval questions (keyed by id, answered by an operation,
//! withdrawn when the turn is cancelled), input expansion and "always allow" persistence.
#![forbid(unsafe_code)]

pub mod approvals;
mod events;
pub mod input;
pub mod persist;
mod project;
mod question;
mod service;
mod tokens;

pub use events::SessionEvent;
pub use project::project;
pub use question::{Answer, AnswerError, Answered, Question};
pub use service::{ModelResolver, Recall, Session, SessionOptions, not_sent};
