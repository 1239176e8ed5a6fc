//! The end of a server's stderr, kept for error reports; everything before it is counted and
//! dropped, so a server that floods stderr costs a fixed amount of memory.

use crate::limits::STDERR_TAIL_BYTES;
use std::collections::VecDeque;
use std::sync::Mutex;
use tokio::io::{AsyncRead, AsyncReadExt};

#[derive(Debug)]
pub struct StderrTail {
    inner: Mutex<Tail>,
    /// `true` once the stream reached its end (the process and its children closed it).
    drained: tokio::sync::watch::Sender<bool>,
}

impl Default for StderrTail {
    fn default() -> StderrTail {
        StderrTail {
            inner: Mutex::default(),
            drained: tokio::sync::watch::Sender::new(false),
        }
    }
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
                Ok(0) | Err(_) => break,
                Ok(n) => self.push(&buf[..n]),
            }
        }
        self.drained.send_replace(true);
    }

    /// Wait until [`drain`](Self::drain) read the stream to its end, at most `limit`: a
    /// process that exited has usually written its last words, and a report of its failure
    /// should carry them (a child it left behind may hold the pipe open, hence the limit).
    pub async fn wait_drained(&self, limit: std::time::Duration) {
        let mut drained = self.drained.subscribe();
        let _ = tokio::time::timeout(limit, drained.wait_for(|done| *done)).await;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waiting_for_the_end_sees_everything_written_before_it() {
        let tail = std::sync::Arc::new(StderrTail::default());
        let (mut writer, reader) = tokio::io::duplex(64);
        let drain = tail.clone();
        let task = tokio::spawn(async move { drain.drain(reader).await });
        use tokio::io::AsyncWriteExt;
        writer.write_all(b"last words\n").await.unwrap();
        drop(writer);
        tail.wait_drained(std::time::Duration::from_secs(10)).await;
        assert_eq!(tail.text(), "last words\n");
        task.await.unwrap();
        // Once drained, waiting returns at once; a stream still open is waited for only
        // as long as the limit says.
        tail.wait_drained(std::time::Duration::from_secs(3600))
            .await;
        let open = StderrTail::default();
        open.wait_drained(std::time::Duration::from_millis(10))
            .await;
    }

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
