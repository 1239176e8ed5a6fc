//! The sandbox policy for one workspace: extra writable roots, paths no reader may inspect,
//! whether shell commands must be confined and may use the network. Resolved from `[sandbox]`
//! and `[tools]`; plugins read it through the `config` host service under the reserved key
//! `sandbox`, and the host `process` service enforces it.

pub use crate::lexical_path::normalize;
use crate::settings::{SandboxSettings, ShellSandbox, ToolsSettings, expand_vars};
use crate::user_commands::UserCommands;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Default foreground timeout for shell commands.
pub const DEFAULT_BASH_TIMEOUT_SECS: u64 = 120;

/// Paths, relative to the workspace root, that the kernel (or tools users run beside it) reads
/// as configuration. Whoever can write them can widen what runs next time, so they are
/// read-only for jobs and third-party plugins and a tool write to them always asks.
pub const PROTECTED_CONFIG: &[&str] = &[
    "reasonix.toml",
    ".reasonix",
    ".mcp.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
];

/// [`PROTECTED_CONFIG`] under `workspace`.
pub fn protected_paths(workspace: &Path) -> Vec<PathBuf> {
    PROTECTED_CONFIG.iter().map(|p| workspace.join(p)).collect()
}

/// What the config says about confinement, before a workspace is known.
#[derive(Debug, Clone, Default)]
pub struct SandboxConfig {
    pub settings: SandboxSettings,
    pub tools: ToolsSettings,
    /// Forbidden whatever the config says: Reasonix's own credentials file (`<home>/.env`,
    /// where the provider keys live). A project config cannot open it up.
    pub always_forbidden: Vec<PathBuf>,
    /// Reasonix's own directories (`<home>`, state, cache): never visible to plugins or jobs,
    /// wherever they lie (also inside the workspace). See [`SandboxPolicy::hidden`].
    pub hidden: Vec<PathBuf>,
    /// Workspace files the project configuration executes (ADR 0026), absolute: protected
    /// besides [`PROTECTED_CONFIG`].
    pub executed_files: Vec<PathBuf>,
}

/// The resolved policy for one workspace. All paths are absolute and lexically normalised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxPolicy {
    pub workspace: PathBuf,
    pub allow_write: Vec<PathBuf>,
    pub forbid_read: Vec<PathBuf>,
    pub shell: ShellSandbox,
    pub network: bool,
    pub bash_timeout_secs: u64,
    /// Reasonix's own directories (home, state, cache), absolute and normalised. Plugins and
    /// jobs never see them: the host's filesystem guard refuses them, jobs get them masked.
    /// They are in `forbid_read` too, so the built-in readers skip them quietly (and plugins
    /// are not told them again: the policy JSON is built for every call).
    #[serde(skip)]
    pub hidden: Vec<PathBuf>,
    /// Files and directories in the workspace the kernel reads as configuration
    /// ([`PROTECTED_CONFIG`]): read-only for jobs and third-party plugins, and a tool write to
    /// them always needs an explicit approval. Enforced by the host, not told to plugins.
    #[serde(skip)]
    pub protected: Vec<PathBuf>,
    /// Directories inside [`hidden`](Self::hidden) a job may read (never write): the
    /// installed packages a user-agreed hook runs from. Set only by [`widened_for`](Self::widened_for).
    #[serde(skip)]
    pub revealed: Vec<PathBuf>,
    /// Entries that could not be resolved (unset variables), reported to the user.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl SandboxPolicy {
    /// The policy a job `program args` runs in when it is `sh -c <line>` of one of the user's
    /// own command lines (ADR 0028): this one with the network and the user's writable
    /// directories added, what must stay read-only in them protected. `None` for any other
    /// command.
    pub fn widened_for(
        &self,
        commands: &UserCommands,
        program: &str,
        args: &[String],
    ) -> Option<SandboxPolicy> {
        let [flag, line] = args else {
            return None;
        };
        if program != "sh" || flag != "-c" || !commands.contains(line) {
            return None;
        }
        let mut widened = self.clone();
        widened.network = true;
        for dir in commands.writable() {
            if !widened.allow_write.contains(dir) {
                widened.allow_write.push(dir.clone());
            }
            widened.protected.extend(
                crate::user_commands::KEPT_READ_ONLY
                    .iter()
                    .map(|name| dir.join(name)),
            );
        }
        for dir in commands.readable() {
            if !widened.revealed.contains(dir) {
                widened.revealed.push(dir.clone());
            }
        }
        Some(widened)
    }
}

