//! The host-side filesystem guard: what a plugin's WASI filesystem calls may touch beyond what
//! the preopened directories already confine.
//!
//! `cap-std` (under `wasmtime-wasi`) keeps every path inside the preopened roots. Inside them,
//! this guard adds three rules, enforced by the shadowed `wasi:filesystem/types` methods in
//! [`linker`]:
//!
//! - **Hidden and forbidden paths look missing.** Reasonix's own directories (home, state,
//!   cache) and `[sandbox] forbid_read` cannot be opened, listed, stat'ed, created, renamed,
//!   linked or deleted (`no-entry`), and their ancestors cannot be moved or replaced
//!   (`not-permitted`), so a plugin cannot rename `<ws>/.reasonix` away and read it elsewhere.
//!   The check is on identity, not on the path string: an open happens first, then the real
//!   location of the descriptor actually opened is checked (so a symlink swapped between check
//!   and use cannot help); other operations run on the parent directory opened first, whose
//!   real location is checked, with the final name only.
//! - **Protected configuration files are read-only for third-party plugins**
//!   ([`SandboxPolicy::protected`]): no write, create, truncate, rename, link, unlink or
//!   symlink over them (`not-permitted`). Built-in plugins may write them; the permission layer
//!   asks the user for every such tool call.
//! - **Symlinks a plugin creates stay inside**: a target outside the preopened roots, in a
//!   hidden or forbidden path, or with `..` after a name (whose meaning depends on symlinks
//!   along the way) is refused (`not-permitted`), for every plugin.
//!
//! Cost: in the usual layout (Reasonix's home outside the workspace and no `forbid_read` root
//! within reach of a preopen) read-only opens and metadata calls go straight through; only
//! writes and namespace changes pay a parent lookup. What is within reach is decided on the
//! first filesystem call of a store, and remembered per layout for the process.

pub(crate) mod linker;
mod opened_path;

use crate::sandbox::{SandboxPolicy, normalize, real_path};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) use opened_path::descriptor_path;

/// The guard of one store.
pub struct FsGuard {
    policy: Arc<SandboxPolicy>,
    /// The preopened directories, as given to WASI.
    preopens: Vec<PathBuf>,
    /// A plugin that was installed rather than built in: protected paths are read-only to it.
    protected_read_only: bool,
    /// Preopened roots in which only Markdown files (and directories) can be seen.
    markdown_roots: Vec<PathBuf>,
    plan: OnceLock<Arc<Plan>>,
    /// Open directory listings (by resource rep) of directories that hold hidden or forbidden
    /// entries, with the names to leave out.
    listings: Mutex<HashMap<u32, Vec<String>>>,
}

/// The guard's inputs resolved against the filesystem: canonical paths, decided once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Hidden and forbidden roots, canonical (and, when that differs, also as configured).
    forbidden: Vec<PathBuf>,
    /// The preopened roots, canonical: where a plugin's symlinks may point.
    roots: Vec<PathBuf>,
    /// Protected configuration paths, canonical; empty for built-in plugins.
    protected: Vec<PathBuf>,
    /// Whether some forbidden root lies within (or around) a preopened root. When not, nothing
    /// a plugin can reach is forbidden and reads need no check.
    active: bool,
    /// Roots (canonical) under which everything but directories and `*.md` files looks
    /// missing: the user's instruction directories, which also hold credentials.
    markdown_only: Vec<PathBuf>,
}

impl FsGuard {
    pub fn new(
        policy: Arc<SandboxPolicy>,
        preopens: Vec<PathBuf>,
        protected_read_only: bool,
        markdown_roots: Vec<PathBuf>,
    ) -> FsGuard {
        FsGuard {
            policy,
            preopens,
            protected_read_only,
            markdown_roots,
            plan: OnceLock::new(),
            listings: Mutex::default(),
        }
    }

