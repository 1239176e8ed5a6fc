//! Completions from a configured provider: pick the provider and model from a model reference,
//! ask the component serving the provider's kind for the model's profile (its reasoning
//! protocol, effort levels and default stall timeout; a bad effort level is refused here, before
//! any request), open the stream — retrying the connect phase per the retry policy — and turn
//! what goes wrong into errors that name the provider. The API key is read here, handed to the
//! host's HTTP hook for the provider's own origins only, and scrubbed from every message.

use crate::cancel::CancelToken;
use crate::catalog::Catalog;
use crate::error::{CallError, PluginError};
use crate::origin::Origin;
use crate::provider::Endpoint;
use crate::provider::{CompletionStream, Provider};
use crate::providers::retry::{FailureKind, RetryPolicy, UNREACHABLE_RETRIES, Verdict};
use crate::providers::{ResolvedProvider, chosen_effort, dotenv, resolve_model};
use crate::types::{
    CompletionRequest, Message, ModelProfile, ProfileRequest, StreamEvent, ToolSpec,
};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

/// What the agent asks for; everything else comes from the provider's configuration.
#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    /// Overrides the client's effort level (`--effort`, else the provider's configured one).
    pub effort: Option<String>,
    /// Overrides the provider's and model's configured limit.
    pub max_output_tokens: Option<u32>,
}

/// A retry about to happen, for "retrying (n/m)" messages.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryNotice {
    pub provider: String,
    /// 1-based number of this retry.
    pub attempt: u32,
    pub max_retries: u32,
    pub delay: Duration,
    /// What failed, in words.
    pub reason: String,
}

/// Why a completion failed. Every case names the provider.
#[derive(Debug, Error)]
pub enum CompletionError {
    #[error("{}", self.describe())]
    UnknownKind {
        provider: String,
        kind: String,
        served: Vec<String>,
    },
    #[error("{}", self.describe())]
    Config(String),
    #[error("{}", self.describe())]
    MissingKey {
        provider: String,
        env: String,
        dotenv: String,
    },
    #[error("{}", self.describe())]
    Auth { provider: String, message: String },
    #[error("{}", self.describe())]
    QuotaExhausted { provider: String, message: String },
    #[error("{}", self.describe())]
    RetryAfterTooLong {
        provider: String,
        wait: Duration,
        cap: Duration,
        message: String,
    },
    #[error("{}", self.describe())]
    Http {
        provider: String,
        status: u16,
        body: String,
    },
    #[error("{}", self.describe())]
    RetriesExhausted {
        provider: String,
        attempts: u32,
        last: String,
    },
    #[error("{}", self.describe())]
    Unreachable {
        provider: String,
        /// The provider's `base_url`.
        endpoint: String,
        attempts: u32,
        message: String,
    },
    #[error("{}", self.describe())]
    RetryBudgetSpent {
        provider: String,
        attempts: u32,
        spent: Duration,
        budget: Duration,
        wait: Duration,
        last: String,
    },
    /// The run's deadline (`reasonix run --timeout`) came, or a wait would pass it; `what`
    /// says what the request was waiting for.
    #[error("{}", self.describe())]
    Deadline { provider: String, what: String },
    #[error("{}", self.describe())]
    Stalled { provider: String, seconds: u64 },
    #[error("{}", self.describe())]
    Interrupted { provider: String, message: String },
    #[error("{}", self.describe())]
    BadResponse { provider: String, message: String },
    #[error("{}", self.describe())]
    Upstream {
        provider: String,
        message: String,
        retryable: bool,
    },
    #[error("{}", self.describe())]
    Denied { provider: String, message: String },
    #[error("{}", self.describe())]
    Cancelled,
    #[error("{}", self.describe())]
    Failed { provider: String, message: String },
}

