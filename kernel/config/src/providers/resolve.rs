//! From `[[providers]]` entries to [`ResolvedProvider`]s: presets applied, `${VAR}` expanded,
//! everything that is configuration (URLs, names, headers, numbers) validated. Also model
//! references (`--model`, `default_model`) and the `options` JSON a request carries.
//!
//! Nothing here knows a backend: what a reasoning protocol, an effort level or a thinking mode
//! means — and which are valid — is the provider component's (`profile`, docs/PROVIDERS.md).
//! Those values are normalised (trimmed, lowercase) and passed on.

use super::presets::{self, Preset};
use super::settings::{ModelOverride, Price, ProviderSettings};
use reasonix_core::settings::expand_vars;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::time::Duration;
use thiserror::Error;

/// Default number of retries of the open phase.
pub const DEFAULT_MAX_RETRIES: u32 = 10;

/// Default of `retry_budget_seconds`: how long one request may spend failing and waiting to
/// retry before it gives up, whatever retries are left.
pub const DEFAULT_RETRY_BUDGET: Duration = Duration::from_secs(300);

/// A `[[providers]]` entry that cannot be used. Each names the provider and the key.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderConfigError {
    #[error(
        "[[providers]] entry #{index} has no `name`: add `name = \"…\"` (or `preset = \"…\"`, whose id then becomes the name)"
    )]
    MissingName { index: usize },
    #[error(
        "provider `{name}` is defined more than once in the same file: rename one of the entries or remove it"
    )]
    Duplicate { name: String },
    #[error("provider `{provider}`: `{key}` {message}")]
    Invalid {
        provider: String,
        key: String,
        message: String,
    },
}

fn invalid(provider: &str, key: &str, message: impl Into<String>) -> ProviderConfigError {
    ProviderConfigError::Invalid {
        provider: provider.to_string(),
        key: key.to_string(),
        message: message.into(),
    }
}

/// A model reference (`--model`, `default_model`) that does not name a configured model.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ModelRefError {
    #[error(
        "no providers are configured, and no built-in preset or model alias matches the model asked for: set `default_model` (or --model) to a preset or alias (with its key in the environment or <home>/.env; `reasonix providers presets` lists both), or add a [[providers]] entry to <home>/config.toml or ./reasonix.toml"
    )]
    NoProviders,
    #[error(
        "provider `{provider}` has no model `{model}`; its models: {available}. Pick one of those or add it to the provider's `models`"
    )]
    UnknownModel {
        provider: String,
        model: String,
        available: String,
    },
    #[error("model `{model}` is served by several providers; choose one: {candidates}")]
    Ambiguous { model: String, candidates: String },
    #[error(
        "`{reference}` is neither a provider name, `provider/model`, nor a configured model; configured: {configured}"
    )]
    Unknown {
        reference: String,
        configured: String,
    },
}

