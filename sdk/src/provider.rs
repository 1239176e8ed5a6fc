//! The provider role: serve provider kinds (wire protocols to LLM backends).
//!
//! List the kinds in [`Plugin::provider_kinds`](crate::Plugin::provider_kinds), describe one
//! model in [`Plugin::profile`](crate::Plugin::profile) (the reasoning protocol, the effort
//! levels, the default stall timeout; refuse an effort level the backend does not know) and
//! start a completion in [`Plugin::open`](crate::Plugin::open). The kernel calls `profile` once
//! per configured model, then `open` with a fully resolved request and `next` on the returned
//! stream until it returns an empty list; see `docs/PROVIDERS.md` for the contract (which error
//! case to return when, and the order of events). Talk HTTP with [`crate::http`] and decode
//! server-sent events with [`crate::sse`].
//!
//! ```ignore
//! struct Echo;
//! impl reasonix_sdk::Plugin for Echo {
//!     fn info() -> reasonix_sdk::PluginInfo { reasonix_sdk::plugin_info("echo", "0.1.0", "Echoes") }
//!     fn provider_kinds() -> Vec<reasonix_sdk::ProviderKind> { /* … */ vec![] }
//!     fn open(request: reasonix_sdk::CompletionRequest)
//!         -> Result<Box<dyn reasonix_sdk::CompletionStream>, reasonix_sdk::Error> { /* … */ }
//! }
//! reasonix_sdk::export!(Echo);
//! ```

use crate::bindings::exports::reasonix::plugin::provider::GuestCompletionStream;
use crate::{Error, ProviderKind, StreamEvent};
use std::cell::RefCell;

pub use crate::bindings::exports::reasonix::plugin::provider::{ModelProfile, ProfileRequest};

/// The stall timeout of [`default_profile`]: two minutes.
pub const DEFAULT_STALL_TIMEOUT_MS: u32 = 120_000;

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
/// `auto`, a stall timeout of [`DEFAULT_STALL_TIMEOUT_MS`], no images (the user's `vision = true`
/// sends them anyway). Any other effort level is refused.
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
        images: false,
    })
}
