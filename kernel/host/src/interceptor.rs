//! The adapter that serves a wasm component's interceptor through the [`Interceptor`] trait.

use crate::component::LoadedPlugin;
use crate::host::bindings::interceptor as wit;
use crate::host::state::PluginState;
use reasonix_core::error::CallError;
pub use reasonix_core::interceptor::{HeldInterceptor, Interceptor};
use reasonix_core::types::{Decision, Subscription};
use std::path::PathBuf;
use std::sync::Arc;
use wasmtime::Store;
use wasmtime::component::Instance;

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
        let mut once = self.instance()?;
        once.call(point, payload)
    }

    fn held(&self) -> Option<Box<dyn HeldInterceptor>> {
        Some(Box::new(HeldWasm {
            interceptor: WasmInterceptor {
                plugin: self.plugin.clone(),
                workspace: self.workspace.clone(),
            },
            instance: None,
        }))
    }
}

impl WasmInterceptor {
    fn instance(&self) -> Result<Instantiated, CallError> {
        if self.plugin.described.roles.interceptor.is_none() {
            return Err(CallError::Unknown(format!(
                "plugin `{}` serves no interceptors",
                self.plugin.name()
            )));
        }
        let (store, instance) = self
            .plugin
            .instantiate_interceptor(self.workspace.as_deref())?;
        Ok(Instantiated {
            plugin: self.plugin.clone(),
            store,
            instance,
            calls: 0,
        })
    }
}

/// One instance of the component and its store.
struct Instantiated {
    plugin: Arc<LoadedPlugin>,
    store: Store<PluginState>,
    instance: Instance,
    calls: u32,
}

impl Instantiated {
    fn call(&mut self, point: &str, payload: &str) -> Result<Decision, CallError> {
        // Each call gets its own deadline and usage, as on a fresh store.
        if self.calls > 0 {
            self.plugin.rearm_deadline(&mut self.store);
        }
        self.calls += 1;
        let Some(indices) = self.plugin.described.roles.interceptor.as_ref() else {
            return Err(CallError::Unknown(format!(
                "plugin `{}` serves no interceptors",
                self.plugin.name()
            )));
        };
        let payload = payload.to_string();
        let result = indices
            .load(&mut self.store, &self.instance)
            .and_then(|guest| guest.call_intercept(&mut self.store, point, &payload));
        match result {
            Ok(Ok(wit::Decision::Proceed)) => Ok(Decision::Proceed),
            Ok(Ok(wit::Decision::Block(reason))) => Ok(Decision::Block(reason)),
            Ok(Ok(wit::Decision::Replace(payload))) => Ok(Decision::Replace(payload)),
            Ok(Ok(wit::Decision::Allow)) => Ok(Decision::Allow),
            Ok(Ok(wit::Decision::Deny(reason))) => Ok(Decision::Deny(reason)),
            Ok(Err(e)) => Err(CallError::Plugin(e.into())),
            Err(trap) => Err(self.plugin.classify(trap, &self.store)),
        }
    }
}

/// The instance kept for one unit of work; made at its first interception. After a trap it is
/// discarded (ADR 0002) and the next interception makes a fresh one.
struct HeldWasm {
    interceptor: WasmInterceptor,
    instance: Option<Instantiated>,
}

impl HeldInterceptor for HeldWasm {
    fn intercept(&mut self, point: &str, payload: &str) -> Result<Decision, CallError> {
        let mut instance = match self.instance.take() {
            Some(instance) => instance,
            None => self.interceptor.instance()?,
        };
        let result = instance.call(point, payload);
        // Kept only while it answers; a trap or a stop leaves nothing to call again.
        if matches!(result, Ok(_) | Err(CallError::Plugin(_))) {
            self.instance = Some(instance);
        }
        result
    }
}
