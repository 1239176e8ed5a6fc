//! Configuration: `<home>/config.toml` overlaid by `./reasonix.toml` (project wins, key by
//! key; command-line flags are applied on top by the CLI). Only the keys this build uses are
//! typed here (`default_model` and `[[providers]]` are resolved by [`crate::providers`]).
//! Keys and sections of the original Reasonix that are not implemented yet are accepted and
//! named in one `ignored: …` warning per file (`[[plugins]]` MCP servers each in their own);
//! other unknown keys are reported by [`Config::warnings`] with their file and line
//! ([`check`]). Invalid values of known keys are errors naming the file, line, column and key.
//!
//! The product's configuration and compatibility layer, apart from the agent: Claude Code's
//! `settings.json` and `.mcp.json`, which files a workspace may contribute (trust, pins),
//! and provider resolution. It only reads and checks; what the agent makes of it (its
//! permission policy, its compaction) is built on the agent's side.
#![forbid(unsafe_code)]

mod check;
mod compaction_keys;
pub mod composition;
pub mod duration;
pub mod mcp;
pub mod mcp_files;
pub mod pins;
pub mod providers;
pub mod run_mode;
pub mod settings_json;
mod settings_sources;
#[cfg(test)]
mod tests;
mod trust;
mod warned;

pub use compaction_keys::Ratios;
pub use pins::PinnedFile;
pub use settings_sources::{
    HookEntry, SettingScope, SettingsChoice, SettingsSource, settings_files,
};
pub use trust::{
    McpApproval, PROJECT_MCP_JSON, PROJECT_SETTINGS, ProjectTrust, TRUST_FILE, TrustCheck,
    TrustStore, TrustedWorkspace, mcp_json_sha256, project_hook_files, project_mcp_pins,
    settings_sha256,
};

pub use reasonix_core::settings::{
    Paths, PluginSettings, RegistrySettings, SandboxSettings, ShellSandbox, ToolsSettings,
    expand_vars,
};

// The shared vocabulary, under the names the modules use.
#[cfg(test)]
pub(crate) use reasonix_core::capability;
pub(crate) use reasonix_core::{error, sandbox, state_file};

use crate::error::StateError;
use crate::providers::ProviderSettings;
pub use reasonix_rules::{Decision, Rule};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// `[permissions]` parsed: what the agent's permission policy starts from.
#[derive(Debug, Clone, Default)]
pub struct PermissionRules {
    /// The fallback for writers and shell when no rule matches (`mode`).
    pub mode: Option<Decision>,
    pub allow: Vec<Rule>,
    pub ask: Vec<Rule>,
    pub deny: Vec<Rule>,
    pub allow_dynamic_bash: bool,
    /// Files the configuration executes (hooks, MCP servers): writing them asks.
    pub protected: Vec<PathBuf>,
}

/// `[agent]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentSettings {
    /// The system prompt text. Set together with `system_prompt_file`, the file wins.
    pub system_prompt: Option<String>,
    /// A file holding the system prompt: `${VAR}` expanded, then resolved against the directory
    /// of the config file that set it.
    pub system_prompt_file: Option<PathBuf>,
    /// Accepted (the original's key); requests use the provider entry's `temperature`.
    pub temperature: Option<f64>,
    /// Upper bound on output tokens per request; `0` in the file = automatic (`None`).
    pub max_output_tokens: Option<u32>,
    /// Default for `reasonix run --max-steps` (model requests per run), at least 1.
    pub max_steps: Option<u32>,
    /// `tool_result_snip_ratio`, `compact_ratio`, `compact_force_ratio` (docs/COMPACTION.md).
    pub tool_result_snip_ratio: Option<f64>,
    pub compact_ratio: Option<f64>,
    pub compact_force_ratio: Option<f64>,
    /// `reasonix run`: a final answer cut off by the output limit or a content filter ends the
    /// run as a success (exit 0) instead of exit 3. Default `false`.
    pub accept_cut_off_answer: bool,
    /// `reasonix run`: the whole run ends after this long (`--timeout` wins). `run_timeout`
    /// in the file: `"90s"`, `"5m"`, `"1h"` or a number of seconds.
    pub run_timeout: Option<std::time::Duration>,
    /// Sub-agents' model and effort (docs/AGENTS.md): the default for every profile, and per
    /// profile (which wins even over the model a `task` call names).
    pub subagent_model: Option<String>,
    pub subagent_effort: Option<String>,
    pub subagent_models: BTreeMap<String, String>,
    pub subagent_efforts: BTreeMap<String, String>,
    /// How deep sub-agents nest, how many run at once, how many of those write (1–32 each;
    /// writers at most the concurrency). `None`: 2, 6 and 3.
    pub max_subagent_depth: Option<u32>,
    pub max_subagent_concurrency: Option<u32>,
    pub max_parallel_writers: Option<u32>,
    /// `economy`, `balanced` (`None`) or `delivery` (`run_mode`).
    pub mode: Option<run_mode::RunMode>,
    /// The planner of two-model collaboration (a model reference; docs/RUN.md, "Planner").
    pub planner_model: Option<String>,
    /// The language the model reasons in (`auto`: the conversation's; `en`, `zh`, or a
    /// language's name): one line of the system prompt (docs/I18N.md).
    pub reasoning_language: Option<String>,
}

