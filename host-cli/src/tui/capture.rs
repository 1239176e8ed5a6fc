//! While the session owns the terminal, whatever is written to stderr (a plugin's log line,
//! a warning, a library's message) would land in the middle of the frame. So fd 2 is pointed
//! at a pipe whose lines come back as notices in the transcript (escaped, bounded), and is
//! restored when the session ends.

use super::msg::Msg;
use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::Sender;

/// A line longer than this is cut (a flood must not grow memory without bound).
const MAX_LINE: usize = 4096;

/// Restores the original stderr when dropped.
pub struct Capture {
    #[cfg(unix)]
    original: Option<std::os::fd::OwnedFd>,
}

#[cfg(unix)]
pub fn start(to_ui: Sender<Msg>) -> Capture {
    use rustix::pipe::pipe;
    let Ok(original) = rustix::io::dup(rustix::stdio::stderr()) else {
        return Capture { original: None };
    };
    let Ok((reader, writer)) = pipe() else {
        return Capture { original: None };
    };
    if rustix::stdio::dup2_stderr(&writer).is_err() {
        return Capture { original: None };
    }
    drop(writer);
    let spawned = std::thread::Builder::new()
        .name("reasonix-stderr".into())
        .spawn(move || {
            let mut lines = BufReader::new(std::fs::File::from(reader));
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match lines
                    .by_ref()
                    .take(MAX_LINE as u64)
                    .read_until(b'\n', &mut buf)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&buf);
                        let text = text.trim_end();
                        if !text.is_empty() && to_ui.send(Msg::Stderr(text.to_string())).is_err() {
                            break;
                        }
                    }
                }
            }
        });
    if spawned.is_err() {
        let _ = rustix::stdio::dup2_stderr(&original);
        return Capture { original: None };
    }
    Capture {
        original: Some(original),
    }
}

#[cfg(not(unix))]
pub fn start(_to_ui: Sender<Msg>) -> Capture {
    Capture {}
}

impl Drop for Capture {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(original) = self.original.take() {
            let _ = rustix::stdio::dup2_stderr(&original);
        }
    }
}
