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
        exceeded: crate::host::limits::LimitExceeded,
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

/// Why a component could not be loaded. Each names the file (or built-in) it is about.
#[derive(Debug, Error)]
pub enum LoadError {
    #[error("{origin}: cannot read: {source}")]
    Read {
        origin: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{origin}: {reason}")]
    NotAComponent { origin: String, reason: String },
    #[error(
        "{origin}: built for {package}@{found}, but this Reasonix supports {package}@{supported}; rebuild the plugin against a supported version"
    )]
    UnsupportedVersion {
        origin: String,
        package: String,
        found: String,
        supported: String,
    },
    #[error("{origin}: invalid component: {message}")]
    Invalid { origin: String, message: String },
    #[error("{origin}: {message}")]
    Link { origin: String, message: String },
    #[error("{origin}: failed to describe itself: {source}")]
    Describe {
        origin: String,
        #[source]
        source: CallError,
    },
    #[error("{origin}: {message}")]
    BadMetadata { origin: String, message: String },
    /// The same bytes failed to describe themselves on an earlier start.
    #[error(
        "{origin}: {message} (remembered from an earlier start: it is described again when the file changes, or by `reasonix plugin install`/`update`)"
    )]
    RememberedFailure { origin: String, message: String },
    #[error(
        "{what} `{}` is served by both {first} and {second}; the second was not loaded (disable one of them)",
        crate::terminal::shown(.name)
    )]
    Clash {
        what: &'static str,
        name: String,
        first: String,
        second: String,
    },
    #[error(
        "{origin}: sha256 {actual} does not match the index ({expected}); the file changed since it was installed — reinstall it"
    )]
    HashMismatch {
        origin: String,
        expected: String,
        actual: String,
    },
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
