//! Asking the user: what an [`Approver`] is shown, and an in-process approver that answers from
//! a script (tests, embedders); the terminal UI implements the same trait.

use super::policy::{Approval, Approver, Call, Verdict};
use crate::types::FileChange;
use std::collections::VecDeque;
use std::sync::Mutex;

/// What a writer would change, shown with the question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preview {
    /// The tool is not a file writer: there is nothing to preview.
    None,
    /// The exact changes the call will make (from the tool's `preview`, the same code path as
    /// the call itself).
    Changes(Vec<FileChange>),
    /// The tool could not say; the question says so instead of showing a diff.
    Unavailable(String),
}

/// One question to the user.
#[derive(Debug, Clone, Copy)]
pub struct ApprovalRequest<'a> {
    /// The model's id for the call (the same as in the `ToolStarted` that follows an approval),
    /// so a front end can attach the preview to the call it shows.
    pub call_id: &'a str,
    pub call: &'a Call<'a>,
    pub verdict: &'a Verdict,
    /// Rules an approval could be saved as, narrowest first ([`super::suggested_scopes`]).
    pub scopes: &'a [String],
    pub preview: &'a Preview,
    /// The sub-agent asking (its label), `None` for the main agent: front ends say whose
    /// question it is.
    pub agent: Option<&'a str>,
    /// A plan to approve (`exit_plan_mode` in plan mode): approving once goes on in `ask`,
    /// for the session in `auto`; a denial's note sends it back.
    pub plan: Option<&'a str>,
}

/// What a [`ScriptedApprover`] was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub tool: String,
    pub arguments: serde_json::Value,
    pub scopes: Vec<String>,
    pub preview: Preview,
}

/// Answers from a queue, then with a fallback answer; remembers every question.
#[derive(Debug)]
pub struct ScriptedApprover {
    answers: Mutex<VecDeque<Approval>>,
    fallback: Approval,
    asked: Mutex<Vec<Asked>>,
}

impl ScriptedApprover {
    /// Give `answers` in order, then `fallback` for every further question.
    pub fn new(answers: impl IntoIterator<Item = Approval>, fallback: Approval) -> Self {
        ScriptedApprover {
            answers: Mutex::new(answers.into_iter().collect()),
            fallback,
            asked: Mutex::new(Vec::new()),
        }
    }

    /// Always give `answer`.
    pub fn always(answer: Approval) -> Self {
        ScriptedApprover::new([], answer)
    }

    /// The questions asked so far.
    pub fn asked(&self) -> Vec<Asked> {
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Approver for ScriptedApprover {
    fn approve(&self, request: &ApprovalRequest<'_>) -> Approval {
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(Asked {
                tool: request.call.tool.to_string(),
                arguments: request.call.args.clone(),
                scopes: request.scopes.to_vec(),
                preview: request.preview.clone(),
            });
        self.answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop_front()
            .unwrap_or_else(|| self.fallback.clone())
    }
}
