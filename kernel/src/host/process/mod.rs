//! The host `process` service: commands run for plugins granted `process`, confined by the
//! workspace's sandbox policy (under `[sandbox] bash = "enforce"`: bubblewrap on Linux, Seatbelt
//! on macOS).
//!
//! Jobs live in a table owned by the [`ComponentHost`](super::ComponentHost), so a background
//! job outlives the call (and the instance) that started it. Each job runs in a process group
//! of its own; its combined stdout and stderr go through one pipe into a bounded buffer. Job ids
//! are `<program>-<n>`, numbered from 1 per plugin and program and never reused in a session;
//! a plugin sees only its own jobs.

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
mod bwrap;
mod jobs;
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
mod seatbelt;

#[cfg(not(target_os = "macos"))]
pub use bwrap::self_check as os_sandbox_check;
pub use jobs::OUTPUT_KEEP_BYTES;
#[cfg(target_os = "macos")]
pub use seatbelt::self_check as os_sandbox_check;

/// The OS sandbox commands run in here, and how to get it, for messages.
#[cfg(target_os = "macos")]
pub const OS_SANDBOX: (&str, &str) = (
    "Seatbelt (`sandbox-exec`)",
    "`/usr/bin/sandbox-exec` ships with macOS; check that it runs",
);
/// The OS sandbox commands run in here, and how to get it, for messages.
#[cfg(not(target_os = "macos"))]
pub const OS_SANDBOX: (&str, &str) = (
    "bubblewrap",
    "install it (`apt install bubblewrap`, `dnf install bubblewrap`)",
);

use super::bindings::reasonix::plugin::{log, process, types};
use super::state::PluginState;
use crate::config::ShellSandbox;
use crate::sandbox::{SandboxPolicy, normalize};
use jobs::{Exit, Job};
use std::collections::HashMap;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, mpsc};
use std::time::{Duration, Instant};

/// Running jobs one plugin may have at a time.
const MAX_RUNNING_PER_PLUGIN: usize = 32;

/// A blocking `wait` returns this long before the call's deadline, so the plugin can still
/// act on the answer (kill the job, report) before its instance is stopped.
const DEADLINE_MARGIN: Duration = Duration::from_millis(750);

/// Host environment variables a job starts from (when set); nothing else is inherited.
const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG", "TERM", "USER"];
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Variables never passed to a job, whoever sets them: loader and shell start-up hooks.
const DENIED_ENV: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "IFS",
];
const DENIED_ENV_PREFIXES: &[&str] = &["LD_", "DYLD_", "BASH_FUNC_"];
/// Suffixes of credential variables (compared case-insensitively).
const CREDENTIAL_SUFFIXES: &[&str] = &["_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD"];

/// Whether `name` may be passed to a job.
pub fn env_allowed(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    !(DENIED_ENV.contains(&upper.as_str())
        || DENIED_ENV_PREFIXES.iter().any(|p| upper.starts_with(p))
        || CREDENTIAL_SUFFIXES.iter().any(|s| upper.ends_with(s)))
}

type JobKey = (Arc<str>, String);

#[derive(Default)]
struct Jobs {
    by_id: HashMap<JobKey, Arc<Job>>,
    next: HashMap<JobKey, u64>,
}

struct SpawnRequest {
    command: Command,
    reply: mpsc::Sender<io::Result<Child>>,
}

/// The job table and what every job shares: the spawner thread, the session temp directory and
/// the OS sandbox self-check.
#[derive(Default)]
pub struct ProcessHost {
    jobs: Mutex<Jobs>,
    spawner: Mutex<Option<mpsc::Sender<SpawnRequest>>>,
    temp: OnceLock<Result<tempfile::TempDir, String>>,
    os_sandbox: OnceLock<Result<(), String>>,
}

impl ProcessHost {
    pub fn new() -> ProcessHost {
        ProcessHost::default()
    }

    /// Kill every job of every plugin (Ctrl-C, SIGTERM): a foreground command the agent is
    /// waiting on returns at once, and nothing outlives the run.
    pub fn kill_all(&self, reason: &str) {
        let jobs: Vec<Arc<Job>> = self.jobs().by_id.values().cloned().collect();
        for job in jobs {
            job.kill(reason);
        }
    }

