//! Loading one component: header checks, compile (or cache hit), WIT version check, linking,
//! probing which roles it exports, and asking it to describe itself.

use crate::cache::Provenance;
use crate::capability::{Capabilities, LimitValues, Limits, WorkspaceAccess};
use crate::error::{CallError, LoadError};
use crate::host::bindings::{interceptor, plugin, provider, tool};
use crate::host::state::{PluginState, ProgressSink, StoreSpec};
use crate::host::{ComponentHost, classify_trap};
use crate::sandbox::{SandboxConfig, SandboxPolicy};
use crate::types::{ProviderKind, Subscription, ToolSpec, canonical_json};
use crate::{SUPPORTED_WIT_VERSIONS, WIT_PACKAGE, wasm_format};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wasmtime::Store;
use wasmtime::component::{Component, Instance, InstancePre};

pub mod validate;

/// Limits for `describe` and the listing calls at load time, before any grant applies.
const DESCRIBE_LIMITS: Limits = Limits {
    memory_mib: 128,
    call_timeout_ms: 5_000,
    host: crate::capability::HostLimits::DEFAULT,
};

/// Where a component came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Embedded in the binary.
    Builtin(String),
    /// A file under `<home>/plugins/`.
    Installed(PathBuf),
    /// A file of an installed package (`<home>/packages/<package>/…`).
    Package { package: String, path: PathBuf },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Builtin(name) => write!(f, "built-in component `{name}`"),
            Origin::Installed(path) => write!(f, "{}", path.display()),
            Origin::Package { package, path } => {
                write!(f, "{} (package `{package}`)", path.display())
            }
        }
    }
}

impl Origin {
    pub fn is_builtin(&self) -> bool {
        matches!(self, Origin::Builtin(_))
    }

    /// The file it was loaded from (none for a built-in).
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Origin::Builtin(_) => None,
            Origin::Installed(path) | Origin::Package { path, .. } => Some(path),
        }
    }
}

/// A plugin's self-description.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PluginInfo {
    pub name: String,
    pub version: String,
    pub description: String,
    pub requested: Capabilities,
    pub requested_memory_mib: Option<u64>,
    pub requested_call_timeout_ms: Option<u64>,
}

impl PluginInfo {
    /// The per-call limits the plugin asks for.
    pub fn requested_limits(&self) -> LimitValues {
        LimitValues {
            memory_mib: self.requested_memory_mib,
            call_timeout_ms: self.requested_call_timeout_ms,
        }
    }
}

/// Which roles a component's exports serve.
#[derive(Clone, Default)]
pub struct Roles {
    pub tool: Option<tool::GuestIndices>,
    pub provider: Option<provider::GuestIndices>,
    pub interceptor: Option<interceptor::GuestIndices>,
}

impl Roles {
    /// Only the roles `d` lists something for. One SDK export covers every role, so an exported
    /// interface with an empty list is common and means the role is not served.
    fn served(self, d: &Description) -> Roles {
        Roles {
            tool: self.tool.filter(|_| !d.tools.is_empty()),
            provider: self.provider.filter(|_| !d.provider_kinds.is_empty()),
            interceptor: self
                .interceptor
                .filter(|_| !d.interception_points.is_empty() || !d.slots.is_empty()),
        }
    }
}

/// A compiled, linked and described component, not yet granted anything.
pub struct Described {
    pub origin: Origin,
    pub sha256: String,
    pub provenance: Provenance,
    pub info: PluginInfo,
    pub tools: Vec<ToolSpec>,
    pub provider_kinds: Vec<ProviderKind>,
    pub interception_points: Vec<Subscription>,
    /// Replacement slots the interceptor role owns.
    pub slots: Vec<String>,
    pub roles: Roles,
    /// The self-description came from the cache or the build (the component was not
    /// instantiated).
    pub description_cached: bool,
    pre: InstancePre<PluginState>,
}

/// What `describe` and the listing calls returned, as kept in the artifact cache.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Description {
    pub info: PluginInfo,
    pub tools: Vec<ToolSpec>,
    pub provider_kinds: Vec<ProviderKind>,
    pub interception_points: Vec<Subscription>,
    #[serde(default)]
    pub slots: Vec<String>,
}

