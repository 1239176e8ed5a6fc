//! What one hook's run means: Claude Code's exit-code contract and JSON output.
//!
//! - exit 0: pass; stdout is read as JSON when it is a JSON object (`continue`, `stopReason`,
//!   `decision`/`reason`, `hookSpecificOutput` with `hookEventName`, `additionalContext`,
//!   `permissionDecision`(+`Reason`), `decision.behavior`/`message`); otherwise plain stdout
//!   is context for the model at `UserPromptSubmit` and `SessionStart`.
//! - exit 2: block with stderr as the reason, at the blocking events (`PreToolUse`,
//!   `UserPromptSubmit`, `PermissionRequest` = deny); at `PostToolUse*` stderr goes to the
//!   model as feedback; elsewhere a warning.
//!   When that exit 2 comes from the shell itself (`sh: 1: cannot create …`, a syntax error),
//!   the hook did not decide anything: it failed. The call is still stopped (a guard that
//!   cannot run must not let things through), but the reason and the user's warning say the
//!   hook failed and why, instead of presenting the shell's complaint as the hook's verdict.
//! - any other exit: a warning (stderr).
//! - killed (its timeout), or not started: block at the gating events (`PreToolUse`,
//!   `UserPromptSubmit`): a guard that cannot answer must not let things through; elsewhere a
//!   warning.

use serde_json::Value;

/// How a hook's process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    Exited(i32),
    /// Killed (its timeout, by the host).
    Killed(String),
    /// It could not be started.
    NotStarted(String),
}

/// One hook's run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub ended: Ended,
    pub stdout: String,
    pub stderr: String,
}

/// What the hook asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effect {
    /// Stop what the event is about, with this reason (for the model).
    pub block: Option<String>,
    /// `PermissionRequest` only: allow the call.
    pub allow: bool,
    /// Text for the model (`additionalContext`, plain stdout where it counts, feedback).
    pub context: Option<String>,
    /// Something the user should know (shown as a warning in the log).
    pub warning: Option<String>,
}

/// Events where a hook that cannot answer (timeout, not started) blocks.
pub fn gating(event: &str) -> bool {
    matches!(event, "PreToolUse" | "UserPromptSubmit")
}

/// Events where exit 2 blocks.
fn blocking(event: &str) -> bool {
    matches!(
        event,
        "PreToolUse" | "UserPromptSubmit" | "PermissionRequest"
    )
}

