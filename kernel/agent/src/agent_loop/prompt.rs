//! The system prompt: the first bytes of every request, so it must be byte-identical for the
//! same inputs — across turns and across runs — or the provider's prompt cache misses.
//!
//! Layout, in this order:
//! 1. the Reasonix guidance (how to work as a coding agent with these tools), or the configured
//!    `[agent] system_prompt` / `system_prompt_file` text, which **replaces** it;
//! 2. an environment block: OS, architecture, shell (basename of `$SHELL`), workspace path —
//!    nothing that changes per run (no dates, times, pids, ids, environment values);
//! 3. the project instruction files in the workspace root (`REASONIX.md`, `AGENTS.md`,
//!    `CLAUDE.md`, in that order), each under its own heading and cut at
//!    [`MAX_INSTRUCTION_BYTES`].
//!
//! A configured prompt replaces only part 1: the environment and the project's instructions are
//! facts about the workspace, not persona, and the model needs them whatever it is told to be.

use crate::types::ToolSpec;
use std::path::Path;

/// Project instruction files read from the workspace root, in this order.
pub const INSTRUCTION_FILES: [&str; 3] = ["REASONIX.md", "AGENTS.md", "CLAUDE.md"];
/// At most this many bytes of one instruction file enter the prompt.
pub const MAX_INSTRUCTION_BYTES: usize = 32 * 1024;
/// At most this many bytes of all instruction files together.
pub const MAX_INSTRUCTIONS_TOTAL: usize = 64 * 1024;

/// The facts of the machine the prompt states. Only values that stay the same from run to run.
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

/// One project instruction file as it enters the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instructions {
    pub file: String,
    pub text: String,
    /// The file was longer than what `text` holds.
    pub truncated: bool,
}

/// The system prompt for a run in `workspace` offering `tools`; `config_prompt` is the
/// `[agent] system_prompt` text (already read from `system_prompt_file` when that is used).
pub fn system_prompt(config_prompt: Option<&str>, workspace: &Path, tools: &[ToolSpec]) -> String {
    build(
        config_prompt,
        &Environment::detect(workspace),
        &project_instructions(workspace),
        tools,
    )
}

