//! Short constructors for the contract's [`Error`] cases, written so that the message tells the
//! model what was wrong and how to recover.

use crate::{Error, ErrorDetail};

impl Error {
    /// `invalid-input` naming the argument: ``Error::invalid("path", "must be relative")``
    /// becomes ``invalid argument `path`: must be relative``.
    pub fn invalid(field: &str, why: impl std::fmt::Display) -> Error {
        Error::InvalidInput(format!("invalid argument `{field}`: {why}"))
    }

    /// `denied`: a capability or policy refused the operation.
    pub fn denied(why: impl Into<String>) -> Error {
        Error::Denied(why.into())
    }

    /// `not-found`: the named file, tool, job or resource does not exist.
    pub fn not_found(what: impl Into<String>) -> Error {
        Error::NotFound(what.into())
    }

    /// `timeout`: the operation ran out of time.
    pub fn timeout(what: impl Into<String>) -> Error {
        Error::Timeout(what.into())
    }

    /// `unsupported`: the plugin does not support this request.
    pub fn unsupported(what: impl Into<String>) -> Error {
        Error::Unsupported(what.into())
    }

    /// `other` with a stable code; `retryable` says whether repeating the call may succeed.
    pub fn other(code: &str, message: impl Into<String>, retryable: bool) -> Error {
        Error::Other(ErrorDetail {
            code: code.to_string(),
            message: message.into(),
            retryable,
            detail: None,
        })
    }
}

impl From<std::io::Error> for Error {
    /// `not-found` for a missing file, `denied` for a permission error, else `other` (`io`).
    fn from(e: std::io::Error) -> Error {
        match e.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound(e.to_string()),
            std::io::ErrorKind::PermissionDenied => Error::Denied(e.to_string()),
            _ => Error::other("io", e.to_string(), false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_names_the_field() {
        assert_eq!(
            Error::invalid("path", "must be relative to the workspace"),
            Error::InvalidInput(
                "invalid argument `path`: must be relative to the workspace".into()
            )
        );
    }

    #[test]
    fn io_errors_map_to_their_case() {
        let missing = std::io::Error::new(std::io::ErrorKind::NotFound, "a.txt: gone");
        assert!(matches!(Error::from(missing), Error::NotFound(m) if m.contains("a.txt")));
        let other = std::io::Error::other("disk on fire");
        assert!(matches!(Error::from(other), Error::Other(d) if d.code == "io" && !d.retryable));
    }
}