/// `[skills]` (docs/SKILLS.md). Each path keeps the file that named it: only the user's own
/// file may point outside the workspace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillsSettings {
    /// Extra skill roots, `~` and `${VAR}` expanded, relative ones against the file's
    /// directory; joined across files.
    pub paths: Vec<NamedPath>,
    /// Roots or skill folders to leave out; joined across files.
    pub excluded_paths: Vec<NamedPath>,
    /// Skill names hidden everywhere (index, `/name`, the `skill` tool); joined.
    pub disabled_skills: Vec<String>,
    /// No skill is in the model's index; `/name` still works.
    pub disable_implicit_invocation: bool,
    /// Skills that cannot be read are skipped without a warning at start.
    pub suppress_warnings: bool,
    /// The only skills offered (a composition's `skills`); `None`: all of them.
    pub only: Option<Vec<String>>,
}

/// A path from a config file, with the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedPath {
    pub path: PathBuf,
    pub source: PathBuf,
}

/// `[permissions]`: rules in Claude Code syntax, see [`crate::permissions`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PermissionSettings {
    /// Fallback for writers when no rule matches: `ask`, `allow` or `deny`.
    pub mode: Option<String>,
    /// Never prompted. A project list replaces the user list.
    pub allow: Vec<String>,
    /// Always prompted (refused headless unless the posture allows it). Lists are joined.
    pub ask: Vec<String>,
    /// Blocked in every posture. Lists are joined: a project cannot drop a user's deny.
    pub deny: Vec<String>,
    /// Let grants cover commands that build code at run time (`sh -c`, `eval`, `$(…)`).
    pub allow_dynamic_bash: Option<bool>,
    /// The config file each rule came from, by (list, rule text), for messages.
    pub origins: BTreeMap<(String, String), PathBuf>,
}

/// The valid `[permissions] mode` values.
const MODES: &[&str] = &["ask", "allow", "deny"];

/// `[agent]` as written in one file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct AgentFile {
    system_prompt: Option<String>,
    system_prompt_file: Option<Spanned<String>>,
    #[serde(deserialize_with = "temperature")]
    temperature: Option<f64>,
    #[serde(deserialize_with = "output_tokens")]
    max_output_tokens: Option<u32>,
    #[serde(deserialize_with = "at_least_one")]
    max_steps: Option<u32>,
    #[serde(deserialize_with = "crate::compaction_keys::ratio")]
    tool_result_snip_ratio: Option<f64>,
    #[serde(deserialize_with = "crate::compaction_keys::ratio")]
    compact_ratio: Option<f64>,
    #[serde(deserialize_with = "crate::compaction_keys::ratio")]
    compact_force_ratio: Option<f64>,
    accept_cut_off_answer: Option<bool>,
    #[serde(deserialize_with = "run_timeout")]
    run_timeout: Option<std::time::Duration>,
    subagent_model: Option<String>,
    subagent_effort: Option<String>,
    subagent_models: BTreeMap<String, String>,
    subagent_efforts: BTreeMap<String, String>,
    #[serde(deserialize_with = "subagent_limit")]
    max_subagent_depth: Option<u32>,
    #[serde(deserialize_with = "subagent_limit")]
    max_subagent_concurrency: Option<u32>,
    #[serde(deserialize_with = "subagent_limit")]
    max_parallel_writers: Option<u32>,
    #[serde(deserialize_with = "run_mode::deserialize")]
    mode: Option<run_mode::RunMode>,
    planner_model: Option<String>,
    reasoning_language: Option<String>,
}

/// A sub-agent limit: a whole number from 1 to 32.
fn subagent_limit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match Option::<i64>::deserialize(d)? {
        None => Ok(None),
        Some(n) => u32::try_from(n)
            .ok()
            .filter(|n| (1..=32).contains(n))
            .map(Some)
            .ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "sub-agent limits are whole numbers from 1 to 32, not {n} (remove the key for the default)"
                ))
            }),
    }
}

/// `run_timeout`: a duration string (`"90s"`, `"5m"`, `"1h"`) or a number of seconds.
fn run_timeout<'de, D: Deserializer<'de>>(d: D) -> Result<Option<std::time::Duration>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Seconds(i64),
        Text(String),
    }
    let text = match Option::<Written>::deserialize(d)? {
        None => return Ok(None),
        Some(Written::Seconds(n)) => n.to_string(),
        Some(Written::Text(text)) => text,
    };
    duration::parse(&text)
        .map(Some)
        .map_err(|e| serde::de::Error::custom(format!("`run_timeout`: {e}")))
}

