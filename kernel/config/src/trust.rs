//! Trust for project configuration.
//!
//! A project file (`./reasonix.toml`) comes with the repository, so whoever wrote the repository
//! wrote it. Until the user trusts the workspace, a project file may only *narrow* what the user
//! configured: settings that widen what plugins, commands or credentials can reach are dropped,
//! each with a warning naming the file, the line and the key. The user trusts a workspace with
//! `reasonix trust` (kept in `<home>/trust.json`, a user-level list, pinned to the content of
//! the project file the user trusted) or for one run with `--trust-workspace`. See
//! docs/SECURITY.md and ADR 0011.

use super::pins::{self, PinnedFile};
use super::{ConfigFile, PermissionsFile, check};
use crate::ShellSandbox;
use crate::error::StateError;
use crate::providers::{ProviderSettings, presets, resolve};
use crate::sandbox::real_path;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use toml::de::{DeTable, DeValue};

/// The file holding the trusted workspaces, under `<home>`.
pub const TRUST_FILE: &str = "trust.json";
const TRUST_VERSION: u32 = 1;

/// Whether a project file's widening settings take effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectTrust {
    /// The workspace is in `<home>/trust.json` with this very `reasonix.toml` (or trusted for
    /// this run by a flag).
    Trusted,
    Untrusted,
}

/// What the trust list says about one project directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustCheck {
    Trusted,
    /// Not listed.
    Unknown,
    /// Listed, but its `reasonix.toml` is not the one the user trusted: changed, created or
    /// removed since (by a pull, a command, anyone who can write the workspace).
    Changed,
}

/// One trusted workspace, pinned to the content of its project file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustedWorkspace {
    /// Absolute, canonical directory.
    pub path: PathBuf,
    /// sha256 of its `reasonix.toml` when trusted; `None` when it had none.
    pub config_sha256: Option<String>,
    /// sha256 of its project `settings.json` files when trusted (see [`settings_sha256`]);
    /// `None` when it had none. Their hooks run, and their widening permissions apply, only
    /// while these files are the ones the user trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings_sha256: Option<String>,
    /// The workspace files the project hooks execute when trusted (ADR 0026): a hook whose
    /// script is not among them with this content does not run. Absent in files written
    /// before: then a hook that runs a workspace file does not run until trusted again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hook_files: Vec<PinnedFile>,
}

/// `<home>/trust.json`: workspaces the user trusts, each with the project file it trusted.
/// Only the user writes it (`reasonix trust`); it lives with the rest of Reasonix's state, out
/// of every plugin's and job's reach.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustStore {
    pub version: u32,
    pub workspaces: Vec<TrustedWorkspace>,
    /// Project `.mcp.json` files whose servers the user approved (`reasonix mcp trust`), each
    /// pinned to the content approved. Independent of [`TrustStore::workspaces`]: approving a
    /// project's MCP servers does not trust its `reasonix.toml`, nor the other way round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_approvals: Vec<McpApproval>,
}

/// One approved project `.mcp.json`: its servers may start while the file holds these bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpApproval {
    /// Absolute, canonical workspace directory (the file is `<path>/.mcp.json`).
    pub path: PathBuf,
    /// sha256 of the `.mcp.json` the user approved.
    pub mcp_json_sha256: String,
    /// The workspace files its stdio servers execute, pinned when approved (ADR 0026): the
    /// approval holds only while they are these. Absent in files written before: then it
    /// holds only while the servers execute no workspace file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<PinnedFile>,
}

impl TrustStore {
    pub fn path(home: &Path) -> PathBuf {
        home.join(TRUST_FILE)
    }

    /// Read the list; a missing file is an empty list.
    pub fn load(home: &Path) -> Result<TrustStore, StateError> {
        let path = Self::path(home);
        let fix = "; fix the file or remove it (`reasonix trust` writes it again)";
        let Some(store) = crate::state_file::read_json::<TrustStore>(&path, fix)? else {
            return Ok(TrustStore {
                version: TRUST_VERSION,
                workspaces: Vec::new(),
                mcp_approvals: Vec::new(),
            });
        };
        if store.version != TRUST_VERSION {
            return Err(StateError::Format {
                path,
                message: format!(
                    "version {} is not supported (expected {TRUST_VERSION})",
                    store.version
                ),
            });
        }
        Ok(store)
    }

