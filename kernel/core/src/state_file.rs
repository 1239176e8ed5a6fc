//! Reasonix's own small JSON state files (the plugin index, the trust list): read with errors
//! that name the file, the line and the column; written atomically, so a failed write leaves
//! the previous file intact.

use crate::error::StateError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::Path;

/// The parsed file; `None` when it does not exist. `fix` completes the message of a file that
/// does not parse (what the user can do about it).
pub fn read_json<T: DeserializeOwned>(path: &Path, fix: &str) -> Result<Option<T>, StateError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(StateError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| StateError::Format {
            path: path.to_path_buf(),
            message: format!("line {}, column {}: {e}{fix}", e.line(), e.column()),
        })
}

/// Write `value` as pretty JSON to `path` through a synced temporary file in the same
/// directory (created when missing), then a rename.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), StateError> {
    let io = |source| StateError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut text = serde_json::to_string_pretty(value).map_err(|e| StateError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    text.push('\n');
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}