impl SandboxConfig {
    /// Resolve against a workspace, expanding `${VAR}` from the process environment.
    pub fn resolve(&self, workspace: &Path) -> SandboxPolicy {
        self.resolve_with(workspace, |name| std::env::var(name).ok())
    }

    pub fn resolve_with(
        &self,
        workspace: &Path,
        lookup: impl Fn(&str) -> Option<String> + Copy,
    ) -> SandboxPolicy {
        let mut warnings = Vec::new();
        let mut paths = |entries: &Option<Vec<String>>, key: &str| -> Vec<PathBuf> {
            entries
                .iter()
                .flatten()
                .filter_map(|entry| match expand_vars(entry, lookup) {
                    Ok(text) if !text.is_empty() => Some(normalize(&workspace.join(text))),
                    Ok(_) => None,
                    Err(e) => {
                        warnings.push(format!("[sandbox] {key}: {e}; entry ignored"));
                        None
                    }
                })
                .collect()
        };
        let allow_write = paths(&self.settings.allow_write, "allow_write");
        let mut forbid_read = paths(&self.settings.forbid_read, "forbid_read");
        let hidden: Vec<PathBuf> = self.hidden.iter().map(|p| normalize(p)).collect();
        for path in self.always_forbidden.iter().chain(&hidden) {
            let path = normalize(path);
            if !forbid_read.contains(&path) {
                forbid_read.push(path);
            }
        }
        let workspace = normalize(workspace);
        let mut protected = protected_paths(&workspace);
        protected.extend(self.executed_files.iter().map(|p| normalize(p)));
        SandboxPolicy {
            workspace,
            allow_write,
            forbid_read,
            shell: self.settings.bash.unwrap_or_default(),
            network: self.settings.network.unwrap_or(false),
            bash_timeout_secs: self
                .tools
                .bash_timeout_seconds
                .unwrap_or(DEFAULT_BASH_TIMEOUT_SECS),
            hidden,
            protected,
            revealed: Vec::new(),
            warnings,
        }
    }
}

impl SandboxPolicy {
    /// Whether `path` (absolute) is a forbidden path or lies under one.
    pub fn is_forbidden(&self, path: &Path) -> bool {
        let path = normalize(path);
        self.forbid_read.iter().any(|root| path.starts_with(root))
    }

    /// Whether `path` (absolute) is one of Reasonix's own directories or lies under one.
    pub fn is_hidden(&self, path: &Path) -> bool {
        let path = normalize(path);
        self.hidden.iter().any(|root| path.starts_with(root))
    }

    /// Whether `path` (absolute) is a protected configuration path or lies under one.
    pub fn is_protected(&self, path: &Path) -> bool {
        let path = normalize(path);
        self.protected.iter().any(|root| path.starts_with(root))
    }

