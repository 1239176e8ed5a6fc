//! The plugin registry: built-in components embedded in the binary and components installed
//! under `<home>/plugins/`, loaded through the same path. One bad component never stops the
//! others: its error is kept in [`Registry::problems`].

use crate::builtin::BuiltinComponent;
use crate::cache::sha256_hex;
use crate::capability::{Capabilities, LimitValues, Limits};
use crate::component::{self, Described, LoadedPlugin, Origin};
use crate::error::LoadError;
use crate::host::ComponentHost;
use crate::host::state::LogSink;
use crate::index::PluginIndex;
use crate::interceptor::{Interceptor, WasmInterceptor};
use crate::provider::{Provider, WasmProvider};
use crate::sandbox::SandboxConfig;
use crate::settings::{Paths, RegistrySettings};
use crate::tool::{Tool, WasmTool};
use reasonix_core::catalog::Catalog;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Failures that stop the registry from existing at all.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("cannot start the WebAssembly engine: {0}")]
    Engine(String),
}

/// Every loaded plugin and what it serves.
pub struct Registry {
    plugins: Vec<Arc<LoadedPlugin>>,
    tools: BTreeMap<String, Arc<dyn Tool>>,
    providers: BTreeMap<String, Arc<dyn Provider>>,
    interceptors: Vec<Arc<dyn Interceptor>>,
    /// The plugins serving interceptors, in load order (for [`Registry::interceptors_for`]).
    interceptor_plugins: Vec<Arc<LoadedPlugin>>,
    problems: Vec<LoadError>,
    notices: Vec<String>,
}

struct Candidate {
    origin: Origin,
    bytes: Result<Vec<u8>, LoadError>,
    builtin: Option<BuiltinComponent>,
}

impl Registry {
    /// Load the built-ins and every installed component.
    pub fn load(
        builtins: &[BuiltinComponent],
        paths: &Paths,
        settings: &RegistrySettings,
        log: Option<LogSink>,
    ) -> Result<Registry, RegistryError> {
        Registry::load_noting(builtins, paths, settings, log, None)
    }

    /// [`Registry::load`], telling `compile_notice` about each component it has to compile.
    pub fn load_noting(
        builtins: &[BuiltinComponent],
        paths: &Paths,
        settings: &RegistrySettings,
        log: Option<LogSink>,
        compile_notice: Option<crate::host::CompileNotice>,
    ) -> Result<Registry, RegistryError> {
        let sandbox = Arc::new(SandboxConfig {
            settings: settings.sandbox.clone(),
            tools: settings.tools.clone(),
            always_forbidden: vec![paths.credentials_file()],
            hidden: paths.kernel_dirs(),
            executed_files: settings.executed_files.clone(),
        });
        let host = Arc::new(
            ComponentHost::new(paths.cache.clone(), paths.cache_key_file(), log)
                .map_err(|e| RegistryError::Engine(format!("{e:#}")))?
                .with_compile_notice(compile_notice),
        );
        let mut registry = Registry {
            plugins: Vec::new(),
            tools: BTreeMap::new(),
            providers: BTreeMap::new(),
            interceptors: Vec::new(),
            interceptor_plugins: Vec::new(),
            problems: Vec::new(),
            notices: Vec::new(),
        };

        let mut candidates: Vec<Candidate> = builtins
            .iter()
            .filter(|b| {
                // A built-in the user's settings switch off is not even described (mapping its
                // compiled artifact is most of its load cost). What an untrusted project file
                // says is not enough here: whether it may switch the plugin off depends on its
                // roles, known only once described (see `admit`).
                let disabled = settings
                    .untrusted_project
                    .get(b.name)
                    .cloned()
                    .unwrap_or_else(|| settings.plugin(b.name))
                    .enabled
                    == Some(false);
                if disabled {
                    registry
                        .notices
                        .push(format!("plugin `{}` is disabled in the config", b.name));
                }
                !disabled
            })
            .map(|b| Candidate {
                origin: Origin::Builtin(b.name.to_string()),
                bytes: Ok(Vec::new()),
                builtin: Some(*b),
            })
            .collect();
        let plugins_dir = paths.plugins_dir();
        let index = match PluginIndex::load(&plugins_dir) {
            Ok(index) => Some(index),
            Err(e) => {
                registry.notices.push(format!(
                    "{e}; installed plugins were not loaded (fix or remove the index)"
                ));
                None
            }
        };
        if index.is_some() {
            candidates.extend(
                installed_files(&plugins_dir)
                    .into_iter()
                    .map(|path| Candidate {
                        bytes: std::fs::read(&path).map_err(|source| LoadError::Read {
                            origin: path.display().to_string(),
                            source,
                        }),
                        origin: Origin::Installed(path),
                        builtin: None,
                    }),
            );
        }

        candidates.extend(settings.package_components.iter().map(|c| Candidate {
            bytes: std::fs::read(&c.path).map_err(|source| LoadError::Read {
                origin: c.path.display().to_string(),
                source,
            }),
            origin: Origin::Package {
                package: c.package.clone(),
                path: c.path.clone(),
            },
            builtin: None,
        }));

        if let Some(why) = host.cache().refusal() {
            registry.notices.push(format!(
                "the compiled-artifact cache is not used ({why}); installed plugins are compiled at every start (set REASONIX_CACHE_HOME to a directory only you can write)"
            ));
        }
        let described = describe_all(&host, candidates, index.as_ref());
        for result in described {
            match result {
                Ok(d) => registry.admit(d, &host, &sandbox, settings, index.as_ref()),
                Err(e) => registry.problems.push(e),
            }
        }
        Ok(registry)
    }

