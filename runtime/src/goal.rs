//! Goal mode (`reasonix run --goal`, `/goal` in the interactive session): the task is an
//! objective the agent works on across turns until it is met — its acceptance checks,
//! commands the host runs itself after every turn in the sandbox, exit 0, judged by their
//! exit status and never by what the model says; with no check, every task-list item is done
//! with a step the host accepted on evidence — or until a budget (turns, tokens;
//! `--max-budget-usd` for money) is spent.

use reasonix_core::cancel::CancelToken;
use reasonix_core::evidence::{self, Ledger};
use reasonix_core::tool::Tool;
use reasonix_core::types::ToolContext;
use std::path::Path;
use std::sync::Arc;

/// The shell tool the checks run through (so in the sandbox, under `[sandbox]`).
pub const SHELL_TOOL: &str = "bash";
/// Turns when `--goal-max-turns` is not given.
pub const DEFAULT_MAX_TURNS: u32 = 10;
/// The most of a failing check's output the next turn quotes (its tail).
const QUOTED_BYTES: usize = 4 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Goal {
    pub objective: String,
    /// Commands that must exit 0; none: the task list decides.
    pub checks: Vec<String>,
    pub max_turns: u32,
    /// Input plus output tokens over every turn.
    pub max_tokens: Option<u64>,
}

/// One check's result: the host's evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub command: String,
    /// `None` when the command did not end with a status (killed, not started).
    pub exit: Option<i32>,
    pub output: String,
}

impl Receipt {
    pub fn passed(&self) -> bool {
        self.exit == Some(0)
    }

    /// `` `cmd`: exit 0 `` / `` `cmd`: killed ``.
    pub fn describe(&self) -> String {
        if self.command == CHECKLIST {
            return format!("{CHECKLIST}: {}", self.output);
        }
        match self.exit {
            Some(code) => format!("`{}`: exit {code}", self.command),
            None => format!("`{}`: did not finish", self.command),
        }
    }
}

impl Goal {
    /// The first turn's task: the objective, and how the host will judge it.
    pub fn first_turn(&self) -> String {
        if self.checks.is_empty() {
            return format!(
                "{}\n\n<goal>Work toward this goal until it is met. Keep a task list with `todo_write`; the goal is met when every item is completed, and an item can be completed only after `complete_step` accepted your evidence for it (a command that exited 0, the files you changed). When you stop, say what you changed.</goal>",
                self.objective.trim()
            );
        }
        let checks: Vec<String> = self.checks.iter().map(|c| format!("`{c}`")).collect();
        format!(
            "{}\n\n<goal>Work toward this goal until it is met. After each of your turns the host runs its acceptance check{}: {}. The goal is met when every check exits 0; you get the output of a failing one. When you stop, say what you changed.</goal>",
            self.objective.trim(),
            if self.checks.len() == 1 { "" } else { "s" },
            checks.join(", ")
        )
    }

    /// The next turn's task after a turn that did not meet the goal.
    pub fn next_turn(receipts: &[Receipt]) -> String {
        let mut text = String::from("The goal is not met yet.");
        for receipt in receipts.iter().filter(|r| !r.passed()) {
            text.push_str(&format!(
                "\n\n{}\n```\n{}\n```",
                receipt.describe(),
                tail(&receipt.output, QUOTED_BYTES)
            ));
        }
        text.push_str("\n\nKeep working toward the goal.");
        text
    }

    /// Judge the goal: run every check through `shell` in `workspace`, under `cancel` (each
    /// run is a receipt in `ledger` too, so the model may cite it); with no checks, the task
    /// list in `ledger` is the one check.
    pub fn check(
        &self,
        shell: Option<&Arc<dyn Tool>>,
        workspace: &Path,
        cancel: &CancelToken,
        ledger: &Ledger,
    ) -> Vec<Receipt> {
        if self.checks.is_empty() {
            return vec![checklist_receipt(ledger)];
        }
        self.checks
            .iter()
            .map(|command| {
                let arguments = serde_json::json!({ "command": command }).to_string();
                let context = ToolContext {
                    call_id: "goal-check".into(),
                    workspace: workspace.to_path_buf(),
                    may_write_protected: false,
                    approved_local: None,
                    cancel: cancel.child(),
                    events: None,
                    agents: None,
                    evidence: None,
                };
                let (exit, output) = match shell.map(|s| s.invoke(&arguments, &context)) {
                    Some(Ok(text)) => (exit_status(&text), text),
                    Some(Err(e)) => (None, e.to_string()),
                    None => (
                        None,
                        format!("the `{SHELL_TOOL}` tool that runs the checks is not loaded"),
                    ),
                };
                ledger.record(evidence::Receipt::Command {
                    command: command.trim().to_string(),
                    exit,
                });
                Receipt {
                    command: command.clone(),
                    exit,
                    output,
                }
            })
            .collect()
    }
}

pub use reasonix_core::evidence::exit_status;

/// What the task list says, as a check: met when it has items and every one was completed
/// with evidence.
fn checklist_receipt(ledger: &Ledger) -> Receipt {
    let (total, done) = ledger.checklist();
    let exit = if total > 0 && done == total { 0 } else { 1 };
    Receipt {
        command: CHECKLIST.to_string(),
        exit: Some(exit),
        output: if total == 0 {
            "There is no task list yet: write one with `todo_write`.".to_string()
        } else {
            format!("{done} of {total} task-list items are completed with evidence.")
        },
    }
}

/// How a goal without checks names its one check.
pub const CHECKLIST: &str = "task list";

/// The last `max` bytes of `text`, at a character boundary.
fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_check_is_quoted_in_the_next_turn() {
        let receipts = vec![
            Receipt {
                command: "test -f a".into(),
                exit: Some(0),
                output: "[exit code: 0]".into(),
            },
            Receipt {
                command: "cargo test".into(),
                exit: Some(101),
                output: format!("{}\ntest failed\n[exit code: 101]", "x".repeat(9000)),
            },
        ];
        let next = Goal::next_turn(&receipts);
        assert!(next.contains("`cargo test`: exit 101"), "{next}");
        assert!(!next.contains("`test -f a`"), "{next}");
        assert!(
            next.contains("test failed") && next.len() < 5000,
            "{}",
            next.len()
        );
    }
}