impl CompletionError {
    /// The message, in the user's language (`reasonix-i18n`, `kernel.ftl`).
    fn describe(&self) -> String {
        use reasonix_i18n::t;
        let secs = |d: &Duration| d.as_secs().to_string();
        match self {
            CompletionError::UnknownKind {
                provider,
                kind,
                served,
            } => t!(
                "completion-unknown-kind",
                provider = provider.as_str(),
                kind = kind.as_str(),
                served = served.join(", ")
            ),
            CompletionError::Config(message) => message.clone(),
            CompletionError::MissingKey {
                provider,
                env,
                dotenv,
            } => t!(
                "completion-missing-key",
                provider = provider.as_str(),
                env = env.as_str(),
                dotenv = dotenv.as_str()
            ),
            CompletionError::Auth { provider, message } => t!(
                "completion-auth",
                provider = provider.as_str(),
                message = message.as_str()
            ),
            CompletionError::QuotaExhausted { provider, message } => t!(
                "completion-quota",
                provider = provider.as_str(),
                message = message.as_str()
            ),
            CompletionError::RetryAfterTooLong {
                provider,
                wait,
                cap,
                message,
            } => t!(
                "completion-retry-after-too-long",
                provider = provider.as_str(),
                wait = secs(wait),
                cap = secs(cap),
                message = message.as_str()
            ),
            CompletionError::Http {
                provider,
                status,
                body,
            } => t!(
                "completion-http",
                provider = provider.as_str(),
                status = status.to_string(),
                body = body.as_str()
            ),
            CompletionError::RetriesExhausted {
                provider,
                attempts,
                last,
            } => t!(
                "completion-retries-exhausted",
                provider = provider.as_str(),
                attempts = *attempts,
                last = last.as_str()
            ),
            CompletionError::Unreachable {
                provider,
                endpoint,
                attempts,
                message,
            } => t!(
                "completion-unreachable",
                provider = provider.as_str(),
                endpoint = endpoint.as_str(),
                attempts = *attempts,
                message = message.as_str()
            ),
            CompletionError::RetryBudgetSpent {
                provider,
                attempts,
                spent,
                budget,
                wait,
                last,
            } => t!(
                "completion-retry-budget",
                provider = provider.as_str(),
                attempts = *attempts,
                spent = format!("{:.1}", spent.as_secs_f64()),
                budget = secs(budget),
                wait = format!("{:.1}", wait.as_secs_f64()),
                last = last.as_str()
            ),
            CompletionError::Deadline { provider, what } => t!(
                "completion-deadline",
                provider = provider.as_str(),
                what = what.as_str()
            ),
            CompletionError::Stalled { provider, seconds } => t!(
                "completion-stalled",
                provider = provider.as_str(),
                seconds = seconds.to_string()
            ),
            CompletionError::Interrupted { provider, message } => t!(
                "completion-interrupted",
                provider = provider.as_str(),
                message = message.as_str()
            ),
            CompletionError::BadResponse { provider, message } => t!(
                "completion-bad-response",
                provider = provider.as_str(),
                message = message.as_str()
            ),
            CompletionError::Upstream {
                provider, message, ..
            } => t!(
                "completion-upstream",
                provider = provider.as_str(),
                message = message.as_str()
            ),
            CompletionError::Denied { provider, message }
            | CompletionError::Failed { provider, message } => t!(
                "completion-failed",
                provider = provider.as_str(),
                message = message.as_str()
            ),
            CompletionError::Cancelled => t!("completion-cancelled"),
        }
    }

    /// Whether replaying the same request may succeed (the agent does that for a cut stream).
    pub fn is_retryable(&self) -> bool {
        match self {
            CompletionError::Interrupted { .. } | CompletionError::Stalled { .. } => true,
            CompletionError::Upstream { retryable, .. } => *retryable,
            _ => false,
        }
    }
}

/// One configured provider and model, ready to stream completions.
pub struct ProviderClient {
    provider: ResolvedProvider,
    model: String,
    kind: Arc<dyn Provider>,
    origins: Vec<Origin>,
    credential: Option<(http::HeaderName, http::HeaderValue)>,
    /// The key itself, only to scrub it from error text.
    secret: Option<String>,
    policy: RetryPolicy,
    /// The level requests carry unless they name their own: `--effort`, else the config's
    /// (`chosen_effort`); `None` = auto.
    effort: Option<String>,
    /// What the component said about the model, asked once when the client was created.
    profile: ModelProfile,
    /// `stall_timeout_seconds`, else the profile's default.
    stall: Duration,
    /// When the run must end (`reasonix run --timeout`): no wait goes past it.
    deadline: Option<Instant>,
}