    fn jobs(&self) -> MutexGuard<'_, Jobs> {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn job(&self, plugin: &Arc<str>, id: &str) -> Result<Arc<Job>, types::Error> {
        self.jobs()
            .by_id
            .get(&(plugin.clone(), id.to_string()))
            .cloned()
            .ok_or_else(|| {
                types::Error::NotFound(format!(
                    "no job `{id}`: this plugin started no job by that name in this session"
                ))
            })
    }

    /// The session-private temporary directory (`TMPDIR` of every job).
    fn temp_dir(&self) -> Result<PathBuf, types::Error> {
        let temp = self.temp.get_or_init(|| {
            tempfile::Builder::new()
                .prefix("reasonix-shell-")
                .tempdir()
                .map_err(|e| format!("cannot create the session temp directory: {e}"))
        });
        match temp {
            Ok(dir) => Ok(dir.path().to_path_buf()),
            Err(e) => Err(other("temp", e.clone())),
        }
    }

    /// Whether jobs under `policy` run inside the OS sandbox (bubblewrap, Seatbelt); an error
    /// when they must but cannot.
    fn confined(&self, policy: &SandboxPolicy) -> Result<bool, types::Error> {
        if policy.shell == ShellSandbox::Off {
            return Ok(false);
        }
        #[cfg(target_os = "linux")]
        {
            match self.os_sandbox.get_or_init(bwrap::self_check) {
                Ok(()) => Ok(true),
                Err(reason) => Err(types::Error::Denied(format!(
                    "commands must run in the OS sandbox (`[sandbox] bash = \"enforce\"`), but {reason}. \
                     Install bubblewrap (`apt-get install bubblewrap`, `dnf install bubblewrap` or \
                     `pacman -S bubblewrap`), or set `[sandbox] bash = \"off\"` in reasonix.toml to run \
                     commands unconfined"
                ))),
            }
        }
        #[cfg(target_os = "macos")]
        {
            match self.os_sandbox.get_or_init(seatbelt::self_check) {
                Ok(()) => Ok(true),
                Err(reason) => Err(types::Error::Denied(format!(
                    "commands must run in the OS sandbox (`[sandbox] bash = \"enforce\"`), but {reason}. \
                     `/usr/bin/sandbox-exec` is part of macOS; it also refuses when Reasonix itself \
                     runs inside a sandbox. Set `[sandbox] bash = \"off\"` in reasonix.toml to run \
                     commands unconfined"
                ))),
            }
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            Err(types::Error::Denied(
                "commands must run in the OS sandbox (`[sandbox] bash = \"enforce\"`), but there is \
                 none on this platform; set `[sandbox] bash = \"off\"` in reasonix.toml to run \
                 commands unconfined"
                    .to_string(),
            ))
        }
    }

    /// Spawn on one long-lived thread: `--die-with-parent` (PR_SET_PDEATHSIG) fires when the
    /// *thread* that forked bwrap ends, so a call thread must not be that parent.
    fn spawn_child(&self, command: Command) -> io::Result<Child> {
        let sender = {
            let mut guard = self.spawner.lock().unwrap_or_else(PoisonError::into_inner);
            match guard.as_ref() {
                Some(sender) => sender.clone(),
                None => {
                    let (sender, receiver) = mpsc::channel::<SpawnRequest>();
                    std::thread::Builder::new()
                        .name("reasonix-spawner".into())
                        .spawn(move || {
                            for request in receiver {
                                let mut command = request.command;
                                let child = command.spawn();
                                // Close our copies of the pipe's write end before replying.
                                drop(command);
                                let _ = request.reply.send(child);
                            }
                        })?;
                    *guard = Some(sender.clone());
                    sender
                }
            }
        };
        let (reply, answer) = mpsc::channel();
        sender
            .send(SpawnRequest { command, reply })
            .map_err(|_| io::Error::other("the spawner thread has stopped"))?;
        answer
            .recv()
            .map_err(|_| io::Error::other("the spawner thread has stopped"))?
    }

    fn spawn(
        &self,
        plugin: &Arc<str>,
        policy: &SandboxPolicy,
        command: process::Command,
        mut warn: impl FnMut(&str),
    ) -> Result<String, types::Error> {
        if command.program.is_empty() {
            return Err(types::Error::InvalidInput(
                "`program` is empty: name the program to run".to_string(),
            ));
        }
        let running = self
            .jobs()
            .by_id
            .iter()
            .filter(|((owner, _), job)| owner == plugin && job.is_running())
            .count();
        if running >= MAX_RUNNING_PER_PLUGIN {
            return Err(types::Error::Denied(format!(
                "{running} jobs are already running; wait for some or kill them first"
            )));
        }
        let cwd = match &command.cwd {
            None => policy.workspace.clone(),
            Some(dir) => normalize(&policy.workspace.join(dir)),
        };
        if policy.is_forbidden(&cwd) {
            return Err(types::Error::Denied(format!(
                "`cwd` {} is under a `forbid_read` path",
                cwd.display()
            )));
        }
        if !cwd.is_dir() {
            return Err(types::Error::InvalidInput(format!(
                "`cwd` {} is not a directory",
                cwd.display()
            )));
        }
        let confined = self.confined(policy)?;
        let temp = self.temp_dir()?;

        let mut cmd = if confined {
            #[cfg(target_os = "macos")]
            let cmd = {
                let mut cmd = Command::new(seatbelt::SANDBOX_EXEC);
                cmd.args(seatbelt::args(
                    policy,
                    &temp,
                    &command.program,
                    &command.args,
                ))
                .current_dir(&cwd);
                cmd
            };
            #[cfg(not(target_os = "macos"))]
            let cmd = {
                let mut cmd = Command::new("bwrap");
                cmd.args(bwrap::args(
                    policy,
                    &temp,
                    &cwd,
                    &command.program,
                    &command.args,
                ));
                cmd
            };
            cmd
        } else {
            let mut cmd = Command::new(&command.program);
            cmd.args(&command.args).current_dir(&cwd);
            cmd
        };
        cmd.env_clear();
        for name in BASE_ENV {
            if let Some(value) = std::env::var_os(name) {
                cmd.env(name, value);
            }
        }
        if std::env::var_os("PATH").is_none() {
            cmd.env("PATH", DEFAULT_PATH);
        }
        for (name, value) in &command.env {
            if name.is_empty() || name.contains(['=', '\0']) || value.contains('\0') {
                return Err(types::Error::InvalidInput(format!(
                    "`env` entry `{name}` is not a valid variable name"
                )));
            }
            if env_allowed(name) {
                cmd.env(name, value);
            } else {
                warn(&format!(
                    "environment variable `{name}` was not passed to `{}`: credentials and loader hooks never reach commands",
                    command.program
                ));
            }
        }
        for name in ["TMPDIR", "TMP", "TEMP"] {
            cmd.env(name, &temp);
        }
        let (reader, writer) = std::io::pipe().map_err(|e| other("io", e.to_string()))?;
        let writer2 = writer.try_clone().map_err(|e| other("io", e.to_string()))?;
        cmd.stdin(Stdio::null())
            .stdout(writer2)
            .stderr(writer)
            .process_group(0);

        let child = self.spawn_child(cmd).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                types::Error::NotFound(format!(
                    "program `{}` was not found on PATH",
                    command.program
                ))
            } else {
                other("spawn", format!("cannot start `{}`: {e}", command.program))
            }
        })?;
        let timeout = command.timeout_ms.map(Duration::from_millis);
        let job = Job::start(child, reader, timeout)
            .map_err(|e| other("spawn", format!("cannot watch the job: {e}")))?;

        let prefix = id_prefix(&command.program);
        let mut jobs = self.jobs();
        let counter = jobs
            .next
            .entry((plugin.clone(), prefix.clone()))
            .or_insert(0);
        *counter += 1;
        let id = format!("{prefix}-{counter}");
        jobs.by_id.insert((plugin.clone(), id.clone()), job);
        Ok(id)
    }
}

