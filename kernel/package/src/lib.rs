//! Plugin packages: a folder that brings several extensions at once — skills, custom commands,
//! sub-agent profiles, hooks, MCP servers — in Claude Code's layout
//! (`.claude-plugin/plugin.json`), Codex's (`.codex-plugin/plugin.json`) or Reasonix's native
//! `reasonix-plugin.json` v2. One model ([`Package`]) whatever the layout; one review of what
//! it can run ([`review`]), computed from the model, for the install question, `update`,
//! `show` and `doctor`; sources pinned to content ([`source`]); one index with a hash per file
//! ([`index`]), checked at every load ([`installed`]). Nothing from a package runs at install.
#![forbid(unsafe_code)]

pub mod files;
pub mod index;
pub mod install;
pub mod installed;
pub mod marketplace;
mod model;
pub mod read;
pub mod review;
pub mod source;

pub use model::{Compatibility, Kind, Level, Package};

use std::path::PathBuf;

/// Why a package could not be read, fetched, installed or loaded. Each names the file, the
/// package or the source.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("{0}")]
    Source(String),
    #[error("{0}")]
    State(#[from] reasonix_core::error::StateError),
}

impl PackageError {
    pub fn file(path: impl Into<PathBuf>, message: impl Into<String>) -> PackageError {
        PackageError::File {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// `^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$`: package, marketplace and server names.
pub fn valid_name(name: &str) -> bool {
    reasonix_sidecar::manifest::valid_name(name)
}
