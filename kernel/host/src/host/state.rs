//! The data of one plugin `Store`: a deny-by-default WASI context built from the effective
//! capabilities, the memory limiter, and what the host services need.

use super::fs_guard::FsGuard;
use crate::capability::{Capabilities, WorkspaceAccess};
use crate::sandbox::SandboxPolicy;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// How much of a plugin's stderr is kept to explain a crash (a Rust panic prints there).
const STDERR_KEEP: usize = 8 * 1024;

/// Receives plugin log lines: plugin name, level, message.
pub type LogSink =
    Arc<dyn Fn(&str, super::bindings::reasonix::plugin::log::Level, &str) + Send + Sync>;
/// Receives progress reports of the call in progress.
pub use reasonix_core::tool::ProgressSink;

/// Caps linear memory and table growth; remembers that it refused, so the trap that follows can
/// be reported as a memory-limit stop rather than a crash.
pub struct MemoryLimiter {
    max_bytes: usize,
    pub exceeded: bool,
}

impl MemoryLimiter {
    pub fn new(max_mib: u64) -> MemoryLimiter {
        MemoryLimiter {
            max_bytes: usize::try_from(max_mib.saturating_mul(1024 * 1024)).unwrap_or(usize::MAX),
            exceeded: false,
        }
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_bytes {
            self.exceeded = true;
            // An error (rather than `Ok(false)`) traps at the grow site, so a plugin cannot
            // swallow the refusal and spin.
            return Err(wasmtime::Error::msg("memory limit exceeded"));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1_000_000)
    }
}

/// Everything a call into one plugin can reach.
pub struct PluginState {
    pub plugin: Arc<str>,
    pub capabilities: Capabilities,
    /// The plugin's own `[plugins.<name>.config]` table as a JSON object.
    pub config: Arc<serde_json::Map<String, serde_json::Value>>,
    pub log: Option<LogSink>,
    pub progress: Option<ProgressSink>,
    /// The sandbox policy of the call's workspace (none for calls without a workspace).
    pub sandbox: Option<Arc<SandboxPolicy>>,
    /// The host's job table (set by `ComponentHost::new_store`); used only when `process` is
    /// granted.
    pub processes: Option<Arc<super::process::ProcessHost>>,
    /// When the call's deadline runs out (set by `ComponentHost::new_store`); blocking host
    /// calls return before it.
    pub call_deadline: Option<std::time::Instant>,
    /// Built-ins only: the user's own command lines, whose jobs run with the user's
    /// confinement (ADR 0028).
    pub user_commands: Option<Arc<reasonix_core::user_commands::UserCommands>>,
    /// The tool call's cancellation (`ToolContext::cancel`): the jobs it starts are its own,
    /// killed when it fires (`ProcessHost::kill_cancelled`).
    pub cancel: Option<reasonix_core::cancel::CancelToken>,
    /// What the plugin's filesystem calls may touch inside its preopened directories (none
    /// without a workspace).
    pub fs_guard: Option<Arc<FsGuard>>,
    pub limiter: MemoryLimiter,
    /// Host-side resources of the call so far, against the plugin's host limits.
    pub usage: super::limits::Usage,
    wasi: WasiCtx,
    table: ResourceTable,
    http: super::http::HttpState,
    stderr: MemoryOutputPipe,
}

/// What a store is built from.
pub struct StoreSpec<'a> {
    pub plugin: Arc<str>,
    pub capabilities: &'a Capabilities,
    pub workspace: Option<&'a Path>,
    pub sandbox: Option<Arc<SandboxPolicy>>,
    pub memory_mib: u64,
    pub host_limits: crate::capability::HostLimits,
    pub config: Arc<serde_json::Map<String, serde_json::Value>>,
    pub log: Option<LogSink>,
    pub progress: Option<ProgressSink>,
    /// For a provider stream: the one endpoint it may reach (replaces the network grant).
    pub endpoint: Option<super::http::Endpoint>,
    /// The workspace's protected configuration files are read-only in this store: always for
    /// an installed plugin, and for a built-in unless the user explicitly allowed this call's
    /// write to one (`ToolContext::may_write_protected`).
    pub protected_read_only: bool,
    /// Built-ins only: values for requested environment names that the host provides.
    pub host_env: &'a [(String, String)],
    /// Built-ins only: extra directories preopened read-only in which only Markdown files
    /// (and directories) can be seen.
    pub markdown_roots: &'a [PathBuf],
    /// Built-ins only: see [`PluginState::user_commands`].
    pub user_commands: Option<Arc<reasonix_core::user_commands::UserCommands>>,
}

