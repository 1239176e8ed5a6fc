//! File access confined to the workspace for checkpoints and restores.
//!
//! Paths come from tools (and so from the model) and the tree may be hostile: a path must be
//! inside the workspace without `..`, and no component of it may be a symbolic link — a link
//! planted in the repository must not make a snapshot read, or a restore write, outside it.
//! A restore replaces a link at the final component (the rename swaps the link itself; its
//! target is never opened).

use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;

/// The largest file a checkpoint keeps; a larger one is not tracked (and said so).
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum ConfineError {
    #[error("`{0}` is outside the workspace")]
    Outside(String),
    #[error("`{0}` contains `..`")]
    ParentDir(String),
    #[error("`{0}` goes through a symbolic link")]
    Symlink(String),
    #[error("`{0}` is not a regular file")]
    NotAFile(String),
    #[error("`{path}` is larger than {max} bytes")]
    TooLarge { path: String, max: u64 },
    #[error("`{path}`: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// A path as checkpoints name it: relative to the workspace, `/`-separated, no `.`/`..`.
pub fn relative(workspace: &Path, path: &str) -> Result<String, ConfineError> {
    let given = Path::new(path);
    let rest = if given.is_absolute() {
        given
            .strip_prefix(workspace)
            .map_err(|_| ConfineError::Outside(path.to_string()))?
    } else {
        given
    };
    let mut parts = Vec::new();
    for component in rest.components() {
        match component {
            Component::Normal(part) => match part.to_str() {
                Some(text) => parts.push(text),
                None => return Err(ConfineError::Outside(path.to_string())),
            },
            Component::CurDir => {}
            Component::ParentDir => return Err(ConfineError::ParentDir(path.to_string())),
            Component::RootDir | Component::Prefix(_) => {
                return Err(ConfineError::Outside(path.to_string()));
            }
        }
    }
    if parts.is_empty() {
        return Err(ConfineError::NotAFile(path.to_string()));
    }
    Ok(parts.join("/"))
}

/// A file's content at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    Absent,
    File(Vec<u8>),
}

fn io_err(path: &str) -> impl Fn(io::Error) -> ConfineError + '_ {
    move |source| ConfineError::Io {
        path: path.to_string(),
        source,
    }
}

fn metadata(path: &Path) -> io::Result<Option<std::fs::Metadata>> {
    match std::fs::symlink_metadata(path) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// What the parents of `rel` are.
enum Parents {
    /// Every parent is a real directory.
    Present,
    /// `missing` (workspace-relative) is the first parent that does not exist.
    Missing { missing: String },
}

/// The components of `rel`, which must be in the form [`relative`] gives (a checkpoint file
/// is read back from disk: a path in it is checked again, not trusted).
fn components(rel: &str) -> Result<Vec<&str>, ConfineError> {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == ".." || p.contains('\0'))
    {
        return Err(ConfineError::ParentDir(rel.to_string()));
    }
    Ok(parts)
}

/// Walk the parent directories of `rel`, refusing a symbolic link or a non-directory.
fn parents(workspace: &Path, rel: &str) -> Result<Parents, ConfineError> {
    let parts = components(rel)?;
    let mut current = workspace.to_path_buf();
    for (i, part) in parts[..parts.len() - 1].iter().enumerate() {
        current.push(part);
        match metadata(&current).map_err(io_err(rel))? {
            None => {
                return Ok(Parents::Missing {
                    missing: parts[..=i].join("/"),
                });
            }
            Some(m) if m.file_type().is_symlink() => {
                return Err(ConfineError::Symlink(rel.to_string()));
            }
            Some(m) if !m.is_dir() => return Err(ConfineError::NotAFile(rel.to_string())),
            Some(_) => {}
        }
    }
    Ok(Parents::Present)
}

