//! Installed sidecar packages: a copy of the package directory at `<plugins>/<name>/` and an
//! entry in the `sidecars` section of the one index of everything installed,
//! `<home>/packages.json` (an older `<plugins>/sidecars.json` is read until that section
//! exists, then renamed `sidecars.json.migrated`), written atomically. Installing is the user's trust grant:
//! only packages installed here are ever started; a project file cannot name one.

use crate::error::SidecarError;
use crate::manifest::{self, MANIFEST_FILE, Manifest};
use crate::runtime::Package;
use crate::spawn::{Launch, PASSED_THROUGH};
use reasonix_core::error::StateError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const INDEX_FILE: &str = "sidecars.json";
/// This index's section of `<home>/packages.json`.
pub const SECTION: &str = "sidecars";
const INDEX_VERSION: u32 = 1;
/// Largest package copied.
pub const MAX_PACKAGE_BYTES: u64 = 100 * 1024 * 1024;
/// Most files copied.
pub const MAX_PACKAGE_FILES: usize = 10_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageEntry {
    pub name: String,
    pub version: String,
    /// The directory it was installed from.
    pub source: String,
    /// Directory under the plugins directory holding the copy.
    pub root: String,
    /// sha256 of the manifest as installed.
    pub manifest_sha256: String,
    #[serde(default = "yes")]
    pub enabled: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageIndex {
    pub version: u32,
    pub packages: Vec<PackageEntry>,
}

impl Default for PackageIndex {
    fn default() -> Self {
        PackageIndex {
            version: INDEX_VERSION,
            packages: Vec::new(),
        }
    }
}

impl PackageIndex {
    /// The older file of this index (`<plugins>/sidecars.json`).
    pub fn path(plugins_dir: &Path) -> PathBuf {
        plugins_dir.join(INDEX_FILE)
    }

    /// The one index of everything installed, beside the plugins directory.
    pub fn installed_path(plugins_dir: &Path) -> PathBuf {
        plugins_dir
            .parent()
            .unwrap_or(plugins_dir)
            .join(reasonix_core::state_file::INSTALLED_INDEX)
    }

    /// Read the index: the `sidecars` section, else the older file; none is an empty index.
    pub fn load(plugins_dir: &Path) -> Result<PackageIndex, StateError> {
        if let Some(packages) =
            reasonix_core::state_file::read_section(&Self::installed_path(plugins_dir), SECTION)?
        {
            return Ok(PackageIndex {
                version: INDEX_VERSION,
                packages,
            });
        }
        let path = Self::path(plugins_dir);
        let Some(index) = reasonix_core::state_file::read_json::<PackageIndex>(&path, "")? else {
            return Ok(Self::default());
        };
        if index.version != INDEX_VERSION {
            return Err(StateError::Format {
                path,
                message: format!(
                    "version {} is not supported (expected {INDEX_VERSION})",
                    index.version
                ),
            });
        }
        Ok(index)
    }

    pub fn save(&self, plugins_dir: &Path) -> Result<(), StateError> {
        reasonix_core::state_file::write_section(
            &Self::installed_path(plugins_dir),
            SECTION,
            &self.packages,
        )?;
        reasonix_core::state_file::retire(&Self::path(plugins_dir));
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<&PackageEntry> {
        self.packages.iter().find(|e| e.name == name)
    }

    pub fn upsert(&mut self, entry: PackageEntry) {
        self.packages.retain(|e| e.name != entry.name);
        self.packages.push(entry);
        self.packages.sort_by(|a, b| a.name.cmp(&b.name));
    }
}

/// Why a package could not be installed, removed or loaded.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("{0}")]
    Sidecar(#[from] SidecarError),
    #[error("{0}")]
    State(#[from] StateError),
    #[error("{path}: {message}")]
    Copy { path: PathBuf, message: String },
}

/// A package directory checked for installation.
pub struct Checked {
    pub source: PathBuf,
    pub manifest: Manifest,
    pub manifest_sha256: String,
}

/// Read and validate the package at `dir` (which holds `reasonix-plugin.json`).
pub fn check(dir: &Path) -> Result<Checked, PackageError> {
    let source = std::fs::canonicalize(dir).map_err(|e| PackageError::Copy {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let manifest = manifest::load(&source)?;
    let bytes = std::fs::read(source.join(MANIFEST_FILE)).map_err(|e| PackageError::Copy {
        path: source.join(MANIFEST_FILE),
        message: e.to_string(),
    })?;
    Ok(Checked {
        source,
        manifest,
        manifest_sha256: reasonix_core::sha256_hex(&bytes),
    })
}

/// What the user is agreeing to: the exact command, and what it can reach. Lines, safe to print.
pub fn trust_summary(manifest: &Manifest, installed_root: &Path) -> Vec<String> {
    let Some(runtime) = &manifest.runtime else {
        return vec!["no `runtime` block: nothing will run (contributes is not used yet)".into()];
    };
    let launch = Launch::new(
        &manifest.name,
        &manifest.version,
        installed_root,
        runtime,
        Path::new("<workspace>"),
    );
    let line = |s: &str| reasonix_core::terminal::line(s).into_owned();
    let mut lines = vec![
        "TRUST: on every `reasonix run` this package starts a process, and trusts it with \
         every payload it subscribes to and every call of its tools:"
            .to_string(),
        format!("  command:  {}", line(&launch.command_line())),
        "  runs in:  the workspace, inside the OS sandbox of `[sandbox]` (bubblewrap, as shell \
         commands): it can write only the workspace (and `allow_write`), cannot see Reasonix's \
         own directories (keys, sessions), may run programs, and reaches the network unless \
         `[sandbox] network = false`; unconfined when `[sandbox] bash = \"off\"`"
            .to_string(),
        format!(
            "  env:      only {} and REASONIX_PLUGIN_ROOT/NAME/VERSION, REASONIX_WORKSPACE_ROOT{}; \
             provider keys and other variables are not passed",
            PASSED_THROUGH.join(", "),
            if runtime.env.is_empty() {
                String::new()
            } else {
                format!(
                    ", plus {}",
                    runtime
                        .env
                        .keys()
                        .map(|k| line(k))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ),
    ];
    if !runtime.intercepts.is_empty() {
        lines.push(format!(
            "  sees:     every payload at {} (it can block or replace them)",
            runtime.intercepts.join(", ")
        ));
    }
    if !runtime.tools.is_empty() {
        lines.push(format!(
            "  tools:    {} (asked about like writers)",
            runtime
                .tools
                .iter()
                .map(|t| line(&t.name))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    lines.push(format!(
        "  on start failure: {}",
        if runtime.required {
            "the run fails (runtime.required)"
        } else {
            "it is skipped with a warning"
        }
    ));
    lines
}

/// Copy the checked package to `<plugins>/<name>/` (replacing an earlier copy) and record it.
pub fn install(plugins_dir: &Path, checked: &Checked) -> Result<PackageEntry, PackageError> {
    let name = &checked.manifest.name;
    std::fs::create_dir_all(plugins_dir).map_err(|e| PackageError::Copy {
        path: plugins_dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let staging = plugins_dir.join(format!(".{name}.installing"));
    let _ = std::fs::remove_dir_all(&staging);
    let mut budget = (MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES);
    if let Err(e) = copy_tree(&checked.source, &staging, &mut budget) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let target = plugins_dir.join(name);
    let old = plugins_dir.join(format!(".{name}.old"));
    let _ = std::fs::remove_dir_all(&old);
    let had_old = target.exists();
    let io = |path: &Path, e: std::io::Error| PackageError::Copy {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    if had_old {
        std::fs::rename(&target, &old).map_err(|e| io(&target, e))?;
    }
    if let Err(e) = std::fs::rename(&staging, &target) {
        if had_old {
            let _ = std::fs::rename(&old, &target);
        }
        return Err(io(&target, e));
    }
    let entry = PackageEntry {
        name: name.clone(),
        version: checked.manifest.version.clone(),
        source: checked.source.display().to_string(),
        root: name.clone(),
        manifest_sha256: checked.manifest_sha256.clone(),
        enabled: true,
    };
    let mut index = PackageIndex::load(plugins_dir)?;
    index.upsert(entry.clone());
    if let Err(e) = index.save(plugins_dir) {
        let _ = std::fs::remove_dir_all(&target);
        if had_old {
            let _ = std::fs::rename(&old, &target);
        }
        return Err(e.into());
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(entry)
}

/// Remove an installed package; `Ok(false)` when none has that name.
pub fn remove(plugins_dir: &Path, name: &str) -> Result<bool, PackageError> {
    let mut index = PackageIndex::load(plugins_dir)?;
    let Some(entry) = index.get(name).cloned() else {
        return Ok(false);
    };
    index.packages.retain(|e| e.name != name);
    index.save(plugins_dir)?;
    let _ = std::fs::remove_dir_all(plugins_dir.join(&entry.root));
    Ok(true)
}

/// Enable or disable an installed package; `Ok(false)` when none has that name.
pub fn set_enabled(plugins_dir: &Path, name: &str, enabled: bool) -> Result<bool, PackageError> {
    let mut index = PackageIndex::load(plugins_dir)?;
    let Some(mut entry) = index.get(name).cloned() else {
        return Ok(false);
    };
    entry.enabled = enabled;
    index.upsert(entry);
    index.save(plugins_dir)?;
    Ok(true)
}

/// The enabled packages, each with its manifest re-read and re-checked (a manifest edited
/// after install is refused, not trusted: it no longer matches what the user agreed to).
pub fn enabled(plugins_dir: &Path) -> Result<Vec<Result<Package, PackageError>>, StateError> {
    let index = PackageIndex::load(plugins_dir)?;
    Ok(index
        .packages
        .iter()
        .filter(|e| e.enabled)
        .map(|e| load_entry(plugins_dir, e))
        .collect())
}

/// An entry's package, its manifest checked against the recorded hash.
pub fn load_entry(plugins_dir: &Path, entry: &PackageEntry) -> Result<Package, PackageError> {
    let root = plugins_dir.join(&entry.root);
    let checked = check(&root)?;
    if checked.manifest_sha256 != entry.manifest_sha256 || checked.manifest.name != entry.name {
        return Err(PackageError::Copy {
            path: root.join(MANIFEST_FILE),
            message: format!(
                "changed since `{}` was installed; reinstall it with `reasonix plugin install` to trust the new one",
                entry.name
            ),
        });
    }
    Ok(Package {
        root: checked.source,
        manifest: checked.manifest,
    })
}

/// Copy regular files and directories; a symlink is refused (it could lead out of the package).
fn copy_tree(from: &Path, to: &Path, budget: &mut (u64, usize)) -> Result<(), PackageError> {
    let io = |path: &Path, e: std::io::Error| PackageError::Copy {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(to).map_err(|e| io(to, e))?;
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .map_err(|e| io(from, e))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name();
        // Version-control metadata and build output are not part of the package.
        if name == ".git" || name == "__pycache__" {
            continue;
        }
        let kind = entry.file_type().map_err(|e| io(&path, e))?;
        let target = to.join(&name);
        if kind.is_symlink() {
            return Err(PackageError::Copy {
                path,
                message: "symbolic links are not installed (copy the file into the package)".into(),
            });
        } else if kind.is_dir() {
            copy_tree(&path, &target, budget)?;
        } else if kind.is_file() {
            let len = entry.metadata().map_err(|e| io(&path, e))?.len();
            if len > budget.0 || budget.1 == 0 {
                return Err(PackageError::Copy {
                    path,
                    message: format!(
                        "the package is larger than {MAX_PACKAGE_BYTES} bytes or {MAX_PACKAGE_FILES} files"
                    ),
                });
            }
            budget.0 -= len;
            budget.1 -= 1;
            // `fs::copy` keeps the permission bits (executables stay executable).
            std::fs::copy(&path, &target).map_err(|e| io(&path, e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn write_package(dir: &Path, name: &str) {
        let manifest = serde_json::json!({
            "apiVersion": manifest::API_VERSION, "name": name, "version": "1.0.0",
            "runtime": {"command": "python3", "args": ["${REASONIX_PLUGIN_ROOT}/main.py"]}
        });
        std::fs::write(dir.join(MANIFEST_FILE), manifest.to_string()).unwrap();
        std::fs::write(dir.join("main.py"), "print(1)\n").unwrap();
    }

    #[test]
    fn installs_records_and_refuses_an_edited_manifest() {
        let src = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let plugins = home.path().join("plugins");
        write_package(src.path(), "demo");
        let checked = check(src.path()).unwrap();
        let entry = install(plugins.as_path(), &checked).unwrap();
        assert!(plugins.as_path().join("demo/main.py").is_file());
        let loaded = enabled(plugins.as_path()).unwrap();
        assert_eq!(loaded.len(), 1);
        assert!(loaded[0].is_ok());
        std::fs::write(plugins.as_path().join("demo").join(MANIFEST_FILE), "{}").unwrap();
        let err = load_entry(plugins.as_path(), &entry)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("reasonix-plugin.json"), "{err}");
        assert!(remove(plugins.as_path(), "demo").unwrap());
        assert!(!plugins.as_path().join("demo").exists());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_not_installed() {
        let src = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let plugins = home.path().join("plugins");
        write_package(src.path(), "demo");
        std::os::unix::fs::symlink("/etc/passwd", src.path().join("leak")).unwrap();
        let checked = check(src.path()).unwrap();
        assert!(install(plugins.as_path(), &checked).is_err());
        assert!(!plugins.as_path().join("demo").exists());
        assert!(
            PackageIndex::load(plugins.as_path())
                .unwrap()
                .packages
                .is_empty()
        );
    }

    #[test]
    fn the_summary_names_the_command_and_the_trust() {
        let src = tempfile::tempdir().unwrap();
        write_package(src.path(), "demo");
        let checked = check(src.path()).unwrap();
        let text = trust_summary(
            &checked.manifest,
            Path::new("/home/u/.reasonix/plugins/demo"),
        )
        .join("\n");
        assert!(
            text.contains("python3 /home/u/.reasonix/plugins/demo/main.py"),
            "{text}"
        );
        assert!(
            text.contains("TRUST:") && text.contains("OS sandbox"),
            "{text}"
        );
    }
}
