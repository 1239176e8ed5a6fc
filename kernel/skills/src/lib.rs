//! Skills (Agent Skills: a folder with `SKILL.md` and what it bundles): where they are found,
//! the index the model sees (name and description only, sorted, byte-stable) and the folder a
//! skill brings when it is used. Nothing here runs anything: a skill's scripts run only through
//! the shell tool and its permissions.
#![forbid(unsafe_code)]

mod discover;
mod index;
pub mod skill;

pub use discover::{Options, Root, discover, standard_roots};
pub use index::{MAX_INDEX_BYTES, index};
pub use skill::{RunAs, Skill};

use std::path::{Path, PathBuf};

/// Where a skill comes from; the order is the precedence on a name clash: the user's own
/// skills win over a workspace's, so a cloned repository cannot replace one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `<home>/skills/` (Reasonix's home).
    User,
    /// `~/.claude/skills/`.
    UserClaude,
    /// `~/.agents/skills/`.
    UserAgents,
    /// A `[skills] paths` entry.
    Custom,
    /// `<workspace>/.reasonix/skills/`.
    Project,
    /// `<workspace>/.claude/skills/`.
    ProjectClaude,
    /// `<workspace>/.agents/skills/`, `<workspace>/.agent/skills/`.
    ProjectAgents,
    /// An installed package's (its skills are namespaced `package:skill`).
    Package,
}

impl Scope {
    pub fn label(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::UserClaude => "user, ~/.claude",
            Scope::UserAgents => "user, ~/.agents",
            Scope::Custom => "[skills] paths",
            Scope::Project => "project",
            Scope::ProjectClaude => "project, .claude",
            Scope::ProjectAgents => "project, .agents",
            Scope::Package => "package",
        }
    }

    /// A workspace's own skills (trusted only with the workspace).
    pub fn is_workspace(self) -> bool {
        matches!(
            self,
            Scope::Project | Scope::ProjectClaude | Scope::ProjectAgents
        )
    }
}

/// What discovery found: the skills, sorted by name (names unique), and what was skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    pub skills: Vec<Skill>,
    pub warnings: Vec<String>,
    /// `[skills] disable_implicit_invocation`: no skill is in the model's index.
    pub no_index: bool,
}

impl Catalog {
    /// The skill called `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills
            .binary_search_by(|s| s.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.skills[i])
    }

    /// The skills the model is told about.
    pub fn indexed(&self) -> impl Iterator<Item = &Skill> {
        self.skills
            .iter()
            .filter(move |s| !self.no_index && s.model_invocable)
    }

    /// The skill a typed line invokes (`/name args`), with the arguments.
    pub fn invoked<'a>(&self, line: &'a str) -> Option<(&Skill, &'a str)> {
        let rest = line.trim_start().strip_prefix('/')?;
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let skill = self.get(&rest[..end]).filter(|s| s.user_invocable)?;
        Some((skill, rest[end..].trim()))
    }
}

/// The most files listed for one skill.
pub const MAX_LISTED_FILES: usize = 200;
/// How deep the listing goes below the skill's folder.
const LISTED_DEPTH: usize = 4;

/// The files of the skill in `dir`, relative to it, sorted (`/` separated), hidden ones left
/// out, at most [`MAX_LISTED_FILES`]; `true` when there were more. Symbolic links are listed,
/// never followed.
pub fn files(dir: &Path) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    let mut more = false;
    let mut stack: Vec<(PathBuf, usize)> = vec![(dir.to_path_buf(), 0)];
    while let Some((at, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                if depth + 1 < LISTED_DEPTH {
                    stack.push((path, depth + 1));
                }
                continue;
            }
            if out.len() >= MAX_LISTED_FILES {
                more = true;
                continue;
            }
            if let Ok(relative) = path.strip_prefix(dir) {
                let parts: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    out.sort();
    (out, more)
}
