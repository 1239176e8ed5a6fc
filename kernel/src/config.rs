//! Configuration: `<home>/config.toml` overlaid by `./reasonix.toml` (project wins).
//! Only the keys the kernel uses are typed here (`default_model` and `[[providers]]` are
//! resolved by [`crate::providers`]); other sections written for the original Reasonix
//! (`[agent]`, `[permissions]` …) are accepted and ignored until the parts that use them exist.

use crate::capability::{Capabilities, WorkspaceAccess};
use crate::error::StateError;
use crate::providers::ProviderSettings;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where Reasonix keeps its state.
#[derive(Debug, Clone)]
pub struct Paths {
    /// `REASONIX_HOME`, default `~/.reasonix`.
    pub home: PathBuf,
    /// Precompiled components; `REASONIX_CACHE_HOME`, default `<home>/cache`.
    pub cache: PathBuf,
}

impl Paths {
    /// Resolve from the environment.
    pub fn from_env() -> Paths {
        let home = std::env::var_os("REASONIX_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                std::env::var_os("HOME")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from("."))
                    .join(".reasonix")
            });
        let cache = std::env::var_os("REASONIX_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join("cache"));
        Paths { home, cache }
    }

    /// Installed components and their index.
    pub fn plugins_dir(&self) -> PathBuf {
        self.home.join("plugins")
    }

    pub fn user_config(&self) -> PathBuf {
        self.home.join("config.toml")
    }
}

/// Per-plugin settings from `[plugin.<name>]`. (The original Reasonix uses `[[plugins]]` for
/// MCP servers, so the per-plugin table has a name of its own.)
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PluginSettings {
    /// `false` keeps the plugin from loading.
    pub enabled: Option<bool>,
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
}

impl PluginSettings {
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

    fn overlay(&mut self, top: PluginSettings) {
        macro_rules! take {
            ($($field:ident),*) => { $( if top.$field.is_some() { self.$field = top.$field; } )* };
        }
        take!(
            enabled,
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
}

/// The parts of one config file the kernel reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct ConfigFile {
    default_model: Option<String>,
    providers: Vec<ProviderSettings>,
    sandbox: SandboxSettings,
    tools: ToolsSettings,
    plugin: BTreeMap<String, PluginSettings>,
}

/// The merged configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Files read, lowest precedence first.
    pub sources: Vec<PathBuf>,
    pub sandbox: SandboxSettings,
    pub tools: ToolsSettings,
    pub plugins: BTreeMap<String, PluginSettings>,
    /// `default_model`: a provider name (→ its default model) or `provider/model`.
    pub default_model: Option<String>,
    /// `[[providers]]`, in file order. A project entry replaces the user entry with the same
    /// name (the whole entry, in its place); other project entries are appended.
    pub providers: Vec<ProviderSettings>,
}

impl Config {
    /// Read `<home>/config.toml` then `<project_dir>/reasonix.toml`; missing files are fine.
    pub fn load(paths: &Paths, project_dir: &Path) -> Result<Config, StateError> {
        let mut config = Config::default();
        for path in [paths.user_config(), project_dir.join("reasonix.toml")] {
            if let Some(file) = read_file(&path)? {
                config.sources.push(path);
                config.merge(file);
            }
        }
        Ok(config)
    }

    /// Parse one file's text; `path` is only used in messages.
    pub fn parse(path: &Path, text: &str) -> Result<Config, StateError> {
        let mut config = Config::default();
        config.merge(parse_file(path, text)?);
        config.sources.push(path.to_path_buf());
        Ok(config)
    }

    fn merge(&mut self, file: ConfigFile) {
        let sandbox = file.sandbox;
        macro_rules! take {
            ($target:expr, $source:expr, $($field:ident),*) => {
                $( if $source.$field.is_some() { $target.$field = $source.$field; } )*
            };
        }
        take!(
            self.sandbox,
            sandbox,
            workspace_root,
            allow_write,
            forbid_read,
            bash,
            network
        );
        take!(self.tools, file.tools, bash_timeout_seconds);
        if file.default_model.is_some() {
            self.default_model = file.default_model;
        }
        self.merge_providers(file.providers);
        for (name, settings) in file.plugin {
            self.plugins.entry(name).or_default().overlay(settings);
        }
    }

    /// Project entries replace earlier files' entries with the same name; two entries with one
    /// name in the same file are both kept, so that resolving reports the duplicate.
    fn merge_providers(&mut self, incoming: Vec<ProviderSettings>) {
        let earlier = self.providers.len();
        let mut replaced = Vec::new();
        for entry in incoming {
            let slot = self.providers[..earlier]
                .iter()
                .position(|p| p.effective_name() == entry.effective_name())
                .filter(|i| !entry.effective_name().is_empty() && !replaced.contains(i));
            match slot {
                Some(i) => {
                    self.providers[i] = entry;
                    replaced.push(i);
                }
                None => self.providers.push(entry),
            }
        }
    }

    /// Problems that do not stop Reasonix, each naming the provider: keys of `[[providers]]`
    /// entries (and their `model_overrides`) this build does not know (a typo, or a key of
    /// another version), `request_url` together with `chat_url`, and `model_overrides` for a
    /// model the entry does not list.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, p) in self.providers.iter().enumerate() {
            let name = match p.effective_name() {
                "" => format!("#{}", i + 1),
                name => format!("`{name}`"),
            };
            for key in p.unknown.keys() {
                out.push(format!(
                    "provider {name}: unknown key `{key}` is ignored (check the spelling; see docs/CONFIG.md)"
                ));
            }
            if p.request_url.is_some() && p.chat_url.is_some() {
                out.push(format!(
                    "provider {name}: both `request_url` and the legacy `chat_url` are set; `request_url` is used"
                ));
            }
            let listed: Vec<&String> = p.models.iter().flatten().chain(p.model.iter()).collect();
            for (model, o) in &p.model_overrides {
                if !listed.is_empty() && !listed.contains(&model) {
                    out.push(format!(
                        "provider {name}: model_overrides.\"{model}\" names a model that is not in `models`; check the spelling"
                    ));
                }
                for key in o.unknown.keys() {
                    out.push(format!(
                        "provider {name}: unknown key `{key}` in model_overrides.\"{model}\" is ignored"
                    ));
                }
            }
        }
        out
    }

    /// The settings for one plugin (defaults when the config does not mention it).
    pub fn plugin(&self, name: &str) -> PluginSettings {
        self.plugins.get(name).cloned().unwrap_or_default()
    }
}

