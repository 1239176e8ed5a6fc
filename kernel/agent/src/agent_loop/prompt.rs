//! The system prompt: the first bytes of every request, so it must be byte-identical for the
//! same inputs — across turns and across runs — or the provider's prompt cache misses.
//!
//! The kernel builds part 1 here: the Reasonix guidance (how to work as a coding agent with
//! these tools), or the configured `[agent] system_prompt` / `system_prompt_file` text, which
//! **replaces** it. The agent then dispatches `system_prompt.build` once, and the built-in
//! interceptor components append the rest (see `docs/BUILTIN-INTERCEPTORS.md`):
//! 2. `environment`: OS, architecture, shell, workspace — nothing that changes per run;
//! 3. `instructions`: the user's and the project's instruction files.
//!
//! A configured prompt replaces only part 1: the environment and the project's instructions are
//! facts about the workspace, not persona, and the model needs them whatever it is told to be.

use crate::types::ToolSpec;
use std::path::Path;

/// The facts of the machine the `system_prompt.build` payload states (a component cannot see
/// them). Only values that stay the same from run to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    pub os: String,
    pub arch: String,
    /// Basename of `$SHELL`; `None` when unset.
    pub shell: Option<String>,
    pub workspace: String,
}

impl Environment {
    /// This machine, for `workspace`.
    pub fn detect(workspace: &Path) -> Environment {
        let shell = std::env::var_os("SHELL")
            .map(std::path::PathBuf::from)
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .filter(|s| !s.is_empty());
        Environment {
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
            shell,
            workspace: workspace.display().to_string(),
        }
    }
}

/// Part 1 of the prompt: `config_prompt` (the `[agent] system_prompt` text, already read from
/// `system_prompt_file` when that is used) or the guidance for `tools`. Pure: same inputs, same
/// bytes.
pub fn build(config_prompt: Option<&str>, tools: &[ToolSpec]) -> String {
    match config_prompt.map(str::trim).filter(|p| !p.is_empty()) {
        Some(custom) => custom.to_string(),
        None => guidance(tools).trim_end().to_string(),
    }
}

/// The default guidance. The tool-specific bullets come from the offered tools themselves
/// (their `guidance`, in tool order), so a narrowed tool set (`[tools] enabled`) does not send
/// the model looking for tools it does not have, and an installed tool brings its own advice.
fn guidance(tools: &[ToolSpec]) -> String {
    let mut out = String::from(
        "You are Reasonix, a coding agent working in the user's terminal. You help with software engineering tasks in the workspace: reading and changing code, running commands and tests, and explaining what you find.\n\n# How to work\n\n",
    );
    let mut rules: Vec<&str> = vec![
        "Use the tools to look at the actual code before you answer or change anything; do not guess file contents, paths or APIs.",
    ];
    for tool in tools {
        if let Some(text) = &tool.guidance {
            rules.extend(text.lines().map(str::trim).filter(|l| !l.is_empty()));
        }
    }
    rules.push("Independent reads can be requested together in one answer; they run in parallel.");
    rules.push("Stay inside the task: do not refactor, reformat or add features nobody asked for.");
    for rule in rules {
        out.push_str("- ");
        out.push_str(rule);
        out.push('\n');
    }
    out.push_str(
        "\n# Tool results\n\n\
         - A tool error is for you to fix: read the message, correct the arguments or take another approach. Do not repeat a failing call unchanged.\n\
         - A result saying a call was blocked or needs permission is the user's decision, not an error to work around. Do not try to get the same effect another way; tell the user what you wanted to do and how they can allow it.\n\
         \n# Answering\n\n\
         - Be concise and direct. Lead with the result; skip preamble and restating the question.\n\
         - When you changed files, say which and why in a sentence or two; when something is left undone or failed, say so plainly.\n\
         - Refer to code as `path:line` so the user can find it.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            parameters: "{}".into(),
            read_only: false,
            guidance: None,
        }
    }

    #[test]
    fn the_same_inputs_give_the_same_bytes() {
        let tools = [spec("bash"), spec("read_file")];
        assert_eq!(build(None, &tools), build(None, &tools));
        assert_eq!(
            build(Some("Be a pirate."), &tools),
            build(Some("Be a pirate."), &tools)
        );
    }

    #[test]
    fn nothing_per_run_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let env = Environment::detect(dir.path());
        assert_eq!(env.os, std::env::consts::OS);
        assert_eq!(env.workspace, dir.path().display().to_string());
        assert!(env.shell.as_deref().is_none_or(|s| !s.contains('/')));
    }

    #[test]
    fn guidance_travels_with_the_offered_tools() {
        let guided = |name: &str, text: &str| ToolSpec {
            guidance: Some(text.into()),
            ..spec(name)
        };
        let tools = [
            guided("alpha", "Use `alpha` first."),
            spec("beta"),
            guided(
                "gamma",
                "Use `gamma` for searching.\n\nNever `gamma` twice.",
            ),
        ];
        let full = build(None, &tools);
        assert!(full.starts_with("You are Reasonix"));
        assert!(full.ends_with("user can find it."));
        assert!(full.contains("needs permission"));
        // In tool order, one bullet per line, between the general rules.
        assert!(full.contains(
            "do not guess file contents, paths or APIs.\n- Use `alpha` first.\n- Use `gamma` for searching.\n- Never `gamma` twice.\n- Independent reads"
        ));
        // A tool that is not offered takes its guidance with it.
        let fewer = build(None, &tools[..2]);
        assert!(fewer.contains("`alpha`"));
        assert!(!fewer.contains("`gamma`"));
        let none = build(None, &[]);
        assert!(none.contains("APIs.\n- Independent reads"));
    }

    #[test]
    fn a_configured_prompt_replaces_the_guidance() {
        let p = build(Some("  You are a careful reviewer.\n"), &[spec("bash")]);
        assert_eq!(p, "You are a careful reviewer.");
        // Blank config text falls back to the default.
        assert!(build(Some("  "), &[]).starts_with("You are Reasonix"));
    }
}