    /// Leave `names` out of the listing `stream`.
    pub(crate) fn track_listing(&self, stream: u32, names: Vec<String>) {
        if let Ok(mut listings) = self.listings.lock() {
            listings.insert(stream, names);
        }
    }

    /// The names to leave out of the listing `stream`, if any.
    pub(crate) fn listing_filter(&self, stream: u32) -> Option<Vec<String>> {
        self.listings.lock().ok()?.get(&stream).cloned()
    }

    pub(crate) fn forget_listing(&self, stream: u32) {
        if let Ok(mut listings) = self.listings.lock() {
            listings.remove(&stream);
        }
    }

    /// The plan, looked up on first use (a store that never touches files pays nothing).
    pub(crate) fn plan(&self) -> &Plan {
        self.plan.get_or_init(|| {
            if self.markdown_roots.is_empty() {
                plan_for(&self.policy, &self.preopens, self.protected_read_only)
            } else {
                // Rare (one built-in, once per session): not worth a cache entry.
                let mut plan = Plan::new(&self.policy, &self.preopens, self.protected_read_only);
                plan.markdown_only = self.markdown_roots.iter().map(|r| real_path(r)).collect();
                plan.active = true;
                Arc::new(plan)
            }
        })
    }
}

/// Plans already computed in this process, found by the identity of the policy they were
/// made for (each plugin resolves a workspace's policy once and hands the same `Arc` to every
/// call) and the preopens. Canonicalising the roots costs tens of microseconds, paid once per
/// layout rather than on every call (a call is ~50 µs). The canonical forms stay right because
/// no plugin can move a hidden or forbidden root or a directory holding one; the configured
/// form is checked too.
type PlanCache = Vec<(Arc<SandboxPolicy>, Vec<PathBuf>, bool, Arc<Plan>)>;

fn plan_for(
    policy: &Arc<SandboxPolicy>,
    preopens: &[PathBuf],
    protected_read_only: bool,
) -> Arc<Plan> {
    static PLANS: OnceLock<Mutex<PlanCache>> = OnceLock::new();
    let plans = PLANS.get_or_init(Mutex::default);
    let found = plans.lock().ok().and_then(|plans| {
        plans
            .iter()
            .find(|(p, pre, flag, _)| {
                Arc::ptr_eq(p, policy) && pre == preopens && *flag == protected_read_only
            })
            .map(|(.., plan)| plan.clone())
    });
    if let Some(plan) = found {
        return plan;
    }
    let plan = Arc::new(Plan::new(policy, preopens, protected_read_only));
    if let Ok(mut plans) = plans.lock() {
        // A long-lived process serving many workspaces: start over rather than grow.
        if plans.len() >= 64 {
            plans.clear();
        }
        plans.push((
            policy.clone(),
            preopens.to_vec(),
            protected_read_only,
            plan.clone(),
        ));
    }
    plan
}

impl Plan {
    pub(crate) fn new(
        policy: &SandboxPolicy,
        preopens: &[PathBuf],
        protected_read_only: bool,
    ) -> Plan {
        let roots: Vec<PathBuf> = preopens.iter().map(|p| real_path(p)).collect();
        let mut forbidden: Vec<PathBuf> = Vec::new();
        for root in policy.forbid_read.iter().chain(&policy.hidden) {
            for form in [real_path(root), normalize(root)] {
                if !forbidden.contains(&form) {
                    forbidden.push(form);
                }
            }
        }
        let protected = if protected_read_only {
            let workspace = real_path(&policy.workspace);
            let mut protected = crate::sandbox::protected_paths(&workspace);
            protected.extend(policy.protected.iter().map(|p| real_path(p)));
            protected.sort();
            protected.dedup();
            protected
        } else {
            Vec::new()
        };
        let active = forbidden
            .iter()
            .any(|f| roots.iter().any(|r| f.starts_with(r) || r.starts_with(f)));
        Plan {
            forbidden,
            roots,
            protected,
            active,
            markdown_only: Vec::new(),
        }
    }

