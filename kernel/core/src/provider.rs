//! The `Provider` trait: a wire protocol the agent opens completions with, and the one
//! endpoint a completion may reach.

use crate::cancel::CancelToken;
use crate::error::CallError;
use crate::origin::Origin;
use crate::types::{CompletionRequest, ModelProfile, ProfileRequest, ProviderKind, StreamEvent};
use std::time::Duration;

/// The one endpoint a provider stream may talk to.
#[derive(Clone)]
pub struct Endpoint {
    /// Name of the configured provider, for refusals.
    pub provider: String,
    /// The origins of its base URL (and request URL, when that differs).
    pub origins: Vec<Origin>,
    /// Header the host sets on every request to those origins; the component never sees it.
    pub credential: Option<(http::HeaderName, http::HeaderValue)>,
    /// Longest wait for the response head and longest silence inside the body.
    pub stall: Duration,
    pub cancel: CancelToken,
}

/// A provider kind (wire protocol) the agent can open completions with.
pub trait Provider: Send + Sync {
    fn kind(&self) -> &ProviderKind;
    /// Name of the plugin serving it.
    fn source(&self) -> &str;
    /// What the kind knows about one model (reasoning protocol, effort levels, default stall
    /// timeout); refuses an effort level or option its backend does not accept. No network.
    fn profile(&self, request: &ProfileRequest) -> Result<ModelProfile, CallError>;
    /// Start a streaming completion that may reach only `endpoint`.
    fn open(
        &self,
        request: &CompletionRequest,
        endpoint: Endpoint,
    ) -> Result<Box<dyn CompletionStream>, CallError>;
}

/// An in-flight completion.
pub trait CompletionStream: Send {
    /// The next batch of events; empty once the stream has ended.
    fn next(&mut self) -> Result<Vec<StreamEvent>, CallError>;
}
