//! Provider plugins: components that serve provider kinds (wire protocols to LLM backends).
//!
//! Implement [`ProviderPlugin`] and call [`export_provider_plugin!`](crate::export_provider_plugin).
//! The kernel calls `profile` once per configured model (the reasoning protocol, the effort
//! levels, the default stall timeout; refuse an effort level the backend does not know), then
//! `open` with a fully resolved request and `next` on the returned stream until it returns an
//! empty list; see `docs/PROVIDERS.md` for the contract (which error case to return when, and the
//! order of events). Talk HTTP with [`crate::http`] and decode
//! server-sent events with [`crate::sse`].
//!
//! ```ignore
//! struct Echo;
//! impl reasonix_sdk::ProviderPlugin for Echo {
//!     fn info() -> reasonix_sdk::PluginInfo { reasonix_sdk::plugin_info("echo", "0.1.0", "Echoes") }
//!     fn kinds() -> Vec<reasonix_sdk::ProviderKind> { /* … */ vec![] }
//!     fn open(request: reasonix_sdk::CompletionRequest)
//!         -> Result<Box<dyn reasonix_sdk::CompletionStream>, reasonix_sdk::Error> { /* … */ }
//! }
//! reasonix_sdk::export_provider_plugin!(Echo);
//! ```

use crate::provider_world::exports::reasonix::plugin::provider::GuestCompletionStream;
use crate::{CompletionRequest, Error, PluginInfo, ProviderKind, StreamEvent};
use std::cell::RefCell;

pub use crate::provider_world::exports::reasonix::plugin::provider::{
    ModelProfile, ProfileRequest,
};

/// The stall timeout of [`default_profile`]: two minutes.
pub const DEFAULT_STALL_TIMEOUT_MS: u32 = 120_000;

/// A plugin that serves provider kinds. Implement this and call
/// [`export_provider_plugin!`](crate::export_provider_plugin).
pub trait ProviderPlugin {
    /// Name, version, description, requested capabilities (a provider needs `network`) and
    /// limits.
    fn info() -> PluginInfo;
    /// The provider kinds served; must be the same on every call.
    fn kinds() -> Vec<ProviderKind>;
    /// What the kind knows about one model: the reasoning protocol it speaks, the effort levels
    /// it accepts (`auto` first) and its default stall timeout. Refuse an effort level the
    /// backend does not know with [`Error::InvalidInput`] naming the provider, the model and the
    /// valid levels. Deterministic, cheap, no network. Default: [`default_profile`].
    fn profile(request: ProfileRequest) -> Result<ModelProfile, Error> {
        default_profile(&request)
    }
    /// Send the request and wait for the response head; the stream yields the events.
    fn open(request: CompletionRequest) -> Result<Box<dyn CompletionStream>, Error>;
}

/// An in-flight streaming completion. Dropping it cancels the request.
pub trait CompletionStream {
    /// Block until at least one event is available and return every event decoded so far;
    /// return an empty list once the stream has ended (after `done`).
    fn next(&mut self) -> Result<Vec<StreamEvent>, Error>;
}

/// The `completion-stream` resource handed to the host: it owns the plugin's stream.
#[doc(hidden)]
pub struct StreamResource(RefCell<Box<dyn CompletionStream>>);

impl StreamResource {
    pub fn new(stream: Box<dyn CompletionStream>) -> StreamResource {
        StreamResource(RefCell::new(stream))
    }
}

impl GuestCompletionStream for StreamResource {
    fn next(&self) -> Result<Vec<StreamEvent>, Error> {
        // The host never calls a resource re-entrantly; refuse rather than panic if it did.
        match self.0.try_borrow_mut() {
            Ok(mut stream) => stream.next(),
            Err(_) => Err(crate::other_error(
                "busy",
                "completion-stream.next was called while a previous call was still running",
            )),
        }
    }
}

/// A [`ProviderKind`] from its name, description, credential header and the prefix put before
/// the key in it (e.g. `authorization` and `Bearer `).
pub fn provider_kind(
    name: &str,
    description: &str,
    credential_header: &str,
    credential_prefix: &str,
) -> ProviderKind {
    ProviderKind {
        name: name.to_string(),
        description: description.to_string(),
        credential_header: credential_header.to_string(),
        credential_prefix: credential_prefix.to_string(),
    }
}

