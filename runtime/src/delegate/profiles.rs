//! Sub-agent profiles: the built-in `explore` and `general`, and Markdown files in Claude
//! Code's format (`name`, `description`, `tools`, `model` frontmatter; the body is the child's
//! whole system prompt) from `<home>/agents/`, then the project's `.claude/agents/` and
//! `.reasonix/agents/` (a later one wins a name). Read when a `task` runs, never offered in a
//! tool schema or the system prompt, so the cached prefix does not depend on them.
//!
//! A profile file is untrusted input (a cloned repository brings its own): it can narrow the
//! tools its child gets and pick one of the user's configured models, nothing more.

use reasonix_core::delegation::ChildTools;
use std::path::{Path, PathBuf};

/// The largest profile file read.
const MAX_PROFILE_BYTES: u64 = 256 * 1024;
/// The most files read from one directory.
const MAX_FILES: usize = 256;

/// Where a profile came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    BuiltIn,
    File(PathBuf),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub name: String,
    pub description: String,
    /// The child's system prompt.
    pub prompt: String,
    pub tools: ChildTools,
    /// The frontmatter's model: `None` for none or `inherit`.
    pub model: Option<String>,
    pub effort: Option<String>,
    pub origin: Origin,
}

const EXPLORE_PROMPT: &str = "You are an explore sub-agent of Reasonix, a coding agent. Another agent gave you a research task in the user's workspace. You can only read: search, list and read files and fetch pages; you cannot change anything or run commands.\n\n# How to work\n\n- Look at the actual code before you conclude anything; do not guess file contents, paths or APIs.\n- Independent reads can be requested together in one answer; they run in parallel.\n- Stop as soon as you can answer: the agent that asked is waiting for you.\n\n# Answering\n\nYour final answer is all the other agent will see of your work. Make it self-contained and short: what you found, with file paths and line numbers, and what you could not find. No preamble.";

const GENERAL_PROMPT: &str = "You are a sub-agent of Reasonix, a coding agent. Another agent gave you one task in the user's workspace; do it with the tools you have, and nothing beyond it.\n\n# How to work\n\n- Look at the actual code before you change anything; do not guess file contents, paths or APIs.\n- Change only what the task asks for. If you were given write paths, change files only inside them.\n- A result saying a call was blocked or needs permission is the user's decision: do not work around it; say so in your answer.\n\n# Answering\n\nYour final answer is all the other agent will see of your work. Make it self-contained and short: what you did (files changed), what you verified and how, and anything left undone. No preamble.";

/// The built-in profiles.
pub fn built_in() -> Vec<Profile> {
    vec![
        Profile {
            name: "explore".into(),
            description: "Read-only research: finds and reads code, answers with paths and lines.".into(),
            prompt: EXPLORE_PROMPT.into(),
            tools: ChildTools::ReadOnly,
            model: None,
            effort: None,
            origin: Origin::BuiltIn,
        },
        Profile {
            name: "general".into(),
            description: "A task with the parent's tools (writes need `write_paths` to run beside other writers).".into(),
            prompt: GENERAL_PROMPT.into(),
            tools: ChildTools::Inherit,
            model: None,
            effort: None,
            origin: Origin::BuiltIn,
        },
    ]
}

/// The directories searched, lowest precedence first.
pub fn directories(home: &Path, workspace: &Path) -> Vec<PathBuf> {
    vec![
        home.join("agents"),
        workspace.join(".claude").join("agents"),
        workspace.join(".reasonix").join("agents"),
    ]
}

/// Where profiles come from beyond the workspace: Reasonix's home and the installed
/// packages' `agents/` folders (whose profiles are `<package>:<name>`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    pub home: PathBuf,
    pub packages: Vec<(PathBuf, String)>,
}

impl Sources {
    pub fn new(home: &Path) -> Sources {
        Sources {
            home: home.to_path_buf(),
            packages: Vec::new(),
        }
    }

    /// Every profile for `workspace` (see [`load`]), then the packages'.
    pub fn load(&self, workspace: &Path) -> (Vec<Profile>, Vec<String>) {
        let mut dirs: Vec<(PathBuf, Option<&str>)> = directories(&self.home, workspace)
            .into_iter()
            .map(|d| (d, None))
            .collect();
        dirs.extend(
            self.packages
                .iter()
                .map(|(d, ns)| (d.clone(), Some(ns.as_str()))),
        );
        load_from(&dirs)
    }
}

