//! Errors of the kernel. Plugin-reported failures keep their WIT case so callers can branch.

use std::path::PathBuf;
use thiserror::Error;

/// A failure a plugin reported through the `error` variant of the contract.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PluginError {
    #[error("invalid input: {0}")]
    InvalidInput(String),
    #[error("denied: {0}")]
    Denied(String),
    #[error("not found: {0}")]
    NotFound(String),
    #[error("timed out: {0}")]
    Timeout(String),
    #[error("cancelled")]
    Cancelled,
    #[error("rate limited: {message}")]
    RateLimited {
        retry_after_ms: Option<u64>,
        message: String,
    },
    #[error("authentication failed: {0}")]
    Auth(String),
    #[error("HTTP {status}: {body}")]
    Http { status: u16, body: String },
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("{message} [{code}]")]
    Other {
        code: String,
        message: String,
        retryable: bool,
        detail: Option<String>,
    },
}

/// Why one call into a plugin failed.
#[derive(Debug, Error)]
pub enum CallError {
    /// The plugin answered with an error; the model can read it and retry.
    #[error("{0}")]
    Plugin(#[from] PluginError),
    /// The plugin ran past its deadline and was stopped.
    #[error("plugin `{plugin}` was stopped after exceeding its {timeout_ms} ms deadline")]
    Deadline { plugin: String, timeout_ms: u64 },
    /// The plugin tried to use more memory than its limit.
    #[error("plugin `{plugin}` was stopped after exceeding its memory limit of {limit_mib} MiB")]
    Memory { plugin: String, limit_mib: u64 },
    /// The plugin made the host hold more than one of its host limits allows (header bytes,
    /// handles, open files…).
    #[error("plugin `{plugin}` was stopped after it {exceeded}")]
    HostLimit {
        plugin: String,
        exceeded: LimitExceeded,
    },
    /// The plugin called `exit` (`wasi:cli/exit`).
    #[error("plugin `{plugin}` exited with status {status}")]
    Exited { plugin: String, status: i32 },
    /// The plugin trapped (a panic, an out-of-bounds access, an unreachable).
    #[error("plugin `{plugin}` crashed: {message}")]
    Crashed { plugin: String, message: String },
    /// No tool, kind or export by that name.
    #[error("{0}")]
    Unknown(String),
}

/// Errors reading or writing files the kernel owns (config, index, cache).
#[derive(Debug, Error)]
pub enum StateError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
}

/// A call tried to make the host hold more than one of its limits allows.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("exceeded its limit of {limit} {what}")]
pub struct LimitExceeded {
    /// What was counted, e.g. "HTTP header bytes".
    pub what: &'static str,
    pub limit: u64,
}
