//! Exit codes: 0 success, 1 runtime failure (a tool error, a plugin crash), 2 usage or
//! configuration error.

use std::fmt;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Success,
    Failure,
    Usage,
}

impl From<Code> for ExitCode {
    fn from(code: Code) -> ExitCode {
        match code {
            Code::Success => ExitCode::SUCCESS,
            Code::Failure => ExitCode::from(1),
            Code::Usage => ExitCode::from(2),
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

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            write!(f, "{:#}", self.error)
        } else {
            write!(f, "{}", self.error)
        }
    }
}

pub type Outcome = Result<Code, Failure>;
