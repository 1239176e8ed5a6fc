//! What most commands start from: paths, the merged config, and the plugin registry.

use crate::Error;
use crate::builtins::BUILTINS;
use crate::term::errln;
use reasonix_config::{Config, Paths, SettingsChoice};
use reasonix_core::settings::RegistrySettings;
use reasonix_core::terminal::shown;
use reasonix_host::Registry;
use reasonix_host::host::bindings::reasonix::plugin::log::Level;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct Context {
    pub paths: Paths,
    pub config: Config,
    pub registry: Arc<Registry>,
    /// The installed packages that loaded (their hooks and MCP servers are in `config`).
    pub packages: Arc<Vec<reasonix_package::Package>>,
}

static TRUST_FOR_THIS_RUN: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// `--trust-workspace`: trust the project file for this run (set once, from `main`).
pub fn trust_workspace_for_this_run(trust: bool) {
    TRUST_FOR_THIS_RUN.store(trust, std::sync::atomic::Ordering::Relaxed);
}

/// The merged config for `project_dir`, honouring `--trust-workspace`.
pub fn load_config(paths: &Paths, project_dir: &Path) -> Result<Config, Error> {
    load_config_choosing(paths, project_dir, &SettingsChoice::default())
}

/// [`load_config`], reading the settings files `settings` chooses (`run --setting-sources`,
/// `--settings`).
fn load_config_choosing(
    paths: &Paths,
    project_dir: &Path,
    settings: &SettingsChoice,
) -> Result<Config, Error> {
    let trust = TRUST_FOR_THIS_RUN.load(std::sync::atomic::Ordering::Relaxed);
    Config::load_choosing(paths, project_dir, trust, settings).map_err(|e| Error::usage_of(&e))
}

/// Load config and registry; print load problems and notices on stderr.
pub fn load() -> Result<Context, Error> {
    load_adjusted(|_| {})
}

/// [`load`], with the merged config adjusted from the command line (the user's own flags,
/// e.g. `run --add-dir`) before the registry is built from it.
/// On a terminal, one line per component that has to be compiled before the session can
/// start (an installed plugin not in the cache, or a build for another engine): seconds that
/// would otherwise be a blank screen.
fn compile_notice() -> Option<reasonix_host::host::CompileNotice> {
    if !crate::term::stderr_is_terminal() {
        return None;
    }
    Some(std::sync::Arc::new(|label: &str| {
        errln!(
            "· compiling {} (once: the result is cached)…",
            reasonix_host::terminal::shown(label)
        );
    }))
}

pub fn load_adjusted(adjust: impl FnOnce(&mut Config)) -> Result<Context, Error> {
    load_adjusted_choosing(&SettingsChoice::default(), adjust)
}

/// [`load_adjusted`], reading the settings files `settings` chooses.
pub fn load_adjusted_choosing(
    settings: &SettingsChoice,
    adjust: impl FnOnce(&mut Config),
) -> Result<Context, Error> {
    load_adjusted_in(None, settings, adjust)
}

/// [`load_adjusted_choosing`] with the project's configuration read in `project` (default:
/// the current directory): a front end serving sessions in several workspaces (ACP).
pub fn load_adjusted_in(
    project: Option<&Path>,
    settings: &SettingsChoice,
    adjust: impl FnOnce(&mut Config),
) -> Result<Context, Error> {
    let paths = Paths::from_env();
    let cwd = match project {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| Error::usage(format!("cannot read the current directory: {e}")))?,
    };
    let mut config = load_config_choosing(&paths, &cwd, settings)?;
    let installed = crate::packages::installed(&paths);
    // Before `adjust`: a composition a package brings can be the one chosen there.
    crate::packages::add_compositions(&installed, &mut config);
    adjust(&mut config);
    let packages = crate::packages::join(installed, &mut config);
    let (mut settings, hooks_off) = crate::hooks::registry_settings(&config);
    host_extras(&mut settings, &config, &paths, &cwd);
    settings.package_components = crate::packages::components(&packages);
    let registry = Registry::load_noting(
        BUILTINS,
        &paths,
        &settings,
        Some(log_sink()),
        compile_notice(),
    )
    .map_err(|e| Error::runtime_of(&e))?;
    for problem in registry.problems() {
        errln!("warning: {problem}");
    }
    for notice in registry.notices() {
        // The host turned the hooks component off itself (no hook to run): not news.
        if hooks_off.as_deref() == Some(notice.as_str()) {
            continue;
        }
        errln!("note: {notice}");
    }
    let sandbox = reasonix_core::sandbox::SandboxConfig {
        settings: config.sandbox.clone(),
        tools: config.tools.clone(),
        always_forbidden: Vec::new(),
        hidden: Vec::new(),
        executed_files: Vec::new(),
    };
    for warning in sandbox.resolve(&cwd).warnings {
        errln!("warning: {warning}");
    }
    Ok(Context {
        paths,
        config,
        registry: Arc::new(registry),
        packages,
    })
}

