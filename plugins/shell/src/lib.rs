//! The built-in `shell` component: `bash`, `bash_output`, `kill_shell` and `wait`.
//!
//! Commands run through the host `process` service, which confines them to the OS sandbox of
//! the workspace (bubblewrap on Linux under `[sandbox] bash = "enforce"`), strips credentials
//! from their environment and owns the jobs, so a background job outlives the call that
//! started it. The tool logic is written against the [`Processes`] trait so it is unit-tested
//! natively with a fake.
//!
//! Deadlines: a foreground command is killed by the host after `[tools] bash_timeout_seconds`
//! (default 120, 0 = none). The component asks for a one-hour call deadline (the host maximum);
//! the host returns from a blocking `wait` shortly before the call deadline, so a command still
//! running then is killed and reported instead of being left behind. Longer commands belong in
//! the background (`run_in_background`).

use reasonix_sdk::bindings::reasonix::plugin::process::{self, ExitStatus};
use reasonix_sdk::{CallContext, Error, Plugin, PluginInfo, Tool, ToolSet, WorkspaceAccess};
use schemars::JsonSchema;
use serde::Deserialize;

pub use reasonix_sdk::bindings::reasonix::plugin::process::{Command, Output};

/// Foreground timeout when the host gives no sandbox policy.
const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// The call deadline requested: the host's maximum, one hour.
const CALL_TIMEOUT_MS: u32 = 3_600_000;
/// The most output taken in one read (the host keeps at most 1 MiB unread per job).
const MAX_READ: u32 = 2 * 1024 * 1024;
/// How long to wait for a killed job to end (the host gives its output pipe up to 5 s).
const KILL_WAIT_MS: u64 = 10_000;
/// `wait` without ids looks at `bash-1`, `bash-2`, … up to this many.
const MAX_PROBED_JOBS: u32 = 10_000;

/// The host `process` service, as the tools use it.
pub trait Processes {
    fn spawn(&self, command: Command) -> Result<String, Error>;
    fn read(&self, job: &str, max_bytes: u32) -> Result<Output, Error>;
    fn wait(&self, job: &str, timeout_ms: Option<u64>) -> Result<Option<ExitStatus>, Error>;
    fn kill(&self, job: &str) -> Result<(), Error>;
}

/// The real service, through the component's `process` import.
pub struct HostProcesses;

impl Processes for HostProcesses {
    fn spawn(&self, command: Command) -> Result<String, Error> {
        process::spawn(&command)
    }
    fn read(&self, job: &str, max_bytes: u32) -> Result<Output, Error> {
        process::read(job, max_bytes)
    }
    fn wait(&self, job: &str, timeout_ms: Option<u64>) -> Result<Option<ExitStatus>, Error> {
        process::wait(job, timeout_ms)
    }
    fn kill(&self, job: &str) -> Result<(), Error> {
        process::kill(job)
    }
}

