//! The part of the sandbox policy the readers enforce: `forbid_read`.
//!
//! The host hands every plugin the resolved policy of its workspace as JSON under the reserved
//! config key `sandbox` (`{"workspace": "/abs", "forbid_read": ["/abs", ...], ...}`). Every
//! built-in reader (`read_file`, `ls`, `grep`, `glob`) treats a path under a `forbid_read` root
//! as if it did not exist, and the walkers skip such subtrees silently. Outside a host (native
//! unit tests) or without a workspace there is no policy, so nothing is forbidden.

use std::path::{Path, PathBuf};

use reasonix_sdk::Error;
use serde_json::Value;

use crate::paths::normalize;

/// Config key under which the host serves the sandbox policy.
pub const SANDBOX_KEY: &str = "sandbox";

/// Most symlinks followed while checking where a path really leads.
const MAX_LINK_HOPS: usize = 40;

/// The reader-relevant part of the sandbox policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Absolute, normalised roots nothing may read, list or search.
    pub forbid_read: Vec<PathBuf>,
}

impl Policy {
    /// The policy the host gave this call; empty when there is none. Relative entries (the
    /// host resolves them already) are taken against `workspace`.
    pub fn current(workspace: &str) -> Policy {
        reasonix_sdk::host::config_value(SANDBOX_KEY)
            .map(|v| Policy::from_json(&v, workspace))
            .unwrap_or_default()
    }

    /// Parse the policy JSON. Missing or malformed fields mean "nothing forbidden"; relative
    /// entries resolve against the policy's own `workspace`, else `workspace`.
    pub fn from_json(value: &Value, workspace: &str) -> Policy {
        let base = value
            .get("workspace")
            .and_then(Value::as_str)
            .filter(|w| Path::new(w).is_absolute())
            .unwrap_or(workspace);
        let base = Path::new(base);
        let forbid_read = value
            .get("forbid_read")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(|s| normalize(&base.join(s)))
            .filter(|p| p.is_absolute())
            // A root neither inside the workspace nor above it is out of the readers' reach
            // anyway (the workspace is all they are given); keeping it would only make every
            // check follow links for nothing. `<home>/.env` is always such a root.
            .filter(|p| p.starts_with(base) || base.starts_with(p))
            .collect();
        Policy { forbid_read }
    }

    /// A policy forbidding exactly `roots` (absolute paths), for tests and benchmarks.
    pub fn forbidding(roots: &[&Path]) -> Policy {
        Policy {
            forbid_read: roots.iter().map(|p| normalize(p)).collect(),
        }
    }

    /// The roots that can forbid something below the absolute, normalised `dir`: those inside
    /// it. A walk of `dir` (whose own access was checked) asks only these, and asks nothing
    /// per entry when none is left.
    pub fn below(&self, dir: &Path) -> Policy {
        Policy {
            forbid_read: self
                .forbid_read
                .iter()
                .filter(|root| root.starts_with(dir))
                .cloned()
                .collect(),
        }
    }

    /// Whether nothing is forbidden.
    pub fn is_empty(&self) -> bool {
        self.forbid_read.is_empty()
    }

    /// Whether the absolute `path` is a forbidden root or lies under one (lexically).
    pub fn forbids(&self, path: &Path) -> bool {
        if self.forbid_read.is_empty() {
            return false;
        }
        let path = normalize(path);
        self.forbid_read.iter().any(|root| path.starts_with(root))
    }

    /// Whether the absolute `path`, or where its symlinks lead, is forbidden. Used before a
    /// reader opens a path the model named, so a link cannot tunnel into a forbidden root.
    pub fn hides(&self, path: &Path) -> bool {
        if self.forbid_read.is_empty() {
            return false;
        }
        self.forbids(path) || self.forbids(&follow_links(path))
    }

    /// `Err(not found)` when `path` (named `display`) is hidden by the policy.
    pub fn check(&self, path: &Path, display: &str) -> Result<(), Error> {
        if self.hides(path) {
            Err(hidden(display))
        } else {
            Ok(())
        }
    }
}