impl std::fmt::Debug for ProviderClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderClient")
            .field("provider", &self.provider.name)
            .field("model", &self.model)
            .field("kind", &self.provider.kind)
            .field("credential", &self.credential.as_ref().map(|_| "[set]"))
            .finish()
    }
}

impl ProviderClient {
    /// Resolve `reference` (a `--model` value; else `default_model`; else the first provider)
    /// against `providers`, find the component serving its kind, read its API key from the
    /// environment or `<home>/.env`, and ask the component for the model's profile with the
    /// effort level `effort` (`--effort`; `None` = the config's) — so a level the backend does
    /// not know is refused now, with the component's message.
    pub fn new(
        catalog: &dyn Catalog,
        providers: &[ResolvedProvider],
        reference: Option<&str>,
        default_model: Option<&str>,
        effort: Option<&str>,
        home: &Path,
    ) -> Result<ProviderClient, CompletionError> {
        let (provider, model) = resolve_model(reference, default_model, providers)
            .map_err(|e| CompletionError::Config(e.to_string()))?;
        let kind =
            catalog
                .provider(&provider.kind)
                .ok_or_else(|| CompletionError::UnknownKind {
                    provider: provider.name.clone(),
                    kind: provider.kind.clone(),
                    served: catalog.provider_kinds(),
                })?;
        let secret = match &provider.api_key_env {
            Some(env) => {
                Some(
                    dotenv::secret(env, home).ok_or_else(|| CompletionError::MissingKey {
                        provider: provider.name.clone(),
                        env: env.clone(),
                        dotenv: home.join(".env").display().to_string(),
                    })?,
                )
            }
            None => None,
        };
        ProviderClient::with_secret(provider.clone(), model, kind, secret, effort)
    }

