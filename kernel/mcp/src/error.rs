//! What can go wrong talking to an MCP server. Every message names the server.

/// An MCP failure, for the user or (from a tool call) for the model.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum McpError {
    #[error("MCP server `{0}` is not configured")]
    Unknown(String),
    #[error("MCP server `{0}` is disabled in its configuration")]
    Disabled(String),
    #[error(
        "MCP server `{server}` comes from {file}, a project file not approved yet; run `reasonix mcp trust` (or pass --trust-mcp) to let it start"
    )]
    NotApproved { server: String, file: String },
    #[error("MCP server `{server}` could not start: {reason}")]
    Start { server: String, reason: String },
    #[error(
        "MCP server `{server}` is restarting after a failure; next attempt in {seconds} s ({reason})"
    )]
    Backoff {
        server: String,
        seconds: u64,
        reason: String,
    },
    #[error("MCP server `{server}` stopped during the call: {reason}")]
    Died { server: String, reason: String },
    #[error("MCP server `{server}` did not answer `{method}` within {seconds} s")]
    Timeout {
        server: String,
        method: String,
        seconds: u64,
    },
    #[error("the call to MCP server `{server}` was cancelled")]
    Cancelled { server: String },
    #[error("MCP server `{server}` answered `{method}` with an error: {message}")]
    Server {
        server: String,
        method: String,
        message: String,
    },
    #[error("MCP server `{server}` has no {what} `{name}`")]
    NotFound {
        server: String,
        what: &'static str,
        name: String,
    },
}