/// A provider ready to use: every default applied, every value checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedProvider {
    pub name: String,
    /// The preset the entry started from, if any.
    pub preset: Option<String>,
    pub kind: String,
    /// Without a trailing `/`.
    pub base_url: String,
    /// Full request URL (`request_url`, or the legacy `chat_url`).
    pub request_url: Option<String>,
    pub models_url: Option<String>,
    /// Never empty; contains `default_model`.
    pub models: Vec<String>,
    pub default_model: String,
    pub api_key_env: Option<String>,
    /// Lowercase: `bearer`, `x-api-key` or another header name.
    pub auth_header: Option<String>,
    /// As configured (entry, else preset), lowercase; `None` (or `auto`) = the component
    /// detects it from the base URL and model.
    pub reasoning_protocol: Option<String>,
    /// Lowercase; the component says which values its backend takes.
    pub thinking: Option<String>,
    /// Lowercase.
    pub effort: Option<String>,
    /// Lowercase.
    pub default_effort: Option<String>,
    /// Lowercase, without `auto`, deduplicated. Empty = the component's table applies.
    pub supported_efforts: Vec<String>,
    pub temperature: Option<f64>,
    /// Extra headers, `${VAR}` expanded. Serialized as names only: a value may hold a secret.
    #[serde(serialize_with = "header_names")]
    pub headers: BTreeMap<String, String>,
    pub extra_body: serde_json::Map<String, serde_json::Value>,
    pub strip_chain_of_thought: bool,
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u32>,
    pub model_overrides: BTreeMap<String, ModelOverride>,
    pub prices: BTreeMap<String, Price>,
    pub price: Option<Price>,
    pub billing_currency: Option<String>,
    pub billing_mode: Option<String>,
    pub balance_url: Option<String>,
    pub web_search: bool,
    pub vision: Option<bool>,
    pub vision_detail: Option<String>,
    pub mode: Option<String>,
    pub stateful: Option<bool>,
    /// `stall_timeout_seconds`: how long without stream data before the request is abandoned.
    /// `None` = the component's default for the model (its profile).
    #[serde(serialize_with = "seconds")]
    pub stall_timeout: Option<Duration>,
    pub max_retries: u32,
    /// `retry_budget_seconds`: the longest one request may spend failing and waiting to
    /// retry (default [`DEFAULT_RETRY_BUDGET`]).
    #[serde(serialize_with = "seconds_always")]
    pub retry_budget: Duration,
}

fn seconds_always<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_secs())
}

fn header_names<S: serde::Serializer>(
    headers: &BTreeMap<String, String>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(headers.keys())
}

fn seconds<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_u64(d.as_secs()),
        None => s.serialize_none(),
    }
}

impl ResolvedProvider {
    /// Whether `model` is one of this provider's models.
    pub fn has_model(&self, model: &str) -> bool {
        self.models.iter().any(|m| m == model)
    }

    /// `model_overrides.<model>`, if any.
    pub fn override_for(&self, model: &str) -> Option<&ModelOverride> {
        self.model_overrides.get(model)
    }

    /// The configured reasoning protocol for one model: its override, else the provider's
    /// (`auto` counts as not configured). `None` = the component detects it.
    pub fn protocol_for(&self, model: &str) -> Option<String> {
        self.override_for(model)
            .and_then(|o| o.reasoning_protocol.clone())
            .filter(|p| p != "auto")
            .or_else(|| self.reasoning_protocol.clone())
            .filter(|p| p != "auto")
    }

    /// Declared effort levels for one model (override, else provider); empty = the
    /// component's table.
    pub fn supported_efforts_for(&self, model: &str) -> Vec<String> {
        match self
            .override_for(model)
            .and_then(|o| o.supported_efforts.as_ref())
        {
            Some(list) => normalize_levels(list),
            None => self.supported_efforts.clone(),
        }
    }

    /// Whether the user said the model reads images (`vision`: override, else provider);
    /// `None` = the component's knowledge decides.
    pub fn vision_for(&self, model: &str) -> Option<bool> {
        self.override_for(model)
            .and_then(|o| o.vision)
            .or(self.vision)
    }

    /// Configured effort for one model (override, else provider).
    pub fn effort_for(&self, model: &str) -> Option<String> {
        self.override_for(model)
            .and_then(|o| o.effort.clone())
            .or_else(|| self.effort.clone())
    }

    /// Configured default effort for one model (override, else provider).
    pub fn default_effort_for(&self, model: &str) -> Option<String> {
        self.override_for(model)
            .and_then(|o| o.default_effort.clone())
            .or_else(|| self.default_effort.clone())
    }

