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

/// The one index of everything installed, under Reasonix's home: packages, components and
/// sidecar packages, each tier in its own section.
pub const INSTALLED_INDEX: &str = "packages.json";
/// The version of [`INSTALLED_INDEX`].
const INSTALLED_VERSION: u64 = 1;

/// The `key` section of the index file at `path`; `None` when there is no file or no such
/// section yet (the caller then reads its tier's older file).
pub fn read_section<T: DeserializeOwned>(path: &Path, key: &str) -> Result<Option<T>, StateError> {
    let Some(doc) = read_json::<serde_json::Map<String, serde_json::Value>>(path, "")? else {
        return Ok(None);
    };
    match doc.get("version").and_then(serde_json::Value::as_u64) {
        Some(INSTALLED_VERSION) | None => {}
        Some(other) => {
            return Err(StateError::Format {
                path: path.to_path_buf(),
                message: format!("version {other} is not supported (expected {INSTALLED_VERSION})"),
            });
        }
    }
    let Some(value) = doc.get(key) else {
        return Ok(None);
    };
    serde_json::from_value(value.clone())
        .map(Some)
        .map_err(|e| StateError::Format {
            path: path.to_path_buf(),
            message: format!("`{key}`: {e}"),
        })
}

/// Replace the `key` section of the index file at `path` (created when missing), keeping the
/// other sections; atomically, as [`write_json`].
pub fn write_section<T: Serialize>(path: &Path, key: &str, value: &T) -> Result<(), StateError> {
    let mut doc =
        read_json::<serde_json::Map<String, serde_json::Value>>(path, "")?.unwrap_or_default();
    doc.insert("version".into(), INSTALLED_VERSION.into());
    let value = serde_json::to_value(value).map_err(|e| StateError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    doc.insert(key.to_string(), value);
    write_json(path, &doc)
}

/// After a tier's first write to the one index: its older file is renamed `<name>.migrated`
/// (kept for the user; never read again, since the section now exists).
pub fn retire(old: &Path) {
    if old.is_file() {
        let mut migrated = old.as_os_str().to_owned();
        migrated.push(".migrated");
        let _ = std::fs::rename(old, migrated);
    }
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

    #[test]
    fn sections_keep_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(INSTALLED_INDEX);
        assert_eq!(read_section::<Vec<u32>>(&path, "a").unwrap(), None);
        write_section(&path, "a", &vec![1u32]).unwrap();
        write_section(&path, "b", &vec![2u32]).unwrap();
        assert_eq!(read_section::<Vec<u32>>(&path, "a").unwrap(), Some(vec![1]));
        assert_eq!(read_section::<Vec<u32>>(&path, "b").unwrap(), Some(vec![2]));
        let bad = read_section::<Vec<String>>(&path, "a")
            .unwrap_err()
            .to_string();
        assert!(bad.contains("`a`"), "{bad}");
        std::fs::write(&path, r#"{"version": 9}"#).unwrap();
        assert!(
            read_section::<Vec<u32>>(&path, "a")
                .unwrap_err()
                .to_string()
                .contains("version 9")
        );
        let old = dir.path().join("index.json");
        std::fs::write(&old, "{}").unwrap();
        retire(&old);
        assert!(!old.exists() && dir.path().join("index.json.migrated").is_file());
    }
}
