//! The host `process` service: commands run for plugins granted `process`, confined by the
//! workspace's sandbox policy (under `[sandbox] bash = "enforce"`: bubblewrap on Linux, Seatbelt
//! on macOS).
//!
//! Jobs live in a table owned by the [`ComponentHost`](super::ComponentHost), so a background
//! job outlives the call (and the instance) that started it. Each job runs in a process group
//! of its own; its stdout and stderr go through one pipe into a bounded buffer, or through two
//! into two when the command keeps stderr apart; bytes for its stdin are written by a thread. Job ids
//! are `<program>-<n>`, numbered from 1 per plugin and program and never reused in a session;
//! a plugin sees only its own jobs.

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
mod bwrap;
mod jobs;
mod private_environ;
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
mod seatbelt;
mod server;

pub use jobs::OUTPUT_KEEP_BYTES;
pub use private_environ::keep_environment_private;
pub use server::{ConfinedServer, ServerLaunch, confine_server, spawn_with_env_fd};

/// Whether the OS sandbox works here (`reasonix doctor`); `Err` says why not.
pub fn os_sandbox_check() -> Result<(), String> {
    #[cfg(target_os = "macos")]
    let checked = seatbelt::self_check();
    #[cfg(not(target_os = "macos"))]
    let checked = bwrap::self_check();
    checked.map(|_| ())
}

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
use crate::capability::WorkspaceAccess;
use crate::sandbox::{SandboxPolicy, normalize};
use crate::settings::ShellSandbox;
use jobs::{Exit, Job};
use reasonix_core::cancel::CancelToken;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::OwnedFd;
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
    /// The cancellation of the call that started each job, when it had one.
    owners: HashMap<JobKey, CancelToken>,
}

struct SpawnRequest {
    command: Command,
    /// A descriptor the child inherits under its own number (the job's environment for
    /// `bwrap --args`): close-on-exec everywhere but in this one spawn.
    inherit: Option<OwnedFd>,
    reply: mpsc::Sender<io::Result<Child>>,
}

/// The job table and what every job shares: the spawner thread, the session temp directory and
/// the OS sandbox self-check.
#[derive(Default)]
pub struct ProcessHost {
    jobs: Mutex<Jobs>,
    spawner: Mutex<Option<mpsc::Sender<SpawnRequest>>>,
    temp: OnceLock<Result<tempfile::TempDir, String>>,
    /// The launcher (bwrap, sandbox-exec), found once by absolute path in the host's own
    /// environment and checked to work; or why it cannot be used.
    os_sandbox: OnceLock<Result<PathBuf, String>>,
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

