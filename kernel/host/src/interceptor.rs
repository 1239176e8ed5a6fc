//! The adapter that serves a wasm component's interceptor through the [`Interceptor`] trait.

use crate::component::LoadedPlugin;
use crate::host::bindings::interceptor as wit;
use reasonix_core::error::CallError;
pub use reasonix_core::interceptor::Interceptor;
use reasonix_core::types::{Decision, Subscription};
use std::sync::Arc;

/// An interceptor served by a wasm component.
pub struct WasmInterceptor {
    plugin: Arc<LoadedPlugin>,
}

impl WasmInterceptor {
    pub fn new(plugin: Arc<LoadedPlugin>) -> WasmInterceptor {
        WasmInterceptor { plugin }
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
        let (mut store, instance) = self.plugin.instantiate_interceptor()?;
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
