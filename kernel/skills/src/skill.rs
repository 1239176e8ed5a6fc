//! One skill: a folder holding `SKILL.md` (frontmatter, then the instructions) and whatever it
//! bundles (`scripts/`, `references/`, assets).
//!
//! Frontmatter read: the Agent Skills fields `name` and `description`; Claude Code's
//! `disable-model-invocation`, `user-invocable`, `argument-hint`, `allowed-tools`, `model`,
//! `effort`, `context: fork` and `agent`; the original Reasonix's `invocation: manual` and
//! `runAs: subagent`. Other keys (`license`, `metadata`, …) are kept out of the way.
//!
//! A `SKILL.md` is untrusted input: nothing in it can widen what Reasonix may do. `allowed-tools`
//! narrows the tools of a skill that runs as a sub-agent and is never a permission grant.

use crate::Scope;
use reasonix_core::frontmatter;
use reasonix_core::terminal::shown;
use std::path::{Path, PathBuf};

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The largest `SKILL.md` read.
pub const MAX_SKILL_BYTES: u64 = 256 * 1024;
/// The most characters of a description kept (the Agent Skills limit).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// The longest name (the Agent Skills limit).
pub const MAX_NAME_CHARS: usize = 64;

/// How the skill runs when used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunAs {
    /// Its instructions join the conversation.
    Inline,
    /// A sub-agent runs it and returns its answer (`runAs: subagent`, `context: fork`).
    Subagent,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// As invoked: `pdf-notes`, or `package:pdf-notes` for a package's.
    pub name: String,
    /// One line (newlines and controls folded to spaces), at most
    /// [`MAX_DESCRIPTION_CHARS`].
    pub description: String,
    /// The skill's folder (real path).
    pub dir: PathBuf,
    pub scope: Scope,
    /// `false` for a workspace skill of a workspace the user has not trusted.
    pub trusted: bool,
    /// Offered to the model in the index (not `invocation: manual`,
    /// `disable-model-invocation: true`).
    pub model_invocable: bool,
    /// Invocable as `/name` (not `user-invocable: false`).
    pub user_invocable: bool,
    pub run_as: RunAs,
    /// The sub-agent profile a [`RunAs::Subagent`] skill runs as (`agent`).
    pub agent: Option<String>,
    /// `allowed-tools`: the tools a sub-agent skill gets (narrowing only).
    pub allowed_tools: Vec<String>,
    pub argument_hint: Option<String>,
    pub model: Option<String>,
    pub effort: Option<String>,
    /// It bundles a `scripts/` folder.
    pub has_scripts: bool,
}

impl Skill {
    /// Its `SKILL.md`.
    pub fn file(&self) -> PathBuf {
        self.dir.join(SKILL_FILE)
    }

    /// The instructions (the file without its frontmatter), read now: a skill's body costs
    /// nothing until it is used.
    pub fn body(&self) -> Result<String, String> {
        self.still_in_place()?;
        let text = read_skill_file(&self.dir, &self.file())?;
        Ok(frontmatter::parse(&text).body.trim().to_string())
    }

    /// Whether the folder is still where it was found (not replaced by a link elsewhere).
    pub fn still_in_place(&self) -> Result<(), String> {
        match self.dir.canonicalize() {
            Ok(real) if real == self.dir => Ok(()),
            Ok(real) => Err(format!(
                "{}: now leads to {}; the skill is not read",
                self.dir.display(),
                real.display()
            )),
            Err(e) => Err(format!("{}: {e}", self.dir.display())),
        }
    }
}

/// A skill's file inside `root` (at most [`MAX_SKILL_BYTES`], UTF-8): a link out of `root`
/// is refused, so no `SKILL.md` can put a file from elsewhere into the prompt.
pub fn read_skill_file(root: &Path, path: &Path) -> Result<String, String> {
    reasonix_core::contained::read_within(root, path, MAX_SKILL_BYTES)
}