fn trimmed(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Interpret one run of a hook for `event`; `name` says which hook in messages.
pub fn interpret(event: &str, name: &str, run: &Run) -> Effect {
    let mut effect = Effect::default();
    match &run.ended {
        Ended::Exited(0) => read_stdout(event, name, &run.stdout, &mut effect),
        Ended::Exited(2) if blocking(event) && shell_error(&run.stderr).is_some() => {
            let error = shell_error(&run.stderr).unwrap_or_default();
            effect.block = Some(format!(
                "{event} hook {name} failed to run: `{error}`. That is the shell's error, not a \
                 decision of the hook; this was stopped because a {event} hook that fails stops \
                 what it guards"
            ));
            effect.warning = Some(format!(
                "{event} hook {name} failed to run (`{error}`), so the call it guards was stopped; fix the hook's command"
            ));
        }
        Ended::Exited(2) if blocking(event) => {
            effect.block = Some(
                trimmed(&run.stderr)
                    .unwrap_or_else(|| format!("{event} hook {name} exited with code 2")),
            );
        }
        Ended::Exited(2) if event.starts_with("PostToolUse") => {
            effect.context = trimmed(&run.stderr);
        }
        Ended::Exited(code) => {
            effect.warning = Some(format!(
                "{event} hook {name} exited with code {code}{}",
                trimmed(&run.stderr)
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ));
        }
        Ended::Killed(reason) | Ended::NotStarted(reason) => {
            let what = match &run.ended {
                Ended::Killed(_) => "was killed",
                _ => "could not be started",
            };
            let text = format!("{event} hook {name} {what} ({reason})");
            if gating(event) {
                effect.block = Some(format!("{text}, so this was stopped"));
            } else {
                effect.warning = Some(text);
            }
        }
    }
    effect
}

/// The shell's own complaint in a hook's stderr, if it made one: the `sh -c` that runs the
/// hook could not run its command line (`sh: 1: cannot create /x: Read-only file system`,
/// `sh: 1: Syntax error: …` from dash; `sh: line 1: …` from bash).
fn shell_error(stderr: &str) -> Option<&str> {
    const COMPLAINTS: &[&str] = &[
        "cannot create",
        "cannot open",
        "not found",
        "Permission denied",
        "Read-only file system",
        "No such file or directory",
        "Syntax error",
        "syntax error",
        "Directory nonexistent",
    ];
    stderr.lines().map(str::trim).find(|line| {
        let Some(rest) = line.strip_prefix("sh: ") else {
            return false;
        };
        let rest = rest.strip_prefix("-c: ").unwrap_or(rest);
        let rest = rest.strip_prefix("line ").unwrap_or(rest);
        let numbered = rest
            .split_once(": ")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        numbered || COMPLAINTS.iter().any(|c| rest.contains(c))
    })
}

fn read_stdout(event: &str, name: &str, stdout: &str, effect: &mut Effect) {
    let json = match serde_json::from_str::<Value>(stdout.trim()) {
        Ok(Value::Object(map)) => map,
        _ => {
            if matches!(event, "UserPromptSubmit" | "SessionStart" | "PreCompact") {
                effect.context = trimmed(stdout);
            }
            return;
        }
    };
    let text = |v: Option<&Value>| v.and_then(Value::as_str).and_then(trimmed);
    let specific = json.get("hookSpecificOutput").and_then(Value::as_object);
    if let Some(specific) = specific
        && let Some(named) = specific.get("hookEventName").and_then(Value::as_str)
        && named != event
    {
        effect.warning = Some(format!(
            "{event} hook {name} answered for `{named}`; its output is ignored"
        ));
        return;
    }
    if json.get("continue").and_then(Value::as_bool) == Some(false) {
        let reason = text(json.get("stopReason"))
            .unwrap_or_else(|| format!("{event} hook {name} said not to continue"));
        if gating(event) || event == "PermissionRequest" {
            effect.block = Some(reason);
            return;
        }
        effect.warning = Some(reason);
    }
    let reason = text(json.get("reason"));
    match json.get("decision").and_then(Value::as_str) {
        Some("block") if event.starts_with("PostToolUse") => {
            effect.context = reason;
        }
        Some("block" | "deny") if blocking(event) => {
            effect.block =
                Some(reason.unwrap_or_else(|| format!("{event} hook {name} blocked this")));
            return;
        }
        Some("approve" | "allow") if event == "PermissionRequest" => effect.allow = true,
        _ => {}
    }
    let Some(specific) = specific else {
        return;
    };
    if event == "PreToolUse"
        && specific.get("permissionDecision").and_then(Value::as_str) == Some("deny")
    {
        effect.block = Some(
            text(specific.get("permissionDecisionReason"))
                .unwrap_or_else(|| format!("PreToolUse hook {name} denied this call")),
        );
        return;
    }
    if event == "PermissionRequest"
        && let Some(decision) = specific.get("decision").and_then(Value::as_object)
    {
        match decision.get("behavior").and_then(Value::as_str) {
            Some("deny") => {
                effect.block =
                    Some(text(decision.get("message")).unwrap_or_else(|| {
                        format!("PermissionRequest hook {name} denied this call")
                    }));
                return;
            }
            Some("allow") => effect.allow = true,
            _ => {}
        }
    }
    if let Some(extra) = text(specific.get("additionalContext")) {
        effect.context = Some(match effect.context.take() {
            Some(first) => format!("{first}\n{extra}"),
            None => extra,
        });
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn run(code: i32, stdout: &str, stderr: &str) -> Run {
        Run {
            ended: Ended::Exited(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn exit_two_blocks_with_stderr_at_blocking_events_only() {
        let e = interpret("PreToolUse", "`g`", &run(2, "", "no rm -rf\n"));
        assert_eq!(e.block.as_deref(), Some("no rm -rf"));
        let e = interpret("Stop", "`g`", &run(2, "", "x"));
        assert!(e.block.is_none() && e.warning.is_some());
        let e = interpret("PostToolUse", "`g`", &run(2, "", "lint failed"));
        assert_eq!(e.context.as_deref(), Some("lint failed"));
        let e = interpret("PreToolUse", "`g`", &run(1, "", "oops"));
        assert!(e.block.is_none());
        assert!(e.warning.unwrap().contains("exited with code 1: oops"));
    }

    #[test]
    fn a_shell_error_is_a_failed_hook_not_a_verdict() {
        for stderr in [
            "sh: 1: cannot create /home/u/.claude/bash-command-log.txt: Read-only file system\n",
            "sh: 1: Syntax error: \"(\" unexpected\n",
            "sh: line 1: /home/u/.claude/log: Read-only file system\n",
            "sh: -c: line 1: syntax error near unexpected token `('\n",
        ] {
            let e = interpret("PreToolUse", "`g` (f:1)", &run(2, "", stderr));
            let block = e.block.unwrap();
            assert!(block.contains("failed to run"), "{block}");
            assert!(block.contains("not a decision"), "{block}");
            assert!(e.warning.unwrap().contains("failed to run"), "{stderr}");
        }
        // A guard's own reason is its verdict, whatever it mentions.
        let e = interpret(
            "PreToolUse",
            "`g`",
            &run(2, "", "rm is not found here: denied\n"),
        );
        assert_eq!(e.block.as_deref(), Some("rm is not found here: denied"));
        assert!(e.warning.is_none());
        let e = interpret(
            "PermissionRequest",
            "`g`",
            &run(2, "", "sh: 1: jq: not found\n"),
        );
        assert!(e.block.unwrap().contains("failed to run"));
    }

    #[test]
    fn claude_json_shapes() {
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed"}}"#;
        let e = interpret("PreToolUse", "`g`", &run(0, deny, ""));
        assert_eq!(e.block.as_deref(), Some("rm -rf is not allowed"));
        let allow =
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;
        assert_eq!(
            interpret("PreToolUse", "`g`", &run(0, allow, "")),
            Effect::default()
        );
        let e = interpret(
            "UserPromptSubmit",
            "`g`",
            &run(0, r#"{"decision":"block","reason":"no secrets"}"#, ""),
        );
        assert_eq!(e.block.as_deref(), Some("no secrets"));
        let e = interpret("UserPromptSubmit", "`g`", &run(0, "plain context\n", ""));
        assert_eq!(e.context.as_deref(), Some("plain context"));
        let e = interpret("PreToolUse", "`g`", &run(0, "plain", ""));
        assert_eq!(e, Effect::default());
        let ctx = r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch main"}}"#;
        assert_eq!(
            interpret("SessionStart", "`g`", &run(0, ctx, ""))
                .context
                .as_deref(),
            Some("branch main")
        );
        let wrong = interpret("PostToolUse", "`g`", &run(0, ctx, ""));
        assert!(
            wrong.context.is_none()
                && wrong
                    .warning
                    .unwrap()
                    .contains("answered for `SessionStart`")
        );
        let e = interpret(
            "PostToolUse",
            "`g`",
            &run(0, r#"{"decision":"block","reason":"tests fail"}"#, ""),
        );
        assert_eq!((e.block, e.context.as_deref()), (None, Some("tests fail")));
        let pr = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;
        assert!(interpret("PermissionRequest", "`g`", &run(0, pr, "")).allow);
        let pr = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}"#;
        assert_eq!(
            interpret("PermissionRequest", "`g`", &run(0, pr, ""))
                .block
                .as_deref(),
            Some("no")
        );
        let stop = r#"{"continue":false,"stopReason":"frozen"}"#;
        assert_eq!(
            interpret("UserPromptSubmit", "`g`", &run(0, stop, ""))
                .block
                .as_deref(),
            Some("frozen")
        );
    }

    #[test]
    fn timeouts_block_gating_events_and_warn_elsewhere() {
        let killed = Run {
            ended: Ended::Killed("timed out after 1 s".into()),
            stdout: String::new(),
            stderr: String::new(),
        };
        assert!(
            interpret("PreToolUse", "`g`", &killed)
                .block
                .unwrap()
                .contains("timed out after 1 s")
        );
        let e = interpret("PostToolUse", "`g`", &killed);
        assert!(e.block.is_none() && e.warning.is_some());
    }
}
