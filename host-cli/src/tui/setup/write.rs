//! Writing `<home>/config.toml`: created with `default_model` (and a `[[providers]]` entry
//! for a custom endpoint), or edited in place keeping comments and everything else. The new
//! text is checked by the real config parser before it replaces the file, atomically, so a
//! failure never loses the previous file.

use super::state::{CUSTOM_NAME, Plan};
use reasonix_config::Config;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

#[derive(Debug, Error)]
pub enum WriteError {
    #[error("{path}: cannot read: {source}", path = .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: cannot write: {source}", path = .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}; the file was left as it is: fix it, or move it away and run `reasonix setup` again", path = .path.display())]
    Broken { path: PathBuf, message: String },
}

/// The config text for `plan`: `existing` edited, or a new file.
pub fn config_text(path: &Path, existing: Option<&str>, plan: &Plan) -> Result<String, WriteError> {
    let broken = |message: String| WriteError::Broken {
        path: path.to_path_buf(),
        message,
    };
    let mut doc: DocumentMut = match existing {
        Some(text) => text.parse().map_err(|e: toml_edit::TomlError| {
            broken(format!("not valid TOML: {}", e.to_string().trim()))
        })?,
        None => DocumentMut::new(),
    };
    set_value(doc.as_table_mut(), "default_model", plan.default_model());
    if plan.entry.custom {
        let providers = doc
            .as_table_mut()
            .entry("providers")
            .or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        let Some(list) = providers.as_array_of_tables_mut() else {
            return Err(broken(
                "`providers` is not a list of [[providers]] tables, so the custom endpoint cannot be added".into(),
            ));
        };
        let existing = list
            .iter_mut()
            .find(|t| t.get("name").and_then(Item::as_str) == Some(CUSTOM_NAME));
        let table = match existing {
            Some(table) => table,
            None => {
                list.push(Table::new());
                let last = list.len() - 1;
                list.get_mut(last)
                    .ok_or_else(|| broken("cannot add [[providers]]".into()))?
            }
        };
        set_value(table, "name", CUSTOM_NAME);
        set_value(table, "kind", "openai");
        set_value(table, "base_url", &plan.base_url);
        set_value(table, "model", &plan.model);
        // A model list or default of an earlier custom entry could leave `model` out of them.
        table.remove("models");
        table.remove("default");
        match plan.key_env() {
            Some(env) => set_value(table, "api_key_env", env),
            None => {
                table.remove("api_key_env");
            }
        }
    }
    let text = doc.to_string();
    Config::parse(path, &text).map_err(|e| broken(format!("would not be a valid config: {e}")))?;
    Ok(text)
}

/// Set `key = "value"` keeping the decoration (comments, spacing) of an existing value.
fn set_value(table: &mut Table, key: &str, value: &str) {
    let mut new = Value::from(value);
    // In place, so the key keeps the comments above it and the value those after it.
    if let Some(old) = table.get_mut(key).and_then(Item::as_value_mut) {
        *new.decor_mut() = old.decor().clone();
        *old = new;
        return;
    }
    table.insert(key, Item::Value(new));
}

