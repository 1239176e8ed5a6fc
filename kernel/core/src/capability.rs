//! Capabilities: what a plugin asks for, what it was granted, and the effective set
//! (requested ∧ granted) its sandbox is built from. Deny by default.

use crate::terminal::shown;
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

    /// Plain words for each capability, as shown to a user deciding on a grant: one line each,
    /// the plugin's own strings escaped for the terminal, so none can hide another.
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
            lines.push(format!("connect to {}", shown(pattern)));
        }
        for name in &self.env {
            lines.push(format!("read the environment variable {}", shown(name)));
        }
        if self.process {
            lines.push("run commands in the OS sandbox".to_string());
        }
        lines
    }

    /// Check a plugin's request: every env name is a valid variable name
    /// (`[A-Za-z_][A-Za-z0-9_]*`) and every network pattern parses (`*` or
    /// `scheme://host[:port]`, no surrounding space). A request that fails is refused whole,
    /// naming the bad entry (escaped for the terminal), so nothing odd reaches the install
    /// question or the sandbox.
    pub fn validate_request(&self) -> Result<(), String> {
        for name in &self.env {
            if !is_env_name(name) {
                return Err(format!(
                    "requested environment variable `{}` is not a valid name (letters, digits and `_`, not starting with a digit)",
                    shown(name)
                ));
            }
        }
        for pattern in &self.network {
            if pattern.trim() != pattern {
                return Err(format!(
                    "requested network pattern `{}` has surrounding whitespace",
                    shown(pattern)
                ));
            }
            crate::origin::Pattern::parse(pattern).map_err(|e| {
                format!(
                    "requested network pattern `{}` is invalid: {}",
                    shown(pattern),
                    shown(&e)
                )
            })?;
        }
        Ok(())
    }

    /// Compact one-line form, e.g. `workspace:read, process`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.workspace != WorkspaceAccess::None {
            parts.push(format!("workspace:{}", self.workspace));
        }
        parts.extend(self.network.iter().map(|p| format!("network:{}", shown(p))));
        parts.extend(self.env.iter().map(|n| format!("env:{}", shown(n))));
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

/// `[A-Za-z_][A-Za-z0-9_]*`: what a shell and every platform accept as a variable name.
pub fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
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

/// A partial set of limits: what a plugin requests, what the user granted at install (kept in
/// the plugin index), or what a config file sets. `None` means "not said".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimitValues {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_timeout_ms: Option<u64>,
}

impl LimitValues {
    pub fn is_empty(&self) -> bool {
        self.memory_mib.is_none() && self.call_timeout_ms.is_none()
    }

    /// What has to be granted for a plugin requesting `self`: each request above the default,
    /// capped at the host maximum. Requests up to the defaults need no grant.
    pub fn needing_grant(&self) -> LimitValues {
        LimitValues {
            memory_mib: self
                .memory_mib
                .filter(|m| *m > Limits::DEFAULT_MEMORY_MIB)
                .map(|m| m.min(Limits::MAX_MEMORY_MIB)),
            call_timeout_ms: self
                .call_timeout_ms
                .filter(|t| *t > Limits::DEFAULT_CALL_TIMEOUT_MS)
                .map(|t| t.min(Limits::MAX_CALL_TIMEOUT_MS)),
        }
    }

    /// True when `self` (a grant) covers every limit in `needed`.
    pub fn covers(&self, needed: &LimitValues) -> bool {
        let ok = |granted: Option<u64>, needed: Option<u64>| match needed {
            None => true,
            Some(n) => granted.is_some_and(|g| g >= n),
        };
        ok(self.memory_mib, needed.memory_mib) && ok(self.call_timeout_ms, needed.call_timeout_ms)
    }

    /// The part of `self` (a request) that `grant` allows.
    pub fn intersect(&self, grant: &LimitValues) -> LimitValues {
        let min = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            _ => None,
        };
        LimitValues {
            memory_mib: min(self.memory_mib, grant.memory_mib),
            call_timeout_ms: min(self.call_timeout_ms, grant.call_timeout_ms),
        }
    }

    /// Plain words for each limit, as shown to a user deciding on a grant.
    pub fn describe(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(m) = self.memory_mib {
            lines.push(format!(
                "use up to {m} MiB of memory per call (default {} MiB)",
                Limits::DEFAULT_MEMORY_MIB
            ));
        }
        if let Some(t) = self.call_timeout_ms {
            lines.push(format!(
                "run up to {t} ms per call (default {} ms)",
                Limits::DEFAULT_CALL_TIMEOUT_MS
            ));
        }
        lines
    }

    /// Compact form, e.g. `memory_mib=4096, call_timeout_ms=3600000` (empty when unset).
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = self.memory_mib {
            parts.push(format!("memory_mib={m}"));
        }
        if let Some(t) = self.call_timeout_ms {
            parts.push(format!("call_timeout_ms={t}"));
        }
        parts.join(", ")
    }
}

impl Limits {
    pub const DEFAULT_MEMORY_MIB: u64 = 256;
    pub const MAX_MEMORY_MIB: u64 = 4096;
    pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 60_000;
    pub const MAX_CALL_TIMEOUT_MS: u64 = 3_600_000;