    /// Kill the jobs whose call has been cancelled (one agent's turn): those of other calls,
    /// another agent's among them, go on.
    pub fn kill_cancelled(&self, reason: &str) {
        let jobs: Vec<Arc<Job>> = {
            let jobs = self.jobs();
            jobs.owners
                .iter()
                .filter(|(_, owner)| owner.is_cancelled())
                .filter_map(|(key, _)| jobs.by_id.get(key).cloned())
                .collect()
        };
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

    /// The launcher jobs under `policy` run through (bubblewrap, Seatbelt), by absolute path;
    /// `None` when they run unconfined; an error when they must be confined but cannot.
    fn launcher(&self, policy: &SandboxPolicy) -> Result<Option<PathBuf>, types::Error> {
        if policy.shell == ShellSandbox::Off {
            return Ok(None);
        }
        #[cfg(target_os = "linux")]
        {
            match self.os_sandbox.get_or_init(bwrap::self_check) {
                Ok(path) => Ok(Some(path.clone())),
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
                Ok(path) => Ok(Some(path.clone())),
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
    /// *thread* that forked bwrap ends, so a call thread must not be that parent. Waits for
    /// the answer until `deadline` at most; a child that starts after the caller gave up is
    /// killed at once, so no job runs untracked.
    fn spawn_child(
        &self,
        command: Command,
        inherit: Option<OwnedFd>,
        deadline: Option<Instant>,
    ) -> io::Result<Child> {
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
                                // Spawns are serial here, and with every other spawn
                                // that hands over a descriptor, so no other child inherits it.
                                let _one = request
                                    .inherit
                                    .is_some()
                                    .then(reasonix_core::spawn::inheriting_spawn);
                                let inheritable = match &request.inherit {
                                    Some(fd) => {
                                        rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::empty())
                                    }
                                    None => Ok(()),
                                };
                                let child = match inheritable {
                                    Ok(()) => command.spawn(),
                                    Err(e) => Err(e.into()),
                                };
                                // Close our copies of the pipe's write end and of the inherited
                                // descriptor before replying.
                                drop(command);
                                drop(request.inherit);
                                drop(_one);
                                if let Err(mpsc::SendError(Ok(mut child))) =
                                    request.reply.send(child)
                                {
                                    jobs::kill_child_group(&mut child);
                                }
                            }
                        })?;
                    *guard = Some(sender.clone());
                    sender
                }
            }
        };
        let (reply, answer) = mpsc::channel();
        let stopped = || io::Error::other("the spawner thread has stopped");
        sender
            .send(SpawnRequest {
                command,
                inherit,
                reply,
            })
            .map_err(|_| stopped())?;
        match deadline {
            None => answer.recv().map_err(|_| stopped())?,
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                match answer.recv_timeout(left) {
                    Ok(child) => child,
                    Err(mpsc::RecvTimeoutError::Timeout) => Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the call's deadline passed before the command started",
                    )),
                    Err(mpsc::RecvTimeoutError::Disconnected) => Err(stopped()),
                }
            }
        }
    }

    fn spawn(
        &self,
        plugin: &Arc<str>,
        job: JobRequest<'_>,
        command: process::Command,
        mut warn: impl FnMut(&str),
    ) -> Result<String, types::Error> {
        let policy = job.policy;
        let owner = job.owner.clone();
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
        let temp = self.temp_dir()?;
        let roots = Roots::new(policy, &temp);
        let cwd = roots.job_cwd(policy, command.cwd.as_deref())?;
        let launcher = self.launcher(policy)?;
        let env = job_env(&command, &temp, &mut warn)?;

        // Under bubblewrap, the job's environment, handed over in a file.
        #[cfg_attr(target_os = "macos", allow(unused_mut))]
        let mut inherit: Option<OwnedFd> = None;
        let mut cmd = match launcher {
            Some(launcher) => {
                // The launcher runs unconfined, as the user: one a plugin could have written
                // (a host `PATH` entry inside the workspace) must never be started.
                if roots.writable_by_jobs(&launcher) {
                    return Err(types::Error::Denied(format!(
                        "the sandbox launcher found on Reasonix's PATH, {}, lies inside the \
                         workspace, an `allow_write` root or the commands' temp dir, where \
                         plugins and commands can write; refusing to start it. Install it system-wide and remove that \
                         directory from PATH",
                        launcher.display()
                    )));
                }
                let mut cmd = Command::new(&launcher);
                #[cfg(target_os = "macos")]
                cmd.args(seatbelt::args(
                    policy,
                    &temp,
                    job.workspace_writable(),
                    &env,
                    &command.program,
                    &command.args,
                )?)
                .current_dir(&cwd);
                #[cfg(not(target_os = "macos"))]
                {
                    let env_fd = bwrap::env_file(&env).map_err(|e| {
                        other("io", format!("cannot hand over the environment: {e}"))
                    })?;
                    cmd.args(bwrap::args(
                        policy,
                        &temp,
                        job.workspace_writable(),
                        &cwd,
                        std::os::fd::AsRawFd::as_raw_fd(&env_fd),
                        &command.program,
                        &command.args,
                    ));
                    inherit = Some(env_fd);
                }
                // Nothing of the host's or the job's environment reaches the launcher itself;
                // the job's variables are set inside the sandbox.
                cmd.env_clear();
                cmd
            }
            None => {
                // `bash = "off"`: the user runs commands unconfined, so nothing stops a job
                // from writing anywhere; only a plugin trusted with the workspace may start one.
                if !job.workspace_writable() {
                    return Err(types::Error::Denied(format!(
                        "commands run unconfined (`[sandbox] bash = \"off\"`), so a command could \
                         write anywhere, and plugin `{plugin}` may not write the workspace \
                         (granted `workspace = {}`); grant it `workspace = read-write` or set \
                         `[sandbox] bash = \"enforce\"`",
                        job.workspace
                    )));
                }
                // The program is found the way a shell would: a name without `/` on the job's
                // `PATH` (this plugin is trusted to run anything anyway), a relative path with
                // `/` against the job's working directory, not Reasonix's.
                let program = Path::new(&command.program);
                let program = if program.is_relative() && command.program.contains('/') {
                    cwd.join(program)
                } else {
                    program.to_path_buf()
                };
                let mut cmd = Command::new(program);
                cmd.args(&command.args).current_dir(&cwd).env_clear();
                cmd.envs(env.vars());
                cmd
            }
        };
        let io_error = |e: io::Error| other("io", e.to_string());
        let (reader, writer) = std::io::pipe().map_err(io_error)?;
        let stderr = if command.separate_stderr {
            let (err_reader, err_writer) = std::io::pipe().map_err(io_error)?;
            cmd.stderr(err_writer);
            Some(err_reader)
        } else {
            cmd.stderr(writer.try_clone().map_err(io_error)?);
            None
        };
        let stdin = match command.stdin {
            Some(bytes) => {
                let (in_reader, in_writer) = std::io::pipe().map_err(io_error)?;
                cmd.stdin(in_reader);
                Some((in_writer, bytes))
            }
            None => {
                cmd.stdin(Stdio::null());
                None
            }
        };
        cmd.stdout(writer).process_group(0);

        let child = self
            .spawn_child(cmd, inherit, job.deadline)
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => types::Error::NotFound(format!(
                    "program `{}` was not found on PATH",
                    command.program
                )),
                io::ErrorKind::TimedOut => {
                    types::Error::Timeout(format!("cannot start `{}`: {e}", command.program))
                }
                _ => other("spawn", format!("cannot start `{}`: {e}", command.program)),
            })?;
        let timeout = command.timeout_ms.map(Duration::from_millis);
        let job = Job::start(child, reader, stderr, stdin, timeout)
            .map_err(|e| other("spawn", format!("cannot watch the job: {e}")))?;

        let prefix = id_prefix(&command.program);
        let mut jobs = self.jobs();
        let counter = jobs
            .next
            .entry((plugin.clone(), prefix.clone()))
            .or_insert(0);
        *counter += 1;
        let id = format!("{prefix}-{counter}");
        let key = (plugin.clone(), id.clone());
        if let Some(owner) = owner {
            jobs.owners.insert(key.clone(), owner);
        }
        jobs.by_id.insert(key, job);
        Ok(id)
    }
}