/// The profile of a kind without reasoning controls: protocol `none`, the only effort level
/// `auto`, a stall timeout of [`DEFAULT_STALL_TIMEOUT_MS`]. Any other effort level is refused.
pub fn default_profile(request: &ProfileRequest) -> Result<ModelProfile, Error> {
    match request.effort.as_deref().map(str::trim) {
        None | Some("") => {}
        Some(level) if level.eq_ignore_ascii_case("auto") => {}
        Some(level) => {
            return Err(Error::InvalidInput(format!(
                "provider `{}` (model {}): effort `{level}` is not valid: kind `{}` has no effort levels; use auto",
                request.provider, request.model, request.kind
            )));
        }
    }
    Ok(ModelProfile {
        reasoning_protocol: "none".to_string(),
        effort_levels: vec!["auto".to_string()],
        stall_timeout_ms: DEFAULT_STALL_TIMEOUT_MS,
    })
}

/// Export a [`ProviderPlugin`] implementation as the component's `plugin` and `provider`
/// interfaces.
#[macro_export]
macro_rules! export_provider_plugin {
    ($plugin:ty) => {
        #[doc(hidden)]
        pub struct __ReasonixProviderExport;

        impl $crate::plugin_world::exports::reasonix::plugin::plugin::Guest
            for __ReasonixProviderExport
        {
            fn describe() -> $crate::PluginInfo {
                <$plugin as $crate::ProviderPlugin>::info()
            }
        }

        impl $crate::provider_world::exports::reasonix::plugin::provider::Guest
            for __ReasonixProviderExport
        {
            type CompletionStream = $crate::provider::StreamResource;

            fn list_kinds() -> ::std::vec::Vec<$crate::ProviderKind> {
                <$plugin as $crate::ProviderPlugin>::kinds()
            }

            fn profile(
                request: $crate::provider::ProfileRequest,
            ) -> ::std::result::Result<$crate::provider::ModelProfile, $crate::Error> {
                <$plugin as $crate::ProviderPlugin>::profile(request)
            }

            fn open(
                request: $crate::CompletionRequest,
            ) -> ::std::result::Result<
                $crate::provider_world::exports::reasonix::plugin::provider::CompletionStream,
                $crate::Error,
            > {
                <$plugin as $crate::ProviderPlugin>::open(request).map(|stream| {
                    $crate::provider_world::exports::reasonix::plugin::provider::CompletionStream::new(
                        $crate::provider::StreamResource::new(stream),
                    )
                })
            }
        }

        // As for tools: the component exports only exist in the wasm build.
        #[cfg(target_arch = "wasm32")]
        $crate::plugin_world::export_plugin_world!(__ReasonixProviderExport);
        #[cfg(target_arch = "wasm32")]
        $crate::provider_world::export_provider_world!(__ReasonixProviderExport);
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(effort: Option<&str>) -> ProfileRequest {
        ProfileRequest {
            kind: "echo".into(),
            provider: "mine".into(),
            base_url: "http://127.0.0.1:9".into(),
            model: "m".into(),
            effort: effort.map(str::to_string),
            options: "{}".into(),
        }
    }

    #[test]
    fn default_profile_offers_only_auto() {
        for effort in [None, Some("auto"), Some(" AUTO "), Some("")] {
            let profile = default_profile(&request(effort)).unwrap();
            assert_eq!(profile.reasoning_protocol, "none");
            assert_eq!(profile.effort_levels, ["auto"]);
            assert_eq!(profile.stall_timeout_ms, DEFAULT_STALL_TIMEOUT_MS);
        }
        match default_profile(&request(Some("high"))) {
            Err(Error::InvalidInput(message)) => assert!(
                message.contains("provider `mine` (model m)")
                    && message.contains("`high`")
                    && message.contains("use auto"),
                "{message}"
            ),
            other => panic!("expected invalid-input, got {other:?}"),
        }
    }
}
