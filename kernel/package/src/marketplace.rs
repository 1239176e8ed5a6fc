//! Marketplaces: a repository (or folder) with Claude Code's `.claude-plugin/marketplace.json`
//! listing packages. `add` keeps a copy of it at a recorded commit in
//! `<home>/marketplaces/<name>/` and records it in `<home>/marketplaces.json`; an entry is
//! installed as `entry@marketplace`. An entry whose source is a relative folder comes from that
//! copy; one whose source is another repository must be pinned to a full 40-hex commit, or it
//! is refused: a marketplace cannot hand out a moving branch.

use crate::PackageError;
use crate::index::Origin;
use crate::source::{self, Source};
use reasonix_core::error::StateError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = ".claude-plugin/marketplace.json";
pub const REGISTRY_FILE: &str = "marketplaces.json";
pub const DIR: &str = "marketplaces";
const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Known {
    pub name: String,
    /// The git URL or folder it was added from.
    pub location: String,
    /// The commit of the copy (a git marketplace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    pub version: u32,
    pub marketplaces: Vec<Known>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            version: VERSION,
            marketplaces: Vec::new(),
        }
    }
}

impl Registry {
    pub fn load(home: &Path) -> Result<Registry, StateError> {
        let path = home.join(REGISTRY_FILE);
        let Some(r) = reasonix_core::state_file::read_json::<Registry>(&path, "")? else {
            return Ok(Registry::default());
        };
        if r.version != VERSION {
            return Err(StateError::Format {
                path,
                message: format!(
                    "version {} is not supported (expected {VERSION})",
                    r.version
                ),
            });
        }
        Ok(r)
    }

    pub fn save(&self, home: &Path) -> Result<(), StateError> {
        reasonix_core::state_file::write_json(&home.join(REGISTRY_FILE), self)
    }

    pub fn get(&self, name: &str) -> Option<&Known> {
        self.marketplaces.iter().find(|m| m.name == name)
    }
}

/// One entry of a marketplace's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub name: String,
    pub description: String,
    pub version: Option<String>,
    /// `./folder`, or a repository with its pin.
    pub source: EntrySource,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntrySource {
    /// A folder of the marketplace's own repository.
    Folder(String),
    /// Another repository: URL, the commit it is pinned to (if any), a folder in it.
    Repository {
        url: String,
        pin: Option<String>,
        path: Option<String>,
    },
}

/// The entries of the marketplace copy at `root`, and its name.
pub fn entries(root: &Path) -> Result<(String, Vec<Listed>), PackageError> {
    let file = root.join(MANIFEST);
    let text =
        std::fs::read_to_string(&file).map_err(|e| PackageError::file(&file, e.to_string()))?;
    entries_of(&file, &text)
}