/// Create or edit the config at `path` for `plan`.
pub fn write_config(path: &Path, plan: &Plan) -> Result<(), WriteError> {
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(WriteError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let text = config_text(path, existing.as_deref(), plan)?;
    if let Some(dir) = path.parent() {
        super::keystore::ensure_home(dir).map_err(|source| WriteError::Write {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    atomic_write(path, text.as_bytes(), None).map_err(|source| WriteError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Write `bytes` to a temporary file next to `path`, flush it to disk, then rename it over
/// `path`: readers see the old file or the new one, never a part. `mode` (Unix) is the new
/// file's permission bits; `None` keeps those of the file replaced (or the default).
pub fn atomic_write(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            let bits = mode.or_else(|| {
                std::fs::metadata(path)
                    .ok()
                    .map(|m| m.permissions().mode() & 0o777)
            });
            if let Some(bits) = bits {
                options.mode(bits);
            }
            let mut file = options.open(&tmp)?;
            // `mode` only applies to a new file; a stale temporary one keeps its own.
            if let Some(bits) = bits {
                file.set_permissions(std::fs::Permissions::from_mode(bits))?;
            }
            file.write_all(bytes)?;
            file.sync_all()?;
        }
        #[cfg(not(unix))]
        {
            let _ = mode;
            let mut file = options.open(&tmp)?;
            file.write_all(bytes)?;
            file.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::state::{Entry, entries};
    use super::*;

    fn preset_plan(id: &str) -> Plan {
        let entry: Entry = entries(|_| None).into_iter().find(|e| e.id == id).unwrap();
        Plan {
            entry,
            base_url: String::new(),
            model: String::new(),
            key: Some("sk-x".into()),
        }
    }

    fn custom_plan(url: &str, key: Option<&str>) -> Plan {
        Plan {
            entry: entries(|_| None).pop().unwrap(),
            base_url: url.into(),
            model: "m-1".into(),
            key: key.map(str::to_string),
        }
    }

    #[test]
    fn creates_a_new_config() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("home/config.toml");
        write_config(&path, &preset_plan("deepseek")).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "default_model = \"deepseek\"\n"
        );
        write_config(&path, &custom_plan("http://127.0.0.1:9/v1", Some("k"))).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "default_model = \"custom\"\n\n[[providers]]\nname = \"custom\"\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m-1\"\napi_key_env = \"CUSTOM_API_KEY\"\n"
        );
        let config = Config::parse(&path, &text).unwrap();
        let resolved = reasonix_config::providers::resolve_providers(&config).unwrap();
        assert_eq!(resolved[0].name, "custom");
        assert_eq!(resolved[0].api_key_env.as_deref(), Some("CUSTOM_API_KEY"));
    }

    #[test]
    fn edits_keeping_comments_and_other_content() {
        let before = "# my config\ndefault_model = \"openai\" # was openai\n\n[agent]\n# steps\nmax_steps = 3\n\n[[providers]]\nname = \"other\"\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"o\"\n\n[[providers]]\nname = \"custom\" # mine\nkind = \"openai\"\nbase_url = \"http://old\"\nmodels = [\"a\", \"b\"]\napi_key_env = \"OLD\"\n";
        let path = Path::new("/h/config.toml");
        let after = config_text(path, Some(before), &custom_plan("http://new:1/v1", None)).unwrap();
        assert_eq!(
            after,
            "# my config\ndefault_model = \"custom\" # was openai\n\n[agent]\n# steps\nmax_steps = 3\n\n[[providers]]\nname = \"other\"\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"o\"\n\n[[providers]]\nname = \"custom\" # mine\nkind = \"openai\"\nbase_url = \"http://new:1/v1\"\nmodel = \"m-1\"\n"
        );
        // A preset only touches default_model.
        let after = config_text(path, Some(before), &preset_plan("deepseek")).unwrap();
        assert_eq!(
            after,
            before.replace("\"openai\" # was", "\"deepseek\" # was")
        );
    }

    #[test]
    fn a_broken_config_is_reported_with_its_path_and_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let broken = "default_model = \n[agent\n";
        std::fs::write(&path, broken).unwrap();
        let e = write_config(&path, &preset_plan("deepseek")).unwrap_err();
        let text = e.to_string();
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains("not valid TOML"), "{text}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
        // Valid TOML the config loader refuses is not written either.
        let refused = "[[providers]]\nname = \"custom\"\nkind = \"openai\"\nbase_url = \"http://x\"\nmodel = \"m\"\nstall_timeout_seconds = \"soon\"\n";
        std::fs::write(&path, refused).unwrap();
        let e = write_config(&path, &custom_plan("http://x:1", None)).unwrap_err();
        assert!(e.to_string().contains("would not be a valid config"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), refused);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");
    }

    #[test]
    fn a_failed_atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the file goes: the rename over it fails.
        let target = dir.path().join("config.toml");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("inside"), "kept").unwrap();
        assert!(atomic_write(&target, b"new", None).is_err());
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["config.toml".to_string()]);
        assert_eq!(
            std::fs::read_to_string(target.join("inside")).unwrap(),
            "kept"
        );
    }

    #[test]
    fn providers_that_is_not_a_table_list_is_refused() {
        let e = config_text(
            Path::new("/h/config.toml"),
            Some("providers = 3\n"),
            &custom_plan("http://x:1", None),
        )
        .unwrap_err();
        assert!(e.to_string().contains("/h/config.toml"), "{e}");
    }
}
