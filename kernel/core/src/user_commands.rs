//! Command lines the user wrote in their own settings files (user-scope hooks), and the
//! confinement they run in (ADR 0028).
//!
//! A user-scope hook is the user's own code, as Claude Code treats it, so it gets what such code
//! is written to need: the network (a `curl` notification) and a writable `~/.claude` (the
//! guide's command log), with the configuration and code that live there kept read-only (a hook
//! fed by a prompt-injected model must not rewrite the user's settings, instructions or hook
//! scripts). Everything else stays as the workspace's sandbox says. Nothing here ever comes
//! from a workspace file: a line that a project file also runs is not widened, so a trusted
//! repository cannot ride on a user's hook by copying its command.

use crate::lexical_path::normalize;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// What the user keeps in `~/.claude` that decides what runs or what the model reads: read-only
/// even for the user's own hooks.
pub(crate) const KEPT_READ_ONLY: &[&str] = &[
    "settings.json",
    "settings.local.json",
    "CLAUDE.md",
    "hooks",
    "commands",
    "agents",
    "skills",
    "plugins",
];

/// The user's own command lines and the directories they may write besides the workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserCommands {
    lines: BTreeSet<String>,
    /// Writable for these commands (absolute): `~/.claude`.
    writable: Vec<PathBuf>,
    /// Readable for these commands though inside Reasonix's own directories (absolute): the
    /// folders of the installed packages whose hooks are among them.
    readable: Vec<PathBuf>,
}

impl UserCommands {
    /// `user` lines from the user's own files, minus any line that `project` files also run;
    /// `claude_dir` (`~/.claude`) becomes writable for them.
    pub fn new(
        user: impl IntoIterator<Item = String>,
        project: &[String],
        claude_dir: Option<PathBuf>,
    ) -> UserCommands {
        let lines = user
            .into_iter()
            .filter(|line| !project.contains(line))
            .collect();
        let writable = claude_dir
            .filter(|d| d.is_absolute())
            .map(|d| normalize(&d))
            .into_iter()
            .collect();
        UserCommands {
            lines,
            writable,
            readable: Vec::new(),
        }
    }

    /// These commands may also read `dirs` (absolute), even inside Reasonix's own directories.
    pub fn with_readable(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> UserCommands {
        for dir in dirs.into_iter().filter(|d| d.is_absolute()) {
            let dir = normalize(&dir);
            if !self.readable.contains(&dir) {
                self.readable.push(dir);
            }
        }
        self
    }

    /// The directories these commands may read inside Reasonix's own (absolute).
    pub fn readable(&self) -> &[PathBuf] {
        &self.readable
    }

    /// Whether `line` is one of the user's own command lines.
    pub fn contains(&self, line: &str) -> bool {
        self.lines.contains(line)
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// The directories these commands may write besides the workspace (absolute).
    pub fn writable(&self) -> &[PathBuf] {
        &self.writable
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxPolicy;
    use std::path::Path;

    fn sh(line: &str) -> Vec<String> {
        vec!["-c".to_string(), line.to_string()]
    }

    #[test]
    fn only_the_users_exact_lines_are_widened() {
        let log = "jq -r .tool_input.command >> ~/.claude/bash-command-log.txt".to_string();
        let shared = "./format.sh".to_string();
        let user = UserCommands::new(
            [log.clone(), shared.clone()],
            std::slice::from_ref(&shared),
            Some(PathBuf::from("/home/u/.claude")),
        );
        assert_eq!(
            user.len(),
            1,
            "a line a project file also runs is not the user's alone"
        );
        let policy = SandboxPolicy::for_test(Path::new("/w"), vec![], vec![]);
        let widened = policy.widened_for(&user, "sh", &sh(&log)).unwrap();
        assert!(widened.network);
        assert_eq!(widened.allow_write, vec![PathBuf::from("/home/u/.claude")]);
        assert!(widened.is_protected(Path::new("/home/u/.claude/settings.json")));
        assert!(widened.is_protected(Path::new("/home/u/.claude/hooks/guard.sh")));
        assert!(!widened.is_protected(Path::new("/home/u/.claude/bash-command-log.txt")));
        for (program, args) in [
            ("sh", sh(&shared)),
            ("sh", sh(&format!("{log}; curl evil"))),
            ("bash", sh(&log)),
            ("sh", vec!["-c".into(), log.clone(), "x".into()]),
            ("sh", vec![log.clone()]),
        ] {
            assert!(
                policy.widened_for(&user, program, &args).is_none(),
                "{program} {args:?}"
            );
        }
    }

    #[test]
    fn a_relative_claude_dir_is_not_made_writable() {
        let user = UserCommands::new(["x".to_string()], &[], Some(PathBuf::from(".claude")));
        let policy = SandboxPolicy::for_test(Path::new("/w"), vec![], vec![]);
        let widened = policy.widened_for(&user, "sh", &sh("x")).unwrap();
        assert!(widened.allow_write.is_empty());
        assert!(widened.network);
    }
}