    /// The `options` JSON object of a request (and a profile) for `model` (docs/PROVIDERS.md):
    /// what is configured, passed on for the component to interpret. Absent values are omitted;
    /// keys are sorted, so the text is byte-stable.
    pub fn request_options(&self, model: &str) -> Value {
        let mut o = Map::new();
        if let Some(url) = &self.request_url {
            o.insert("request_url".into(), Value::String(url.clone()));
        }
        if let Some(protocol) = self.protocol_for(model) {
            o.insert("reasoning_protocol".into(), Value::String(protocol));
        }
        if let Some(thinking) = &self.thinking {
            o.insert("thinking".into(), Value::String(thinking.clone()));
        }
        let declared = self.supported_efforts_for(model);
        if !declared.is_empty() {
            // What `auto` means among the declared levels.
            if let Some(default) = self.default_effort_for(model) {
                o.insert("default_effort".into(), Value::String(default));
            }
            o.insert(
                "supported_efforts".into(),
                Value::Array(declared.into_iter().map(Value::String).collect()),
            );
        }
        if let Some(t) = self.temperature
            && let Some(n) = serde_json::Number::from_f64(t)
        {
            o.insert("temperature".into(), Value::Number(n));
        }
        if !self.headers.is_empty() {
            let headers = self
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            o.insert("headers".into(), Value::Object(headers));
        }
        if !self.extra_body.is_empty() {
            o.insert("extra_body".into(), Value::Object(self.extra_body.clone()));
        }
        if self.strip_chain_of_thought {
            o.insert("strip_chain_of_thought".into(), Value::Bool(true));
        }
        if let Some(detail) = &self.vision_detail {
            o.insert("vision_detail".into(), Value::String(detail.clone()));
        }
        Value::Object(o)
    }

    /// The price for `model`: `prices.<model>`, else the provider-wide `price`.
    pub fn price_for(&self, model: &str) -> Option<&Price> {
        self.prices.get(model).or(self.price.as_ref())
    }

    /// `model_overrides.<model>.context_window`, else the provider-wide value.
    pub fn context_window_for(&self, model: &str) -> Option<u64> {
        self.override_for(model)
            .and_then(|o| o.context_window)
            .or(self.context_window)
    }

    /// `model_overrides.<model>.max_output_tokens`, else the provider-wide value.
    pub fn max_output_tokens_for(&self, model: &str) -> Option<u32> {
        self.override_for(model)
            .and_then(|o| o.max_output_tokens)
            .or(self.max_output_tokens)
    }

    /// The `scheme://host:port` origins requests may go to (base URL, then request URL),
    /// deduplicated. The host adds the credential only for these.
    pub fn origins(&self) -> Vec<String> {
        let mut out = Vec::new();
        for url in std::iter::once(&self.base_url).chain(self.request_url.as_ref()) {
            if let Ok(origin) = parse_http_url(url) {
                let origin = origin.to_string();
                if !out.contains(&origin) {
                    out.push(origin);
                }
            }
        }
        out
    }

    /// The header (lowercase name, value prefix) the host fills with the API key: the kind's
    /// own, unless `auth_header` overrides it (`bearer` → `authorization: Bearer …`,
    /// `x-api-key` → `x-api-key: …`, any other name → that header, no prefix).
    pub fn credential_header(&self, kind_header: &str, kind_prefix: &str) -> (String, String) {
        match self.auth_header.as_deref() {
            None => (kind_header.to_ascii_lowercase(), kind_prefix.to_string()),
            Some("bearer") | Some("authorization") => {
                ("authorization".to_string(), "Bearer ".to_string())
            }
            Some(name) => (name.to_string(), String::new()),
        }
    }
}

/// A parsed `http(s)` URL origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlOrigin {
    pub scheme: String,
    /// Lowercase; IPv6 in brackets.
    pub host: String,
    pub port: u16,
}

impl std::fmt::Display for UrlOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
    }
}

