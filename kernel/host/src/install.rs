//! The plugin lifecycle on disk: fetch a component from a file or a crate directory, check it
//! completely before touching anything, then copy it into `<home>/plugins/` and record it in the
//! index. Also remove, enable and disable. Every step that writes either completes or leaves the
//! plugins directory and `index.json` as they were.

use crate::cache::sha256_hex;
use crate::capability::{Capabilities, LimitValues, WorkspaceAccess};
use crate::component::{self, Described, Origin};
use crate::error::{LoadError, StateError};
use crate::host::ComponentHost;
use crate::index::{IndexEntry, PluginIndex};
use crate::registry::Registry;
use crate::settings::Paths;
use std::path::{Path, PathBuf};

mod download;

/// Largest component accepted for installation.
pub const MAX_COMPONENT_BYTES: u64 = 50 * 1024 * 1024;

/// Why an install, update, remove, enable or disable did not happen.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Source(String),
    #[error(
        "sha256 mismatch for {origin}: expected {expected}, got {actual}; check the --sha256 value or the file"
    )]
    Sha256Mismatch {
        origin: String,
        expected: String,
        actual: String,
    },
    #[error("{0}")]
    Load(#[from] LoadError),
    #[error(
        "{what} `{}` is already served by {existing}; `{plugin}` was not installed (remove or disable the other one, or set `[plugin.{plugin}] prefer = true`)",
        crate::terminal::shown(.name)
    )]
    Clash {
        what: &'static str,
        name: String,
        existing: String,
        plugin: String,
    },
    #[error("invalid --grant `{value}`: {reason}")]
    BadGrant { value: String, reason: String },
    #[error(
        "`{0}` is a built-in plugin and cannot be removed; disable it with `[plugin.{0}] enabled = false` in config.toml"
    )]
    Builtin(String),
    #[error(
        "`{name}` is a built-in plugin; built-ins are switched in the config: `[plugin.{name}] enabled = {enabled}`"
    )]
    BuiltinSwitch { name: String, enabled: bool },
    #[error("no installed plugin is named `{0}`; `reasonix plugin list` shows the installed ones")]
    NotInstalled(String),
    #[error("{0}")]
    State(#[from] StateError),
    #[error("cannot start the WebAssembly engine: {0}")]
    Engine(String),
}

/// Bytes fetched from a source, with a label for messages and the index.
#[derive(Debug)]
pub struct Fetched {
    pub bytes: Vec<u8>,
    /// The source as recorded in the index (absolute path or URL).
    pub source: String,
    /// How the bytes were found, e.g. which `.wasm` a directory yielded.
    pub note: Option<String>,
}

/// Read the component named by `source`: a `.wasm` file, a directory holding exactly one
/// `.wasm`, or a cargo crate (built for `wasm32-wasip2` in release mode).
pub fn fetch(source: &str) -> Result<Fetched, InstallError> {
    if source.contains("://") {
        let bytes = download::download(source)?;
        return Ok(Fetched {
            bytes,
            source: source.to_string(),
            note: Some(format!("downloaded {source}")),
        });
    }
    let path = Path::new(source);
    let absolute = std::fs::canonicalize(path).map_err(|e| InstallError::Read {
        path: path.to_path_buf(),
        source: e,
    })?;
    if absolute.is_dir() {
        let (file, note) = from_dir(&absolute)?;
        let bytes = read_capped(&file)?;
        return Ok(Fetched {
            bytes,
            source: absolute.display().to_string(),
            note: Some(note),
        });
    }
    Ok(Fetched {
        bytes: read_capped(&absolute)?,
        source: absolute.display().to_string(),
        note: None,
    })
}

fn read_capped(path: &Path) -> Result<Vec<u8>, InstallError> {
    let read_err = |source| InstallError::Read {
        path: path.to_path_buf(),
        source,
    };
    let len = std::fs::metadata(path).map_err(read_err)?.len();
    if len > MAX_COMPONENT_BYTES {
        return Err(InstallError::Source(format!(
            "{}: {len} bytes is larger than the {MAX_COMPONENT_BYTES}-byte limit for a component",
            path.display()
        )));
    }
    std::fs::read(path).map_err(read_err)
}

