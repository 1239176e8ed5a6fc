//! `complete_step`: the model says a step is done and shows its evidence; the host checks
//! each piece against what it saw (a command that exited 0, a file written or read) and only
//! then records the step. `manual` evidence is accepted but marked unverified, and under
//! strict verification (the `delivery` mode) a step needs a passing command run after the
//! last write.

use super::invalid;
use reasonix_core::error::CallError;
use reasonix_core::evidence::{self, Ledger, Receipt};
use reasonix_core::tool::{Effects, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolSpec};
use serde::Deserialize;
use std::path::Path;

pub const NAME: &str = "complete_step";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    step: String,
    result: String,
    evidence: Vec<Piece>,
    #[serde(default)]
    notes: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Piece {
    kind: Kind,
    summary: String,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    paths: Vec<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Verification,
    Diff,
    Files,
    Manual,
}

pub struct CompleteStep {
    spec: ToolSpec,
}

impl CompleteStep {
    pub fn new() -> CompleteStep {
        let parameters = serde_json::json!({
            "type": "object",
            "properties": {
                "step": {"type": "string", "description": "The step, as written in the task list."},
                "result": {"type": "string", "description": "What the step achieved."},
                "evidence": {
                    "type": "array",
                    "minItems": 1,
                    "description": "What shows it is done; the host checks each piece against what it saw.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["verification", "diff", "files", "manual"], "description": "verification: a command you ran that exited 0 (give `command` exactly as run); diff: files you changed (`paths`); files: files you read or wrote (`paths`); manual: anything else (unverified)."},
                            "summary": {"type": "string"},
                            "command": {"type": "string"},
                            "paths": {"type": "array", "items": {"type": "string"}}
                        },
                        "required": ["kind", "summary"],
                        "additionalProperties": false
                    }
                },
                "notes": {"type": "string"}
            },
            "required": ["step", "result", "evidence"],
            "additionalProperties": false,
        });
        CompleteStep {
            spec: ToolSpec {
                name: NAME.into(),
                description: "Record that a step of your task list is done, with evidence the host checks: a command you ran that exited 0, files you changed or read. When the host requires it, a task-list item can be marked completed only after this.".into(),
                parameters: parameters.to_string(),
                read_only: true,
                guidance: None,
            },
        }
    }
}

impl Default for CompleteStep {
    fn default() -> Self {
        CompleteStep::new()
    }
}

impl Tool for CompleteStep {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn source(&self) -> &str {
        "reasonix"
    }
    fn effects(&self) -> Effects {
        Effects::default()
    }
    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        let args: Args =
            serde_json::from_str(arguments).map_err(|e| invalid(format!("{NAME}: {e}")))?;
        let Some(evidence) = &context.evidence else {
            return Err(invalid(format!(
                "{NAME}: no agent's receipts here; it works only in a session"
            )));
        };
        let accepted = judge(&args, &evidence.0, &context.workspace).map_err(invalid)?;
        evidence.0.complete_step(&args.step);
        let mut text = format!(
            "Step recorded: {}\nResult: {}\nEvidence:",
            args.step.trim(),
            args.result.trim()
        );
        for line in accepted {
            text.push_str(&format!("\n- {line}"));
        }
        if let Some(notes) = args.notes.filter(|n| !n.trim().is_empty()) {
            text.push_str(&format!("\nNotes: {}", notes.trim()));
        }
        Ok(text)
    }
    fn preview(&self, _: &str, _: &ToolContext) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

/// Each piece of evidence checked against the receipts; the lines that say what was
/// accepted, or why the step is refused.
fn judge(args: &Args, ledger: &Ledger, workspace: &Path) -> Result<Vec<String>, String> {
    if args.step.trim().is_empty() {
        return Err(format!("{NAME}: `step` is empty"));
    }
    if args.evidence.is_empty() {
        return Err(format!(
            "{NAME}: no evidence for `{}`: name a command you ran, or the files you changed",
            args.step.trim()
        ));
    }
    let strictness = ledger.strictness();
    let receipts = ledger.receipts();
    let mut accepted = Vec::new();
    let mut verified = false;
    for (i, piece) in args.evidence.iter().enumerate() {
        let at = format!("{NAME}: evidence[{i}] ({:?})", piece.kind).to_lowercase();
        match piece.kind {
            Kind::Verification => {
                let Some(command) = piece.command.as_deref().map(str::trim) else {
                    return Err(format!("{at}: give the `command` you ran"));
                };
                let fresh = strictness.fresh_verification;
                accepted.push(
                    verification(&receipts, command, fresh)
                        .map_err(|why| format!("{at}: {why}"))?,
                );
                verified = true;
            }
            Kind::Diff | Kind::Files => {
                if piece.paths.is_empty() {
                    return Err(format!("{at}: give the `paths`"));
                }
                let wrote_only = piece.kind == Kind::Diff;
                for path in &piece.paths {
                    let absolute = evidence::absolute(workspace, path);
                    let seen = receipts.iter().any(|r| match r {
                        Receipt::Wrote { path } => *path == absolute,
                        Receipt::Read { path } => !wrote_only && *path == absolute,
                        Receipt::Command { .. } => false,
                    });
                    if !seen {
                        let what = if wrote_only {
                            "changed"
                        } else {
                            "read or changed"
                        };
                        return Err(format!(
                            "{at}: `{path}` was not {what} by a tool call in this session"
                        ));
                    }
                }
                let verb = if wrote_only { "changed" } else { "seen" };
                accepted.push(format!("{verb}: {}", piece.paths.join(", ")));
            }
            Kind::Manual => accepted.push(format!("unverified: {}", piece.summary.trim())),
        }
    }
    if strictness.fresh_verification && !verified {
        return Err(format!(
            "{NAME}: `{}` needs a `verification`: a command (a test, a build, a check) that exits 0 after your last change",
            args.step.trim()
        ));
    }
    Ok(accepted)
}