    /// A client for an already resolved provider and model with the given key and `--effort`.
    pub fn with_secret(
        provider: ResolvedProvider,
        model: String,
        kind: Arc<dyn Provider>,
        secret: Option<String>,
        effort: Option<&str>,
    ) -> Result<ProviderClient, CompletionError> {
        let config_error = |message: String| CompletionError::Config(message);
        let origins = provider
            .origins()
            .iter()
            .map(|text| parse_origin(text))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| config_error(format!("provider `{}`: {e}", provider.name)))?;
        let credential = match &secret {
            Some(key) => {
                let kind_info = kind.kind();
                let (header, prefix) = provider
                    .credential_header(&kind_info.credential_header, &kind_info.credential_prefix);
                let name = http::HeaderName::from_bytes(header.to_ascii_lowercase().as_bytes())
                    .map_err(|_| {
                        config_error(format!(
                            "provider `{}`: `{header}` is not a valid header name (auth_header)",
                            provider.name
                        ))
                    })?;
                let mut value = http::HeaderValue::from_str(&format!("{prefix}{key}"))
                    .map_err(|_| {
                        config_error(format!(
                            "provider `{}`: the API key contains characters not allowed in an HTTP header (check for a stray newline)",
                            provider.name
                        ))
                    })?;
                value.set_sensitive(true);
                Some((name, value))
            }
            None => None,
        };
        let policy = RetryPolicy {
            max_retries: provider.max_retries,
            budget: provider.retry_budget,
            ..RetryPolicy::default()
        };
        let secret = secret.filter(|s| !s.is_empty());
        let effort = chosen_effort(&provider, &model, effort);
        let profile = ask_profile(kind.as_ref(), &provider, &model, effort.as_deref())
            .map_err(|e| e.scrubbed(secret.as_deref()))?;
        let stall = provider
            .stall_timeout
            .unwrap_or_else(|| Duration::from_millis(u64::from(profile.stall_timeout_ms)));
        Ok(ProviderClient {
            provider,
            model,
            kind,
            origins,
            credential,
            secret,
            policy,
            effort,
            profile,
            stall,
            deadline: None,
        })
    }

    /// End every wait at `deadline` (the run's `--timeout`): a retry that would start after
    /// it is not waited for, and a request still waiting when it comes (the caller cancels
    /// the token then) fails with [`CompletionError::Deadline`] saying what it waited for.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|at| Instant::now() >= at)
    }

    fn deadline_error(&self, what: String) -> CompletionError {
        CompletionError::Deadline {
            provider: self.provider.name.clone(),
            what,
        }
    }

    /// Replace the retry policy (tests use short delays).
    pub fn with_policy(mut self, policy: RetryPolicy) -> ProviderClient {
        self.policy = policy;
        self
    }

    pub fn provider(&self) -> &ResolvedProvider {
        &self.provider
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    /// The header that carries the API key to this provider's endpoint, when it has one:
    /// also what the host sends when it asks the same endpoint for its model list.
    pub fn credential(&self) -> Option<&(http::HeaderName, http::HeaderValue)> {
        self.credential.as_ref()
    }

    /// Which plugin serves this provider's kind.
    pub fn served_by(&self) -> &str {
        self.kind.source()
    }

    /// What the component said about the model: its reasoning protocol and effort levels.
    pub fn profile(&self) -> &ModelProfile {
        &self.profile
    }

    /// Whether requests carry images to this model: the user's `vision` setting (the model's
    /// override, else the provider's), else what the component knows of the model.
    pub fn reads_images(&self) -> bool {
        self.provider
            .vision_for(&self.model)
            .unwrap_or(self.profile.images)
    }

    /// The effort level requests carry by default; `None` = auto.
    pub fn effort(&self) -> Option<&str> {
        self.effort.as_deref()
    }

    /// How long the stream may be silent: `stall_timeout_seconds`, else the component's default.
    pub fn stall_timeout(&self) -> Duration {
        self.stall
    }

    /// The exact request the component will receive (the provider-visible prefix is built
    /// from it, so it must be deterministic). A request naming another effort level than the
    /// client's has it checked by the component first.
    pub fn completion_request(
        &self,
        request: &ChatRequest,
    ) -> Result<CompletionRequest, CompletionError> {
        let effort = match request.effort.as_deref() {
            None => self.effort.clone(),
            Some(asked) => {
                let effort = chosen_effort(&self.provider, &self.model, Some(asked));
                if effort != self.effort {
                    ask_profile(
                        self.kind.as_ref(),
                        &self.provider,
                        &self.model,
                        effort.as_deref(),
                    )
                    .map_err(|e| e.scrubbed(self.secret.as_deref()))?;
                }
                effort
            }
        };
        Ok(CompletionRequest {
            kind: self.provider.kind.clone(),
            provider: self.provider.name.clone(),
            base_url: self.provider.base_url.clone(),
            model: self.model.clone(),
            messages: if self.reads_images() {
                images_within_budget(&request.messages)
            } else {
                // The text of each message already describes its images.
                request
                    .messages
                    .iter()
                    .map(|m| Message {
                        images: Vec::new(),
                        ..m.clone()
                    })
                    .collect()
            },
            tools: request.tools.clone(),
            effort,
            max_output_tokens: request
                .max_output_tokens
                .or_else(|| self.provider.max_output_tokens_for(&self.model)),
            options: self.provider.request_options(&self.model).to_string(),
        })
    }

    /// Open a streaming completion. The connect phase is retried per the policy (each retry
    /// reported to `on_retry`); `cancel` stops waiting, retrying and reading at once.
    pub fn stream(
        &self,
        request: &ChatRequest,
        cancel: &CancelToken,
        on_retry: &mut dyn FnMut(&RetryNotice),
    ) -> Result<Completion, CompletionError> {
        let wire_request = self.completion_request(request)?;
        let mut retries = 0u32;
        let first = Instant::now();
        loop {
            if cancel.is_cancelled() {
                return Err(CompletionError::Cancelled);
            }
            let sent = Instant::now();
            let opened = self.kind.open(&wire_request, self.endpoint(cancel));
            let error = match opened {
                Ok(stream) => {
                    return Ok(Completion {
                        stream,
                        provider: self.provider.name.clone(),
                        stall: self.stall,
                        cancel: cancel.clone(),
                        secret: self.secret.clone(),
                        finished: false,
                        deadline: self.deadline,
                    });
                }
                Err(_) if cancel.is_cancelled() && self.past_deadline() => {
                    return Err(self.deadline_error(format!(
                        "no response head {:.1} s after the request was sent (attempt {})",
                        sent.elapsed().as_secs_f64(),
                        retries + 1
                    )));
                }
                Err(_) if cancel.is_cancelled() => return Err(CompletionError::Cancelled),
                Err(error) => error,
            };
            let plugin_error = match error {
                CallError::Plugin(e) => e,
                CallError::Deadline { .. } => PluginError::Timeout(format!(
                    "no response head within {} s",
                    self.stall.as_secs()
                )),
                other => return Err(self.failed(other.to_string())),
            };
            let unreachable = is_unreachable(&plugin_error);
            let max_retries = if unreachable {
                self.policy.max_retries.min(UNREACHABLE_RETRIES)
            } else {
                self.policy.max_retries
            };
            match self.policy.verdict(&plugin_error, retries + 1) {
                Verdict::Retry { .. } if unreachable && retries >= max_retries => {
                    return Err(self.fail_with(
                        FailureKind::Unreachable,
                        plugin_error,
                        retries + 1,
                    ));
                }
                Verdict::Retry { after } if retries < max_retries => {
                    let why = self.scrub(&reason(&plugin_error));
                    let spent = first.elapsed();
                    if spent + after > self.policy.budget {
                        return Err(CompletionError::RetryBudgetSpent {
                            provider: self.provider.name.clone(),
                            attempts: retries + 1,
                            spent,
                            budget: self.policy.budget,
                            wait: after,
                            last: why,
                        });
                    }
                    if let Some(at) = self.deadline {
                        let left = at.saturating_duration_since(Instant::now());
                        if after >= left {
                            return Err(self.deadline_error(format!(
                                "a retry in {:.1} s would start after the run's deadline ({:.1} s left); last error: {why}",
                                after.as_secs_f64(),
                                left.as_secs_f64()
                            )));
                        }
                    }
                    retries += 1;
                    on_retry(&RetryNotice {
                        provider: self.provider.name.clone(),
                        attempt: retries,
                        max_retries,
                        delay: after,
                        reason: why.clone(),
                    });
                    if sleep_unless_cancelled(after, cancel) {
                        if self.past_deadline() {
                            return Err(self.deadline_error(format!(
                                "waiting {:.1} s to retry after: {why}",
                                after.as_secs_f64()
                            )));
                        }
                        return Err(CompletionError::Cancelled);
                    }
                }
                Verdict::Retry { .. } => {
                    return Err(CompletionError::RetriesExhausted {
                        provider: self.provider.name.clone(),
                        attempts: retries + 1,
                        last: self.scrub(&plugin_error.to_string()),
                    });
                }
                Verdict::Fail(kind) => return Err(self.fail_with(kind, plugin_error, retries + 1)),
            }
        }
    }

    fn endpoint(&self, cancel: &CancelToken) -> Endpoint {
        Endpoint {
            provider: self.provider.name.clone(),
            origins: self.origins.clone(),
            credential: self.credential.clone(),
            stall: self.stall,
            cancel: cancel.clone(),
        }
    }

    /// The error for giving up after `attempts` attempts.
    fn fail_with(&self, kind: FailureKind, error: PluginError, attempts: u32) -> CompletionError {
        let provider = self.provider.name.clone();
        match (kind, error) {
            (FailureKind::Unreachable, e) => CompletionError::Unreachable {
                provider,
                endpoint: self.provider.base_url.clone(),
                attempts,
                message: self.scrub(&match e {
                    PluginError::Other { message, .. } => message,
                    e => describe(&e),
                }),
            },
            (_, PluginError::Denied(message)) => CompletionError::Denied {
                provider,
                message: self.scrub(&message),
            },
            (FailureKind::Auth, e) => CompletionError::Auth {
                provider,
                message: self.scrub(&describe(&e)),
            },
            (FailureKind::QuotaExhausted, e) => CompletionError::QuotaExhausted {
                provider,
                message: self.scrub(&describe(&e)),
            },
            (FailureKind::RetryAfterTooLong { wait, cap }, e) => {
                CompletionError::RetryAfterTooLong {
                    provider,
                    wait,
                    cap,
                    message: self.scrub(&describe(&e)),
                }
            }
            (_, PluginError::Http { status, body }) => CompletionError::Http {
                provider,
                status,
                body: self.scrub(&body),
            },
            (_, e) => self.failed(describe(&e)),
        }
    }

    fn failed(&self, message: String) -> CompletionError {
        CompletionError::Failed {
            provider: self.provider.name.clone(),
            message: self.scrub(&message),
        }
    }

    fn scrub(&self, text: &str) -> String {
        scrub(text, self.secret.as_deref())
    }
}

