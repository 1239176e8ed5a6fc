//! `reasonix run --goal`: the task is an objective the agent works on across turns until its
//! acceptance checks pass — commands the host runs itself after every turn, in the sandbox,
//! judged by their exit status, never by what the model says — or until a budget (turns,
//! tokens; `--max-budget-usd` for money) is spent.

use reasonix_core::cancel::CancelToken;
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

pub struct Goal {
    pub objective: String,
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
        match self.exit {
            Some(code) => format!("`{}`: exit {code}", self.command),
            None => format!("`{}`: did not finish", self.command),
        }
    }
}

impl Goal {
    /// The first turn's task: the objective, and how the host will judge it.
    pub fn first_turn(&self) -> String {
        let checks: Vec<String> = self.checks.iter().map(|c| format!("`{c}`")).collect();
        format!(
            "{}\n\n<goal>Work toward this goal until it is met. After each of your turns the host runs its acceptance check{}: {}. The goal is met when every check exits 0; you get the output of a failing one. When you stop, say what you changed.</goal>",
            self.objective.trim(),
            if self.checks.len() == 1 { "" } else { "s" },
            checks.join(", ")
        )
    }

    /// The next turn's task after checks that did not all pass.
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

    /// Run every check through `shell` in `workspace`, under `cancel`.
    pub fn check(
        &self,
        shell: &Arc<dyn Tool>,
        workspace: &Path,
        cancel: &CancelToken,
    ) -> Vec<Receipt> {
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
                };
                let (exit, output) = match shell.invoke(&arguments, &context) {
                    Ok(text) => (exit_status(&text), text),
                    Err(e) => (None, e.to_string()),
                };
                Receipt {
                    command: command.clone(),
                    exit,
                    output,
                }
            })
            .collect()
    }
}

/// The status the shell tool reports on its last line (`[exit code: N]`).
pub fn exit_status(output: &str) -> Option<i32> {
    let last = output.trim_end().lines().last()?;
    last.strip_prefix("[exit code: ")?
        .strip_suffix(']')?
        .trim()
        .parse()
        .ok()
}

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
    fn the_exit_status_is_read_from_the_shell_tools_last_line() {
        assert_eq!(exit_status("ok\n[exit code: 0]"), Some(0));
        assert_eq!(exit_status("x\n[exit code: 3]\n"), Some(3));
        assert_eq!(exit_status("begun\n[killed: timed out after 1 s]"), None);
        // A command printing the marker itself mid-output does not decide it.
        assert_eq!(exit_status("[exit code: 0]\nmore\n[exit code: 1]"), Some(1));
        assert_eq!(exit_status(""), None);
    }

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
