//! The host `process` service: commands run by the host inside the OS sandbox. The plugin must
//! request the `process` capability (`PluginInfo.capabilities.process = true`) and be granted it;
//! every call is checked when it is made. Outside wasm (native unit tests) every call returns
//! `unsupported`.
//!
//! ```ignore
//! use reasonix_sdk::process::{Command, run};
//! let out = run(&Command::new("git").args(["status", "--short"]), 64 * 1024)?;
//! ```

use crate::Error;

pub use crate::bindings::reasonix::plugin::process::{ExitStatus, Output};

/// A command to run: program, arguments, working directory, extra environment, timeout.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Command {
    program: String,
    args: Vec<String>,
    cwd: Option<String>,
    env: Vec<(String, String)>,
    timeout_ms: Option<u64>,
    stdin: Option<Vec<u8>>,
    separate_stderr: bool,
}

impl Command {
    /// `program` is looked up on `PATH` when it has no `/`.
    pub fn new(program: impl Into<String>) -> Command {
        Command {
            program: program.into(),
            ..Command::default()
        }
    }

    /// Append one argument.
    pub fn arg(mut self, arg: impl Into<String>) -> Command {
        self.args.push(arg.into());
        self
    }

    /// Append arguments.
    pub fn args<I, S>(mut self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Working directory (default: the workspace root).
    pub fn cwd(mut self, dir: impl Into<String>) -> Command {
        self.cwd = Some(dir.into());
        self
    }

    /// Set one extra environment variable.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Command {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Kill the job after this many milliseconds.
    pub fn timeout_ms(mut self, ms: u64) -> Command {
        self.timeout_ms = Some(ms);
        self
    }

    /// Write `bytes` to the command's standard input, then close it (default: empty stdin).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Command {
        self.stdin = Some(bytes.into());
        self
    }

    /// Keep stderr apart from stdout ([`Output::stderr`], [`Finished::stderr`]).
    pub fn separate_stderr(mut self) -> Command {
        self.separate_stderr = true;
        self
    }

    fn to_wit(&self) -> crate::bindings::reasonix::plugin::process::Command {
        crate::bindings::reasonix::plugin::process::Command {
            program: self.program.clone(),
            args: self.args.clone(),
            cwd: self.cwd.clone(),
            env: self.env.clone(),
            timeout_ms: self.timeout_ms,
            stdin: self.stdin.clone(),
            separate_stderr: self.separate_stderr,
        }
    }
}

/// A running (or finished) job, named by its host id. Jobs outlive the call that started them;
/// the id can be handed to a later call and reopened with [`Job::from_id`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    id: String,
}

/// Start a job.
pub fn spawn(command: &Command) -> Result<Job, Error> {
    imp::spawn(&command.to_wit()).map(|id| Job { id })
}

impl Job {
    /// A job started earlier, by its id.
    pub fn from_id(id: impl Into<String>) -> Job {
        Job { id: id.into() }
    }

    /// The host's id of this job.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Up to `max_bytes` of new combined output, without blocking; `status` is set once the job
    /// has ended and everything was read.
    pub fn read(&self, max_bytes: u32) -> Result<Output, Error> {
        imp::read(&self.id, max_bytes)
    }

    /// Wait up to `timeout_ms` (forever when `None`; the host still returns before the call's
    /// deadline) for the job to end.
    pub fn wait(&self, timeout_ms: Option<u64>) -> Result<Option<ExitStatus>, Error> {
        imp::wait(&self.id, timeout_ms)
    }

    /// Kill the job and its process group; killing a finished job is not an error.
    pub fn kill(&self) -> Result<(), Error> {
        imp::kill(&self.id)
    }
}

/// What [`run`] returns: the output (combined with stderr unless the command kept it apart) and
/// stderr (each at most the limit asked for, lossy UTF-8), and how the job ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub output: String,
    /// Empty unless the command set [`Command::separate_stderr`].
    pub stderr: String,
    /// True when output (or stderr) beyond the limit was dropped.
    pub truncated: bool,
    pub status: ExitStatus,
}

/// Run a command to the end and collect up to `max_output` bytes of its output (and as much of
/// its stderr, when kept apart).
pub fn run(command: &Command, max_output: usize) -> Result<Finished, Error> {
    let job = spawn(command)?;
    let mut bytes = Vec::new();
    let mut err_bytes = Vec::new();
    let mut truncated = false;
    let mut keep = |into: &mut Vec<u8>, data: &[u8]| {
        let room = max_output.saturating_sub(into.len());
        if data.len() > room {
            truncated = true;
        }
        into.extend_from_slice(&data[..data.len().min(room)]);
    };
    loop {
        let chunk = job.read(64 * 1024)?;
        keep(&mut bytes, &chunk.data);
        keep(&mut err_bytes, &chunk.stderr);
        if let Some(status) = chunk.status {
            return Ok(Finished {
                output: String::from_utf8_lossy(&bytes).into_owned(),
                stderr: String::from_utf8_lossy(&err_bytes).into_owned(),
                truncated,
                status,
            });
        }
        if chunk.data.is_empty() && chunk.stderr.is_empty() {
            // Nothing new yet: block until the job ends (or the host's wait returns early
            // before the call deadline), then read again.
            job.wait(None)?;
        }
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use crate::Error;
    use crate::bindings::reasonix::plugin::process::{self, Command, ExitStatus, Output};

    pub fn spawn(command: &Command) -> Result<String, Error> {
        process::spawn(command)
    }
    pub fn read(job: &str, max_bytes: u32) -> Result<Output, Error> {
        process::read(job, max_bytes)
    }
    pub fn wait(job: &str, timeout_ms: Option<u64>) -> Result<Option<ExitStatus>, Error> {
        process::wait(job, timeout_ms)
    }
    pub fn kill(job: &str) -> Result<(), Error> {
        process::kill(job)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use crate::Error;
    use crate::bindings::reasonix::plugin::process::{Command, ExitStatus, Output};

    fn native() -> Error {
        Error::Unsupported(
            "the host process service exists only inside a Reasonix component".to_string(),
        )
    }
    pub fn spawn(_: &Command) -> Result<String, Error> {
        Err(native())
    }
    pub fn read(_: &str, _: u32) -> Result<Output, Error> {
        Err(native())
    }
    pub fn wait(_: &str, _: Option<u64>) -> Result<Option<ExitStatus>, Error> {
        Err(native())
    }
    pub fn kill(_: &str) -> Result<(), Error> {
        Err(native())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_fills_the_wit_command() {
        let c = Command::new("git")
            .args(["log", "-1"])
            .arg("--oneline")
            .cwd("/ws")
            .env("A", "b")
            .timeout_ms(500)
            .stdin("in")
            .separate_stderr()
            .to_wit();
        assert_eq!(c.stdin.as_deref(), Some(&b"in"[..]));
        assert!(c.separate_stderr);
        assert_eq!(c.program, "git");
        assert_eq!(c.args, vec!["log", "-1", "--oneline"]);
        assert_eq!(c.cwd.as_deref(), Some("/ws"));
        assert_eq!(c.env, vec![("A".to_string(), "b".to_string())]);
        assert_eq!(c.timeout_ms, Some(500));
    }

    #[test]
    fn natively_the_service_is_unsupported() {
        assert!(matches!(
            spawn(&Command::new("true")),
            Err(Error::Unsupported(_))
        ));
    }
}
