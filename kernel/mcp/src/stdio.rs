//! A stdio server: one child process per server, newline-delimited JSON-RPC on its stdin and
//! stdout, stderr kept as a bounded tail.
//!
//! The framing is ours rather than the SDK's line codec so that what a server writes is
//! bounded: a frame over [`MAX_FRAME_BYTES`] is dropped unread and the request it answered
//! fails with an error saying so; a line that is not JSON-RPC after the first message ends
//! the connection with a reason (the spec: a server writes nothing else to stdout), so calls
//! in flight fail at once instead of waiting out their timeout.

use crate::confine::{Confine, Launch};
use crate::limits::MAX_FRAME_BYTES;
use crate::stderr_tail::StderrTail;
use reasonix_config::mcp::ServerSpec;
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Why a connection ended, as the transport saw it (read by the manager for error reports).
pub type Broken = Arc<Mutex<Option<String>>>;

pub struct StdioTransport {
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
    stdout: Frames<BufReader<ChildStdout>>,
    child: ChildGuard,
    broken: Broken,
    /// A message was read: from now on stdout carries only JSON-RPC.
    started: bool,
    /// Its stderr, read to the end before an exit is reported (the reason shows its tail).
    stderr: Arc<StderrTail>,
    /// What the confinement keeps while the server runs (its temp directory).
    _keep: Option<Box<dyn Send + Sync>>,
}

/// What [`spawn`] gives the manager besides the transport.
pub struct Spawned {
    pub transport: StdioTransport,
    pub stderr: Arc<StderrTail>,
    pub broken: Broken,
}

/// Variables a server gets from Reasonix's own environment, when set. Nothing else is passed:
/// provider keys and other secrets in the user's environment reach a server only when its
/// entry names them in `env` (`"GITHUB_TOKEN": "${GITHUB_TOKEN}"`), so the user decides which
/// credential goes to which server. Claude Code passes everything; a project's `.mcp.json`
/// would then see every key the user exported.
pub const PASSED_THROUGH: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "SHELL",
    "TERM",
    // Launchers (npx, uvx) keep their caches there.
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    // Proxies the user set up for everything on the machine.
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    // What Windows programs cannot start without.
    "SYSTEMROOT",
    "SystemRoot",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "PROGRAMDATA",
];

/// Start `command` for `server`. Relative `cwd` is relative to the workspace. The environment
/// is [`PASSED_THROUGH`], `REASONIX_WORKSPACE_ROOT`, then the entry's own `env`. With
/// `confine`, the server is started the way it decides (in the OS sandbox, or refused).
pub fn spawn(
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&str>,
    workspace: &Path,
    confine: Option<(&dyn Confine, &ServerSpec)>,
) -> Result<Spawned, String> {
    let mut vars: Vec<(String, OsString)> = PASSED_THROUGH
        .iter()
        .filter_map(|k| std::env::var_os(k).map(|v| (k.to_string(), v)))
        .collect();
    vars.push(("REASONIX_WORKSPACE_ROOT".into(), workspace.into()));
    for (k, v) in env {
        vars.retain(|(name, _)| name != k);
        vars.push((k.clone(), v.into()));
    }
    let cwd = match cwd {
        Some(dir) => workspace.join(dir),
        None => workspace.to_path_buf(),
    };
    let launch = Launch {
        program: command,
        args,
        env: &vars,
        cwd: &cwd,
    };
    let confined = match confine {
        Some((confine, spec)) => confine.confine(spec, &launch)?,
        None => None,
    };
    let (mut cmd, inherit, keep) = match confined {
        Some(confined) => {
            let mut cmd = Command::new(&confined.program);
            // Nothing reaches the launcher itself: the server's variables are set inside.
            cmd.args(&confined.args).env_clear().current_dir(&cwd);
            (cmd, confined.inherit, Some(confined.keep))
        }
        None => {
            let mut cmd = Command::new(command);
            cmd.args(args)
                .env_clear()
                .envs(vars.iter().map(|(k, v)| (k, v)))
                .current_dir(&cwd);
            (cmd, None, None)
        }
    };
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = spawn_inheriting(&mut cmd, inherit)
        .map_err(|e| format!("`{command}` could not be started: {e}"))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the process has no stdio pipes".into());
    };
    let tail = Arc::new(StderrTail::default());
    let drain = tail.clone();
    tokio::spawn(async move { drain.drain(stderr).await });
    let broken: Broken = Arc::default();
    Ok(Spawned {
        transport: StdioTransport {
            stdin: Arc::new(tokio::sync::Mutex::new(stdin)),
            stdout: Frames::new(BufReader::with_capacity(64 * 1024, stdout), MAX_FRAME_BYTES),
            child: ChildGuard(child),
            broken: broken.clone(),
            started: false,
            stderr: tail.clone(),
            _keep: keep,
        },
        stderr: tail,
        broken,
    })
}