fn wasm_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "wasm") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn from_dir(dir: &Path) -> Result<(PathBuf, String), InstallError> {
    if dir.join("Cargo.toml").is_file() {
        let wasm = build_crate(dir)?;
        let note = format!("built the crate; using {}", wasm.display());
        return Ok((wasm, note));
    }
    match wasm_files(dir).as_slice() {
        [one] => Ok((one.clone(), format!("using {}", one.display()))),
        [] => Err(InstallError::Source(format!(
            "{}: no Cargo.toml and no .wasm file in this directory",
            dir.display()
        ))),
        many => Err(InstallError::Source(format!(
            "{}: {} .wasm files in this directory; install the one you mean by its path",
            dir.display(),
            many.len()
        ))),
    }
}

fn cargo(dir: &Path, args: &[&str]) -> Result<std::process::Output, InstallError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(dir)
        .args(args)
        .output()
        .map_err(|e| {
            InstallError::Source(format!(
                "{}: cannot run cargo to build the crate: {e}",
                dir.display()
            ))
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        return Err(InstallError::Source(format!(
            "{}: `cargo {}` failed:\n{tail}",
            dir.display(),
            args.join(" ")
        )));
    }
    Ok(out)
}

/// Build the crate in `dir` for wasm32-wasip2 (release) and return its cdylib's `.wasm`, found
/// through `cargo metadata` (so a workspace or a configured target directory is honoured).
fn build_crate(dir: &Path) -> Result<PathBuf, InstallError> {
    let meta = cargo(dir, &["metadata", "--format-version", "1", "--no-deps"])?;
    let meta: serde_json::Value = serde_json::from_slice(&meta.stdout).map_err(|e| {
        InstallError::Source(format!(
            "{}: unreadable `cargo metadata`: {e}",
            dir.display()
        ))
    })?;
    let manifest = dir.join("Cargo.toml");
    let package = meta["packages"].as_array().and_then(|packages| {
        packages
            .iter()
            .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest.as_path()))
    });
    let Some(package) = package else {
        return Err(InstallError::Source(format!(
            "{}: a workspace root, not a crate; install the plugin crate's own directory",
            dir.display()
        )));
    };
    let lib = package["targets"].as_array().and_then(|targets| {
        targets.iter().find(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "cdylib"))
        })
    });
    let Some(lib_name) = lib.and_then(|t| t["name"].as_str()) else {
        return Err(InstallError::Source(format!(
            "{}: the crate has no `cdylib` target; add `[lib] crate-type = [\"cdylib\"]` to Cargo.toml",
            dir.display()
        )));
    };
    let target_dir = meta["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("target"));
    cargo(dir, &["build", "--release", "--target", "wasm32-wasip2"])?;
    let wasm = target_dir
        .join("wasm32-wasip2/release")
        .join(format!("{}.wasm", lib_name.replace('-', "_")));
    if !wasm.is_file() {
        return Err(InstallError::Source(format!(
            "{}: the build did not produce {}",
            dir.display(),
            wasm.display()
        )));
    }
    Ok(wasm)
}

/// A component that passed every check and can be installed.
pub struct Checked {
    pub described: Described,
    pub bytes: Vec<u8>,
    pub source: String,
}

/// Check the bytes without touching the plugins directory: `--sha256`, header, compile (which
/// precompiles into the artifact cache), WIT version, describe.
pub fn check(
    paths: &Paths,
    fetched: Fetched,
    expected_sha256: Option<&str>,
) -> Result<Checked, InstallError> {
    let sha = sha256_hex(&fetched.bytes);
    if let Some(expected) = expected_sha256 {
        let expected = expected.trim().to_ascii_lowercase();
        if expected != sha {
            return Err(InstallError::Sha256Mismatch {
                origin: fetched.source,
                expected,
                actual: sha,
            });
        }
    }
    let host = ComponentHost::new(paths.cache.clone(), paths.cache_key_file(), None)
        .map_err(|e| InstallError::Engine(format!("{e:#}")))?;
    let described = component::describe_again(
        &host,
        Origin::Installed(PathBuf::from(&fetched.source)),
        &fetched.bytes,
        sha,
    )?;
    Ok(Checked {
        described,
        bytes: fetched.bytes,
        source: fetched.source,
    })
}

