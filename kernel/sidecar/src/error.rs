//! Errors of the sidecar tier. Each names the sidecar (its package name) and, when the process
//! misbehaved, the redacted tail of its stderr.

use reasonix_core::terminal::shown;
use std::path::PathBuf;
use thiserror::Error;

/// Why a sidecar could not be used.
#[derive(Debug, Clone, Error)]
pub enum SidecarError {
    /// A manifest that is not a valid `reasonix-plugin.json`.
    #[error("{path}: {message}")]
    Manifest { path: PathBuf, message: String },
    /// The process could not be started.
    #[error("sidecar `{}` could not be started (`{}`): {reason}", shown(.name), shown(.command))]
    Spawn {
        name: String,
        command: String,
        reason: String,
    },
    /// The connection is dead: the process exited, broke the protocol or sent an oversized
    /// frame. Every pending and later call fails with this.
    #[error("sidecar `{}` {reason}{}", shown(.name), tail_text(.stderr_tail))]
    Dead {
        name: String,
        reason: String,
        stderr_tail: String,
    },
    /// A call ran past its deadline.
    #[error("sidecar `{}` did not answer `{method}` within {timeout_ms} ms{}", shown(.name), tail_text(.stderr_tail))]
    Timeout {
        name: String,
        method: String,
        timeout_ms: u64,
        stderr_tail: String,
    },
    /// The sidecar answered a request with a JSON-RPC error.
    #[error("sidecar `{}` answered `{method}` with error {code} ({}): {}", shown(.name), shown(.reason), shown(.message))]
    Remote {
        name: String,
        method: String,
        code: i64,
        reason: String,
        message: String,
    },
    /// The handshake or a result broke the contract (not fatal to the connection by itself).
    #[error("sidecar `{}`: {reason}: {}", shown(.name), shown(.message))]
    Contract {
        name: String,
        /// The protocol's reason code, e.g. `capability_not_declared`, `schema_mismatch`.
        reason: &'static str,
        message: String,
    },
}

fn tail_text(tail: &str) -> String {
    if tail.is_empty() {
        "; its stderr was empty".to_string()
    } else {
        format!("; the end of its stderr:\n{tail}")
    }
}

impl SidecarError {
    /// The name of the sidecar concerned, when the error has one.
    pub fn sidecar(&self) -> Option<&str> {
        match self {
            SidecarError::Manifest { .. } => None,
            SidecarError::Spawn { name, .. }
            | SidecarError::Dead { name, .. }
            | SidecarError::Timeout { name, .. }
            | SidecarError::Remote { name, .. }
            | SidecarError::Contract { name, .. } => Some(name),
        }
    }
}