/// The content of `rel` now, and when it is absent, the first of its parent directories that
/// does not exist either (a restore removes it again when it is left empty).
pub fn read(workspace: &Path, rel: &str) -> Result<(Content, Option<String>), ConfineError> {
    if let Parents::Missing { missing } = parents(workspace, rel)? {
        return Ok((Content::Absent, Some(missing)));
    }
    let path = workspace.join(rel);
    let Some(before) = metadata(&path).map_err(io_err(rel))? else {
        return Ok((Content::Absent, None));
    };
    if before.file_type().is_symlink() {
        return Err(ConfineError::Symlink(rel.to_string()));
    }
    if !before.is_file() {
        return Err(ConfineError::NotAFile(rel.to_string()));
    }
    if before.len() > MAX_FILE_BYTES {
        return Err(ConfineError::TooLarge {
            path: rel.to_string(),
            max: MAX_FILE_BYTES,
        });
    }
    let file = std::fs::File::open(&path).map_err(io_err(rel))?;
    // The file opened must be the one looked at: a link swapped in between is refused.
    let opened = file.metadata().map_err(io_err(rel))?;
    if opened.dev() != before.dev() || opened.ino() != before.ino() {
        return Err(ConfineError::Symlink(rel.to_string()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err(rel))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ConfineError::TooLarge {
            path: rel.to_string(),
            max: MAX_FILE_BYTES,
        });
    }
    Ok((Content::File(bytes), None))
}

/// Make the parent directories of `rel` (never through a link); the ones made, outermost
/// first.
fn make_parents(workspace: &Path, rel: &str) -> Result<Vec<String>, ConfineError> {
    let parts = components(rel)?;
    let mut made = Vec::new();
    let mut current = workspace.to_path_buf();
    for (i, part) in parts[..parts.len() - 1].iter().enumerate() {
        current.push(part);
        match metadata(&current).map_err(io_err(rel))? {
            None => {
                std::fs::create_dir(&current).map_err(io_err(rel))?;
                made.push(parts[..=i].join("/"));
            }
            Some(m) if m.file_type().is_symlink() => {
                return Err(ConfineError::Symlink(rel.to_string()));
            }
            Some(m) if !m.is_dir() => return Err(ConfineError::NotAFile(rel.to_string())),
            Some(_) => {}
        }
    }
    Ok(made)
}

static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// Write `bytes` to `rel` atomically (a temporary file beside it, then a rename); returns the
/// parent directories it had to make. A link at `rel` is replaced, never written through.
pub fn write(workspace: &Path, rel: &str, bytes: &[u8]) -> Result<Vec<String>, ConfineError> {
    let made = make_parents(workspace, rel)?;
    let path = workspace.join(rel);
    let existing = metadata(&path).map_err(io_err(rel))?;
    if existing.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(ConfineError::NotAFile(rel.to_string()));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(
        ".{name}.{}-{}.reasonix-restore",
        std::process::id(),
        TEMP_SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Some(m) = existing.as_ref().filter(|m| m.is_file()) {
            file.set_permissions(m.permissions())?;
        }
        std::fs::rename(&temp, &path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&temp);
        return Err(io_err(rel)(e));
    }
    Ok(made)
}

/// Remove `rel` (a link is removed itself, its target untouched); absent is fine.
pub fn remove(workspace: &Path, rel: &str) -> Result<(), ConfineError> {
    if let Parents::Missing { .. } = parents(workspace, rel)? {
        return Ok(());
    }
    let path = workspace.join(rel);
    match metadata(&path).map_err(io_err(rel))? {
        None => Ok(()),
        Some(m) if m.is_dir() => Err(ConfineError::NotAFile(rel.to_string())),
        Some(_) => std::fs::remove_file(&path).map_err(io_err(rel)),
    }
}

/// Make directory `rel` (and its parents) when missing.
pub fn make_dir(workspace: &Path, rel: &str) -> Result<(), ConfineError> {
    make_parents(workspace, &format!("{rel}/x")).map(|_| ())
}

/// Remove directory `rel` when it is empty; true when it was removed.
pub fn remove_empty_dir(workspace: &Path, rel: &str) -> Result<bool, ConfineError> {
    if let Parents::Missing { .. } = parents(workspace, rel)? {
        return Ok(false);
    }
    let path = workspace.join(rel);
    match metadata(&path).map_err(io_err(rel))? {
        Some(m) if m.is_dir() => Ok(std::fs::remove_dir(&path).is_ok()),
        _ => Ok(false),
    }
}
