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
            message: format!(
                "line {}, column {}: {}{fix}",
                e.line(),
                e.column(),
                without_position(&e)
            ),
        })
}

/// serde_json's message without the ` at line L column C` it ends with: the caller names the
/// position once, in front.
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_error_names_its_position_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.json");
        std::fs::write(&path, "{bad").unwrap();
        let err = read_json::<serde_json::Value>(&path, "; fix it").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("line 1, column 2: key must be a string; fix it"),
            "{text}"
        );
        assert_eq!(text.matches("line 1").count(), 1, "{text}");
    }
}
