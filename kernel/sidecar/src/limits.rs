//! The protocol's limits (inventory §2.2).

use std::time::Duration;

/// Largest frame in either direction; a bigger one is fatal (`frame_too_large`).
pub const FRAME_BYTES: usize = 8 * 1024 * 1024;
/// Default deadline of an intercept at input, tool and permission points.
pub const INTERCEPT_SHORT: Duration = Duration::from_secs(5);
/// Default deadline of an intercept at session, context, compaction and system-prompt points.
pub const INTERCEPT_LONG: Duration = Duration::from_secs(30);
/// The most a manifest may raise an intercept deadline to.
pub const INTERCEPT_CEILING_MS: u64 = 60_000;
/// Deadline of `extension/tool/call`.
pub const TOOL_CALL: Duration = Duration::from_secs(300);
/// Shared budget for starting every sidecar of one run.
pub const STARTUP_BUDGET: Duration = Duration::from_secs(30);
/// Sidecars initialised at once.
pub const STARTUP_PARALLEL: usize = 4;
/// How long `extension/shutdown` may take before stdin is closed and the group killed.
pub const SHUTDOWN: Duration = Duration::from_secs(2);
/// Bytes of stderr kept for error messages.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// The protocol identity a sidecar must answer with.
pub const PROTOCOL_ID: &str = "reasonix.extension.v2";
pub const PROTOCOL_VERSION: &str = "2";

/// The default deadline of an intercept at `point`.
pub fn intercept_timeout(point: &str) -> Duration {
    let family = point.split('.').next().unwrap_or(point);
    match family {
        "session" | "context" | "compaction" | "system_prompt" => INTERCEPT_LONG,
        _ => INTERCEPT_SHORT,
    }
}
