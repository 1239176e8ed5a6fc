//! What the component host and the agent agree on: the contract's types, the `Tool`,
//! `Provider` and `Interceptor` traits the agent drives, errors, cancellation, capabilities and
//! the settings both read. No WebAssembly engine here, so the agent and its tests build without
//! one.
#![forbid(unsafe_code)]

pub mod base64;
pub mod cancel;
pub mod capability;
pub mod catalog;
pub mod contained;
pub mod delegation;
pub mod error;
pub mod evidence;
pub mod frontmatter;
pub mod image;
pub mod interceptor;
pub mod lexical_path;
pub mod netrange;
pub mod origin;
pub mod provider;
pub mod proxy;
pub mod sandbox;
pub mod settings;
pub mod slots;
pub mod spawn;
pub mod state_file;
pub mod terminal;
pub mod tool;
pub mod types;
pub mod user_commands;

pub use error::{CallError, PluginError};

/// Lowercase hex SHA-256 of `bytes` (artifact keys, trust pins).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