/// A running completion. Dropping it cancels the request.
pub struct Completion {
    stream: Box<dyn CompletionStream>,
    provider: String,
    stall: Duration,
    cancel: CancelToken,
    secret: Option<String>,
    finished: bool,
    deadline: Option<Instant>,
}

impl Completion {
    /// The next batch of events; empty once the stream has ended.
    pub fn next_events(&mut self) -> Result<Vec<StreamEvent>, CompletionError> {
        if self.finished {
            return Ok(Vec::new());
        }
        if self.cancel.is_cancelled() {
            return Err(CompletionError::Cancelled);
        }
        let started = Instant::now();
        match self.stream.next() {
            Ok(events) => {
                if events.is_empty() || events.iter().any(|e| matches!(e, StreamEvent::Done(_))) {
                    self.finished = true;
                }
                Ok(events)
            }
            Err(_)
                if self.cancel.is_cancelled()
                    && self.deadline.is_some_and(|at| Instant::now() >= at) =>
            {
                self.finished = true;
                Err(CompletionError::Deadline {
                    provider: self.provider.clone(),
                    what: format!(
                        "the answer had not finished; the stream had been silent for {} s",
                        started.elapsed().as_secs()
                    ),
                })
            }
            Err(_) if self.cancel.is_cancelled() => Err(CompletionError::Cancelled),
            Err(error) => {
                self.finished = true;
                Err(self.classify(error, started))
            }
        }
    }

