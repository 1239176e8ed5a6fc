//! Exit codes: 0 success, 1 runtime failure (a tool error, a plugin crash), 2 usage or
//! configuration error, 3 the final answer was cut off (`reasonix run`: the output limit or a
//! content filter stopped it, unless `[agent] accept_cut_off_answer`), 4 the run's time limit
//! was reached (`reasonix run --timeout`, `[agent] run_timeout`).

use std::fmt;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Success,
    Failure,
    Usage,
    CutOff,
    TimedOut,
}

impl From<Code> for ExitCode {
    fn from(code: Code) -> ExitCode {
        match code {
            Code::Success => ExitCode::SUCCESS,
            Code::Failure => ExitCode::from(1),
            Code::Usage => ExitCode::from(2),
            Code::CutOff => ExitCode::from(3),
            Code::TimedOut => ExitCode::from(4),
        }
    }
}

/// An error that knows which exit code it deserves.
#[derive(Debug)]
pub struct Failure {
    code: Code,
    error: anyhow::Error,
}

impl Failure {
    pub fn usage(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            code: Code::Usage,
            error: error.into(),
        }
    }

    pub fn runtime(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            code: Code::Failure,
            error: error.into(),
        }
    }

    pub fn exit_code(&self) -> Code {
        self.code
    }
}

impl From<reasonix_runtime::Error> for Failure {
    fn from(e: reasonix_runtime::Error) -> Failure {
        match e.kind() {
            reasonix_runtime::Kind::Usage => Failure::usage(e),
            reasonix_runtime::Kind::Runtime => Failure::runtime(e),
        }
    }
}

impl fmt::Display for Failure {
    /// `{:#}` adds the causes, each once: most of our errors already quote their source in
    /// their own message (`{path}: cannot read: {source}`), and repeating it made every such
    /// error print twice.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.write_str(&with_causes(&self.error))
        } else {
            write!(f, "{}", self.error)
        }
    }
}

/// The error's message followed by each cause that it does not already contain.
fn with_causes(error: &anyhow::Error) -> String {
    let mut message = error.to_string();
    for cause in error.chain().skip(1) {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
    }
    message
}

pub type Outcome = Result<Code, Failure>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Quotes its source in its own message, as most kernel errors do.
    #[derive(Debug)]
    struct Quoting(std::io::Error);

    impl fmt::Display for Quoting {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "/x.wasm: cannot read: {}", self.0)
        }
    }

    impl std::error::Error for Quoting {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn causes_already_in_the_message_are_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let error = anyhow::Error::new(Quoting(io));
        let shown = format!("{:#}", Failure::runtime(error));
        assert_eq!(shown, "/x.wasm: cannot read: no such file");
    }

    #[test]
    fn causes_not_in_the_message_are_added() {
        let error = anyhow::anyhow!("inner").context("outer");
        assert_eq!(format!("{:#}", Failure::runtime(error)), "outer: inner");
    }
}