fn read_file(path: &Path) -> Result<Option<ConfigFile>, StateError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse_file(path, &text).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StateError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn parse_file(path: &Path, text: &str) -> Result<ConfigFile, StateError> {
    toml::from_str(text).map_err(|e| StateError::Format {
        path: path.to_path_buf(),
        message: describe_toml_error(text, &e),
    })
}

/// `line L, column C: message` — toml's own text repeats the snippet, which we keep short.
fn describe_toml_error(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim();
    match error.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            let source_line = text.lines().nth(line - 1).unwrap_or("").trim();
            format!("line {line}, column {column}: {message} (in `{source_line}`)")
        }
        None => message.to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn expands_variables_and_defaults() {
        let env = |k: &str| (k == "HOME").then(|| "/home/me".to_string());
        assert_eq!(expand_vars("${HOME}/.ssh", env).unwrap(), "/home/me/.ssh");
        assert_eq!(expand_vars("${NOPE:-/tmp}/x", env).unwrap(), "/tmp/x");
        assert_eq!(expand_vars("plain $HOME", env).unwrap(), "plain $HOME");
        assert!(expand_vars("${NOPE}", env).unwrap_err().contains("NOPE"));
        assert!(expand_vars("${HOME", env).is_err());
        assert!(expand_vars("${a b}", env).is_err());
    }

    #[test]
    fn sandbox_and_tools_sections_parse_and_merge() {
        let mut cfg = Config::parse(
            Path::new("user.toml"),
            "[sandbox]\nforbid_read = [\"${HOME}/.ssh\"]\nbash = \"off\"\n[tools]\nbash_timeout_seconds = 5\n",
        )
        .unwrap();
        cfg.merge(parse_file(Path::new("p.toml"), "[sandbox]\nnetwork = true\n").unwrap());
        assert_eq!(cfg.sandbox.bash, Some(ShellSandbox::Off));
        assert_eq!(cfg.sandbox.network, Some(true));
        assert_eq!(
            cfg.sandbox.forbid_read,
            Some(vec!["${HOME}/.ssh".to_string()])
        );
        assert_eq!(cfg.tools.bash_timeout_seconds, Some(5));
    }

    proptest! {
        #[test]
        fn expansion_never_panics(text in "\\PC{0,60}") {
            let _ = expand_vars(&text, |_| Some("v".to_string()));
        }
    }

    #[test]
    fn parses_plugin_settings() {
        let cfg = Config::parse(
            Path::new("reasonix.toml"),
            r#"
default_model = "deepseek"
[[providers]]
name = "deepseek"
[[plugins]]
name = "filesystem"
command = "npx"
[plugin.fs-write]
workspace = "read"
call_timeout_ms = 500
[plugin.fs-write.config]
greeting = "hi"
"#,
        )
        .unwrap();
        let s = cfg.plugin("fs-write");
        assert_eq!(s.workspace, Some(WorkspaceAccess::Read));
        assert_eq!(s.call_timeout_ms, Some(500));
        assert_eq!(
            s.config.get("greeting").and_then(|v| v.as_str()),
            Some("hi")
        );
        assert_eq!(cfg.plugin("other"), PluginSettings::default());
    }

    #[test]
    fn syntax_error_names_file_and_line() {
        let err = Config::parse(Path::new("/p/reasonix.toml"), "a = 1\n[plugins\nb = 2\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/p/reasonix.toml: line 2"), "{err}");
    }

    #[test]
    fn bad_value_names_line_and_key() {
        let err = Config::parse(
            Path::new("reasonix.toml"),
            "[plugin.x]\nmemory_mib = \"lots\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("memory_mib"), "{err}");
    }

    #[test]
    fn unknown_plugin_key_is_an_error() {
        let err = Config::parse(Path::new("reasonix.toml"), "[plugin.x]\nmemroy_mib = 3\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("memroy_mib"), "{err}");
    }

    #[test]
    fn narrowing_never_widens() {
        let grant = Capabilities {
            workspace: WorkspaceAccess::Read,
            network: vec!["https://a".into()],
            env: vec![],
            process: false,
        };
        let settings = PluginSettings {
            workspace: Some(WorkspaceAccess::ReadWrite),
            network: Some(vec!["https://a".into(), "https://b".into()]),
            process: Some(true),
            ..Default::default()
        };
        assert_eq!(settings.narrow(&grant), grant);
    }

    #[test]
    fn project_overrides_user() {
        let mut cfg = Config::parse(
            Path::new("user.toml"),
            "[plugin.x]\nmemory_mib = 10\ncall_timeout_ms = 5\n",
        )
        .unwrap();
        cfg.merge(parse_file(Path::new("p.toml"), "[plugin.x]\nmemory_mib = 20\n").unwrap());
        let s = cfg.plugin("x");
        assert_eq!((s.memory_mib, s.call_timeout_ms), (Some(20), Some(5)));
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = Config::parse(Path::new("fuzz.toml"), &text);
        }
    }
}