    fn admit(
        &mut self,
        described: Described,
        host: &Arc<ComponentHost>,
        sandbox: &Arc<SandboxConfig>,
        config: &RegistrySettings,
        index: Option<&PluginIndex>,
    ) {
        let name = described.info.name.clone();
        let serves_interceptors =
            !described.interception_points.is_empty() || !described.slots.is_empty();
        let settings = match config.untrusted_project.get(&name) {
            Some(without_project) if serves_interceptors => {
                self.notices.push(format!(
                    "[plugin.{name}] in the untrusted project file is ignored: `{name}` serves interceptors, which a repository may not switch off or reconfigure (run `reasonix trust` to apply it)"
                ));
                without_project.clone()
            }
            _ => config.plugin(&name),
        };
        if settings.enabled == Some(false) {
            self.notices
                .push(format!("plugin `{name}` is disabled in the config"));
            return;
        }
        // Built-ins ship with Reasonix: their requests are their grant. So are a package's:
        // its review named what each asks for, and its files were checked against the hashes
        // the user agreed to before the registry was built.
        let (granted, granted_limits) = match &described.origin {
            Origin::Builtin(_) | Origin::Package { .. } => (
                described.info.requested.clone(),
                described.info.requested_limits(),
            ),
            Origin::Installed(path) => {
                let file = file_name(path);
                match index.and_then(|i| i.entry_for_file(&file)) {
                    Some(entry) if !entry.enabled => {
                        self.notices.push(format!("plugin `{name}` is disabled"));
                        return;
                    }
                    Some(entry) => (
                        described.info.requested.intersect(&entry.granted),
                        entry.granted_limits,
                    ),
                    None => {
                        self.notices.push(format!(
                            "{}: not in the plugin index, so it runs with no capabilities; install it with `reasonix plugin install` to grant some",
                            path.display()
                        ));
                        (Capabilities::default(), LimitValues::default())
                    }
                }
            }
        };
        // Disabled plugins were skipped above, so they never cause a clash.
        let prefer = settings.prefer == Some(true);
        if let Some(clash) = self.find_clash(&described, prefer) {
            self.problems.push(clash);
            return;
        }
        let granted = settings.narrow(&granted);
        let limits = Limits::resolve(
            described.info.requested_limits(),
            granted_limits,
            settings.limits(),
            settings.user_limits,
        );
        let plugin_config = match serde_json::to_value(&settings.config) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let is_builtin = described.origin.is_builtin();
        let mut plugin = LoadedPlugin::new(
            described,
            granted,
            limits,
            plugin_config,
            sandbox.clone(),
            host.clone(),
        );
        if is_builtin {
            let (host_env, roots) = builtin_extras(&plugin.granted, config);
            plugin = plugin.with_host_env(host_env).with_markdown_roots(roots);
            if plugin
                .granted
                .env
                .iter()
                .any(|n| n == crate::settings::USER_COMMANDS_ENV)
                && !config.user_commands.is_empty()
            {
                plugin = plugin.with_user_commands(Arc::new(config.user_commands.clone()));
            }
        }
        let plugin = Arc::new(plugin);
        if prefer {
            self.note_replacements(&plugin.described);
        }
        for spec in &plugin.described.tools {
            self.tools.insert(
                spec.name.clone(),
                Arc::new(WasmTool::new(plugin.clone(), spec.clone())),
            );
        }
        for kind in &plugin.described.provider_kinds {
            self.providers.insert(
                kind.name.clone(),
                Arc::new(WasmProvider::new(plugin.clone(), kind.clone())),
            );
        }
        if !plugin.described.interception_points.is_empty() || !plugin.described.slots.is_empty() {
            self.interceptors
                .push(Arc::new(WasmInterceptor::new(plugin.clone(), None)));
            self.interceptor_plugins.push(plugin.clone());
        }
        self.plugins.push(plugin);
    }

