//! The key test: one tiny request through the real provider path (the config text setup
//! would write, parsed and resolved; the component serving the kind; the provider client),
//! on a worker thread so the screen stays responsive. Its answer comes back on a channel.

use super::state::{Plan, TestResult};
use super::write::config_text;
use crate::builtins::BUILTINS;
use reasonix_agent::completion::{ChatRequest, ProviderClient};
use reasonix_config::providers::{self, RetryPolicy, dotenv};
use reasonix_config::{Config, Paths};
use reasonix_core::cancel::CancelToken;
use reasonix_core::catalog::Catalog;
use reasonix_core::types::{Message, Role, StreamEvent};
use reasonix_host::Registry;
use reasonix_i18n::t;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// A test running on its worker thread.
pub struct TestRun {
    result: Receiver<TestResult>,
    cancel: CancelToken,
}

impl TestRun {
    /// The result, once the worker has one.
    pub fn poll(&self) -> Option<TestResult> {
        match self.result.try_recv() {
            Ok(result) => Some(result),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(TestResult::Failed(t!("setup-test-stopped"))),
        }
    }

    /// Stop waiting for the provider; the worker ends on its own.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }
}

/// Start testing `plan` on a worker thread.
pub fn start(paths: Paths, plan: Plan) -> TestRun {
    let (tx, rx) = channel();
    let cancel = CancelToken::new();
    let token = cancel.clone();
    std::thread::spawn(move || {
        let result = match test(&paths, &plan, &token) {
            Ok(reply) => TestResult::Passed(reply),
            Err(message) => TestResult::Failed(message),
        };
        // The screen may have gone: nobody to tell.
        let _ = tx.send(result);
    });
    TestRun { result: rx, cancel }
}

/// The prompt and output limit of the test: a few tokens at most.
const PROMPT: &str = "Reply with the single word OK.";
const MAX_TOKENS: u32 = 16;

fn test(paths: &Paths, plan: &Plan, cancel: &CancelToken) -> Result<String, String> {
    let path = paths.user_config();
    // Only this choice, not the rest of the user's config: it is what is being tried.
    let text = config_text(&path, None, plan).map_err(|e| e.to_string())?;
    let config = Config::parse(&path, &text).map_err(|e| e.to_string())?;
    let resolved = providers::resolve_providers(&config).map_err(|e| e.to_string())?;
    let (provider, model) =
        providers::resolve_model(None, config.default_model.as_deref(), &resolved)
            .map_err(|e| e.to_string())?;
    let registry = Registry::load(BUILTINS, paths, &Default::default(), None)
        .map_err(|e| format!("cannot load the built-in components: {e}"))?;
    let kind = registry.provider(&provider.kind).ok_or_else(|| {
        format!(
            "no loaded plugin serves provider kind `{}`; kinds served: {}",
            provider.kind,
            registry.provider_kinds().join(", ")
        )
    })?;
    let secret = match (&plan.key, &provider.api_key_env) {
        (Some(key), _) => Some(key.clone()),
        (None, Some(env)) => Some(dotenv::secret(env, &paths.home).ok_or_else(|| {
            format!(
                "{env} is not set in the environment or in {}",
                paths.credentials_file().display()
            )
        })?),
        (None, None) => None,
    };
    let client = ProviderClient::with_secret(provider.clone(), model, kind.clone(), secret, None)
        .map_err(|e| e.to_string())?
        .with_policy(RetryPolicy {
            max_retries: 1,
            ..RetryPolicy::default()
        });
    let request = ChatRequest {
        messages: vec![Message::text(Role::User, PROMPT)],
        tools: vec![],
        effort: None,
        max_output_tokens: Some(MAX_TOKENS),
    };
    let mut completion = client
        .stream(&request, cancel, &mut |_| {})
        .map_err(|e| e.to_string())?;
    let mut reply = String::new();
    loop {
        let batch = completion.next_events().map_err(|e| e.to_string())?;
        if batch.is_empty() {
            break;
        }
        for event in batch {
            if let StreamEvent::Text(text) = event {
                reply.push_str(&text);
            }
        }
    }
    Ok(format!(
        "{}/{} answered: {}",
        client.provider().name,
        client.model(),
        reply.trim()
    ))
}
