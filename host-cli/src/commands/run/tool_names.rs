//! `--tools`: the built-in tools a run offers, named as Claude Code names them (`Bash`, `Read`,
//! `Edit` …) or as Reasonix does (`bash`, `read_file` …).

use anyhow::anyhow;

/// Claude Code's tool names and the tools that do their job here (the reverse of the hooks
/// component's `claude_name`).
const CLAUDE_NAMES: &[(&str, &[&str])] = &[
    ("Bash", &["bash"]),
    ("BashOutput", &["bash_output"]),
    ("KillShell", &["kill_shell"]),
    ("KillBash", &["kill_shell"]),
    ("Read", &["read_file"]),
    ("Write", &["write_file"]),
    ("Edit", &["edit_file"]),
    ("MultiEdit", &["multi_edit"]),
    ("NotebookEdit", &["notebook_edit"]),
    ("Glob", &["glob"]),
    ("Grep", &["grep"]),
    ("LS", &["ls"]),
    ("WebFetch", &["web_fetch"]),
    ("TodoWrite", &["todo_write"]),
];

/// Claude Code tools with no counterpart in Reasonix: named in a script, they are left out with
/// a warning.
const CLAUDE_ONLY: &[&str] = &[
    "WebSearch",
    "Task",
    "Agent",
    "ExitPlanMode",
    "EnterPlanMode",
    "NotebookRead",
    "SlashCommand",
    "Skill",
    "AskUserQuestion",
    "TodoRead",
];

/// The tools to offer and what to warn about.
#[derive(Debug, PartialEq, Eq)]
pub struct Chosen {
    /// `None`: every tool (`default`).
    pub enabled: Option<Vec<String>>,
    pub warnings: Vec<String>,
}

/// Whether a value after the first can be `--tools`'s: every name in it is a tool (Claude
/// Code's or this run's) or `default`. The flag takes several values, as in Claude Code; the
/// first that is not goes back to the task.
pub fn is_tool_list(value: &str, known: &[String]) -> bool {
    let mut names = split(std::slice::from_ref(&value.to_string()))
        .into_iter()
        .peekable();
    names.peek().is_some()
        && names.all(|n| {
            n == "default"
                || CLAUDE_NAMES.iter().any(|(c, _)| *c == n)
                || CLAUDE_ONLY.contains(&n.as_str())
                || known.contains(&n)
        })
}

fn split(values: &[String]) -> Vec<String> {
    values
        .iter()
        .flat_map(|v| v.split(|c: char| c == ',' || c.is_whitespace()))
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

/// The `--tools` values against the tools this run has (`known`).
pub fn choose(values: &[String], known: &[String]) -> anyhow::Result<Chosen> {
    let names = split(values);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    if names == ["default"] {
        return Ok(Chosen {
            enabled: None,
            warnings: Vec::new(),
        });
    }
    let mut enabled = Vec::new();
    let mut warnings = Vec::new();
    for name in names {
        let ours: Vec<&str> = match CLAUDE_NAMES.iter().find(|(claude, _)| *claude == name) {
            Some((_, ours)) => ours.to_vec(),
            None if known.iter().any(|k| k == name) => vec![name],
            None if CLAUDE_ONLY.contains(&name) => {
                warnings.push(format!(
                    "--tools: Reasonix has no `{name}` tool; the run goes on without it"
                ));
                continue;
            }
            None => {
                return Err(anyhow!(
                    "--tools: `{}` is not a tool: name Claude Code's tools (`Bash,Read,Edit` …), \
                     this run's ({}), `default` for all or \"\" for none",
                    reasonix_core::terminal::shown(name),
                    known.join(", ")
                ));
            }
        };
        for tool in ours {
            if !known.iter().any(|k| k == tool) {
                warnings.push(format!(
                    "--tools: `{name}` is `{tool}` here, which this run does not have"
                ));
            } else if !enabled.iter().any(|e| e == tool) {
                enabled.push(tool.to_string());
            }
        }
    }
    Ok(Chosen {
        enabled: Some(enabled),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn claude_names_map_to_ours() {
        let known = strings(&["bash", "read_file", "edit_file", "ls"]);
        let chosen = choose(&strings(&["Bash,Read", "edit_file Read"]), &known).unwrap();
        assert_eq!(
            chosen.enabled,
            Some(strings(&["bash", "read_file", "edit_file"]))
        );
        assert!(chosen.warnings.is_empty());
        assert_eq!(
            choose(&strings(&[""]), &known).unwrap().enabled,
            Some(vec![])
        );
        assert_eq!(
            choose(&strings(&["default"]), &known).unwrap().enabled,
            None
        );
        let chosen = choose(&strings(&["WebSearch,Glob,LS"]), &known).unwrap();
        assert_eq!(chosen.enabled, Some(strings(&["ls"])));
        assert_eq!(chosen.warnings.len(), 2);
        let e = choose(&strings(&["Bsh"]), &known).unwrap_err().to_string();
        assert!(e.contains("`Bsh` is not a tool"), "{e}");
        assert!(is_tool_list("Read, WebSearch ls", &known));
        assert!(!is_tool_list("fix the bug", &known));
        assert!(!is_tool_list("", &known));
    }
}
