//! The Reasonix component host: the wasmtime engine, the plugin registry, capabilities and
//! their enforcement, the host services plugins import, the compiled-artifact cache, the plugin
//! index and installation. It knows the `tool`, `provider` and `interceptor` interfaces of the
//! WIT contract and nothing about any concrete tool or provider kind, and nothing about the
//! agent that drives them (the compiler enforces it: this crate does not depend on it).
#![deny(unsafe_code)]

pub mod builtin;
pub mod cache;
pub mod component;
mod convert;
pub mod error;
pub mod host;
pub mod index;
pub mod install;
pub mod interceptor;
pub mod provider;
pub mod registry;
pub mod tool;
mod wasm_format;

// The shared vocabulary, under the names the host's modules use.
pub use reasonix_core::{
    CallError, PluginError, cancel, capability, sandbox, settings, state_file, terminal, types,
};

pub use builtin::{BuiltinComponent, Precompiled};
pub use error::LoadError;
pub use registry::Registry;

/// The WIT package versions this kernel can load.
pub const SUPPORTED_WIT_VERSIONS: &[&str] = &["0.2.0"];
/// The WIT package every Reasonix component exports from.
pub const WIT_PACKAGE: &str = "reasonix:plugin";
