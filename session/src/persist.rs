//! "Always allow": the rule goes into `[permissions] allow` of the user's config file,
//! which is the user's own (a project file never widens what runs). The file is edited in
//! place with its comments and layout kept, written atomically; on any failure it is left as
//! it was.

use std::path::Path;
use toml_edit::{Array, DocumentMut, Item, Table, value};

#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not valid TOML, left unchanged: {message}")]
    Parse { path: String, message: String },
    #[error("{path}: `{key}` is not a {expected}; left unchanged")]
    Shape {
        path: String,
        key: &'static str,
        expected: &'static str,
    },
    #[error("{path}: cannot write: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// Add `rule` to `[permissions] allow` in `file` (created when missing). A rule already
/// there is not added twice.
pub fn allow_rule(file: &Path, rule: &str) -> Result<(), PersistError> {
    let path = file.display().to_string();
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(PersistError::Read { path, source }),
    };
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| PersistError::Parse {
                path: path.clone(),
                message: e.to_string(),
            })?;
    let permissions = doc
        .entry("permissions")
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or(PersistError::Shape {
            path: path.clone(),
            key: "permissions",
            expected: "table",
        })?;
    let allow = permissions
        .entry("allow")
        .or_insert(value(Array::new()))
        .as_array_mut()
        .ok_or(PersistError::Shape {
            path: path.clone(),
            key: "permissions.allow",
            expected: "list of rules",
        })?;
    if allow.iter().any(|v| v.as_str() == Some(rule)) {
        return Ok(());
    }
    allow.push(rule);
    write_atomic(file, doc.to_string().as_bytes())
        .map_err(|source| PersistError::Write { path, source })
}

fn write_atomic(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut temp, bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn adds_once_and_keeps_comments() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "# mine\ndefault_model = \"x\" # keep\n").unwrap();
        allow_rule(&file, "Bash(cargo test:*)").unwrap();
        allow_rule(&file, "Bash(cargo test:*)").unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("# mine") && text.contains("# keep"), "{text}");
        assert_eq!(text.matches("Bash(cargo test:*)").count(), 1, "{text}");
        let parsed: DocumentMut = text.parse().unwrap();
        assert_eq!(
            parsed["permissions"]["allow"][0].as_str(),
            Some("Bash(cargo test:*)")
        );
    }

    #[test]
    fn broken_files_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "permissions = [").unwrap();
        let err = allow_rule(&file, "Edit").unwrap_err();
        assert!(err.to_string().contains("config.toml"), "{err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "permissions = [");
        std::fs::write(&file, "permissions = 3\n").unwrap();
        assert!(allow_rule(&file, "Edit").is_err());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "permissions = 3\n");
    }
}