    /// The limits a plugin runs with. The value chosen is the config's (`[plugin.<name>]`,
    /// user or project file), else the plugin's request, else the default; it is then capped
    /// by what may be used without asking — the default, raised only by the user's grant at
    /// install (`granted`) or by the user's own config file (`user`), never by the plugin or
    /// a project file — and by the host maximum.
    pub fn resolve(
        requested: LimitValues,
        granted: LimitValues,
        configured: LimitValues,
        user: LimitValues,
    ) -> Limits {
        let one = |requested: Option<u64>,
                   granted: Option<u64>,
                   configured: Option<u64>,
                   user: Option<u64>,
                   default: u64,
                   max: u64| {
            let chosen = configured.or(requested).unwrap_or(default);
            let allowed = default.max(granted.unwrap_or(0)).max(user.unwrap_or(0));
            chosen.min(allowed).clamp(1, max)
        };
        Limits {
            memory_mib: one(
                requested.memory_mib,
                granted.memory_mib,
                configured.memory_mib,
                user.memory_mib,
                Self::DEFAULT_MEMORY_MIB,
                Self::MAX_MEMORY_MIB,
            ),
            call_timeout_ms: one(
                requested.call_timeout_ms,
                granted.call_timeout_ms,
                configured.call_timeout_ms,
                user.call_timeout_ms,
                Self::DEFAULT_CALL_TIMEOUT_MS,
                Self::MAX_CALL_TIMEOUT_MS,
            ),
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

    fn lv(memory_mib: Option<u64>, call_timeout_ms: Option<u64>) -> LimitValues {
        LimitValues {
            memory_mib,
            call_timeout_ms,
        }
    }

    #[test]
    fn limits_prefer_config_then_request_and_cap() {
        let none = LimitValues::default();
        // Below the defaults, the plugin's request and the config both apply.
        let l = Limits::resolve(lv(Some(64), Some(1000)), none, lv(None, Some(50)), none);
        assert_eq!((l.memory_mib, l.call_timeout_ms), (64, 50));
        // The user's own config may raise up to the host maximum.
        let big = lv(Some(1_000_000), None);
        let l = Limits::resolve(none, none, big, big);
        assert_eq!(l.memory_mib, Limits::MAX_MEMORY_MIB);
        assert_eq!(l.call_timeout_ms, Limits::DEFAULT_CALL_TIMEOUT_MS);
    }

    #[test]
    fn limits_above_the_defaults_need_a_grant() {
        let none = LimitValues::default();
        let asks = lv(Some(4096), Some(3_600_000));
        // Asking is not enough.
        let l = Limits::resolve(asks, none, none, none);
        assert_eq!(
            (l.memory_mib, l.call_timeout_ms),
            (Limits::DEFAULT_MEMORY_MIB, Limits::DEFAULT_CALL_TIMEOUT_MS)
        );
        // A grant allows up to what was granted.
        let l = Limits::resolve(asks, lv(Some(1024), Some(3_600_000)), none, none);
        assert_eq!((l.memory_mib, l.call_timeout_ms), (1024, 3_600_000));
        // A project file (configured, not the user's) cannot raise.
        let l = Limits::resolve(none, none, asks, none);
        assert_eq!(
            (l.memory_mib, l.call_timeout_ms),
            (Limits::DEFAULT_MEMORY_MIB, Limits::DEFAULT_CALL_TIMEOUT_MS)
        );
        // … but it can lower.
        let l = Limits::resolve(asks, asks, lv(Some(32), None), none);
        assert_eq!((l.memory_mib, l.call_timeout_ms), (32, 3_600_000));
    }

    #[test]
    fn limit_grants_cover_only_what_they_say() {
        let asks = lv(Some(8192), Some(1000));
        let needed = asks.needing_grant();
        assert_eq!(needed, lv(Some(Limits::MAX_MEMORY_MIB), None));
        assert!(!LimitValues::default().covers(&needed));
        assert!(lv(Some(4096), None).covers(&needed));
        assert!(!lv(Some(1024), None).covers(&needed));
        assert!(LimitValues::default().covers(&LimitValues::default()));
        assert_eq!(needed.describe().len(), 1);
    }

    #[test]
    fn requests_with_odd_env_names_or_patterns_are_refused() {
        let env = |name: &str| Capabilities {
            env: vec![name.to_string()],
            ..Capabilities::default()
        };
        let net = |pattern: &str| Capabilities {
            network: vec![pattern.to_string()],
            ..Capabilities::default()
        };
        for ok in ["HOME", "_X", "a1_B"] {
            assert!(env(ok).validate_request().is_ok(), "{ok}");
        }
        for bad in ["", "1X", "A-B", "A B", "X\u{1b}[1A\u{1b}[M", "X\n", "É"] {
            let err = env(bad).validate_request().unwrap_err();
            assert!(!err.contains('\u{1b}') && !err.contains('\n'), "{err:?}");
        }
        for ok in [
            "*",
            "https://api.example.com",
            "http://*.example.com:*",
            "https://[::1]:8080/",
        ] {
            assert!(net(ok).validate_request().is_ok(), "{ok}");
        }
        for bad in [
            "",
            " *",
            "*\n",
            "ftp://x.com",
            "https://x.com/path",
            "https://x\u{1b}[1A.com",
            "https://x.com\u{202e}",
        ] {
            let err = net(bad).validate_request().unwrap_err();
            assert!(!err.contains(['\u{1b}', '\n', '\u{202e}']), "{err:?}");
        }
    }

    #[test]
    fn described_capabilities_hide_nothing() {
        let caps = Capabilities {
            network: vec!["https://a.com\u{1b}[1A\u{1b}[M".to_string()],
            env: vec!["X\n  - nothing".to_string()],
            ..Capabilities::default()
        };
        for line in caps.describe() {
            assert!(!line.contains(['\u{1b}', '\n']), "{line:?}");
        }
        assert!(!caps.summary().contains(['\u{1b}', '\n']));
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