/// Spawn `cmd`, the child inheriting `inherit` under its own number. Spawns that hand over a
/// descriptor are serialised process-wide (with the host's jobs), and the descriptor is
/// closed right after, so no other child inherits it.
fn spawn_inheriting(cmd: &mut Command, inherit: Option<OwnedFd>) -> std::io::Result<Child> {
    let Some(fd) = inherit else {
        return cmd.spawn();
    };
    let _one = reasonix_core::spawn::inheriting_spawn();
    rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::empty())?;
    let child = cmd.spawn();
    drop(fd);
    child
}

/// Kills the server's whole process group when the connection goes.
struct ChildGuard(Child);

impl ChildGuard {
    fn kill(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self
            .0
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        let _ = self.0.start_kill();
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

enum Frame {
    Line(Vec<u8>),
    /// Longer than the limit: its first bytes, for the request id. Given as soon as the limit
    /// is crossed; the rest of the line is skipped by the reads that follow.
    Oversized(Vec<u8>),
    End,
}

const PREFIX: usize = 4096;

/// Newline-delimited frames of a stream, at most `max` bytes each.
///
/// Its state lives here, not in the future that reads: the SDK's loop drops a pending
/// `receive` whenever it has something to send, and a line half read must survive that. An
/// oversized line is answered the moment it crosses the limit, not at its newline, which a
/// server need never write: the call it answers fails at once, and the skipping of the rest
/// goes on in later reads (holding nothing).
struct Frames<R> {
    reader: R,
    max: usize,
    line: Vec<u8>,
    /// Inside an oversized line already reported: skip to its newline.
    skipping: bool,
}

impl<R: tokio::io::AsyncBufRead + Unpin> Frames<R> {
    fn new(reader: R, max: usize) -> Frames<R> {
        Frames {
            reader,
            max,
            line: Vec::new(),
            skipping: false,
        }
    }

    /// The next frame. Cancel-safe: what was read stays in `self` when the future is dropped.
    async fn next(&mut self) -> std::io::Result<Frame> {
        loop {
            let buf = self.reader.fill_buf().await?;
            if buf.is_empty() {
                self.skipping = false;
                let line = std::mem::take(&mut self.line);
                return Ok(if line.is_empty() {
                    Frame::End
                } else {
                    Frame::Line(line)
                });
            }
            let newline = buf.iter().position(|b| *b == b'\n');
            let chunk = &buf[..newline.unwrap_or(buf.len())];
            let used = chunk.len() + usize::from(newline.is_some());
            if self.skipping {
                self.skipping = newline.is_none();
                self.reader.consume(used);
                continue;
            }
            if self.line.len() + chunk.len() > self.max {
                let room = PREFIX.saturating_sub(self.line.len()).min(chunk.len());
                let mut prefix = std::mem::take(&mut self.line);
                prefix.truncate(PREFIX);
                prefix.extend_from_slice(&chunk[..room]);
                self.skipping = newline.is_none();
                self.reader.consume(used);
                return Ok(Frame::Oversized(prefix));
            }
            self.line.extend_from_slice(chunk);
            self.reader.consume(used);
            if newline.is_some() {
                return Ok(Frame::Line(std::mem::take(&mut self.line)));
            }
        }
    }
}

/// The top-level `"id"` of a JSON-RPC response from its first bytes, when it comes before
/// `"result"` / `"error"` (as every serializer we know writes it).
pub fn response_id(prefix: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(prefix);
    let id_at = text.find("\"id\"")?;
    let body_at = ["\"result\"", "\"error\""]
        .iter()
        .filter_map(|k| text.find(k))
        .min()
        .unwrap_or(usize::MAX);
    if id_at > body_at {
        return None;
    }
    let rest = text[id_at + 4..]
        .trim_start()
        .strip_prefix(':')?
        .trim_start();
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    match stream.next()? {
        Ok(v @ (serde_json::Value::Number(_) | serde_json::Value::String(_))) => Some(v),
        _ => None,
    }
}

fn error_response(id: serde_json::Value, message: String) -> Option<RxJsonRpcMessage<RoleClient>> {
    serde_json::from_value(serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32603, "message": message},
    }))
    .ok()
}

fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(120)]).into_owned();
    text.escape_debug().to_string()
}

impl StdioTransport {
    fn end(&mut self, reason: String) -> Option<RxJsonRpcMessage<RoleClient>> {
        if let Ok(mut broken) = self.broken.lock()
            && broken.is_none()
        {
            *broken = Some(reason);
        }
        None
    }