/// What one store is built from, beyond the plugin's own settings.
struct StoreParts<'a> {
    workspace: Option<&'a Path>,
    sandbox: Option<Arc<SandboxPolicy>>,
    progress: Option<ProgressSink>,
    endpoint: Option<crate::host::http::Endpoint>,
    may_write_protected: bool,
    markdown_roots: &'a [PathBuf],
}

/// A plugin ready to serve calls with its effective capabilities and limits.
pub struct LoadedPlugin {
    pub described: Described,
    pub granted: Capabilities,
    pub limits: Limits,
    config: Arc<serde_json::Map<String, serde_json::Value>>,
    sandbox: Arc<SandboxConfig>,
    host: Arc<ComponentHost>,
    /// The policy of the workspace used last: resolved once, not on every call (and its
    /// stable `Arc` lets the filesystem guard find its plan by identity).
    last_policy: std::sync::Mutex<Option<(PathBuf, Arc<SandboxPolicy>)>>,
    /// Built-ins only: values the host gives to environment names the plugin requested and
    /// that are not process variables (`REASONIX_KNOWN_SECRETS`, `REASONIX_USER_DIRS`).
    host_env: Vec<(String, String)>,
    /// Built-ins only: directories outside the workspace its interceptor calls may read,
    /// read-only and Markdown files only (see ADR 0019).
    markdown_roots: Vec<PathBuf>,
    /// Built-ins only: the user's own command lines, run with the user's confinement when
    /// this plugin starts them (ADR 0028).
    user_commands: Option<Arc<reasonix_core::user_commands::UserCommands>>,
}

impl fmt::Debug for LoadedPlugin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedPlugin")
            .field("name", &self.described.info.name)
            .field("origin", &self.described.origin)
            .finish_non_exhaustive()
    }
}

/// Compile (or fetch from cache), check and describe a component. A component whose
/// description failed before (same bytes, same Reasonix) is refused from the remembered
/// failure without being run again.
pub fn describe(
    host: &ComponentHost,
    origin: Origin,
    bytes: &[u8],
    sha256: String,
) -> Result<Described, LoadError> {
    describe_from(host, origin, bytes, sha256, None)
}

/// [`describe`] for a built-in: its artifact and description come from the build
/// ([`crate::builtin::Precompiled`]) when the cache does not have them yet, so nothing is
/// compiled or instantiated.
pub fn describe_builtin(
    host: &ComponentHost,
    origin: Origin,
    builtin: &crate::builtin::BuiltinComponent,
) -> Result<Described, LoadError> {
    describe_from(
        host,
        origin,
        builtin.bytes,
        builtin.sha256.to_string(),
        builtin.precompiled.as_ref(),
    )
}

fn describe_from(
    host: &ComponentHost,
    origin: Origin,
    bytes: &[u8],
    sha256: String,
    precompiled: Option<&crate::builtin::Precompiled>,
) -> Result<Described, LoadError> {
    if let Some(message) = host.cache().load_failure(&sha256) {
        return Err(LoadError::RememberedFailure {
            origin: origin.to_string(),
            message,
        });
    }
    let result = describe_now(host, origin, bytes, &sha256, precompiled);
    match &result {
        Err(LoadError::Describe { source, .. }) => {
            host.cache()
                .store_failure(&sha256, &format!("failed to describe itself: {source}"));
        }
        Err(LoadError::BadMetadata { message, .. }) => host.cache().store_failure(&sha256, message),
        _ => {}
    }
    result
}

/// [`describe`], trying again even when the same bytes failed before (an explicit install or
/// update).
pub fn describe_again(
    host: &ComponentHost,
    origin: Origin,
    bytes: &[u8],
    sha256: String,
) -> Result<Described, LoadError> {
    host.cache().forget_failure(&sha256);
    describe(host, origin, bytes, sha256)
}

