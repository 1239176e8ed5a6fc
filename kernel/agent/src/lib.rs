//! The Reasonix agent: the loop that drives a model through tools, the permission policy,
//! sessions and the completion client. Its configuration is `reasonix-config` (re-exported
//! as `crate::config` and `crate::providers` inside). It sees tools, providers and
//! interceptors only through the traits of `reasonix-core`, so it builds and is unit-tested
//! without a WebAssembly engine; the component host serves those traits at run time.
#![forbid(unsafe_code)]

pub mod agent_loop;
pub mod checkpoint;
pub mod compaction;
pub mod completion;
pub mod cost;
pub mod fork;
pub mod permissions;
pub mod rewind;
pub mod session;
pub mod timeline;

// The configuration, under the names the agent's modules use.
use reasonix_config::{self as config, providers};

// The shared vocabulary, under the names the agent's modules use.
pub use reasonix_core::{
    CallError, PluginError, cancel, capability, catalog, error, interceptor, origin, provider,
    sandbox, settings, state_file, terminal, tool, types,
};

pub use agent_loop::delegation;
pub use agent_loop::{
    ASSUMED_CONTEXT_WINDOW, Agent, AgentConfig, AgentEvent, RunOutcome, RunStatus,
};