/// Every profile, by name (a later source wins), and what was wrong with the files that were
/// skipped (path and why).
pub fn load(home: &Path, workspace: &Path) -> (Vec<Profile>, Vec<String>) {
    Sources::new(home).load(workspace)
}

fn load_from(dirs: &[(PathBuf, Option<&str>)]) -> (Vec<Profile>, Vec<String>) {
    let mut profiles = built_in();
    let mut problems = Vec::new();
    for (dir, namespace) in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .take(MAX_FILES)
            .collect();
        files.sort();
        for path in files {
            match read(dir, &path) {
                Ok(mut profile) => {
                    if let Some(ns) = namespace {
                        profile.name = format!("{ns}:{}", profile.name);
                    }
                    profiles.retain(|p| p.name != profile.name);
                    profiles.push(profile);
                }
                Err(why) if why.starts_with(&path.display().to_string()) => problems.push(why),
                Err(why) => problems.push(format!("{}: {why}", path.display())),
            }
        }
    }
    profiles.sort_by(|a, b| a.name.cmp(&b.name));
    (profiles, problems)
}

/// A profile file inside `dir`: one linking out of it is refused (its body would be a
/// child's system prompt, sent to the provider).
fn read(dir: &Path, path: &Path) -> Result<Profile, String> {
    let text = reasonix_core::contained::read_within(dir, path, MAX_PROFILE_BYTES)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    parse(&text, &stem, Origin::File(path.to_path_buf()))
}

/// A profile from a file's text; `stem` names it when the frontmatter does not.
pub fn parse(text: &str, stem: &str, origin: Origin) -> Result<Profile, String> {
    let parsed = reasonix_core::frontmatter::parse(text);
    if let Some(problem) = parsed.problems.first() {
        return Err(problem.to_string());
    }
    let body = parsed.body;
    let name = parsed
        .text("name")
        .map_or_else(|| stem.to_string(), str::to_string);
    if name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(format!(
            "the profile name `{}` is not 1 to 64 letters, digits, `-`, `_` or `.`",
            reasonix_core::terminal::shown(&name)
        ));
    }
    let prompt = body.trim().to_string();
    if prompt.is_empty() {
        return Err("the body (the sub-agent's system prompt) is empty".into());
    }
    let tools = match parsed.get("tools") {
        None => ChildTools::Inherit,
        Some(field) => {
            let mut mapped: Vec<String> = Vec::new();
            for name in field.items.iter().filter(|n| !n.is_empty()) {
                for tool in tool_names(name) {
                    if !mapped.contains(&tool) {
                        mapped.push(tool);
                    }
                }
            }
            ChildTools::Named(mapped)
        }
    };
    let model = parsed
        .text("model")
        .filter(|m| *m != "inherit")
        .map(str::to_string);
    let effort = parsed.text("effort").map(str::to_string);
    Ok(Profile {
        name,
        description: parsed.text("description").unwrap_or_default().to_string(),
        prompt,
        tools,
        model,
        effort,
        origin,
    })
}

