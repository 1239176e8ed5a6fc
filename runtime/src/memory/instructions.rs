//! A fact the user chooses to keep in the project's instructions file rather than in the state
//! directory: one `- fact` line appended to `REASONIX.md` (or to `CLAUDE.md` when only that one
//! exists; `REASONIX.md` is created when neither does). The file is read into every session's
//! system prompt by the `instructions` built-in, so the fact travels with the repository.
//!
//! The file is the repository's: a `REASONIX.md` that is a link (to `~/.bashrc`, say) or lies
//! outside the workspace is refused, the text is redacted first, and the new content is written
//! whole through a temporary file, so a failed write leaves the old file as it was.

use super::store::{MemoryError, Store};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The file names looked for, in order.
const FILES: &[&str] = &["REASONIX.md", "CLAUDE.md"];

/// Where a fact for the project's instructions goes in `workspace`.
pub fn instructions_file(workspace: &Path) -> PathBuf {
    FILES
        .iter()
        .map(|name| workspace.join(name))
        .find(|path| path.symlink_metadata().is_ok())
        .unwrap_or_else(|| workspace.join(FILES[0]))
}

/// Append `fact` (redacted) as a list item to the instructions file of `workspace`; the file.
pub fn append_to_instructions(workspace: &Path, fact: &str) -> Result<PathBuf, MemoryError> {
    let text = Store::prepare(fact)?.replace('\n', " ");
    let path = instructions_file(workspace);
    let refuse = |why: &str| MemoryError::Io {
        path: path.display().to_string(),
        source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, why.to_string()),
    };
    let old = match path.symlink_metadata() {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(refuse(
                "is a symbolic link; a fact is only appended to a plain file of the workspace",
            ));
        }
        Ok(meta) if !meta.is_file() => return Err(refuse("is not a file")),
        Ok(_) => std::fs::read_to_string(&path).map_err(|source| MemoryError::Io {
            path: path.display().to_string(),
            source,
        })?,
        Err(_) => String::new(),
    };
    let real_workspace =
        std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let parent = path.parent().unwrap_or(workspace);
    if std::fs::canonicalize(parent).map_or(true, |p| p != real_workspace) {
        return Err(refuse("does not lie in the workspace"));
    }
    let mut new = old.clone();
    if !new.is_empty() && !new.ends_with('\n') {
        new.push('\n');
    }
    new.push_str(&format!("- {text}\n"));
    let io = |source| MemoryError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut temp = tempfile::NamedTempFile::new_in(parent).map_err(io)?;
    temp.write_all(new.as_bytes()).map_err(io)?;
    temp.persist(&path).map_err(|e| io(e.error))?;
    Ok(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn appends_to_the_file_there_is_and_creates_reasonix_md_else() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let path = append_to_instructions(ws, "Run tests with `cargo nextest`").unwrap();
        assert_eq!(path, ws.join("REASONIX.md"));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "- Run tests with `cargo nextest`\n"
        );
        let claude = tempfile::tempdir().unwrap();
        std::fs::write(claude.path().join("CLAUDE.md"), "# Project\nno newline").unwrap();
        let path =
            append_to_instructions(claude.path(), "key sk-abcdefghijklmnopqrstuvwx").unwrap();
        assert_eq!(path, claude.path().join("CLAUDE.md"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# Project\nno newline\n- key "), "{text}");
        assert!(!text.contains("abcdefghijklmnop"), "{text}");
    }

    #[test]
    fn a_link_planted_by_the_repository_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("bashrc");
        std::fs::write(&target, "export A=1\n").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("REASONIX.md")).unwrap();
        let err = append_to_instructions(dir.path(), "hello").unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "export A=1\n");
    }
}