    /// With `[plugin.<name>] prefer = true`, say which tools and kinds the plugin takes over.
    fn note_replacements(&mut self, d: &Described) {
        let mut notes = Vec::new();
        for spec in &d.tools {
            if let Some(existing) = self.tools.get(&spec.name) {
                notes.push(format!(
                    "tool `{}` of {} is replaced by plugin `{}` ([plugin.{}] prefer = true)",
                    crate::terminal::shown(&spec.name),
                    self.describe_source(existing.source()),
                    d.info.name,
                    d.info.name
                ));
            }
        }
        for kind in &d.provider_kinds {
            if let Some(existing) = self.providers.get(&kind.name) {
                notes.push(format!(
                    "provider kind `{}` of {} is replaced by plugin `{}` ([plugin.{}] prefer = true)",
                    crate::terminal::shown(&kind.name),
                    self.describe_source(existing.source()),
                    d.info.name,
                    d.info.name
                ));
            }
        }
        self.notices.extend(notes);
    }

    /// A clash of `d` with what is loaded. `prefer` allows tool and kind clashes (the plugin
    /// replaces them), never a second plugin of the same name.
    fn find_clash(&self, d: &Described, prefer: bool) -> Option<LoadError> {
        let clash = |what, name: &str, first: String| LoadError::Clash {
            what,
            name: name.to_string(),
            first,
            second: format!("plugin `{}` ({})", d.info.name, d.origin),
        };
        let describe = |p: &LoadedPlugin| format!("plugin `{}` ({})", p.name(), p.described.origin);
        if let Some(p) = self.plugins.iter().find(|p| p.name() == d.info.name) {
            return Some(clash("plugin name", &d.info.name, describe(p)));
        }
        for spec in d.tools.iter().filter(|_| !prefer) {
            if let Some(existing) = self.tools.get(&spec.name) {
                let first = self.describe_source(existing.source());
                return Some(clash("tool", &spec.name, first));
            }
        }
        for kind in d.provider_kinds.iter().filter(|_| !prefer) {
            if let Some(existing) = self.providers.get(&kind.name) {
                let first = self.describe_source(existing.source());
                return Some(clash("provider kind", &kind.name, first));
            }
        }
        // Two tools of the same name inside one plugin are a clash with itself.
        let mut seen = std::collections::BTreeSet::new();
        for spec in &d.tools {
            if !seen.insert(&spec.name) {
                return Some(clash("tool", &spec.name, describe_described(d)));
            }
        }
        None
    }

