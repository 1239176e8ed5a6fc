//! The adapter that serves a wasm component's interceptor through the [`Interceptor`] trait.

use crate::component::LoadedPlugin;
use crate::host::bindings::interceptor as wit;
use reasonix_core::error::CallError;
pub use reasonix_core::interceptor::Interceptor;
use reasonix_core::types::{Decision, Subscription};
use std::path::PathBuf;
use std::sync::Arc;

/// An interceptor served by a wasm component.
pub struct WasmInterceptor {
    plugin: Arc<LoadedPlugin>,
    /// The workspace its calls are made for, as tool calls are (preopened as far as the
    /// plugin's grant goes, and the sandbox policy its commands run in); `None` for a listing.
    workspace: Option<PathBuf>,
}

impl WasmInterceptor {
    pub fn new(plugin: Arc<LoadedPlugin>, workspace: Option<PathBuf>) -> WasmInterceptor {
        WasmInterceptor { plugin, workspace }
    }
}

impl Interceptor for WasmInterceptor {
    fn source(&self) -> &str {
        self.plugin.name()
    }

    fn points(&self) -> &[Subscription] {
        &self.plugin.described.interception_points
    }

    fn slots(&self) -> &[String] {
        &self.plugin.described.slots
    }

    fn intercept(&self, point: &str, payload: &str) -> Result<Decision, CallError> {
        let indices = self
            .plugin
            .described
            .roles
            .interceptor
            .as_ref()
            .ok_or_else(|| {
                CallError::Unknown(format!(
                    "plugin `{}` serves no interceptors",
                    self.plugin.name()
                ))
            })?;
        let (mut store, instance) = self
            .plugin
            .instantiate_interceptor(self.workspace.as_deref())?;
        let payload = payload.to_string();
        let result = indices
            .load(&mut store, &instance)
            .and_then(|guest| guest.call_intercept(&mut store, point, &payload));
        match result {
            Ok(Ok(wit::Decision::Proceed)) => Ok(Decision::Proceed),
            Ok(Ok(wit::Decision::Block(reason))) => Ok(Decision::Block(reason)),
            Ok(Ok(wit::Decision::Replace(payload))) => Ok(Decision::Replace(payload)),
            Ok(Ok(wit::Decision::Allow)) => Ok(Decision::Allow),
            Ok(Ok(wit::Decision::Deny(reason))) => Ok(Decision::Deny(reason)),
            Ok(Err(e)) => Err(CallError::Plugin(e.into())),
            Err(trap) => Err(self.plugin.classify(trap, &store)),
        }
    }
}