    /// Some hidden or forbidden path is within reach: reads and metadata calls are checked.
    pub(crate) fn active(&self) -> bool {
        self.active
    }

    /// Writes are checked against protected paths (third-party plugins only).
    pub(crate) fn guards_protected(&self) -> bool {
        !self.protected.is_empty()
    }

    /// `path` (real, absolute) is a hidden or forbidden path or lies under one.
    pub(crate) fn forbidden(&self, path: &Path) -> bool {
        self.forbidden.iter().any(|f| path.starts_with(f)) || self.not_markdown(path)
    }

    /// `path` lies in a Markdown-only root and is neither a directory nor a `.md` file.
    fn not_markdown(&self, path: &Path) -> bool {
        !self.markdown_only.is_empty()
            && self.markdown_only.iter().any(|r| path.starts_with(r))
            && path.extension().is_none_or(|e| e != "md")
            && !path.is_dir()
    }

    /// `path` is a hidden or forbidden root or an ancestor of one: moving, replacing or
    /// deleting it would move what it holds out of sight of the check.
    pub(crate) fn holds_forbidden(&self, path: &Path) -> bool {
        self.forbidden.iter().any(|f| f.starts_with(path))
    }

    /// The names in directory `dir` (real) that are hidden or forbidden roots themselves: left
    /// out of its listings, so a listing never shows what cannot be opened.
    pub(crate) fn hidden_names(&self, dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = self
            .forbidden
            .iter()
            .filter(|f| f.parent() == Some(dir))
            .filter_map(|f| f.file_name()?.to_str().map(str::to_string))
            .collect();
        names.dedup();
        names
    }

    /// `path` is a protected configuration path or lies under one.
    pub(crate) fn protected(&self, path: &Path) -> bool {
        self.protected.iter().any(|p| path.starts_with(p))
    }

    /// `path` is an ancestor of a protected path (putting a directory there would plant one).
    pub(crate) fn holds_protected(&self, path: &Path) -> bool {
        self.protected.iter().any(|p| p.starts_with(path))
    }

    /// Why a symlink at `link_parent` (real) pointing to `target` may not be created, if so.
    pub(crate) fn symlink_refusal(&self, link_parent: &Path, target: &str) -> Option<&'static str> {
        let target_path = Path::new(target);
        let mut seen_name = false;
        for part in target_path.components() {
            match part {
                Component::Normal(_) => seen_name = true,
                // `a/../b` means something else when `a` is a symlink; a lexical check could
                // be fooled, so such targets are not allowed.
                Component::ParentDir if seen_name => return Some("`..` after a name"),
                _ => {}
            }
        }
        let resolved = normalize(&link_parent.join(target_path));
        if !self.roots.iter().any(|r| resolved.starts_with(r)) {
            return Some("outside the workspace");
        }
        if self.forbidden(&resolved) {
            return Some("into a hidden or forbidden path");
        }
        None
    }
}

/// A WASI path split for an operation on its parent directory.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// The directory part (empty: the descriptor itself).
    pub dir: &'a str,
    /// The final name, for the check.
    pub name: &'a str,
    /// The final name as given (trailing slashes kept), for the operation.
    pub tail: &'a str,
}

/// Split a WASI path into the directory part and the final name. `None` when the final name is
/// not a plain name (`.`, `..`, empty) or the path is absolute: the caller then checks the
/// whole path as a directory (and an absolute path fails as it would have).
pub(crate) fn split_parent(path: &str) -> Option<Split<'_>> {
    if path.starts_with('/') {
        return None;
    }
    let trimmed = path.trim_end_matches('/');
    let (dir, name) = match trimmed.rfind('/') {
        Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
        None => ("", trimmed),
    };
    if name.is_empty() || name == "." || name == ".." {
        return None;
    }
    let tail = path[dir.len()..].trim_start_matches('/');
    Some(Split { dir, name, tail })
}

#[cfg(test)]
mod tests;