impl Drop for ProcessHost {
    /// The session is over: nothing it started keeps running.
    fn drop(&mut self) {
        for job in self.jobs().by_id.values() {
            job.kill("the session ended");
        }
    }
}

/// `bash` from `/usr/bin/bash`; only `[a-z0-9_-]`, at most 32 characters.
fn id_prefix(program: &str) -> String {
    let base = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = base
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .map(|c| c.to_ascii_lowercase())
        .take(32)
        .collect();
    if clean.is_empty() {
        "job".to_string()
    } else {
        clean
    }
}

fn other(code: &str, message: String) -> types::Error {
    types::Error::Other(types::ErrorDetail {
        code: code.to_string(),
        message,
        retryable: false,
        detail: None,
    })
}

fn to_wit(exit: Exit) -> process::ExitStatus {
    match exit {
        Exit::Exited(code) => process::ExitStatus::Exited(code),
        Exit::Killed(reason) => process::ExitStatus::Killed(reason),
    }
}

impl PluginState {
    /// The process service, if this plugin was granted it. Checked on every call.
    fn processes(&self) -> Result<Arc<ProcessHost>, types::Error> {
        if !self.capabilities.process {
            return Err(types::Error::Denied(format!(
                "plugin `{}` was not granted the `process` capability, so it cannot run commands",
                self.plugin
            )));
        }
        self.processes.clone().ok_or_else(|| {
            types::Error::Unsupported("this host runs no commands for plugins".to_string())
        })
    }
}

