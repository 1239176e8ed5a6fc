//! Settings the component host and the agent both read: where Reasonix keeps its state, the
//! `[sandbox]`, `[tools]` and `[plugin.<name>]` sections. Parsed by the agent's config loader;
//! the host receives them as a [`RegistrySettings`], never the whole configuration.

use crate::capability::{Capabilities, LimitValues, WorkspaceAccess};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where Reasonix keeps its state.
#[derive(Debug, Clone)]
pub struct Paths {
    /// `REASONIX_HOME`, default `~/.reasonix`.
    pub home: PathBuf,
    /// Precompiled components; `REASONIX_CACHE_HOME`, default `<home>/cache`.
    pub cache: PathBuf,
    /// Sessions and other run state; `REASONIX_STATE_HOME`, default `<home>`.
    pub state: PathBuf,
}

impl Paths {
    /// Resolve from the environment.
    pub fn from_env() -> Paths {
        Paths::from_lookup(|name| std::env::var_os(name))
    }

    /// Resolve from `lookup` (the environment); empty values count as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<std::ffi::OsString>) -> Paths {
        let var = |name: &str| lookup(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = var("REASONIX_HOME").unwrap_or_else(|| {
            var("HOME")
                .unwrap_or_else(|| PathBuf::from("."))
                .join(".reasonix")
        });
        let cache = var("REASONIX_CACHE_HOME").unwrap_or_else(|| home.join("cache"));
        let state = var("REASONIX_STATE_HOME").unwrap_or_else(|| home.clone());
        Paths { home, cache, state }
    }

    /// Paths under one home directory, with the default cache and state locations (tests,
    /// benchmarks, embedders).
    pub fn under(home: impl Into<PathBuf>) -> Paths {
        let home = home.into();
        Paths {
            cache: home.join("cache"),
            state: home.clone(),
            home,
        }
    }

    /// Installed components and their index.
    pub fn plugins_dir(&self) -> PathBuf {
        self.home.join("plugins")
    }

    /// Reasonix's own directories (home, cache, state; each once), which plugins and jobs never
    /// see. Absolute: a relative home is taken against the current directory.
    pub fn kernel_dirs(&self) -> Vec<PathBuf> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let mut dirs: Vec<PathBuf> = Vec::new();
        for dir in [&self.home, &self.cache, &self.state] {
            let dir = crate::lexical_path::normalize(&cwd.join(dir));
            if !dirs.iter().any(|d| dir.starts_with(d)) {
                dirs.retain(|d| !d.starts_with(&dir));
                dirs.push(dir);
            }
        }
        dirs
    }

    /// The secret the artifact cache's seals are made with: `<state>/cache.key`, in a
    /// directory plugins and jobs never see (not in the cache itself, which a copied or
    /// checked-out directory could bring).
    pub fn cache_key_file(&self) -> PathBuf {
        self.state.join("cache.key")
    }

    pub fn user_config(&self) -> PathBuf {
        self.home.join("config.toml")
    }

    /// Where the provider keys are kept: `<home>/.env`. No plugin or job may read it.
    pub fn credentials_file(&self) -> PathBuf {
        self.home.join(".env")
    }
}

/// Per-plugin settings from `[plugin.<name>]`. (The original Reasonix uses `[[plugins]]` for
/// MCP servers, so the per-plugin table has a name of its own.)
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PluginSettings {
    /// `false` keeps the plugin from loading.
    pub enabled: Option<bool>,
    /// `true` lets this plugin's tools and provider kinds replace those of the same name
    /// served by another plugin (a notice says so) instead of being refused as a clash.
    pub prefer: Option<bool>,
    /// Narrow the workspace grant (`none`, `read`, `read-write`).
    pub workspace: Option<WorkspaceAccess>,
    /// Narrow the network grant to these patterns.
    pub network: Option<Vec<String>>,
    /// Narrow the environment grant to these names.
    pub env: Option<Vec<String>>,
    /// `false` withdraws the process grant.
    pub process: Option<bool>,
    /// Memory limit per call, MiB.
    pub memory_mib: Option<u64>,
    /// Deadline per call, ms.
    pub call_timeout_ms: Option<u64>,
    /// The plugin's own configuration (`[plugin.<name>.config]`), readable through the
    /// `config` host service.
    pub config: toml::Table,
    /// `memory_mib` and `call_timeout_ms` as the user's own config file sets them: only these
    /// may raise a limit above the default and the install grant (a project file can lower).
    /// Filled by [`Config::load`] from the user file; not a key.
    // TODO(trust model): when project files become trusted per workspace, a trusted project
    // file's limits may be copied here too (see `Config::load`).
    #[serde(skip)]
    pub user_limits: LimitValues,
}