/// Reasonix's tools for a name in a profile's `tools`: Claude Code's names map to the tools
/// that do that job here; any other name is taken as a Reasonix (or `mcp__…`) tool name.
pub fn tool_names(name: &str) -> Vec<String> {
    let names: &[&str] = match name {
        "Read" => &["read_file"],
        "LS" => &["ls"],
        "Grep" => &["grep"],
        "Glob" => &["glob"],
        "Bash" => &["bash", "bash_output", "kill_shell", "wait"],
        "BashOutput" => &["bash_output"],
        "KillShell" | "KillBash" => &["kill_shell"],
        "Edit" => &["edit_file", "delete_range"],
        "MultiEdit" => &["multi_edit"],
        "Write" => &["write_file", "move_file"],
        "NotebookEdit" => &["notebook_edit"],
        "WebFetch" => &["web_fetch"],
        "TodoWrite" => &["todo_write"],
        "Task" | "Agent" => &["task", "fleet", "parallel_tasks"],
        other => return vec![other.to_string()],
    };
    names.iter().map(|n| n.to_string()).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The example of Claude Code's sub-agent documentation, as a user would copy it.
    const CLAUDE_REVIEWER: &str = "---\nname: code-reviewer\ndescription: Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.\ntools: Read, Grep, Glob, Bash\nmodel: inherit\n---\n\nYou are a senior code reviewer ensuring high standards of code quality and security.\n\nWhen invoked:\n1. Run git diff to see recent changes\n2. Focus on modified files\n3. Begin review immediately\n";

    #[test]
    fn a_profile_linking_out_of_its_folder_is_not_read() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(
            outside.path().join("id"),
            "---\nname: leak\n---\nsecret key",
        )
        .unwrap();
        let dir = ws.path().join(".claude/agents");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(outside.path().join("id"), dir.join("leak.md")).unwrap();
        let (profiles, problems) = load(home.path(), ws.path());
        assert!(profiles.iter().all(|p| p.name != "leak"));
        assert!(
            problems.iter().any(|p| p.contains("leads out of")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_claude_code_profile_reads_unchanged() {
        let p = parse(CLAUDE_REVIEWER, "reviewer", Origin::BuiltIn).unwrap();
        assert_eq!(p.name, "code-reviewer");
        assert!(p.description.starts_with("Expert code review specialist."));
        assert_eq!(
            p.tools,
            ChildTools::Named(
                [
                    "read_file",
                    "grep",
                    "glob",
                    "bash",
                    "bash_output",
                    "kill_shell",
                    "wait"
                ]
                .map(String::from)
                .to_vec()
            )
        );
        assert_eq!(p.model, None, "`inherit` is the parent's model");
        assert!(p.prompt.starts_with("You are a senior code reviewer"));
    }

    #[test]
    fn lists_names_and_bad_files() {
        let list = "---\ntools:\n  - Read\n  - mcp__docs__search\nmodel: deepseek/deepseek-chat\n---\nBody";
        let p = parse(list, "docs", Origin::BuiltIn).unwrap();
        assert_eq!(p.name, "docs");
        assert_eq!(
            p.tools,
            ChildTools::Named(vec!["read_file".into(), "mcp__docs__search".into()])
        );
        assert_eq!(p.model.as_deref(), Some("deepseek/deepseek-chat"));
        let inline = parse("---\ntools: [Grep, \"Glob\"]\n---\nB", "x", Origin::BuiltIn).unwrap();
        assert_eq!(
            inline.tools,
            ChildTools::Named(vec!["grep".into(), "glob".into()])
        );
        assert!(
            parse("---\nname: a b\n---\nB", "x", Origin::BuiltIn)
                .unwrap_err()
                .contains("not 1 to 64")
        );
        assert!(
            parse("---\nname: a\n", "x", Origin::BuiltIn)
                .unwrap_err()
                .contains("not closed")
        );
        assert!(
            parse("---\nname: a\n---\n  \n", "x", Origin::BuiltIn)
                .unwrap_err()
                .contains("empty")
        );
        // No frontmatter: the file's name, every tool.
        let plain = parse("Just a prompt.", "helper", Origin::BuiltIn).unwrap();
        assert_eq!(
            (plain.name.as_str(), &plain.tools),
            ("helper", &ChildTools::Inherit)
        );
    }

    #[test]
    fn a_project_profile_overrides_a_user_one_and_bad_files_are_named() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join("agents")).unwrap();
        std::fs::create_dir_all(ws.path().join(".claude/agents")).unwrap();
        std::fs::write(home.path().join("agents/rev.md"), "User's.").unwrap();
        std::fs::write(ws.path().join(".claude/agents/rev.md"), "Project's.").unwrap();
        std::fs::write(ws.path().join(".claude/agents/bad.md"), "---\nname: x\n").unwrap();
        let (profiles, problems) = load(home.path(), ws.path());
        let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["explore", "general", "rev"]);
        assert_eq!(profiles[2].prompt, "Project's.");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("bad.md") && problems[0].contains("not closed"));
    }

    proptest! {
        /// Any text: no panic, and a profile that reads has a valid name and a body.
        #[test]
        fn any_text_parses_or_says_why(text in ".{0,400}", stem in "[a-z]{1,8}") {
            if let Ok(p) = parse(&text, &stem, Origin::BuiltIn) {
                prop_assert!(!p.name.is_empty() && p.name.len() <= 64);
                prop_assert!(!p.prompt.is_empty());
            }
            let framed = format!("---\n{text}\n---\nbody");
            let _ = parse(&framed, &stem, Origin::BuiltIn);
        }
    }
}