/// The entries of a `marketplace.json` text (`file` names it in errors).
pub fn entries_of(file: &Path, text: &str) -> Result<(String, Vec<Listed>), PackageError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        PackageError::file(
            file,
            format!(
                "not valid JSON: {e} (line {}, column {})",
                e.line(),
                e.column()
            ),
        )
    })?;
    let name = doc["name"]
        .as_str()
        .filter(|n| crate::valid_name(n))
        .ok_or_else(|| PackageError::file(file, "`name` is missing or not a valid name"))?
        .to_string();
    let plugin_root = doc["metadata"]["pluginRoot"]
        .as_str()
        .unwrap_or("")
        .trim_end_matches('/');
    let Some(list) = doc["plugins"].as_array() else {
        return Err(PackageError::file(
            file,
            "`plugins` is missing or not a list",
        ));
    };
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let at = |what: &str| PackageError::file(file, format!("`plugins[{i}]`: {what}"));
        let entry_name = item["name"]
            .as_str()
            .ok_or_else(|| at("`name` is missing"))?;
        let source = match &item["source"] {
            Value::String(rel) => {
                let rel = if plugin_root.is_empty() || rel.starts_with("./") {
                    rel.clone()
                } else {
                    format!("{plugin_root}/{rel}")
                };
                EntrySource::Folder(rel)
            }
            Value::Object(o) => {
                let kind = o.get("source").and_then(Value::as_str).unwrap_or("");
                let url = match kind {
                    "github" => o
                        .get("repo")
                        .and_then(Value::as_str)
                        .map(|r| format!("https://github.com/{r}.git")),
                    "url" | "git" | "git-subdir" => {
                        o.get("url").and_then(Value::as_str).map(str::to_string)
                    }
                    other => {
                        return Err(at(&format!(
                            "source `{other}` is not supported (github, url, git-subdir)"
                        )));
                    }
                }
                .ok_or_else(|| at("the source names no repository"))?;
                let pin = ["sha", "commit", "ref"]
                    .iter()
                    .filter_map(|k| o.get(*k).and_then(Value::as_str))
                    .find(|v| source::is_full_commit(v))
                    .map(str::to_string);
                EntrySource::Repository {
                    url,
                    pin,
                    path: o.get("path").and_then(Value::as_str).map(str::to_string),
                }
            }
            _ => return Err(at("`source` must be a folder or an object")),
        };
        out.push(Listed {
            name: entry_name.to_string(),
            description: item["description"].as_str().unwrap_or("").to_string(),
            version: item["version"].as_str().map(str::to_string),
            source,
        });
    }
    Ok((name, out))
}

/// The folder of marketplace `name`'s copy.
pub fn copy_of(home: &Path, name: &str) -> PathBuf {
    home.join(DIR).join(name)
}

