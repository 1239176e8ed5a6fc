//! Why a component could not be loaded.

pub use reasonix_core::error::{CallError, LimitExceeded, PluginError, StateError};
use thiserror::Error;

/// Why a component could not be loaded. Each names the file (or built-in) it is about.
#[derive(Debug, Error)]
pub enum LoadError {
    #[error("{origin}: cannot read: {source}")]
    Read {
        origin: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{origin}: {reason}")]
    NotAComponent { origin: String, reason: String },
    #[error(
        "{origin}: built for {package}@{found}, but this Reasonix supports {package}@{supported}; rebuild the plugin against a supported version"
    )]
    UnsupportedVersion {
        origin: String,
        package: String,
        found: String,
        supported: String,
    },
    #[error("{origin}: invalid component: {message}")]
    Invalid { origin: String, message: String },
    #[error("{origin}: {message}")]
    Link { origin: String, message: String },
    #[error("{origin}: failed to describe itself: {source}")]
    Describe {
        origin: String,
        #[source]
        source: CallError,
    },
    #[error("{origin}: {message}")]
    BadMetadata { origin: String, message: String },
    /// The same bytes failed to describe themselves on an earlier start.
    #[error(
        "{origin}: {message} (remembered from an earlier start: it is described again when the file changes, or by `reasonix plugin install`/`update`)"
    )]
    RememberedFailure { origin: String, message: String },
    #[error(
        "{what} `{}` is served by both {first} and {second}; the second was not loaded (disable one of them)",
        reasonix_core::terminal::shown(.name)
    )]
    Clash {
        what: &'static str,
        name: String,
        first: String,
        second: String,
    },
    #[error(
        "{origin}: sha256 {actual} does not match the index ({expected}); the file changed since it was installed — reinstall it"
    )]
    HashMismatch {
        origin: String,
        expected: String,
        actual: String,
    },
}
