//! Idle keep-alive connections to provider endpoints, by origin, shared by the whole process.
//! A provider opens one request per model turn; reusing the connection saves a TCP and TLS
//! handshake (tens to hundreds of milliseconds against a remote API) on every turn after the
//! first. A connection goes back to the pool only once its response body has been read to the
//! end; a stream that is dropped early closes its connection instead.

use hyper::client::conn::http1::SendRequest;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};
use wasmtime_wasi_http::WasiBody;

/// Idle connections older than this are closed rather than reused: servers drop idle
/// keep-alive connections after a while, and a request on one they just closed fails.
const MAX_IDLE: Duration = Duration::from_secs(30);
/// Idle connections kept per origin.
const MAX_PER_ORIGIN: usize = 4;

struct Idle {
    sender: SendRequest<WasiBody>,
    since: Instant,
}

#[derive(Default)]
pub struct Pool {
    idle: Mutex<HashMap<String, Vec<Idle>>>,
}

pub fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::default)
}

impl Pool {
    /// An open idle connection to `origin`, newest first; stale or closed ones are dropped.
    /// It may not be ready yet: its driver marks it ready a moment after the previous response
    /// ended, so the caller waits for [`SendRequest::ready`] (bounded) before using it.
    pub fn take(&self, origin: &str) -> Option<SendRequest<WasiBody>> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let list = idle.get_mut(origin)?;
        while let Some(candidate) = list.pop() {
            if candidate.since.elapsed() < MAX_IDLE && !candidate.sender.is_closed() {
                return Some(candidate.sender);
            }
        }
        None
    }

    /// Keep a connection whose last response was read to the end.
    pub fn put(&self, origin: String, sender: SendRequest<WasiBody>) {
        if sender.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let list = idle.entry(origin).or_default();
        list.retain(|i| i.since.elapsed() < MAX_IDLE && !i.sender.is_closed());
        if list.len() >= MAX_PER_ORIGIN {
            list.remove(0);
        }
        list.push(Idle {
            sender,
            since: Instant::now(),
        });
    }
}