/// The latest run of `command` passed (and, when `fresh`, came after the last write).
fn verification(receipts: &[Receipt], command: &str, fresh: bool) -> Result<String, String> {
    let last_run = receipts
        .iter()
        .rposition(|r| matches!(r, Receipt::Command { command: c, .. } if c == command));
    let Some(at) = last_run else {
        return Err(format!(
            "`{command}` was not run in this session; run it, then call {NAME} again"
        ));
    };
    if let Receipt::Command { exit, .. } = &receipts[at] {
        match exit {
            Some(0) => {}
            Some(code) => return Err(format!("`{command}` last exited {code}, not 0")),
            None => return Err(format!("`{command}` did not finish when it last ran")),
        }
    }
    if fresh
        && let Some(path) = receipts[at + 1..].iter().find_map(|r| match r {
            Receipt::Wrote { path } => Some(path),
            _ => None,
        })
    {
        return Err(format!(
            "`{}` changed after `{command}` passed; run it again",
            path.display()
        ));
    }
    Ok(format!("verified: `{command}` exited 0"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use reasonix_core::evidence::{Evidence, Strictness};
    use std::sync::Arc;

    fn context(ledger: &Arc<Ledger>) -> ToolContext {
        ToolContext {
            call_id: "c".into(),
            workspace: "/w".into(),
            may_write_protected: false,
            approved_local: None,
            cancel: Default::default(),
            events: None,
            agents: None,
            evidence: Some(Evidence(ledger.clone())),
        }
    }

    fn call(ledger: &Arc<Ledger>, evidence: serde_json::Value) -> Result<String, String> {
        let args =
            serde_json::json!({"step": "Fix the parser", "result": "fixed", "evidence": evidence});
        CompleteStep::new()
            .invoke(&args.to_string(), &context(ledger))
            .map_err(|e| e.to_string())
    }

    fn command(command: &str, exit: Option<i32>) -> Receipt {
        Receipt::Command {
            command: command.into(),
            exit,
        }
    }

    #[test]
    fn a_command_counts_only_when_its_latest_run_exited_zero() {
        let ledger = Arc::new(Ledger::default());
        let verify = serde_json::json!([{"kind": "verification", "summary": "tests", "command": "cargo test"}]);
        let err = call(&ledger, verify.clone()).unwrap_err();
        assert!(err.contains("was not run in this session"), "{err}");
        ledger.record(command("cargo test", Some(0)));
        ledger.record(command("cargo test", Some(101)));
        let err = call(&ledger, verify.clone()).unwrap_err();
        assert!(err.contains("last exited 101"), "{err}");
        assert!(!ledger.has_step("fix the parser"));
        ledger.record(command("cargo test", Some(0)));
        let ok = call(&ledger, verify).unwrap();
        assert!(ok.contains("verified: `cargo test` exited 0"), "{ok}");
        assert!(ledger.has_step("fix the parser"));
    }

    #[test]
    fn changed_files_must_have_been_written_by_a_call() {
        let ledger = Arc::new(Ledger::default());
        ledger.record(Receipt::Read {
            path: "/w/src/a.rs".into(),
        });
        let diff =
            serde_json::json!([{"kind": "diff", "summary": "edited", "paths": ["src/a.rs"]}]);
        let err = call(&ledger, diff.clone()).unwrap_err();
        assert!(err.contains("`src/a.rs` was not changed"), "{err}");
        let files =
            serde_json::json!([{"kind": "files", "summary": "read", "paths": ["./src/a.rs"]}]);
        assert!(call(&ledger, files).is_ok());
        ledger.record(Receipt::Wrote {
            path: "/w/src/a.rs".into(),
        });
        assert!(call(&ledger, diff).is_ok());
    }

    #[test]
    fn no_evidence_is_refused_and_manual_is_marked_unverified() {
        let ledger = Arc::new(Ledger::default());
        let err = call(&ledger, serde_json::json!([])).unwrap_err();
        assert!(err.contains("no evidence"), "{err}");
        let ok = call(
            &ledger,
            serde_json::json!([{"kind": "manual", "summary": "looked at it"}]),
        )
        .unwrap();
        assert!(ok.contains("unverified: looked at it"), "{ok}");
    }

    #[test]
    fn strict_verification_needs_a_passing_run_after_the_last_write() {
        let ledger = Arc::new(Ledger::default());
        ledger.set_strictness(Strictness {
            steps_need_receipts: true,
            fresh_verification: true,
        });
        let manual = serde_json::json!([{"kind": "manual", "summary": "trust me"}]);
        let err = call(&ledger, manual).unwrap_err();
        assert!(err.contains("needs a `verification`"), "{err}");
        ledger.record(command("make check", Some(0)));
        ledger.record(Receipt::Wrote {
            path: "/w/src/lib.rs".into(),
        });
        let verify = serde_json::json!([{"kind": "verification", "summary": "checks", "command": "make check"}]);
        let err = call(&ledger, verify.clone()).unwrap_err();
        assert!(
            err.contains("/w/src/lib.rs` changed after `make check` passed"),
            "{err}"
        );
        ledger.record(command("make check", Some(0)));
        assert!(call(&ledger, verify).is_ok());
    }
}
