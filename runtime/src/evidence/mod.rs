//! Steps done with evidence (`docs/AGENTS.md`, "Evidence"): the `complete_step` host tool,
//! which accepts a step only against the agent's receipts
//! ([`reasonix_core::evidence::Ledger`]), and the checklist gate around `todo_write`, which
//! lets an item become completed only after such a step when the run mode or a goal asks for
//! it.

pub mod checklist;
pub mod complete_step;

pub use checklist::Checklist;
pub use complete_step::CompleteStep;

use reasonix_core::error::{CallError, PluginError};

fn invalid(message: impl Into<String>) -> CallError {
    CallError::Plugin(PluginError::InvalidInput(message.into()))
}