    /// Write the list atomically: a failed write leaves the previous file intact.
    pub fn save(&self, home: &Path) -> Result<(), StateError> {
        crate::state_file::write_json(&Self::path(home), self)
    }

    /// Whether `workspace` is listed with the `reasonix.toml` it holds now.
    pub fn check(&self, workspace: &Path) -> TrustCheck {
        let workspace = real_path(workspace);
        self.check_content(&workspace, config_sha256(&workspace).as_deref())
    }

    /// [`check`](Self::check) for `reasonix.toml` bytes already read (their sha256, `None`
    /// without a file): the answer is about the content the caller parses, not about a
    /// second read that a swap in between could make differ.
    pub fn check_content(&self, workspace: &Path, config_sha256: Option<&str>) -> TrustCheck {
        let workspace = real_path(workspace);
        match self.workspaces.iter().find(|w| w.path == workspace) {
            None => TrustCheck::Unknown,
            Some(entry) if entry.config_sha256.as_deref() == config_sha256 => TrustCheck::Trusted,
            Some(_) => TrustCheck::Changed,
        }
    }

    /// Whether `workspace` is listed with the project `settings.json` files it holds now
    /// (independent of its `reasonix.toml`: Claude Code rewrites `settings.local.json` often,
    /// and that must not untrust the TOML file).
    pub fn check_settings(&self, workspace: &Path) -> TrustCheck {
        let workspace = real_path(workspace);
        self.check_settings_content(&workspace, settings_sha256(&workspace).as_deref())
    }

    /// [`check_settings`](Self::check_settings) for settings files already read (see
    /// [`settings_sha256_of`]).
    pub fn check_settings_content(
        &self,
        workspace: &Path,
        settings_sha256: Option<&str>,
    ) -> TrustCheck {
        let workspace = real_path(workspace);
        match self.workspaces.iter().find(|w| w.path == workspace) {
            None => TrustCheck::Unknown,
            Some(entry) if entry.settings_sha256.as_deref() == settings_sha256 => {
                TrustCheck::Trusted
            }
            Some(_) => TrustCheck::Changed,
        }
    }

    /// Trust `dir` with the `reasonix.toml` it holds now; `false` when exactly that was
    /// already trusted.
    pub fn add(&mut self, dir: &Path) -> bool {
        let path = real_path(dir);
        let entry = TrustedWorkspace {
            config_sha256: config_sha256(&path),
            settings_sha256: settings_sha256(&path),
            hook_files: pins::pin(&path, &project_hook_files(&path)),
            path,
        };
        if self.workspaces.contains(&entry) {
            return false;
        }
        self.version = TRUST_VERSION;
        self.workspaces.retain(|w| w.path != entry.path);
        self.workspaces.push(entry);
        self.workspaces.sort_by(|a, b| a.path.cmp(&b.path));
        true
    }

    /// The hook files pinned when `workspace` was trusted (empty when it is not listed).
    pub fn hook_pins(&self, workspace: &Path) -> &[PinnedFile] {
        let workspace = real_path(workspace);
        self.workspaces
            .iter()
            .find(|w| w.path == workspace)
            .map_or(&[], |w| w.hook_files.as_slice())
    }

    /// Remove `dir`; `false` when it was not listed.
    pub fn remove(&mut self, dir: &Path) -> bool {
        let dir = real_path(dir);
        let before = self.workspaces.len();
        self.workspaces.retain(|w| w.path != dir);
        before != self.workspaces.len()
    }