/// What the job's plugin and call allow it.
struct JobRequest<'a> {
    policy: &'a SandboxPolicy,
    workspace: WorkspaceAccess,
    deadline: Option<Instant>,
    /// The cancellation of the call starting it.
    owner: Option<CancelToken>,
}

impl JobRequest<'_> {
    /// The plugin was granted `workspace = read-write`: its jobs may write the workspace and
    /// the `allow_write` roots. Otherwise they see them read-only.
    fn workspace_writable(&self) -> bool {
        self.workspace == WorkspaceAccess::ReadWrite
    }
}

/// The environment of one job: exactly these variables, in this order, handed to the sandbox
/// (never to the launcher).
#[derive(Debug, Default, Clone)]
pub struct JobEnv {
    vars: Vec<(String, OsString)>,
}

impl JobEnv {
    /// Set `name`, replacing an earlier value.
    pub fn set(&mut self, name: &str, value: impl Into<OsString>) {
        let value = value.into();
        match self.vars.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.vars.push((name.to_string(), value)),
        }
    }

    pub fn vars(&self) -> impl Iterator<Item = (&str, &OsStr)> {
        self.vars.iter().map(|(n, v)| (n.as_str(), v.as_os_str()))
    }
}

/// The job's variables: [`BASE_ENV`] from the host, the plugin's own (those [`env_allowed`]
/// lets through; a refused one is reported through `warn`), and the session temp dir.
fn job_env(
    command: &process::Command,
    temp: &Path,
    warn: &mut impl FnMut(&str),
) -> Result<JobEnv, types::Error> {
    let mut env = JobEnv::default();
    for name in BASE_ENV {
        if let Some(value) = std::env::var_os(name) {
            env.set(name, value);
        }
    }
    if std::env::var_os("PATH").is_none() {
        env.set("PATH", DEFAULT_PATH);
    }
    for (name, value) in &command.env {
        if name.is_empty() || name.contains(['=', '\0']) || value.contains('\0') {
            return Err(types::Error::InvalidInput(format!(
                "`env` entry `{name}` is not a valid variable name"
            )));
        }
        if env_allowed(name) {
            env.set(name, value);
        } else {
            warn(&format!(
                "environment variable `{name}` was not passed to `{}`: credentials and loader hooks never reach commands",
                command.program
            ));
        }
    }
    for name in ["TMPDIR", "TMP", "TEMP"] {
        env.set(name, temp);
    }
    Ok(env)
}

