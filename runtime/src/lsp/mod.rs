//! Code intelligence through language servers (docs/LSP.md, ADR 0045): `lsp_definition`,
//! `lsp_references`, `lsp_hover`, `lsp_diagnostics`, `lsp_symbols`.
//!
//! A server starts on the first call that needs its language in a workspace, runs in the OS
//! sandbox (the workspace read-only, the home hidden but for its toolchain, no network) and
//! stays warm for the session. One that dies costs the call it died in; the next call starts
//! it again, at once the first time and then after a growing pause.

mod client;
mod servers;
mod tools;
mod touched;

pub use servers::{ServerSpec, table};
pub use tools::all as tools;

use client::{Server, ServerError, Start};
use reasonix_config::LspSettings;
use reasonix_core::sandbox::SandboxConfig;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Defaults of `[lsp] startup_timeout` and `request_timeout`.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest pause before a crashed server is started again.
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// A server that ran this long before dying starts again at once, however often it died.
const STABLE: Duration = Duration::from_secs(120);

/// A workspace and a language.
type SlotKey = (PathBuf, String);

/// One language in one workspace.
#[derive(Default)]
struct Slot {
    server: Option<Arc<Server>>,
    /// Deaths in a row, each soon after its start.
    failures: u32,
    last_failure: Option<(Instant, String)>,
    /// Files changed since this time are told to the server on the next call.
    scanned: Option<SystemTime>,
}

pub struct Lsp {
    specs: Vec<ServerSpec>,
    sandbox: SandboxConfig,
    home: Option<PathBuf>,
    startup: Duration,
    request: Duration,
    /// `[lsp] sandbox = false`: servers run unconfined.
    unconfined: bool,
    /// When the session began: `lsp_diagnostics` without a path checks the files changed since.
    pub(crate) began: SystemTime,
    slots: Mutex<HashMap<SlotKey, Arc<Mutex<Slot>>>>,
}

impl Lsp {
    pub fn new(settings: &LspSettings, sandbox: SandboxConfig) -> Arc<Lsp> {
        Arc::new(Lsp {
            specs: table(settings),
            sandbox,
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            startup: settings
                .startup_timeout
                .map(Duration::from_secs)
                .unwrap_or(STARTUP_TIMEOUT),
            request: settings
                .request_timeout
                .map(Duration::from_secs)
                .unwrap_or(REQUEST_TIMEOUT),
            unconfined: settings.sandbox == Some(false),
            began: SystemTime::now(),
            slots: Mutex::new(HashMap::new()),
        })
    }

    /// Whether the tools are worth offering in `workspace`: a language whose server is on
    /// `PATH` has a project marker at its root.
    pub fn useful_in(&self, workspace: &Path) -> bool {
        self.specs.iter().any(|spec| {
            spec.root_markers
                .iter()
                .any(|marker| workspace.join(marker).exists())
                && servers::available(spec, workspace)
        })
    }

    pub fn request_timeout(&self) -> Duration {
        self.request
    }

    /// The server spec for a file, by its extension.
    pub fn spec_for(&self, path: &Path) -> Option<&ServerSpec> {
        let ext = client::extension_of(path)?;
        self.specs.iter().find(|s| s.extensions.contains(&ext))
    }

    /// The languages whose marker is at the workspace root (or, with none, every language
    /// with a running server there).
    pub fn languages_of(&self, workspace: &Path) -> Vec<&ServerSpec> {
        let marked: Vec<&ServerSpec> = self
            .specs
            .iter()
            .filter(|s| s.root_markers.iter().any(|m| workspace.join(m).exists()))
            .collect();
        if !marked.is_empty() {
            return marked;
        }
        let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        self.specs
            .iter()
            .filter(|s| slots.contains_key(&(workspace.to_path_buf(), s.language.clone())))
            .collect()
    }

