//! Capabilities: what a plugin asks for, what it was granted, and the effective set
//! (requested ∧ granted) its sandbox is built from. Deny by default.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Filesystem access to the workspace, ordered from least to most.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkspaceAccess {
    #[default]
    None,
    Read,
    ReadWrite,
}

impl fmt::Display for WorkspaceAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WorkspaceAccess::None => "none",
            WorkspaceAccess::Read => "read",
            WorkspaceAccess::ReadWrite => "read-write",
        })
    }
}

/// A set of capabilities: either what a plugin requests or what a user grants.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Capabilities {
    pub workspace: WorkspaceAccess,
    pub network: Vec<String>,
    pub env: Vec<String>,
    pub process: bool,
}

impl Capabilities {
    /// Everything in `self` that `grant` also allows. Network patterns and env names must be
    /// granted literally; a grant of `*` covers any network pattern.
    pub fn intersect(&self, grant: &Capabilities) -> Capabilities {
        Capabilities {
            workspace: self.workspace.min(grant.workspace),
            network: self
                .network
                .iter()
                .filter(|p| grant.network.iter().any(|g| g == "*" || g == *p))
                .cloned()
                .collect(),
            env: self
                .env
                .iter()
                .filter(|n| grant.env.contains(n))
                .cloned()
                .collect(),
            process: self.process && grant.process,
        }
    }

    /// Plain words for each capability, as shown to a user deciding on a grant.
    pub fn describe(&self) -> Vec<String> {
        let mut lines = Vec::new();
        match self.workspace {
            WorkspaceAccess::None => {}
            WorkspaceAccess::Read => lines.push("read files in the workspace".to_string()),
            WorkspaceAccess::ReadWrite => {
                lines.push("read and write files in the workspace".to_string())
            }
        }
        for pattern in &self.network {
            lines.push(format!("connect to {pattern}"));
        }
        for name in &self.env {
            lines.push(format!("read the environment variable {name}"));
        }
        if self.process {
            lines.push("run commands in the OS sandbox".to_string());
        }
        lines
    }

    /// Compact one-line form, e.g. `workspace:read, process`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.workspace != WorkspaceAccess::None {
            parts.push(format!("workspace:{}", self.workspace));
        }
        parts.extend(self.network.iter().map(|p| format!("network:{p}")));
        parts.extend(self.env.iter().map(|n| format!("env:{n}")));
        if self.process {
            parts.push("process".to_string());
        }
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// Resource limits for each call into a plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Limits {
    pub memory_mib: u64,
    pub call_timeout_ms: u64,
    /// What the host may hold on the plugin's behalf during one call.
    pub host: HostLimits,
}

/// Host-side resources one call may make the host hold. Linear memory is capped by
/// `memory_mib`, but headers, buffers, descriptors and log lines live in the host's own memory
/// and descriptor table: without these a plugin with no capabilities could raise the host to
/// gigabytes or exhaust its descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HostLimits {
    /// Live handles (files, streams, pollables, HTTP fields, requests…) in the call's resource
    /// table. Real plugins hold tens; each handle costs host memory.
    pub table_entries: u32,
    /// Bytes of HTTP header names and values written into `wasi:http` fields during one call
    /// (counted as written, not released on drop: it bounds what the host can be made to
    /// hold). Typical requests carry under 2 KiB of headers.
    pub header_bytes: u64,
    /// Outgoing HTTP bodies one call may open; the host buffers up to
    /// [`HostLimits::BODY_BUFFER_BYTES`] for each.
    pub http_bodies: u32,
    /// Files and directories open at once (each is a host descriptor).
    pub open_files: u32,
    /// Bytes of log lines and progress messages one call may send to the host; beyond it lines
    /// are dropped (with one notice), the call goes on.
    pub log_bytes: u64,
}

