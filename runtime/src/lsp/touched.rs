//! Source files of a language changed since a moment: what a language server must be told
//! about before it answers (it does not watch the disk for us), and what `lsp_diagnostics`
//! checks when given no path. The walk honours `.gitignore` and is bounded.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Entries looked at, at most; files returned, at most.
const MAX_ENTRIES: usize = 50_000;
const MAX_FILES: usize = 200;

pub fn since(workspace: &Path, extensions: &[String], since: SystemTime) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let walk = ignore::WalkBuilder::new(workspace)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .build();
    for entry in walk.take(MAX_ENTRIES).flatten() {
        let path = entry.path();
        let wanted = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .is_some_and(|e| extensions.contains(&e));
        if !wanted || !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let changed = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .is_some_and(|m| m >= since);
        if changed {
            found.push(path.to_path_buf());
            if found.len() >= MAX_FILES {
                break;
            }
        }
    }
    found.sort();
    found
}
