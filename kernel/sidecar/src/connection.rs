//! One sidecar process and its JSON-RPC connection. A reader thread matches responses to the
//! calls waiting for them; a writer thread owns stdin (so a sidecar that stops reading cannot
//! block a caller past its deadline); a third thread keeps the stderr tail.
//!
//! Anything fatal (exit, oversized frame, garbage, an id never sent, traffic before
//! `extension/initialized`) kills the connection: every pending call and every later one fails
//! with the same error, naming the sidecar and its stderr tail. A reply that arrives after its
//! call timed out is dropped.

use crate::error::SidecarError;
use crate::frame::{self, FrameError, Framing, Incoming};
use crate::limits::FRAME_BYTES;
use crate::sandbox::Confinement;
use crate::spawn::{self, Launch};
use crate::stderr_tail::StderrTail;
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufReader, Write};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Reply = Result<Value, SidecarError>;

/// Frames queued for the sidecar's stdin at most.
const WRITE_QUEUE: usize = 16;

/// A running sidecar (or another JSON-RPC peer started through [`Connection::attach`]).
pub struct Connection {
    name: String,
    shared: Arc<Shared>,
    writer: Mutex<Option<SyncSender<Vec<u8>>>>,
    child: Mutex<Option<Child>>,
    pid: u32,
    /// Whatever must live as long as the process (its sandbox's temp directory).
    _keep: Option<Box<dyn std::any::Any + Send + Sync>>,
}

/// What answers the requests and takes the notifications a process sends on its own, for a
/// protocol other than the sidecars' (a language server asking for its configuration).
pub trait Peer: Send + Sync {
    /// Answer a request: its result, or an error code and message.
    fn request(
        &self,
        method: &str,
        params: &serde_json::Map<String, Value>,
    ) -> Result<Value, (i64, String)>;
    /// Take a notification.
    fn notification(&self, method: &str, params: serde_json::Map<String, Value>);
}

/// How [`Connection::attach`] speaks to a process.
pub struct Attach {
    pub framing: Framing,
    /// `None`: the sidecar protocol (`host/content/read`, provider streams, nothing before
    /// `extension/initialized`).
    pub peer: Option<Arc<dyn Peer>>,
    pub keep: Option<Box<dyn std::any::Any + Send + Sync>>,
}

struct Shared {
    name: String,
    state: Mutex<State>,
    tail: Arc<StderrTail>,
    /// Set once `extension/initialized` was sent: from then on the sidecar may speak first.
    initialized: AtomicBool,
    framing: Framing,
    peer: Option<Arc<dyn Peer>>,
}

#[derive(Default)]
struct State {
    next_id: u64,
    pending: HashMap<u64, Sender<Reply>>,
    dead: Option<SidecarError>,
    /// Externalised fields readable through `host/content/read`, by content ref.
    content: HashMap<String, Content>,
    /// Open provider streams, by stream id: where their chunks go.
    streams: HashMap<String, SyncSender<StreamMessage>>,
}

/// A `stream/chunk` or `stream/end` notification, for the stream's reader.
#[derive(Debug)]
pub enum StreamMessage {
    Chunk {
        seq: u64,
        chunk: Value,
    },
    End {
        last_seq: u64,
        interrupted: bool,
        error: Option<String>,
    },
    /// The stream was cut off: its queue overflowed.
    Overflow,
}

/// Messages queued for one stream's reader at most.
const STREAM_QUEUE: usize = 4096;

struct Content {
    bytes: Arc<Vec<u8>>,
    sha256: String,
}

impl Connection {
    /// Start the process of `launch` for sidecar `name`.
    pub fn spawn(
        name: &str,
        launch: &Launch,
        confinement: &Confinement,
    ) -> Result<Connection, SidecarError> {
        let mut command = launch
            .command(confinement)
            .map_err(|reason| SidecarError::Spawn {
                name: name.to_string(),
                command: launch.command_line(),
                reason,
            })?;
        let child = command.spawn().map_err(|e| SidecarError::Spawn {
            name: name.to_string(),
            command: launch.command_line(),
            reason: e.to_string(),
        })?;
        Connection::attach(
            name,
            child,
            &launch.command_line(),
            Attach {
                framing: Framing::Lines,
                peer: None,
                keep: None,
            },
        )
    }

