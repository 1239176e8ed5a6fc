//! The composition root of Reasonix: what a front end opens before it can run a session. It
//! loads the configuration (user, project, settings.json, the command line's overrides),
//! builds the plugin registry with the built-in components embedded at build time, starts the
//! installed sidecars and the MCP servers, composes the catalog, and builds the provider
//! client and the agent (`launch`). A front end — the interactive session, `reasonix run`,
//! later a server or an editor bridge — hands that agent to a `reasonix_session::Session`.
//!
//! Warnings go to stderr, escaped (`term`): nothing from outside reaches a terminal raw.
#![deny(unsafe_code)]

pub mod term;

pub mod builtins;
pub mod clock;
pub mod compositions;
pub mod context;
pub mod delegate;
mod error;
pub mod evidence;
pub mod goal;
pub mod history;
pub mod hooks;
pub mod hosted;
pub mod launch;
pub mod lsp;
pub mod mcp;
pub mod memory;
pub mod model_window;
pub mod open;
pub mod packages;
pub mod reasoning_language;
pub mod resume;
pub mod sidecars;
pub mod skills;

pub use error::{Error, Kind};