/// `[permissions]` as written in one file (`None` = not set here).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct PermissionsFile {
    #[serde(deserialize_with = "permission_mode")]
    mode: Option<String>,
    allow: Option<Vec<String>>,
    ask: Option<Vec<String>>,
    deny: Option<Vec<String>>,
    allow_dynamic_bash: Option<bool>,
}

fn temperature<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let value = Option::<f64>::deserialize(d)?;
    match value {
        Some(t) if !t.is_finite() || t < 0.0 => Err(serde::de::Error::custom(format!(
            "`temperature` must be a number ≥ 0 (0.0 is the usual value for coding), not {t}"
        ))),
        _ => Ok(value),
    }
}

fn at_least_one<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match Option::<i64>::deserialize(d)? {
        None => Ok(None),
        Some(n) => u32::try_from(n).ok().filter(|n| *n >= 1).map(Some).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`max_steps` must be a whole number from 1 to {}, not {n} (remove the key for the default)",
                u32::MAX
            ))
        }),
    }
}

fn output_tokens<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match Option::<i64>::deserialize(d)? {
        None => Ok(None),
        Some(n) => u32::try_from(n).map(Some).map_err(|_| {
            serde::de::Error::custom(format!(
                "`max_output_tokens` must be a whole number from 0 (automatic) to {}, not {n}",
                u32::MAX
            ))
        }),
    }
}

fn permission_mode<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let value = Option::<String>::deserialize(d)?;
    match &value {
        Some(mode) if !MODES.contains(&mode.as_str()) => Err(serde::de::Error::custom(format!(
            "`mode` must be \"ask\", \"allow\" or \"deny\" (the fallback for writers and shell commands when no rule matches), not `{mode}`; postures such as auto or yolo are chosen with --permission-mode"
        ))),
        _ => Ok(value),
    }
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
    agent: AgentFile,
    permissions: PermissionsFile,
    skills: SkillsFile,
    compositions: BTreeMap<String, composition::CompositionFile>,
    /// `[[plugins]]`: the original's MCP servers (parsed by [`mcp::from_plugins_toml`]).
    plugins: Vec<toml::Value>,
    /// `[mcp.<server>]`: the user's settings for one MCP server (honoured from the user file
    /// only).
    mcp: BTreeMap<String, McpServerFile>,
    /// `[lsp]`: which language servers run (honoured from the user file only).
    lsp: Option<LspSettings>,
    /// `language`: the user interface's (`en`, `zh-CN`); read before the command line by the
    /// binary, kept here so the key is known.
    language: Option<String>,
}

/// `[lsp]`: the language servers behind the `lsp_*` tools (docs/LSP.md). Read from the user's
/// own file only: a server is a program that runs, and what runs is the user's choice.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct LspSettings {
    /// `false`: no `lsp_*` tools and no server ever starts.
    pub enabled: Option<bool>,
    /// How long a server may take to start and index before a call gives up (seconds).
    pub startup_timeout: Option<u64>,
    /// How long one request may take (seconds).
    pub request_timeout: Option<u64>,
    /// Let rust-analyzer run the workspace's build scripts and proc macros (code of the
    /// repository; off by default).
    pub rust_build_scripts: Option<bool>,
    /// `false`: servers run unconfined, with the user's rights (where the OS sandbox is not
    /// available, as on macOS). Default: in the OS sandbox.
    pub sandbox: Option<bool>,
    /// `[lsp.servers.<language>]`: a server for a language, replacing the built-in choice.
    pub servers: BTreeMap<String, LspServerSettings>,
}

/// `[lsp.servers.<language>]`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LspServerSettings {
    /// The program (a name found on `PATH`, or an absolute path).
    pub command: Option<String>,
    pub args: Option<Vec<String>>,
    /// File extensions it serves, without the dot.
    pub extensions: Option<Vec<String>>,
    /// Files that mark a project root for it (`Cargo.toml`, `pyproject.toml`).
    pub root_markers: Option<Vec<String>>,
    /// `initializationOptions` sent to it.
    pub initialization_options: Option<toml::Value>,
    /// `false`: this language gets no server.
    pub enabled: Option<bool>,
}

/// `[skills]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct SkillsFile {
    paths: Vec<String>,
    excluded_paths: Vec<String>,
    disabled_skills: Vec<String>,
    disable_implicit_invocation: Option<bool>,
    suppress_warnings: Option<bool>,
}

/// `[mcp.<server>]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct McpServerFile {
    /// `false`: a project server of this name runs outside the OS sandbox; `true`: a server
    /// of the user's own files runs in it (ADR 0026).
    sandbox: Option<bool>,
}

/// One file, checked: its settings, the resolved `system_prompt_file`, and its warnings.
#[derive(Debug, Clone, Default)]
struct ParsedFile {
    path: PathBuf,
    file: ConfigFile,
    system_prompt_file: Option<PathBuf>,
    warnings: Vec<String>,
    /// The warning about the original's keys, with the sha256 of the file it is about.
    original_keys: Option<OriginalKeys>,
}

/// The warning naming the original Reasonix's keys a file sets that this build ignores, with
/// what identifies the file as it was read (see [`Config::warnings_once`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginalKeys {
    pub message: String,
    /// sha256 of the file's path and bytes: another file, or this one changed, warns again.
    pub key: String,
}

