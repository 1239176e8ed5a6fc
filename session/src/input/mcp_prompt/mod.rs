//! MCP prompts typed as commands: `/mcp__<server>__<prompt> args…`.

pub mod args;
pub mod command;
