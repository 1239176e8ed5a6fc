//! One running language server: started confined, initialised, its documents kept in step with
//! the disk, and what it says on its own (diagnostics, progress, readiness) recorded for the
//! calls that wait on it. The JSON-RPC connection is the sidecar tier's, with LSP framing.

use super::servers::{Resolved, ServerSpec, language_id};
use reasonix_core::sandbox::SandboxPolicy;
use reasonix_host::host::process::{ServerLaunch, confine_server, spawn_with_env_fd};
use reasonix_sidecar::connection::{Attach, Connection, Peer};
use reasonix_sidecar::frame::Framing;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The largest file sent to a server.
pub const MAX_DOCUMENT_BYTES: u64 = 4 * 1024 * 1024;
/// Files whose diagnostics are kept, and diagnostics per file.
const MAX_DIAGNOSTIC_FILES: usize = 4096;
const MAX_DIAGNOSTICS_PER_FILE: usize = 500;
/// How long a server with no readiness signal of its own must stay silent to count as idle.
const QUIET: Duration = Duration::from_millis(400);

/// What the server said on its own, shared with its reader thread.
#[derive(Default)]
struct Heard {
    /// `$/progress` tokens begun and not ended.
    active: HashSet<String>,
    last_activity: Option<Instant>,
    /// rust-analyzer's `experimental/serverStatus`: seen at all, and quiescent now.
    status_seen: bool,
    quiescent: bool,
    /// Counts every `publishDiagnostics`.
    seq: u64,
    diagnostics: HashMap<String, (u64, Vec<lsp_types::Diagnostic>)>,
}

struct Listener {
    heard: Mutex<Heard>,
    changed: Condvar,
    root_uri: String,
    settings: Value,
}

impl Listener {
    fn lock(&self) -> MutexGuard<'_, Heard> {
        self.heard.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn touch(&self, heard: &mut Heard) {
        heard.last_activity = Some(Instant::now());
        self.changed.notify_all();
    }
}

impl Listener {
    /// The part of the initialization options a `workspace/configuration` item names:
    /// rust-analyzer asks for `rust-analyzer` (all of them), others for their own sections.
    fn section(&self, section: &str) -> Value {
        let rest = section
            .strip_prefix("rust-analyzer")
            .unwrap_or(section)
            .trim_start_matches('.');
        if rest.is_empty() {
            return self.settings.clone();
        }
        self.settings
            .pointer(&format!("/{}", rest.replace('.', "/")))
            .cloned()
            .unwrap_or(Value::Null)
    }
}

impl Peer for Listener {
    fn request(&self, method: &str, params: &Map<String, Value>) -> Result<Value, (i64, String)> {
        match method {
            // One answer per item asked: the section of the initialization options, if any.
            "workspace/configuration" => {
                let items = params.get("items").and_then(Value::as_array);
                Ok(Value::Array(
                    items
                        .map(|items| {
                            items
                                .iter()
                                .map(|item| {
                                    let section = item.get("section").and_then(Value::as_str);
                                    section.map(|s| self.section(s)).unwrap_or(Value::Null)
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                ))
            }
            "workspace/workspaceFolders" => {
                Ok(json!([{"uri": self.root_uri, "name": "workspace"}]))
            }
            "window/workDoneProgress/create"
            | "client/registerCapability"
            | "client/unregisterCapability"
            | "window/showMessageRequest"
            | "workspace/diagnostic/refresh"
            | "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh" => Ok(Value::Null),
            _ => Err((-32601, format!("the client does not serve `{method}`"))),
        }
    }

    fn notification(&self, method: &str, params: Map<String, Value>) {
        let mut heard = self.lock();
        match method {
            "textDocument/publishDiagnostics" => {
                let Ok(published) = serde_json::from_value::<lsp_types::PublishDiagnosticsParams>(
                    Value::Object(params),
                ) else {
                    return;
                };
                heard.seq += 1;
                let seq = heard.seq;
                let uri = published.uri.to_string();
                if !heard.diagnostics.contains_key(&uri)
                    && heard.diagnostics.len() >= MAX_DIAGNOSTIC_FILES
                {
                    return;
                }
                let mut diagnostics = published.diagnostics;
                diagnostics.truncate(MAX_DIAGNOSTICS_PER_FILE);
                heard.diagnostics.insert(uri, (seq, diagnostics));
            }
            "$/progress" => {
                let token = match params.get("token") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => return,
                };
                match params
                    .get("value")
                    .and_then(|v| v.get("kind"))
                    .and_then(Value::as_str)
                {
                    Some("begin") if heard.active.len() < 256 => {
                        heard.active.insert(token);
                    }
                    Some("end") => {
                        heard.active.remove(&token);
                    }
                    _ => {}
                }
            }
            "experimental/serverStatus" => {
                heard.status_seen = true;
                heard.quiescent = params
                    .get("quiescent")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
            }
            _ => return,
        }
        self.touch(&mut heard);
    }
}

/// A document as the server has it.
struct Open {
    version: i32,
    text: String,
}

/// Why a call on a server failed.
#[derive(Debug, Clone)]
pub enum ServerError {
    /// The process died or broke the protocol: restart it.
    Dead(String),
    /// It did not answer in time (the process lives on).
    Slow(String),
    /// Anything else: the call's own fault (a file too large, …).
    Call(String),
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerError::Dead(m) | ServerError::Slow(m) | ServerError::Call(m) => f.write_str(m),
        }
    }
}

pub struct Server {
    pub language: String,
    /// The program, for messages.
    pub program: String,
    conn: Connection,
    listener: Arc<Listener>,
    open: Mutex<HashMap<PathBuf, Open>>,
    pub started: Instant,
}

/// What a server is started with.
pub struct Start<'a> {
    pub spec: &'a ServerSpec,
    pub resolved: &'a Resolved,
    pub workspace: &'a Path,
    pub policy: &'a SandboxPolicy,
    pub home: Option<&'a Path>,
    pub timeout: Duration,
    /// In the OS sandbox (`false` only by `[lsp] sandbox = false` of the user's config).
    pub confined: bool,
    /// The call that starts it was cancelled: `initialize` is given up.
    pub cancelled: &'a dyn Fn() -> bool,
}

