//! Provider configuration: the `[[providers]]` entries of the config, built-in presets, their
//! resolution into ready-to-use providers, model references, reasoning-effort mapping, the
//! `options` JSON sent to provider components, API keys from `<home>/.env`, and the retry policy.
//! Pure Rust: nothing here talks to a component or the network.

pub mod dotenv;
pub mod effort;
pub mod presets;
pub mod resolve;
pub mod retry;
pub mod settings;

pub use effort::{EffortMapping, map_effort, request_options};
pub use presets::{Preset, preset, presets};
pub use resolve::{
    ModelRefError, ProviderConfigError, ResolvedProvider, detect_protocol, resolve_model,
    resolve_providers, resolve_providers_with,
};
pub use retry::{FailureKind, RetryPolicy, Verdict, is_quota_exhausted};
pub use settings::{ModelOverride, Price, ProviderSettings};

#[cfg(test)]
mod tests;
