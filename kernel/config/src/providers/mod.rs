//! Provider configuration: the `[[providers]]` entries of the config, built-in presets, their
//! resolution into ready-to-use providers, model references, the user's reasoning-effort level,
//! the `options` JSON sent to provider components, API keys from `<home>/.env`, and the retry
//! policy. Pure Rust: nothing here talks to a component or the network, and nothing here knows
//! a particular backend (that knowledge is the provider component's: docs/PROVIDERS.md).

pub mod dotenv;
pub mod effort;
pub mod presets;
pub mod resolve;
pub mod retry;
pub mod settings;

pub use effort::chosen_effort;
pub use presets::{ModelAlias, Preset, alias, aliases, preset, presets};
pub use resolve::{
    ModelRefError, ProviderConfigError, ProviderEntries, ResolvedProvider, implicit_providers,
    is_implicit, resolve_model, resolve_providers, resolve_providers_with,
};
pub use retry::{FailureKind, RetryPolicy, Verdict, is_quota_exhausted};
pub use settings::{ModelOverride, Price, ProviderSettings};

#[cfg(test)]
mod tests;