    /// Read to the end, collecting every event (for tests and non-interactive callers).
    pub fn collect(mut self) -> Result<Vec<StreamEvent>, CompletionError> {
        let mut all = Vec::new();
        loop {
            let batch = self.next_events()?;
            if batch.is_empty() {
                return Ok(all);
            }
            all.extend(batch);
        }
    }

    fn classify(&self, error: CallError, started: Instant) -> CompletionError {
        let provider = self.provider.clone();
        let scrub = |text: &str| scrub(text, self.secret.as_deref());
        let stalled = || CompletionError::Stalled {
            provider: provider.clone(),
            seconds: self.stall.as_secs().max(started.elapsed().as_secs()),
        };
        match error {
            CallError::Deadline { .. } => stalled(),
            CallError::Plugin(PluginError::Timeout(_)) => stalled(),
            CallError::Plugin(PluginError::Cancelled) => CompletionError::Cancelled,
            CallError::Plugin(PluginError::Other {
                code,
                message,
                retryable,
                ..
            }) => match code.as_str() {
                "stream-interrupted" => CompletionError::Interrupted {
                    provider,
                    message: scrub(&message),
                },
                "bad-response" => CompletionError::BadResponse {
                    provider,
                    message: scrub(&message),
                },
                "upstream-error" => CompletionError::Upstream {
                    provider,
                    message: scrub(&message),
                    retryable,
                },
                _ => CompletionError::Failed {
                    provider,
                    message: scrub(&format!("{message} [{code}]")),
                },
            },
            other => CompletionError::Failed {
                provider,
                message: scrub(&other.to_string()),
            },
        }
    }
}

