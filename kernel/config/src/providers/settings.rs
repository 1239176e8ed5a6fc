//! One `[[providers]]` entry as written in `config.toml` / `reasonix.toml`. Every key of the
//! original Reasonix is accepted; keys this build does not know are kept in `unknown` and
//! reported as warnings (`Config::warnings`), never as errors, so a config written for the
//! original product keeps loading.

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// One `[[providers]]` entry, unresolved: presets are not applied, `${VAR}` is not expanded and
/// nothing is validated yet (see [`super::resolve_providers`]).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ProviderSettings {
    /// Instance name, used in model references (`name/model`) and error messages. May be
    /// omitted only when `preset` is set: the preset id is the name then.
    pub name: String,
    /// Wire protocol: a provider kind served by a loaded component (`reasonix providers` lists
    /// the kinds served).
    pub kind: Option<String>,
    /// Built-in preset id (`presets.toml`) this entry starts from; unset keys come from it.
    #[serde(alias = "preset_id")]
    pub preset: Option<String>,
    pub base_url: Option<String>,
    /// Full request URL instead of `base_url` + the kind's path.
    pub request_url: Option<String>,
    /// Legacy spelling of `request_url`.
    pub chat_url: Option<String>,
    pub models_url: Option<String>,
    /// Single-model form.
    pub model: Option<String>,
    /// Several models behind one endpoint.
    pub models: Option<Vec<String>>,
    /// Default model among `models` (default: `model`, else the first of `models`).
    pub default: Option<String>,
    /// Environment variable (or `<home>/.env` key) holding the API key. Unset = no key.
    pub api_key_env: Option<String>,
    /// Context window in tokens (0 disables compaction).
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u32>,
    /// Per-model replacements for `context_window`, `max_output_tokens`, effort settings …
    pub model_overrides: BTreeMap<String, ModelOverride>,
    pub billing_currency: Option<String>,
    /// `payg` | `subscription_equivalent`.
    pub billing_mode: Option<String>,
    pub balance_url: Option<String>,
    /// Provider-wide price per 1M tokens.
    pub price: Option<Price>,
    /// Per-model prices per 1M tokens, keyed by model id.
    pub prices: BTreeMap<String, Price>,
    /// Reasoning effort used when no `--effort` is given (`auto` = backend default).
    pub effort: Option<String>,
    /// Used when neither `--effort` nor `effort` is set; with `supported_efforts`, what `auto`
    /// means.
    pub default_effort: Option<String>,
    /// Thinking mode, passed to the component (which says which values its backend takes).
    pub thinking: Option<String>,
    /// `auto` (default: the component detects it from the base URL and model) or a protocol
    /// name the component knows.
    pub reasoning_protocol: Option<String>,
    /// Declares the effort levels the endpoint accepts, replacing the component's table.
    pub supported_efforts: Option<Vec<String>>,
    /// Header carrying the API key instead of the kind's own: `bearer` (Authorization: Bearer),
    /// `x-api-key`, or any header name. `true` (the original's boolean form) means `bearer`.
    #[serde(deserialize_with = "auth_header")]
    pub auth_header: Option<String>,
    /// Extra request headers (`${VAR}` expanded). Never put the API key here.
    pub headers: BTreeMap<String, String>,
    /// Extra top-level request body fields; fields the protocol sets itself win.
    pub extra_body: toml::Table,
    pub web_search: Option<bool>,
    pub vision: Option<bool>,
    pub vision_detail: Option<String>,
    /// Replay empty reasoning instead of the model's chain of thought.
    pub strip_chain_of_thought: Option<bool>,
    /// Wire mode of kinds that have several (kept from the original).
    pub mode: Option<String>,
    /// Whether the backend keeps the conversation itself (kept from the original).
    pub stateful: Option<bool>,
    pub temperature: Option<f64>,
    /// Seconds without stream data before the request is abandoned (ours; default: the
    /// component's for the kind, shown by `reasonix providers`).
    pub stall_timeout_seconds: Option<u64>,
    /// Retries of the connect/response-head phase (ours; default 10).
    pub max_retries: Option<u32>,
    /// Seconds one request may spend failing and waiting to retry, from its first attempt;
    /// a retry whose wait would end later is not made (ours; default 300).
    pub retry_budget_seconds: Option<u64>,
    /// Keys this build does not know; reported as warnings.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

impl ProviderSettings {
    /// The name the entry goes by: `name`, else the preset id, else empty.
    pub fn effective_name(&self) -> &str {
        if !self.name.trim().is_empty() {
            return self.name.trim();
        }
        self.preset.as_deref().map(str::trim).unwrap_or("")
    }
}

/// `model_overrides.<model>`: replaces provider-wide values for one model.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ModelOverride {
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u32>,
    pub supports_tools: Option<bool>,
    pub reasoning_protocol: Option<String>,
    pub supported_efforts: Option<Vec<String>>,
    pub default_effort: Option<String>,
    pub effort: Option<String>,
    pub vision: Option<bool>,
    /// Keys this build does not know; reported as warnings.
    #[serde(flatten, skip_serializing)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// Prices per 1M tokens.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Price {
    /// Input tokens not served from the cache.
    pub input: f64,
    pub output: f64,
    /// Input tokens served from the cache; `None` = same as `input`.
    pub cache_hit: Option<f64>,
    /// `CNY`, `USD` …; `None` = the provider's `billing_currency`.
    pub currency: Option<String>,
}

/// `auth_header`: a string, or the original's boolean (`true` = Bearer, `false` = unset).
fn auth_header<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Flag(bool),
        Name(String),
    }
    Ok(match Option::<Raw>::deserialize(deserializer)? {
        None | Some(Raw::Flag(false)) => None,
        Some(Raw::Flag(true)) => Some("bearer".to_string()),
        Some(Raw::Name(name)) => Some(name),
    })
}