// Unknown fields are ignored rather than refused (models trained on other agents add their own,
// e.g. `description` or `timeout`); the schema still offers only these.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct BashArgs {
    /// The command line, run with `bash -c`.
    command: String,
    /// Start the command as a background job and return its id instead of waiting (default
    /// false).
    #[serde(default)]
    run_in_background: bool,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct OutputArgs {
    /// Id returned by `bash`, e.g. `bash-1`.
    job_id: String,
    /// Regular expression: only output lines matching it are shown (the rest is still consumed).
    filter: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct KillArgs {
    /// Id returned by `bash`, e.g. `bash-1`.
    job_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct WaitArgs {
    /// Jobs to wait for (default: all running jobs).
    job_ids: Option<Vec<String>>,
    /// Stop waiting after this many seconds (default: until they finish).
    #[schemars(range(min = 1))]
    timeout_seconds: Option<u64>,
}

/// A shell tool, run against any [`Processes`]: the host's in the component, a fake in tests.
pub trait ShellTool: Tool {
    /// Run the tool; `policy` is the sandbox policy the host passes as the `sandbox` config.
    fn run_with(
        p: &dyn Processes,
        args: Self::Args,
        cx: &CallContext,
        policy: Option<&serde_json::Value>,
    ) -> Result<String, Error>;
}

/// `bash`: run a command in the OS sandbox.
pub struct Bash;

impl Tool for Bash {
    const NAME: &'static str = "bash";
    const READ_ONLY: bool = false;
    type Args = BashArgs;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/bash.json"));

    fn description() -> String {
        "Run a shell command with `bash -c` in the workspace and return its combined stdout \
         and stderr followed by `[exit code: N]`. Commands run in the OS sandbox: only the \
         workspace, configured writable roots and $TMPDIR are writable, and the network is \
         off unless the user enabled it. A foreground command is killed after the configured \
         timeout (default 120 s), together with everything it started. Set \
         `run_in_background` for servers, watchers and long builds: it returns a job id \
         (e.g. `bash-1`) at once; read the output with `bash_output`, block with `wait`, stop \
         it with `kill_shell`."
            .into()
    }

    fn guidance() -> Option<String> {
        Some(
            "After changing code, run the project's build and tests with `bash` and fix what \
             fails before you call the work done."
                .into(),
        )
    }

    fn run(args: BashArgs, cx: &CallContext) -> Result<String, Error> {
        Self::run_with(&HostProcesses, args, cx, host_policy().as_ref())
    }
}

impl ShellTool for Bash {
    fn run_with(
        p: &dyn Processes,
        args: BashArgs,
        cx: &CallContext,
        policy: Option<&serde_json::Value>,
    ) -> Result<String, Error> {
        bash(p, args, cx, foreground_timeout_ms(policy))
    }
}

/// `bash_output`: what a background job wrote since the last read.
pub struct BashOutput;

impl Tool for BashOutput {
    const NAME: &'static str = "bash_output";
    const READ_ONLY: bool = true;
    type Args = OutputArgs;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/bash_output.json"));

    fn description() -> String {
        "Return the output a background job produced since the last read, without blocking, \
         under a header `[<job_id>] <status>` (running, done, failed or killed)."
            .into()
    }

    fn run(args: OutputArgs, cx: &CallContext) -> Result<String, Error> {
        Self::run_with(&HostProcesses, args, cx, None)
    }
}

impl ShellTool for BashOutput {
    fn run_with(
        p: &dyn Processes,
        args: OutputArgs,
        _cx: &CallContext,
        _policy: Option<&serde_json::Value>,
    ) -> Result<String, Error> {
        bash_output(p, args)
    }
}

/// `kill_shell`: kill a background job.
pub struct KillShell;

impl Tool for KillShell {
    const NAME: &'static str = "kill_shell";
    const READ_ONLY: bool = false;
    type Args = KillArgs;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/kill_shell.json"));

    fn description() -> String {
        "Kill a background job and every process it started. Killing a job that has finished \
         or does not exist does nothing."
            .into()
    }

    fn run(args: KillArgs, cx: &CallContext) -> Result<String, Error> {
        Self::run_with(&HostProcesses, args, cx, None)
    }
}

impl ShellTool for KillShell {
    fn run_with(
        p: &dyn Processes,
        args: KillArgs,
        _cx: &CallContext,
        _policy: Option<&serde_json::Value>,
    ) -> Result<String, Error> {
        kill_shell(p, args)
    }
}

/// `wait`: block until background jobs end.
pub struct Wait;

impl Tool for Wait {
    const NAME: &'static str = "wait";
    const READ_ONLY: bool = true;
    type Args = WaitArgs;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/wait.json"));

    fn description() -> String {
        "Block until background jobs finish and return each one's status and the output not \
         read yet. Without `job_ids` it waits for every running job."
            .into()
    }

    fn run(args: WaitArgs, cx: &CallContext) -> Result<String, Error> {
        Self::run_with(&HostProcesses, args, cx, None)
    }
}

impl ShellTool for Wait {
    fn run_with(
        p: &dyn Processes,
        args: WaitArgs,
        _cx: &CallContext,
        _policy: Option<&serde_json::Value>,
    ) -> Result<String, Error> {
        wait(p, args)
    }
}

/// The sandbox policy of this call, as the host passes it.
fn host_policy() -> Option<serde_json::Value> {
    reasonix_sdk::host::config_value("sandbox")
}

/// `running`, `done (exit code 0)`, `failed (exit code 2)`, `killed (timed out after 5 s)`.
pub fn status_text(status: Option<&ExitStatus>) -> String {
    match status {
        None => "running".to_string(),
        Some(ExitStatus::Exited(0)) => "done (exit code 0)".to_string(),
        Some(ExitStatus::Exited(code)) => format!("failed (exit code {code})"),
        Some(ExitStatus::Killed(reason)) => format!("killed ({reason})"),
    }
}

/// The parse error inside a regex build error (its own text only says "error parsing pattern 0").
fn regex_error_text(e: &regex_automata::meta::BuildError) -> String {
    match std::error::Error::source(e) {
        Some(source) => source.to_string(),
        None => e.to_string(),
    }
}

/// Read everything available now; the status once the job has ended and all is read.
fn drain(p: &dyn Processes, job: &str) -> Result<(String, Option<ExitStatus>), Error> {
    let mut bytes = Vec::new();
    let mut status = None;
    for _ in 0..4 {
        let out = p.read(job, MAX_READ)?;
        let empty = out.data.is_empty();
        bytes.extend(out.data);
        status = out.status;
        if status.is_some() || empty {
            break;
        }
    }
    Ok((String::from_utf8_lossy(&bytes).into_owned(), status))
}

/// The foreground timeout in milliseconds from the sandbox policy (`None` = no timeout).
pub fn foreground_timeout_ms(policy: Option<&serde_json::Value>) -> Option<u64> {
    let secs = policy
        .and_then(|p| p.get("bash_timeout_secs"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(DEFAULT_TIMEOUT_SECS);
    (secs > 0).then(|| secs.saturating_mul(1000))
}

fn bash(
    p: &dyn Processes,
    args: BashArgs,
    cx: &CallContext,
    timeout_ms: Option<u64>,
) -> Result<String, Error> {
    if args.command.trim().is_empty() {
        return Err(Error::InvalidInput(
            "bash: `command` is empty; pass the command line to run".to_string(),
        ));
    }
    let command = Command {
        program: "bash".to_string(),
        args: vec!["-c".to_string(), args.command],
        cwd: Some(cx.workspace.clone()),
        env: Vec::new(),
        timeout_ms: if args.run_in_background {
            None
        } else {
            timeout_ms
        },
        // No input: a command waiting on stdin reads end-of-file at once.
        stdin: None,
        separate_stderr: false,
    };
    let id = p.spawn(command)?;
    if args.run_in_background {
        return Ok(format!(
            "Started background job {id}. Read its output with bash_output (job_id \"{id}\"), \
             block until it ends with wait, stop it with kill_shell."
        ));
    }
    let mut note = None;
    if p.wait(&id, None)?.is_none() {
        // The host returned before this call's deadline with the command still running.
        p.kill(&id)?;
        p.wait(&id, Some(KILL_WAIT_MS))?;
        note = Some(
            "[stopped: the command was still running when this tool call ran out of time; \
             start long commands with run_in_background: true]",
        );
    }
    let (text, status) = drain(p, &id)?;
    let mut result = if text.is_empty() {
        "(no output)\n".to_string()
    } else if text.ends_with('\n') {
        text
    } else {
        format!("{text}\n")
    };
    match (note, status) {
        (Some(note), _) => result.push_str(note),
        (None, Some(ExitStatus::Exited(code))) => result.push_str(&format!("[exit code: {code}]")),
        (None, Some(ExitStatus::Killed(reason))) => result.push_str(&format!("[killed: {reason}]")),
        (None, None) => result.push_str(&format!(
            "[still running as {id}: its output is still being written; read the rest with bash_output]"
        )),
    }
    Ok(result)
}

fn bash_output(p: &dyn Processes, args: OutputArgs) -> Result<String, Error> {
    let filter = match &args.filter {
        // ASCII classes only: the Unicode tables would triple the size of this component.
        Some(pattern) => Some(
            regex_automata::meta::Regex::builder()
                .syntax(
                    regex_automata::util::syntax::Config::new()
                        .unicode(false)
                        .utf8(false),
                )
                .build(pattern)
                .map_err(|e| {
                    Error::InvalidInput(format!(
                        "bash_output: `filter` is not a valid regular expression: {}",
                        regex_error_text(&e)
                    ))
                })?,
        ),
        None => None,
    };
    let (text, status) = drain(p, &args.job_id)?;
    let mut result = format!("[{}] {}\n", args.job_id, status_text(status.as_ref()));
    let body = match &filter {
        Some(re) => {
            let total = text.lines().count();
            let kept: Vec<&str> = text.lines().filter(|l| re.is_match(l)).collect();
            let mut body = kept.join("\n");
            if !body.is_empty() {
                body.push('\n');
            }
            body.push_str(&format!(
                "({} of {total} new lines matched the filter)\n",
                kept.len()
            ));
            body
        }
        None if text.is_empty() => "(no new output)\n".to_string(),
        None => text,
    };
    result.push_str(&body);
    Ok(result.trim_end().to_string())
}

fn kill_shell(p: &dyn Processes, args: KillArgs) -> Result<String, Error> {
    let id = &args.job_id;
    match p.wait(id, Some(0)) {
        Err(Error::NotFound(_)) => Ok(format!("[{id}] no such job; nothing to kill")),
        Err(e) => Err(e),
        Ok(Some(status)) => Ok(format!(
            "[{id}] already {}; nothing to kill",
            status_text(Some(&status))
        )),
        Ok(None) => {
            p.kill(id)?;
            match p.wait(id, Some(KILL_WAIT_MS))? {
                Some(status) => Ok(format!(
                    "[{id}] {}; output not read yet is still available with bash_output",
                    status_text(Some(&status))
                )),
                None => Ok(format!(
                    "[{id}] kill sent, but the job has not ended yet; check it with bash_output"
                )),
            }
        }
    }
}

/// What `wait` without ids covers: the `bash-<n>` jobs still running, and the ones that ended
/// with output nobody has read yet, reported at once — a job that ends a moment before the call
/// still gives the model its output and status. Ids are numbered from 1 per plugin and program
/// and never reused, so the first unknown id ends the list.
fn pending_jobs(p: &dyn Processes) -> Result<(Vec<String>, Vec<String>), Error> {
    let mut running = Vec::new();
    let mut ended = Vec::new();
    for n in 1..=MAX_PROBED_JOBS {
        let id = format!("bash-{n}");
        match p.wait(&id, Some(0)) {
            Ok(None) => running.push(id),
            Ok(Some(_)) => {
                let (text, status) = drain(p, &id)?;
                if !text.is_empty() {
                    ended.push(section(&id, &text, status.as_ref()));
                }
            }
            Err(_) => break,
        }
    }
    Ok((running, ended))
}

/// `[<id>] <status>` and the output, as `wait` reports a job.
fn section(id: &str, text: &str, status: Option<&ExitStatus>) -> String {
    let mut section = format!("[{id}] {}", status_text(status));
    if !text.is_empty() {
        section.push('\n');
        section.push_str(text.trim_end());
    }
    section
}

fn wait(p: &dyn Processes, args: WaitArgs) -> Result<String, Error> {
    if args.timeout_seconds == Some(0) {
        return Err(Error::InvalidInput(
            "wait: `timeout_seconds` must be at least 1; omit it to wait until the jobs end"
                .to_string(),
        ));
    }
    let (ids, mut sections) = match args.job_ids {
        Some(ids) if !ids.is_empty() => (ids, Vec::new()),
        _ => pending_jobs(p)?,
    };
    if ids.is_empty() && sections.is_empty() {
        return Ok("No background jobs are running.".to_string());
    }
    let started = std::time::Instant::now();
    let budget = args.timeout_seconds.map(std::time::Duration::from_secs);
    for id in &ids {
        let left = budget.map(|b| {
            u64::try_from(b.saturating_sub(started.elapsed()).as_millis()).unwrap_or(u64::MAX)
        });
        match p.wait(id, left) {
            Err(Error::NotFound(_)) => sections.push(format!("[{id}] no such job")),
            Err(e) => return Err(e),
            Ok(_) => {
                let (text, status) = drain(p, id)?;
                sections.push(section(id, &text, status.as_ref()));
            }
        }
    }
    Ok(sections.join("\n\n"))
}

/// The shell plugin.
pub struct Shell;

impl Plugin for Shell {
    fn info() -> PluginInfo {
        let mut info = reasonix_sdk::plugin_info(
            "shell",
            "0.1.0",
            "Built-in shell tools: bash, bash_output, kill_shell, wait",
        );
        // Commands run with the plugin's workspace access: the shell exists to build, test
        // and edit, so it asks to write (the OS sandbox still confines every command).
        info.capabilities.workspace = WorkspaceAccess::ReadWrite;
        info.capabilities.process = true;
        info.limits.call_timeout_ms = Some(CALL_TIMEOUT_MS);
        info
    }

    fn tools() -> ToolSet {
        ToolSet::new()
            .with::<Bash>()
            .with::<BashOutput>()
            .with::<KillShell>()
            .with::<Wait>()
    }
}

reasonix_sdk::export!(Shell);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    #[test]
    fn pinned_schemas_match_the_argument_types() {
        Shell::tools()
            .check_pinned_schemas(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas"))
            .unwrap();
    }

    #[derive(Default)]
    struct FakeJob {
        output: Vec<u8>,
        status: Option<ExitStatus>,
        /// Status after a kill.
        killed: bool,
    }

    /// Jobs whose outcome is scripted by the command text: `exit:N:text`, `hang`.
    #[derive(Default)]
    struct Fake {
        jobs: RefCell<BTreeMap<String, FakeJob>>,
        spawned: RefCell<Vec<Command>>,
    }

    impl Processes for Fake {
        fn spawn(&self, command: Command) -> Result<String, Error> {
            let script = command.args[1].clone();
            self.spawned.borrow_mut().push(command);
            let mut jobs = self.jobs.borrow_mut();
            let id = format!("bash-{}", jobs.len() + 1);
            let job = if let Some(rest) = script.strip_prefix("exit:") {
                let (code, text) = rest.split_once(':').unwrap();
                FakeJob {
                    output: text.as_bytes().to_vec(),
                    status: Some(ExitStatus::Exited(code.parse().unwrap())),
                    killed: false,
                }
            } else {
                FakeJob {
                    output: b"partial\n".to_vec(),
                    ..FakeJob::default()
                }
            };
            jobs.insert(id.clone(), job);
            Ok(id)
        }
        fn read(&self, job: &str, _max: u32) -> Result<Output, Error> {
            let mut jobs = self.jobs.borrow_mut();
            let j = jobs
                .get_mut(job)
                .ok_or_else(|| Error::NotFound(job.into()))?;
            Ok(Output {
                data: std::mem::take(&mut j.output),
                stderr: Vec::new(),
                status: j.status.clone(),
            })
        }
        fn wait(&self, job: &str, _t: Option<u64>) -> Result<Option<ExitStatus>, Error> {
            let jobs = self.jobs.borrow();
            let j = jobs.get(job).ok_or_else(|| Error::NotFound(job.into()))?;
            Ok(j.status.clone())
        }
        fn kill(&self, job: &str) -> Result<(), Error> {
            let mut jobs = self.jobs.borrow_mut();
            let j = jobs
                .get_mut(job)
                .ok_or_else(|| Error::NotFound(job.into()))?;
            if j.status.is_none() {
                j.killed = true;
                j.status = Some(ExitStatus::Killed("killed by request".into()));
            }
            Ok(())
        }
    }

    fn cx() -> CallContext {
        CallContext {
            call_id: "c".into(),
            workspace: "/ws".into(),
        }
    }

    fn call<T: ShellTool>(p: &Fake, args: serde_json::Value) -> Result<String, Error> {
        let policy = json!({"bash_timeout_secs": 7});
        T::run_with(p, T::parse(&args.to_string())?, &cx(), Some(&policy))
    }

    #[test]
    fn foreground_reports_output_and_exit_code() {
        let p = Fake::default();
        let out = call::<Bash>(&p, json!({"command": "exit:2:oops"})).unwrap();
        assert_eq!(out, "oops\n[exit code: 2]");
        {
            let spawned = &p.spawned.borrow()[0];
            assert_eq!(spawned.program, "bash");
            assert_eq!(spawned.cwd.as_deref(), Some("/ws"));
            assert_eq!(spawned.timeout_ms, Some(7_000));
        }
        let out = call::<Bash>(&p, json!({"command": "exit:0:"})).unwrap();
        assert_eq!(out, "(no output)\n[exit code: 0]");
    }

    #[test]
    fn foreground_still_running_at_the_deadline_is_killed_and_said_so() {
        let p = Fake::default();
        let out = call::<Bash>(&p, json!({"command": "hang"})).unwrap();
        assert!(out.starts_with("partial\n[stopped:"), "{out}");
        assert!(p.jobs.borrow()["bash-1"].killed);
    }

    #[test]
    fn background_job_lifecycle() {
        let p = Fake::default();
        let out = call::<Bash>(&p, json!({"command": "hang", "run_in_background": true})).unwrap();
        assert!(out.contains("bash-1"), "{out}");
        assert_eq!(p.spawned.borrow()[0].timeout_ms, None);
        let out = call::<BashOutput>(&p, json!({"job_id": "bash-1"})).unwrap();
        assert_eq!(out, "[bash-1] running\npartial");
        let out = call::<BashOutput>(&p, json!({"job_id": "bash-1"})).unwrap();
        assert_eq!(out, "[bash-1] running\n(no new output)");
        let out = call::<Wait>(&p, json!({"timeout_seconds": 1})).unwrap();
        assert_eq!(out, "[bash-1] running");
        let out = call::<KillShell>(&p, json!({"job_id": "bash-1"})).unwrap();
        assert!(
            out.starts_with("[bash-1] killed (killed by request)"),
            "{out}"
        );
        let out = call::<KillShell>(&p, json!({"job_id": "bash-1"})).unwrap();
        assert!(out.contains("already killed"), "{out}");
        let out = call::<KillShell>(&p, json!({"job_id": "bash-9"})).unwrap();
        assert!(out.contains("no such job"), "{out}");
        let out = call::<Wait>(&p, json!({})).unwrap();
        assert_eq!(out, "No background jobs are running.");
    }

    #[test]
    fn wait_reports_a_job_that_ended_just_before_it_with_unread_output() {
        let p = Fake::default();
        call::<Bash>(
            &p,
            json!({"command": "exit:4:end", "run_in_background": true}),
        )
        .unwrap();
        let out = call::<Wait>(&p, json!({})).unwrap();
        assert_eq!(out, "[bash-1] failed (exit code 4)\nend");
        // Reported once: its output has been read now.
        let out = call::<Wait>(&p, json!({})).unwrap();
        assert_eq!(out, "No background jobs are running.");
    }

    #[test]
    fn output_filter_and_bad_input() {
        let p = Fake::default();
        call::<Bash>(
            &p,
            json!({"command": "exit:0:a1\nb2\na3\n", "run_in_background": true}),
        )
        .unwrap();
        let out = call::<BashOutput>(&p, json!({"job_id": "bash-1", "filter": "^a"})).unwrap();
        assert_eq!(
            out,
            "[bash-1] done (exit code 0)\na1\na3\n(2 of 3 new lines matched the filter)"
        );
        call::<Bash>(
            &p,
            json!({"command": "exit:0:error: x\ncafé ok\nfine\n", "run_in_background": true}),
        )
        .unwrap();
        let out = call::<BashOutput>(&p, json!({"job_id": "bash-2", "filter": "err.r|é|\\d"}));
        assert_eq!(
            out.unwrap(),
            "[bash-2] done (exit code 0)\nerror: x\ncafé ok\n(2 of 3 new lines matched the filter)"
        );
        match call::<BashOutput>(&p, json!({"job_id": "bash-1", "filter": "("})) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("unclosed group"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            call::<Bash>(&p, json!({"command": "  "})),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            call::<Wait>(&p, json!({"timeout_seconds": 0})),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            Shell::tools().invoke("ls", "{}", &cx()),
            Err(Error::NotFound(_))
        ));
    }

    #[test]
    fn timeout_zero_means_none_and_info_asks_for_process() {
        assert_eq!(
            foreground_timeout_ms(Some(&json!({"bash_timeout_secs": 0}))),
            None
        );
        assert_eq!(foreground_timeout_ms(None), Some(120_000));
        let info = Shell::info();
        assert!(info.capabilities.process);
        assert_eq!(info.capabilities.workspace, WorkspaceAccess::ReadWrite);
        assert_eq!(info.limits.call_timeout_ms, Some(CALL_TIMEOUT_MS));
        let tools = Shell::tools();
        let names: Vec<&str> = tools.names().collect();
        assert_eq!(names, ["bash", "bash_output", "kill_shell", "wait"]);
    }
}
