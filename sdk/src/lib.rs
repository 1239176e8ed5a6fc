//! The Reasonix plugin SDK: write a tool plugin ([`ToolPlugin`]), a provider plugin
//! ([`ProviderPlugin`], with [`http`] and [`sse`]) or an interceptor ([`InterceptorPlugin`]) in
//! Rust and build it with `cargo build --release --target wasm32-wasip2`.
//!
//! A complete tool plugin (what `reasonix plugin new <name>` generates). The argument schema the
//! model sees is derived from `Args` ([`typed_tool`]), and [`parse_args`] turns a bad call into
//! `invalid-input` naming the field:
//!
//! ```ignore
//! use reasonix_sdk::{CallContext, Error, PluginInfo, ToolPlugin, ToolSpec};
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, schemars::JsonSchema)]
//! struct Args {
//!     /// The text whose words to count.
//!     text: String,
//! }
//!
//! struct WordCount;
//! impl ToolPlugin for WordCount {
//!     fn info() -> PluginInfo { reasonix_sdk::plugin_info("word-count", "0.1.0", "Counts words") }
//!     fn tools() -> Vec<ToolSpec> {
//!         vec![reasonix_sdk::typed_tool::<Args>("word_count", "Count the words in a text.", true)]
//!     }
//!     fn invoke(name: &str, arguments: &str, _cx: &CallContext) -> Result<String, Error> {
//!         let args: Args = reasonix_sdk::parse_args(name, arguments)?;
//!         Ok(args.text.split_whitespace().count().to_string())
//!     }
//! }
//! reasonix_sdk::export_tool_plugin!(WordCount);
//! ```
//!
//! Errors: [`Error::invalid`], [`Error::denied`], [`Error::not_found`], [`Error::other`] …;
//! host services: [`host`] (log, progress, config), [`process`] (commands in the OS sandbox,
//! needs the `process` capability), [`http`] (needs `network`).
//!
//! Everything here also compiles natively, so a plugin's logic is unit-tested with plain
//! `cargo test`; host services (log, progress, config) become no-ops outside wasm and
//! `process` calls return `unsupported`.
#![deny(unsafe_code)]

mod args;
mod error;
pub mod host;
pub mod http;
pub mod interceptor;
pub mod process;
pub mod provider;
mod schema;
pub mod sse;

pub use args::parse_args;
pub use interceptor::{Decision, InterceptorPlugin};
pub use provider::{CompletionStream, ProviderPlugin, provider_kind};
pub use provider_world::exports::reasonix::plugin::provider::{CompletionRequest, ProviderKind};
pub use schema::{schema_for, typed_tool};
/// Re-exported so plugins can name the derive without their own dependency:
/// `#[derive(reasonix_sdk::JsonSchema)] #[schemars(crate = "reasonix_sdk::schemars")]`.
/// The scaffold (`reasonix plugin new`) simply depends on `schemars` itself.
pub use schemars::{self, JsonSchema};

// Bindings. A component's world is the union of the `component-type` sections linked into it,
// so each exported interface is generated exactly once, in its own world: `plugin` (every
// component), `tool` (with the host-service imports, which every role shares) and `provider`.
// `export_tool_plugin!` exports plugin + tool, `export_provider_plugin!` plugin + provider.
// Generating the full `tool-plugin` and `provider-plugin` worlds instead would define the
// `plugin` export (and its `#[macro_export]` glue) twice and give authors two `PluginInfo`s.

/// Generated bindings for the `reasonix:plugin/plugin` export (self-description).
// Generated code does the canonical-ABI lifting with `unsafe`; everything else here is safe.
#[doc(hidden)]
#[allow(unsafe_code, clippy::all)]
pub mod plugin_world {
    wit_bindgen::generate!({
        path: "../wit/0.2.0",
        inline: "
            package reasonix:sdk;
            world plugin-role {
                export reasonix:plugin/plugin@0.2.0;
            }
        ",
        world: "reasonix:sdk/plugin-role",
        pub_export_macro: true,
        export_macro_name: "export_plugin_world",
        default_bindings_module: "reasonix_sdk::plugin_world",
        additional_derives: [PartialEq],
    });
}

/// Generated bindings for the `reasonix:plugin/tool` export and the host services (`log`,
/// `progress`, `config`, `process`) and shared `types`. Plugin code rarely needs this directly;
/// the re-exports below and [`export_tool_plugin!`] cover the common cases.
#[allow(unsafe_code, clippy::all)]
pub mod tool_world {
    wit_bindgen::generate!({
        path: "../wit/0.2.0",
        inline: "
            package reasonix:sdk;
            world tool-role {
                import reasonix:plugin/log@0.2.0;
                import reasonix:plugin/progress@0.2.0;
                import reasonix:plugin/config@0.2.0;
                import reasonix:plugin/process@0.2.0;
                export reasonix:plugin/tool@0.2.0;
            }
        ",
        world: "reasonix:sdk/tool-role",
        pub_export_macro: true,
        export_macro_name: "export_tool_world",
        default_bindings_module: "reasonix_sdk::tool_world",
        additional_derives: [PartialEq],
        generate_all,
    });
}