fn describe_now(
    host: &ComponentHost,
    origin: Origin,
    bytes: &[u8],
    sha256: &str,
    precompiled: Option<&crate::builtin::Precompiled>,
) -> Result<Described, LoadError> {
    let sha256 = sha256.to_string();
    let label = origin.to_string();
    if let Some(reason) = wasm_format::not_a_component_reason(bytes) {
        return Err(LoadError::NotAComponent {
            origin: label,
            reason,
        });
    }
    let embedded = precompiled
        .filter(|p| p.engine_tag == host.cache().engine_tag())
        .map(|p| p.artifact);
    let (component, provenance) = host
        .cache()
        .load_or_compile(host.engine(), &sha256, bytes, embedded, &|| {
            host.notify_compile(&label)
        })
        .map_err(|e| compile_error(bytes, &label, e))?;
    let linked = link(host, &component, &label)?;
    // The description the build made from these bytes is this crate's own output; it is
    // checked like a cached one all the same.
    let known = precompiled
        .and_then(|p| serde_json::from_str::<Description>(p.description).ok())
        .or_else(|| host.cache().load_description::<Description>(&sha256));
    if let Some(cached) = known
        && validate_name(&cached.info.name).is_ok()
        && validate::check(&cached).is_ok()
        && cached.info.requested.validate_request().is_ok()
    {
        let roles = linked.roles.served(&cached);
        return Ok(Described {
            origin,
            sha256,
            provenance,
            info: cached.info,
            tools: cached.tools,
            provider_kinds: cached.provider_kinds,
            interception_points: cached.interception_points,
            slots: cached.slots,
            roles,
            description_cached: true,
            pre: linked.pre,
        });
    }
    let description = call_describe(host, &origin, &label, &linked)?;
    host.cache().store_description(&sha256, &description);
    let roles = linked.roles.served(&description);
    Ok(Described {
        origin,
        sha256,
        provenance,
        info: description.info,
        tools: description.tools,
        provider_kinds: description.provider_kinds,
        interception_points: description.interception_points,
        slots: description.slots,
        roles,
        description_cached: false,
        pre: linked.pre,
    })
}

/// What the build script embeds for a built-in: the compiled artifact
/// (`Component::serialize` under this engine) and the description as JSON.
pub fn precompile(
    host: &ComponentHost,
    name: &str,
    bytes: &[u8],
) -> Result<(Vec<u8>, String), LoadError> {
    let origin = Origin::Builtin(name.to_string());
    let label = origin.to_string();
    let component =
        Component::new(host.engine(), bytes).map_err(|e| compile_error(bytes, &label, e))?;
    let artifact = component.serialize().map_err(|e| LoadError::Invalid {
        origin: label.clone(),
        message: format!("cannot serialize the compiled component: {e:#}"),
    })?;
    let linked = link(host, &component, &label)?;
    let description = call_describe(host, &origin, &label, &linked)?;
    let json = serde_json::to_string(&description).map_err(|e| LoadError::BadMetadata {
        origin: label,
        message: format!("cannot encode the description: {e}"),
    })?;
    Ok((artifact, json))
}

fn compile_error(bytes: &[u8], label: &str, e: wasmtime::Error) -> LoadError {
    match wasm_format::async_abi_reason(bytes) {
        Some(reason) => LoadError::NotAComponent {
            origin: label.to_string(),
            reason,
        },
        None => LoadError::Invalid {
            origin: label.to_string(),
            message: format!("{e:#}"),
        },
    }
}

/// A component checked and linked, with the roles its exports could serve.
struct Linked {
    pre: InstancePre<PluginState>,
    plugin_indices: plugin::GuestIndices,
    roles: Roles,
}

fn link(host: &ComponentHost, component: &Component, label: &str) -> Result<Linked, LoadError> {
    let label = label.to_string();
    check_wit_version(host, component, &label)?;
    let pre = host
        .linker()
        .instantiate_pre(component)
        .map_err(|e| LoadError::Link {
            origin: label.clone(),
            message: format!("needs an import this Reasonix does not provide: {e:#}"),
        })?;
    let plugin_indices = plugin::GuestIndices::new(&pre).map_err(|_| LoadError::NotAComponent {
        origin: label.clone(),
        reason: format!("does not export `{WIT_PACKAGE}/plugin`: not a Reasonix plugin"),
    })?;
    let roles = Roles {
        tool: tool::GuestIndices::new(&pre).ok(),
        provider: provider::GuestIndices::new(&pre).ok(),
        interceptor: interceptor::GuestIndices::new(&pre).ok(),
    };
    Ok(Linked {
        pre,
        plugin_indices,
        roles,
    })
}