    /// An enforcing policy with these roots and nothing else, for tests.
    #[doc(hidden)]
    pub fn for_test(
        workspace: &Path,
        allow_write: Vec<PathBuf>,
        forbid_read: Vec<PathBuf>,
    ) -> SandboxPolicy {
        SandboxPolicy {
            workspace: workspace.to_path_buf(),
            allow_write,
            forbid_read,
            shell: ShellSandbox::Enforce,
            network: false,
            bash_timeout_secs: 1,
            hidden: Vec::new(),
            protected: Vec::new(),
            revealed: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The JSON plugins see under the reserved config key `sandbox`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// `path` made absolute and normalised, with symlinks resolved as far as it exists: its
/// deepest existing ancestor is canonicalised and the rest appended (`/tmp/new` →
/// `/private/tmp/new` on macOS). For comparing paths that may not exist yet.
pub fn real_path(path: &Path) -> PathBuf {
    let absolute = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    let mut rest = Vec::new();
    let mut base = absolute.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(base) {
            return rest
                .iter()
                .rev()
                .fold(real, |acc: PathBuf, part| acc.join(part));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                base = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(allow: &[&str], forbid: &[&str]) -> SandboxConfig {
        SandboxConfig {
            settings: SandboxSettings {
                allow_write: Some(allow.iter().map(|s| s.to_string()).collect()),
                forbid_read: Some(forbid.iter().map(|s| s.to_string()).collect()),
                ..Default::default()
            },
            tools: ToolsSettings::default(),
            always_forbidden: Vec::new(),
            hidden: Vec::new(),
            executed_files: Vec::new(),
        }
    }

    #[test]
    fn the_credentials_file_stays_forbidden_whatever_the_config_says() {
        let mut c = config(&[], &["/home/me/.reasonix/.env"]);
        c.always_forbidden = vec![PathBuf::from("/home/me/.reasonix/./.env")];
        let p = c.resolve_with(Path::new("/ws"), |_| None);
        assert_eq!(
            p.forbid_read,
            vec![PathBuf::from("/home/me/.reasonix/.env")]
        );
        let mut c = config(&[], &[]);
        c.settings.forbid_read = None;
        c.always_forbidden = vec![PathBuf::from("/h/.env")];
        let p = c.resolve_with(Path::new("/ws"), |_| None);
        assert!(p.is_forbidden(Path::new("/h/.env")));
    }

    #[test]
    fn kernel_dirs_are_hidden_and_config_files_protected() {
        let mut c = config(&[], &[]);
        c.hidden = vec![PathBuf::from("/ws/proj/.reasonix/../.reasonix")];
        let p = c.resolve_with(Path::new("/ws/proj"), |_| None);
        assert!(p.is_hidden(Path::new("/ws/proj/.reasonix/plugins/index.json")));
        assert!(p.is_forbidden(Path::new("/ws/proj/.reasonix/cache")));
        assert!(!p.is_hidden(Path::new("/ws/proj/.reasonixx")));
        for path in [
            "reasonix.toml",
            ".reasonix/commands/x.md",
            ".mcp.json",
            ".claude/settings.local.json",
        ] {
            assert!(p.is_protected(&Path::new("/ws/proj").join(path)), "{path}");
        }
        assert!(!p.is_protected(Path::new("/ws/proj/.claude/commands/x.md")));
        assert!(!p.is_protected(Path::new("/ws/proj/src/reasonix.toml")));
    }

    #[test]
    fn resolves_relative_and_variables() {
        let env = |k: &str| (k == "HOME").then(|| "/home/me".to_string());
        let p = config(
            &["../shared", "/abs/out"],
            &["${HOME}/.ssh", ".env", "${MISSING}"],
        )
        .resolve_with(Path::new("/ws/proj"), env);
        assert_eq!(
            p.allow_write,
            vec![PathBuf::from("/ws/shared"), PathBuf::from("/abs/out")]
        );
        assert_eq!(
            p.forbid_read,
            vec![
                PathBuf::from("/home/me/.ssh"),
                PathBuf::from("/ws/proj/.env")
            ]
        );
        assert_eq!(p.warnings.len(), 1);
        assert!(p.is_forbidden(Path::new("/home/me/.ssh/id_rsa")));
        assert!(p.is_forbidden(Path::new("/ws/proj/sub/../.env")));
        assert!(!p.is_forbidden(Path::new("/ws/proj/.envrc")));
        assert_eq!(p.shell, ShellSandbox::Enforce);
        assert!(!p.network);
        assert_eq!(p.bash_timeout_secs, DEFAULT_BASH_TIMEOUT_SECS);
    }
}
