//! Per-call permission gating: Claude Code–style rules ([`rule`]) and the shell facts they need
//! ([`shell`]), both from the `reasonix-rules` crate (shared with the `hooks` component), and
//! the policy with its postures ([`policy`]). Pure, except for [`protected`], which resolves
//! symlinks to see whether a writer targets a configuration file.

pub mod approver;
pub mod class;
pub mod policy;
pub mod protected;
pub use reasonix_rules::{rule, shell};
pub mod switch;
#[cfg(test)]
mod tests;

pub use approver::{ApprovalRequest, Preview, ScriptedApprover};
pub use class::ToolClass;
pub use policy::{
    Approval, Approver, Call, Decision, Policy, Posture, Source, Verdict, local_target,
    parse_rules, plan_refusal, suggested_scopes,
};
pub use rule::{Rule, RuleError, ToolKind};
pub use switch::PostureSwitch;

/// The kind of a tool shaped like the built-in of that name, classified from its spec (tests).
#[cfg(test)]
pub(crate) fn test_kind(tool: &str) -> ToolKind {
    let (read_only, props) = match tool {
        "bash" => (false, r#"{"command":{"type":"string"}}"#),
        "read_file" | "ls" => (true, r#"{"path":{"type":"string"}}"#),
        "grep" | "glob" => (true, r#"{"pattern":{"type":"string"}}"#),
        "web_fetch" => (true, r#"{"url":{"type":"string"}}"#),
        "move_file" => (false, r#"{"destination_path":{},"source_path":{}}"#),
        "write_file" | "edit_file" | "multi_edit" | "delete_range" | "notebook_edit" => {
            (false, r#"{"path":{"type":"string"}}"#)
        }
        _ => (false, "{}"),
    };
    ToolKind::described(
        &format!(r#"{{"properties":{props},"type":"object"}}"#),
        read_only,
    )
}