fn passed_env(resolved: &Resolved) -> Vec<(String, OsString)> {
    let mut env: Vec<(String, OsString)> = reasonix_sidecar::spawn::PASSED_THROUGH
        .iter()
        .filter_map(|k| std::env::var_os(k).map(|v| ((*k).to_string(), v)))
        .collect();
    if !resolved.path_first.is_empty() {
        let old = std::env::var_os("PATH").unwrap_or_default();
        let joined = std::env::join_paths(
            resolved
                .path_first
                .iter()
                .cloned()
                .chain(std::env::split_paths(&old)),
        )
        .unwrap_or(old);
        env.retain(|(k, _)| k != "PATH");
        env.push(("PATH".into(), joined));
    }
    for (k, v) in &resolved.env {
        env.retain(|(name, _)| name != k);
        env.push((k.clone(), v.into()));
    }
    env
}

impl Server {
    /// Start the server in the OS sandbox (the workspace read-only, the home hidden but for
    /// its toolchain, no network) and initialise it.
    pub fn start(start: &Start<'_>) -> Result<Server, ServerError> {
        let program_text = start.resolved.program.display().to_string();
        let env = passed_env(start.resolved);
        let (child, keep) = if start.confined {
            Server::spawn_confined(start, &env, &program_text)?
        } else {
            Server::spawn_unconfined(start, &env, &program_text)?
        };
        Server::connect(start, child, keep, &program_text)
    }

    fn spawn_unconfined(
        start: &Start<'_>,
        env: &[(String, OsString)],
        program_text: &str,
    ) -> Result<Spawned, ServerError> {
        let mut command = piped(Command::new(&start.resolved.program), start.workspace);
        command
            .args(&start.resolved.args)
            .envs(env.iter().map(|(k, v)| (k, v)));
        let child = command.spawn().map_err(|e| {
            ServerError::Call(format!("`{program_text}` could not be started: {e}"))
        })?;
        Ok((child, None))
    }

    fn spawn_confined(
        start: &Start<'_>,
        env: &[(String, OsString)],
        program_text: &str,
    ) -> Result<Spawned, ServerError> {
        let spec = start.spec;
        let confined = confine_server(&ServerLaunch {
            policy: start.policy,
            home: start.home,
            cwd: start.workspace,
            env,
            program: program_text,
            args: &start.resolved.args,
            extra_read: &start.resolved.extra_read,
        })
        .map_err(|reason| {
            ServerError::Call(format!(
                "the {} language server runs in the OS sandbox, but {reason}; or, to run language servers with your own rights, set `[lsp] sandbox = false` in your config",
                spec.language
            ))
        })?;
        // The scratch space (its home and temp) takes cargo's output too.
        let mut command = piped(Command::new(&confined.launcher), start.workspace);
        command.args(&confined.args);
        let child = spawn_lasting(command, confined.env_fd).map_err(|e| {
            ServerError::Call(format!("`{program_text}` could not be started: {e}"))
        })?;
        Ok((child, Some(Box::new(confined.temp))))
    }

