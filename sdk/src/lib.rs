//! The Reasonix plugin SDK: write a component in Rust that serves tools, provider kinds,
//! interceptors or any mix of them, and build it with
//! `cargo build --release --target wasm32-wasip2`.
//!
//! A component is one type implementing [`Plugin`], exported once with [`export!`]. Every role
//! has a default that serves nothing, so a tool plugin only says which tools it has. Each tool
//! is a type implementing [`Tool`]: its arguments are a Rust type whose JSON Schema (what the
//! model sees) is derived from it, and a bad call becomes `invalid-input` naming the field.
//! This is what `reasonix plugin new <name>` generates:
//!
//! ```ignore
//! use reasonix_sdk::{CallContext, Error, Plugin, PluginInfo, Tool, ToolSet};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Args {
//!     /// The text whose words to count.
//!     text: String,
//! }
//!
//! struct WordCount;
//! impl Tool for WordCount {
//!     const NAME: &'static str = "word_count";
//!     const READ_ONLY: bool = true;
//!     type Args = Args;
//!     fn description() -> String { "Count the words in a text.".into() }
//!     fn run(args: Args, _cx: &CallContext) -> Result<String, Error> {
//!         Ok(args.text.split_whitespace().count().to_string())
//!     }
//! }
//!
//! struct Words;
//! impl Plugin for Words {
//!     fn info() -> PluginInfo { reasonix_sdk::plugin_info("words", "0.1.0", "Counts words") }
//!     fn tools() -> ToolSet { ToolSet::new().with::<WordCount>() }
//! }
//! reasonix_sdk::export!(Words);
//! ```
//!
//! Roles: [`Plugin::tools`] ([`Tool`], [`ToolSet`]), [`Plugin::provider_kinds`] and
//! [`Plugin::open`] ([`CompletionStream`], with [`http`] and [`sse`]),
//! [`Plugin::subscriptions`] and [`Plugin::intercept`] ([`Decision`]).
//! Errors: [`Error::invalid`], [`Error::denied`], [`Error::not_found`], [`Error::other`] …;
//! host services: [`host`] (log, progress, config), [`process`] (commands in the OS sandbox,
//! needs the `process` capability), [`http`] (needs `network`).
//!
//! Everything here also compiles natively, so a plugin's logic is unit-tested with plain
//! `cargo test` (`Words::tools().invoke("word_count", r#"{"text":"a b"}"#, &cx)`); host
//! services (log, progress, config) become no-ops outside wasm and `process` calls return
//! `unsupported`.
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
pub mod tool;

pub use args::parse_args;
pub use bindings::exports::reasonix::plugin::plugin::{
    Capabilities, Limits, PluginInfo, WorkspaceAccess,
};
pub use bindings::exports::reasonix::plugin::provider::{CompletionRequest, ProviderKind};
pub use bindings::reasonix::plugin::types::{
    CallContext, ChangeKind, Error, ErrorDetail, FileChange, FinishReason, HttpFailure, Message,
    RateLimit, Role, StreamEvent, ToolCall, ToolSpec, Usage,
};
pub use interceptor::{Decision, Subscription};
pub use provider::{CompletionStream, provider_kind};
pub use schema::{schema_for, typed_tool};
/// Re-exported so plugins can name the derive without their own dependency:
/// `#[derive(reasonix_sdk::JsonSchema)] #[schemars(crate = "reasonix_sdk::schemars")]`.
/// The scaffold (`reasonix plugin new`) simply depends on `schemars` itself.
pub use schemars::{self, JsonSchema};
pub use tool::{Tool, ToolSet};

/// Generated bindings of the `reasonix:plugin/all-roles` world: the host services a plugin
/// imports (`log`, `progress`, `config`, `process`), the shared `types`, and every role it may
/// export. Plugin code rarely needs this directly; the re-exports and [`export!`] cover it.
// Generated code does the canonical-ABI lifting with `unsafe`; everything else here is safe.
#[allow(unsafe_code, clippy::all)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../wit/0.2.0",
        world: "reasonix:plugin/all-roles",
        pub_export_macro: true,
        export_macro_name: "export_all_roles",
        default_bindings_module: "reasonix_sdk::bindings",
        additional_derives: [PartialEq],
        generate_all,
    });
}

/// A Reasonix component. Only [`info`](Plugin::info) is required; every role defaults to
/// serving nothing, and the host treats a role with an empty list as not served. Export the
/// implementation with [`export!`].
pub trait Plugin {
    /// Name, version, description, requested capabilities and limits.
    fn info() -> PluginInfo;

    /// The tools served. The set must be the same on every call.
    fn tools() -> ToolSet {
        ToolSet::new()
    }

    /// The provider kinds served; must be the same on every call.
    fn provider_kinds() -> Vec<ProviderKind> {
        Vec::new()
    }

    /// What one of [`provider_kinds`](Plugin::provider_kinds) knows about one model: the
    /// reasoning protocol it speaks, the effort levels it accepts (`auto` first) and its default
    /// stall timeout. Refuse an effort level the backend does not know with
    /// [`Error::InvalidInput`] naming the provider, the model and the valid levels.
    /// Deterministic, cheap, no network. Default: [`provider::default_profile`].
    fn profile(request: provider::ProfileRequest) -> Result<provider::ModelProfile, Error> {
        provider::default_profile(&request)
    }