/// Parse an absolute `http://` or `https://` URL with a host. The error completes a sentence
/// starting with the key name.
pub fn parse_http_url(text: &str) -> Result<UrlOrigin, String> {
    let uri: http::Uri = text
        .parse()
        .map_err(|e| format!("= \"{text}\" is not a valid URL ({e})"))?;
    let scheme = match uri.scheme_str().map(str::to_ascii_lowercase) {
        Some(s) if s == "http" || s == "https" => s,
        _ => {
            return Err(format!(
                "= \"{text}\" must be an absolute URL starting with https:// or http://"
            ));
        }
    };
    let authority = uri
        .authority()
        .ok_or_else(|| format!("= \"{text}\" has no host"))?;
    if authority.as_str().contains('@') {
        return Err(format!(
            "= \"{text}\" must not contain credentials; put the key in the variable named by `api_key_env`"
        ));
    }
    let host = authority.host().to_ascii_lowercase();
    if host.is_empty() {
        return Err(format!("= \"{text}\" has no host"));
    }
    let port = authority
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    Ok(UrlOrigin { scheme, host, port })
}

/// What holds `[[providers]]` entries: a loaded configuration, or the entries themselves.
pub trait ProviderEntries {
    fn provider_entries(&self) -> &[ProviderSettings];
}

impl ProviderEntries for [ProviderSettings] {
    fn provider_entries(&self) -> &[ProviderSettings] {
        self
    }
}

/// Resolve every `[[providers]]` entry, expanding `${VAR}` from the process environment.
pub fn resolve_providers(
    config: &(impl ProviderEntries + ?Sized),
) -> Result<Vec<ResolvedProvider>, ProviderConfigError> {
    resolve_providers_with(config, |name| std::env::var(name).ok())
}