/// The merged configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Files read, lowest precedence first.
    pub sources: Vec<PathBuf>,
    pub sandbox: SandboxSettings,
    pub tools: ToolsSettings,
    /// `[agent]`.
    pub agent: AgentSettings,
    /// `[permissions]`.
    pub permissions: PermissionSettings,
    /// `[skills]`.
    pub skills: SkillsSettings,
    /// `[lsp]`, from the user's own file.
    pub lsp: LspSettings,
    /// `[compositions.<name>]`, by name; a user file's wins a name over a project file's.
    pub compositions: Vec<composition::Defined>,
    /// The installed packages to load (a composition's `packages`); `None`: every enabled one.
    pub package_filter: Option<Vec<String>>,
    /// The hook events whose hooks run (a composition's `hooks`, the safety events always);
    /// `None`: all.
    pub hook_events: Option<Vec<String>>,
    /// The custom commands `/name` expands (a composition's `commands`); `None`: all.
    pub commands_only: Option<Vec<String>>,
    /// The MCP servers started (a composition's `mcp_servers`, applied to the packages'
    /// servers too); `None`: all.
    pub mcp_only: Option<Vec<String>>,
    /// Problems found while reading the files (unknown keys with their line …), in file order;
    /// [`Config::warnings`] returns them with the provider warnings.
    pub file_warnings: Vec<String>,
    /// The warnings of `file_warnings` about the original's ignored keys, one per file.
    pub original_keys: Vec<OriginalKeys>,
    pub plugins: BTreeMap<String, PluginSettings>,
    /// The `[plugin.<name>]` sections an untrusted project file set, as they were before it
    /// (see [`RegistrySettings::untrusted_project`]).
    pub plugins_without_untrusted_project: BTreeMap<String, PluginSettings>,
    /// `default_model`: a provider name (→ its default model) or `provider/model`.
    pub default_model: Option<String>,
    /// `[[providers]]`, in file order. A project entry replaces the user entry with the same
    /// name (the whole entry, in its place); other project entries are appended.
    pub providers: Vec<ProviderSettings>,
    /// Whether the project file's widening settings took effect (`None` when no project file
    /// was considered, as with [`Config::parse`]).
    pub project_trust: Option<ProjectTrust>,
    /// Every hook of the `settings.json` files, in order, trusted or not.
    pub hooks: Vec<HookEntry>,
    /// The `settings.json` files read, with what each contributed.
    pub settings: Vec<SettingsSource>,
    /// MCP servers from every file that names them, merged by name (see [`mcp::merge`]).
    /// Whether a project server may start is the caller's decision (`origin.kind`).
    pub mcp_servers: Vec<mcp::ServerSpec>,
    /// sha256 of the project `.mcp.json` exactly as it was read for `mcp_servers`: an approval
    /// is checked and recorded against these bytes, never against a later read of the file.
    pub project_mcp_json_sha256: Option<String>,
    /// The workspace files the project `.mcp.json` servers execute, pinned when read for
    /// `mcp_servers` (ADR 0026): the approval must name these very files and contents.
    pub project_mcp_json_pins: Vec<PinnedFile>,
    /// Workspace files that project configuration executes (the scripts of project MCP
    /// servers and hooks, trusted or not), real paths: protected for the session, as the
    /// configuration files are (a tool write to one asks in every posture but bypass).
    pub executed_files: Vec<PathBuf>,
    /// Project MCP servers the user lets run outside the OS sandbox (`[mcp.<server>] sandbox =
    /// false` in `<home>/config.toml`; never from a project file).
    pub mcp_unconfined: Vec<String>,
    /// Servers of the user's own files the user wants in the OS sandbox as a project's are
    /// (`[mcp.<server>] sandbox = true` in `<home>/config.toml`).
    pub mcp_confined: Vec<String>,
}

impl crate::providers::ProviderEntries for Config {
    fn provider_entries(&self) -> &[ProviderSettings] {
        &self.providers
    }
}

impl Config {
    /// Read `<home>/config.toml` then `<project_dir>/reasonix.toml`; missing files are fine.
    /// The project file is trusted only when `<home>/trust.json` lists the project directory
    /// with this very file; otherwise what it would widen is dropped with a warning.
    pub fn load(paths: &Paths, project_dir: &Path) -> Result<Config, StateError> {
        Config::load_trusting(paths, project_dir, false)
    }

    /// [`Config::load`], with `trust_for_this_run` (`--trust-workspace`) trusting the project
    /// file whatever the trust list says.
    pub fn load_trusting(
        paths: &Paths,
        project_dir: &Path,
        trust_for_this_run: bool,
    ) -> Result<Config, StateError> {
        Config::load_choosing(
            paths,
            project_dir,
            trust_for_this_run,
            &SettingsChoice::default(),
        )
    }