/// The directories a job may start in, resolved: the workspace, the `allow_write` roots and
/// the session temp dir.
struct Roots<'a> {
    lexical: Vec<&'a Path>,
    resolved: Vec<PathBuf>,
}

impl<'a> Roots<'a> {
    fn new(policy: &'a SandboxPolicy, temp: &'a Path) -> Roots<'a> {
        let lexical: Vec<&Path> = std::iter::once(policy.workspace.as_path())
            .chain(policy.allow_write.iter().map(PathBuf::as_path))
            .chain(std::iter::once(temp))
            .collect();
        let resolved = lexical
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        Roots { lexical, resolved }
    }

    /// Whether `path` (resolved) lies where jobs or plugins may write: the workspace, an
    /// `allow_write` root or the session temp dir.
    fn writable_by_jobs(&self, path: &Path) -> bool {
        self.resolved.iter().any(|r| path.starts_with(r))
    }

    /// The directory a job starts in, resolved: `requested` (relative to the workspace, or
    /// absolute) must lie in one of the roots both as written (after `..`) and once symlinks
    /// are resolved, and in no `forbid_read` path.
    fn job_cwd(
        &self,
        policy: &SandboxPolicy,
        requested: Option<&str>,
    ) -> Result<PathBuf, types::Error> {
        let lexical = match requested {
            None => policy.workspace.clone(),
            Some(dir) => normalize(&policy.workspace.join(dir)),
        };
        let outside = |shown: &Path| {
            types::Error::Denied(format!(
                "`cwd` {} is outside the workspace {} and the `[sandbox] allow_write` roots; a \
                 command may only start in them",
                shown.display(),
                policy.workspace.display()
            ))
        };
        if !self.lexical.iter().any(|r| lexical.starts_with(r)) {
            return Err(outside(&lexical));
        }
        let forbidden = |path: &Path| {
            policy.is_forbidden(path)
                || policy
                    .forbid_read
                    .iter()
                    .filter_map(|f| std::fs::canonicalize(f).ok())
                    .any(|f| path.starts_with(f))
        };
        if forbidden(&lexical) {
            return Err(types::Error::Denied(format!(
                "`cwd` {} is under a `forbid_read` path",
                lexical.display()
            )));
        }
        let real = match std::fs::canonicalize(&lexical) {
            Ok(real) if real.is_dir() => real,
            _ => {
                return Err(types::Error::InvalidInput(format!(
                    "`cwd` {} is not a directory",
                    lexical.display()
                )));
            }
        };
        if !self.resolved.iter().any(|r| real.starts_with(r)) {
            return Err(types::Error::Denied(format!(
                "`cwd` {} leads to {}, outside the workspace {} and the `[sandbox] allow_write` \
                 roots; a command may only start in them",
                lexical.display(),
                real.display(),
                policy.workspace.display()
            )));
        }
        if forbidden(&real) {
            return Err(types::Error::Denied(format!(
                "`cwd` {} leads to {}, under a `forbid_read` path",
                lexical.display(),
                real.display()
            )));
        }
        Ok(real)
    }
}

