//! One running (or finished) job: its process group, its output in a bounded buffer (stdout and
//! stderr combined, or stderr in a second buffer of its own), the bytes it gets on stdin, and
//! the threads that feed stdin, read the output, reap the process and enforce the timeout.

use std::collections::VecDeque;
use std::io::{self, PipeReader, PipeWriter, Read, Write};
use std::process::Child;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How much unread output a job keeps per stream; older unread bytes are dropped (and counted)
/// first.
pub const OUTPUT_KEEP_BYTES: usize = 1024 * 1024;

/// After the process ends, how long to wait for the output pipe to close (a descendant that
/// escaped the process group may still hold it) before the job counts as finished anyway.
const PIPE_GRACE: Duration = Duration::from_secs(5);

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Exited with this code.
    Exited(i32),
    /// Killed: by a signal, by `kill`, or by its timeout. The text says which.
    Killed(String),
}

/// One output stream's unread bytes.
#[derive(Default)]
struct Stream {
    unread: VecDeque<u8>,
    /// Bytes dropped from the front of `unread` since the last read.
    dropped: u64,
}

impl Stream {
    /// Up to `max_bytes`, after a line saying how much was dropped since the last read.
    fn take(&mut self, max_bytes: usize) -> Vec<u8> {
        let take = max_bytes.min(self.unread.len());
        let mut data = Vec::with_capacity(take);
        if take > 0 && self.dropped > 0 {
            data.extend_from_slice(
                format!(
                    "[{} bytes of earlier output were dropped: the host keeps at most {} KiB of unread output]\n",
                    self.dropped,
                    OUTPUT_KEEP_BYTES / 1024
                )
                .as_bytes(),
            );
            self.dropped = 0;
        }
        data.extend(self.unread.drain(..take));
        data
    }
}

#[derive(Default)]
struct State {
    /// Stdout (with stderr unless it is kept apart), then stderr.
    streams: [Stream; 2],
    /// Output pipes still open.
    pipes_open: u8,
    /// The main process has been waited for; its pid may be reused from now on.
    reaped: bool,
    /// Why the host killed the job, if it did.
    kill_reason: Option<String>,
    exit: Option<Exit>,
    /// Ended and its output drained (or the grace period ran out).
    done: bool,
}

/// A job started by the process service.
pub struct Job {
    /// The process group id: the pid of the process the host spawned (`process_group(0)`).
    pgid: i32,
    state: Mutex<State>,
    changed: Condvar,
}