/// Add (or refresh) the marketplace at `location` (a git URL or a folder): copy it, record it.
/// Returns it and the commit it had before, when it was known.
pub fn add(home: &Path, location: &str) -> Result<(Known, Option<String>), PackageError> {
    let (_temp, tree, commit) = match Source::parse(location) {
        Source::Git(url) => {
            let (temp, repo, commit) = source::checkout(&url, None)?;
            (Some(temp), repo, Some(commit))
        }
        Source::Dir(dir) => (None, dir, None),
        Source::Marketplace { .. } => {
            return Err(PackageError::Source(format!(
                "`{location}` is not a repository or folder"
            )));
        }
    };
    let (name, _) = entries(&tree)?;
    let mut registry = Registry::load(home)?;
    let before = registry.get(&name).and_then(|k| k.commit.clone());
    let target = copy_of(home, &name);
    let staging = home.join(DIR).join(format!(".{name}.adding"));
    let _ = std::fs::remove_dir_all(&staging);
    crate::files::copy_hashed(&tree, &staging)?;
    let old = home.join(DIR).join(format!(".{name}.old"));
    let _ = std::fs::remove_dir_all(&old);
    if target.exists() {
        std::fs::rename(&target, &old).map_err(|e| PackageError::file(&target, e.to_string()))?;
    }
    std::fs::rename(&staging, &target).map_err(|e| PackageError::file(&target, e.to_string()))?;
    let known = Known {
        name: name.clone(),
        location: match Source::parse(location) {
            Source::Dir(d) => d.canonicalize().unwrap_or(d).display().to_string(),
            _ => location.to_string(),
        },
        commit,
    };
    registry.marketplaces.retain(|m| m.name != name);
    registry.marketplaces.push(known.clone());
    registry.marketplaces.sort_by(|a, b| a.name.cmp(&b.name));
    if let Err(e) = registry.save(home) {
        let _ = std::fs::remove_dir_all(&target);
        let _ = std::fs::rename(&old, &target);
        return Err(e.into());
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok((known, before))
}

/// Forget marketplace `name` and its copy; `Ok(false)` when none has that name.
pub fn remove(home: &Path, name: &str) -> Result<bool, PackageError> {
    let mut registry = Registry::load(home)?;
    if registry.get(name).is_none() {
        return Ok(false);
    }
    registry.marketplaces.retain(|m| m.name != name);
    registry.save(home)?;
    let _ = std::fs::remove_dir_all(copy_of(home, name));
    Ok(true)
}

/// Where the package `entry@market` comes from: a folder of the marketplace's copy (with the
/// origin to record), or a repository pinned to a full commit.
pub enum Resolved {
    Folder(PathBuf, Origin),
    Repository {
        url: String,
        commit: String,
        path: Option<String>,
        origin: Origin,
    },
}

pub fn resolve(home: &Path, entry: &str, market: &str) -> Result<Resolved, PackageError> {
    let registry = Registry::load(home)?;
    let known = registry.get(market).ok_or_else(|| {
        PackageError::Source(format!(
            "no marketplace `{market}`; add it with `reasonix plugin marketplace add <git-url|folder>`"
        ))
    })?;
    let root = copy_of(home, market);
    let (_, listed) = entries(&root)?;
    let item = listed.iter().find(|l| l.name == entry).ok_or_else(|| {
        let names: Vec<&str> = listed.iter().map(|l| l.name.as_str()).collect();
        PackageError::Source(format!(
            "marketplace `{market}` has no entry `{entry}`; it lists: {}",
            names.join(", ")
        ))
    })?;
    let origin = |commit: Option<String>, subdir: Option<String>| Origin {
        kind: "marketplace".into(),
        location: market.to_string(),
        subdir,
        commit,
        entry: Some(entry.to_string()),
    };
    match &item.source {
        EntrySource::Folder(rel) => {
            let dir = source::subfolder(&root, Some(rel))?;
            Ok(Resolved::Folder(
                dir,
                origin(known.commit.clone(), Some(rel.clone())),
            ))
        }
        EntrySource::Repository { url, pin, path } => {
            let Some(commit) = pin else {
                return Err(PackageError::Source(format!(
                    "entry `{entry}` of marketplace `{market}` points at {url} without pinning a full 40-hex commit (`sha`); it is refused, because what it installs could change under the same name. Ask the marketplace to pin it, or install the repository yourself with `--ref <commit>`"
                )));
            };
            Ok(Resolved::Repository {
                url: url.clone(),
                commit: commit.clone(),
                path: path.clone(),
                origin: origin(Some(commit.clone()), path.clone()),
            })
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn entries_and_their_pins() {
        let text = r#"{"name": "team", "metadata": {"pluginRoot": "./plugins"}, "plugins": [
            {"name": "a", "source": "a"},
            {"name": "b", "source": {"source": "github", "repo": "o/b", "sha": "0123456789abcdef0123456789abcdef01234567"}},
            {"name": "c", "source": {"source": "url", "url": "https://x/c.git", "ref": "main"}}
        ]}"#;
        let (name, list) = entries_of(Path::new("m.json"), text).unwrap();
        assert_eq!(name, "team");
        assert_eq!(list[0].source, EntrySource::Folder("./plugins/a".into()));
        assert!(
            matches!(&list[1].source, EntrySource::Repository { url, pin: Some(_), .. } if url == "https://github.com/o/b.git")
        );
        assert!(matches!(
            &list[2].source,
            EntrySource::Repository { pin: None, .. }
        ));
        let e = entries_of(
            Path::new("m.json"),
            r#"{"name": "t", "plugins": [{"name": "x", "source": {"source": "npm"}}]}"#,
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("plugins[0]") && e.contains("`npm` is not supported"),
            "{e}"
        );
    }

    proptest! {
        /// Any document: entries or an error naming the file, never a panic.
        #[test]
        fn any_document_is_read_or_refused(text in "\\PC{0,300}", names in proptest::collection::vec("[a-z./]{0,12}", 0..4)) {
            let _ = entries_of(Path::new("m.json"), &text);
            let plugins: Vec<serde_json::Value> = names.iter().map(|n| serde_json::json!({"name": n, "source": n})).collect();
            let doc = serde_json::json!({"name": "m", "plugins": plugins}).to_string();
            if let Err(e) = entries_of(Path::new("m.json"), &doc) {
                prop_assert!(e.to_string().contains("m.json"));
            }
        }
    }
}