impl HostLimits {
    pub const DEFAULT: HostLimits = HostLimits {
        table_entries: 10_000,
        header_bytes: 8 << 20,
        http_bodies: 64,
        open_files: 256,
        log_bytes: 1 << 20,
    };
    /// What the host buffers for one outgoing body that the far end has not taken yet.
    pub const BODY_BUFFER_BYTES: usize = 256 << 10;
    /// Chunk size of outgoing body writes; two chunks are buffered per body.
    pub const BODY_CHUNK_BYTES: usize = Self::BODY_BUFFER_BYTES / 2;
}

impl Default for HostLimits {
    fn default() -> HostLimits {
        HostLimits::DEFAULT
    }
}

impl Limits {
    pub const DEFAULT_MEMORY_MIB: u64 = 256;
    pub const MAX_MEMORY_MIB: u64 = 4096;
    pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 60_000;
    pub const MAX_CALL_TIMEOUT_MS: u64 = 3_600_000;

    /// The limits a plugin runs with: the user's override, else the plugin's request, else the
    /// default — always capped by the host maximum.
    pub fn resolve(
        requested_memory_mib: Option<u64>,
        requested_timeout_ms: Option<u64>,
        override_memory_mib: Option<u64>,
        override_timeout_ms: Option<u64>,
    ) -> Limits {
        let memory = override_memory_mib
            .or(requested_memory_mib)
            .unwrap_or(Self::DEFAULT_MEMORY_MIB)
            .clamp(1, Self::MAX_MEMORY_MIB);
        let timeout = override_timeout_ms
            .or(requested_timeout_ms)
            .unwrap_or(Self::DEFAULT_CALL_TIMEOUT_MS)
            .clamp(1, Self::MAX_CALL_TIMEOUT_MS);
        Limits {
            memory_mib: memory,
            call_timeout_ms: timeout,
            host: HostLimits::DEFAULT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(ws: WorkspaceAccess, net: &[&str], process: bool) -> Capabilities {
        Capabilities {
            workspace: ws,
            network: net.iter().map(|s| s.to_string()).collect(),
            env: vec![],
            process,
        }
    }

    #[test]
    fn intersection_is_the_weaker_of_both() {
        let cases = [
            (
                WorkspaceAccess::ReadWrite,
                WorkspaceAccess::Read,
                WorkspaceAccess::Read,
            ),
            (
                WorkspaceAccess::Read,
                WorkspaceAccess::ReadWrite,
                WorkspaceAccess::Read,
            ),
            (
                WorkspaceAccess::ReadWrite,
                WorkspaceAccess::None,
                WorkspaceAccess::None,
            ),
            (
                WorkspaceAccess::None,
                WorkspaceAccess::ReadWrite,
                WorkspaceAccess::None,
            ),
        ];
        for (requested, granted, effective) in cases {
            let got = caps(requested, &[], false).intersect(&caps(granted, &[], false));
            assert_eq!(got.workspace, effective, "{requested} ∧ {granted}");
        }
    }

    #[test]
    fn network_needs_a_matching_grant() {
        let requested = caps(
            WorkspaceAccess::None,
            &["https://a.com", "https://b.com"],
            true,
        );
        let granted = caps(WorkspaceAccess::None, &["https://b.com"], false);
        let eff = requested.intersect(&granted);
        assert_eq!(eff.network, vec!["https://b.com".to_string()]);
        assert!(!eff.process);
        let all = requested.intersect(&caps(WorkspaceAccess::None, &["*"], true));
        assert_eq!(all.network.len(), 2);
        assert!(all.process);
    }

    #[test]
    fn limits_prefer_override_then_request_and_cap() {
        let l = Limits::resolve(Some(64), Some(1000), None, Some(50));
        assert_eq!((l.memory_mib, l.call_timeout_ms), (64, 50));
        let l = Limits::resolve(None, None, Some(1_000_000), None);
        assert_eq!(l.memory_mib, Limits::MAX_MEMORY_MIB);
        assert_eq!(l.call_timeout_ms, Limits::DEFAULT_CALL_TIMEOUT_MS);
    }

    #[test]
    fn summary_reads_well() {
        assert_eq!(Capabilities::default().summary(), "none");
        assert_eq!(
            caps(WorkspaceAccess::Read, &["https://x"], true).summary(),
            "workspace:read, network:https://x, process"
        );
    }
}
