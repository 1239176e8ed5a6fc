//! The sidecar tier: extensions that run as child processes and speak JSON-RPC 2.0 over NDJSON
//! on their stdio (`reasonix.extension.v2`). An installed package (`reasonix-plugin.json` with a
//! `runtime` block) is started per run, handshaken, and then serves interceptors and tools
//! through the kernel's `Interceptor` and `Tool` traits. Nothing here starts a process unless a
//! package was installed by the user.
#![forbid(unsafe_code)]

pub mod connection;
pub mod error;
pub mod externalize;
pub mod frame;
pub mod handshake;
pub mod interceptor;
pub mod limits;
pub mod manifest;
pub mod package;
pub mod provider;
pub mod runtime;
pub mod sandbox;
pub mod spawn;
pub mod stderr_tail;
pub mod stream;
pub mod tool;

pub use error::SidecarError;
pub use manifest::Manifest;
pub use runtime::Sidecars;