    /// What the approvals say about `<workspace>/.mcp.json`: `Trusted` only when the user
    /// approved exactly the bytes it holds now; `Changed` when an approval exists for another
    /// content (or the file is gone); `Unknown` when this workspace was never approved.
    pub fn check_mcp(&self, workspace: &Path) -> TrustCheck {
        let workspace = real_path(workspace);
        let text = std::fs::read(workspace.join(PROJECT_MCP_JSON)).ok();
        let sha = text.as_deref().map(reasonix_core::sha256_hex);
        let pinned = project_mcp_pins(&workspace, text.as_deref());
        self.check_mcp_content(&workspace, sha.as_deref(), &pinned)
    }

    /// [`check_mcp`](Self::check_mcp) for `.mcp.json` bytes already read (their sha256,
    /// `None` without a file), so the answer is about the content the caller acts on, and the
    /// workspace files its servers execute as the caller pinned them ([`pins::pin`]).
    pub fn check_mcp_content(
        &self,
        workspace: &Path,
        mcp_json_sha256: Option<&str>,
        pinned: &[PinnedFile],
    ) -> TrustCheck {
        let workspace = real_path(workspace);
        match self.mcp_approvals.iter().find(|a| a.path == workspace) {
            None => TrustCheck::Unknown,
            Some(approval)
                if Some(approval.mcp_json_sha256.as_str()) == mcp_json_sha256
                    && approval.pinned == pinned =>
            {
                TrustCheck::Trusted
            }
            Some(_) => TrustCheck::Changed,
        }
    }

    /// Why the approval of `workspace`'s `.mcp.json` (with this content) no longer holds
    /// although the file is the one approved: the executed files that changed, one phrase
    /// each. Empty when there is no approval, the file itself changed, or nothing did.
    pub fn mcp_pin_changes(
        &self,
        workspace: &Path,
        mcp_json_sha256: &str,
        pinned: &[PinnedFile],
    ) -> Vec<String> {
        let workspace = real_path(workspace);
        self.mcp_approvals
            .iter()
            .find(|a| a.path == workspace && a.mcp_json_sha256 == mcp_json_sha256)
            .map(|a| pins::changes(&a.pinned, pinned))
            .unwrap_or_default()
    }

    /// Whether the servers of `<workspace>/.mcp.json` may start: the user approved this very
    /// file content.
    pub fn mcp_approved(&self, workspace: &Path) -> bool {
        self.check_mcp(workspace) == TrustCheck::Trusted
    }

    /// Approve `<workspace>/.mcp.json` as it is now; `Ok(false)` when exactly that was already
    /// approved. Without the file there is nothing to approve (`Err` with its path).
    pub fn approve_mcp(&mut self, workspace: &Path) -> Result<bool, PathBuf> {
        let path = real_path(workspace);
        let Ok(text) = std::fs::read(path.join(PROJECT_MCP_JSON)) else {
            return Err(path.join(PROJECT_MCP_JSON));
        };
        let pinned = project_mcp_pins(&path, Some(&text));
        Ok(self.approve_mcp_content(&path, reasonix_core::sha256_hex(&text), pinned))
    }

    /// Approve the `.mcp.json` content with this sha256 (the bytes the user was shown, or the
    /// bytes just written, not whatever the file holds a moment later) and the workspace files
    /// its servers execute as pinned then; `false` when exactly that was already approved.
    pub fn approve_mcp_content(
        &mut self,
        workspace: &Path,
        mcp_json_sha256: String,
        pinned: Vec<PinnedFile>,
    ) -> bool {
        let approval = McpApproval {
            path: real_path(workspace),
            mcp_json_sha256,
            pinned,
        };
        if self.mcp_approvals.contains(&approval) {
            return false;
        }
        self.version = TRUST_VERSION;
        self.mcp_approvals.retain(|a| a.path != approval.path);
        self.mcp_approvals.push(approval);
        self.mcp_approvals.sort_by(|a, b| a.path.cmp(&b.path));
        true
    }

    /// Whether the `.mcp.json` content with this sha256, its servers executing these pinned
    /// files, is the approved one of `workspace`.
    pub fn mcp_content_approved(
        &self,
        workspace: &Path,
        mcp_json_sha256: &str,
        pinned: &[PinnedFile],
    ) -> bool {
        self.check_mcp_content(workspace, Some(mcp_json_sha256), pinned) == TrustCheck::Trusted
    }