/// Generated bindings for the `reasonix:plugin/provider` export. The shared `types` map onto
/// [`tool_world`], so [`Error`], [`Message`], [`StreamEvent`] … are one Rust type for every
/// role. Plugin code uses [`ProviderPlugin`] and [`export_provider_plugin!`] instead.
#[doc(hidden)]
#[allow(unsafe_code, clippy::all)]
pub mod provider_world {
    wit_bindgen::generate!({
        path: "../wit/0.2.0",
        inline: "
            package reasonix:sdk;
            world provider-role {
                export reasonix:plugin/provider@0.2.0;
            }
        ",
        world: "reasonix:sdk/provider-role",
        pub_export_macro: true,
        export_macro_name: "export_provider_world",
        default_bindings_module: "reasonix_sdk::provider_world",
        additional_derives: [PartialEq],
        with: {
            "reasonix:plugin/types@0.2.0": crate::tool_world::reasonix::plugin::types,
        },
    });
}

/// Generated bindings for the `reasonix:plugin/interceptor` export, sharing [`tool_world`]'s
/// types. Plugin code uses [`InterceptorPlugin`] and [`export_interceptor_plugin!`] instead.
#[doc(hidden)]
#[allow(unsafe_code, clippy::all)]
pub mod interceptor_world {
    wit_bindgen::generate!({
        path: "../wit/0.2.0",
        inline: "
            package reasonix:sdk;
            world interceptor-role {
                export reasonix:plugin/interceptor@0.2.0;
            }
        ",
        world: "reasonix:sdk/interceptor-role",
        pub_export_macro: true,
        export_macro_name: "export_interceptor_world",
        default_bindings_module: "reasonix_sdk::interceptor_world",
        additional_derives: [PartialEq],
        with: {
            "reasonix:plugin/types@0.2.0": crate::tool_world::reasonix::plugin::types,
        },
    });
}

pub use plugin_world::exports::reasonix::plugin::plugin::{
    Capabilities, Limits, PluginInfo, WorkspaceAccess,
};
pub use tool_world::reasonix::plugin::types::{
    CallContext, ChangeKind, Error, ErrorDetail, FileChange, FinishReason, HttpFailure, Message,
    RateLimit, Role, StreamEvent, ToolCall, ToolSpec, Usage,
};

/// A plugin that serves tools. Implement this and call [`export_tool_plugin!`].
pub trait ToolPlugin {
    /// Name, version, description, requested capabilities and limits.
    fn info() -> PluginInfo;
    /// The tools served; must be the same on every call.
    fn tools() -> Vec<ToolSpec>;
    /// Run one tool.
    fn invoke(name: &str, arguments: &str, context: &CallContext) -> Result<String, Error>;
    /// The file changes `invoke` would make; read-only tools keep the default.
    fn preview(
        _name: &str,
        _arguments: &str,
        _context: &CallContext,
    ) -> Result<Vec<FileChange>, Error> {
        Ok(Vec::new())
    }
}

/// A [`PluginInfo`] asking for nothing: no filesystem, network, environment or processes.
pub fn plugin_info(name: &str, version: &str, description: &str) -> PluginInfo {
    PluginInfo {
        name: name.to_string(),
        version: version.to_string(),
        description: description.to_string(),
        capabilities: Capabilities {
            workspace: WorkspaceAccess::None,
            network: Vec::new(),
            env: Vec::new(),
            process: false,
        },
        limits: Limits {
            memory_mib: None,
            call_timeout_ms: None,
        },
    }
}

/// A [`ToolSpec`] from a name, a description, a JSON schema and the read-only flag.
pub fn tool_spec(
    name: &str,
    description: &str,
    parameters: &serde_json::Value,
    read_only: bool,
) -> ToolSpec {
    ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        parameters: parameters.to_string(),
        read_only,
        guidance: None,
    }
}

/// An `other` error with a code and message, not retryable.
pub fn other_error(code: &str, message: impl Into<String>) -> Error {
    Error::Other(ErrorDetail {
        code: code.to_string(),
        message: message.into(),
        retryable: false,
        detail: None,
    })
}

/// Export a [`ToolPlugin`] implementation as the component's `plugin` and `tool` interfaces.
#[macro_export]
macro_rules! export_tool_plugin {
    ($plugin:ty) => {
        #[doc(hidden)]
        pub struct __ReasonixToolExport;

        impl $crate::plugin_world::exports::reasonix::plugin::plugin::Guest
            for __ReasonixToolExport
        {
            fn describe() -> $crate::PluginInfo {
                <$plugin as $crate::ToolPlugin>::info()
            }
        }

        impl $crate::tool_world::exports::reasonix::plugin::tool::Guest for __ReasonixToolExport {
            fn list_tools() -> ::std::vec::Vec<$crate::ToolSpec> {
                <$plugin as $crate::ToolPlugin>::tools()
            }
            fn invoke(
                name: ::std::string::String,
                arguments: ::std::string::String,
                context: $crate::CallContext,
            ) -> ::std::result::Result<::std::string::String, $crate::Error> {
                <$plugin as $crate::ToolPlugin>::invoke(&name, &arguments, &context)
            }
            fn preview(
                name: ::std::string::String,
                arguments: ::std::string::String,
                context: $crate::CallContext,
            ) -> ::std::result::Result<::std::vec::Vec<$crate::FileChange>, $crate::Error> {
                <$plugin as $crate::ToolPlugin>::preview(&name, &arguments, &context)
            }
        }

        // Component export names (`reasonix:plugin/…`) are not valid native symbols, so the
        // exports only exist in the wasm build; native builds keep the logic testable.
        #[cfg(target_arch = "wasm32")]
        $crate::plugin_world::export_plugin_world!(__ReasonixToolExport);
        #[cfg(target_arch = "wasm32")]
        $crate::tool_world::export_tool_world!(__ReasonixToolExport);
    };
}
