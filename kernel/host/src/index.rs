//! The installed components: what was installed from where, its hash, and what the user
//! granted — the `components` section of the one index of everything installed,
//! `<home>/packages.json` (ADR 0039). An older `<home>/plugins/index.json` is read while that
//! section does not exist, and renamed `index.json.migrated` at the first write. Written
//! atomically, so a failed write leaves the previous index intact.

use crate::capability::{Capabilities, LimitValues};
use crate::error::StateError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const INDEX_FILE: &str = "index.json";
/// This index's section of `<home>/packages.json`.
pub const SECTION: &str = "components";
const INDEX_VERSION: u32 = 1;

/// One installed plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    /// File name under the plugins directory.
    pub file: String,
    pub name: String,
    pub version: String,
    /// Where it was installed from (path or URL).
    pub source: String,
    pub sha256: String,
    /// What the user granted at install time.
    pub granted: Capabilities,
    /// Per-call limits above the defaults that the user granted at install time. Absent in
    /// index files written before limits needed a grant (they load as "none granted").
    #[serde(default, skip_serializing_if = "LimitValues::is_empty")]
    pub granted_limits: LimitValues,
    #[serde(default = "enabled_default")]
    pub enabled: bool,
}

fn enabled_default() -> bool {
    true
}

/// The whole index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginIndex {
    pub version: u32,
    pub plugins: Vec<IndexEntry>,
}

impl Default for PluginIndex {
    fn default() -> Self {
        PluginIndex {
            version: INDEX_VERSION,
            plugins: Vec::new(),
        }
    }
}

impl PluginIndex {
    /// The older file of this index (`<plugins>/index.json`).
    pub fn path(plugins_dir: &Path) -> PathBuf {
        plugins_dir.join(INDEX_FILE)
    }

    /// The one index of everything installed, beside the plugins directory.
    pub fn installed_path(plugins_dir: &Path) -> PathBuf {
        plugins_dir
            .parent()
            .unwrap_or(plugins_dir)
            .join(crate::state_file::INSTALLED_INDEX)
    }

    /// Read the index: the `components` section, else the older file; none is an empty index.
    pub fn load(plugins_dir: &Path) -> Result<PluginIndex, StateError> {
        if let Some(plugins) =
            crate::state_file::read_section(&Self::installed_path(plugins_dir), SECTION)?
        {
            return Ok(PluginIndex {
                version: INDEX_VERSION,
                plugins,
            });
        }
        let path = Self::path(plugins_dir);
        let Some(index) = crate::state_file::read_json::<PluginIndex>(&path, "")? else {
            return Ok(Self::default());
        };
        if index.version != INDEX_VERSION {
            return Err(StateError::Format {
                path,
                message: format!(
                    "index version {} is not supported (expected {INDEX_VERSION})",
                    index.version
                ),
            });
        }
        Ok(index)
    }

    /// Write the index atomically (its section of the one index), then retire the older file.
    pub fn save(&self, plugins_dir: &Path) -> Result<(), StateError> {
        crate::state_file::write_section(
            &Self::installed_path(plugins_dir),
            SECTION,
            &self.plugins,
        )?;
        crate::state_file::retire(&Self::path(plugins_dir));
        Ok(())
    }

    pub fn entry_for_file(&self, file: &str) -> Option<&IndexEntry> {
        self.plugins.iter().find(|e| e.file == file)
    }

    /// Add or replace the entry for `entry.file`.
    pub fn upsert(&mut self, entry: IndexEntry) {
        self.plugins.retain(|e| e.file != entry.file);
        self.plugins.push(entry);
        self.plugins.sort_by(|a, b| a.name.cmp(&b.name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(file: &str) -> IndexEntry {
        IndexEntry {
            file: file.into(),
            name: "x".into(),
            version: "0.1.0".into(),
            source: "/src/x.wasm".into(),
            sha256: "00".into(),
            granted: Capabilities::default(),
            granted_limits: LimitValues::default(),
            enabled: true,
        }
    }

    #[test]
    fn old_entries_without_granted_limits_still_load() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("plugins");
        std::fs::create_dir_all(&dir).unwrap();
        let old = r#"{"version": 1, "plugins": [{"file": "x.wasm", "name": "x", "version": "0.1.0",
            "source": "/src/x.wasm", "sha256": "00", "granted": {}, "enabled": true}]}"#;
        std::fs::write(dir.join(INDEX_FILE), old).unwrap();
        let index = PluginIndex::load(&dir).unwrap();
        assert_eq!(index.plugins[0].granted_limits, LimitValues::default());
        // The first write moves it into the one index and retires the older file.
        index.save(&dir).unwrap();
        assert!(!dir.join(INDEX_FILE).exists());
        assert!(dir.join("index.json.migrated").is_file());
        // Saving an entry without granted limits writes no new key either.
        let text = std::fs::read_to_string(PluginIndex::installed_path(&dir)).unwrap();
        assert!(
            text.contains("\"components\"") && text.contains("x.wasm"),
            "{text}"
        );
        assert!(!text.contains("granted_limits"), "{text}");
        let mut granted = index.plugins[0].clone();
        granted.granted_limits.memory_mib = Some(4096);
        let mut index = index;
        index.upsert(granted.clone());
        index.save(&dir).unwrap();
        assert_eq!(PluginIndex::load(&dir).unwrap().plugins[0], granted);
    }

    #[test]
    fn round_trips_and_replaces() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("plugins");
        let mut index = PluginIndex::default();
        index.upsert(entry("x.wasm"));
        index.upsert(entry("x.wasm"));
        assert_eq!(index.plugins.len(), 1);
        index.save(&dir).unwrap();
        assert_eq!(PluginIndex::load(&dir).unwrap(), index);
    }

    #[test]
    fn missing_is_empty_and_garbage_is_named() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("plugins");
        std::fs::create_dir_all(&dir).unwrap();
        assert!(PluginIndex::load(&dir).unwrap().plugins.is_empty());
        std::fs::write(dir.join(INDEX_FILE), "{\"version\": 1,").unwrap();
        let err = PluginIndex::load(&dir).unwrap_err().to_string();
        assert!(
            err.contains("index.json") && err.contains("line 1"),
            "{err}"
        );
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_index_text_never_panics(text in "\\PC{0,300}") {
            let dir = tempfile::tempdir().unwrap();
            let plugins = dir.path().join("plugins");
            std::fs::create_dir_all(&plugins).unwrap();
            std::fs::write(plugins.join(INDEX_FILE), &text).unwrap();
            std::fs::write(PluginIndex::installed_path(&plugins), &text).unwrap();
            let _ = PluginIndex::load(&plugins);
        }
    }

    #[test]
    fn failed_save_keeps_previous_index() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("plugins");
        let mut index = PluginIndex::default();
        index.upsert(entry("a.wasm"));
        index.save(&dir).unwrap();
        // A directory where the temp file would go cannot be created inside a file.
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("blocker"), "").unwrap();
        let not_a_dir = dir.join("blocker").join("sub");
        assert!(PluginIndex::default().save(&not_a_dir).is_err());
        assert_eq!(PluginIndex::load(&dir).unwrap(), index);
    }
}