    fn describe_source(&self, plugin: &str) -> String {
        match self.plugins.iter().find(|p| p.name() == plugin) {
            Some(p) => format!("plugin `{}` ({})", p.name(), p.described.origin),
            None => format!("plugin `{plugin}`"),
        }
    }

    /// Loaded plugins in load order (built-ins first).
    pub fn plugins(&self) -> &[Arc<LoadedPlugin>] {
        &self.plugins
    }

    /// Every tool, by name (sorted).
    pub fn tools(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.values()
    }

    pub fn tool(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    /// Every provider kind, by name (sorted).
    pub fn providers(&self) -> impl Iterator<Item = &Arc<dyn Provider>> {
        self.providers.values()
    }

    pub fn provider(&self, kind: &str) -> Option<&Arc<dyn Provider>> {
        self.providers.get(kind)
    }

    /// Every interceptor, its calls made for `workspace`: a call then sees the workspace as
    /// far as its plugin's grant goes, and may run commands in its sandbox policy when granted
    /// `process`. Each agent takes its own, so agents of different workspaces can share one
    /// registry.
    pub fn interceptors_for(&self, workspace: &std::path::Path) -> Vec<Arc<dyn Interceptor>> {
        self.interceptor_plugins
            .iter()
            .map(|plugin| {
                Arc::new(WasmInterceptor::new(
                    plugin.clone(),
                    Some(workspace.to_path_buf()),
                )) as Arc<dyn Interceptor>
            })
            .collect()
    }

    pub fn interceptors(&self) -> &[Arc<dyn Interceptor>] {
        &self.interceptors
    }

    /// Kill every process the plugins started (on cancellation). All plugins share one host.
    pub fn stop_processes(&self, reason: &str) {
        if let Some(plugin) = self.plugins.first() {
            plugin.host().processes().kill_all(reason);
        }
    }

    /// How many component stores this registry's host has created: each component call costs
    /// one (tests and benchmarks count them per step).
    pub fn stores_created(&self) -> u64 {
        self.plugins
            .first()
            .map_or(0, |plugin| plugin.host().stores_created())
    }

    /// Kill the jobs of the calls whose cancellation has fired, and only those.
    pub fn stop_cancelled(&self, reason: &str) {
        if let Some(plugin) = self.plugins.first() {
            plugin.host().processes().kill_cancelled(reason);
        }
    }

    /// Components that failed to load, each naming its file and what was wrong.
    pub fn problems(&self) -> &[LoadError] {
        &self.problems
    }

    /// Things worth telling the user that are not failures.
    pub fn notices(&self) -> &[String] {
        &self.notices
    }
}

/// What the host gives a built-in beyond its capabilities, by the synthetic environment names
/// it was granted: the known secrets (the redactor) and the user's instruction directories,
/// readable Markdown-only (the instructions component). An installed plugin never gets these,
/// whatever it is granted: the names are not process variables.
fn builtin_extras(
    granted: &Capabilities,
    config: &RegistrySettings,
) -> (Vec<(String, String)>, Vec<PathBuf>) {
    use crate::settings::{KNOWN_SECRETS_ENV, USER_COMMANDS_ENV, USER_DIRS_ENV};
    let mut env = Vec::new();
    let mut roots = Vec::new();
    if granted.env.iter().any(|n| n == KNOWN_SECRETS_ENV) {
        let secrets: Vec<&str> = config
            .known_secrets
            .iter()
            .map(String::as_str)
            .filter(|s| !s.is_empty() && !s.contains('\n'))
            .collect();
        env.push((KNOWN_SECRETS_ENV.to_string(), secrets.join("\n")));
    }
    if granted.env.iter().any(|n| n == USER_COMMANDS_ENV) {
        env.push((
            USER_COMMANDS_ENV.to_string(),
            config.user_commands.len().to_string(),
        ));
    }
    if granted.env.iter().any(|n| n == USER_DIRS_ENV) {
        roots = config
            .user_instruction_dirs
            .iter()
            .filter(|d| d.is_absolute())
            .cloned()
            .collect();
        let listed: Vec<String> = roots.iter().map(|d| d.display().to_string()).collect();
        env.push((USER_DIRS_ENV.to_string(), listed.join("\n")));
    }
    (env, roots)
}

fn describe_described(d: &Described) -> String {
    format!("plugin `{}` ({})", d.info.name, d.origin)
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `*.wasm` files directly under the plugins directory, sorted for a stable load order.
fn installed_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm") && p.is_file())
        .collect();
    files.sort();
    files
}

/// Hash, compile and describe every candidate; compiles run in parallel on a cold cache.
fn describe_all(
    host: &ComponentHost,
    candidates: Vec<Candidate>,
    index: Option<&PluginIndex>,
) -> Vec<Result<Described, LoadError>> {
    let describe_one = |candidate: Candidate| -> Result<Described, LoadError> {
        match candidate.builtin {
            Some(b) => component::describe_builtin(host, candidate.origin, &b),
            None => {
                let bytes = candidate.bytes?;
                let sha = sha256_hex(&bytes);
                if let Origin::Installed(path) = &candidate.origin {
                    let file = file_name(path);
                    if let Some(entry) = index.and_then(|i| i.entry_for_file(&file))
                        && entry.sha256 != sha
                    {
                        return Err(LoadError::HashMismatch {
                            origin: path.display().to_string(),
                            expected: entry.sha256.clone(),
                            actual: sha,
                        });
                    }
                }
                component::describe(host, candidate.origin, &bytes, sha)
            }
        }
    };
    // As many threads as cores, not one per component: on a small machine more threads only
    // add their start-up cost.
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(candidates.len());
    if workers <= 1 {
        return candidates.into_iter().map(describe_one).collect();
    }
    let origins: Vec<String> = candidates.iter().map(|c| c.origin.to_string()).collect();
    let queue = std::sync::Mutex::new(candidates.into_iter().enumerate());
    let mut results: Vec<Option<Result<Described, LoadError>>> =
        origins.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let next = match queue.lock() {
                            Ok(mut queue) => queue.next(),
                            Err(_) => None,
                        };
                        let Some((i, candidate)) = next else { break };
                        done.push((i, describe_one(candidate)));
                    }
                    done
                })
            })
            .collect();
        for handle in handles {
            // A worker that panicked leaves its components without a result (reported below).
            for (i, result) in handle.join().unwrap_or_default() {
                results[i] = Some(result);
            }
        }
    });
    results
        .into_iter()
        .zip(origins)
        .map(|(result, origin)| {
            result.unwrap_or_else(|| {
                Err(LoadError::Invalid {
                    origin,
                    message: "the loader panicked on this component".to_string(),
                })
            })
        })
        .collect()
}

impl Catalog for Registry {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.values().cloned().collect()
    }

    fn provider(&self, kind: &str) -> Option<Arc<dyn Provider>> {
        self.providers.get(kind).cloned()
    }

    fn provider_kinds(&self) -> Vec<String> {
        // BTreeMap keys: already sorted.
        self.providers.keys().cloned().collect()
    }

    fn interceptors(&self) -> Vec<Arc<dyn Interceptor>> {
        self.interceptors.clone()
    }

    fn interceptors_for(&self, workspace: &std::path::Path) -> Vec<Arc<dyn Interceptor>> {
        Registry::interceptors_for(self, workspace)
    }

    fn stop_processes(&self, reason: &str) {
        Registry::stop_processes(self, reason)
    }

    fn stop_cancelled(&self, reason: &str) {
        Registry::stop_cancelled(self, reason)
    }
}
