//! Every configured server of a session: started in the background, each on its own, with its
//! startup timeout; restarted on the next use after it died (immediately the first time, then
//! with a doubling backoff); its lists refreshed when it says they changed.
//!
//! Callers are the agent's threads (tool calls, between-turn tool lists) and front ends
//! (status, prompts, resources). They block on the manager's own small runtime; nothing here
//! runs on a caller's async runtime.

use crate::McpError;
use crate::client::{
    McpClient, PromptInfo, RequestFailure, ResourceInfo, RmcpClient, ToolInfo, clip,
};
use crate::handler::Handler;
use crate::limits::{BACKOFF_FIRST, BACKOFF_MAX, CALL_TIMEOUT, STARTUP_TIMEOUT};
use crate::stderr_tail::StderrTail;
use crate::stdio::{self, Broken};
use crate::tool::{CallTool, McpTool};
use reasonix_config::mcp::{Concurrency, Origin, ServerSpec, Transport};
use reasonix_core::tool::{ProgressSink, Tool};
use reasonix_core::types::ToolOutput;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How servers are started.
#[derive(Debug, Clone)]
pub struct StartOptions {
    /// Absolute workspace: the servers' working directory and the advertised root.
    pub workspace: PathBuf,
    /// `[tools] mcp_startup_timeout_seconds`, for servers that do not set their own.
    pub startup_timeout: Duration,
    /// `[tools] mcp_call_timeout_seconds`, for servers that do not set their own.
    pub call_timeout: Duration,
    /// The user approved the project's `.mcp.json` (its current content), or `--trust-mcp`.
    pub project_mcp_json_approved: bool,
    /// The project's `reasonix.toml` is trusted (`reasonix trust`), so its `[[plugins]]` may run.
    pub project_toml_trusted: bool,
    /// How stdio servers are launched (the OS sandbox for project servers); `None` runs each
    /// as configured.
    pub confine: Option<crate::Confinement>,
}

impl StartOptions {
    pub fn new(workspace: PathBuf) -> StartOptions {
        StartOptions {
            workspace,
            startup_timeout: STARTUP_TIMEOUT,
            call_timeout: CALL_TIMEOUT,
            project_mcp_json_approved: false,
            project_toml_trusted: false,
            confine: None,
        }
    }
}

/// Where a server is, as front ends show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    Disabled,
    /// A project server whose file the user has not approved.
    NotApproved,
    Starting,
    Ready {
        tools: usize,
        prompts: usize,
        resources: usize,
    },
    /// With the reason and the end of its stderr.
    Failed {
        reason: String,
        stderr: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    pub name: String,
    /// `stdio: <command> <args…>`, `http: <url>` or `sse: <url>`.
    pub transport: String,
    pub origin: Origin,
    pub state: ServerState,
    /// Times it was started again after a failure.
    pub restarts: u32,
}

/// The servers of one session. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct Servers {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    runtime: Runtime,
    servers: BTreeMap<String, Arc<Server>>,
    options: StartOptions,
    /// One more each time the set of tools (or a tool's spec) changes.
    revision: AtomicU64,
    /// Notified on every state change (for [`Servers::wait_ready`]).
    changed: Condvar,
    changed_lock: Mutex<()>,
    /// Cancels the calls in flight (`stop_processes` on Ctrl-C); replaced after use.
    calls: Mutex<CancellationToken>,
}

pub(crate) struct Server {
    pub(crate) spec: ServerSpec,
    /// Disabled, or a project server not approved (lifted by [`Servers::approve_project`]).
    gate: Mutex<Option<ServerState>>,
    slot: Mutex<Slot>,
    serial: Option<tokio::sync::Semaphore>,
}

#[derive(Default)]
struct Slot {
    phase: Phase,
    tools: Vec<ToolInfo>,
    prompts: Vec<PromptInfo>,
    resources: Vec<ResourceInfo>,
    /// Failures in a row (startup or death); sets the backoff.
    failures: u32,
    restarts: u32,
    started_once: bool,
}