/// Instantiate the component and ask it what it is and serves, within [`DESCRIBE_LIMITS`].
fn call_describe(
    host: &ComponentHost,
    origin: &Origin,
    label: &str,
    linked: &Linked,
) -> Result<Description, LoadError> {
    let label = label.to_string();
    let Linked {
        pre,
        plugin_indices,
        roles,
    } = linked;
    let describe_err = |source: CallError| LoadError::Describe {
        origin: label.clone(),
        source,
    };
    let state = PluginState::new(StoreSpec {
        plugin: Arc::from(label.as_str()),
        capabilities: &Capabilities::default(),
        workspace: None,
        sandbox: None,
        memory_mib: DESCRIBE_LIMITS.memory_mib,
        host_limits: DESCRIBE_LIMITS.host,
        config: Arc::default(),
        log: host.log_sink(),
        progress: None,
        endpoint: None,
        protected_read_only: !origin.is_builtin(),
        host_env: &[],
        markdown_roots: &[],
        user_commands: None,
    })
    .map_err(|e| describe_err(CallError::Unknown(format!("{e:#}"))))?;
    let mut store = host.new_store(state, DESCRIBE_LIMITS.call_timeout_ms);
    let run = |store: &mut Store<PluginState>| -> wasmtime::Result<_> {
        let instance = pre.instantiate(&mut *store)?;
        let info = plugin_indices
            .load(&mut *store, &instance)?
            .call_describe(&mut *store)?;
        let tools = match &roles.tool {
            Some(ix) => ix
                .load(&mut *store, &instance)?
                .call_list_tools(&mut *store)?,
            None => Vec::new(),
        };
        let kinds = match &roles.provider {
            Some(ix) => ix
                .load(&mut *store, &instance)?
                .call_list_kinds(&mut *store)?,
            None => Vec::new(),
        };
        let (points, slots) = match &roles.interceptor {
            Some(ix) => {
                let guest = ix.load(&mut *store, &instance)?;
                (
                    guest.call_points(&mut *store)?,
                    guest.call_slots(&mut *store)?,
                )
            }
            None => (Vec::new(), Vec::new()),
        };
        Ok((info, tools, kinds, points, slots))
    };
    let (info, tools, kinds, points, slots) = run(&mut store).map_err(|e| {
        describe_err(classify_trap(
            e,
            &store,
            DESCRIBE_LIMITS.call_timeout_ms,
            DESCRIBE_LIMITS.memory_mib,
        ))
    })?;

    let info = convert_info(info);
    validate_name(&info.name).map_err(|message| LoadError::BadMetadata {
        origin: label.clone(),
        message,
    })?;
    info.requested
        .validate_request()
        .map_err(|message| LoadError::BadMetadata {
            origin: label.clone(),
            message: format!("plugin `{}`: {message}", info.name),
        })?;
    let tools = tools
        .into_iter()
        .map(|t| {
            let parameters = canonical_json(&t.parameters).map_err(|e| LoadError::BadMetadata {
                origin: label.clone(),
                message: format!(
                    "tool `{}`: parameters are not valid JSON: {e}",
                    crate::terminal::shown(&t.name)
                ),
            })?;
            Ok(ToolSpec {
                name: t.name,
                description: t.description,
                parameters,
                read_only: t.read_only,
                guidance: t.guidance,
            })
        })
        .collect::<Result<Vec<_>, LoadError>>()?;
    let provider_kinds = kinds
        .into_iter()
        .map(|k| ProviderKind {
            name: k.name,
            description: k.description,
            credential_header: k.credential_header,
            credential_prefix: k.credential_prefix,
        })
        .collect();
    let interception_points = points
        .into_iter()
        .map(|s| Subscription {
            point: s.point,
            priority: s.priority,
        })
        .collect();
    let description = Description {
        info,
        tools,
        provider_kinds,
        interception_points,
        slots,
    };
    validate::check(&description).map_err(|message| LoadError::BadMetadata {
        origin: label.clone(),
        message: format!("plugin `{}`: {message}", description.info.name),
    })?;
    Ok(description)
}

fn check_wit_version(
    host: &ComponentHost,
    component: &Component,
    label: &str,
) -> Result<(), LoadError> {
    let ty = component.component_type();
    let engine = host.engine();
    let names = ty
        .exports(engine)
        .map(|(name, _)| name.to_string())
        .chain(ty.imports(engine).map(|(name, _)| name.to_string()));
    for name in names {
        let Some(rest) = name.strip_prefix(&format!("{WIT_PACKAGE}/")) else {
            continue;
        };
        let version = rest
            .split_once('@')
            .map(|(_, v)| v)
            .unwrap_or("(unversioned)");
        if !SUPPORTED_WIT_VERSIONS.contains(&version) {
            return Err(LoadError::UnsupportedVersion {
                origin: label.to_string(),
                package: WIT_PACKAGE.to_string(),
                found: version.to_string(),
                supported: SUPPORTED_WIT_VERSIONS.join(", "),
            });
        }
    }
    Ok(())
}

