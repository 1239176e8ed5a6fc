//! Text piped into a run whose task is in its arguments (`cat err.txt | reasonix -p
//! "explain"`): appended to the task, as Claude Code does. Bounded in size, and the wait for
//! a pipe that never says anything is bounded in time: a parent that leaves stdin open
//! without writing (some CI runners, `subprocess.Popen(stdin=PIPE)`) must not hang the run.

use crate::term::errln;
use std::io::{IsTerminal, Read};
use std::time::Duration;

/// Bytes of piped text taken at most; the rest is left unread, and the task says so.
pub const PIPED_AT_MOST: usize = 512 * 1024;
/// How long stdin may stay silent (no byte, not closed) before the run goes on without it.
pub const FIRST_BYTE_WAIT: Duration = Duration::from_secs(3);

/// What was piped, if anything: `None` for a terminal, an empty or a silent stdin.
pub fn read() -> Option<Piped> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return None;
    }
    if !speaks_within(FIRST_BYTE_WAIT) {
        errln!(
            "reasonix: nothing arrived on stdin in {} s; running without it (redirect stdin from /dev/null to skip this wait)",
            FIRST_BYTE_WAIT.as_secs()
        );
        return None;
    }
    let mut bytes = Vec::new();
    let limit = u64::try_from(PIPED_AT_MOST).unwrap_or(u64::MAX) + 1;
    if let Err(e) = stdin.lock().take(limit).read_to_end(&mut bytes) {
        errln!("reasonix: cannot read stdin: {e}; running without it");
        return None;
    }
    let cut = bytes.len() > PIPED_AT_MOST;
    bytes.truncate(PIPED_AT_MOST);
    let text = String::from_utf8_lossy(&bytes);
    // A cut inside a UTF-8 sequence leaves one replacement character at the end.
    let text = if cut {
        text.trim_end_matches('\u{fffd}')
    } else {
        &text
    };
    let text = text.trim_end();
    if text.trim().is_empty() {
        return None;
    }
    Some(Piped {
        text: text.to_string(),
        cut,
    })
}

pub struct Piped {
    pub text: String,
    /// More than [`PIPED_AT_MOST`] bytes were piped.
    pub cut: bool,
}

impl Piped {
    /// The task with the piped text after it.
    pub fn append_to(&self, task: &str) -> String {
        let mut out = format!("{task}\n\n{}", self.text);
        if self.cut {
            out.push_str(&format!(
                "\n\n[stdin was cut at {} KiB; the rest was not read]",
                PIPED_AT_MOST / 1024
            ));
        }
        out
    }
}

/// True when stdin has a byte or its end within `wait` (a regular file or `/dev/null` at once).
#[cfg(unix)]
fn speaks_within(wait: Duration) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let stdin = rustix::stdio::stdin();
    let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
    let timeout = Timespec {
        tv_sec: i64::try_from(wait.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(wait.subsec_nanos()),
    };
    match poll(&mut fds, Some(&timeout)) {
        Ok(n) => n > 0,
        // Not pollable: read it as it is.
        Err(_) => true,
    }
}

#[cfg(not(unix))]
fn speaks_within(_wait: Duration) -> bool {
    true
}
