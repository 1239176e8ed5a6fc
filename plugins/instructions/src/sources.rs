//! Which instruction files exist, in which order, and what of them enters the prompt.

use crate::imports::{Expander, HomeImports};
use crate::{MAX_FILE_BYTES, MAX_TOTAL_BYTES};
use std::path::{Path, PathBuf};

/// The names read from Reasonix's home and from the workspace root, in this order: each file
/// is followed by its personal `.local.md` variant (kept out of version control).
pub const NAMES: [&str; 6] = [
    "REASONIX.md",
    "REASONIX.local.md",
    "AGENTS.md",
    "AGENTS.local.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
];

/// One instruction file as it enters the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The heading: the bare name for a file in the workspace root (as Reasonix always had
    /// it), a workspace-relative path inside it, an absolute path for the user's own files.
    pub heading: String,
    pub text: String,
    /// The file (with its imports) was longer than what `text` holds.
    pub truncated: bool,
    pub in_workspace_root: bool,
}

/// A candidate file and its heading.
struct Candidate {
    path: PathBuf,
    heading: String,
    in_workspace_root: bool,
}

/// Every instruction file present, in order, expanded and bounded. `user_dirs` are the user's
/// own directories as the host listed them (Reasonix's home, then `~/.claude`); unreadable
/// files are skipped: they are notes, not configuration. `trusted` is the project directory
/// the user trusted, if any: its files may import from `~/.claude`, as the user's own may.
pub fn collect(user_dirs: &[PathBuf], workspace: &Path, trusted: Option<&Path>) -> Vec<Found> {
    let mut candidates = Vec::new();
    for dir in user_dirs {
        // `~/.claude` holds Claude Code's `CLAUDE.md`; Reasonix's home holds all the names.
        let names: &[&str] = if dir.file_name().is_some_and(|n| n == ".claude") {
            &["CLAUDE.md"]
        } else {
            &NAMES
        };
        for name in names {
            let path = dir.join(name);
            candidates.push(Candidate {
                heading: path.display().to_string(),
                path,
                in_workspace_root: false,
            });
        }
    }
    for name in NAMES {
        candidates.push(Candidate {
            path: workspace.join(name),
            heading: name.to_string(),
            in_workspace_root: true,
        });
    }
    candidates.push(Candidate {
        path: workspace.join(".claude").join("CLAUDE.md"),
        heading: ".claude/CLAUDE.md".to_string(),
        in_workspace_root: false,
    });

    let mut expander = Expander::new(HomeImports {
        claude_dir: user_dirs
            .iter()
            .find(|d| d.file_name().is_some_and(|n| n == ".claude"))
            .cloned(),
        allowed_from: user_dirs
            .iter()
            .cloned()
            .chain(trusted.map(Path::to_path_buf))
            .collect(),
    });
    let mut out = Vec::new();
    let mut budget = MAX_TOTAL_BYTES;
    for candidate in candidates {
        if budget == 0 {
            break;
        }
        // `is_file` follows symlinks: a top-level file may be a link (CLAUDE.md → AGENTS.md);
        // a directory named like an instruction file is skipped.
        if !candidate.path.is_file() {
            continue;
        }
        let Some(text) = expander.expand_file(&candidate.path) else {
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let (text, truncated) = cut(text, MAX_FILE_BYTES.min(budget));
        budget -= text.len();
        out.push(Found {
            heading: candidate.heading,
            text: text.to_string(),
            truncated,
            in_workspace_root: candidate.in_workspace_root,
        });
    }
    out
}

/// At most `limit` bytes of `text`, cut at a line end when there is one in the second half,
/// else at a character boundary.
pub fn cut(text: &str, limit: usize) -> (&str, bool) {
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