/// Ask the component serving `provider`'s kind for the profile of `model` with the user's
/// level `effort` (already chosen: `chosen_effort`). The component refuses a level or option its
/// backend does not accept; that refusal becomes a configuration error naming the provider and
/// model.
pub fn ask_profile(
    kind: &dyn Provider,
    provider: &ResolvedProvider,
    model: &str,
    effort: Option<&str>,
) -> Result<ModelProfile, CompletionError> {
    let request = ProfileRequest {
        kind: provider.kind.clone(),
        provider: provider.name.clone(),
        base_url: provider.base_url.clone(),
        model: model.to_string(),
        effort: effort.map(str::to_string),
        options: provider.request_options(model).to_string(),
    };
    kind.profile(&request).map_err(|error| match error {
        CallError::Plugin(PluginError::InvalidInput(message)) => {
            let named = format!("provider `{}`", provider.name);
            CompletionError::Config(if message.contains(&named) {
                message
            } else {
                format!("{named} (model {model}): {message}")
            })
        }
        other => CompletionError::Failed {
            provider: provider.name.clone(),
            message: format!(
                "plugin `{}` could not describe model {model}: {other}",
                kind.source()
            ),
        },
    })
}

impl CompletionError {
    /// The same error with the key replaced by `[redacted]` in its text.
    fn scrubbed(self, secret: Option<&str>) -> CompletionError {
        match self {
            CompletionError::Config(message) => CompletionError::Config(scrub(&message, secret)),
            CompletionError::Failed { provider, message } => CompletionError::Failed {
                provider,
                message: scrub(&message, secret),
            },
            other => other,
        }
    }
}

/// What failed, for a retry notice: an unreachable endpoint's message without its code.
fn reason(error: &PluginError) -> String {
    match error {
        PluginError::Other { code, message, .. } if code == "unreachable" => message.clone(),
        other => other.to_string(),
    }
}

/// Nothing answers at the endpoint: the component's `unreachable` code.
fn is_unreachable(error: &PluginError) -> bool {
    matches!(error, PluginError::Other { code, .. } if code == "unreachable")
}

fn describe(error: &PluginError) -> String {
    match error {
        PluginError::Auth(message) => message.clone(),
        PluginError::RateLimited { message, .. } => format!("HTTP 429: {message}"),
        PluginError::Http { status, body } => format!("HTTP {status}: {body}"),
        other => other.to_string(),
    }
}

fn parse_origin(url: &str) -> Result<Origin, String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("`{url}` is not an http or https URL"))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    Origin::new(scheme, authority)
}

/// Replace every occurrence of the key with `[redacted]`.
fn scrub(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(key) if key.len() >= 4 => text.replace(key, "[redacted]"),
        _ => text.to_string(),
    }
}

