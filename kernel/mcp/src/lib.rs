//! The MCP tier (issue #15): Model Context Protocol servers' tools, prompts and resources,
//! reached through the official SDK (`rmcp`) behind Reasonix's own types.
//!
//! [`Servers`] owns every configured server: each starts in the background on its own, a
//! slow or broken one never blocks the others, a dead one is restarted on its next use (with
//! backoff). Its tools are kernel [`Tool`](reasonix_core::tool::Tool)s named
//! `mcp__<server>__<tool>`; the set changes only between turns (see [`Servers::revision`]).
#![forbid(unsafe_code)]

mod client;
pub mod confine;
mod content;
pub mod error;
mod handler;
pub mod http;
pub mod limits;
mod manager;
pub mod names;
mod stderr_tail;
mod stdio;
mod tool;

pub use client::{PromptArgumentInfo, PromptInfo, ResourceInfo, ToolInfo};
pub use confine::{Confine, Confined, Confinement, Launch};
pub use error::McpError;
pub use manager::{ServerState, ServerStatus, Servers, StartOptions};