    async fn next_message(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let frame = match self.stdout.next().await {
                Ok(frame) => frame,
                Err(e) => return self.end(format!("reading its stdout failed: {e}")),
            };
            match frame {
                Frame::End => {
                    let status = tokio::time::timeout(
                        std::time::Duration::from_millis(200),
                        self.child.0.wait(),
                    )
                    .await;
                    let reason = match status {
                        Ok(Ok(status)) => format!("the process exited ({status})"),
                        _ => "the process closed its stdout".to_string(),
                    };
                    // The report of the failure is read from the tail as soon as this ends
                    // the connection: let the stderr reader catch up with what was written.
                    self.stderr
                        .wait_drained(std::time::Duration::from_millis(500))
                        .await;
                    return self.end(reason);
                }
                Frame::Oversized(prefix) => {
                    let message = format!(
                        "the answer is larger than the {} MiB limit for one message and was dropped",
                        MAX_FRAME_BYTES / (1024 * 1024)
                    );
                    match response_id(&prefix).and_then(|id| error_response(id, message.clone())) {
                        Some(reply) => return Some(reply),
                        None => return self.end(message),
                    }
                }
                Frame::Line(line) => {
                    let trimmed = line.trim_ascii();
                    if trimmed.is_empty() {
                        continue;
                    }
                    match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(trimmed) {
                        Ok(message) => {
                            self.started = true;
                            return Some(message);
                        }
                        Err(e) => {
                            if let Some(reply) = response_id(trimmed).and_then(|id| {
                                error_response(id, format!("malformed JSON-RPC response: {e}"))
                            }) {
                                return Some(reply);
                            }
                            // Before the first message a line may be a banner of a launcher
                            // (npx …): skipped. After it, stdout is the protocol channel.
                            if self.started {
                                return self.end(format!(
                                    "it wrote a line that is not JSON-RPC to stdout: \"{}\"",
                                    excerpt(trimmed)
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
}

impl Transport<RoleClient> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let stdin = self.stdin.clone();
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            let mut stdin = stdin.lock().await;
            stdin.write_all(&line).await?;
            stdin.flush().await
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.next_message()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.child.kill();
        std::future::ready(Ok(()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_id_of_a_cut_response_is_found() {
        assert_eq!(
            response_id(
                br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxxx"#
            ),
            Some(serde_json::json!(7))
        );
        assert_eq!(
            response_id(br#"{"jsonrpc": "2.0", "id" : "abc", "result": {"#),
            Some(serde_json::json!("abc"))
        );
        // An `id` inside the result is not the response's.
        assert_eq!(response_id(br#"{"jsonrpc":"2.0","result":{"id":3"#), None);
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// An oversized line is reported before its end arrives (here: it never does), and a line
    /// after one that does end is read whole.
    #[test]
    fn an_oversized_line_is_reported_at_the_limit_and_skipped_to_its_end() {
        runtime().block_on(async {
            let (mut writer, reader) = tokio::io::duplex(1024);
            let mut frames = Frames::new(BufReader::new(reader), 100);
            let (reported, wait_for_report) = tokio::sync::oneshot::channel::<()>();
            let feed = tokio::spawn(async move {
                writer.write_all(br#"{"id":7,"result":""#).await.unwrap();
                writer.write_all(&[b'x'; 300]).await.unwrap();
                // The line stays open until the frame was reported.
                let _ = wait_for_report.await;
                writer.write_all(&[b'x'; 300]).await.unwrap();
                writer.write_all(b"\"}\n{\"id\":8}\n").await.unwrap();
            });
            // Bounded only so that a reader waiting for the newline fails instead of hanging.
            let first = tokio::time::timeout(std::time::Duration::from_secs(30), frames.next())
                .await
                .expect("the oversized line was not reported before its end");
            let Frame::Oversized(prefix) = first.unwrap() else {
                panic!("not oversized");
            };
            reported.send(()).unwrap();
            assert_eq!(response_id(&prefix), Some(serde_json::json!(7)));
            let Frame::Line(next) = frames.next().await.unwrap() else {
                panic!("no next line");
            };
            assert_eq!(next, br#"{"id":8}"#);
            feed.await.unwrap();
        });
    }

    /// A read dropped in the middle of a line (the SDK's loop does that whenever it sends)
    /// loses nothing of it.
    #[test]
    fn a_dropped_read_keeps_the_half_read_line() {
        runtime().block_on(async {
            let (mut writer, reader) = tokio::io::duplex(1024);
            let mut frames = Frames::new(BufReader::new(reader), 1 << 20);
            writer.write_all(br#"{"jsonrpc":"2.0","#).await.unwrap();
            let early =
                tokio::time::timeout(std::time::Duration::from_millis(50), frames.next()).await;
            assert!(early.is_err(), "a frame before the line ended");
            writer.write_all(b"\"id\":1}\n").await.unwrap();
            let Frame::Line(line) = frames.next().await.unwrap() else {
                panic!("no line");
            };
            assert_eq!(line, br#"{"jsonrpc":"2.0","id":1}"#);
        });
    }

    proptest! {
        #[test]
        fn any_prefix_is_safe(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = response_id(&bytes);
        }
    }
}
