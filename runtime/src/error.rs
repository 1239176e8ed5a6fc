//! What went wrong opening a runtime, and whether it was the user's input (a flag, a config
//! file: exit 2 at the command line) or the machine's (exit 1).

/// Whose the problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A flag, a configuration file, a workspace the user named.
    Usage,
    /// A process, a file the runtime writes, a component that would not load.
    Runtime,
}

/// An error with its causes already in its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: Kind,
    message: String,
}

impl Error {
    pub fn usage(message: impl std::fmt::Display) -> Error {
        Error {
            kind: Kind::Usage,
            message: message.to_string(),
        }
    }

    pub fn runtime(message: impl std::fmt::Display) -> Error {
        Error {
            kind: Kind::Runtime,
            message: message.to_string(),
        }
    }

    /// `error` with each cause its message does not already quote.
    pub fn usage_of(error: &(dyn std::error::Error + 'static)) -> Error {
        Error::usage(with_causes(error))
    }

    /// `error` with each cause its message does not already quote.
    pub fn runtime_of(error: &(dyn std::error::Error + 'static)) -> Error {
        Error::runtime(with_causes(error))
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }
}

/// Most errors quote their source in their own message (`{path}: cannot read: {source}`):
/// a cause is added only when it is not there already.
fn with_causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = c.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] std::io::Error);

    #[derive(Debug, thiserror::Error)]
    #[error("/x: cannot read: {0}")]
    struct Quoting(#[source] std::io::Error);

    #[test]
    fn causes_are_added_once() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        assert_eq!(
            Error::usage_of(&Outer(io())).to_string(),
            "outer: no such file"
        );
        assert_eq!(
            Error::runtime_of(&Quoting(io())).to_string(),
            "/x: cannot read: no such file"
        );
        assert_eq!(Error::usage("x").kind(), Kind::Usage);
    }
}