    /// Withdraw the approval of `<workspace>/.mcp.json`; `false` when there was none.
    pub fn unapprove_mcp(&mut self, workspace: &Path) -> bool {
        let workspace = real_path(workspace);
        let before = self.mcp_approvals.len();
        self.mcp_approvals.retain(|a| a.path != workspace);
        before != self.mcp_approvals.len()
    }
}

/// A project's MCP server file (Claude Code's convention), relative to the workspace.
pub const PROJECT_MCP_JSON: &str = ".mcp.json";

/// The workspace files the servers of a project `.mcp.json` (these bytes; `None` without a
/// file) execute, pinned ([`pins`]). `${VAR}` expands as for a session.
pub fn project_mcp_pins(workspace: &Path, text: Option<&[u8]>) -> Vec<PinnedFile> {
    let Some(text) = text.and_then(|t| std::str::from_utf8(t).ok()) else {
        return Vec::new();
    };
    let lookup = super::mcp_lookup(workspace);
    let file = workspace.join(PROJECT_MCP_JSON);
    pins::pin(
        workspace,
        &pins::mcp_json_files(workspace, &file, text, &lookup),
    )
}

/// The workspace files the hooks of the project settings files execute (the files read now;
/// one that does not parse runs no hook).
pub fn project_hook_files(workspace: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = PROJECT_SETTINGS
        .iter()
        .filter_map(|name| {
            let path = workspace.join(name);
            let text = std::fs::read_to_string(&path).ok()?;
            super::settings_json::parse(&path, &text).ok()
        })
        .flat_map(|doc| doc.hooks)
        .flat_map(|hook| pins::hook_files(workspace, hook.cwd.as_deref(), &hook.command))
        .collect();
    files.sort();
    files.dedup();
    files
}

/// sha256 of `<dir>/.mcp.json`, `None` when there is none (or it cannot be read).
pub fn mcp_json_sha256(dir: &Path) -> Option<String> {
    std::fs::read(dir.join(PROJECT_MCP_JSON))
        .ok()
        .map(|bytes| reasonix_core::sha256_hex(&bytes))
}

/// sha256 of `<dir>/reasonix.toml`, `None` when there is none (or it cannot be read: then
/// nothing of it applies anyway).
pub fn config_sha256(dir: &Path) -> Option<String> {
    std::fs::read(dir.join("reasonix.toml"))
        .ok()
        .map(|bytes| reasonix_core::sha256_hex(&bytes))
}

/// The project settings files whose hooks and widening permissions need trust, relative to
/// the project directory, in the order they are read.
pub const PROJECT_SETTINGS: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".reasonix/settings.json",
];

/// sha256 over the project settings files (name and content of each present one); `None`
/// when there is none.
pub fn settings_sha256(dir: &Path) -> Option<String> {
    let files: Vec<(&str, Vec<u8>)> = PROJECT_SETTINGS
        .iter()
        .filter_map(|name| Some((*name, std::fs::read(dir.join(name)).ok()?)))
        .collect();
    settings_sha256_of(files.iter().map(|(name, bytes)| (*name, bytes.as_slice())))
}

/// [`settings_sha256`] over files already read: (name in [`PROJECT_SETTINGS`], content) of
/// each present one, in that order.
pub fn settings_sha256_of<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Option<String> {
    let mut all = Vec::new();
    for (name, bytes) in files {
        all.extend_from_slice(name.as_bytes());
        all.push(0);
        all.extend_from_slice(format!("{}", bytes.len()).as_bytes());
        all.push(0);
        all.extend_from_slice(bytes);
    }
    (!all.is_empty()).then(|| reasonix_core::sha256_hex(&all))
}

/// What the user configured at user level that a project may reuse without trust: which
/// credential variable may go to which origin.
#[derive(Debug, Clone, Default)]
pub(super) struct CredentialBindings {
    /// (variable, `scheme://host:port`).
    pairs: Vec<(String, String)>,
}