/// The first executable file named `name` in an absolute directory of `path_var` (a `PATH`
/// value), with symlinks resolved. Relative entries (`.`, empty) are skipped: they would
/// depend on the current directory.
pub(crate) fn find_on_path(name: &str, path_var: &OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .and_then(|found| std::fs::canonicalize(found).ok())
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
        // One of the user's own command lines, started by the built-in that runs them: the
        // user's confinement, not the workspace's (ADR 0028).
        let policy = match self
            .user_commands
            .as_ref()
            .and_then(|user| policy.widened_for(user, &command.program, &command.args))
        {
            Some(widened) => Arc::new(widened),
            None => policy,
        };
        let job = JobRequest {
            policy: &policy,
            workspace: self.capabilities.workspace,
            deadline: self.call_deadline,
            owner: self.cancel.clone(),
        };
        host.spawn(&self.plugin, job, command, |message| {
            if let Some(sink) = &sink {
                sink(&plugin, log::Level::Warn, message);
            }
        })
    }

    fn read(&mut self, job: String, max_bytes: u32) -> Result<process::Output, types::Error> {
        let job = self.processes()?.job(&self.plugin, &job)?;
        let chunk = job.read(usize::try_from(max_bytes).unwrap_or(usize::MAX));
        Ok(process::Output {
            data: chunk.data,
            stderr: chunk.stderr,
            status: chunk.status.map(to_wit),
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
    #[allow(unsafe_code, clippy::unwrap_used)]
    fn a_spawn_past_the_deadline_returns_in_time_and_its_child_never_runs_on() {
        let host = ProcessHost::new();
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &format!("sleep 2; touch {}", marker.display())])
            .process_group(0);
        // A spawn that takes 3 s to reach `exec`. SAFETY: only a sleep between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                std::thread::sleep(Duration::from_secs(3));
                Ok(())
            });
        }
        let started = Instant::now();
        let deadline = Instant::now() + Duration::from_millis(100);
        let err = host.spawn_child(cmd, None, Some(deadline)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_millis(2500));
        // The child started after the caller gave up: the spawner killed it.
        std::thread::sleep(Duration::from_secs(7));
        assert!(!marker.exists());
    }

    #[test]
    fn cwd_stays_in_the_roots_as_written_and_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let (ws, out, temp) = (dir.join("ws"), dir.join("out"), dir.join("tmp"));
        for d in [&ws.join("sub"), &out, &temp, &ws.join("secret")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::os::unix::fs::symlink("/etc", ws.join("etc")).unwrap();
        std::os::unix::fs::symlink(&out, ws.join("to-out")).unwrap();
        let policy = SandboxPolicy::for_test(&ws, vec![out.clone()], vec![ws.join("secret")]);
        let roots = Roots::new(&policy, &temp);
        let cwd = |dir: Option<&str>| roots.job_cwd(&policy, dir);
        assert_eq!(cwd(None).unwrap(), ws);
        assert_eq!(cwd(Some("sub")).unwrap(), ws.join("sub"));
        assert_eq!(cwd(Some("to-out")).unwrap(), out);
        assert_eq!(cwd(Some(out.to_str().unwrap())).unwrap(), out);
        assert_eq!(cwd(Some(temp.to_str().unwrap())).unwrap(), temp);
        for bad in ["/etc", "..", "sub/../..", "etc", "secret", "missing"] {
            let err = cwd(Some(bad)).unwrap_err();
            assert!(
                matches!(err, types::Error::Denied(_) | types::Error::InvalidInput(_)),
                "{bad}: {err:?}"
            );
        }
        assert!(roots.writable_by_jobs(&ws.join("bin/bwrap")));
        assert!(roots.writable_by_jobs(&temp.join("bwrap")));
        assert!(!roots.writable_by_jobs(Path::new("/usr/bin/bwrap")));
    }

    #[test]
    fn the_launcher_is_found_on_absolute_path_entries_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let (plain, exe) = (dir.join("a"), dir.join("b"));
        for d in [&plain, &exe] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(plain.join("tool"), "").unwrap();
        std::fs::write(exe.join("tool"), "").unwrap();
        std::fs::set_permissions(exe.join("tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([Path::new("."), &plain, &exe]).unwrap();
        assert_eq!(find_on_path("tool", &path), Some(exe.join("tool")));
        let relative = std::env::join_paths([Path::new("b")]).unwrap();
        assert_eq!(find_on_path("tool", &relative), None);
    }

    #[test]
    fn id_prefixes_are_tame() {
        assert_eq!(id_prefix("/usr/bin/bash"), "bash");
        assert_eq!(id_prefix("Py thon3!"), "python3");
        assert_eq!(id_prefix("/"), "job");
    }
}