#[derive(Default)]
enum Phase {
    #[default]
    Idle,
    Starting,
    Ready(Arc<Live>),
    Failed {
        reason: String,
        stderr: String,
        at: Instant,
    },
}

struct Live {
    client: Arc<dyn McpClient>,
    stderr: Option<Arc<StderrTail>>,
    broken: Broken,
}

impl Live {
    /// Why the connection ended, with the end of stderr.
    fn death(&self) -> (String, String) {
        let reason = self
            .broken
            .lock()
            .ok()
            .and_then(|b| b.clone())
            .unwrap_or_else(|| "the connection closed".to_string());
        let stderr = self.stderr.as_ref().map(|t| t.text()).unwrap_or_default();
        (reason, stderr)
    }
}

/// The manager's runtime. The last handle on the manager may go on one of the runtime's own
/// threads (a start that finishes after the session ended), where a runtime cannot be dropped
/// the blocking way: there it is shut down in the background. Anywhere else it is dropped
/// normally, which drops every task and so kills every stdio server.
struct Runtime(Option<tokio::runtime::Runtime>);

impl std::ops::Deref for Runtime {
    type Target = tokio::runtime::Runtime;
    fn deref(&self) -> &tokio::runtime::Runtime {
        match &self.0 {
            Some(runtime) => runtime,
            None => unreachable!("the runtime is only taken when the manager is dropped"),
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take()
            && tokio::runtime::Handle::try_current().is_ok()
        {
            runtime.shutdown_background();
        }
    }
}

fn http_options(headers: &BTreeMap<String, String>) -> crate::http::HttpOptions {
    crate::http::HttpOptions {
        headers: headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        max_message_bytes: crate::limits::MAX_FRAME_BYTES,
        ..Default::default()
    }
}

/// Why `initialize` failed: what the transport saw (the process exited, a 401 …) when it saw
/// something, else the SDK's error in plain words. A write to a server that just exited fails
/// before the reader has seen the exit: give the reader a moment to say so.
async fn initialize_failure(broken: &Broken, error: String) -> String {
    let seen = || broken.lock().ok().and_then(|b| b.clone());
    for _ in 0..20 {
        if let Some(reason) = seen() {
            return reason;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Writing `initialize` to a server that is already gone.
    if error.contains("Broken pipe") {
        return "it exited (or closed its stdin) before it answered `initialize`".to_string();
    }
    format!("it did not answer `initialize`: {}", plain_error(&error))
}

/// An SDK error without the Rust type paths it names (`[reasonix_mcp::stdio::StdioTransport]`)
/// and its "Send message error Transport" framing: what a user can act on.
fn plain_error(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("Send message error Transport", "sending to it failed")
        .replace("Transport closed", "the connection closed");
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.is_empty() {
        "the connection failed".to_string()
    } else {
        out
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The last lines of a stderr tail, for one-line error messages.
fn stderr_hint(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let last = lines[lines.len().saturating_sub(3)..].join(" | ");
    format!("; its stderr ends: {}", clip(&last, 400))
}

impl Servers {
    /// Start every enabled, permitted server in the background and return at once. With no
    /// server configured nothing is created (no runtime, no thread).
    pub fn start(specs: Vec<ServerSpec>, options: StartOptions) -> Result<Servers, McpError> {
        if specs.is_empty() {
            return Ok(Servers::default());
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("reasonix-mcp")
            .enable_all()
            .build()
            .map_err(|e| McpError::Start {
                server: "(all)".into(),
                reason: format!("the MCP runtime could not start: {e}"),
            })?;
        let servers = specs
            .into_iter()
            .map(|spec| {
                let gate = if !spec.enabled {
                    Some(ServerState::Disabled)
                } else if match spec.origin.kind {
                    reasonix_config::mcp::SourceKind::ProjectMcpJson => {
                        !options.project_mcp_json_approved
                    }
                    reasonix_config::mcp::SourceKind::ProjectToml => !options.project_toml_trusted,
                    _ => false,
                } {
                    Some(ServerState::NotApproved)
                } else {
                    None
                };
                let serial = (spec.concurrency == Some(Concurrency::Serial))
                    .then(|| tokio::sync::Semaphore::new(1));
                let server = Arc::new(Server {
                    spec,
                    gate: Mutex::new(gate),
                    slot: Mutex::new(Slot::default()),
                    serial,
                });
                (server.spec.name.clone(), server)
            })
            .collect();
        let inner = Arc::new(Inner {
            runtime: Runtime(Some(runtime)),
            servers,
            options,
            revision: AtomicU64::new(0),
            changed: Condvar::new(),
            changed_lock: Mutex::new(()),
            calls: Mutex::new(CancellationToken::new()),
        });
        for server in inner.servers.values() {
            if lock(&server.gate).is_none() {
                inner.start_in_background(server);
            }
        }
        Ok(Servers { inner: Some(inner) })
    }

    /// The user approved the project's `.mcp.json` now (the TUI's question): start its servers
    /// that waited for it. Returns their names. A project `reasonix.toml`'s servers are not
    /// among them: they follow workspace trust, which this question does not give.
    pub fn approve_project(&self) -> Vec<String> {
        let Some(inner) = &self.inner else {
            return Vec::new();
        };
        let mut started = Vec::new();
        for server in inner.servers.values() {
            let mut gate = lock(&server.gate);
            if *gate == Some(ServerState::NotApproved)
                && server.spec.origin.kind == reasonix_config::mcp::SourceKind::ProjectMcpJson
            {
                *gate = None;
                drop(gate);
                inner.start_in_background(server);
                started.push(server.spec.name.clone());
            }
        }
        inner.notify();
        started
    }

    pub fn is_empty(&self) -> bool {
        self.inner.as_ref().is_none_or(|i| i.servers.is_empty())
    }

    /// One more each time the tools change: a front end or agent re-reads [`Servers::tools`]
    /// between turns when it moved.
    pub fn revision(&self) -> u64 {
        self.inner
            .as_ref()
            .map_or(0, |i| i.revision.load(Ordering::SeqCst))
    }

    /// Block until no server is still starting, or `max` passed.
    pub fn wait_ready(&self, max: Duration) {
        let Some(inner) = &self.inner else { return };
        let deadline = Instant::now() + max;
        let mut guard = lock(&inner.changed_lock);
        loop {
            let starting = inner
                .servers
                .values()
                .any(|s| matches!(lock(&s.slot).phase, Phase::Starting));
            let now = Instant::now();
            if !starting || now >= deadline {
                return;
            }
            guard = match inner.changed.wait_timeout(guard, deadline - now) {
                Ok((g, _)) => g,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// The longest startup timeout of the servers that will start (what `run` waits at most).
    pub fn longest_startup(&self) -> Duration {
        self.inner.as_ref().map_or(Duration::ZERO, |i| {
            i.servers
                .values()
                .filter(|s| lock(&s.gate).is_none())
                .map(|s| i.startup_timeout(s))
                .max()
                .unwrap_or(Duration::ZERO)
        })
    }

    pub fn statuses(&self) -> Vec<ServerStatus> {
        let Some(inner) = &self.inner else {
            return Vec::new();
        };
        inner
            .servers
            .values()
            .map(|server| {
                let gate = lock(&server.gate).clone();
                let slot = lock(&server.slot);
                let state = match (&gate, &slot.phase) {
                    (Some(gate), _) => gate.clone(),
                    (None, Phase::Idle | Phase::Starting) => ServerState::Starting,
                    (None, Phase::Ready(live)) if live.client.is_closed() => {
                        let (reason, stderr) = live.death();
                        ServerState::Failed { reason, stderr }
                    }
                    (None, Phase::Ready(_)) => ServerState::Ready {
                        tools: slot.tools.len(),
                        prompts: slot.prompts.len(),
                        resources: slot.resources.len(),
                    },
                    (None, Phase::Failed { reason, stderr, .. }) => ServerState::Failed {
                        reason: reason.clone(),
                        stderr: stderr.clone(),
                    },
                };
                ServerStatus {
                    name: server.spec.name.clone(),
                    transport: describe(&server.spec.transport),
                    origin: server.spec.origin.clone(),
                    state,
                    restarts: slot.restarts,
                }
            })
            .collect()
    }

    /// Every tool of every server that listed its tools, as kernel tools. Tools whose names
    /// come out the same (`a.b` and `a_b` are both `mcp__s__a_b`) are all left out: the model
    /// could call only one of them by that name, and which one would be a guess (see
    /// [`Servers::name_conflicts`]).
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.named_tools().0
    }

    /// Why tools are left out of [`Servers::tools`]: one line per name that several tools
    /// share, naming them.
    pub fn name_conflicts(&self) -> Vec<String> {
        self.named_tools().1
    }

    fn named_tools(&self) -> (Vec<Arc<dyn Tool>>, Vec<String>) {
        let Some(inner) = &self.inner else {
            return (Vec::new(), Vec::new());
        };
        let mut by_name: BTreeMap<String, Vec<McpTool>> = BTreeMap::new();
        for server in inner.servers.values() {
            let infos = lock(&server.slot).tools.clone();
            for info in infos {
                let tool = McpTool::new(
                    Arc::new(Servers {
                        inner: Some(inner.clone()),
                    }),
                    server.spec.name.clone(),
                    info,
                    server.spec.trust_read_only_hints,
                );
                by_name
                    .entry(tool.spec().name.clone())
                    .or_default()
                    .push(tool);
            }
        }
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        let mut conflicts = Vec::new();
        for (name, mut same) in by_name {
            if same.len() == 1
                && let Some(tool) = same.pop()
            {
                tools.push(Arc::new(tool));
                continue;
            }
            let listed = same
                .iter()
                .map(|t| format!("`{}` of server `{}`", t.raw_name(), t.source()))
                .collect::<Vec<_>>()
                .join(", ");
            conflicts.push(format!(
                "the tools {listed} would all be named `{name}`; none of them is offered"
            ));
        }
        (tools, conflicts)
    }

    pub fn prompts(&self) -> Vec<PromptInfo> {
        self.inner.as_ref().map_or_else(Vec::new, |inner| {
            inner
                .servers
                .values()
                .flat_map(|s| lock(&s.slot).prompts.clone())
                .collect()
        })
    }

    pub fn resources(&self) -> Vec<ResourceInfo> {
        self.inner.as_ref().map_or_else(Vec::new, |inner| {
            inner
                .servers
                .values()
                .flat_map(|s| lock(&s.slot).resources.clone())
                .collect()
        })
    }

    /// Close `name`'s connection (if any) and start it again in the background.
    pub fn reconnect(&self, name: &str) -> Result<(), McpError> {
        let inner = self.inner.as_ref().ok_or(McpError::Unknown(name.into()))?;
        let server = inner.server(name)?;
        let old = {
            let mut slot = lock(&server.slot);
            if matches!(slot.phase, Phase::Starting) {
                return Ok(());
            }
            slot.failures = 0;
            std::mem::replace(&mut slot.phase, Phase::Starting)
        };
        let inner2 = inner.clone();
        inner.runtime.spawn(async move {
            if let Phase::Ready(live) = old {
                live.client.close().await;
            }
            Inner::connect(&inner2, &server).await;
        });
        Ok(())
    }

    /// `prompts/get` with arguments by name.
    pub fn get_prompt(
        &self,
        server: &str,
        prompt: &str,
        arguments: Vec<(String, String)>,
    ) -> Result<String, McpError> {
        let inner = self
            .inner
            .as_ref()
            .ok_or(McpError::Unknown(server.into()))?;
        let target = inner.server(server)?;
        let live = inner.live(&target)?;
        let args: Map<String, Value> = arguments
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let timeout = target
            .spec
            .call_timeout
            .unwrap_or(inner.options.call_timeout);
        inner
            .runtime
            .block_on(async {
                tokio::time::timeout(timeout, live.client.get_prompt(prompt, args)).await
            })
            .unwrap_or(Err(RequestFailure::Timeout(timeout)))
            .map_err(|f| inner.failure(&target, &live, "prompts/get", f))
    }

    /// `resources/read` of `uri`: its contents as text (binary contents described), and the
    /// images among them.
    pub fn read_resource(&self, server: &str, uri: &str) -> Result<ToolOutput, McpError> {
        let inner = self
            .inner
            .as_ref()
            .ok_or(McpError::Unknown(server.into()))?;
        let target = inner.server(server)?;
        let live = inner.live(&target)?;
        let timeout = target
            .spec
            .call_timeout
            .unwrap_or(inner.options.call_timeout);
        inner
            .runtime
            .block_on(async { tokio::time::timeout(timeout, live.client.read_resource(uri)).await })
            .unwrap_or(Err(RequestFailure::Timeout(timeout)))
            .map_err(|f| inner.failure(&target, &live, "resources/read", f))
    }

    /// Cancel every call in flight (Ctrl-C): each server is sent `notifications/cancelled`
    /// and the call returns at once. The servers stay up.
    pub fn cancel_calls(&self) {
        if let Some(inner) = &self.inner {
            let mut calls = lock(&inner.calls);
            calls.cancel();
            *calls = CancellationToken::new();
        }
    }

    /// Close every connection (and kill every stdio server) now.
    pub fn shutdown(&self) {
        let Some(inner) = &self.inner else { return };
        let lives: Vec<Arc<Live>> = inner
            .servers
            .values()
            .filter_map(|s| match &lock(&s.slot).phase {
                Phase::Ready(live) => Some(live.clone()),
                _ => None,
            })
            .collect();
        inner.runtime.block_on(async {
            for live in lives {
                live.client.close().await;
            }
        });
    }
}

fn describe(transport: &Transport) -> String {
    match transport {
        Transport::Stdio { command, args, .. } => {
            let mut text = format!("stdio: {command}");
            for arg in args {
                text.push(' ');
                text.push_str(arg);
            }
            text
        }
        Transport::Http { url, .. } => format!("http: {url}"),
        Transport::Sse { url, .. } => format!("sse: {url}"),
    }
}

impl Inner {
    fn server(&self, name: &str) -> Result<Arc<Server>, McpError> {
        self.servers
            .get(name)
            .cloned()
            .ok_or_else(|| McpError::Unknown(name.to_string()))
    }

    fn startup_timeout(&self, server: &Server) -> Duration {
        server
            .spec
            .startup_timeout
            .unwrap_or(self.options.startup_timeout)
    }

    fn start_in_background(self: &Arc<Self>, server: &Arc<Server>) {
        lock(&server.slot).phase = Phase::Starting;
        let inner = self.clone();
        let server = server.clone();
        self.runtime.spawn(async move {
            Inner::connect(&inner, &server).await;
        });
    }

    fn notify(&self) {
        let _guard = lock(&self.changed_lock);
        self.changed.notify_all();
    }

    /// A live connection to `server`: the current one, or a new one when it is not started,
    /// died or failed (after the backoff).
    fn live(self: &Arc<Self>, server: &Arc<Server>) -> Result<Arc<Live>, McpError> {
        if let Some(gate) = lock(&server.gate).as_ref() {
            return Err(match gate {
                ServerState::Disabled => McpError::Disabled(server.spec.name.clone()),
                _ => McpError::NotApproved {
                    server: server.spec.name.clone(),
                    file: server.spec.origin.file.display().to_string(),
                },
            });
        }
        let deadline = Instant::now() + self.startup_timeout(server) + Duration::from_secs(1);
        loop {
            {
                let mut slot = lock(&server.slot);
                match &slot.phase {
                    Phase::Ready(live) if !live.client.is_closed() => return Ok(live.clone()),
                    Phase::Ready(live) => {
                        let (reason, stderr) = live.death();
                        slot.failures += 1;
                        slot.phase = Phase::Failed {
                            reason,
                            stderr,
                            at: Instant::now(),
                        };
                        continue;
                    }
                    Phase::Starting => {}
                    Phase::Failed { reason, at, .. } => {
                        let wait = backoff(slot.failures);
                        let since = at.elapsed();
                        if since < wait {
                            return Err(McpError::Backoff {
                                server: server.spec.name.clone(),
                                seconds: (wait - since).as_secs().max(1),
                                reason: reason.clone(),
                            });
                        }
                        slot.phase = Phase::Starting;
                        drop(slot);
                        self.runtime.block_on(Inner::connect(self, server));
                        continue;
                    }
                    Phase::Idle => {
                        slot.phase = Phase::Starting;
                        drop(slot);
                        self.runtime.block_on(Inner::connect(self, server));
                        continue;
                    }
                }
            }
            // Someone else is starting it: wait for them.
            if Instant::now() >= deadline {
                return Err(McpError::Start {
                    server: server.spec.name.clone(),
                    reason: "it is still starting".into(),
                });
            }
            let guard = lock(&self.changed_lock);
            let _ = self.changed.wait_timeout(guard, Duration::from_millis(100));
        }
    }

    /// Turn a failed request into the error the caller reports; a closed connection marks the
    /// server failed (restarted on the next use).
    fn failure(
        &self,
        server: &Server,
        live: &Arc<Live>,
        method: &str,
        failure: RequestFailure,
    ) -> McpError {
        let name = server.spec.name.clone();
        match failure {
            RequestFailure::Closed => {
                let (reason, stderr) = live.death();
                let mut slot = lock(&server.slot);
                if matches!(&slot.phase, Phase::Ready(current) if Arc::ptr_eq(current, live)) {
                    slot.failures += 1;
                    slot.phase = Phase::Failed {
                        reason: reason.clone(),
                        stderr: stderr.clone(),
                        at: Instant::now(),
                    };
                }
                drop(slot);
                self.notify();
                McpError::Died {
                    server: name,
                    reason: format!(
                        "{reason}{}; it will be restarted on its next use",
                        stderr_hint(&stderr)
                    ),
                }
            }
            RequestFailure::Timeout(t) => McpError::Timeout {
                server: name,
                method: method.to_string(),
                seconds: t.as_secs(),
            },
            RequestFailure::Cancelled => McpError::Cancelled { server: name },
            RequestFailure::Server(message) => McpError::Server {
                server: name,
                method: method.to_string(),
                message: clip(&message, 2000),
            },
        }
    }

    /// Start `server` (its phase is already `Starting`) and record the outcome.
    async fn connect(self: &Arc<Self>, server: &Arc<Server>) {
        let timeout = self.startup_timeout(server);
        let attempt = tokio::time::timeout(timeout, self.open(server)).await;
        let mut bump = false;
        {
            let mut slot = lock(&server.slot);
            if slot.started_once {
                slot.restarts += 1;
            }
            slot.started_once = true;
            match attempt {
                Ok(Ok((live, tools, prompts, resources))) => {
                    bump = slot.tools != tools;
                    slot.tools = tools;
                    slot.prompts = prompts;
                    slot.resources = resources;
                    slot.failures = 0;
                    slot.phase = Phase::Ready(live);
                }
                Ok(Err((reason, stderr))) => {
                    slot.failures += 1;
                    slot.phase = Phase::Failed {
                        reason,
                        stderr,
                        at: Instant::now(),
                    };
                }
                Err(_) => {
                    slot.failures += 1;
                    slot.phase = Phase::Failed {
                        reason: format!(
                            "it did not finish starting (launch, initialize, listing its tools) within {} s",
                            timeout.as_secs()
                        ),
                        stderr: String::new(),
                        at: Instant::now(),
                    };
                }
            }
        }
        if bump {
            self.revision.fetch_add(1, Ordering::SeqCst);
        }
        self.notify();
    }

    /// Launch, initialize and list; on failure the reason and the end of stderr.
    #[allow(clippy::type_complexity)]
    async fn open(
        self: &Arc<Self>,
        server: &Arc<Server>,
    ) -> Result<(Arc<Live>, Vec<ToolInfo>, Vec<PromptInfo>, Vec<ResourceInfo>), (String, String)>
    {
        let refresh = Arc::new(tokio::sync::Notify::new());
        let handler = Handler {
            workspace: self.options.workspace.clone(),
            progress: Arc::default(),
            lists_changed: Arc::new(AtomicBool::new(false)),
            refresh: refresh.clone(),
        };
        let name = server.spec.name.clone();
        let (client, stderr, broken): (Arc<dyn McpClient>, _, Broken) = match &server.spec.transport
        {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                // On the runtime's worker thread, never a caller's: a confined server's
                // bubblewrap dies with the thread that started it (`--die-with-parent`), and
                // a caller's thread may end long before the session.
                let (command, args, env, cwd) =
                    (command.clone(), args.clone(), env.clone(), cwd.clone());
                let (workspace, confine, spec) = (
                    self.options.workspace.clone(),
                    self.options.confine.clone(),
                    server.spec.clone(),
                );
                let spawned = tokio::spawn(async move {
                    let confine = confine.as_ref().map(|c| (&*c.0, &spec));
                    stdio::spawn(&command, &args, &env, cwd.as_deref(), &workspace, confine)
                })
                .await
                .map_err(|e| (format!("the start was interrupted: {e}"), String::new()))?
                .map_err(|e| (e, String::new()))?;
                let stderr = spawned.stderr.clone();
                let broken = spawned.broken.clone();
                let service = match rmcp::serve_client(handler, spawned.transport).await {
                    Ok(service) => service,
                    Err(e) => {
                        return Err((
                            initialize_failure(&broken, e.to_string()).await,
                            stderr.text(),
                        ));
                    }
                };
                (
                    Arc::new(RmcpClient::new(&name, service)),
                    Some(stderr),
                    broken,
                )
            }
            Transport::Http { url, headers } => {
                let transport = crate::http::streamable_http(url, &http_options(headers))
                    .map_err(|e| (e.to_string(), String::new()))?;
                let broken = transport.closed_reason();
                let service = match rmcp::serve_client(handler, transport).await {
                    Ok(service) => service,
                    Err(e) => {
                        return Err((
                            initialize_failure(&broken, e.to_string()).await,
                            String::new(),
                        ));
                    }
                };
                (Arc::new(RmcpClient::new(&name, service)), None, broken)
            }
            Transport::Sse { url, headers } => {
                let transport = crate::http::legacy_sse(url, &http_options(headers))
                    .await
                    .map_err(|e| (e.to_string(), String::new()))?;
                let broken = transport.closed_reason();
                let service = match rmcp::serve_client(handler, transport).await {
                    Ok(service) => service,
                    Err(e) => {
                        return Err((
                            initialize_failure(&broken, e.to_string()).await,
                            String::new(),
                        ));
                    }
                };
                (Arc::new(RmcpClient::new(&name, service)), None, broken)
            }
        };
        let live = Arc::new(Live {
            client,
            stderr,
            broken,
        });
        let lists = list_everything(live.client.as_ref()).await;
        let (tools, prompts, resources) = lists.map_err(|f| {
            let (reason, stderr) = live.death();
            let why = match f {
                RequestFailure::Closed => reason,
                other => format!("tools/list failed: {other:?}"),
            };
            (why, stderr)
        })?;
        // Refresh the lists when the server says they changed; the agent picks the new tools
        // up at its next turn boundary.
        let inner = Arc::downgrade(self);
        let weak_server = Arc::downgrade(server);
        let watched = Arc::downgrade(&live);
        self.runtime.spawn(async move {
            loop {
                refresh.notified().await;
                let (Some(inner), Some(server), Some(live)) =
                    (inner.upgrade(), weak_server.upgrade(), watched.upgrade())
                else {
                    return;
                };
                if live.client.is_closed() {
                    return;
                }
                if let Ok((tools, prompts, resources)) = list_everything(live.client.as_ref()).await
                {
                    let changed = {
                        let mut slot = lock(&server.slot);
                        let changed = slot.tools != tools;
                        slot.tools = tools;
                        slot.prompts = prompts;
                        slot.resources = resources;
                        changed
                    };
                    if changed {
                        inner.revision.fetch_add(1, Ordering::SeqCst);
                        inner.notify();
                    }
                }
            }
        });
        Ok((live, tools, prompts, resources))
    }
}

#[allow(clippy::type_complexity)]
async fn list_everything(
    client: &dyn McpClient,
) -> Result<(Vec<ToolInfo>, Vec<PromptInfo>, Vec<ResourceInfo>), RequestFailure> {
    let mut tools = client.list_tools().await?;
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    // Prompts and resources are extras: a server that fails them still serves its tools.
    let prompts = client.list_prompts().await.unwrap_or_default();
    let resources = client.list_resources().await.unwrap_or_default();
    Ok((tools, prompts, resources))
}

/// Wait before restart attempt `failures` (1 = right away: a server that died is restarted on
/// its next use; after that the wait doubles).
fn backoff(failures: u32) -> Duration {
    if failures <= 1 {
        return Duration::ZERO;
    }
    let doubled = BACKOFF_FIRST.saturating_mul(1u32 << (failures - 2).min(16));
    doubled.min(BACKOFF_MAX)
}

impl CallTool for Servers {
    fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        progress: Option<ProgressSink>,
        call_cancel: &reasonix_core::cancel::CancelToken,
    ) -> Result<Value, McpError> {
        let inner = self
            .inner
            .as_ref()
            .ok_or(McpError::Unknown(server.into()))?;
        let target = inner.server(server)?;
        let live = inner.live(&target)?;
        let timeout = target
            .spec
            .tool_timeouts
            .get(tool)
            .copied()
            .unwrap_or_else(|| {
                target
                    .spec
                    .call_timeout
                    .unwrap_or(inner.options.call_timeout)
            });
        let cancel = lock(&inner.calls).child_token();
        let result = inner.runtime.block_on(async {
            // This call's own cancellation (its agent's turn) cancels it alone.
            let stop = cancel.clone();
            let watch = call_cancel.clone();
            let watcher = tokio::spawn(async move {
                watch.cancelled().await;
                stop.cancel();
            });
            let _turn = match &target.serial {
                Some(semaphore) => semaphore.acquire().await.ok(),
                None => None,
            };
            let result = live
                .client
                .call_tool(tool, arguments, timeout, progress, cancel)
                .await;
            watcher.abort();
            result
        });
        result.map_err(|f| inner.failure(&target, &live, "tools/call", f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_errors_lose_their_type_paths() {
        assert_eq!(
            plain_error(
                "Send message error Transport [reasonix_mcp::stdio::StdioTransport] error: Broken pipe (os error 32)"
            ),
            "sending to it failed error: Broken pipe (os error 32)"
        );
        assert_eq!(plain_error("[a::B]"), "the connection failed");
        assert_eq!(plain_error("unbalanced ] bracket"), "unbalanced ] bracket");
    }

    #[test]
    fn backoff_doubles_to_its_cap() {
        assert_eq!(backoff(1), Duration::ZERO);
        assert_eq!(backoff(2), BACKOFF_FIRST);
        assert_eq!(backoff(3), BACKOFF_FIRST * 2);
        assert_eq!(backoff(40), BACKOFF_MAX);
    }
}
