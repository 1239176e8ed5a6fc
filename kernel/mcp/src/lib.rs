//! The MCP tier (issue #15): Model Context Protocol servers' tools, prompts and resources,
//! reached through the official SDK (`rmcp`) behind Reasonix's own types.
#![forbid(unsafe_code)]

pub mod http;
