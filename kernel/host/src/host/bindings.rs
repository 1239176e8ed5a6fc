//! Host-side bindings generated from `wit/0.2.0/` (the `all-roles` world: every host service a
//! plugin may import, every role it may export).
#![allow(clippy::all, missing_docs)]

wasmtime::component::bindgen!({
    path: "../../wit/0.2.0",
    world: "reasonix:plugin/all-roles",
});

pub use exports::reasonix::plugin::{interceptor, plugin, provider, tool};
pub use reasonix::plugin::types;