fn convert_info(info: plugin::PluginInfo) -> PluginInfo {
    let caps = info.capabilities;
    PluginInfo {
        name: info.name,
        version: info.version,
        description: info.description,
        requested: Capabilities {
            workspace: match caps.workspace {
                plugin::WorkspaceAccess::None => WorkspaceAccess::None,
                plugin::WorkspaceAccess::Read => WorkspaceAccess::Read,
                plugin::WorkspaceAccess::ReadWrite => WorkspaceAccess::ReadWrite,
            },
            network: caps.network,
            env: caps.env,
            process: caps.process,
        },
        requested_memory_mib: info.limits.memory_mib.map(u64::from),
        requested_call_timeout_ms: info.limits.call_timeout_ms.map(u64::from),
    }
}

/// Plugin names become config keys and file names: keep them tame.
pub fn validate_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && name.starts_with(|c: char| c.is_ascii_lowercase());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "plugin name `{name}` is invalid: use 1–64 lowercase letters, digits, `-` or `_`, starting with a letter"
        ))
    }
}

impl LoadedPlugin {
    pub fn new(
        described: Described,
        granted: Capabilities,
        limits: Limits,
        config: serde_json::Map<String, serde_json::Value>,
        sandbox: Arc<SandboxConfig>,
        host: Arc<ComponentHost>,
    ) -> LoadedPlugin {
        LoadedPlugin {
            described,
            granted,
            limits,
            config: Arc::new(config),
            sandbox,
            host,
            last_policy: std::sync::Mutex::new(None),
            host_env: Vec::new(),
            markdown_roots: Vec::new(),
            user_commands: None,
        }
    }

    /// The user's own command lines this plugin's jobs run with the user's confinement
    /// (built-ins only).
    pub fn with_user_commands(
        mut self,
        commands: Arc<reasonix_core::user_commands::UserCommands>,
    ) -> LoadedPlugin {
        self.user_commands = Some(commands);
        self
    }

    /// Host-provided values for requested environment names (built-ins only).
    pub fn with_host_env(mut self, host_env: Vec<(String, String)>) -> LoadedPlugin {
        self.host_env = host_env;
        self
    }

    /// Extra read-only, Markdown-only directories for interceptor calls (built-ins only).
    pub fn with_markdown_roots(mut self, roots: Vec<PathBuf>) -> LoadedPlugin {
        self.markdown_roots = roots;
        self
    }

    /// A store and instance for one interceptor call in `workspace` (the registry's bound
    /// one, if any), with the plugin's Markdown roots when it has them.
    pub(crate) fn instantiate_interceptor(
        &self,
        workspace: Option<&Path>,
    ) -> Result<(Store<PluginState>, Instance), CallError> {
        if self.markdown_roots.is_empty() {
            return self.instantiate(workspace, None);
        }
        // The user's own instruction directories may hold Reasonix's home, which every other
        // store hides: this store's policy hides it no longer, and the Markdown-only rule
        // keeps everything but notes out of sight (`.env`, plugins, sessions).
        let policy = workspace.map(|ws| {
            let mut policy = (*self.policy(ws)).clone();
            let keep = |h: &PathBuf| !self.markdown_roots.iter().any(|r| r.starts_with(h));
            policy.hidden.retain(keep);
            policy.forbid_read.retain(keep);
            Arc::new(policy)
        });
        self.store_with(StoreParts {
            workspace,
            sandbox: policy,
            progress: None,
            endpoint: None,
            may_write_protected: false,
            markdown_roots: &self.markdown_roots,
        })
    }

    /// The sandbox policy of `workspace`, resolved once per workspace in a row.
    fn policy(&self, workspace: &Path) -> Arc<SandboxPolicy> {
        let mut last = self
            .last_policy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((cached, policy)) = last.as_ref()
            && cached == workspace
        {
            return policy.clone();
        }
        let policy = Arc::new(self.sandbox.resolve(workspace));
        *last = Some((workspace.to_path_buf(), policy.clone()));
        policy
    }

