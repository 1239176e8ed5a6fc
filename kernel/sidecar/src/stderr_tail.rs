//! The last bytes a sidecar wrote to stderr, kept for error messages: bounded, with credential
//! shapes redacted and terminal controls escaped before anyone prints them.

use crate::limits::STDERR_TAIL_BYTES;
use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A bounded tail of a stream, filled by a reader thread.
#[derive(Default)]
pub struct StderrTail {
    state: Mutex<TailState>,
    closed: Condvar,
}

#[derive(Default)]
struct TailState {
    bytes: VecDeque<u8>,
    closed: bool,
}

impl StderrTail {
    /// Read `stream` to its end on a thread of its own, keeping the last bytes.
    pub fn spawn(stream: impl Read + Send + 'static, name: &str) -> Arc<StderrTail> {
        let tail = Arc::new(StderrTail::default());
        let filler = tail.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("sidecar-stderr-{name}"))
            .spawn(move || filler.fill(stream));
        if spawned.is_err() {
            tail.close();
        }
        tail
    }

    fn fill(&self, mut stream: impl Read) {
        let mut chunk = [0u8; 4096];
        loop {
            match stream.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => self.push(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        self.close();
    }

    /// Append bytes, dropping the oldest beyond the limit.
    pub fn push(&self, bytes: &[u8]) {
        let mut state = self.lock();
        let bytes = &bytes[bytes.len().saturating_sub(STDERR_TAIL_BYTES)..];
        state.bytes.extend(bytes);
        let excess = state.bytes.len().saturating_sub(STDERR_TAIL_BYTES);
        state.bytes.drain(..excess);
    }

    fn close(&self) {
        self.lock().closed = true;
        self.closed.notify_all();
    }

    /// Wait (at most `limit`) until the stream has ended, so a crash report has the last words.
    pub fn wait_closed(&self, limit: Duration) {
        let state = self.lock();
        let _ = self.closed.wait_timeout_while(state, limit, |s| !s.closed);
    }

    /// The tail, redacted and safe to print.
    pub fn render(&self) -> String {
        let bytes: Vec<u8> = self.lock().bytes.iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let redacted = redact(text.trim_end());
        reasonix_core::terminal::text(&redacted).into_owned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TailState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Prefixes of API keys and tokens that are never shown.
const KEY_PREFIXES: &[&str] = &[
    "sk-",
    "sk_",
    "pk_",
    "rk_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxs-",
    "AKIA",
    "ASIA",
    "AIza",
    "glpat-",
    "hf_",
    "npm_",
];

/// Words that make the value after `=` or `:` a secret.
const SECRET_WORDS: &[&str] = &[
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "credential",
    "auth",
];

/// Replace credential shapes with `[REDACTED]`: key-shaped words, the word after `Bearer`, and
/// values of `name=value` / `name: value` pairs whose name says secret.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut redact_next = false;
    for piece in split_keep(text) {
        if piece.chars().all(|c| !is_word(c)) {
            out.push_str(piece);
            continue;
        }
        let lower = piece.to_ascii_lowercase();
        if redact_next && lower != "bearer" && lower != "basic" {
            out.push_str("[REDACTED]");
            redact_next = false;
            continue;
        }
        if lower == "bearer" || lower == "basic" {
            out.push_str(piece);
            redact_next = true;
        } else if looks_like_key(piece) {
            out.push_str("[REDACTED]");
        } else if let Some(split) = piece.find(['=', ':']) {
            let (name, value) = piece.split_at(split);
            let name_lower = name.to_ascii_lowercase();
            if SECRET_WORDS.iter().any(|w| name_lower.contains(w)) {
                out.push_str(name);
                out.push_str(&value[..1]);
                if value.len() > 1 {
                    out.push_str("[REDACTED]");
                } else {
                    redact_next = true;
                }
            } else {
                out.push_str(piece);
            }
        } else {
            out.push_str(piece);
        }
    }
    out
}

fn is_word(c: char) -> bool {
    !c.is_whitespace()
        && !matches!(
            c,
            '"' | '\'' | ',' | ';' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>'
        )
}

/// Split into runs of word and non-word characters, keeping both.
fn split_keep(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut in_word = None;
    for (i, c) in text.char_indices() {
        let w = is_word(c);
        if in_word.is_some_and(|prev| prev != w) {
            pieces.push(&text[start..i]);
            start = i;
        }
        in_word = Some(w);
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

fn looks_like_key(word: &str) -> bool {
    KEY_PREFIXES
        .iter()
        .any(|p| word.starts_with(p) && word.len() >= p.len() + 8)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn redacts_credential_shapes() {
        let text = "using sk-abcdefghijklmnop and Authorization: Bearer abc.def.ghi\nAPI_KEY=hunter22 token: xyz ok=fine";
        let out = redact(text);
        for secret in ["sk-abcdefghijklmnop", "abc.def.ghi", "hunter22", "xyz"] {
            assert!(!out.contains(secret), "{out}");
        }
        assert!(out.contains("ok=fine") && out.contains("using"), "{out}");
    }

    #[test]
    fn keeps_only_the_last_bytes_and_escapes_controls() {
        let tail = StderrTail::default();
        for _ in 0..100 {
            tail.push(&[b'a'; 1000]);
        }
        tail.push(b"\x1b[31mred\x1b]0;title\x07 end");
        let shown = tail.render();
        assert!(shown.len() <= STDERR_TAIL_BYTES * 6, "{}", shown.len());
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
            "{shown}"
        );
        assert!(shown.ends_with("end"), "{shown}");
    }

    proptest::proptest! {
        #[test]
        fn redaction_never_panics_and_removes_keys(prefix in "\\PC{0,40}", key in "[A-Za-z0-9]{8,30}") {
            let text = format!("{prefix} sk-{key} rest");
            let out = redact(&text);
            let needle = format!("sk-{key}");
            proptest::prop_assert!(!out.contains(&needle));
        }
    }
}