    /// [`Config::load_trusting`], reading the `settings.json` files `settings` chooses
    /// (`reasonix run --setting-sources`, `--settings`).
    pub fn load_choosing(
        paths: &Paths,
        project_dir: &Path,
        trust_for_this_run: bool,
        settings: &SettingsChoice,
    ) -> Result<Config, StateError> {
        let mut config = Config::default();
        let mut servers = Vec::new();
        let lookup = mcp_lookup(project_dir);
        let user_mcp = paths.home.join("mcp.json");
        if let Some(text) = read_text(&user_mcp)? {
            config.add_mcp_json(
                &user_mcp,
                &text,
                mcp::SourceKind::UserMcpJson,
                &lookup,
                &mut servers,
            );
            let workspace =
                std::fs::canonicalize(project_dir).unwrap_or_else(|_| project_dir.to_path_buf());
            if let Some(local) = mcp_files::local_servers_document(&text, &workspace) {
                config.add_mcp_json(
                    &user_mcp,
                    &local,
                    mcp::SourceKind::LocalMcpJson,
                    &lookup,
                    &mut servers,
                );
            }
        }
        let user = paths.user_config();
        if let Some(text) = read_text(&user)? {
            let mut parsed = parse_file(&user, &text)?;
            if let Some(lsp) = parsed.file.lsp.take() {
                config.lsp = lsp;
            }
            for (name, settings) in std::mem::take(&mut parsed.file.mcp) {
                match settings.sandbox {
                    Some(false) => config.mcp_unconfined.push(name),
                    Some(true) => config.mcp_confined.push(name),
                    None => {}
                }
            }
            config.add_plugins(
                &user,
                &mut parsed,
                mcp::SourceKind::UserToml,
                &lookup,
                &mut servers,
            );
            parsed.mark_user_limits();
            config.merge(parsed);
            config.sources.push(user);
        }
        let project = project_dir.join("reasonix.toml");
        if let Some(text) = read_text(&project)? {
            let check = if trust_for_this_run {
                TrustCheck::Trusted
            } else {
                let sha = reasonix_core::sha256_hex(text.as_bytes());
                TrustStore::load(&paths.home)?.check_content(project_dir, Some(&sha))
            };
            let trust = match check {
                TrustCheck::Trusted => ProjectTrust::Trusted,
                TrustCheck::Unknown | TrustCheck::Changed => ProjectTrust::Untrusted,
            };
            let mut parsed = parse_file(&project, &text)?;
            if parsed.file.lsp.take().is_some() {
                parsed.warnings.push(format!(
                    "{}: [lsp] is ignored: which language servers run is set in your own {}, never by a project file",
                    project.display(),
                    paths.user_config().display()
                ));
            }
            for name in std::mem::take(&mut parsed.file.mcp).into_keys() {
                parsed.warnings.push(format!(
                    "{}: [mcp.{name}] is ignored: only your own {} can let an MCP server run outside the OS sandbox, never a project file",
                    project.display(),
                    paths.user_config().display()
                ));
            }
            config.add_plugins(
                &project,
                &mut parsed,
                mcp::SourceKind::ProjectToml,
                &lookup,
                &mut servers,
            );
            if check == TrustCheck::Changed {
                parsed.warnings.push(format!(
                    "{}: changed since you trusted this workspace, so it is treated as untrusted; review it, then run `reasonix trust` again",
                    project.display()
                ));
            }
            if trust == ProjectTrust::Untrusted {
                for name in parsed.file.plugin.keys() {
                    let before = config.plugins.get(name).cloned().unwrap_or_default();
                    config
                        .plugins_without_untrusted_project
                        .insert(name.clone(), before);
                }
                let dropped =
                    trust::restrict_untrusted(&project, &text, &mut parsed.file, &config.providers);
                if parsed.file.agent.system_prompt_file.is_none() {
                    parsed.system_prompt_file = None;
                }
                parsed.warnings.extend(dropped);
            } else {
                // A trusted project file may raise plugin limits as the user's own can.
                parsed.mark_user_limits();
            }
            config.project_trust = Some(trust);
            config.merge(parsed);
            config.sources.push(project);
        }
        let project_mcp = project_dir.join(".mcp.json");
        if let Some(text) = read_text(&project_mcp)? {
            config.project_mcp_json_sha256 = Some(reasonix_core::sha256_hex(text.as_bytes()));
            let files = pins::mcp_json_files(project_dir, &project_mcp, &text, &lookup);
            config.project_mcp_json_pins = pins::pin(project_dir, &files);
            config.add_mcp_json(
                &project_mcp,
                &text,
                mcp::SourceKind::ProjectMcpJson,
                &lookup,
                &mut servers,
            );
        }
        let project_servers: Vec<mcp::ServerSpec> = servers
            .iter()
            .filter(|s| s.origin.kind.is_project())
            .cloned()
            .collect();
        config.mcp_servers = mcp::merge(servers);
        settings_sources::apply(
            &mut config,
            paths,
            project_dir,
            trust_for_this_run,
            settings,
        )?;
        config
            .executed_files
            .extend(pins::server_files(project_dir, &project_servers));
        config.executed_files.sort();
        config.executed_files.dedup();
        Ok(config)
    }