    fn connect(
        start: &Start<'_>,
        child: std::process::Child,
        keep: Option<Box<dyn std::any::Any + Send + Sync>>,
        program_text: &str,
    ) -> Result<Server, ServerError> {
        let spec = start.spec;
        let program_text = program_text.to_string();
        let root_uri = file_uri(start.workspace)
            .ok_or_else(|| ServerError::Call("the workspace path is not absolute".into()))?;
        let listener = Arc::new(Listener {
            heard: Mutex::new(Heard::default()),
            changed: Condvar::new(),
            root_uri: root_uri.clone(),
            settings: spec.initialization_options.clone(),
        });
        let name = start
            .resolved
            .program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| program_text.clone());
        let conn = Connection::attach(
            &name,
            child,
            &program_text,
            Attach {
                framing: Framing::ContentLength,
                peer: Some(listener.clone()),
                keep,
            },
        )
        .map_err(|e| ServerError::Dead(e.to_string()))?;
        let server = Server {
            language: spec.language.clone(),
            program: name,
            conn,
            listener,
            open: Mutex::new(HashMap::new()),
            started: Instant::now(),
        };
        let params = json!({
            // Our pid means nothing inside the sandbox's PID namespace, and servers that
            // watch it (rust-analyzer) would exit at once, taking it for gone.
            "processId": Value::Null,
            "clientInfo": {"name": "reasonix", "version": env!("CARGO_PKG_VERSION")},
            "rootUri": root_uri,
            "rootPath": start.workspace.display().to_string(),
            "workspaceFolders": [{"uri": root_uri, "name": "workspace"}],
            "initializationOptions": spec.initialization_options,
            "capabilities": {
                "general": {"positionEncodings": ["utf-16"]},
                "window": {"workDoneProgress": true},
                "workspace": {
                    "configuration": true,
                    "workspaceFolders": true,
                    "didChangeWatchedFiles": {"dynamicRegistration": true},
                    "symbol": {"dynamicRegistration": false},
                },
                "textDocument": {
                    "synchronization": {"didSave": true, "dynamicRegistration": false},
                    "publishDiagnostics": {"relatedInformation": false, "versionSupport": true},
                    "definition": {"linkSupport": true},
                    "references": {},
                    "hover": {"contentFormat": ["markdown", "plaintext"]},
                    "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
                },
                "experimental": {"serverStatusNotification": true},
            },
        });
        server.call("initialize", params, start.timeout, start.cancelled)?;
        server.notify("initialized", json!({}))?;
        Ok(server)
    }

    /// The process is gone (or broke the protocol): why.
    pub fn dead(&self) -> Option<String> {
        self.conn.dead().map(|e| e.to_string())
    }

    /// The sandbox launcher's pid (its process group holds the server).
    pub fn pid(&self) -> u32 {
        self.conn.pid()
    }

    /// A request, given up when `cancelled` says so (the server is told `$/cancelRequest`).
    pub fn call(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Value, ServerError> {
        self.conn
            .call_cancellable(method, params, timeout, cancelled, Some("$/cancelRequest"))
            .map_err(|e| match e {
                reasonix_sidecar::SidecarError::Contract { message, .. } => {
                    ServerError::Call(format!("{}: {message}", self.program))
                }
                reasonix_sidecar::SidecarError::Timeout { timeout_ms, .. } => {
                    ServerError::Slow(format!(
                        "{} did not answer `{method}` within {} s",
                        self.program,
                        timeout_ms / 1000
                    ))
                }
                reasonix_sidecar::SidecarError::Remote { message, code, .. } => {
                    ServerError::Call(format!(
                        "{} answered `{method}` with error {code}: {}",
                        self.program,
                        reasonix_core::terminal::line(&message)
                    ))
                }
                other => ServerError::Dead(self.describe_death(&other.to_string())),
            })
    }

    fn notify(&self, method: &str, params: Value) -> Result<(), ServerError> {
        self.conn
            .notify(method, params)
            .map_err(|e| ServerError::Dead(self.describe_death(&e.to_string())))
    }

    fn describe_death(&self, raw: &str) -> String {
        // The sidecar tier says "sidecar `x`"; here it is a language server.
        raw.replacen("sidecar ", "language server ", 1)
    }

    /// Make the server's copy of `path` what the disk holds (open it, or send its new text).
    /// `Ok(true)` when something was sent.
    pub fn sync(&self, path: &Path) -> Result<bool, ServerError> {
        let size = std::fs::metadata(path)
            .map_err(|e| ServerError::Call(format!("cannot read {}: {e}", path.display())))?
            .len();
        if size > MAX_DOCUMENT_BYTES {
            return Err(ServerError::Call(format!(
                "{} is {size} bytes, over the {MAX_DOCUMENT_BYTES}-byte limit for language servers",
                path.display()
            )));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| ServerError::Call(format!("cannot read {}: {e}", path.display())))?;
        let uri = file_uri(path)
            .ok_or_else(|| ServerError::Call(format!("{} is not absolute", path.display())))?;
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        match open.get_mut(path) {
            Some(doc) if doc.text == text => Ok(false),
            Some(doc) => {
                doc.version += 1;
                doc.text = text.clone();
                let version = doc.version;
                drop(open);
                self.notify(
                    "textDocument/didChange",
                    json!({
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": text}],
                    }),
                )?;
                self.notify(
                    "textDocument/didSave",
                    json!({"textDocument": {"uri": uri}}),
                )?;
                Ok(true)
            }
            None => {
                let ext = extension_of(path).unwrap_or_default();
                open.insert(
                    path.to_path_buf(),
                    Open {
                        version: 1,
                        text: text.clone(),
                    },
                );
                drop(open);
                self.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {
                        "uri": uri,
                        "languageId": language_id(&self.language, &ext),
                        "version": 1,
                        "text": text,
                    }}),
                )?;
                Ok(true)
            }
        }
    }

    /// Tell the server files changed on disk that it does not hold open.
    pub fn changed_on_disk(&self, paths: &[PathBuf]) -> Result<(), ServerError> {
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let changes: Vec<Value> = paths
            .iter()
            .filter(|p| !open.contains_key(*p))
            .filter_map(|p| file_uri(p))
            .map(|uri| json!({"uri": uri, "type": 2}))
            .collect();
        drop(open);
        if changes.is_empty() {
            return Ok(());
        }
        self.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": changes}),
        )
    }

    /// The open documents.
    pub fn open_paths(&self) -> Vec<PathBuf> {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// The text the server has of `path`, if open.
    pub fn text_of(&self, path: &Path) -> Option<String> {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
            .map(|d| d.text.clone())
    }

    fn ready(heard: &Heard, started: Instant) -> bool {
        if heard.status_seen {
            heard.quiescent
        } else {
            heard.active.is_empty() && heard.last_activity.unwrap_or(started).elapsed() >= QUIET
        }
    }

    /// Wait until the server is done loading and analysing, at most until `deadline`.
    /// `Err` says what it was still doing.
    pub fn wait_ready(
        &self,
        deadline: Instant,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(), ServerError> {
        let mut heard = self.listener.lock();
        loop {
            if let Some(dead) = self.dead() {
                return Err(ServerError::Dead(self.describe_death(&dead)));
            }
            if Server::ready(&heard, self.started) {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline || cancelled() {
                let doing: Vec<&str> = heard.active.iter().map(String::as_str).take(3).collect();
                return Err(ServerError::Slow(format!(
                    "{} is still loading the workspace after {} s{}; call again in a moment",
                    self.program,
                    self.started.elapsed().as_secs(),
                    if doing.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (busy with: {})",
                            reasonix_core::terminal::line(&doing.join(", "))
                        )
                    }
                )));
            }
            let step = (deadline - now).min(Duration::from_millis(100));
            heard = self
                .listener
                .changed
                .wait_timeout(heard, step)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// The diagnostics count so far (to wait for newer ones).
    pub fn diagnostics_seq(&self) -> u64 {
        self.listener.lock().seq
    }

    /// Wait until each of `uris` has diagnostics published after `since` and the server is
    /// ready, then return them; at `deadline`, what there is (`false`: incomplete).
    pub fn diagnostics_after(
        &self,
        uris: &[String],
        since: u64,
        deadline: Instant,
        cancelled: &dyn Fn() -> bool,
    ) -> (Vec<(String, Vec<lsp_types::Diagnostic>)>, Option<String>) {
        let mut heard = self.listener.lock();
        let mut settled_at: Option<(u64, Instant)> = None;
        loop {
            let fresh = uris.iter().all(|u| {
                heard
                    .diagnostics
                    .get(u)
                    .is_some_and(|(seq, _)| *seq > since)
            });
            let complete = fresh && Server::ready(&heard, self.started);
            if complete {
                // Servers publish in passes (syntax first, then types): let a pass settle.
                match settled_at {
                    Some((seq, at)) if seq == heard.seq && at.elapsed() >= QUIET => break,
                    Some((seq, _)) if seq == heard.seq => {}
                    _ => settled_at = Some((heard.seq, Instant::now())),
                }
            } else {
                settled_at = None;
            }
            let now = Instant::now();
            let stop = if now >= deadline {
                Some("the server was still analysing when the wait ended: this may be incomplete")
            } else if cancelled() {
                Some("cancelled: this may be incomplete")
            } else {
                None
            };
            let stop = stop.map(str::to_string).or_else(|| {
                self.dead()
                    .map(|why| format!("{}: this may be incomplete", self.describe_death(&why)))
            });
            if let Some(stop) = stop {
                return (Self::collect(&heard, uris), Some(stop));
            }
            heard = self
                .listener
                .changed
                .wait_timeout(heard, (deadline - now).min(Duration::from_millis(50)))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        (Self::collect(&heard, uris), None)
    }

    fn collect(heard: &Heard, uris: &[String]) -> Vec<(String, Vec<lsp_types::Diagnostic>)> {
        uris.iter()
            .map(|u| {
                (
                    u.clone(),
                    heard
                        .diagnostics
                        .get(u)
                        .map(|(_, d)| d.clone())
                        .unwrap_or_default(),
                )
            })
            .collect()
    }

    /// `shutdown` and `exit`, then the process group goes.
    pub fn stop(&self) {
        if self.dead().is_none() {
            let _ = self
                .conn
                .call("shutdown", Value::Null, Duration::from_secs(1));
            let _ = self.conn.notify("exit", Value::Null);
        }
        self.conn.close(Duration::from_millis(500));
    }
}

/// A started server process, and what must live as long as it (its sandbox's temp directory).
type Spawned = (
    std::process::Child,
    Option<Box<dyn std::any::Any + Send + Sync>>,
);

/// `command` with no inherited environment, in `cwd`, its stdio piped, in a process group of
/// its own (so the whole tree can be killed).
fn piped(mut command: Command, cwd: &Path) -> Command {
    command
        .env_clear()
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    command
}

type SpawnJob = (
    Command,
    std::os::fd::OwnedFd,
    std::sync::mpsc::Sender<std::io::Result<std::process::Child>>,
);

/// Spawn on a thread that lives as long as the process. bubblewrap's `--die-with-parent` is
/// the parent *thread*'s death: a server spawned by a tool call's own thread would be killed
/// when that call ends.
fn spawn_lasting(
    command: Command,
    env_fd: std::os::fd::OwnedFd,
) -> std::io::Result<std::process::Child> {
    static SPAWNER: std::sync::OnceLock<Mutex<std::sync::mpsc::Sender<SpawnJob>>> =
        std::sync::OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<SpawnJob>();
        let _ = std::thread::Builder::new()
            .name("lsp-spawner".into())
            .spawn(move || {
                for (mut command, env_fd, reply) in rx {
                    let _ = reply.send(spawn_with_env_fd(&mut command, env_fd));
                }
            });
        Mutex::new(tx)
    });
    let (reply_tx, reply_rx) = std::sync::mpsc::channel();
    let gone = || std::io::Error::other("the language-server spawner thread is gone");
    spawner
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send((command, env_fd, reply_tx))
        .map_err(|_| gone())?;
    reply_rx.recv().map_err(|_| gone())?
}

pub fn extension_of(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// `file://` URI of an absolute path.
pub fn file_uri(path: &Path) -> Option<String> {
    lsp_types::Url::from_file_path(path)
        .ok()
        .map(|u| u.to_string())
}

/// The path of a `file://` URI.
pub fn uri_path(uri: &str) -> Option<PathBuf> {
    lsp_types::Url::parse(uri).ok()?.to_file_path().ok()
}