impl CredentialBindings {
    /// Built-in presets (part of the binary the user installed) and the user file's providers.
    pub(super) fn from_user(user_providers: &[ProviderSettings]) -> CredentialBindings {
        let mut pairs = Vec::new();
        for preset in presets::presets() {
            if let (Some(var), Ok(origin)) = (
                &preset.api_key_env,
                resolve::parse_http_url(&preset.base_url),
            ) {
                pairs.push((var.clone(), origin.to_string()));
            }
        }
        for entry in user_providers {
            if let Some((Some(var), origins)) = credential_route(entry) {
                for origin in origins {
                    pairs.push((var.clone(), origin));
                }
            }
        }
        CredentialBindings { pairs }
    }

    fn allows(&self, var: &str, origin: &str) -> bool {
        self.pairs.iter().any(|(v, o)| v == var && o == origin)
    }
}

/// The credential variable an entry sends (after its preset) and every origin it may send
/// requests to; `None` when the entry does not resolve (its error is reported elsewhere).
fn credential_route(entry: &ProviderSettings) -> Option<(Option<String>, Vec<String>)> {
    let config = super::Config {
        providers: vec![entry.clone()],
        ..Default::default()
    };
    let resolved =
        resolve::resolve_providers_with(&config, |name| std::env::var(name).ok()).ok()?;
    let provider = resolved.into_iter().next()?;
    let mut origins = provider.origins();
    for url in [&entry.models_url, &entry.balance_url]
        .into_iter()
        .flatten()
    {
        if let Ok(origin) = resolve::parse_http_url(url) {
            origins.push(origin.to_string());
        }
    }
    Some((provider.api_key_env.clone(), origins))
}

/// Whether any string of a provider entry expands a variable: from an untrusted project that
/// could copy any credential of the environment into a header or a URL.
fn expands_variables(entry: &ProviderSettings) -> Option<&'static str> {
    let urls = [
        ("base_url", &entry.base_url),
        ("request_url", &entry.request_url),
        ("chat_url", &entry.chat_url),
        ("models_url", &entry.models_url),
        ("balance_url", &entry.balance_url),
    ];
    for (key, value) in urls {
        if value.as_deref().is_some_and(|v| v.contains("${")) {
            return Some(key);
        }
    }
    if entry.headers.values().any(|v| v.contains("${")) {
        return Some("headers");
    }
    None
}

/// Where keys of one file sit, for messages.
struct Locator<'a> {
    file: String,
    text: &'a str,
    doc: Option<toml::Spanned<DeTable<'a>>>,
}