/// Refuse a plugin whose name, tool or provider kind is already served by another loaded
/// plugin. The installed plugin it replaces (same name, installed) does not count. With
/// `prefer`, a clash on a tool or kind is allowed (the registry lets this plugin win).
pub fn check_clash(
    checked: &Checked,
    registry: &Registry,
    prefer: bool,
) -> Result<(), InstallError> {
    let d = &checked.described;
    let name = &d.info.name;
    let others = registry
        .plugins()
        .iter()
        .filter(|p| p.name() != name || p.described.origin.is_builtin());
    let clash = |what, item: &str, p: &crate::component::LoadedPlugin| InstallError::Clash {
        what,
        name: item.to_string(),
        existing: format!("plugin `{}` ({})", p.name(), p.described.origin),
        plugin: name.clone(),
    };
    for p in others {
        if p.name() == name {
            return Err(clash("plugin name", name, p));
        }
        if prefer {
            continue;
        }
        for t in &d.tools {
            if p.described.tools.iter().any(|o| o.name == t.name) {
                return Err(clash("tool", &t.name, p));
            }
        }
        for k in &d.provider_kinds {
            if p.described.provider_kinds.iter().any(|o| o.name == k.name) {
                return Err(clash("provider kind", &k.name, p));
            }
        }
    }
    Ok(())
}

/// What a user grants a plugin at install: capabilities, and per-call limits above the
/// defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    pub capabilities: Capabilities,
    pub limits: LimitValues,
}

impl Grant {
    /// Everything a plugin asks for: its capabilities, and its limits above the defaults.
    pub fn requested_by(info: &crate::component::PluginInfo) -> Grant {
        Grant {
            capabilities: info.requested.clone(),
            limits: info.requested_limits().needing_grant(),
        }
    }

    /// The part of `self` (a request) that `given` allows.
    pub fn intersect(&self, given: &Grant) -> Grant {
        Grant {
            capabilities: self.capabilities.intersect(&given.capabilities),
            limits: self.limits.intersect(&given.limits),
        }
    }

    /// Nothing asked or given.
    pub fn is_empty(&self) -> bool {
        self.capabilities == Capabilities::default() && self.limits.is_empty()
    }

    /// One line per capability and raised limit, for the install question.
    pub fn describe(&self) -> Vec<String> {
        let mut lines = self.capabilities.describe();
        lines.extend(self.limits.describe());
        lines
    }

    /// Compact one-line form for `granted:` lines.
    pub fn summary(&self) -> String {
        let caps = self.capabilities.summary();
        match self.limits.summary() {
            limits if limits.is_empty() => caps,
            limits if caps == "none" => limits,
            limits => format!("{caps}, {limits}"),
        }
    }
}

/// Parse `--grant` values: `workspace=none|read|read-write`, `network=PATTERN`, `env=NAME`,
/// `process`, `memory_mib=N`, `call_timeout_ms=N`.
pub fn parse_grants(values: &[String]) -> Result<Grant, InstallError> {
    let mut caps = Capabilities::default();
    let mut limits = LimitValues::default();
    for value in values {
        let bad = |reason: &str| InstallError::BadGrant {
            value: value.clone(),
            reason: reason.to_string(),
        };
        let (key, arg) = match value.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (value.trim(), None),
        };
        match (key, arg) {
            ("workspace", Some("none")) => {
                caps.workspace = caps.workspace.max(WorkspaceAccess::None)
            }
            ("workspace", Some("read")) => {
                caps.workspace = caps.workspace.max(WorkspaceAccess::Read)
            }
            ("workspace", Some("read-write")) => caps.workspace = WorkspaceAccess::ReadWrite,
            ("workspace", _) => {
                return Err(bad(
                    "use workspace=none, workspace=read or workspace=read-write",
                ));
            }
            ("network", Some(p)) if !p.is_empty() => caps.network.push(p.to_string()),
            ("env", Some(n)) if !n.is_empty() => caps.env.push(n.to_string()),
            ("process", None) | ("process", Some("true")) => caps.process = true,
            ("memory_mib", Some(n)) => {
                limits.memory_mib = Some(
                    n.parse()
                        .map_err(|_| bad("memory_mib takes a whole number of MiB"))?,
                )
            }
            ("call_timeout_ms", Some(n)) => {
                limits.call_timeout_ms = Some(
                    n.parse()
                        .map_err(|_| bad("call_timeout_ms takes a whole number of ms"))?,
                )
            }
            _ => {
                return Err(bad(
                    "expected workspace=read|read-write, network=<* or scheme://host[:port]>, env=<NAME>, process, memory_mib=<MiB> or call_timeout_ms=<ms>",
                ));
            }
        }
    }
    Ok(Grant {
        capabilities: caps,
        limits,
    })
}