    /// Start a completion for one of [`provider_kinds`](Plugin::provider_kinds): send the
    /// request and wait for the response head; the stream yields the events. See
    /// `docs/PROVIDERS.md` for which error case to return when.
    fn open(request: CompletionRequest) -> Result<Box<dyn CompletionStream>, Error> {
        Err(Error::unsupported(format!(
            "provider kind `{}` is not served by this plugin",
            request.kind
        )))
    }

    /// The interception points subscribed to, each with its priority (lower runs first); must
    /// be the same on every call.
    fn subscriptions() -> Vec<Subscription> {
        Vec::new()
    }

    /// The replacement slots this plugin owns (e.g. `system_prompt`, `tool:<name>`): it runs
    /// last at their points, after every ordinary interceptor. A slot has one owner across all
    /// plugins; a second one fails the load naming both. None by default.
    fn slots() -> Vec<String> {
        Vec::new()
    }

    /// Handle one interception; `payload` is JSON with the point's schema. Return
    /// [`Decision::Replace`] with a payload of the same schema to change it.
    fn intercept(point: &str, payload: &str) -> Result<Decision, Error> {
        let _ = (point, payload);
        Ok(Decision::Proceed)
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

/// A [`ToolSpec`] from a name, a description, a JSON schema and the read-only flag, for
/// [`ToolSet::with_raw`]. Typed tools ([`Tool`]) derive theirs.
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

/// The component's exports for the [`Plugin`] `P`: what [`export!`] hands to the generated
/// bindings. Every role is exported; the lists of the roles `P` does not serve are empty.
#[doc(hidden)]
pub struct Export<P>(std::marker::PhantomData<P>);

impl<P: Plugin> bindings::exports::reasonix::plugin::plugin::Guest for Export<P> {
    fn describe() -> PluginInfo {
        P::info()
    }
}

impl<P: Plugin> bindings::exports::reasonix::plugin::tool::Guest for Export<P> {
    fn list_tools() -> Vec<ToolSpec> {
        P::tools().specs()
    }

    fn invoke(name: String, arguments: String, context: CallContext) -> Result<String, Error> {
        P::tools().invoke(&name, &arguments, &context)
    }

    fn preview(
        name: String,
        arguments: String,
        context: CallContext,
    ) -> Result<Vec<FileChange>, Error> {
        P::tools().preview(&name, &arguments, &context)
    }
}

impl<P: Plugin> bindings::exports::reasonix::plugin::provider::Guest for Export<P> {
    type CompletionStream = provider::StreamResource;

    fn list_kinds() -> Vec<ProviderKind> {
        P::provider_kinds()
    }

    fn profile(request: provider::ProfileRequest) -> Result<provider::ModelProfile, Error> {
        P::profile(request)
    }

    fn open(
        request: CompletionRequest,
    ) -> Result<bindings::exports::reasonix::plugin::provider::CompletionStream, Error> {
        P::open(request).map(|stream| {
            bindings::exports::reasonix::plugin::provider::CompletionStream::new(
                provider::StreamResource::new(stream),
            )
        })
    }
}

impl<P: Plugin> bindings::exports::reasonix::plugin::interceptor::Guest for Export<P> {
    fn points() -> Vec<Subscription> {
        P::subscriptions()
    }

    fn slots() -> Vec<String> {
        P::slots()
    }

    fn intercept(point: String, payload: String) -> Result<Decision, Error> {
        P::intercept(&point, &payload)
    }
}

/// Export a [`Plugin`] implementation as the component: its self-description and every role
/// (tool, provider, interceptor). Use it once per component, at the crate root.
#[macro_export]
macro_rules! export {
    ($plugin:ty) => {
        #[doc(hidden)]
        #[allow(dead_code)]
        type __ReasonixExport = $crate::Export<$plugin>;

        // Component export names (`reasonix:plugin/…`) are not valid native symbols, so the
        // exports only exist in the wasm build; native builds keep the logic testable.
        #[cfg(target_arch = "wasm32")]
        $crate::bindings::export_all_roles!(__ReasonixExport with_types_in $crate::bindings);
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Nothing;
    impl Plugin for Nothing {
        fn info() -> PluginInfo {
            plugin_info("nothing", "1.0.0", "Serves no role")
        }
    }

    fn cx() -> CallContext {
        CallContext {
            call_id: "c".into(),
            workspace: "/".into(),
        }
    }

    #[test]
    fn every_role_defaults_to_serving_nothing() {
        use bindings::exports::reasonix::plugin::{interceptor, provider, tool};
        type E = Export<Nothing>;
        assert!(<E as tool::Guest>::list_tools().is_empty());
        assert!(<E as provider::Guest>::list_kinds().is_empty());
        assert!(<E as interceptor::Guest>::points().is_empty());
        assert!(matches!(
            <E as tool::Guest>::invoke("x".into(), "{}".into(), cx()),
            Err(Error::NotFound(_))
        ));
        assert_eq!(
            <E as interceptor::Guest>::intercept("tool.before".into(), "{}".into()),
            Ok(Decision::Proceed)
        );
    }

    #[test]
    fn a_provider_without_kinds_refuses_to_open() {
        let request = CompletionRequest {
            kind: "openai".into(),
            provider: "p".into(),
            base_url: "http://127.0.0.1:1".into(),
            model: "m".into(),
            messages: vec![],
            tools: vec![],
            effort: None,
            max_output_tokens: None,
            options: "{}".into(),
        };
        match Nothing::open(request) {
            Err(Error::Unsupported(m)) => assert!(m.contains("`openai`"), "{m}"),
            Err(other) => panic!("unexpected {other:?}"),
            Ok(_) => panic!("opened a stream"),
        }
    }
}