    /// The running server for `spec` in `workspace`, started (and waited for) if need be, with
    /// the files changed on disk since the last call told to it.
    pub(crate) fn server(
        &self,
        workspace: &Path,
        spec: &ServerSpec,
        progress: &dyn Fn(&str),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Arc<Server>, String> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots
                .entry((workspace.to_path_buf(), spec.language.clone()))
                .or_default()
                .clone()
        };
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(server) = &slot.server
            && let Some(why) = server.dead()
        {
            let lived = server.started.elapsed();
            slot.failures = if lived >= STABLE {
                1
            } else {
                slot.failures + 1
            };
            slot.last_failure = Some((Instant::now(), why));
            slot.server = None;
        }
        let server = match &slot.server {
            Some(server) => server.clone(),
            None => {
                if let Some((at, why)) = &slot.last_failure {
                    let pause = backoff(slot.failures);
                    let waited = at.elapsed();
                    if waited < pause {
                        return Err(format!(
                            "the {} language server stopped {} s ago and is started again in {} s: {why}",
                            spec.language,
                            waited.as_secs(),
                            (pause - waited).as_secs().max(1)
                        ));
                    }
                }
                progress(&format!("starting the {} language server", spec.language));
                let server = self.start(workspace, spec, cancelled).map_err(|e| {
                    if matches!(e, ServerError::Dead(_)) {
                        slot.failures += 1;
                        slot.last_failure = Some((Instant::now(), e.to_string()));
                    }
                    e.to_string()
                })?;
                let server = Arc::new(server);
                slot.server = Some(server.clone());
                slot.scanned = Some(SystemTime::now());
                server
            }
        };
        // Files changed on disk since the last look (an edit by a tool, a build).
        if let Some(since) = slot.scanned {
            let now = SystemTime::now();
            let changed = touched::since(workspace, &spec.extensions, since);
            slot.scanned = Some(now);
            let (open, closed): (Vec<PathBuf>, Vec<PathBuf>) = changed
                .into_iter()
                .partition(|p| server.text_of(p).is_some());
            for path in open {
                server.sync(&path).map_err(|e| e.to_string())?;
            }
            server.changed_on_disk(&closed).map_err(|e| e.to_string())?;
        }
        drop(slot);
        progress(&format!(
            "waiting for {} to load the workspace",
            server.program
        ));
        server
            .wait_ready(Instant::now() + self.startup, cancelled)
            .map_err(|e| e.to_string())?;
        Ok(server)
    }

    fn start(
        &self,
        workspace: &Path,
        spec: &ServerSpec,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Server, ServerError> {
        let resolved =
            servers::resolve(spec, workspace, self.home.as_deref()).map_err(ServerError::Call)?;
        let mut policy = self.sandbox.clone().resolve(workspace);
        // A server reads code; it has nothing to fetch.
        policy.network = false;
        Server::start(&Start {
            spec,
            resolved: &resolved,
            workspace,
            policy: &policy,
            home: self.home.as_deref(),
            timeout: self.startup,
            confined: !self.unconfined,
            cancelled,
        })
    }

    /// The pid of the sandbox that holds the running server of `language` (tests, diagnostics).
    pub fn pid_of(&self, workspace: &Path, language: &str) -> Option<u32> {
        let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        let slot = slots.get(&(workspace.to_path_buf(), language.to_string()))?;
        let slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        slot.server.as_ref().map(|s| s.pid())
    }
}

/// Each language of `settings`' table with the program that would serve it in `workspace`
/// (`Err`: why none would), for `reasonix doctor`. Nothing is started.
pub fn servers_found(
    settings: &LspSettings,
    workspace: &Path,
) -> Vec<(String, Result<PathBuf, String>)> {
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    table(settings)
        .into_iter()
        .map(|spec| {
            let found = spec
                .candidates
                .iter()
                .find_map(|(name, _)| servers::find(name, &path_var, workspace).ok())
                .ok_or_else(|| {
                    let names: Vec<&str> =
                        spec.candidates.iter().map(|(n, _)| n.as_str()).collect();
                    format!("none of {} on PATH", names.join(", "))
                });
            (spec.language, found)
        })
        .collect()
}

/// The pause before the `failures`-th start in a row: none for the first restart, then 2 s,
/// 4 s, … up to a minute.
fn backoff(failures: u32) -> Duration {
    if failures <= 1 {
        return Duration::ZERO;
    }
    let secs = 1u64 << (failures - 1).min(6);
    Duration::from_secs(secs).min(MAX_BACKOFF)
}

impl Drop for Lsp {
    fn drop(&mut self) {
        let slots = std::mem::take(&mut *self.slots.lock().unwrap_or_else(|p| p.into_inner()));
        for slot in slots.into_values() {
            let slot = slot.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(server) = &slot.server {
                server.stop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_come_at_once_then_after_a_growing_pause() {
        let pauses: Vec<u64> = (1..=9).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(pauses, [0, 2, 4, 8, 16, 32, 60, 60, 60]);
    }
}
