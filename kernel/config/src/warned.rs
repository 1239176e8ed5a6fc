//! Warnings shown once per file content. The warning naming the original Reasonix's keys a
//! file sets (and this build ignores) would otherwise repeat on every start for a file the user
//! has no reason to change: it is shown once, then again only when the file changes. What was
//! shown is remembered in `<state>/warned.json` as hashes of path and content, never content.

use super::Config;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const FILE: &str = "warned.json";
/// Hashes kept: the most recent files' (a few config files per workspace).
const KEEP: usize = 256;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Warned {
    #[serde(default)]
    original_keys: Vec<String>,
}

pub fn state_file(state: &Path) -> PathBuf {
    state.join(FILE)
}

impl Config {
    /// [`Config::warnings`] without the warnings about the original's ignored keys already
    /// shown for the same file content; those shown now are recorded in `<state>/warned.json`.
    /// A record that cannot be read starts afresh, and one that cannot be written only means the
    /// warning comes again: never a reason to fail.
    pub fn warnings_once(&self, state: &Path) -> Vec<String> {
        let path = state_file(state);
        let mut warned: Warned = reasonix_core::state_file::read_json(&path, "")
            .ok()
            .flatten()
            .unwrap_or_default();
        let mut hidden: Vec<&str> = Vec::new();
        let mut new = false;
        for original in &self.original_keys {
            if warned.original_keys.contains(&original.key) {
                hidden.push(&original.message);
            } else {
                warned.original_keys.push(original.key.clone());
                new = true;
            }
        }
        if new {
            let excess = warned.original_keys.len().saturating_sub(KEEP);
            warned.original_keys.drain(..excess);
            let _ = reasonix_core::state_file::write_json(&path, &warned);
        }
        self.warnings()
            .into_iter()
            .filter(|w| !hidden.contains(&w.as_str()))
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::{Config, Paths};
    use super::*;

    const GO_FILE: &str =
        "language = \"zh\"\n[ui]\ntheme = \"dark\"\n[tools]\nbash_timeout_seconds = 60\n";

    fn load(home: &Path) -> Config {
        let paths = Paths::under(home);
        let project = home.join("project");
        std::fs::create_dir_all(&project).unwrap();
        Config::load(&paths, &project).unwrap()
    }

    fn ignored(warnings: &[String]) -> usize {
        warnings
            .iter()
            .filter(|w| w.contains(": ignored: "))
            .count()
    }

    #[test]
    fn the_original_keys_warning_is_shown_once_per_file_content() {
        let home = tempfile::tempdir().unwrap();
        let config_file = home.path().join("config.toml");
        std::fs::write(&config_file, format!("{GO_FILE}bogus = 1\n")).unwrap();
        let first = load(home.path()).warnings_once(home.path());
        assert_eq!(ignored(&first), 1, "{first:?}");
        // Other warnings (an unknown key) are not affected.
        assert!(
            first.iter().any(|w| w.contains("unknown key `bogus`")),
            "{first:?}"
        );
        let second = load(home.path()).warnings_once(home.path());
        assert_eq!(ignored(&second), 0, "{second:?}");
        assert!(
            second.iter().any(|w| w.contains("unknown key `bogus`")),
            "{second:?}"
        );
        // The full list is still there for whoever asks (`doctor`).
        assert_eq!(ignored(&load(home.path()).warnings()), 1);

        std::fs::write(&config_file, format!("{GO_FILE}# edited\n")).unwrap();
        assert_eq!(ignored(&load(home.path()).warnings_once(home.path())), 1);
        assert_eq!(ignored(&load(home.path()).warnings_once(home.path())), 0);
        let text = std::fs::read_to_string(state_file(home.path())).unwrap();
        assert!(!text.contains("theme") && !text.contains("ui"), "{text}");
    }

    #[test]
    fn a_damaged_record_shows_the_warning_again_and_is_replaced() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), GO_FILE).unwrap();
        std::fs::write(state_file(home.path()), "{ not json").unwrap();
        assert_eq!(ignored(&load(home.path()).warnings_once(home.path())), 1);
        assert_eq!(ignored(&load(home.path()).warnings_once(home.path())), 0);
    }
}
