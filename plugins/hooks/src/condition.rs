//! A hook's `if` condition: a permission rule (`Bash(git commit*)`, `Edit(src/**)`) that a tool
//! call must match for the hook to run, read with the agent's own rule matcher.
//!
//! As in Claude Code, `if` is evaluated only at tool events; a hook with `if` at any other
//! event never runs. The rule is read the way a deny rule is: it holds when any command the
//! line may run matches (`ls && git commit`, `FOO=1 git commit`, `bash -c 'git commit'`), and
//! when that cannot be known (`$G commit`) — a guard hook that runs once too often is better
//! than one that is skipped.

use reasonix_rules::{Rule, ToolKind, Use};
use serde_json::Value;
use std::path::Path;

/// Events whose subject is a tool call.
pub fn is_tool_event(event: &str) -> bool {
    matches!(
        event,
        "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest"
    )
}

/// The tool call an event is about.
pub struct ToolCall<'a> {
    /// Reasonix's name of the tool (`bash`, `write_file`, `mcp__gh__create_issue`).
    pub name: &'a str,
    pub arguments: &'a Value,
}

/// Whether a hook with condition `rule` runs for `event` about `call`; `Err` says why the
/// condition cannot be read (the host checks it at load, so this is a safety net).
pub fn holds(
    rule: &str,
    event: &str,
    call: Option<&ToolCall<'_>>,
    workspace: Option<&str>,
) -> Result<bool, String> {
    let rule = Rule::parse(rule).map_err(|e| e.to_string())?;
    let Some(call) = call.filter(|_| is_tool_event(event)) else {
        return Ok(false);
    };
    let workspace = Path::new(workspace.unwrap_or("/"));
    Ok(rule.matches(
        call.name,
        kind_of(call.name),
        call.arguments,
        workspace,
        Use::Deny,
    ))
}

/// The rule family a tool belongs to. The hook payload carries no schema, so the built-in
/// tools are known by name (the names Claude's families stand for); any other tool is matched
/// by its exact name (`mcp__server__tool`) only.
fn kind_of(tool: &str) -> ToolKind {
    match tool {
        "bash" => ToolKind::Shell,
        "write_file" | "edit_file" | "multi_edit" | "notebook_edit" | "move_file"
        | "delete_range" => ToolKind::FileWriter,
        "read_file" | "ls" | "grep" | "glob" => ToolKind::FileReader,
        "web_fetch" => ToolKind::Fetcher,
        _ => ToolKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash(command: &str) -> bool {
        let args = json!({ "command": command });
        let call = ToolCall {
            name: "bash",
            arguments: &args,
        };
        holds("Bash(git commit*)", "PreToolUse", Some(&call), Some("/w")).unwrap()
    }

    #[test]
    fn a_command_condition_holds_for_every_spelling_of_the_command() {
        for yes in [
            "git commit -m x",
            "git add . && git commit -m x",
            "FOO=1 git commit",
            "\"git\" commit",
            "bash -c 'git commit -m x'",
            "$G commit",
        ] {
            assert!(bash(yes), "{yes}");
        }
        for no in ["git status", "echo hi", "ls -la", "echo git commit"] {
            assert!(!bash(no), "{no}");
        }
    }

    #[test]
    fn path_conditions_and_other_tools() {
        let args = json!({ "path": "src/a.ts", "file_path": "/w/src/a.ts", "content": "x" });
        let write = ToolCall {
            name: "write_file",
            arguments: &args,
        };
        let h = |rule: &str| holds(rule, "PostToolUse", Some(&write), Some("/w")).unwrap();
        assert!(h("Edit(src/**)"));
        assert!(h("Write(src/*.ts)"));
        assert!(!h("Edit(docs/**)"));
        assert!(!h("Bash(git *)"));
        let args = json!({});
        let mcp = ToolCall {
            name: "mcp__gh__create_issue",
            arguments: &args,
        };
        assert!(holds("mcp__gh", "PreToolUse", Some(&mcp), None).unwrap());
        assert!(!holds("mcp__other", "PreToolUse", Some(&mcp), None).unwrap());
    }

    #[test]
    fn outside_tool_events_a_conditioned_hook_never_runs() {
        let args = json!({ "command": "git commit" });
        let call = ToolCall {
            name: "bash",
            arguments: &args,
        };
        for event in ["UserPromptSubmit", "Stop", "SessionStart", "Notification"] {
            assert!(!holds("Bash", event, Some(&call), None).unwrap());
        }
        assert!(!holds("Bash", "PreToolUse", None, None).unwrap());
    }

    #[test]
    fn an_unreadable_condition_is_an_error() {
        assert!(holds("Bash(", "PreToolUse", None, None).is_err());
    }
}
