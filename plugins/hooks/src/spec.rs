//! The hooks the host hands over (`config.get("hooks")`), and which of them match.

use serde::Deserialize;
use std::collections::BTreeMap;

/// A hook's default timeout, as in Claude Code: 60 s.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// One hook, as the host serialises it (`reasonix_config::HookEntry`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookSpec {
    pub event: String,
    #[serde(default)]
    pub matcher: Option<String>,
    /// `claude` (Claude Code's `matcher`, over Claude's tool names too) or `reasonix`.
    pub matcher_style: String,
    pub command: String,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// `file:line`, for messages.
    pub source: String,
    /// Claude Code's `if`: a permission rule the tool call must match (tool events only).
    #[serde(default, rename = "if")]
    pub condition: Option<String>,
}

impl HookSpec {
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)
    }

    /// Whether the hook applies to `subject` (a tool name, a session-start source …; `None`
    /// for events whose matcher is ignored), and a warning when its matcher is not a regex.
    pub fn matches(&self, subject: Option<&str>) -> (bool, Option<String>) {
        let Some(subject) = subject else {
            return (true, None);
        };
        let pattern = match self.matcher.as_deref().map(str::trim) {
            None | Some("") | Some("*") => return (true, None),
            Some(p) => p,
        };
        let mut candidates = vec![subject];
        if self.matcher_style == "claude"
            && let Some(claude) = claude_name(subject)
        {
            candidates.push(claude);
        }
        match regex_automata::meta::Regex::builder()
            .syntax(
                regex_automata::util::syntax::Config::new()
                    .unicode(false)
                    .utf8(false),
            )
            .build(&format!("^(?:{pattern})$"))
        {
            Ok(re) => (candidates.iter().any(|c| re.is_match(*c)), None),
            // Not a regex: an exact `A|B` list, as Claude Code reads plain matchers; said, so
            // a guard that never fires is not silent.
            Err(e) => (
                pattern.split('|').any(|p| candidates.contains(&p)),
                Some(format!(
                    "matcher `{pattern}` of the hook at {} is not a valid regular expression ({e}); it was compared as an exact `A|B` list",
                    self.source
                )),
            ),
        }
    }
}

/// The hooks the host passed; none when the key is missing or unreadable (the host always
/// sets it, so that is a host bug, logged by the caller).
pub fn from_config(value: Option<serde_json::Value>) -> Result<Vec<HookSpec>, String> {
    let text = match value {
        None => return Ok(Vec::new()),
        Some(serde_json::Value::String(text)) => text,
        Some(other) => other.to_string(),
    };
    serde_json::from_str(&text).map_err(|e| format!("the host's hook list is unreadable: {e}"))
}

/// Claude Code's name for one of this build's tools, for matchers and hook input.
pub fn claude_name(tool: &str) -> Option<&'static str> {
    Some(match tool {
        "bash" => "Bash",
        "bash_output" => "BashOutput",
        "kill_shell" => "KillShell",
        "read_file" => "Read",
        "write_file" => "Write",
        "edit_file" => "Edit",
        "multi_edit" => "MultiEdit",
        "notebook_edit" => "NotebookEdit",
        "glob" => "Glob",
        "grep" => "Grep",
        "ls" => "LS",
        "web_fetch" => "WebFetch",
        "todo_write" => "TodoWrite",
        _ => return None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hook(matcher: Option<&str>, style: &str) -> HookSpec {
        HookSpec {
            event: "PreToolUse".into(),
            matcher: matcher.map(str::to_string),
            matcher_style: style.into(),
            command: "x".into(),
            timeout_ms: None,
            cwd: None,
            env: BTreeMap::new(),
            source: "f:1".into(),
            condition: None,
        }
    }

    #[test]
    fn claude_matchers_see_claude_names_and_ours() {
        let h = hook(Some("Bash"), "claude");
        assert!(h.matches(Some("bash")).0);
        assert!(!h.matches(Some("bash_output")).0, "anchored");
        assert!(!h.matches(Some("read_file")).0);
        let h = hook(Some("Edit|Write"), "claude");
        assert!(h.matches(Some("write_file")).0);
        assert!(h.matches(Some("edit_file")).0);
        assert!(!h.matches(Some("multi_edit")).0);
        let h = hook(Some("mcp__.*"), "claude");
        assert!(h.matches(Some("mcp__gh__x")).0);
        for all in [None, Some(""), Some("*")] {
            assert!(hook(all, "claude").matches(Some("anything")).0);
        }
        assert!(hook(Some("Bash"), "claude").matches(None).0);
    }

    #[test]
    fn reasonix_matchers_see_our_names_only() {
        let h = hook(Some("bash"), "reasonix");
        assert!(h.matches(Some("bash")).0);
        assert!(!hook(Some("Bash"), "reasonix").matches(Some("bash")).0);
    }

    #[test]
    fn a_bad_regex_falls_back_to_the_exact_list() {
        let (matched, warning) = hook(Some("Bash|("), "claude").matches(Some("bash"));
        assert!(matched);
        assert!(warning.unwrap().contains("not a valid regular expression"));
    }

    #[test]
    fn the_config_list_reads() {
        let list = from_config(Some(serde_json::Value::String(
            r#"[{"event":"PreToolUse","matcher":"Bash","matcherStyle":"claude","command":"g","timeoutMs":5,"source":"f:1","scope":"user","trusted":true}]"#.into(),
        )))
        .unwrap();
        assert_eq!(list[0].timeout_ms(), 5);
        assert!(from_config(None).unwrap().is_empty());
        assert!(from_config(Some(serde_json::Value::String("{".into()))).is_err());
    }
}