    /// The servers of one `mcpServers` file; a broken file or entry is a warning naming it
    /// (the other servers still start).
    fn add_mcp_json(
        &mut self,
        path: &Path,
        text: &str,
        kind: mcp::SourceKind,
        lookup: &dyn Fn(&str) -> Option<String>,
        servers: &mut Vec<mcp::ServerSpec>,
    ) {
        match mcp::mcp_json_entries(path, text, kind, lookup) {
            Ok(entries) => {
                for entry in entries {
                    match entry {
                        Ok(found) => servers.push(found),
                        Err(e) => self
                            .file_warnings
                            .push(format!("{e}; that MCP server is not started")),
                    }
                }
            }
            Err(e) => self
                .file_warnings
                .push(format!("{e}; its MCP servers are not started")),
        }
    }

    fn add_plugins(
        &mut self,
        path: &Path,
        parsed: &mut ParsedFile,
        kind: mcp::SourceKind,
        lookup: &dyn Fn(&str) -> Option<String>,
        servers: &mut Vec<mcp::ServerSpec>,
    ) {
        let entries = std::mem::take(&mut parsed.file.plugins);
        for entry in mcp::plugins_entries(path, &entries, kind, lookup) {
            match entry {
                Ok(found) => servers.push(found),
                Err(e) => parsed
                    .warnings
                    .push(format!("{e}; that MCP server is not started")),
            }
        }
    }

