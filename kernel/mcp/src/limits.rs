//! Limits on what a server can make the host hold or wait for.

use std::time::Duration;

/// `[tools] mcp_startup_timeout_seconds` default: launch, `initialize` and the first listings.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// `[tools] mcp_call_timeout_seconds` default (the original's).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(300);
/// One JSON-RPC frame from a server. A larger one is dropped unread; the call it answered
/// fails with an error saying so.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;
/// The text a tool result may bring before the agent's own bounding (which is far smaller):
/// content beyond it is not even assembled.
pub const MAX_RESULT_BYTES: usize = 1024 * 1024;
/// Images of one result passed to a model; the rest are only described in the text.
pub const MAX_IMAGES: usize = 8;
/// The end of a server's stderr kept for error reports.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;
/// A tool description offered to the model (servers write essays; the prompt prefix pays).
pub const MAX_DESCRIPTION_BYTES: usize = 2 * 1024;
/// Restart backoff after a failure: doubles from the first to the last.
pub const BACKOFF_FIRST: Duration = Duration::from_secs(1);
pub const BACKOFF_MAX: Duration = Duration::from_secs(60);