/// [`resolve_providers`] with the variables of `${VAR}` expansion from `lookup`.
pub fn resolve_providers_with(
    config: &(impl ProviderEntries + ?Sized),
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Vec<ResolvedProvider>, ProviderConfigError> {
    let entries = config.provider_entries();
    let mut out: Vec<ResolvedProvider> = Vec::with_capacity(entries.len());
    for (index, settings) in entries.iter().enumerate() {
        let resolved = resolve_one(index + 1, settings, &lookup)?;
        if out.iter().any(|p| p.name == resolved.name) {
            return Err(ProviderConfigError::Duplicate {
                name: resolved.name,
            });
        }
        out.push(resolved);
    }
    Ok(out)
}

fn non_empty(value: Option<&String>) -> Option<String> {
    value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn lower(value: Option<&String>) -> Option<String> {
    non_empty(value).map(|v| v.to_ascii_lowercase())
}

pub(crate) fn normalize_levels(list: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for level in list {
        let level = level.trim().to_ascii_lowercase();
        if level.is_empty() || level == "auto" || out.contains(&level) {
            continue;
        }
        out.push(level);
    }
    out
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

fn expand(
    provider: &str,
    key: &str,
    text: &str,
    lookup: &impl Fn(&str) -> Option<String>,
) -> Result<String, ProviderConfigError> {
    expand_vars(text, lookup).map_err(|e| {
        invalid(
            provider,
            key,
            format!(
                "cannot be expanded: {e}; set the variable or give a default with ${{VAR:-default}}"
            ),
        )
    })
}

fn resolve_one(
    index: usize,
    s: &ProviderSettings,
    lookup: &impl Fn(&str) -> Option<String>,
) -> Result<ResolvedProvider, ProviderConfigError> {
    let name = s.effective_name().to_string();
    if name.is_empty() {
        return Err(ProviderConfigError::MissingName { index });
    }
    if name.contains('/') || name.chars().any(char::is_whitespace) {
        return Err(invalid(
            &name,
            "name",
            "must not contain `/` or spaces (model references are written `provider/model`)",
        ));
    }
    let n = name.as_str();
    let preset: Option<&Preset> = match non_empty(s.preset.as_ref()) {
        None => None,
        Some(id) => Some(presets::preset(&id).ok_or_else(|| {
            invalid(
                n,
                "preset",
                format!(
                    "= \"{id}\" is not a built-in preset; use one of: {}",
                    presets::preset_ids().join(", ")
                ),
            )
        })?),
    };

    let kind = lower(s.kind.as_ref())
        .or_else(|| preset.map(|p| p.kind.clone()))
        .ok_or_else(|| {
            invalid(
                n,
                "kind",
                "is missing: set `kind` to a provider kind (`reasonix providers list` shows the kinds served) or start from a preset (`reasonix providers presets` lists them)",
            )
        })?;

    let base_raw = non_empty(s.base_url.as_ref())
        .or_else(|| preset.map(|p| p.base_url.clone()))
        .ok_or_else(|| {
            invalid(
                n,
                "base_url",
                "is missing: set base_url = \"https://…\" (the endpoint's API root), or start from a preset",
            )
        })?;
    let mut base_url = expand(n, "base_url", &base_raw, lookup)?;
    while base_url.ends_with('/') {
        base_url.pop();
    }
    parse_http_url(&base_url).map_err(|e| invalid(n, "base_url", e))?;

    let (request_key, request_raw) = match (
        non_empty(s.request_url.as_ref()),
        non_empty(s.chat_url.as_ref()),
    ) {
        (Some(url), _) => ("request_url", Some(url)),
        (None, Some(url)) => ("chat_url", Some(url)),
        (None, None) => ("request_url", None),
    };
    let request_url = match request_raw {
        None => None,
        Some(raw) => {
            let url = expand(n, request_key, &raw, lookup)?;
            parse_http_url(&url).map_err(|e| invalid(n, request_key, e))?;
            Some(url)
        }
    };
    let models_url = match non_empty(s.models_url.as_ref()) {
        None => None,
        Some(raw) => {
            let url = expand(n, "models_url", &raw, lookup)?;
            parse_http_url(&url).map_err(|e| invalid(n, "models_url", e))?;
            Some(url)
        }
    };

    // Models: `models`, plus `model` if it is not listed; else the preset's.
    let single = non_empty(s.model.as_ref());
    let mut models: Vec<String> = Vec::new();
    let from_entry = s.models.is_some() || single.is_some();
    if let Some(list) = &s.models {
        for m in list {
            let m = m.trim();
            if m.is_empty() {
                return Err(invalid(
                    n,
                    "models",
                    "contains an empty model name: remove it",
                ));
            }
            if !models.iter().any(|x| x == m) {
                models.push(m.to_string());
            }
        }
    }
    if let Some(m) = &single
        && !models.contains(m)
    {
        models.push(m.clone());
    }
    if !from_entry && let Some(p) = preset {
        models = p.models.clone();
    }
    if models.is_empty() {
        return Err(invalid(
            n,
            "models",
            "is empty: set model = \"<model id>\" or models = [\"…\", \"…\"]",
        ));
    }
    let default_model = non_empty(s.default.as_ref())
        .or_else(|| single.clone())
        .or_else(|| {
            preset
                .map(|p| p.default.clone())
                .filter(|d| models.contains(d))
        })
        .unwrap_or_else(|| models[0].clone());
    if !models.contains(&default_model) {
        return Err(invalid(
            n,
            "default",
            format!(
                "= \"{default_model}\" is not one of models ({}): add it to models or pick one of them",
                models.join(", ")
            ),
        ));
    }

    let api_key_env = match non_empty(s.api_key_env.as_ref()) {
        Some(var) => Some(var),
        None if s.api_key_env.is_some() => None, // explicitly "" = no key, even with a preset
        None => preset.and_then(|p| p.api_key_env.clone()),
    };
    if let Some(var) = &api_key_env
        && !is_var_name(var)
    {
        return Err(invalid(
            n,
            "api_key_env",
            "must be the NAME of an environment variable (like MY_PROVIDER_API_KEY), not the key itself; put the key in the environment or in <home>/.env",
        ));
    }

    let auth_header = lower(s.auth_header.as_ref());
    if let Some(h) = &auth_header
        && !is_header_name(h)
    {
        return Err(invalid(
            n,
            "auth_header",
            format!(
                "= \"{h}\" is not a header name; use \"bearer\", \"x-api-key\" or a header name"
            ),
        ));
    }

    // An explicit `auto` in the entry also overrides a preset's protocol.
    let reasoning_protocol = match lower(s.reasoning_protocol.as_ref()) {
        Some(p) => Some(p),
        None => preset.and_then(|p| lower(p.reasoning_protocol.as_ref())),
    }
    .filter(|p| p != "auto");
    let thinking = lower(s.thinking.as_ref());

    let supported_efforts = s
        .supported_efforts
        .as_deref()
        .map(normalize_levels)
        .unwrap_or_default();
    let effort = lower(s.effort.as_ref());
    let default_effort = lower(s.default_effort.as_ref());
    if let Some(d) = &default_effort
        && !supported_efforts.is_empty()
        && d != "auto"
        && !supported_efforts.contains(d)
    {
        return Err(invalid(
            n,
            "default_effort",
            format!(
                "= \"{d}\" is not one of supported_efforts ({})",
                supported_efforts.join(", ")
            ),
        ));
    }

    let mut model_overrides = BTreeMap::new();
    for (model, o) in &s.model_overrides {
        let key = |k: &str| format!("model_overrides.\"{model}\".{k}");
        let mut o = o.clone();
        o.reasoning_protocol = lower(o.reasoning_protocol.as_ref());
        o.effort = lower(o.effort.as_ref());
        o.default_effort = lower(o.default_effort.as_ref());
        let declared = o
            .supported_efforts
            .as_deref()
            .map(normalize_levels)
            .unwrap_or_else(|| supported_efforts.clone());
        if let Some(d) = &o.default_effort
            && !declared.is_empty()
            && d != "auto"
            && !declared.contains(d)
        {
            return Err(invalid(
                n,
                &key("default_effort"),
                format!(
                    "= \"{d}\" is not one of supported_efforts ({})",
                    declared.join(", ")
                ),
            ));
        }
        model_overrides.insert(model.trim().to_string(), o);
    }

    let mut headers = BTreeMap::new();
    for (header, value) in &s.headers {
        let key = format!("headers.{header}");
        if !is_header_name(header) {
            return Err(invalid(n, &key, "is not a valid header name"));
        }
        let value = expand(n, &key, value, lookup)?;
        if value.chars().any(|c| c.is_control() && c != '\t') {
            return Err(invalid(
                n,
                &key,
                "contains a control character (a line break?); header values are one line",
            ));
        }
        headers.insert(header.clone(), value);
    }

    let extra_body = s
        .extra_body
        .iter()
        .map(|(k, v)| (k.clone(), toml_to_json(v)))
        .collect();

    if let Some(t) = s.temperature
        && !(t.is_finite() && t >= 0.0)
    {
        return Err(invalid(
            n,
            "temperature",
            format!("= {t} must be a number ≥ 0"),
        ));
    }
    if s.stall_timeout_seconds == Some(0) {
        return Err(invalid(
            n,
            "stall_timeout_seconds",
            "= 0 would abandon every request; use at least 1, or leave it out for the provider kind's default (`reasonix providers list` shows it)",
        ));
    }
    let stall_timeout = s.stall_timeout_seconds.map(Duration::from_secs);
    if s.retry_budget_seconds == Some(0) {
        return Err(invalid(
            n,
            "retry_budget_seconds",
            "= 0 would never retry; use at least 1 (or `max_retries = 0` for no retries)",
        ));
    }
    let retry_budget = s
        .retry_budget_seconds
        .map_or(DEFAULT_RETRY_BUDGET, Duration::from_secs);

    Ok(ResolvedProvider {
        name: name.clone(),
        preset: preset.map(|p| p.id.clone()),
        kind,
        base_url,
        request_url,
        models_url,
        models,
        default_model,
        api_key_env,
        auth_header,
        reasoning_protocol,
        thinking,
        effort,
        default_effort,
        supported_efforts,
        temperature: s.temperature,
        headers,
        extra_body,
        strip_chain_of_thought: s.strip_chain_of_thought.unwrap_or(false),
        context_window: s
            .context_window
            .or_else(|| preset.and_then(|p| p.context_window)),
        max_output_tokens: s.max_output_tokens,
        model_overrides,
        prices: s.prices.clone(),
        price: s.price.clone(),
        billing_currency: non_empty(s.billing_currency.as_ref()),
        billing_mode: non_empty(s.billing_mode.as_ref()),
        balance_url: non_empty(s.balance_url.as_ref()),
        web_search: s.web_search.unwrap_or(false),
        vision: s.vision,
        vision_detail: non_empty(s.vision_detail.as_ref()),
        mode: non_empty(s.mode.as_ref()),
        stateful: s.stateful,
        stall_timeout,
        max_retries: s.max_retries.unwrap_or(DEFAULT_MAX_RETRIES),
        retry_budget,
    })
}

/// TOML to JSON; datetimes become strings, non-finite floats `null`.
pub(crate) fn toml_to_json(value: &toml::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match value {
        toml::Value::String(s) => J::String(s.clone()),
        toml::Value::Integer(i) => J::from(*i),
        toml::Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        toml::Value::Boolean(b) => J::Bool(*b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(items) => J::Array(items.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => J::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

fn configured_summary(providers: &[ResolvedProvider]) -> String {
    providers
        .iter()
        .map(|p| format!("{} ({})", p.name, p.models.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The built-in presets as providers, every value from the preset (`reasonix providers
/// presets`): the implicit providers a config without a matching `[[providers]]` entry falls
/// back on. Their base URL is always the preset's own, so a key goes only to its vendor.
pub fn implicit_providers() -> &'static [ResolvedProvider] {
    static IMPLICIT: std::sync::OnceLock<Vec<ResolvedProvider>> = std::sync::OnceLock::new();
    IMPLICIT.get_or_init(|| {
        presets::presets()
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let settings = ProviderSettings {
                    preset: Some(p.id.clone()),
                    ..Default::default()
                };
                // Our own data (a unit test resolves every preset); a preset that does not
                // resolve is simply not offered.
                resolve_one(i + 1, &settings, &|_: &str| None).ok()
            })
            .collect()
    })
}

/// Whether `provider` is one of [`implicit_providers`] (a built-in preset no `[[providers]]`
/// entry configures).
pub fn is_implicit(provider: &ResolvedProvider) -> bool {
    implicit_providers()
        .iter()
        .any(|p| std::ptr::eq(p, provider))
}

/// Resolve a model reference: `reference` (e.g. `--model`), else `default_model`, else the first
/// provider's default model. A reference is a provider name (→ its default model),
/// `provider/model` (split at the first `/` only when the part before it is a provider name, so
/// `gateway/vendor/model-…` works for model ids that contain `/`), or a bare model name that
/// exactly one provider lists.
///
/// The configured `providers` come first. Only a reference none of them resolves (nothing by
/// that name or model, or no providers at all) falls back, in this order, on a model alias of
/// the original Reasonix (an alias stands for `<preset>/<model>`; tried against the
/// configured providers again, then the presets) and on the built-in presets as implicit
/// providers ([`implicit_providers`], minus those whose name a configured provider takes).
/// With an implicit preset, `preset/model` takes any model id: the preset's list is only the
/// usual choice.
pub fn resolve_model<'a>(
    reference: Option<&str>,
    default_model: Option<&str>,
    providers: &'a [ResolvedProvider],
) -> Result<(&'a ResolvedProvider, String), ModelRefError> {
    let reference = reference
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .or_else(|| default_model.map(str::trim).filter(|r| !r.is_empty()));
    let explicit = resolve_configured(reference, providers);
    let Some(reference) = reference else {
        return explicit;
    };
    match &explicit {
        Err(ModelRefError::NoProviders | ModelRefError::Unknown { .. }) => {}
        _ => return explicit,
    }
    let mut target = reference.to_string();
    if let Some(alias) = presets::alias(reference) {
        target = alias.target();
        match resolve_configured(Some(&target), providers) {
            Err(ModelRefError::NoProviders | ModelRefError::Unknown { .. }) => {}
            other => return other,
        }
    }
    let implicit: Vec<&'static ResolvedProvider> = implicit_providers()
        .iter()
        .filter(|p| !providers.iter().any(|c| c.name == p.name))
        .collect();
    match resolve_implicit(&target, &implicit) {
        Some(Ok(found)) => Ok(found),
        Some(Err(e)) => Err(e),
        None => explicit,
    }
}

/// `reference` against the implicit presets: `None` when no preset matches it.
fn resolve_implicit(
    reference: &str,
    implicit: &[&'static ResolvedProvider],
) -> Option<Result<(&'static ResolvedProvider, String), ModelRefError>> {
    let by_name = |name: &str| implicit.iter().copied().find(|p| p.name == name);
    if let Some(p) = by_name(reference) {
        return Some(Ok((p, p.default_model.clone())));
    }
    if let Some((prefix, model)) = reference.split_once('/')
        && let Some(p) = by_name(prefix)
    {
        let model = if model.trim().is_empty() {
            p.default_model.clone()
        } else {
            model.trim().to_string()
        };
        return Some(Ok((p, model)));
    }
    let bare: Vec<&'static ResolvedProvider> = implicit
        .iter()
        .copied()
        .filter(|p| p.has_model(reference))
        .collect();
    match bare.as_slice() {
        [] => None,
        [p] => Some(Ok((p, reference.to_string()))),
        many => Some(Err(ModelRefError::Ambiguous {
            model: reference.to_string(),
            candidates: many
                .iter()
                .map(|p| format!("{}/{reference}", p.name))
                .collect::<Vec<_>>()
                .join(", "),
        })),
    }
}

/// [`resolve_model`] against the configured providers only (`reference` already trimmed).
fn resolve_configured<'a>(
    reference: Option<&str>,
    providers: &'a [ResolvedProvider],
) -> Result<(&'a ResolvedProvider, String), ModelRefError> {
    let Some(first) = providers.first() else {
        return Err(ModelRefError::NoProviders);
    };
    let Some(reference) = reference else {
        return Ok((first, first.default_model.clone()));
    };
    let by_name = |name: &str| providers.iter().find(|p| p.name == name);
    if let Some(p) = by_name(reference) {
        return Ok((p, p.default_model.clone()));
    }
    let bare: Vec<&ResolvedProvider> = providers
        .iter()
        .filter(|p| p.has_model(reference))
        .collect();
    if let Some((prefix, model)) = reference.split_once('/')
        && let Some(p) = by_name(prefix)
    {
        if model.is_empty() {
            return Ok((p, p.default_model.clone()));
        }
        if p.has_model(model) {
            return Ok((p, model.to_string()));
        }
        if bare.is_empty() {
            return Err(ModelRefError::UnknownModel {
                provider: p.name.clone(),
                model: model.to_string(),
                available: p.models.join(", "),
            });
        }
    }
    match bare.as_slice() {
        [p] => Ok((p, reference.to_string())),
        [] => Err(ModelRefError::Unknown {
            reference: reference.to_string(),
            configured: configured_summary(providers),
        }),
        many => Err(ModelRefError::Ambiguous {
            model: reference.to_string(),
            candidates: many
                .iter()
                .map(|p| format!("{}/{reference}", p.name))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}
