//! `@path` completion for every front end (the terminal's composer, the web UI): one directory
//! level at a time, inside the workspace only, honouring `.gitignore`/`.ignore`. Only
//! completes; the message is sent as typed and the model reads the paths with its own tools.

use ignore::WalkBuilder;
use std::path::{Component, Path, PathBuf};

/// Directory entries looked at per completion (a directory with 100k entries stays quick).
const SCAN_CAP: usize = 5_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// What the list shows: the entry's name, `/` after a directory.
    pub display: String,
    /// What replaces the `@…` token: `@` + the path from the workspace (`/` after a directory).
    pub insert: String,
    pub is_dir: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum MentionError {
    #[error("@{0}: only paths inside the workspace can be completed")]
    Outside(String),
    #[error("@{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Candidates for `partial` (the token after `@`; a leading `@` is accepted too): the entries
/// of its directory whose name starts with its last segment, directories first, then by name,
/// at most `limit`.
pub fn complete(
    workspace: &Path,
    partial: &str,
    limit: usize,
) -> Result<Vec<Candidate>, MentionError> {
    let partial = partial.strip_prefix('@').unwrap_or(partial);
    let (dir_part, prefix) = match partial.rfind('/') {
        Some(i) => (&partial[..=i], &partial[i + 1..]),
        None => ("", partial),
    };
    let outside = || MentionError::Outside(partial.to_string());
    let rel = Path::new(dir_part);
    if dir_part.starts_with('~')
        || rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(outside());
    }
    let io = |source| MentionError::Io {
        path: partial.to_string(),
        source,
    };
    let root = workspace.canonicalize().map_err(io)?;
    let dir = root.join(rel).canonicalize().map_err(io)?;
    // A symlinked directory that leads out of the workspace.
    if !dir.starts_with(&root) {
        return Err(outside());
    }
    let show_hidden = prefix.starts_with('.');
    let walker = WalkBuilder::new(&dir)
        .max_depth(Some(1))
        .hidden(!show_hidden)
        .git_ignore(true)
        .git_exclude(true)
        .ignore(true)
        .parents(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    let lower_prefix = prefix.to_lowercase();
    let mut found: Vec<Candidate> = Vec::new();
    for entry in walker.take(SCAN_CAP + 1).flatten() {
        if entry.depth() != 1 {
            continue;
        }
        let Some(name) = entry.file_name().to_str() else {
            continue;
        };
        if !name.to_lowercase().starts_with(&lower_prefix) {
            continue;
        }
        let Some(kind) = entry.file_type() else {
            continue;
        };
        let is_dir = if kind.is_symlink() {
            match inside(&root, entry.path()) {
                Some(target) => target.is_dir(),
                None => continue,
            }
        } else {
            kind.is_dir()
        };
        let slash = if is_dir { "/" } else { "" };
        found.push(Candidate {
            display: format!("{name}{slash}"),
            insert: format!("@{dir_part}{name}{slash}"),
            is_dir,
        });
    }
    found.sort_by(|a, b| {
        b.is_dir
            .cmp(&a.is_dir)
            .then_with(|| a.display.cmp(&b.display))
    });
    found.truncate(limit);
    Ok(found)
}

/// The symlink's target when it stays inside `root`.
fn inside(root: &Path, link: &Path) -> Option<PathBuf> {
    let target = link.canonicalize().ok()?;
    target.starts_with(root).then_some(target)
}

/// A workspace with dirs, files, dotfiles and a `.gitignore` (for tests of front ends).
#[doc(hidden)]
#[allow(clippy::unwrap_used)]
pub fn test_workspace() -> tempfile::TempDir {
    use std::fs;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    for d in ["src/tui", "docs", "target/debug", ".git/objects", ".github"] {
        fs::create_dir_all(p.join(d)).unwrap();
    }
    for f in [
        "src/main.rs",
        "src/lib.rs",
        "src/tui/mod.rs",
        "README.md",
        "Cargo.toml",
        "debug.log",
        ".env",
        "docs/guide.md",
    ] {
        fs::write(p.join(f), "x").unwrap();
    }
    fs::write(p.join(".gitignore"), "target/\n*.log\n").unwrap();
    dir
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::fs;

    fn names(c: &[Candidate]) -> Vec<&str> {
        c.iter().map(|c| c.display.as_str()).collect()
    }

    #[test]
    fn lists_one_level_dirs_first_and_honours_gitignore() {
        let ws = test_workspace();
        let all = complete(ws.path(), "@", 50).unwrap();
        assert_eq!(names(&all), ["docs/", "src/", "Cargo.toml", "README.md"]);
        let src = complete(ws.path(), "src/", 50).unwrap();
        assert_eq!(names(&src), ["tui/", "lib.rs", "main.rs"]);
        assert_eq!(src[0].insert, "@src/tui/");
        assert!(src[0].is_dir);
        let m = complete(ws.path(), "@src/ma", 50).unwrap();
        assert_eq!(m[0].insert, "@src/main.rs");
        assert_eq!(names(&complete(ws.path(), "r", 50).unwrap()), ["README.md"]);
    }

    #[test]
    fn dotfiles_only_when_asked_and_never_dot_git() {
        let ws = test_workspace();
        let dots = complete(ws.path(), ".", 50).unwrap();
        assert_eq!(names(&dots), [".github/", ".env", ".gitignore"]);
    }

    #[test]
    fn never_leaves_the_workspace() {
        let ws = test_workspace();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.txt"), "s").unwrap();
        // `src/../docs/` stays inside, but `..` is refused on its own.
        for bad in ["../", "@../", "src/../../", "src/../docs/", "/etc/", "~/"] {
            assert!(
                matches!(complete(ws.path(), bad, 50), Err(MentionError::Outside(_))),
                "{bad} accepted"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), ws.path().join("out")).unwrap();
            std::os::unix::fs::symlink(ws.path().join("docs"), ws.path().join("in")).unwrap();
            assert!(matches!(
                complete(ws.path(), "out/", 50),
                Err(MentionError::Outside(_))
            ));
            let top = complete(ws.path(), "", 50).unwrap();
            assert!(!names(&top).iter().any(|n| n.starts_with("out")), "{top:?}");
            assert!(names(&top).contains(&"in/"), "{top:?}");
        }
    }

    #[test]
    fn bounded_by_limit() {
        let ws = tempfile::tempdir().unwrap();
        for i in 0..300 {
            fs::write(ws.path().join(format!("f{i:03}")), "").unwrap();
        }
        let got = complete(ws.path(), "f", 10).unwrap();
        assert_eq!(got.len(), 10);
        assert_eq!(got[0].display, "f000");
    }

    #[test]
    fn a_huge_directory_is_scanned_only_so_far() {
        let ws = tempfile::tempdir().unwrap();
        for i in 0..(SCAN_CAP + 300) {
            fs::write(ws.path().join(format!("f{i:05}")), "").unwrap();
        }
        let got = complete(ws.path(), "f", usize::MAX).unwrap();
        assert!(got.len() <= SCAN_CAP, "{} entries", got.len());
        assert!(!got.is_empty());
    }
}