impl PluginState {
    pub fn new(spec: StoreSpec<'_>) -> wasmtime::Result<PluginState> {
        let stderr = MemoryOutputPipe::new(STDERR_KEEP);
        let mut wasi = WasiCtxBuilder::new();
        wasi.stderr(stderr.clone());
        // Nothing is inherited: no environment, arguments, stdio, network or name lookup.
        wasi.allow_ip_name_lookup(false)
            .allow_tcp(false)
            .allow_udp(false);
        // Calls run on a thread of their own through the sync API: do file I/O right here
        // instead of bouncing every operation through tokio's blocking pool (one thread
        // hand-off per stat or read).
        wasi.allow_blocking_current_thread(true);
        let mut fs_guard = None;
        let mut preopens = Vec::new();
        let markdown_roots: Vec<PathBuf> = spec
            .markdown_roots
            .iter()
            .filter(|r| r.is_dir() && !spec.workspace.is_some_and(|ws| r.starts_with(ws)))
            .cloned()
            .collect();
        if let Some(root) = spec.workspace {
            let perms = match spec.capabilities.workspace {
                WorkspaceAccess::None => None,
                WorkspaceAccess::Read => Some(FsPerms::ReadOnly),
                WorkspaceAccess::ReadWrite => Some(FsPerms::ReadWrite),
            };
            if let Some(perms) = perms {
                // Preopened at its real path, so paths mean the same inside and outside.
                let guest = root.to_string_lossy();
                wasi.preopened_dir(root, guest.as_ref(), perms)?;
                // Extra writable roots come with the same access as the workspace; roots
                // inside the workspace are already reachable, missing ones are skipped.
                preopens.push(root.to_path_buf());
                let extra = spec.sandbox.iter().flat_map(|p| p.allow_write.iter());
                for extra_root in extra.filter(|r| !r.starts_with(root) && r.is_dir()) {
                    let guest = extra_root.to_string_lossy();
                    wasi.preopened_dir(extra_root, guest.as_ref(), perms)?;
                    preopens.push(extra_root.clone());
                }
            }
        }
        for extra_root in &markdown_roots {
            let guest = extra_root.to_string_lossy();
            wasi.preopened_dir(extra_root, guest.as_ref(), FsPerms::ReadOnly)?;
            preopens.push(extra_root.clone());
        }
        if let Some(first) = preopens.first().cloned() {
            // Without a policy there is nothing to hide; the guard still keeps protected
            // files and symlinks in check.
            let policy = spec.sandbox.clone().unwrap_or_else(|| {
                Arc::new(crate::sandbox::SandboxConfig::default().resolve_with(&first, |_| None))
            });
            fs_guard = Some(Arc::new(FsGuard::new(
                policy,
                preopens,
                spec.protected_read_only,
                markdown_roots,
            )));
        }
        for name in &spec.capabilities.env {
            if let Some((_, value)) = spec.host_env.iter().find(|(n, _)| n == name) {
                wasi.env(name, value);
            } else if let Ok(value) = std::env::var(name) {
                wasi.env(name, value);
            }
        }
        let http = super::http::HttpState::new(
            spec.plugin.clone(),
            &spec.capabilities.network,
            spec.endpoint,
            spec.log.clone(),
        );
        Ok(PluginState {
            plugin: spec.plugin,
            capabilities: spec.capabilities.clone(),
            config: spec.config,
            log: spec.log,
            progress: spec.progress,
            sandbox: spec.sandbox,
            processes: None,
            call_deadline: None,
            user_commands: spec.user_commands,
            cancel: None,
            fs_guard,
            limiter: MemoryLimiter::new(spec.memory_mib),
            usage: super::limits::Usage::new(spec.host_limits),
            wasi: wasi.build(),
            table: bounded_table(&spec.host_limits),
            http,
            stderr,
        })
    }
}

/// A resource table that refuses entries beyond the plugin's limit (the trap is reported as
/// that limit by `classify_trap`).
fn bounded_table(limits: &crate::capability::HostLimits) -> ResourceTable {
    let mut table = ResourceTable::new();
    table.set_max_capacity(usize::try_from(limits.table_entries).unwrap_or(usize::MAX));
    table
}

impl Drop for PluginState {
    /// The one notice for the log lines a call had dropped past its log limit.
    fn drop(&mut self) {
        let dropped = self.usage.dropped_lines;
        if dropped > 0
            && let Some(sink) = &self.log
        {
            sink(
                &self.plugin,
                super::bindings::reasonix::plugin::log::Level::Warn,
                &format!(
                    "… {dropped} log lines and progress reports dropped: the call exceeded its limit of {} bytes of log output",
                    self.usage.limits.log_bytes
                ),
            );
        }
    }
}

impl PluginState {
    /// The last lines the plugin wrote to stderr, trimmed, for crash reports.
    /// Let this call's requests to exactly `origin` reach its local address: the user approved
    /// the call's fetch of it.
    pub fn approve_local_origin(&mut self, origin: Option<reasonix_core::origin::Origin>) {
        self.http.hooks.approved_local = origin;
    }

    pub fn stderr_tail(&self) -> String {
        let bytes = self.stderr.contents();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let start = lines.len().saturating_sub(4);
        lines[start..].join(" | ")
    }
}

impl WasiView for PluginState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl wasmtime_wasi_http::WasiHttpView for PluginState {
    fn http(&mut self) -> wasmtime_wasi_http::WasiHttpCtxView<'_> {
        self.http.hooks.call_deadline = self.call_deadline;
        wasmtime_wasi_http::WasiHttpCtxView {
            ctx: &mut self.http.ctx,
            table: &mut self.table,
            hooks: &mut self.http.hooks,
        }
    }
}