/// True when `requested` asks for something `granted` does not cover.
pub fn exceeds(requested: &Grant, granted: &Grant) -> bool {
    requested.capabilities.intersect(&granted.capabilities) != requested.capabilities
        || !granted.limits.covers(&requested.limits)
}

/// The installed entry of plugin `name`, if any.
pub fn installed(paths: &Paths, name: &str) -> Result<Option<IndexEntry>, InstallError> {
    let index = PluginIndex::load(&paths.plugins_dir())?;
    Ok(index.plugins.into_iter().find(|e| e.name == name))
}

/// Copy the component to `<home>/plugins/<name>.wasm` and write its index entry. On any
/// failure the plugins directory and the index are left as they were.
pub fn commit(
    paths: &Paths,
    checked: &Checked,
    granted: Grant,
) -> Result<IndexEntry, InstallError> {
    let dir = paths.plugins_dir();
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| StateError::Io { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let mut index = PluginIndex::load(&dir)?;
    let name = checked.described.info.name.clone();
    let file = format!("{name}.wasm");
    let target = dir.join(&file);
    let previous = match std::fs::read(&target) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) if target.is_dir() => {
            return Err(StateError::Io {
                path: target,
                source: e,
            }
            .into());
        }
        Err(e) => return Err(io(&target)(e).into()),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(io(&dir))?;
    std::io::Write::write_all(&mut tmp, &checked.bytes).map_err(io(tmp.path()))?;
    tmp.as_file().sync_all().map_err(io(&target))?;
    tmp.persist(&target).map_err(|e| io(&target)(e.error))?;
    let entry = IndexEntry {
        file,
        name: name.clone(),
        version: checked.described.info.version.clone(),
        source: checked.source.clone(),
        sha256: checked.described.sha256.clone(),
        granted: granted.capabilities,
        granted_limits: granted.limits,
        // A reinstall keeps a plugin disabled if it was.
        enabled: index
            .plugins
            .iter()
            .find(|e| e.name == name)
            .is_none_or(|e| e.enabled),
    };
    // A plugin installed before under another file name keeps no stale entry.
    let stale: Vec<String> = index
        .plugins
        .iter()
        .filter(|e| e.name == name && e.file != entry.file)
        .map(|e| e.file.clone())
        .collect();
    // The component it replaces, whose compiled artifacts go once nothing installed uses it.
    let replaced: Vec<String> = index
        .plugins
        .iter()
        .filter(|e| e.name == name && e.sha256 != entry.sha256)
        .map(|e| e.sha256.clone())
        .collect();
    index.plugins.retain(|e| e.name != name);
    index.upsert(entry.clone());
    if let Err(e) = index.save(&dir) {
        // Put the previous file back; the index itself was not replaced.
        let _ = match previous {
            Some(bytes) => std::fs::write(&target, bytes),
            None => std::fs::remove_file(&target),
        };
        return Err(e.into());
    }
    for file in stale {
        let _ = std::fs::remove_file(dir.join(file));
    }
    for sha256 in replaced {
        if !index.plugins.iter().any(|e| e.sha256 == sha256) {
            remove_artifacts(&paths.cache, &sha256);
        }
    }
    Ok(entry)
}