/// Whether `name` is a valid skill name: 1 to 64 letters, digits, `-`, `_` or `.`, not
/// starting with `.` or `-`.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The skill in `dir` (a real path) from its `SKILL.md` text. `folder` names it when the
/// frontmatter does not; `namespace` is a package's name.
pub fn parse(
    text: &str,
    dir: &Path,
    scope: Scope,
    namespace: Option<&str>,
) -> Result<Skill, String> {
    let parsed = frontmatter::parse(text);
    if let Some(problem) = parsed.problems.first() {
        return Err(problem.to_string());
    }
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bare = parsed.text("name").unwrap_or(&folder).to_string();
    if !valid_name(&bare) {
        return Err(format!(
            "the skill name `{}` is not 1 to {MAX_NAME_CHARS} letters, digits, `-`, `_` or `.`",
            shown(&bare)
        ));
    }
    let description = parsed
        .text("description")
        .map(str::to_string)
        .or_else(|| first_line(parsed.body))
        .map(|d| one_line(&d))
        .filter(|d| !d.is_empty())
        .ok_or("no `description` (the model decides to use a skill from it) and an empty body")?;
    let flag = |key: &str| parsed.flag(key).map_err(|p| p.to_string());
    let manual = parsed
        .text("invocation")
        .is_some_and(|v| v.eq_ignore_ascii_case("manual"))
        || flag("disable-model-invocation")?.unwrap_or(false);
    let subagent = parsed
        .text("runAs")
        .is_some_and(|v| v.eq_ignore_ascii_case("subagent"))
        || parsed
            .text("context")
            .is_some_and(|v| v.eq_ignore_ascii_case("fork"));
    let name = match namespace {
        Some(ns) => format!("{ns}:{bare}"),
        None => bare,
    };
    Ok(Skill {
        name,
        description,
        dir: dir.to_path_buf(),
        scope,
        trusted: true,
        model_invocable: !manual,
        user_invocable: flag("user-invocable")?.unwrap_or(true),
        run_as: if subagent {
            RunAs::Subagent
        } else {
            RunAs::Inline
        },
        agent: parsed.text("agent").map(str::to_string),
        allowed_tools: parsed
            .get("allowed-tools")
            .map(|f| {
                if f.is_list {
                    f.items.clone()
                } else {
                    tool_words(&f.text)
                }
            })
            .unwrap_or_default(),
        argument_hint: parsed
            .get("argument-hint")
            .map(|f| frontmatter::unquote(&f.raw).to_string())
            .filter(|h| !h.is_empty()),
        model: parsed
            .text("model")
            .filter(|m| !m.eq_ignore_ascii_case("inherit"))
            .map(str::to_string),
        effort: parsed.text("effort").map(str::to_string),
        has_scripts: dir.join("scripts").is_dir(),
    })
}