/// The error for a forbidden path: the same as for a missing one, so the policy reveals nothing.
pub fn hidden(display: &str) -> Error {
    Error::NotFound(format!("no such file: {display}"))
}

/// `path` with every symlink along it replaced by its target, lexically normalised, as far as
/// the links can be read (best effort: WASI has no `canonicalize`).
fn follow_links(path: &Path) -> PathBuf {
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
            if hops > MAX_LINK_HOPS {
                return current;
            }
            let parent = prefix.parent().map(Path::to_path_buf).unwrap_or_default();
            let mut next = parent.join(target);
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
    fn roots_out_of_the_workspaces_reach_are_dropped() {
        let p = Policy::from_json(
            &json!({"workspace": "/ws/proj", "forbid_read": ["/home/me/.reasonix/.env", "/ws", "/ws/proj/secret", "/ws/other"]}),
            "/ws/proj",
        );
        assert_eq!(
            p.forbid_read,
            vec![PathBuf::from("/ws"), PathBuf::from("/ws/proj/secret")]
        );
    }

    #[test]
    fn absent_or_malformed_policy_forbids_nothing() {
        assert!(Policy::current("/ws").is_empty());
        assert!(Policy::from_json(&json!({}), "/ws").is_empty());
        assert!(Policy::from_json(&json!({"forbid_read": "x"}), "/ws").is_empty());
        assert!(Policy::from_json(&json!(null), "/ws").is_empty());
        let p = Policy::from_json(&json!({"forbid_read": [1, "", null]}), "/ws");
        assert!(p.is_empty());
    }

    #[test]
    fn parses_absolute_and_relative_roots() {
        let p = Policy::from_json(
            &json!({"workspace": "/ws/proj", "forbid_read": ["/ws/proj/keys", "secret", "a/../b"], "allow_write": []}),
            "/other",
        );
        assert_eq!(
            p.forbid_read,
            vec![
                PathBuf::from("/ws/proj/keys"),
                PathBuf::from("/ws/proj/secret"),
                PathBuf::from("/ws/proj/b")
            ]
        );
        assert!(p.forbids(Path::new("/ws/proj/secret")));
        assert!(p.forbids(Path::new("/ws/proj/secret/x/y.txt")));
        assert!(p.forbids(Path::new("/ws/proj/./x/../secret/k")));
        assert!(!p.forbids(Path::new("/ws/proj/secrets")));
        assert!(!p.forbids(Path::new("/ws/proj")));
        // Without a workspace in the JSON, the call's workspace is the base.
        let p = Policy::from_json(&json!({"forbid_read": ["s"]}), "/ws");
        assert_eq!(p.forbid_read, vec![PathBuf::from("/ws/s")]);
        match p.check(Path::new("/ws/s/k"), "s/k") {
            Err(Error::NotFound(m)) => assert_eq!(m, "no such file: s/k"),
            other => panic!("unexpected {other:?}"),
        }
        assert!(p.check(Path::new("/ws/t"), "t").is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn below_keeps_only_roots_inside_the_directory() {
        let p = Policy::forbidding(&[
            Path::new("/ws/a/secret"),
            Path::new("/ws/ab"),
            Path::new("/home/.ssh"),
            Path::new("/ws/a"),
        ]);
        assert_eq!(
            p.below(Path::new("/ws/a")).forbid_read,
            [PathBuf::from("/ws/a/secret"), PathBuf::from("/ws/a")]
        );
        assert!(p.below(Path::new("/ws/c")).is_empty());
    }

    #[test]
    fn symlinks_into_a_forbidden_root_are_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join("secret")).unwrap();
        std::fs::write(ws.join("secret/k.txt"), "k").unwrap();
        std::os::unix::fs::symlink(ws.join("secret/k.txt"), ws.join("link.txt")).unwrap();
        std::os::unix::fs::symlink("secret", ws.join("dirlink")).unwrap();
        let p = Policy::forbidding(&[&ws.join("secret")]);
        assert!(!p.forbids(&ws.join("link.txt")));
        assert!(p.hides(&ws.join("link.txt")));
        assert!(p.hides(&ws.join("dirlink/k.txt")));
        assert!(!p.hides(&ws.join("other.txt")));
    }
}
