//! The Reasonix kernel. It knows the `tool`, `provider` and `interceptor` interfaces of the WIT
//! contract and nothing about any concrete tool or provider kind: those are data, served by
//! WebAssembly components that the [`registry::Registry`] loads.
#![deny(unsafe_code)]

pub mod agent;
pub mod cache;
pub mod cancel;
pub mod capability;
pub mod completion;
pub mod component;
pub mod config;
mod convert;
pub mod error;
pub mod host;
pub mod index;
pub mod install;
pub mod interceptor;
pub mod permissions;
pub mod provider;
pub mod providers;
pub mod registry;
pub mod sandbox;
pub mod session;
mod state_file;
pub mod terminal;
pub mod tool;
pub mod types;
mod wasm_format;

pub use error::{CallError, LoadError, PluginError};
pub use registry::{BuiltinComponent, Registry};

/// The WIT package versions this kernel can load.
pub const SUPPORTED_WIT_VERSIONS: &[&str] = &["0.2.0"];
/// The WIT package every Reasonix component exports from.
pub const WIT_PACKAGE: &str = "reasonix:plugin";