    /// Parse one file's text; `path` is only used in messages.
    pub fn parse(path: &Path, text: &str) -> Result<Config, StateError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        Config::parse_with_env(path, text, &mcp_lookup(dir))
    }

    /// [`Config::parse`] with `${VAR}` in MCP server entries looked up in `lookup` instead of
    /// the process environment.
    pub fn parse_with_env(
        path: &Path,
        text: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, StateError> {
        let mut config = Config::default();
        let mut parsed = parse_file(path, text)?;
        let mut servers = Vec::new();
        config.add_plugins(
            path,
            &mut parsed,
            mcp::SourceKind::UserToml,
            lookup,
            &mut servers,
        );
        config.mcp_servers = mcp::merge(servers);
        config.merge(parsed);
        config.sources.push(path.to_path_buf());
        Ok(config)
    }

    fn merge(&mut self, parsed: ParsedFile) {
        let ParsedFile {
            path,
            file,
            system_prompt_file,
            warnings,
            original_keys,
        } = parsed;
        self.file_warnings.extend(warnings);
        self.original_keys.extend(original_keys);
        self.merge_agent(file.agent, system_prompt_file);
        self.merge_permissions(&path, file.permissions);
        self.merge_skills(&path, file.skills);
        for (name, definition) in file.compositions {
            if !self.compositions.iter().any(|c| c.name == name) {
                self.compositions.push(composition::Defined {
                    name,
                    file: definition,
                    source: path.clone(),
                });
            }
        }
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
            bash,
            network
        );
        // Joined, like `deny` rules: a later file can hide more, never un-hide.
        for entry in sandbox.forbid_read.into_iter().flatten() {
            let list = self.sandbox.forbid_read.get_or_insert_with(Vec::new);
            if !list.contains(&entry) {
                list.push(entry);
            }
        }
        take!(
            self.tools,
            file.tools,
            bash_timeout_seconds,
            enabled,
            mcp_startup_timeout_seconds,
            mcp_call_timeout_seconds,
            mcp_schema_budget
        );
        if file.default_model.is_some() {
            self.default_model = file.default_model;
        }
        self.merge_providers(file.providers);
        for (name, settings) in file.plugin {
            self.plugins.entry(name).or_default().overlay(settings);
        }
    }

    /// Key by key, except that `system_prompt` and `system_prompt_file` are one setting: a file
    /// that sets either replaces both.
    fn merge_agent(&mut self, agent: AgentFile, system_prompt_file: Option<PathBuf>) {
        compaction_keys::merge(&mut self.agent, &agent);
        if agent.system_prompt.is_some() || system_prompt_file.is_some() {
            self.agent.system_prompt = agent.system_prompt;
            self.agent.system_prompt_file = system_prompt_file;
        }
        if agent.temperature.is_some() {
            self.agent.temperature = agent.temperature;
        }
        if let Some(tokens) = agent.max_output_tokens {
            self.agent.max_output_tokens = (tokens > 0).then_some(tokens);
        }
        if agent.max_steps.is_some() {
            self.agent.max_steps = agent.max_steps;
        }
        if let Some(accept) = agent.accept_cut_off_answer {
            self.agent.accept_cut_off_answer = accept;
        }
        if agent.run_timeout.is_some() {
            self.agent.run_timeout = agent.run_timeout;
        }
        if agent.subagent_model.is_some() {
            self.agent.subagent_model = agent.subagent_model;
        }
        if agent.subagent_effort.is_some() {
            self.agent.subagent_effort = agent.subagent_effort;
        }
        self.agent.subagent_models.extend(agent.subagent_models);
        self.agent.subagent_efforts.extend(agent.subagent_efforts);
        if agent.mode.is_some() {
            self.agent.mode = agent.mode;
        }
        if agent.planner_model.is_some() {
            self.agent.planner_model = agent.planner_model.filter(|m| !m.trim().is_empty());
        }
        if agent.reasoning_language.is_some() {
            self.agent.reasoning_language =
                agent.reasoning_language.filter(|l| !l.trim().is_empty());
        }
        for (mine, theirs) in [
            (&mut self.agent.max_subagent_depth, agent.max_subagent_depth),
            (
                &mut self.agent.max_subagent_concurrency,
                agent.max_subagent_concurrency,
            ),
            (
                &mut self.agent.max_parallel_writers,
                agent.max_parallel_writers,
            ),
        ] {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
    }

    /// Lists are joined; a path that cannot be expanded is a warning naming the file.
    fn merge_skills(&mut self, path: &Path, incoming: SkillsFile) {
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut named = |entries: Vec<String>, key: &str| -> Vec<NamedPath> {
            let mut out = Vec::new();
            for entry in entries {
                match skill_path(dir, &entry) {
                    Ok(p) => out.push(NamedPath {
                        path: p,
                        source: path.to_path_buf(),
                    }),
                    Err(why) => self.file_warnings.push(format!(
                        "{}: [skills] {key}: {why}; that entry is ignored",
                        path.display()
                    )),
                }
            }
            out
        };
        let paths = named(incoming.paths, "paths");
        let excluded = named(incoming.excluded_paths, "excluded_paths");
        self.skills.paths.extend(paths);
        self.skills.excluded_paths.extend(excluded);
        for name in incoming.disabled_skills {
            if !self.skills.disabled_skills.contains(&name) {
                self.skills.disabled_skills.push(name);
            }
        }
        if let Some(off) = incoming.disable_implicit_invocation {
            self.skills.disable_implicit_invocation = off;
        }
        if let Some(quiet) = incoming.suppress_warnings {
            self.skills.suppress_warnings = quiet;
        }
    }

    /// `mode`, `allow_dynamic_bash` and `allow` replace; `ask` and `deny` are joined, so a
    /// project file can add restrictions but never lift one from the user file.
    fn merge_permissions(&mut self, path: &Path, incoming: PermissionsFile) {
        let p = &mut self.permissions;
        if incoming.mode.is_some() {
            p.mode = incoming.mode;
        }
        if incoming.allow_dynamic_bash.is_some() {
            p.allow_dynamic_bash = incoming.allow_dynamic_bash;
        }
        if let Some(allow) = incoming.allow {
            p.origins.retain(|(list, _), _| list != "allow");
            p.allow = allow;
            for rule in &p.allow {
                p.origins
                    .insert(("allow".into(), rule.clone()), path.to_path_buf());
            }
        }
        for (list, target, rules) in [
            ("ask", &mut p.ask, incoming.ask),
            ("deny", &mut p.deny, incoming.deny),
        ] {
            for rule in rules.into_iter().flatten() {
                p.origins
                    .entry((list.to_string(), rule.clone()))
                    .or_insert_with(|| path.to_path_buf());
                if !target.contains(&rule) {
                    target.push(rule);
                }
            }
        }
    }

    /// The rules of `[permissions]`, parsed. Rules are checked when a file is read, so this
    /// fails only for rules added to the lists afterwards; the error names the file the rule
    /// came from, the list and the index.
    pub fn permission_rules(&self) -> Result<PermissionRules, StateError> {
        let p = &self.permissions;
        let rules = |list: &str, texts: &[String]| -> Result<Vec<Rule>, StateError> {
            texts
                .iter()
                .enumerate()
                .map(|(i, text)| {
                    Rule::parse(text).map_err(|e| StateError::Format {
                        path: p
                            .origins
                            .get(&(list.to_string(), text.clone()))
                            .cloned()
                            .unwrap_or_else(|| PathBuf::from("[permissions]")),
                        message: format!("permissions.{list}[{i}]: {e}"),
                    })
                })
                .collect()
        };
        let mode = match p.mode.as_deref() {
            None => None,
            Some("ask") => Some(Decision::Ask),
            Some("allow") => Some(Decision::Allow),
            Some("deny") => Some(Decision::Deny),
            Some(other) => {
                return Err(StateError::Format {
                    path: PathBuf::from("[permissions]"),
                    message: format!("unknown permission mode `{other}`; use ask, allow or deny"),
                });
            }
        };
        Ok(PermissionRules {
            mode,
            allow: rules("allow", &p.allow)?,
            ask: rules("ask", &p.ask)?,
            deny: rules("deny", &p.deny)?,
            allow_dynamic_bash: p.allow_dynamic_bash.unwrap_or(false),
            protected: self.executed_files.clone(),
        })
    }

    /// The system prompt from `[agent]`: the contents of `system_prompt_file` when set (an
    /// unreadable file is an error naming it), else `system_prompt`. Empty text counts as unset
    /// (`None`: the built-in prompt).
    pub fn system_prompt(&self) -> Result<Option<String>, StateError> {
        let text = match &self.agent.system_prompt_file {
            Some(path) => std::fs::read_to_string(path).map_err(|e| StateError::Format {
                path: path.clone(),
                message: format!(
                    "cannot read the system prompt file set by [agent] system_prompt_file: {e}; fix the path (relative paths are resolved against the config file's directory) or remove the key"
                ),
            })?,
            None => match &self.agent.system_prompt {
                Some(text) => text.clone(),
                None => return Ok(None),
            },
        };
        Ok((!text.trim().is_empty()).then_some(text))
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

    /// Problems that do not stop Reasonix: first those found reading the files (keys this
    /// build does not know, as `file:line: unknown key `k` in [section] …`; both
    /// `system_prompt` and `system_prompt_file` in one file), then, each naming the provider:
    /// keys of `[[providers]]` entries (and their `model_overrides`) this build does not know
    /// (a typo, or a key of another version), `request_url` together with `chat_url`, and
    /// `model_overrides` for a model the entry does not list.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = self.file_warnings.clone();
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

    /// The part of the configuration the plugin registry reads.
    pub fn registry_settings(&self) -> RegistrySettings {
        RegistrySettings {
            sandbox: self.sandbox.clone(),
            tools: self.tools.clone(),
            plugins: self.plugins.clone(),
            known_secrets: Vec::new(),
            user_instruction_dirs: Vec::new(),
            untrusted_project: self.plugins_without_untrusted_project.clone(),
            executed_files: self.executed_files.clone(),
            user_commands: Default::default(),
            package_components: Vec::new(),
        }
    }
}

impl ParsedFile {
    /// This is the user's own config file: its plugin limits may raise (see
    /// [`PluginSettings::user_limits`]).
    fn mark_user_limits(&mut self) {
        for settings in self.file.plugin.values_mut() {
            settings.user_limits = settings.limits();
        }
    }
}

fn read_text(path: &Path) -> Result<Option<String>, StateError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StateError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn parse_file(path: &Path, text: &str) -> Result<ParsedFile, StateError> {
    let file: ConfigFile = toml::from_str(text).map_err(|e| StateError::Format {
        path: path.to_path_buf(),
        message: describe_toml_error(text, &e),
    })?;
    let checked = check::check(path, text)?;
    let mut warnings = checked.warnings;
    let original_keys = checked.original.map(|message| OriginalKeys {
        message,
        key: reasonix_core::sha256_hex(format!("{}\0{text}", path.display()).as_bytes()),
    });
    let system_prompt_file = match &file.agent.system_prompt_file {
        None => None,
        Some(raw) => {
            let expanded = expand_vars(raw.get_ref(), |k| std::env::var(k).ok()).map_err(|e| {
                StateError::Format {
                    path: path.to_path_buf(),
                    message: format!(
                        "{}: [agent] system_prompt_file: {e}; set the variable or give a default with `${{VAR:-default}}`",
                        check::describe_at(text, raw)
                    ),
                }
            })?;
            let dir = path.parent().unwrap_or(Path::new(""));
            Some(dir.join(expanded))
        }
    };
    if let (Some(raw), Some(_)) = (&file.agent.system_prompt_file, &file.agent.system_prompt) {
        let (line, _) = check::line_col(text, raw.span().start);
        warnings.push(format!(
            "{}:{line}: [agent] sets both `system_prompt` and `system_prompt_file`; the file is used",
            path.display()
        ));
    }
    Ok(ParsedFile {
        path: path.to_path_buf(),
        file,
        system_prompt_file,
        warnings,
        original_keys,
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

/// `${VAR}` in MCP server entries: the environment, with `REASONIX_WORKSPACE_ROOT` and
/// `CLAUDE_PROJECT_DIR` naming the workspace.
fn mcp_lookup(project_dir: &Path) -> impl Fn(&str) -> Option<String> + use<> {
    let workspace = project_dir.display().to_string();
    move |name: &str| match name {
        "REASONIX_WORKSPACE_ROOT" | "CLAUDE_PROJECT_DIR" => Some(workspace.clone()),
        _ => std::env::var(name).ok(),
    }
}

/// A `[skills]` path: `~/` is the user's home, `${VAR}` is expanded, a relative path is
/// against `dir` (the config file's directory).
fn skill_path(dir: &Path, entry: &str) -> Result<PathBuf, String> {
    let expanded = reasonix_core::settings::expand_vars(entry, |name| std::env::var(name).ok())?;
    let path = match expanded.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(|home| PathBuf::from(home).join(rest))
            .ok_or_else(|| format!("`{entry}`: HOME is not set"))?,
        None if expanded == "~" => std::env::var_os("HOME")
            .map(PathBuf::from)
            .ok_or_else(|| format!("`{entry}`: HOME is not set"))?,
        None => dir.join(expanded),
    };
    Ok(path)
}
