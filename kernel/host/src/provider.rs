//! The adapter that serves a wasm component's provider kinds through the [`Provider`] trait.
//! A stream keeps its store alive until it is dropped; dropping it drops the guest resource,
//! which cancels the request.

use crate::component::LoadedPlugin;
use crate::convert;
use crate::host::bindings::provider as wit;
use crate::host::http::{AllowedHosts, Endpoint};
use crate::host::state::PluginState;
use reasonix_core::cancel::CancelToken;
use reasonix_core::error::{CallError, PluginError};
pub use reasonix_core::provider::{CompletionStream, Provider};
use reasonix_core::types::{
    CompletionRequest, ModelProfile, ProfileRequest, ProviderKind, StreamEvent,
};
use std::sync::Arc;
use std::time::Duration;
use wasmtime::Store;
use wasmtime::component::ResourceAny;

/// A provider kind served by a wasm component.
pub struct WasmProvider {
    plugin: Arc<LoadedPlugin>,
    kind: ProviderKind,
}

impl WasmProvider {
    pub fn new(plugin: Arc<LoadedPlugin>, kind: ProviderKind) -> WasmProvider {
        WasmProvider { plugin, kind }
    }

    fn exports(&self) -> Result<&wit::GuestIndices, CallError> {
        self.plugin
            .described
            .roles
            .provider
            .as_ref()
            .ok_or_else(|| {
                CallError::Unknown(format!(
                    "plugin `{}` serves no providers",
                    self.plugin.name()
                ))
            })
    }
}

impl Provider for WasmProvider {
    fn kind(&self) -> &ProviderKind {
        &self.kind
    }

    fn source(&self) -> &str {
        self.plugin.name()
    }

    fn profile(&self, request: &ProfileRequest) -> Result<ModelProfile, CallError> {
        let indices = self.exports()?;
        // A profile needs no network: an endpoint without origins refuses every request.
        let no_network = Endpoint {
            provider: request.provider.clone(),
            origins: Vec::new(),
            credential: None,
            stall: Duration::from_millis(self.plugin.limits.call_timeout_ms),
            cancel: CancelToken::new(),
        };
        let (mut store, instance) =
            self.plugin
                .instantiate_for(None, None, Some(no_network), false)?;
        let wit_request = convert::profile_request(request);
        let answered = indices
            .load(&mut store, &instance)
            .and_then(|guest| guest.call_profile(&mut store, &wit_request));
        match answered {
            Ok(Ok(profile)) => convert::model_profile(profile).map_err(|why| {
                CallError::Plugin(PluginError::Other {
                    code: "bad-profile".into(),
                    message: format!(
                        "plugin `{}` returned an unusable profile for model {} of provider `{}`: {why}",
                        self.plugin.name(),
                        request.model,
                        request.provider
                    ),
                    retryable: false,
                    detail: None,
                })
            }),
            Ok(Err(e)) => Err(CallError::Plugin(e.into())),
            Err(trap) => Err(self.plugin.classify(trap, &store)),
        }
    }

    fn open(
        &self,
        request: &CompletionRequest,
        endpoint: Endpoint,
    ) -> Result<Box<dyn CompletionStream>, CallError> {
        let granted = AllowedHosts::new(&self.plugin.granted.network);
        if let Some(origin) = endpoint.origins.iter().find(|o| !granted.allows(o)) {
            return Err(CallError::Plugin(PluginError::Denied(format!(
                "provider `{}`: plugin `{}` was not granted network access to {origin}; \
                 grant it (`reasonix plugin install … --grant network={origin}`) or use another kind",
                endpoint.provider,
                self.plugin.name()
            ))));
        }
        // Stalls are caught by the host's read timeout; the epoch deadline is the backstop
        // for a component that keeps decoding (pings) without producing events.
        let stall_ms = u64::try_from(endpoint.stall.as_millis()).unwrap_or(u64::MAX);
        let indices = self.exports()?;
        let (mut store, instance) =
            self.plugin
                .instantiate_for(None, None, Some(endpoint), false)?;
        // Opening waits for the response head, which may take up to the stall timeout.
        self.plugin
            .rearm_deadline_ms(&mut store, stall_ms.saturating_add(STALL_GRACE_MS));
        let wit_request = wit::CompletionRequest {
            kind: request.kind.clone(),
            provider: request.provider.clone(),
            base_url: request.base_url.clone(),
            model: request.model.clone(),
            messages: request.messages.iter().map(convert::message).collect(),
            tools: request.tools.iter().map(convert::tool_spec).collect(),
            effort: request.effort.clone(),
            max_output_tokens: request.max_output_tokens,
            options: request.options.clone(),
        };
        let opened = indices.load(&mut store, &instance).and_then(|guest| {
            let resource = guest.call_open(&mut store, &wit_request)?;
            Ok((guest, resource))
        });
        match opened {
            Ok((guest, Ok(resource))) => Ok(Box::new(WasmStream {
                plugin: self.plugin.clone(),
                stall_ms,
                guest,
                store,
                resource: Some(resource),
            })),
            Ok((_, Err(e))) => Err(CallError::Plugin(e.into())),
            Err(trap) => Err(self.plugin.classify(trap, &store)),
        }
    }
}

/// Extra time past the stall timeout before the epoch deadline stops a component, so the
/// host's read timeout (a clean error) normally fires first.
const STALL_GRACE_MS: u64 = 2_000;

struct WasmStream {
    plugin: Arc<LoadedPlugin>,
    stall_ms: u64,
    guest: wit::Guest,
    store: Store<PluginState>,
    resource: Option<ResourceAny>,
}

impl CompletionStream for WasmStream {
    fn next(&mut self) -> Result<Vec<StreamEvent>, CallError> {
        let Some(resource) = self.resource else {
            return Ok(Vec::new());
        };
        self.plugin.rearm_deadline_ms(
            &mut self.store,
            self.stall_ms.saturating_add(STALL_GRACE_MS),
        );
        match self
            .guest
            .completion_stream()
            .call_next(&mut self.store, resource)
        {
            Ok(Ok(events)) => Ok(events.into_iter().map(convert::stream_event).collect()),
            Ok(Err(e)) => Err(CallError::Plugin(e.into())),
            Err(trap) => {
                // The instance is unusable after a trap; never call into it again.
                self.resource = None;
                Err(self.plugin.classify(trap, &self.store))
            }
        }
    }
}

impl Drop for WasmStream {
    fn drop(&mut self) {
        if let Some(resource) = self.resource.take() {
            self.plugin.rearm_deadline(&mut self.store);
            let _ = resource.resource_drop(&mut self.store);
        }
    }
}
