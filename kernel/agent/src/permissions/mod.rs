//! Per-call permission gating: Claude Code–style rules ([`rule`]), the shell facts they need
//! ([`shell`]), and the policy with its postures ([`policy`]). Pure, except for
//! [`protected`], which resolves symlinks to see whether a writer targets a configuration file.

pub mod approver;
pub mod class;
pub mod policy;
pub mod protected;
pub mod rule;
pub mod shell;
pub mod switch;
#[cfg(test)]
mod tests;

pub use approver::{ApprovalRequest, Preview, ScriptedApprover};
pub use class::ToolClass;
pub use policy::{
    Approval, Approver, Call, Decision, Policy, Posture, Source, Verdict, local_target,
    parse_rules, suggested_scopes,
};
pub use rule::{Rule, RuleError, ToolKind};
pub use switch::PostureSwitch;
