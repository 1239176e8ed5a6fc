//! The adapter that serves a wasm component's tools through the [`Tool`] trait.

use crate::component::LoadedPlugin;
use crate::convert;
use reasonix_core::error::CallError;
pub use reasonix_core::tool::{Effects, ProgressSink, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolSpec};
use std::sync::Arc;

/// A tool served by a wasm component. Each call gets a fresh instance, so a trap or a runaway
/// call never leaks state into the next one.
pub struct WasmTool {
    plugin: Arc<LoadedPlugin>,
    spec: ToolSpec,
}

impl WasmTool {
    pub fn new(plugin: Arc<LoadedPlugin>, spec: ToolSpec) -> WasmTool {
        WasmTool { plugin, spec }
    }

    fn indices(&self) -> Result<&crate::host::bindings::tool::GuestIndices, CallError> {
        self.plugin.described.roles.tool.as_ref().ok_or_else(|| {
            CallError::Unknown(format!("plugin `{}` serves no tools", self.plugin.name()))
        })
    }
}

impl Tool for WasmTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        self.plugin.name()
    }

    fn effects(&self) -> Effects {
        Effects::of_grant(&self.plugin.granted)
    }

    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        let indices = self.indices()?;
        let progress = context.events.as_ref().map(|events| events.progress_sink());
        let (mut store, instance) = self.plugin.instantiate_call(
            &context.workspace,
            progress,
            context.may_write_protected,
        )?;
        store
            .data_mut()
            .approve_local_origin(context.approved_local.clone());
        store.data_mut().cancel = Some(context.cancel.clone());
        let wit_ctx = convert::call_context(context);
        let arguments = arguments.to_string();
        let result = indices
            .load(&mut store, &instance)
            .and_then(|guest| guest.call_invoke(&mut store, &self.spec.name, &arguments, &wit_ctx));
        match result {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(e)) => Err(CallError::Plugin(e.into())),
            Err(trap) => Err(self.plugin.classify(trap, &store)),
        }
    }

    fn preview(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        let indices = self.indices()?;
        let (mut store, instance) =
            self.plugin
                .instantiate_call(&context.workspace, None, context.may_write_protected)?;
        let wit_ctx = convert::call_context(context);
        let arguments = arguments.to_string();
        let result = indices.load(&mut store, &instance).and_then(|guest| {
            guest.call_preview(&mut store, &self.spec.name, &arguments, &wit_ctx)
        });
        match result {
            Ok(Ok(changes)) => Ok(changes.into_iter().map(convert::file_change).collect()),
            Ok(Err(e)) => Err(CallError::Plugin(e.into())),
            Err(trap) => Err(self.plugin.classify(trap, &store)),
        }
    }
}
