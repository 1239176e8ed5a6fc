//! Plan mode's way out (`exit_plan_mode`): a tool the composition root offers in every posture
//! (so the tool list, part of the cached prefix, does not change when the posture does) and
//! the agent answers itself, since only it holds the posture and the approver. In plan
//! mode it shows the plan to the user, who approves it (the same turn goes on, asking or in
//! `auto`) or sends it back with a note; a run nobody can ask ends with the plan as its
//! answer, having changed nothing.

use super::tools::Prepared;
use super::{Agent, AgentEvent};
use crate::error::CallError;
use crate::permissions::{
    Approval, ApprovalRequest, Call, Decision, Posture, Preview, Source, ToolKind, Verdict,
};
use crate::tool::{Effects, Tool};
use crate::types::{FileChange, ToolCall, ToolContext, ToolSpec};
use std::sync::Arc;

pub const NAME: &str = "exit_plan_mode";

/// The answer that approves the plan and goes on in `auto` (the other approval goes on in
/// `ask`).
pub const AUTO: &str = "auto";

/// What the agent adds to a plan-mode turn's task (the turn's tail, never the cached prefix).
pub const NOTE: &str = "\n\n<plan-mode>Plan mode is on: research with read-only tools and change nothing. When the task needs changes, present a concrete plan with `exit_plan_mode`; the user decides when it runs. A question or a small request just gets an answer.</plan-mode>";

pub struct ExitPlanMode {
    spec: ToolSpec,
}

impl ExitPlanMode {
    pub fn new() -> ExitPlanMode {
        let parameters = serde_json::json!({
            "type": "object",
            "properties": {
                "plan": {
                    "type": "string",
                    "description": "The plan, in Markdown: the steps, the files each changes, and how the result will be checked."
                }
            },
            "required": ["plan"],
            "additionalProperties": false,
        });
        ExitPlanMode {
            spec: ToolSpec {
                name: NAME.into(),
                description: "In plan mode: present your plan for the user to approve before anything is changed. On approval the same turn goes on and you carry it out; otherwise you get the user's note. Outside plan mode it does nothing.".into(),
                parameters: parameters.to_string(),
                read_only: true,
                guidance: None,
            },
        }
    }
}

impl Default for ExitPlanMode {
    fn default() -> Self {
        ExitPlanMode::new()
    }
}

impl Tool for ExitPlanMode {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn source(&self) -> &str {
        "reasonix"
    }
    fn effects(&self) -> Effects {
        Effects::default()
    }
    fn invoke(&self, _arguments: &str, _context: &ToolContext) -> Result<String, CallError> {
        // The agent answers it before anything runs; reaching here means another tier
        // serves a tool of this name, which the catalog never offers beside ours.
        Err(CallError::Unknown(format!(
            "`{NAME}` is answered by the agent"
        )))
    }
    fn preview(&self, _: &str, _: &ToolContext) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

/// `call` is to `exit_plan_mode` as this crate defines it (served by the composition root).
/// Whatever serves a tool of that name, the agent answers the call and runs nothing.
pub fn is_exit(call: &ToolCall, tool: Option<&Arc<dyn Tool>>) -> bool {
    call.name == NAME && tool.is_some()
}

impl Agent {
    /// Answer an `exit_plan_mode` call.
    pub(super) fn exit_plan_mode(
        &mut self,
        call: &ToolCall,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Prepared {
        let args: serde_json::Value = match serde_json::from_str(&call.arguments) {
            Ok(v @ serde_json::Value::Object(_)) => v,
            _ => {
                return Prepared::Answered(super::CallFailure::NotAnObject {
                    tool: NAME.to_string(),
                });
            }
        };
        let plan = args["plan"].as_str().unwrap_or_default().trim().to_string();
        if self.posture.get() != Posture::Plan {
            return Prepared::Done("Plan mode is not on: go on with the task.".into());
        }
        if self.delegator.as_ref().is_some_and(|d| d.depth > 0) {
            return Prepared::Done(
                "A sub-agent does not present plans: answer with your findings and proposal."
                    .into(),
            );
        }
        if plan.is_empty() {
            return Prepared::Answered(super::CallFailure::Reported(
                "`plan` is empty: write the plan out.".into(),
            ));
        }
        let Some(approver) = self.approver.clone() else {
            // Nobody can approve it here: the plan is the run's answer.
            self.plan_presented = Some(plan);
            return Prepared::Done(
                "The plan was shown to the user; nothing runs in this plan-only session.".into(),
            );
        };
        let answer = self.ask_plan_approval(approver.as_ref(), &call.id, &plan);
        let (posture, mode) = match answer {
            Approval::Once => (Posture::Ask, "ask"),
            Approval::Session(_) | Approval::Persist(_) => (Posture::Auto, "auto"),
            Approval::Deny(note) => {
                let note = note
                    .filter(|n| !n.trim().is_empty())
                    .map(|n| format!(" Their note: {}", n.trim()))
                    .unwrap_or_default();
                return Prepared::Done(format!(
                    "The user did not approve the plan yet.{note} Keep planning: revise it and present it again with `exit_plan_mode`."
                ));
            }
        };
        self.posture.set(posture);
        on_event(AgentEvent::Notice(format!(
            "plan approved: carrying it out in {mode} mode"
        )));
        Prepared::Done(format!(
            "The user approved the plan; the session is in {mode} mode now. Carry the plan out, step by step."
        ))
    }
}

impl Agent {
    /// Ask the user to approve `plan`: the question plan mode asks (`y` approves and goes on
    /// asking, `a` approves in `auto`, `n` sends it back with a note). The planner's
    /// plan-for-approval asks the same.
    pub(super) fn ask_plan_approval(
        &self,
        approver: &dyn crate::permissions::Approver,
        call_id: &str,
        plan: &str,
    ) -> Approval {
        let args = serde_json::json!({ "plan": plan });
        let verdict = Verdict {
            decision: Decision::Ask,
            source: Source::Fallback,
            exact_literal: false,
        };
        let call = Call {
            tool: NAME,
            kind: ToolKind::Other,
            read_only: false,
            args: &args,
            workspace: &self.config.workspace,
            reach: None,
            own_rules: true,
        };
        let scopes = [AUTO.to_string()];
        approver.approve(&ApprovalRequest {
            call_id,
            call: &call,
            verdict: &verdict,
            scopes: &scopes,
            preview: &Preview::None,
            agent: self.label.as_deref(),
            plan: Some(plan),
        })
    }
}