/// Sleep for `delay` in short slices; true when cancelled meanwhile.
fn sleep_unless_cancelled(delay: Duration, cancel: &CancelToken) -> bool {
    let until = Instant::now() + delay;
    loop {
        if cancel.is_cancelled() {
            return true;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(left.min(Duration::from_millis(20)));
    }
}

/// "attempt" or "attempts", for the count.
/// The most images one request carries: every backend limits them (the strictest common one
/// takes 100 and 32 MB a request), and each image is sent again with every later request of
/// the session.
pub const MAX_REQUEST_IMAGES: usize = 20;
/// The most image data (base64 characters) one request carries.
pub const MAX_REQUEST_IMAGE_BYTES: usize = 20_000_000;

/// `messages` with only the newest images that fit [`MAX_REQUEST_IMAGES`] and
/// [`MAX_REQUEST_IMAGE_BYTES`]: older ones stay described in their message's text, so a
/// session that has gathered many screenshots (or a server that sends huge ones) still gets
/// answers instead of every request being refused.
fn images_within_budget(messages: &[Message]) -> Vec<Message> {
    let mut count = 0;
    let mut bytes = 0;
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    for message in messages.iter().rev() {
        let mut message = message.clone();
        message.images.retain(|image| {
            let fits =
                count < MAX_REQUEST_IMAGES && bytes + image.data.len() <= MAX_REQUEST_IMAGE_BYTES;
            if fits {
                count += 1;
                bytes += image.data.len();
            }
            fits
        });
        out.push(message);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gave_up_counts_attempts_in_words() {
        let e = |attempts| CompletionError::RetriesExhausted {
            provider: "p".into(),
            attempts,
            last: "x".into(),
        };
        assert_eq!(
            e(1).to_string(),
            "provider `p`: gave up after 1 attempt; last error: x"
        );
        assert!(e(3).to_string().contains("after 3 attempts;"));
    }

    #[test]
    fn scrubs_the_key_everywhere() {
        assert_eq!(
            scrub("bad key sk-123456 (sk-123456)", Some("sk-123456")),
            "bad key [redacted] ([redacted])"
        );
        assert_eq!(scrub("nothing here", None), "nothing here");
    }

    #[test]
    fn origins_from_urls() {
        assert_eq!(
            parse_origin("https://api.deepseek.com/v1")
                .unwrap()
                .to_string(),
            "https://api.deepseek.com:443"
        );
        assert_eq!(
            parse_origin("http://127.0.0.1:8080").unwrap().to_string(),
            "http://127.0.0.1:8080"
        );
        assert!(parse_origin("api.example.com").is_err());
    }

    #[test]
    fn cancelled_sleep_returns_early() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let started = Instant::now();
        assert!(sleep_unless_cancelled(Duration::from_secs(30), &cancel));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_request_carries_only_the_newest_images_within_the_budget() {
        use crate::types::{Image, Role};
        let image = |n: usize| Image {
            media_type: "image/png".into(),
            data: "A".repeat(n),
        };
        let with = |images: Vec<Image>| Message {
            images,
            ..Message::text(Role::User, "see")
        };
        // Older messages first: 30 small images, then one that alone is over the byte budget,
        // then two small ones.
        let mut messages: Vec<Message> = (0..30).map(|_| with(vec![image(8)])).collect();
        messages.push(with(vec![image(MAX_REQUEST_IMAGE_BYTES)]));
        messages.push(with(vec![image(8), image(8)]));
        let kept = images_within_budget(&messages);
        assert_eq!(kept.len(), messages.len(), "no message is dropped");
        let counts: Vec<usize> = kept.iter().map(|m| m.images.len()).collect();
        assert_eq!(
            counts[30..],
            [0, 2],
            "the newest two fit, the huge one does not"
        );
        assert_eq!(counts.iter().sum::<usize>(), MAX_REQUEST_IMAGES);
        assert!(
            counts[..12].iter().all(|&c| c == 0),
            "the oldest go first: {counts:?}"
        );
        assert!(kept.iter().all(|m| m.content == "see"), "the text stays");
    }
}

#[cfg(test)]
mod message_tests {
    use super::CompletionError;
    use reasonix_i18n::{Language, with_language};

    #[test]
    fn errors_read_as_before_in_english_and_in_chinese_when_asked() {
        let stalled = CompletionError::Stalled {
            provider: "deepseek".into(),
            seconds: 5,
        };
        let en = with_language(Language::En, || stalled.to_string());
        assert_eq!(
            en,
            "provider `deepseek` sent nothing for 5 s; the stream was stopped"
        );
        let zh = with_language(Language::ZhCn, || stalled.to_string());
        assert_eq!(zh, "提供方 `deepseek` 已 5 秒没有发送任何数据；已停止该流");
        let gave_up = CompletionError::RetriesExhausted {
            provider: "p".into(),
            attempts: 1,
            last: "x".into(),
        };
        assert_eq!(
            with_language(Language::En, || gave_up.to_string()),
            "provider `p`: gave up after 1 attempt; last error: x"
        );
    }
}