/// `Read Grep Bash(git diff *)` or `Read, Grep`: the words, split at commas and at spaces
/// outside parentheses.
pub fn tool_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                word.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                word.push(c);
            }
            ',' => {
                words.push(std::mem::take(&mut word));
                depth = 0;
            }
            c if c.is_whitespace() && depth == 0 => words.push(std::mem::take(&mut word)),
            c => word.push(c),
        }
    }
    words.push(word);
    words
        .into_iter()
        .map(|w| w.trim().to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

fn first_line(body: &str) -> Option<String> {
    body.lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// One line: every run of whitespace and control characters is one space; cut at
/// [`MAX_DESCRIPTION_CHARS`].
pub fn one_line(text: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    match out.char_indices().nth(MAX_DESCRIPTION_CHARS) {
        Some((end, _)) => {
            out.truncate(end);
            out.push('…');
            out
        }
        None => out,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The example of Claude Code's skills documentation, as a user would copy it.
    const EXPLAIN_CODE: &str = "---\nname: explain-code\ndescription: Explains code with visual diagrams and analogies. Use when explaining how code works, teaching about a codebase, or when the user asks \"how does this work?\"\n---\n\nWhen explaining code, always include:\n\n1. **Start with an analogy**: Compare code to everyday things\n";

    fn dir() -> PathBuf {
        PathBuf::from("/skills/explain-code")
    }

    #[test]
    fn a_claude_code_skill_reads_unchanged() {
        let s = parse(EXPLAIN_CODE, &dir(), Scope::ProjectClaude, None).unwrap();
        assert_eq!(s.name, "explain-code");
        assert!(
            s.description
                .starts_with("Explains code with visual diagrams")
        );
        assert!(s.description.ends_with("\"how does this work?\""));
        assert!(s.model_invocable && s.user_invocable);
        assert_eq!(s.run_as, RunAs::Inline);
        assert_eq!(s.file(), PathBuf::from("/skills/explain-code/SKILL.md"));
    }

    #[test]
    fn invocation_and_run_as_in_both_spellings() {
        let claude = "---\ndescription: d\ndisable-model-invocation: true\ncontext: fork\nagent: Explore\nallowed-tools: Read Grep Bash(git diff *)\nargument-hint: [file] [mode]\nmodel: inherit\n---\nB";
        let s = parse(claude, &dir(), Scope::User, None).unwrap();
        assert!(!s.model_invocable);
        assert_eq!(s.run_as, RunAs::Subagent);
        assert_eq!(s.agent.as_deref(), Some("Explore"));
        assert_eq!(s.allowed_tools, ["Read", "Grep", "Bash(git diff *)"]);
        assert_eq!(s.argument_hint.as_deref(), Some("[file] [mode]"));
        assert_eq!(s.model, None);
        let original =
            "---\nname: rev\ndescription: d\ninvocation: manual\nrunAs: subagent\n---\nB";
        let s = parse(original, &dir(), Scope::User, Some("pkg")).unwrap();
        assert_eq!(s.name, "pkg:rev");
        assert!(!s.model_invocable);
        assert_eq!(s.run_as, RunAs::Subagent);
        let hidden = parse(
            "---\ndescription: d\nuser-invocable: false\n---\nB",
            &dir(),
            Scope::User,
            None,
        )
        .unwrap();
        assert!(!hidden.user_invocable && hidden.model_invocable);
    }

    #[test]
    fn bad_files_say_what_and_where() {
        let e = parse(
            "---\nname: a b\ndescription: d\n---\nB",
            &dir(),
            Scope::User,
            None,
        )
        .unwrap_err();
        assert!(e.contains("`a b`"), "{e}");
        let e = parse(
            "---\ndescription: d\nuser-invocable: sometimes\n---\nB",
            &dir(),
            Scope::User,
            None,
        )
        .unwrap_err();
        assert!(e.contains("line 3"), "{e}");
        let e = parse(
            "---\ndescription: d\nbroken line\n---\nB",
            &dir(),
            Scope::User,
            None,
        )
        .unwrap_err();
        assert!(e.contains("line 3"), "{e}");
        assert!(parse("", &dir(), Scope::User, None).is_err());
        // No description: the body's first line stands in, as in Claude Code.
        let s = parse("# Release notes\nWrite them.", &dir(), Scope::User, None).unwrap();
        assert_eq!(s.description, "Release notes");
        assert_eq!(s.name, "explain-code");
    }

    #[test]
    fn descriptions_are_one_bounded_line() {
        assert_eq!(one_line("a\n  b\t\u{1b}[31mc "), "a b [31mc");
        let long = "x".repeat(5000);
        assert_eq!(one_line(&long).chars().count(), MAX_DESCRIPTION_CHARS + 1);
    }

    proptest! {
        #[test]
        fn descriptions_never_hold_a_line_break_or_a_control(text in "\\PC{0,300}|[\\x00-\\x1f a-z]{0,300}") {
            let line = one_line(&text);
            prop_assert!(!line.chars().any(|c| c.is_control()));
            prop_assert!(line.chars().count() <= MAX_DESCRIPTION_CHARS + 1);
        }

        #[test]
        fn parsing_never_panics(text in "(---\n)?[-a-zA-Z:| \\[\\]\n]{0,200}(---\n)?.{0,40}") {
            let _ = parse(&text, &dir(), Scope::User, None);
        }
    }
}