/// Remove an installed plugin: its file, its index entry and its compiled artifacts.
pub fn remove(paths: &Paths, name: &str, builtin: bool) -> Result<IndexEntry, InstallError> {
    let dir = paths.plugins_dir();
    let mut index = PluginIndex::load(&dir)?;
    let Some(entry) = index.plugins.iter().find(|e| e.name == name).cloned() else {
        if builtin {
            return Err(InstallError::Builtin(name.to_string()));
        }
        return Err(InstallError::NotInstalled(name.to_string()));
    };
    index.plugins.retain(|e| e.name != name);
    index.save(&dir)?;
    let path = dir.join(&entry.file);
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(StateError::Io { path, source }.into()),
    }
    if !index.plugins.iter().any(|e| e.sha256 == entry.sha256) {
        remove_artifacts(&paths.cache, &entry.sha256);
    }
    Ok(entry)
}

/// Delete the compiled artifacts of a component (`<sha256>-<engine>.cwasm`), its cached
/// self-description, remembered failure and their seals.
fn remove_artifacts(cache: &Path, sha256: &str) {
    let prefix = format!("{sha256}-");
    if let Ok(entries) = std::fs::read_dir(cache) {
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix)
                && [".cwasm", ".describe.json", ".failed"]
                    .iter()
                    .any(|ext| name.ends_with(ext) || name.ends_with(&format!("{ext}.seal")))
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// Set the `enabled` flag of an installed plugin.
pub fn set_enabled(
    paths: &Paths,
    name: &str,
    enabled: bool,
    builtin: bool,
) -> Result<IndexEntry, InstallError> {
    let dir = paths.plugins_dir();
    let mut index = PluginIndex::load(&dir)?;
    let Some(entry) = index.plugins.iter_mut().find(|e| e.name == name) else {
        if builtin {
            return Err(InstallError::BuiltinSwitch {
                name: name.to_string(),
                enabled,
            });
        }
        return Err(InstallError::NotInstalled(name.to_string()));
    };
    entry.enabled = enabled;
    let entry = entry.clone();
    index.save(&dir)?;
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_parse_and_bad_ones_are_named() {
        let grant = parse_grants(&[
            "workspace=read".into(),
            "network=https://api.example.com".into(),
            "env=FOO".into(),
            "process".into(),
            "memory_mib=4096".into(),
        ])
        .unwrap();
        assert_eq!(grant.limits.memory_mib, Some(4096));
        assert!(parse_grants(&["call_timeout_ms=lots".into()]).is_err());
        let caps = grant.capabilities;
        assert_eq!(caps.workspace, WorkspaceAccess::Read);
        assert_eq!(caps.network, ["https://api.example.com"]);
        assert_eq!(caps.env, ["FOO"]);
        assert!(caps.process);
        let err = parse_grants(&["workspace=all".into()])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("workspace=all") && err.contains("read-write"),
            "{err}"
        );
        assert!(parse_grants(&["disk".into()]).is_err());
    }

    #[test]
    fn growth_is_detected() {
        let mut granted = Grant {
            capabilities: Capabilities {
                workspace: WorkspaceAccess::Read,
                ..Capabilities::default()
            },
            limits: LimitValues::default(),
        };
        let mut requested = granted.clone();
        assert!(!exceeds(&requested, &granted));
        requested.capabilities.network.push("*".into());
        assert!(exceeds(&requested, &granted));
        granted.capabilities.network.push("*".into());
        assert!(!exceeds(&requested, &granted));
        requested.limits.call_timeout_ms = Some(3_600_000);
        assert!(exceeds(&requested, &granted));
        granted.limits.call_timeout_ms = Some(3_600_000);
        assert!(!exceeds(&requested, &granted));
    }

    #[test]
    fn missing_source_and_url_are_named() {
        let err = fetch("/no/such/file.wasm").unwrap_err().to_string();
        assert!(err.contains("/no/such/file.wasm"), "{err}");
        let err = fetch("http://example.com/x.wasm").unwrap_err().to_string();
        assert!(err.contains("plain http is refused"), "{err}");
    }
}
