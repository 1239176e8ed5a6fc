//! The end of a server's stderr, kept for error reports; everything before it is counted and
//! dropped, so a server that floods stderr costs a fixed amount of memory.

use crate::limits::STDERR_TAIL_BYTES;
use std::collections::VecDeque;
use std::sync::Mutex;
use tokio::io::{AsyncRead, AsyncReadExt};

#[derive(Debug, Default)]
pub struct StderrTail {
    inner: Mutex<Tail>,
}

#[derive(Debug, Default)]
struct Tail {
    bytes: VecDeque<u8>,
    total: u64,
}

impl StderrTail {
    pub fn push(&self, chunk: &[u8]) {
        let Ok(mut tail) = self.inner.lock() else {
            return;
        };
        tail.total += chunk.len() as u64;
        let keep = &chunk[chunk.len().saturating_sub(STDERR_TAIL_BYTES)..];
        let overflow = (tail.bytes.len() + keep.len()).saturating_sub(STDERR_TAIL_BYTES);
        tail.bytes.drain(..overflow);
        tail.bytes.extend(keep);
    }

    /// The last lines, lossily decoded (escaping is the caller's, when it shows them).
    pub fn text(&self) -> String {
        let Ok(tail) = self.inner.lock() else {
            return String::new();
        };
        let bytes: Vec<u8> = tail.bytes.iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if tail.total > tail.bytes.len() as u64 {
            // Start at a line boundary: a cut line reads as garbage.
            match text.find('\n') {
                Some(i) => text[i + 1..].to_string(),
                None => text,
            }
        } else {
            text
        }
    }

    /// Read `stream` to its end into this tail.
    pub async fn drain(&self, mut stream: impl AsyncRead + Unpin) {
        let mut buf = vec![0u8; 8192];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => self.push(&buf[..n]),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_keeps_only_the_tail() {
        let tail = StderrTail::default();
        for i in 0..100_000 {
            tail.push(format!("line {i}\n").as_bytes());
        }
        let text = tail.text();
        assert!(text.len() <= STDERR_TAIL_BYTES);
        assert!(text.ends_with("line 99999\n"));
        assert!(
            text.starts_with("line "),
            "starts at a line: {:?}",
            &text[..20]
        );
    }

    #[test]
    fn a_short_stderr_is_kept_whole() {
        let tail = StderrTail::default();
        tail.push(b"first\nsecond\n");
        assert_eq!(tail.text(), "first\nsecond\n");
    }
}