impl process::Host for PluginState {
    fn spawn(&mut self, command: process::Command) -> Result<String, types::Error> {
        let host = self.processes()?;
        let policy = self.sandbox.clone().ok_or_else(|| {
            types::Error::Denied(
                "commands run only for calls with a workspace, and this call has none".to_string(),
            )
        })?;
        let (plugin, sink) = (self.plugin.clone(), self.log.clone());
        host.spawn(&self.plugin, &policy, command, |message| {
            if let Some(sink) = &sink {
                sink(&plugin, log::Level::Warn, message);
            }
        })
    }

    fn read(&mut self, job: String, max_bytes: u32) -> Result<process::Output, types::Error> {
        let job = self.processes()?.job(&self.plugin, &job)?;
        let (data, status) = job.read(usize::try_from(max_bytes).unwrap_or(usize::MAX));
        Ok(process::Output {
            data,
            status: status.map(to_wit),
        })
    }

    fn wait(
        &mut self,
        job: String,
        timeout_ms: Option<u64>,
    ) -> Result<Option<process::ExitStatus>, types::Error> {
        let job = self.processes()?.job(&self.plugin, &job)?;
        let mut timeout = timeout_ms.map(Duration::from_millis);
        // Blocking in the host does not run the epoch deadline down; stop in time on our own.
        if let Some(deadline) = self.call_deadline {
            let left = deadline
                .saturating_duration_since(Instant::now())
                .saturating_sub(DEADLINE_MARGIN);
            timeout = Some(timeout.map_or(left, |t| t.min(left)));
        }
        Ok(job.wait(timeout).map(to_wit))
    }

    fn kill(&mut self, job: String) -> Result<(), types::Error> {
        let job = self.processes()?.job(&self.plugin, &job)?;
        job.kill("killed by request");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_loader_hooks_are_filtered() {
        for denied in [
            "OPENAI_API_KEY",
            "deepseek_api_key",
            "GITHUB_TOKEN",
            "AWS_SECRET",
            "DB_PASSWORD",
            "LD_PRELOAD",
            "DYLD_INSERT_LIBRARIES",
            "BASH_ENV",
            "BASH_FUNC_x%%",
        ] {
            assert!(!env_allowed(denied), "{denied}");
        }
        for allowed in ["PATH", "RUST_LOG", "CARGO_TERM_COLOR", "TOKENIZER"] {
            assert!(env_allowed(allowed), "{allowed}");
        }
    }

    #[test]
    fn id_prefixes_are_tame() {
        assert_eq!(id_prefix("/usr/bin/bash"), "bash");
        assert_eq!(id_prefix("Py thon3!"), "python3");
        assert_eq!(id_prefix("/"), "job");
    }
}
