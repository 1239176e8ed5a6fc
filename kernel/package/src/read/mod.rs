//! Reading a package folder into the model: which layout it is, then that layout's reader.
//! Every path a manifest names must stay inside the package, lexically and through links.

mod claude;
mod native;

use crate::{Compatibility, Kind, Level, Package, PackageError};
use reasonix_config::mcp::{ServerSpec, SourceKind};
use reasonix_config::settings_json::HookDef;
use std::path::{Component, Path, PathBuf};

pub const CLAUDE_MANIFEST: &str = ".claude-plugin/plugin.json";
pub const CODEX_MANIFEST: &str = ".codex-plugin/plugin.json";
pub const NATIVE_MANIFEST: &str = reasonix_sidecar::manifest::MANIFEST_FILE;
/// The largest manifest, hooks or MCP file read.
pub const MAX_JSON_BYTES: u64 = 1024 * 1024;

/// The layout of the folder at `root`, if it is a package.
pub fn kind_of(root: &Path) -> Option<Kind> {
    if root.join(NATIVE_MANIFEST).is_file() {
        Some(Kind::Reasonix)
    } else if root.join(CLAUDE_MANIFEST).is_file() {
        Some(Kind::Claude)
    } else if root.join(CODEX_MANIFEST).is_file() {
        Some(Kind::Codex)
    } else {
        None
    }
}

/// The package at `root` (a real path). `lookup` expands `${VAR}` in its MCP entries
/// (`CLAUDE_PLUGIN_ROOT` and `REASONIX_PLUGIN_ROOT` are always the package's folder).
pub fn read(root: &Path, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Package, PackageError> {
    let root = root
        .canonicalize()
        .map_err(|e| PackageError::file(root, e.to_string()))?;
    let package = match kind_of(&root) {
        Some(Kind::Reasonix) => native::read(&root, lookup)?,
        Some(kind) => claude::read(&root, kind, lookup)?,
        None => {
            return Err(PackageError::file(
                &root,
                format!(
                    "not a package: no {NATIVE_MANIFEST}, {CLAUDE_MANIFEST} or {CODEX_MANIFEST}"
                ),
            ));
        }
    };
    if !crate::valid_name(&package.name) {
        return Err(PackageError::file(
            &root,
            format!(
                "`{}` is not a valid package name (letters, digits, `.`, `_`, `-`; at most 64)",
                reasonix_core::terminal::shown(&package.name)
            ),
        ));
    }
    Ok(package)
}

/// `relative` (as a manifest wrote it) resolved inside `root`: no absolute path, no `..`
/// above the root, and, when it exists, its real path inside the root's.
pub fn inside(root: &Path, relative: &str) -> Result<PathBuf, String> {
    let rel = Path::new(relative);
    let mut depth = 0i32;
    for part in rel.components() {
        match part {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("`{relative}` leads out of the package"));
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!(
                    "`{relative}` is absolute; paths are relative to the package"
                ));
            }
        }
    }
    let joined = root.join(rel);
    if let Ok(real) = joined.canonicalize()
        && !real.starts_with(root)
    {
        return Err(format!(
            "`{relative}` leads out of the package through a link"
        ));
    }
    Ok(joined)
}

/// The values of the manifest variables naming the package's folder.
pub fn root_lookup<'a>(
    root: &'a Path,
    lookup: &'a dyn Fn(&str) -> Option<String>,
) -> impl Fn(&str) -> Option<String> + 'a {
    move |name: &str| match name {
        "CLAUDE_PLUGIN_ROOT" | "REASONIX_PLUGIN_ROOT" => Some(root.display().to_string()),
        other => lookup(other),
    }
}

/// `text` with `${CLAUDE_PLUGIN_ROOT}`, `$CLAUDE_PLUGIN_ROOT` (and the `REASONIX_` spelling)
/// replaced by the package's folder.
pub fn with_root(text: &str, root: &Path) -> String {
    let root = root.display().to_string();
    let mut out = text.to_string();
    for var in ["CLAUDE_PLUGIN_ROOT", "REASONIX_PLUGIN_ROOT"] {
        out = out.replace(&format!("${{{var}}}"), &root);
        out = out.replace(&format!("${var}"), &root);
    }
    out
}

/// The MCP servers of an `mcpServers` document, each renamed `plugin_<package>_<server>`.
fn servers(
    file: &Path,
    text: &str,
    package: &str,
    root: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<ServerSpec>, PackageError> {
    let lookup = root_lookup(root, lookup);
    let entries = reasonix_config::mcp::mcp_json_entries(file, text, SourceKind::Package, &lookup)
        .map_err(|e| PackageError::file(file, e.to_string()))?;
    let mut out = Vec::new();
    for entry in entries {
        let mut spec = entry.map_err(|e| PackageError::file(file, e.to_string()))?;
        let name = format!("plugin_{}_{}", package.replace('.', "-"), spec.name);
        if let Some(problem) = reasonix_config::mcp::server_name_problem(&name) {
            return Err(PackageError::file(
                file,
                format!(
                    "MCP server `{}` would be named `{name}`: {problem}",
                    spec.name
                ),
            ));
        }
        spec.name = name;
        out.push(spec);
    }
    Ok(out)
}

/// The hooks of a Claude Code hooks document (`{"hooks": {…}}`), the root in their commands.
fn hooks(file: &Path, text: &str, root: &Path) -> Result<Vec<HookDef>, PackageError> {
    let doc = reasonix_config::settings_json::parse(file, text)
        .map_err(|e| PackageError::file(file, e.to_string()))?;
    Ok(doc
        .hooks
        .into_iter()
        .map(|mut hook| {
            hook.command = with_root(&hook.command, root);
            let root = root.display().to_string();
            hook.env.insert("CLAUDE_PLUGIN_ROOT".into(), root.clone());
            hook.env.insert("REASONIX_PLUGIN_ROOT".into(), root);
            hook
        })
        .collect())
}

/// A JSON file of the package, bounded.
fn read_json_file(path: &Path) -> Result<String, PackageError> {
    let meta = std::fs::metadata(path).map_err(|e| PackageError::file(path, e.to_string()))?;
    if meta.len() > MAX_JSON_BYTES {
        return Err(PackageError::file(
            path,
            format!("{} bytes; at most {MAX_JSON_BYTES}", meta.len()),
        ));
    }
    std::fs::read_to_string(path).map_err(|e| PackageError::file(path, e.to_string()))
}

fn compatibility(notes: Vec<String>, used_anything: bool) -> Compatibility {
    let level = match (notes.is_empty(), used_anything) {
        (true, _) => Level::Full,
        (false, true) => Level::Partial,
        (false, false) => Level::None,
    };
    Compatibility { level, notes }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        assert!(inside(&root, "./skills").is_ok());
        assert!(inside(&root, "a/../b").is_ok());
        assert!(
            inside(&root, "../x")
                .unwrap_err()
                .contains("out of the package")
        );
        assert!(inside(&root, "a/../../x").is_err());
        assert!(inside(&root, "/etc").unwrap_err().contains("absolute"));
        std::os::unix::fs::symlink("/etc", root.join("link")).unwrap();
        assert!(
            inside(&root, "link")
                .unwrap_err()
                .contains("through a link")
        );
    }

    #[test]
    fn the_root_variable_in_both_spellings() {
        let root = Path::new("/p/root");
        assert_eq!(
            with_root(
                "\"${CLAUDE_PLUGIN_ROOT}/a.sh\" $REASONIX_PLUGIN_ROOT/b",
                root
            ),
            "\"/p/root/a.sh\" /p/root/b"
        );
    }
}
