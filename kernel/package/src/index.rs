//! The `packages` section of `<home>/packages.json`, the one index of everything installed
//! (components and sidecar packages have their sections beside it): every installed package —
//! where it came from (and the commit), its layout, whether it is enabled, what the user agreed
//! it may run, and a sha256 for each of its files. Sorted by name, written atomically.

use crate::Kind;
use crate::files::Hashes;
use crate::review::Review;
use reasonix_core::error::StateError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const INDEX_FILE: &str = reasonix_core::state_file::INSTALLED_INDEX;
/// This index's section.
pub const SECTION: &str = "packages";
/// Where installed packages live, under `<home>`.
pub const PACKAGES_DIR: &str = "packages";
const VERSION: u32 = 1;

/// Where a package came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Origin {
    /// `dir`, `git` or `marketplace`.
    pub kind: String,
    /// The directory, the git URL, or the marketplace's name.
    pub location: String,
    /// A folder inside the repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subdir: Option<String>,
    /// The full commit installed (git and marketplace sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The marketplace entry's name (`entry@marketplace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Entry {
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub description: String,
    pub manifest_kind: Kind,
    pub enabled: bool,
    pub origin: Origin,
    /// What it may run, as granted at install or update.
    pub review: Review,
    pub files: Hashes,
}

impl Entry {
    /// The package's folder.
    pub fn root(&self, home: &Path) -> PathBuf {
        home.join(PACKAGES_DIR).join(&self.name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    pub version: u32,
    pub packages: Vec<Entry>,
}

impl Default for Index {
    fn default() -> Index {
        Index {
            version: VERSION,
            packages: Vec::new(),
        }
    }
}

impl Index {
    pub fn path(home: &Path) -> PathBuf {
        home.join(INDEX_FILE)
    }

    /// The index; none yet is an empty one.
    pub fn load(home: &Path) -> Result<Index, StateError> {
        let packages = reasonix_core::state_file::read_section(&Index::path(home), SECTION)?
            .unwrap_or_default();
        Ok(Index {
            version: VERSION,
            packages,
        })
    }

    /// Write this section of the one index (the other sections stay).
    pub fn save(&self, home: &Path) -> Result<(), StateError> {
        reasonix_core::state_file::write_section(&Index::path(home), SECTION, &self.packages)
    }

    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.packages.iter().find(|e| e.name == name)
    }

    pub fn upsert(&mut self, entry: Entry) {
        self.packages.retain(|e| e.name != entry.name);
        self.packages.push(entry);
        self.packages.sort_by(|a, b| a.name.cmp(&b.name));
    }

    pub fn remove(&mut self, name: &str) -> Option<Entry> {
        let at = self.packages.iter().position(|e| e.name == name)?;
        Some(self.packages.remove(at))
    }
}