impl Job {
    /// Take over a freshly spawned child: feed it `stdin` (then close it), read `output` (and
    /// `stderr` apart, when given), reap it, and kill its whole group once `timeout` has passed.
    pub fn start(
        child: Child,
        output: PipeReader,
        stderr: Option<PipeReader>,
        stdin: Option<(PipeWriter, Vec<u8>)>,
        timeout: Option<Duration>,
    ) -> io::Result<Arc<Job>> {
        let pgid = match i32::try_from(child.id()) {
            Ok(pgid) => pgid,
            Err(_) => return Err(io::Error::other("the child's pid does not fit a pid_t")),
        };
        let job = Arc::new(Job {
            pgid,
            state: Mutex::new(State {
                pipes_open: if stderr.is_some() { 2 } else { 1 },
                ..State::default()
            }),
            changed: Condvar::new(),
        });
        let started = (|| -> io::Result<()> {
            let reader = job.clone();
            std::thread::Builder::new()
                .name("reasonix-job-output".into())
                .spawn(move || reader.pump(output, 0))?;
            if let Some(stderr) = stderr {
                let reader = job.clone();
                std::thread::Builder::new()
                    .name("reasonix-job-stderr".into())
                    .spawn(move || reader.pump(stderr, 1))?;
            }
            if let Some((mut pipe, bytes)) = stdin {
                // On a thread of its own: a job that does not read its input must not block
                // the caller. A job that exits early makes the write fail; that is fine.
                std::thread::Builder::new()
                    .name("reasonix-job-stdin".into())
                    .spawn(move || {
                        let _ = pipe.write_all(&bytes);
                    })?;
            }
            if let Some(timeout) = timeout {
                let watcher = job.clone();
                std::thread::Builder::new()
                    .name("reasonix-job-timeout".into())
                    .spawn(move || watcher.watch(timeout))?;
            }
            Ok(())
        })();
        if let Err(e) = started {
            kill_group(pgid);
            let mut child = child;
            let _ = child.wait();
            return Err(e);
        }
        let reaper = job.clone();
        let spawned = std::thread::Builder::new()
            .name("reasonix-job-wait".into())
            .spawn(move || reaper.reap(child));
        if let Err(e) = spawned {
            // The child moved into the failed closure and was dropped; kill what it started.
            kill_group(pgid);
            return Err(e);
        }
        Ok(job)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn pump(&self, mut output: PipeReader, stream: usize) {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match output.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let mut state = self.lock();
                    let stream = &mut state.streams[stream];
                    stream.unread.extend(&buf[..n]);
                    let excess = stream.unread.len().saturating_sub(OUTPUT_KEEP_BYTES);
                    if excess > 0 {
                        stream.unread.drain(..excess);
                        stream.dropped = stream.dropped.saturating_add(excess as u64);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let mut state = self.lock();
        state.pipes_open = state.pipes_open.saturating_sub(1);
        drop(state);
        self.changed.notify_all();
    }

    fn reap(&self, mut child: Child) {
        let status = child.wait();
        let mut state = self.lock();
        state.reaped = true;
        // Whatever the command left running in its group (`cmd &`) goes with it; under
        // bubblewrap the whole PID namespace already died with the command.
        kill_group(self.pgid);
        let exit = match (state.kill_reason.clone(), status) {
            (Some(reason), _) => Exit::Killed(reason),
            (None, Ok(status)) => match status.code() {
                Some(code) => Exit::Exited(code),
                None => Exit::Killed(signal_text(&status)),
            },
            (None, Err(e)) => Exit::Killed(format!("lost track of the process: {e}")),
        };
        state.exit = Some(exit);
        self.changed.notify_all();
        let grace_end = Instant::now() + PIPE_GRACE;
        while state.pipes_open > 0 {
            let now = Instant::now();
            if now >= grace_end {
                break;
            }
            state = self
                .changed
                .wait_timeout(state, grace_end - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        state.done = true;
        drop(state);
        self.changed.notify_all();
    }

    fn watch(&self, timeout: Duration) {
        // A timeout past the end of time is no timeout.
        let Some(end) = Instant::now().checked_add(timeout) else {
            return;
        };
        let mut state = self.lock();
        while !state.reaped {
            let now = Instant::now();
            if now >= end {
                state
                    .kill_reason
                    .get_or_insert_with(|| format!("timed out after {}", duration_text(timeout)));
                kill_group(self.pgid);
                return;
            }
            state = self
                .changed
                .wait_timeout(state, end - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Up to `max_bytes` of output not read yet (and of stderr, when it is kept apart), and
    /// the exit status once the job has ended and everything has been read.
    pub fn read(&self, max_bytes: usize) -> Chunk {
        let mut state = self.lock();
        let data = state.streams[0].take(max_bytes);
        let stderr = state.streams[1].take(max_bytes);
        let drained = state.streams.iter().all(|s| s.unread.is_empty());
        let status = if state.done && drained {
            state.exit.clone()
        } else {
            None
        };
        Chunk {
            data,
            stderr,
            status,
        }
    }

    /// Block until the job has ended or `timeout` has passed (forever when none).
    pub fn wait(&self, timeout: Option<Duration>) -> Option<Exit> {
        let end = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut state = self.lock();
        while !state.done {
            match end {
                None => {
                    state = self
                        .changed
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                Some(end) => {
                    let now = Instant::now();
                    if now >= end {
                        return None;
                    }
                    state = self
                        .changed
                        .wait_timeout(state, end - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
        }
        state.exit.clone()
    }

    /// Kill the job's process group. A job that has already ended is left alone (its pid may
    /// belong to someone else by now).
    pub fn kill(&self, reason: &str) {
        let mut state = self.lock();
        if !state.reaped {
            state.kill_reason.get_or_insert_with(|| reason.to_string());
            kill_group(self.pgid);
        }
    }

    /// Still running, or its output pipe is still draining.
    pub fn is_running(&self) -> bool {
        !self.lock().done
    }
}

/// What one [`Job::read`] got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub data: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: Option<Exit>,
}

/// Kill a child nobody will track (its group: it was started with `process_group(0)`) and
/// reap it.
pub fn kill_child_group(child: &mut Child) {
    if let Ok(pgid) = i32::try_from(child.id()) {
        kill_group(pgid);
    }
    let _ = child.wait();
}

/// SIGKILL the whole process group `pgid`; a group that is already gone is fine.
fn kill_group(pgid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

fn signal_text(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(9) => "killed by SIGKILL".to_string(),
        Some(15) => "killed by SIGTERM".to_string(),
        Some(n) => format!("killed by signal {n}"),
        None => "ended without an exit code".to_string(),
    }
}

/// `120 s`, `1500 ms`.
pub fn duration_text(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    fn start(script: &str, timeout: Option<Duration>) -> Arc<Job> {
        let (reader, writer) = std::io::pipe().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script])
            .stdin(Stdio::null())
            .stdout(writer.try_clone().unwrap())
            .stderr(writer)
            .process_group(0);
        let child = cmd.spawn().unwrap();
        drop(cmd);
        Job::start(child, reader, None, None, timeout).unwrap()
    }

    fn read_all(job: &Job) -> (String, Option<Exit>) {
        let chunk = job.read(usize::MAX);
        (
            String::from_utf8_lossy(&chunk.data).into_owned(),
            chunk.status,
        )
    }

    #[test]
    fn stdin_is_fed_and_stderr_can_be_kept_apart() {
        let (out_r, out_w) = std::io::pipe().unwrap();
        let (err_r, err_w) = std::io::pipe().unwrap();
        let (in_r, in_w) = std::io::pipe().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "read line; echo \"got $line\"; echo oops >&2; exit 2"])
            .stdin(in_r)
            .stdout(out_w)
            .stderr(err_w)
            .process_group(0);
        let child = cmd.spawn().unwrap();
        drop(cmd);
        let job = Job::start(
            child,
            out_r,
            Some(err_r),
            Some((in_w, b"hello\n".to_vec())),
            Some(Duration::from_secs(60)),
        )
        .unwrap();
        assert_eq!(
            job.wait(Some(Duration::from_secs(30))),
            Some(Exit::Exited(2))
        );
        let chunk = job.read(usize::MAX);
        assert_eq!(chunk.data, b"got hello\n");
        assert_eq!(chunk.stderr, b"oops\n");
        assert_eq!(chunk.status, Some(Exit::Exited(2)));
    }

    #[test]
    fn output_is_combined_and_status_follows_the_last_read() {
        let job = start("echo out; echo err >&2; exit 3", None);
        assert_eq!(job.wait(None), Some(Exit::Exited(3)));
        let (text, status) = read_all(&job);
        assert_eq!(text, "out\nerr\n");
        assert_eq!(status, Some(Exit::Exited(3)));
        assert_eq!(read_all(&job), (String::new(), Some(Exit::Exited(3))));
    }

    #[test]
    fn timeout_kills_the_group() {
        let started = Instant::now();
        let job = start("sleep 30 & sleep 30", Some(Duration::from_millis(200)));
        let exit = job.wait(Some(Duration::from_secs(20)));
        assert_eq!(exit, Some(Exit::Killed("timed out after 200 ms".into())));
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn overflow_keeps_the_tail_and_says_so() {
        let job = start("head -c 1200000 /dev/zero | tr '\\0' a; echo END", None);
        job.wait(None);
        let (text, _) = read_all(&job);
        assert!(text.starts_with("["), "{}", &text[..80]);
        assert!(text.contains("bytes of earlier output were dropped"));
        assert!(text.ends_with("aEND\n"));
    }

    #[test]
    fn endless_timeouts_do_not_overflow() {
        let job = start("exit 0", Some(Duration::from_millis(u64::MAX)));
        assert_eq!(job.wait(Some(Duration::MAX)), Some(Exit::Exited(0)));
    }

    #[test]
    fn wait_times_out_and_kill_stops() {
        let job = start("sleep 30", None);
        assert_eq!(job.wait(Some(Duration::from_millis(50))), None);
        assert!(job.is_running());
        job.kill("killed by request");
        assert_eq!(
            job.wait(Some(Duration::from_secs(10))),
            Some(Exit::Killed("killed by request".into()))
        );
        job.kill("again");
    }
}