    /// Speak JSON-RPC with `child`, started with piped stdio in a process group of its own
    /// (`command_line` is for errors). With a [`Peer`] it may speak first at once.
    pub fn attach(
        name: &str,
        mut child: Child,
        command_line: &str,
        options: Attach,
    ) -> Result<Connection, SidecarError> {
        let pid = child.id();
        let missing = |what: &str| SidecarError::Spawn {
            name: name.to_string(),
            command: command_line.to_string(),
            reason: format!("its {what} was not piped"),
        };
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            spawn::kill_group(pid);
            let _ = child.wait();
            return Err(missing("stdio"));
        };
        let tail = StderrTail::spawn(stderr, name);
        let shared = Arc::new(Shared {
            name: name.to_string(),
            state: Mutex::new(State {
                next_id: 1,
                ..State::default()
            }),
            tail,
            initialized: AtomicBool::new(options.peer.is_some()),
            framing: options.framing,
            peer: options.peer,
        });
        // Bounded: a sidecar that stops reading its stdin (while asking for content pages, say)
        // cannot make the host queue frames without end.
        let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(WRITE_QUEUE);
        let writer_shared = shared.clone();
        let reader_shared = shared.clone();
        let reply_tx = tx.clone();
        let threads = std::thread::Builder::new()
            .name(format!("sidecar-in-{name}"))
            .spawn(move || write_loop(stdin, rx, &writer_shared))
            .and_then(|_| {
                std::thread::Builder::new()
                    .name(format!("sidecar-out-{name}"))
                    .spawn(move || read_loop(stdout, &reader_shared, &reply_tx))
            });
        if let Err(e) = threads {
            spawn::kill_group(pid);
            let _ = child.wait();
            return Err(SidecarError::Spawn {
                name: name.to_string(),
                command: command_line.to_string(),
                reason: format!("cannot start its I/O threads: {e}"),
            });
        }
        Ok(Connection {
            name: name.to_string(),
            shared,
            writer: Mutex::new(Some(tx)),
            child: Mutex::new(Some(child)),
            pid,
            _keep: options.keep,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The process id (of the sandbox launcher, when confined).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The redacted stderr tail so far.
    pub fn stderr_tail(&self) -> String {
        self.shared.tail.render()
    }

    /// The error every call now fails with, if the connection is dead.
    pub fn dead(&self) -> Option<SidecarError> {
        self.shared.lock().dead.clone()
    }

    /// From now on the sidecar may send requests and notifications.
    pub fn mark_initialized(&self) {
        self.shared.initialized.store(true, Ordering::SeqCst);
    }

    /// Make `text` readable through `host/content/read` as `reference` (until withdrawn).
    pub fn offer_content(&self, reference: &str, text: String, sha256: &str) {
        self.shared.lock().content.insert(
            reference.to_string(),
            Content {
                bytes: Arc::new(text.into_bytes()),
                sha256: sha256.to_string(),
            },
        );
    }

    /// Forget content refs (their call is over: later reads get `content_ref_expired`).
    pub fn withdraw_content<'a>(&self, references: impl IntoIterator<Item = &'a str>) {
        let mut state = self.shared.lock();
        for reference in references {
            state.content.remove(reference);
        }
    }

    /// Listen for stream `id`'s chunks (until [`Connection::close_stream`]). A reader that
    /// sees its channel disconnect without an end knows the connection died.
    pub fn open_stream(&self, id: &str) -> Receiver<StreamMessage> {
        let (tx, rx) = mpsc::sync_channel(STREAM_QUEUE);
        self.shared.lock().streams.insert(id.to_string(), tx);
        rx
    }

    /// Stop listening for stream `id`; later chunks for it are dropped.
    pub fn close_stream(&self, id: &str) {
        self.shared.lock().streams.remove(id);
    }

    /// Send a request and wait at most `timeout` for its result.
    pub fn call(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, SidecarError> {
        self.call_cancellable(method, params, timeout, &|| false, None)
    }

    /// [`Connection::call`] that gives up early when `cancelled` says so (checked every
    /// 50 ms); then `cancel_method` (LSP's `$/cancelRequest`), when given, is sent with the id.
    pub fn call_cancellable(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancelled: &dyn Fn() -> bool,
        cancel_method: Option<&str>,
    ) -> Result<Value, SidecarError> {
        let (tx, rx) = mpsc::channel();
        let id = {
            let mut state = self.shared.lock();
            if let Some(dead) = &state.dead {
                return Err(dead.clone());
            }
            let id = state.next_id;
            state.next_id += 1;
            state.pending.insert(id, tx);
            id
        };
        let sent = frame::encode(Some(id), method, &params)
            .map_err(|e| {
                self.contract(
                    "frame_too_large",
                    format!("`{method}` could not be sent: {e}"),
                )
            })
            .and_then(|bytes| self.send(bytes));
        if let Err(e) = sent {
            self.shared.lock().pending.remove(&id);
            return Err(e);
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok(reply) => return self.answered(method, reply),
                // The reader dropped every sender: the connection died.
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self
                        .dead()
                        .unwrap_or_else(|| self.shared.died("stopped answering".into())));
                }
                Err(RecvTimeoutError::Timeout) if Instant::now() >= deadline => {
                    self.shared.lock().pending.remove(&id);
                    return Err(SidecarError::Timeout {
                        name: self.name.clone(),
                        method: method.to_string(),
                        timeout_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                        stderr_tail: self.stderr_tail(),
                    });
                }
                Err(RecvTimeoutError::Timeout) if cancelled() => {
                    self.shared.lock().pending.remove(&id);
                    if let Some(cancel) = cancel_method {
                        let _ = self.notify(cancel, serde_json::json!({"id": id}));
                    }
                    return Err(self.contract("cancelled", format!("`{method}` was cancelled")));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// A reply, its error naming the method.
    fn answered(&self, method: &str, reply: Reply) -> Reply {
        reply.map_err(|e| match e {
            SidecarError::Remote {
                name,
                code,
                reason,
                message,
                ..
            } => SidecarError::Remote {
                name,
                method: method.to_string(),
                code,
                reason,
                message,
            },
            other => other,
        })
    }

    /// Send a notification.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), SidecarError> {
        if let Some(dead) = self.dead() {
            return Err(dead);
        }
        let bytes = frame::encode(None, method, &params).map_err(|e| {
            self.contract(
                "frame_too_large",
                format!("`{method}` could not be sent: {e}"),
            )
        })?;
        self.send(bytes)
    }

    fn send(&self, bytes: Vec<u8>) -> Result<(), SidecarError> {
        let writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        match writer.as_ref().map(|w| w.try_send(bytes)) {
            Some(Ok(())) => Ok(()),
            Some(Err(TrySendError::Full(_))) => Err(self.shared.died(format!(
                "stopped reading its stdin ({WRITE_QUEUE} frames waiting)"
            ))),
            _ => Err(self
                .dead()
                .unwrap_or_else(|| self.shared.died("closed its stdin".into()))),
        }
    }

    fn contract(&self, reason: &'static str, message: String) -> SidecarError {
        SidecarError::Contract {
            name: self.name.clone(),
            reason,
            message,
        }
    }

    /// `extension/shutdown`, then close stdin, then kill the process group and reap it.
    pub fn shutdown(&self, grace: Duration) {
        if self.dead().is_none() {
            let millis = u64::try_from(grace.as_millis()).unwrap_or(u64::MAX);
            let _ = self.call(
                "extension/shutdown",
                serde_json::json!({"timeoutMillis": millis}),
                grace,
            );
        }
        self.close(grace);
    }

    /// Close stdin, give the process `grace` to exit, then kill its process group and reap it.
    pub fn close(&self, grace: Duration) {
        // Dropping the sender ends the writer thread, which closes stdin.
        self.writer.lock().unwrap_or_else(|p| p.into_inner()).take();
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(mut child) = child.take() {
            let deadline = Instant::now() + grace;
            while Instant::now() < deadline {
                if matches!(child.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // The tree too: whatever it started is in its process group.
            spawn::kill_group(self.pid);
            let _ = child.kill();
            let _ = child.wait();
        }
        self.shared.died("was shut down".into());
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        let child = self.child.get_mut().map(Option::take).unwrap_or(None);
        if let Some(mut child) = child {
            spawn::kill_group(self.pid);
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Mark the connection dead (first reason wins) and fail every pending call; returns the
    /// error calls fail with.
    fn died(&self, reason: String) -> SidecarError {
        let mut state = self.lock();
        if let Some(dead) = &state.dead {
            return dead.clone();
        }
        let error = SidecarError::Dead {
            name: self.name.clone(),
            reason,
            stderr_tail: self.tail.render(),
        };
        state.dead = Some(error.clone());
        for (_, waiter) in state.pending.drain() {
            let _ = waiter.send(Err(error.clone()));
        }
        // Open streams see their channel disconnect and report this error.
        state.streams.clear();
        error
    }
}

fn write_loop(mut stdin: std::process::ChildStdin, rx: Receiver<Vec<u8>>, shared: &Shared) {
    for bytes in rx {
        let bytes = frame::framed(shared.framing, bytes);
        if let Err(e) = stdin.write_all(&bytes).and_then(|()| stdin.flush()) {
            // The process is gone or closed stdin; the reader reports the exit itself, with
            // the stderr tail, so wait a moment for it before saying it here.
            shared.tail.wait_closed(Duration::from_millis(500));
            shared.died(format!("stopped reading its stdin ({e})"));
            return;
        }
    }
}

fn read_loop(stdout: std::process::ChildStdout, shared: &Shared, reply: &SyncSender<Vec<u8>>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut buf = Vec::new();
    let reason = loop {
        let read = match shared.framing {
            Framing::Lines => frame::read_frame(&mut reader, FRAME_BYTES, &mut buf),
            Framing::ContentLength => {
                frame::read_content_length_frame(&mut reader, FRAME_BYTES, &mut buf)
            }
        };
        match read {
            Ok(true) => {}
            Ok(false) => {
                // Give stderr a moment to drain, so the report has the last words.
                shared.tail.wait_closed(Duration::from_secs(2));
                break "exited (closed its stdout)".to_string();
            }
            Err(FrameError::Truncated) => {
                shared.tail.wait_closed(Duration::from_secs(2));
                break "exited in the middle of a frame".to_string();
            }
            Err(e) => break e.to_string(),
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let incoming = match frame::parse(&buf) {
            Ok(incoming) => incoming,
            Err(e) => break e.to_string(),
        };
        if let Err(reason) = handle(shared, incoming, reply) {
            break reason;
        }
    };
    shared.died(reason);
    // Dropping `reader` closes our end of stdout: a sidecar still writing gets EPIPE instead
    // of filling a pipe nobody reads.
}

/// Route one message; `Err` is a fatal protocol violation.
fn handle(shared: &Shared, incoming: Incoming, reply: &SyncSender<Vec<u8>>) -> Result<(), String> {
    match incoming {
        Incoming::Response { id, result } => {
            let mut state = shared.lock();
            if id == 0 || id >= state.next_id {
                return Err(format!(
                    "answered request id {id}, which it was never sent (protocol_error)"
                ));
            }
            // Not pending: it timed out and was given up on; the late answer is dropped.
            if let Some(waiter) = state.pending.remove(&id) {
                let result = result.map_err(|e| SidecarError::Remote {
                    name: shared.name.clone(),
                    method: String::new(),
                    code: e.code,
                    reason: e.reason.unwrap_or_else(|| "error".into()),
                    message: e.message,
                });
                let _ = waiter.send(result);
            }
            Ok(())
        }
        Incoming::Request { id, method, params } => {
            early(shared, &method)?;
            let answer = match (&shared.peer, method.as_str()) {
                (Some(peer), _) => match peer.request(&method, &params) {
                    Ok(result) => frame::encode_result(&id, &result)
                        .map_err(|e| (-32603, "internal", e.to_string())),
                    Err((code, message)) => Err((code, "error", message)),
                },
                (None, "host/content/read") => content_read(shared, &params).and_then(|result| {
                    frame::encode_result(&id, &result)
                        .map_err(|e| (-32603, "internal", e.to_string()))
                }),
                // `host/ui/*` and the browser methods are not served: say so, without
                // breaking the connection.
                (None, _) => Err((
                    -32601,
                    "unknown_method",
                    format!(
                        "the host does not serve `{}`",
                        reasonix_core::terminal::line(&method)
                    ),
                )),
            };
            let bytes = match answer {
                Ok(bytes) => Ok(bytes),
                Err((code, reason, message)) => frame::encode_error(&id, code, reason, &message),
            };
            if let Ok(bytes) = bytes
                && let Err(TrySendError::Full(_)) = reply.try_send(bytes)
            {
                return Err(format!(
                    "stopped reading its stdin while sending requests ({WRITE_QUEUE} answers waiting)"
                ));
            }
            Ok(())
        }
        Incoming::Notification { method, params } => {
            early(shared, &method)?;
            if let Some(peer) = &shared.peer {
                peer.notification(&method, params);
                return Ok(());
            }
            match method.as_str() {
                "extension/provider/stream/chunk" | "extension/provider/stream/end" => {
                    route_stream(shared, &method, params);
                }
                // Nothing else is listened to; dropped. Each frame is bounded, so a flood
                // costs time, not memory.
                _ => {}
            }
            Ok(())
        }
    }
}

fn early(shared: &Shared, method: &str) -> Result<(), String> {
    if shared.initialized.load(Ordering::SeqCst) {
        Ok(())
    } else {
        Err(format!(
            "sent `{}` before `extension/initialized` (protocol_error)",
            reasonix_core::terminal::line(method)
        ))
    }
}

/// The params of `host/content/read`, decoded strictly.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ContentRead {
    content_ref: String,
    #[serde(default)]
    offset: u64,
}

/// One page of an externalised field.
fn content_read(
    shared: &Shared,
    params: &serde_json::Map<String, Value>,
) -> Result<Value, (i64, &'static str, String)> {
    let read: ContentRead = serde_json::from_value(Value::Object(params.clone()))
        .map_err(|e| (-32602, "invalid_params", e.to_string()))?;
    let (bytes, sha256) = {
        let state = shared.lock();
        let content = state.content.get(&read.content_ref).ok_or_else(|| {
            (
                -32000,
                "content_ref_expired",
                format!(
                    "content `{}` is not (or no longer) readable; content lives as long as its call",
                    reasonix_core::terminal::line(&read.content_ref)
                ),
            )
        })?;
        (content.bytes.clone(), content.sha256.clone())
    };
    let total = bytes.len();
    let offset = usize::try_from(read.offset).unwrap_or(usize::MAX);
    if offset > total {
        return Err((
            -32602,
            "invalid_params",
            format!("offset {offset} is past the end ({total} bytes)"),
        ));
    }
    let end = (offset + crate::externalize::PAGE_BYTES).min(total);
    Ok(serde_json::json!({
        "contentRef": read.content_ref,
        "dataBase64": reasonix_core::base64::encode(&bytes[offset..end]),
        "encoding": "utf8",
        "offset": offset,
        "nextOffset": end,
        "totalBytes": total,
        "sha256": sha256,
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::manifest::Runtime;

    /// A connection to `python3 -c script` (unconfined), already allowed to speak first.
    fn python(script: &str) -> Connection {
        let runtime: Runtime = serde_json::from_value(serde_json::json!({
            "command": "python3", "args": ["-c", script]
        }))
        .unwrap();
        let dir = std::env::temp_dir();
        let launch = Launch::new("t", "0", &dir, &runtime, &dir);
        let conn = Connection::spawn("t", &launch, &Confinement::Unconfined).unwrap();
        conn.mark_initialized();
        conn
    }

    struct Recorder(Mutex<Vec<String>>);

    impl Peer for Recorder {
        fn request(
            &self,
            method: &str,
            _: &serde_json::Map<String, Value>,
        ) -> Result<Value, (i64, String)> {
            self.0.lock().unwrap().push(format!("request {method}"));
            Ok(serde_json::json!([42]))
        }
        fn notification(&self, method: &str, _: serde_json::Map<String, Value>) {
            self.0
                .lock()
                .unwrap()
                .push(format!("notification {method}"));
        }
    }

    #[test]
    fn a_content_length_peer_speaks_first_and_is_answered() {
        // Asks the host something, then answers the host's call with what the host said.
        let script = r#"
import json, sys
def send(m):
    b = json.dumps(m).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(b) + b); sys.stdout.flush()
def recv():
    n = 0
    while True:
        line = sys.stdin.buffer.readline()
        if line in (b"\r\n", b""): break
        if line.lower().startswith(b"content-length"): n = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(n))
send({"jsonrpc": "2.0", "method": "note", "params": {"x": 1}})
send({"jsonrpc": "2.0", "id": 7, "method": "workspace/configuration", "params": {}})
got = [recv(), recv()]
answer = next(m for m in got if "result" in m)
call = next(m for m in got if "method" in m)
send({"jsonrpc": "2.0", "id": call["id"], "result": answer["result"]})
recv()
"#;
        let child = std::process::Command::new("python3")
            .args(["-c", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
        let conn = Connection::attach(
            "lsp",
            child,
            "python3",
            Attach {
                framing: Framing::ContentLength,
                peer: Some(recorder.clone()),
                keep: None,
            },
        )
        .unwrap();
        let got = conn
            .call("echo", serde_json::json!({}), Duration::from_secs(30))
            .unwrap();
        assert_eq!(got, serde_json::json!([42]));
        assert_eq!(
            *recorder.0.lock().unwrap(),
            ["notification note", "request workspace/configuration"]
        );
        conn.close(Duration::from_millis(100));
    }

    #[test]
    fn a_late_reply_is_dropped_and_the_next_call_gets_its_own() {
        // Answers request 1 after a delay, after request 2 has arrived; request 2 at once.
        let conn = python(
            r#"
import json, sys, time
first = json.loads(sys.stdin.readline())
second = json.loads(sys.stdin.readline())
time.sleep(0.2)
for m in (first, second):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": m["params"]}) + "\n")
    sys.stdout.flush()
sys.stdin.readline()
"#,
        );
        let timed_out = conn.call("a", serde_json::json!({"n": 1}), Duration::from_millis(50));
        assert!(
            matches!(timed_out, Err(SidecarError::Timeout { .. })),
            "{timed_out:?}"
        );
        let second = conn
            .call("b", serde_json::json!({"n": 2}), Duration::from_secs(30))
            .unwrap();
        assert_eq!(second, serde_json::json!({"n": 2}));
        assert!(conn.dead().is_none());
        conn.shutdown(Duration::from_millis(100));
    }

    #[test]
    fn every_pending_and_later_call_fails_when_the_process_dies() {
        let conn =
            python("import sys; sys.stdin.readline(); sys.stderr.write('bye now\\n'); sys.exit(1)");
        let err = conn
            .call("a", serde_json::json!({}), Duration::from_secs(30))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("sidecar `t` exited") && err.contains("bye now"),
            "{err}"
        );
        let later = conn
            .call("b", serde_json::json!({}), Duration::from_secs(30))
            .unwrap_err()
            .to_string();
        assert_eq!(later, err);
    }

    #[test]
    fn a_host_content_read_of_an_unknown_ref_is_an_error_not_a_break() {
        let conn = python(
            r#"
import json, sys
m = json.loads(sys.stdin.readline())
sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "host/content/read", "params": {"contentRef": "x"}}) + "\n")
sys.stdout.flush()
answer = json.loads(sys.stdin.readline())
sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": answer["error"]["data"]["reason"]}) + "\n")
sys.stdout.flush()
sys.stdin.readline()
"#,
        );
        let reason = conn
            .call("a", serde_json::json!({}), Duration::from_secs(30))
            .unwrap();
        assert_eq!(reason, "content_ref_expired");
        conn.shutdown(Duration::from_millis(100));
    }
}

/// `{streamId, seq, chunk}` (or `{streamId, lastSeq, interrupted, error}`), decoded strictly but
/// for the protocol's bookkeeping fields.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
// `streamId`, `generation` and `epoch` are read for strictness only (one generation per run).
#[allow(dead_code)]
struct StreamNote {
    stream_id: String,
    #[serde(default)]
    seq: Option<u64>,
    #[serde(default)]
    chunk: Option<Value>,
    #[serde(default)]
    last_seq: Option<u64>,
    #[serde(default)]
    interrupted: bool,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    generation: Option<Value>,
    #[serde(default)]
    epoch: Option<Value>,
}

/// Hand a stream notification to its reader. An unknown stream (cancelled, finished, never
/// opened) drops it; a malformed one ends the stream with an error; a reader that cannot keep
/// up gets its stream cut off rather than the host buffering without bound.
fn route_stream(shared: &Shared, method: &str, params: serde_json::Map<String, Value>) {
    let id = params
        .get("streamId")
        .and_then(Value::as_str)
        .map(str::to_string);
    let Some(id) = id else { return };
    let message = match serde_json::from_value::<StreamNote>(Value::Object(params)) {
        Ok(note) if method.ends_with("/chunk") => match (note.seq, note.chunk) {
            (Some(seq), Some(chunk)) => StreamMessage::Chunk { seq, chunk },
            _ => StreamMessage::End {
                last_seq: 0,
                interrupted: true,
                error: Some("a chunk without `seq` or `chunk`".into()),
            },
        },
        Ok(note) => StreamMessage::End {
            last_seq: note.last_seq.unwrap_or(0),
            interrupted: note.interrupted,
            error: note.error.map(|e| match e {
                Value::String(s) => s,
                other => other.to_string(),
            }),
        },
        Err(e) => StreamMessage::End {
            last_seq: 0,
            interrupted: true,
            error: Some(format!("a malformed `{method}`: {e}")),
        },
    };
    let mut state = shared.lock();
    let Some(sender) = state.streams.get(&id) else {
        return;
    };
    if let Err(TrySendError::Full(_)) = sender.try_send(message)
        && let Some(sender) = state.streams.remove(&id)
    {
        // Room for the overflow mark is not guaranteed; dropping the sender disconnects the
        // reader, which then reports the stream as cut off either way.
        let _ = sender.try_send(StreamMessage::Overflow);
    }
}