impl<'a> Locator<'a> {
    fn new(path: &Path, text: &'a str) -> Locator<'a> {
        Locator {
            file: path.display().to_string(),
            text,
            doc: DeTable::parse(text).ok(),
        }
    }

    /// `file:line` of `section.key` (or of the section when the key is not found).
    fn at(&self, section: &[&str], key: &str) -> String {
        let mut line = None;
        if let Some(doc) = &self.doc {
            let mut table = Some(doc.get_ref());
            for name in section {
                table = table
                    .and_then(|t| t.get(*name))
                    .and_then(|v| v.get_ref().as_table());
            }
            if let Some(table) = table {
                line = table
                    .get_key_value(key)
                    .map(|(k, _)| check::line_col(self.text, k.span().start).0);
            }
        }
        match line {
            Some(line) => format!("{}:{line}", self.file),
            None => self.file.clone(),
        }
    }

    /// `file:line` of the `index`-th `[[providers]]` entry.
    fn provider(&self, index: usize) -> String {
        let line = self.doc.as_ref().and_then(|doc| {
            let item = doc
                .get_ref()
                .get("providers")?
                .get_ref()
                .as_array()?
                .get(index)?;
            match item.get_ref() {
                DeValue::Table(_) => Some(check::line_col(self.text, item.span().start).0),
                _ => None,
            }
        });
        match line {
            Some(line) => format!("{}:{line}", self.file),
            None => self.file.clone(),
        }
    }
}

/// Drop what an untrusted project file may not set; one warning per dropped setting.
/// `user_providers` are the providers configured before this file (user level).
pub(super) fn restrict_untrusted(
    path: &Path,
    text: &str,
    file: &mut ConfigFile,
    user_providers: &[ProviderSettings],
) -> Vec<String> {
    let at = Locator::new(path, text);
    let mut warnings = Vec::new();
    let mut drop = |location: String, what: &str, why: &str| {
        warnings.push(format!(
            "{location}: {what} is ignored: {why}, and this workspace is not trusted. \
             Trust it with `reasonix trust` (or `--trust-workspace` for one run) if you trust \
             everyone who can change this repository"
        ));
    };

    let sandbox = &mut file.sandbox;
    if sandbox.workspace_root.take().is_some() {
        drop(
            at.at(&["sandbox"], "workspace_root"),
            "[sandbox] workspace_root",
            "it moves the workspace plugins and commands may write",
        );
    }
    if sandbox.allow_write.take().is_some_and(|v| !v.is_empty()) {
        drop(
            at.at(&["sandbox"], "allow_write"),
            "[sandbox] allow_write",
            "it adds writable roots",
        );
    }
    if sandbox.bash == Some(ShellSandbox::Off) {
        sandbox.bash = None;
        drop(
            at.at(&["sandbox"], "bash"),
            "[sandbox] bash = \"off\"",
            "it runs commands outside the OS sandbox",
        );
    }
    if sandbox.network == Some(true) {
        sandbox.network = None;
        drop(
            at.at(&["sandbox"], "network"),
            "[sandbox] network = true",
            "it lets commands reach the network",
        );
    }

    restrict_permissions(&mut file.permissions, &at, &mut drop);

    for (name, settings) in &mut file.plugin {
        let section = ["plugin", name.as_str()];
        if settings.enabled == Some(true) {
            settings.enabled = None;
            drop(
                at.at(&section, "enabled"),
                &format!("[plugin.{name}] enabled = true"),
                "it can turn on a plugin you disabled",
            );
        }
        if settings.prefer == Some(true) {
            settings.prefer = None;
            drop(
                at.at(&section, "prefer"),
                &format!("[plugin.{name}] prefer = true"),
                "it lets a plugin take over another plugin's tools",
            );
        }
        // `memory_mib` and `call_timeout_ms` need nothing here: from a project file they can
        // only lower a limit unless the file is trusted (`PluginSettings::user_limits`).
    }

    if let Some(prompt_file) = &file.agent.system_prompt_file {
        let dir = path.parent().unwrap_or(Path::new(""));
        let target = dir.join(prompt_file.get_ref());
        let project = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        if let Ok(real) = std::fs::canonicalize(&target)
            && !real.starts_with(&project)
        {
            file.agent.system_prompt_file = None;
            drop(
                at.at(&["agent"], "system_prompt_file"),
                "[agent] system_prompt_file",
                &format!(
                    "it names {}, outside the project, whose text would be sent to the model provider",
                    real.display()
                ),
            );
        }
    }

    let bindings = CredentialBindings::from_user(user_providers);
    let mut index = 0;
    file.providers.retain(|entry| {
        let location = at.provider(index);
        index += 1;
        let name = match entry.effective_name() {
            "" => format!("#{index}"),
            name => format!("`{name}`"),
        };
        if let Some(key) = expands_variables(entry) {
            drop(
                location,
                &format!("[[providers]] {name}"),
                &format!(
                    "its `{key}` expands environment variables, which could carry a credential to its endpoint"
                ),
            );
            return false;
        }
        let Some((Some(var), origins)) = credential_route(entry) else {
            return true;
        };
        match origins.iter().find(|o| !bindings.allows(&var, o)) {
            None => true,
            Some(origin) => {
                drop(
                    location,
                    &format!("[[providers]] {name}"),
                    &format!(
                        "it would send the key in `{var}` to {origin}, an endpoint your user configuration does not pair with that key"
                    ),
                );
                false
            }
        }
    });
    warnings
}

fn restrict_permissions(
    permissions: &mut PermissionsFile,
    at: &Locator<'_>,
    drop: &mut impl FnMut(String, &str, &str),
) {
    if permissions.allow.take().is_some_and(|v| !v.is_empty()) {
        drop(
            at.at(&["permissions"], "allow"),
            "[permissions] allow",
            "its rules run tools without asking",
        );
    }
    if permissions.mode.as_deref() == Some("allow") {
        permissions.mode = None;
        drop(
            at.at(&["permissions"], "mode"),
            "[permissions] mode = \"allow\"",
            "it runs writers and commands without asking",
        );
    }
    if permissions.allow_dynamic_bash == Some(true) {
        permissions.allow_dynamic_bash = None;
        drop(
            at.at(&["permissions"], "allow_dynamic_bash"),
            "[permissions] allow_dynamic_bash = true",
            "it lets grants cover commands that build code at run time",
        );
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_for_one_directory_and_the_project_file_it_held() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let mut store = TrustStore::load(home.path()).unwrap();
        assert_eq!(store.check(ws.path()), TrustCheck::Unknown);
        std::fs::write(
            ws.path().join("reasonix.toml"),
            "[sandbox]\nnetwork = true\n",
        )
        .unwrap();
        assert!(store.add(ws.path()));
        assert!(!store.add(ws.path()), "the same content twice");
        store.save(home.path()).unwrap();
        let mut store = TrustStore::load(home.path()).unwrap();
        assert_eq!(store.check(ws.path()), TrustCheck::Trusted);
        assert_eq!(store.check(&ws.path().join("sub")), TrustCheck::Unknown);
        // Changed, removed, or created where there was none: no longer the trusted file.
        std::fs::write(
            ws.path().join("reasonix.toml"),
            "[sandbox]\nbash = \"off\"\n",
        )
        .unwrap();
        assert_eq!(store.check(ws.path()), TrustCheck::Changed);
        std::fs::remove_file(ws.path().join("reasonix.toml")).unwrap();
        assert_eq!(store.check(ws.path()), TrustCheck::Changed);
        assert!(store.add(ws.path()));
        assert_eq!(store.check(ws.path()), TrustCheck::Trusted);
        std::fs::write(ws.path().join("reasonix.toml"), "").unwrap();
        assert_eq!(store.check(ws.path()), TrustCheck::Changed);
        assert!(store.remove(ws.path()));
        assert_eq!(store.check(ws.path()), TrustCheck::Unknown);
        assert_eq!(store.workspaces.len(), 0);
    }

    #[test]
    fn trust_is_judged_on_the_bytes_the_caller_read_not_a_second_read() {
        let ws = tempfile::tempdir().unwrap();
        let trusted = "[sandbox]\nnetwork = false\n";
        std::fs::write(ws.path().join("reasonix.toml"), trusted).unwrap();
        std::fs::create_dir_all(ws.path().join(".claude")).unwrap();
        std::fs::write(ws.path().join(".claude/settings.json"), "{}").unwrap();
        let mut store = TrustStore::default();
        assert!(store.add(ws.path()));
        // Swapped after the caller read (and parsed) the trusted bytes: still those bytes.
        std::fs::write(
            ws.path().join("reasonix.toml"),
            "[sandbox]\nbash = \"off\"\n",
        )
        .unwrap();
        std::fs::write(ws.path().join(".claude/settings.json"), "{\"hooks\": {}}").unwrap();
        let read = reasonix_core::sha256_hex(trusted.as_bytes());
        assert_eq!(
            store.check_content(ws.path(), Some(&read)),
            TrustCheck::Trusted
        );
        assert_eq!(store.check(ws.path()), TrustCheck::Changed);
        let swapped = reasonix_core::sha256_hex(b"[sandbox]\nbash = \"off\"\n");
        assert_eq!(
            store.check_content(ws.path(), Some(&swapped)),
            TrustCheck::Changed
        );
        let settings_read = settings_sha256_of([(".claude/settings.json", b"{}".as_slice())]);
        assert_eq!(
            store.check_settings_content(ws.path(), settings_read.as_deref()),
            TrustCheck::Trusted
        );
        assert_eq!(store.check_settings(ws.path()), TrustCheck::Changed);
    }

    #[test]
    fn mcp_approval_is_pinned_to_the_content_of_the_file() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let file = ws.path().join(PROJECT_MCP_JSON);
        let mut store = TrustStore::load(home.path()).unwrap();
        assert_eq!(store.check_mcp(ws.path()), TrustCheck::Unknown);
        assert_eq!(store.approve_mcp(ws.path()), Err(real_path(&file)));
        std::fs::write(&file, r#"{"mcpServers": {"a": {"command": "x"}}}"#).unwrap();
        assert!(!store.mcp_approved(ws.path()));
        assert_eq!(store.approve_mcp(ws.path()), Ok(true));
        assert_eq!(store.approve_mcp(ws.path()), Ok(false));
        store.save(home.path()).unwrap();
        let mut store = TrustStore::load(home.path()).unwrap();
        assert!(store.mcp_approved(ws.path()));
        // Approving the servers does not trust the workspace's reasonix.toml.
        assert_eq!(store.check(ws.path()), TrustCheck::Unknown);
        assert!(!store.mcp_approved(&ws.path().join("sub")));
        std::fs::write(&file, r#"{"mcpServers": {"a": {"command": "y"}}}"#).unwrap();
        assert!(!store.mcp_approved(ws.path()));
        assert_eq!(store.check_mcp(ws.path()), TrustCheck::Changed);
        std::fs::remove_file(&file).unwrap();
        assert_eq!(store.check_mcp(ws.path()), TrustCheck::Changed);
        assert!(store.unapprove_mcp(ws.path()));
        assert!(!store.unapprove_mcp(ws.path()));
        assert_eq!(store.check_mcp(ws.path()), TrustCheck::Unknown);
    }

    #[test]
    fn an_approval_pins_the_content_given_not_the_file_a_moment_later() {
        let ws = tempfile::tempdir().unwrap();
        let shown = br#"{"mcpServers": {"a": {"command": "x"}}}"#;
        std::fs::write(ws.path().join(PROJECT_MCP_JSON), b"{\"swapped\": 1}").unwrap();
        let mut store = TrustStore::default();
        assert!(store.approve_mcp_content(ws.path(), reasonix_core::sha256_hex(shown), Vec::new()));
        assert!(!store.mcp_approved(ws.path()));
        assert!(store.mcp_content_approved(ws.path(), &reasonix_core::sha256_hex(shown), &[]));
        std::fs::write(ws.path().join(PROJECT_MCP_JSON), shown).unwrap();
        assert!(store.mcp_approved(ws.path()));
    }

    #[test]
    fn a_trust_file_without_mcp_approvals_reads_and_writes_as_before() {
        let home = tempfile::tempdir().unwrap();
        let old = r#"{"version": 1, "workspaces": [{"path": "/w", "config_sha256": null}]}"#;
        std::fs::write(home.path().join(TRUST_FILE), old).unwrap();
        let store = TrustStore::load(home.path()).unwrap();
        assert!(store.mcp_approvals.is_empty());
        store.save(home.path()).unwrap();
        let text = std::fs::read_to_string(home.path().join(TRUST_FILE)).unwrap();
        assert!(!text.contains("mcp_approvals"), "{text}");
        assert!(text.contains("\"version\": 1"), "{text}");
    }

    #[test]
    fn a_damaged_trust_file_is_named_and_trusts_nothing() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join(TRUST_FILE), "{\"version\": 1, ").unwrap();
        let err = TrustStore::load(home.path()).unwrap_err().to_string();
        assert!(
            err.contains("trust.json") && err.contains("line 1"),
            "{err}"
        );
    }
}