    pub fn name(&self) -> &str {
        &self.described.info.name
    }

    /// The component host this plugin runs on.
    pub fn host(&self) -> &ComponentHost {
        &self.host
    }

    /// A store and instance for one call, built from this plugin's effective capabilities.
    pub(crate) fn instantiate(
        &self,
        workspace: Option<&Path>,
        progress: Option<ProgressSink>,
    ) -> Result<(Store<PluginState>, Instance), CallError> {
        self.instantiate_for(workspace, progress, None, false)
    }

    /// A store and instance for one tool call; `may_write_protected` (an explicit approval of
    /// a write to a configuration file) opens those files to a built-in for this call.
    pub(crate) fn instantiate_call(
        &self,
        workspace: &Path,
        progress: Option<ProgressSink>,
        may_write_protected: bool,
    ) -> Result<(Store<PluginState>, Instance), CallError> {
        self.instantiate_for(Some(workspace), progress, None, may_write_protected)
    }

    /// Like [`instantiate`](Self::instantiate); a provider stream passes the one endpoint its
    /// store may reach.
    pub(crate) fn instantiate_for(
        &self,
        workspace: Option<&Path>,
        progress: Option<ProgressSink>,
        endpoint: Option<crate::host::http::Endpoint>,
        may_write_protected: bool,
    ) -> Result<(Store<PluginState>, Instance), CallError> {
        self.store_with(StoreParts {
            workspace,
            sandbox: workspace.map(|ws| self.policy(ws)),
            progress,
            endpoint,
            may_write_protected,
            markdown_roots: &[],
        })
    }

    fn store_with(
        &self,
        parts: StoreParts<'_>,
    ) -> Result<(Store<PluginState>, Instance), CallError> {
        let state = PluginState::new(StoreSpec {
            plugin: Arc::from(self.name()),
            capabilities: &self.granted,
            workspace: parts.workspace,
            sandbox: parts.sandbox,
            memory_mib: self.limits.memory_mib,
            host_limits: self.limits.host,
            config: self.config.clone(),
            log: self.host.log_sink(),
            progress: parts.progress,
            endpoint: parts.endpoint,
            protected_read_only: !(self.described.origin.is_builtin() && parts.may_write_protected),
            host_env: &self.host_env,
            markdown_roots: parts.markdown_roots,
            user_commands: self.user_commands.clone(),
        })
        .map_err(|e| CallError::Crashed {
            plugin: self.name().to_string(),
            message: format!("cannot prepare its sandbox: {e:#}"),
        })?;
        let mut store = self.host.new_store(state, self.limits.call_timeout_ms);
        match self.described.pre.instantiate(&mut store) {
            Ok(instance) => Ok((store, instance)),
            Err(e) => Err(self.classify(e, &store)),
        }
    }

    /// Start a fresh deadline for the next call on a long-lived store (a provider stream).
    pub(crate) fn rearm_deadline(&self, store: &mut Store<PluginState>) {
        self.rearm_deadline_ms(store, self.limits.call_timeout_ms);
    }

    /// Start a deadline of `timeout_ms` for the next call on a long-lived store.
    pub(crate) fn rearm_deadline_ms(&self, store: &mut Store<PluginState>, timeout_ms: u64) {
        store.set_epoch_deadline(self.host.new_store_deadline_ticks(timeout_ms));
        // Host services bound their own waits by the same deadline.
        let state = store.data_mut();
        state.call_deadline =
            std::time::Instant::now().checked_add(std::time::Duration::from_millis(timeout_ms));
        state.usage.reset();
    }

    pub(crate) fn classify(&self, error: wasmtime::Error, store: &Store<PluginState>) -> CallError {
        classify_trap(
            error,
            store,
            self.limits.call_timeout_ms,
            self.limits.memory_mib,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_follow_the_rules() {
        for ok in ["fs-read", "a", "my_tool2"] {
            assert!(validate_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "Fs",
            "2fs",
            "fs read",
            "../x",
            "fs/read",
            &"a".repeat(65),
        ] {
            assert!(validate_name(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn accepted_names_are_safe_file_and_key_names(name in "\\PC{0,80}") {
            if validate_name(&name).is_ok() {
                prop_assert!(!name.contains('/') && !name.contains('.') && !name.is_empty());
            }
        }
    }
}
