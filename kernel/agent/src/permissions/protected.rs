//! Writes to the workspace's configuration files ([`crate::sandbox::PROTECTED_CONFIG`]): who can
//! write them can widen what runs from the next start (a trusted workspace's sandbox, hooks,
//! MCP servers), so a tool write to one always needs an explicit approval — no `allow` rule,
//! session grant, `acceptEdits` or `auto` posture covers it; only `bypassPermissions` does.
//!
//! Besides the fixed list, the workspace files the project configuration executes (a project
//! MCP server's `tool_server.py`, a hook's `.claude/hooks/fmt.sh`: see ADR 0026) are protected
//! for the session, passed in as `executed`.
//!
//! Unlike the rest of the policy this looks at the filesystem: a path is judged by where it
//! really leads, so `notes.md -> reasonix.toml` is a write to `reasonix.toml`. Names are
//! compared case-folded: on a case-insensitive disk (macOS, Windows) `Reasonix.toml` is
//! `reasonix.toml`, and on a case-sensitive one asking about it costs one question.

use crate::sandbox::{normalize, protected_paths};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Argument keys that name files a writer changes.
fn is_path_key(key: &str) -> bool {
    key == "path" || key.ends_with("_path")
}

/// The first path among the call's path arguments that is protected (a configuration path,
/// or one of the `executed` files), lies inside a protected path, or is a directory that
/// holds one, as the model wrote it.
pub fn protected_target(args: &Value, workspace: &Path, executed: &[PathBuf]) -> Option<String> {
    let object = args.as_object()?;
    let workspace_unfolded = workspace;
    let workspace_real = std::fs::canonicalize(workspace).unwrap_or_else(|_| normalize(workspace));
    let protected: Vec<PathBuf> = protected_paths(&workspace_real)
        .into_iter()
        .chain(protected_paths(&normalize(workspace)))
        .chain(executed.iter().map(|p| normalize(p)))
        .map(|p| fold(&p))
        .collect();
    let workspace_real = fold(&workspace_real);
    let workspace = fold(workspace);
    object
        .iter()
        .filter(|(key, _)| is_path_key(key))
        .filter_map(|(_, value)| value.as_str())
        .find(|text| {
            let lexical = normalize(&workspace_unfolded.join(text));
            let real = real_path(&lexical);
            [fold(&lexical), fold(&real)].iter().any(|p| {
                protected.iter().any(|root| {
                    // Inside a protected path, or a directory holding one (moving a directory
                    // to `.claude` creates `.claude/settings.json`); the workspace itself is
                    // no writer's target.
                    p.starts_with(root)
                        || (root.starts_with(p) && *p != workspace_real && *p != workspace)
                })
            })
        })
        .map(str::to_string)
}

/// `path` case-folded, for comparing names as a case-insensitive disk does.
fn fold(path: &Path) -> PathBuf {
    PathBuf::from(path.to_string_lossy().to_lowercase())
}

/// `path` with every symlink along it replaced by its target (dangling ones included, since a
/// write through a dangling link creates its target), lexically normalised. Bounded: a loop of
/// links ends after a fixed number of hops, with the path as far as it got.
fn real_path(path: &Path) -> PathBuf {
    const MAX_HOPS: usize = 40;
    let mut current = normalize(path);
    let mut hops = 0;
    'restart: loop {
        let mut prefix = PathBuf::new();
        let mut components = current.components();
        while let Some(component) = components.next() {
            prefix.push(component.as_os_str());
            let is_link = std::fs::symlink_metadata(&prefix)
                .map(|m| m.file_type().is_symlink())
                .unwrap_or(false);
            if !is_link {
                continue;
            }
            let Ok(target) = std::fs::read_link(&prefix) else {
                return current;
            };
            hops += 1;
            if hops > MAX_HOPS {
                return current;
            }
            let mut next = prefix.parent().map(Path::to_path_buf).unwrap_or_default();
            next.push(target);
            next.push(components.as_path());
            current = normalize(&next);
            continue 'restart;
        }
        return current;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn config_files_are_found_by_name_and_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join(".claude")).unwrap();
        std::fs::create_dir_all(ws.join("docs")).unwrap();
        std::os::unix::fs::symlink("../reasonix.toml", ws.join("docs/notes.md")).unwrap();
        std::os::unix::fs::symlink(".claude", ws.join("c")).unwrap();
        for (args, hit) in [
            (json!({"path": "reasonix.toml"}), true),
            (json!({"path": "./src/../reasonix.toml"}), true),
            (json!({"file_path": ".reasonix/commands/x.md"}), true),
            (json!({"path": ".mcp.json"}), true),
            (json!({"path": ".claude/settings.json"}), true),
            (json!({"path": "c/settings.local.json"}), true),
            (json!({"path": "docs/notes.md"}), true),
            (
                json!({"source_path": "a.txt", "destination_path": "reasonix.toml"}),
                true,
            ),
            (json!({"path": ".claude/commands/x.md"}), false),
            (
                json!({"source_path": "staged", "destination_path": ".claude"}),
                true,
            ),
            (json!({"path": "."}), false),
            (json!({"path": "src/reasonix.toml"}), false),
            // Case-folded, as a case-insensitive disk reads them.
            (json!({"path": "Reasonix.toml"}), true),
            (json!({"path": ".MCP.json"}), true),
            (json!({"path": ".Claude/Settings.json"}), true),
            (json!({"content": "reasonix.toml"}), false),
        ] {
            assert_eq!(protected_target(&args, ws, &[]).is_some(), hit, "{args}");
        }
        // The files the project configuration executes, given for the session.
        std::fs::write(ws.join("tool_server.py"), "x").unwrap();
        std::os::unix::fs::symlink("tool_server.py", ws.join("alias.py")).unwrap();
        let executed = [ws.join("tool_server.py")];
        for (path, hit) in [
            ("tool_server.py", true),
            ("./Tool_Server.py", true),
            ("alias.py", true),
            ("other.py", false),
        ] {
            let args = json!({ "path": path });
            assert_eq!(
                protected_target(&args, ws, &executed).is_some(),
                hit,
                "{path}"
            );
            assert!(protected_target(&args, ws, &[]).is_none() || path != "other.py");
        }
        assert!(protected_target(&json!({"path": "tool_server.py"}), ws, &[]).is_none());
        let abs = ws.join("reasonix.toml").display().to_string();
        assert!(protected_target(&json!({ "path": abs }), ws, &[]).is_some());
    }
}