/// Read the instruction files present in the workspace root (not in subdirectories), within
/// the size bounds. Unreadable files are skipped: they are the user's notes, not config.
pub fn project_instructions(workspace: &Path) -> Vec<Instructions> {
    let mut out = Vec::new();
    let mut budget = MAX_INSTRUCTIONS_TOTAL;
    for file in INSTRUCTION_FILES {
        if budget == 0 {
            break;
        }
        let path = workspace.join(file);
        // `is_file` follows symlinks; a directory named like an instruction file is skipped.
        if !path.is_file() {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let limit = MAX_INSTRUCTION_BYTES.min(budget);
        let (text, truncated) = cut(text, limit);
        budget -= text.len();
        out.push(Instructions {
            file: file.to_string(),
            text: text.to_string(),
            truncated,
        });
    }
    out
}

/// At most `limit` bytes of `text`, cut at a line end when there is one in the second half,
/// else at a character boundary.
fn cut(text: &str, limit: usize) -> (&str, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    match head.rfind('\n') {
        Some(i) if i >= limit / 2 => (head[..i].trim_end(), true),
        _ => (head, true),
    }
}

/// Put the prompt together from its parts. Pure: same inputs, same bytes.
pub fn build(
    config_prompt: Option<&str>,
    env: &Environment,
    instructions: &[Instructions],
    tools: &[ToolSpec],
) -> String {
    let mut out = String::new();
    match config_prompt.map(str::trim).filter(|p| !p.is_empty()) {
        Some(custom) => out.push_str(custom),
        None => out.push_str(guidance(tools).trim_end()),
    }
    out.push_str("\n\n# Environment\n\n");
    out.push_str(&format!("- Operating system: {}\n", env.os));
    out.push_str(&format!("- Architecture: {}\n", env.arch));
    if let Some(shell) = &env.shell {
        out.push_str(&format!("- User's shell: {shell}\n"));
    }
    out.push_str(&format!(
        "- Workspace (working directory): {}\n",
        env.workspace
    ));
    out.push_str("- Paths in tool calls are relative to the workspace, or absolute inside it.\n");
    if !instructions.is_empty() {
        out.push_str(
            "\n# Project instructions\n\nThe project keeps these instructions for agents in its root directory. Follow them; they take precedence over the general guidance above when the two disagree.\n",
        );
        for i in instructions {
            out.push_str(&format!("\n## {}\n\n{}\n", i.file, i.text));
            if i.truncated {
                out.push_str(&format!(
                    "\n[{} is longer; only its first part is shown. Read the file for the rest.]\n",
                    i.file
                ));
            }
        }
    }
    out
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

    fn env() -> Environment {
        Environment {
            os: "linux".into(),
            arch: "x86_64".into(),
            shell: Some("zsh".into()),
            workspace: "/work/proj".into(),
        }
    }

    fn all_tools() -> Vec<ToolSpec> {
        [
            "bash",
            "edit_file",
            "glob",
            "grep",
            "ls",
            "multi_edit",
            "read_file",
            "todo_write",
            "write_file",
        ]
        .into_iter()
        .map(spec)
        .collect()
    }

    #[test]
    fn the_same_inputs_give_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "Run `make check`.\n").unwrap();
        let a = system_prompt(None, dir.path(), &all_tools());
        let b = system_prompt(None, dir.path(), &all_tools());
        assert_eq!(a, b);
        let c = system_prompt(Some("Be a pirate."), dir.path(), &all_tools());
        let d = system_prompt(Some("Be a pirate."), dir.path(), &all_tools());
        assert_eq!(c, d);
    }

    #[test]
    fn nothing_per_run_enters_the_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let prompt = system_prompt(None, dir.path(), &all_tools());
        let pid = std::process::id().to_string();
        let ws = dir.path().display().to_string();
        assert!(prompt.contains(&ws));
        let prompt = prompt.replace(&ws, "<workspace>");
        assert!(!prompt.contains(&pid), "the pid is in the prompt");
        let year = 1970
            + std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
                / 31_557_600;
        assert!(
            !prompt.contains(&year.to_string()),
            "a year is in the prompt"
        );
        assert!(prompt.contains(std::env::consts::OS));
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
        let full = build(None, &env(), &[], &tools);
        assert!(full.starts_with("You are Reasonix"));
        assert!(full.contains("user can find it.\n\n# Environment\n\n- Operating"));
        assert!(full.contains("needs permission"));
        // In tool order, one bullet per line, between the general rules.
        assert!(full.contains(
            "do not guess file contents, paths or APIs.\n- Use `alpha` first.\n- Use `gamma` for searching.\n- Never `gamma` twice.\n- Independent reads"
        ));
        // A tool that is not offered takes its guidance with it.
        let fewer = build(None, &env(), &[], &tools[..2]);
        assert!(fewer.contains("`alpha`"));
        assert!(!fewer.contains("`gamma`"));
        let none = build(None, &env(), &[], &[]);
        assert!(none.contains("APIs.\n- Independent reads"));
    }

    #[test]
    fn environment_block() {
        let p = build(None, &env(), &[], &[]);
        assert!(p.contains("- Operating system: linux\n"));
        assert!(p.contains("- Architecture: x86_64\n"));
        assert!(p.contains("- User's shell: zsh\n"));
        assert!(p.contains("- Workspace (working directory): /work/proj\n"));
        let no_shell = build(
            None,
            &Environment {
                shell: None,
                ..env()
            },
            &[],
            &[],
        );
        assert!(!no_shell.contains("shell:"));
    }

    #[test]
    fn a_configured_prompt_replaces_the_guidance_but_keeps_environment_and_instructions() {
        let instructions = vec![Instructions {
            file: "AGENTS.md".into(),
            text: "Use tabs.".into(),
            truncated: false,
        }];
        let p = build(
            Some("  You are a careful reviewer.\n"),
            &env(),
            &instructions,
            &all_tools(),
        );
        assert!(p.starts_with("You are a careful reviewer.\n\n# Environment"));
        assert!(!p.contains("You are Reasonix"));
        assert!(p.contains("## AGENTS.md\n\nUse tabs.\n"));
        // Blank config text falls back to the default.
        assert!(build(Some("  "), &env(), &[], &[]).starts_with("You are Reasonix"));
    }

    #[test]
    fn instruction_files_in_order_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("CLAUDE.md"), "claude rules").unwrap();
        std::fs::write(dir.path().join("REASONIX.md"), "reasonix rules").unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "   \n").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/AGENTS.md"), "nested").unwrap();
        let found = project_instructions(dir.path());
        let names: Vec<&str> = found.iter().map(|i| i.file.as_str()).collect();
        assert_eq!(names, ["REASONIX.md", "CLAUDE.md"]);

        let line = "x".repeat(99) + "\n";
        std::fs::write(dir.path().join("AGENTS.md"), line.repeat(1000)).unwrap();
        let found = project_instructions(dir.path());
        let agents = found.iter().find(|i| i.file == "AGENTS.md").unwrap();
        assert!(agents.truncated);
        assert!(agents.text.len() <= MAX_INSTRUCTION_BYTES);
        assert!(agents.text.ends_with('x'), "cut at a line end");
        let prompt = system_prompt(None, dir.path(), &[]);
        assert!(prompt.contains("[AGENTS.md is longer"));
        let r = prompt.find("## REASONIX.md").unwrap();
        let a = prompt.find("## AGENTS.md").unwrap();
        let c = prompt.find("## CLAUDE.md").unwrap();
        assert!(r < a && a < c);
    }

    #[test]
    fn cut_respects_char_boundaries() {
        let text = "é".repeat(10);
        let (head, truncated) = cut(&text, 5);
        assert!(truncated);
        assert_eq!(head, "éé");
    }
}
