//! Permission rules in Claude Code's syntax (`Bash(git push:*)`, `Edit(docs/**)`,
//! `mcp__server__tool`) and what they need to know about a shell command line.
//!
//! Pure and free of the agent, so that the same matcher serves the agent's permission policy
//! and the built-in `hooks` component (a hook's `if` condition), which runs as a
//! `wasm32-wasip2` component.
#![forbid(unsafe_code)]

pub mod mcp_name;
pub mod rule;
pub mod shell;

pub use rule::{Decision, Rule, RuleError, ToolKind, Use, path_arguments};

#[cfg(test)]
mod tests;
