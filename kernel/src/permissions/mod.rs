//! Per-call permission gating: Claude Code–style rules ([`rule`]), the shell facts they need
//! ([`shell`]), and the policy with its postures ([`policy`]). Pure: no I/O.

pub mod policy;
pub mod rule;
pub mod shell;

pub use policy::{
    Approval, Approver, Call, Decision, Policy, Posture, Source, Verdict, parse_rules,
    suggested_scopes,
};
pub use rule::{Rule, RuleError, ToolKind};