/// What only the host may hand the built-in interceptors (ADR 0019): the values of the
/// provider keys for the redactor, and the user's own instruction directories for the
/// instructions component.
fn host_extras(settings: &mut RegistrySettings, config: &Config, paths: &Paths, cwd: &Path) {
    // A config the providers cannot be resolved from fails later, where it is used.
    if let Ok(resolved) = reasonix_config::providers::resolve_providers(config) {
        let mut names: Vec<&str> = resolved
            .iter()
            .filter_map(|p| p.api_key_env.as_deref())
            .collect();
        names.sort_unstable();
        names.dedup();
        settings.known_secrets = names
            .into_iter()
            .filter_map(|n| reasonix_config::providers::dotenv::secret(n, &paths.home))
            .collect();
    }
    let home = reasonix_core::sandbox::normalize(&cwd.join(&paths.home));
    settings.user_instruction_dirs.push(home);
    // The project directory the user trusted: its instruction files may import
    // `@~/.claude/…` as the user's own may. Always set here, so no file can say it.
    let trusted = if workspace_trusted(config, paths, cwd) {
        reasonix_core::sandbox::real_path(cwd).display().to_string()
    } else {
        String::new()
    };
    let layers = std::iter::once(
        settings
            .plugins
            .entry(INSTRUCTIONS.to_string())
            .or_default(),
    );
    let untrusted = settings.untrusted_project.get_mut(INSTRUCTIONS);
    for entry in layers.chain(untrusted) {
        entry.set_config_string(INSTRUCTIONS_TRUSTED_KEY, trusted.clone());
    }
    if let Some(user) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        settings
            .user_instruction_dirs
            .push(PathBuf::from(user).join(".claude"));
    }
}

/// The built-in that puts instruction files in the prompt, and its host-set key.
const INSTRUCTIONS: &str = "instructions";
const INSTRUCTIONS_TRUSTED_KEY: &str = "trusted_project";

/// Whether the user trusted the project in `cwd`: its `reasonix.toml` (as loaded), or the
/// directory itself when it has none (`reasonix trust`, `--trust-workspace`).
pub fn workspace_trusted(config: &Config, paths: &Paths, cwd: &Path) -> bool {
    use reasonix_config::{ProjectTrust, TrustCheck, TrustStore};
    match config.project_trust {
        Some(trust) => trust == ProjectTrust::Trusted,
        None => {
            TRUST_FOR_THIS_RUN.load(std::sync::atomic::Ordering::Relaxed)
                || TrustStore::load(&paths.home).is_ok_and(|s| s.check(cwd) == TrustCheck::Trusted)
        }
    }
}

/// Plugin log lines at `REASONIX_LOG` level or above (default `warn`) go to stderr.
fn log_sink() -> reasonix_host::host::state::LogSink {
    let threshold = std::env::var("REASONIX_LOG")
        .ok()
        .map(|v| rank_name(&v))
        .unwrap_or(3);
    Arc::new(move |plugin: &str, level: Level, message: &str| {
        if rank(level) >= threshold {
            // One line per message: a newline in it cannot fake a line of another plugin.
            errln!("[{}] {}: {}", shown(plugin), name(level), shown(message));
        }
    })
}

fn rank(level: Level) -> u8 {
    match level {
        Level::Trace => 0,
        Level::Debug => 1,
        Level::Info => 2,
        Level::Warn => 3,
        Level::Error => 4,
    }
}

fn name(level: Level) -> &'static str {
    match level {
        Level::Trace => "trace",
        Level::Debug => "debug",
        Level::Info => "info",
        Level::Warn => "warn",
        Level::Error => "error",
    }
}

fn rank_name(value: &str) -> u8 {
    match value.to_ascii_lowercase().as_str() {
        "trace" => 0,
        "debug" => 1,
        "info" => 2,
        "error" => 4,
        _ => 3,
    }
}

/// `--dir`, else `[sandbox] workspace_root`, else the current directory; canonicalized.
pub fn resolve_workspace(dir: Option<&Path>, configured: Option<&str>) -> Result<PathBuf, Error> {
    let chosen = match (dir, configured.filter(|s| !s.is_empty())) {
        (Some(dir), _) => dir.to_path_buf(),
        (None, Some(root)) => PathBuf::from(root),
        (None, None) => std::env::current_dir()
            .map_err(|e| Error::usage(format!("cannot read the current directory: {e}")))?,
    };
    let canonical = std::fs::canonicalize(&chosen)
        .map_err(|e| Error::usage(format!("workspace {}: {e}", chosen.display())))?;
    if !canonical.is_dir() {
        return Err(Error::usage(format!(
            "workspace {} is not a directory",
            canonical.display()
        )));
    }
    // Plugins and commands never see Reasonix's own directories, so a workspace inside one
    // would be empty to every tool; say so instead.
    for dir in Paths::from_env().kernel_dirs() {
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        if canonical.starts_with(&dir) {
            return Err(Error::usage(format!(
                "workspace {} lies inside Reasonix's own directory {}, which no tool may see; \
                 work in a project directory, or move REASONIX_HOME (REASONIX_STATE_HOME, \
                 REASONIX_CACHE_HOME) elsewhere",
                canonical.display(),
                dir.display()
            )));
        }
    }
    Ok(canonical)
}