impl PluginSettings {
    /// Set `[plugin.<name>.config] key` to a string, replacing what a config file set: for
    /// values only the host decides (e.g. the hooks that run, computed with their trust).
    pub fn set_config_string(&mut self, key: &str, value: String) {
        self.config
            .insert(key.to_string(), toml::Value::String(value));
    }

    /// Apply this section's narrowing to a grant. Config can only take capabilities away.
    pub fn narrow(&self, grant: &Capabilities) -> Capabilities {
        let mut out = grant.clone();
        if let Some(ws) = self.workspace {
            out.workspace = out.workspace.min(ws);
        }
        if let Some(net) = &self.network {
            out.network.retain(|p| net.contains(p));
        }
        if let Some(env) = &self.env {
            out.env.retain(|n| env.contains(n));
        }
        if self.process == Some(false) {
            out.process = false;
        }
        out
    }

    /// `memory_mib` and `call_timeout_ms` from whichever file set them last.
    pub fn limits(&self) -> LimitValues {
        LimitValues {
            memory_mib: self.memory_mib,
            call_timeout_ms: self.call_timeout_ms,
        }
    }

    /// Apply `top` (a later file) over these settings, key by key.
    pub fn overlay(&mut self, top: PluginSettings) {
        macro_rules! take {
            ($($field:ident),*) => { $( if top.$field.is_some() { self.$field = top.$field; } )* };
        }
        take!(
            enabled,
            prefer,
            workspace,
            network,
            env,
            process,
            memory_mib,
            call_timeout_ms
        );
        for (k, v) in top.config {
            self.config.insert(k, v);
        }
        if top.user_limits.memory_mib.is_some() {
            self.user_limits.memory_mib = top.user_limits.memory_mib;
        }
        if top.user_limits.call_timeout_ms.is_some() {
            self.user_limits.call_timeout_ms = top.user_limits.call_timeout_ms;
        }
    }
}

/// Whether shell commands must run inside the OS sandbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShellSandbox {
    /// Refuse to run commands when no sandbox is available.
    #[default]
    Enforce,
    /// Run commands unconfined.
    Off,
}

/// `[sandbox]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SandboxSettings {
    /// Workspace root; empty means the current directory.
    pub workspace_root: Option<String>,
    /// Extra writable roots (`${VAR}` expanded; relative to the workspace).
    pub allow_write: Option<Vec<String>>,
    /// Files or directories no reader and no sandboxed command may inspect.
    pub forbid_read: Option<Vec<String>>,
    /// `enforce` (default) or `off`.
    pub bash: Option<ShellSandbox>,
    /// Let sandboxed commands reach the network (default false).
    pub network: Option<bool>,
}

/// `[tools]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ToolsSettings {
    /// Foreground shell command timeout in seconds (default 120; 0 = none).
    pub bash_timeout_seconds: Option<u64>,
    /// Tools offered to the model, by name; unset or empty = every tool.
    pub enabled: Option<Vec<String>>,
    /// MCP servers' launch + `initialize` + first listings, for servers without their own
    /// `startup_timeout_seconds` (default 30).
    pub mcp_startup_timeout_seconds: Option<u64>,
    /// MCP tool calls, for servers without their own `call_timeout_seconds` (default 300).
    pub mcp_call_timeout_seconds: Option<u64>,
    /// Bytes of MCP tool specs offered to the model directly (default 8192); past it they are
    /// reached through one `mcp_tools` tool. 0: always through it.
    pub mcp_schema_budget: Option<u64>,
}

impl ToolsSettings {
    /// `enabled` with the empty list meaning "every tool" (`None`).
    pub fn enabled_tools(&self) -> Option<Vec<String>> {
        self.enabled.clone().filter(|names| !names.is_empty())
    }
}

/// What the plugin registry needs from the configuration, and nothing else.
#[derive(Debug, Clone, Default)]
pub struct RegistrySettings {
    pub sandbox: SandboxSettings,
    pub tools: ToolsSettings,
    /// `[plugin.<name>]` sections by plugin name.
    pub plugins: BTreeMap<String, PluginSettings>,
    /// Set by the host, never read from a file: the values of the secrets it knows (provider
    /// keys), handed to a built-in that requests [`KNOWN_SECRETS_ENV`] (the redactor).
    pub known_secrets: Vec<String>,
    /// Set by the host, never read from a file: the user's own instruction directories
    /// (`<home>`, `~/.claude`), readable (Markdown files only) by a built-in that requests
    /// [`USER_DIRS_ENV`] (the project-instructions component), which gets them listed there.
    pub user_instruction_dirs: Vec<PathBuf>,
    /// For every `[plugin.<name>]` section an untrusted project file set: the plugin's
    /// settings without that file. A plugin serving interceptors gets these instead of
    /// [`RegistrySettings::plugins`]: a repository must not switch off, reconfigure or strip the
    /// grants of a guard the user installed (a hooks runner, a redactor, a policy interceptor).
    pub untrusted_project: BTreeMap<String, PluginSettings>,
    /// Set by the host, never read from a file: the workspace files the project configuration
    /// executes (MCP server and hook scripts), protected as the configuration files are.
    pub executed_files: Vec<PathBuf>,
    /// Set by the host, never read from a file: the command lines of the user's own hooks,
    /// which a built-in that requests [`USER_COMMANDS_ENV`] (the hooks runner) runs with the
    /// user's confinement instead of the workspace's (ADR 0028).
    pub user_commands: crate::user_commands::UserCommands,
    /// Set by the host, never read from a file: the WebAssembly components of the installed,
    /// enabled and intact packages. The user agreed to what each asks for when the package
    /// was installed (its review names the file by hash), so each is granted its request.
    pub package_components: Vec<PackageComponent>,
}

/// A WebAssembly component a package brings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageComponent {
    pub package: String,
    pub path: PathBuf,
}

/// The environment name under which a built-in receives the known secrets, one per line.
pub const KNOWN_SECRETS_ENV: &str = "REASONIX_KNOWN_SECRETS";
/// The environment name under which a built-in receives the user's instruction directories,
/// one per line; requesting it is asking to read them (Markdown only).
pub const USER_DIRS_ENV: &str = "REASONIX_USER_DIRS";

/// The environment name a built-in requests to have its `sh -c <line>` jobs of the user's own
/// command lines run with the user's confinement; its value is how many lines there are.
pub const USER_COMMANDS_ENV: &str = "REASONIX_USER_COMMANDS";

impl RegistrySettings {
    /// The settings of one plugin (defaults when it has no section).
    pub fn plugin(&self, name: &str) -> PluginSettings {
        self.plugins.get(name).cloned().unwrap_or_default()
    }
}

/// Expand `${VAR}` and `${VAR:-default}` from `lookup`. An unset variable without a default is
/// an error naming it; `$` not followed by `{` is kept literally.
pub fn expand_vars(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unterminated `${{` in `{text}`"))?;
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!("invalid variable name `{name}` in `{text}`"));
        }
        match (lookup(name).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(format!("`${{{name}}}` is not set (in `{text}`)")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
