//! The shell tools through the real `shell` component and the host `process` service: the
//! bubblewrap sandbox holds (writes, network, forbidden paths), timeouts kill whole process
//! trees, background jobs live across calls, credentials never reach commands, and a plugin
//! without the `process` grant is refused. In-process, so background jobs outlive their call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use crate::BUILTINS;

use reasonix_config::{Config, Paths};
use reasonix_core::types::ToolContext;
use reasonix_core::{CallError, PluginError};
use reasonix_host::Registry;
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use support::{Env, stderr, stdout};

fn load(env: &Env, config_text: &str) -> Registry {
    let config = Config::parse(&env.project().join("reasonix.toml"), config_text).unwrap();
    // One compiled-artifact cache for every test here: compiling the built-ins once per test
    // would dominate the run time.
    static CACHE: OnceLock<tempfile::TempDir> = OnceLock::new();
    let cache = CACHE.get_or_init(|| tempfile::tempdir().unwrap());
    let paths = Paths {
        home: env.home(),
        cache: cache.path().to_path_buf(),
        state: env.home(),
    };
    let registry = Registry::load(BUILTINS, &paths, &config.registry_settings(), None).unwrap();
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());
    registry
}

fn call(registry: &Registry, env: &Env, tool: &str, args: serde_json::Value) -> String {
    try_call(registry, env, tool, args).unwrap_or_else(|e| panic!("{tool}: {e}"))
}

fn try_call(
    registry: &Registry,
    env: &Env,
    tool: &str,
    args: serde_json::Value,
) -> Result<String, CallError> {
    let ctx = ToolContext {
        call_id: "t-1".into(),
        workspace: env.workspace(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    };
    registry.tool(tool).unwrap().invoke(&args.to_string(), &ctx)
}

fn bash(registry: &Registry, env: &Env, command: &str) -> String {
    call(
        registry,
        env,
        "bash",
        serde_json::json!({ "command": command }),
    )
}

/// A token no other process on the machine has in its command line.
pub(crate) fn unique() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{}{}", std::process::id(), nanos % 1_000_000_000)
}

/// Processes on the host whose command line contains `marker`.
pub(crate) fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if text.contains(marker) {
                found.push(format!("{}: {text}", entry.file_name().to_string_lossy()));
            }
        }
    }
    found
}

#[test]
fn echo_runs_and_reports_the_exit_code() {
    let env = Env::new();
    let registry = load(&env, "");
    assert_eq!(bash(&registry, &env, "echo hi"), "hi\n[exit code: 0]");
    assert_eq!(
        bash(&registry, &env, "echo out; echo err >&2; exit 3"),
        "out\nerr\n[exit code: 3]"
    );
    assert_eq!(
        bash(&registry, &env, "pwd"),
        format!("{}\n[exit code: 0]", env.workspace().display())
    );
}

#[test]
fn writes_stay_inside_the_workspace_and_temp_dir() {
    let env = Env::new();
    let registry = load(&env, "");
    let outside = std::env::temp_dir().join(format!("outside-{}", unique()));
    let out = bash(&registry, &env, &format!("touch {}", outside.display()));
    assert!(!out.ends_with("[exit code: 0]"), "{out}");
    assert!(out.contains("Read-only file system"), "{out}");
    assert!(!outside.exists(), "the sandbox let a command write outside");

    let out = bash(
        &registry,
        &env,
        "echo made > inside.txt && touch \"$TMPDIR/scratch\"",
    );
    assert!(out.ends_with("[exit code: 0]"), "{out}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("inside.txt")).unwrap(),
        "made\n"
    );
}

#[test]
fn forbidden_paths_are_masked() {
    let env = Env::new();
    std::fs::write(env.workspace().join("secret.txt"), "TOP SECRET").unwrap();
    std::fs::create_dir_all(env.workspace().join("keys")).unwrap();
    std::fs::write(env.workspace().join("keys/id"), "PRIVATE KEY").unwrap();
    let registry = load(
        &env,
        "[sandbox]\nforbid_read = [\"secret.txt\", \"keys\"]\n",
    );
    let out = bash(&registry, &env, "cat secret.txt; ls keys; cat keys/id");
    assert!(
        !out.contains("TOP SECRET") && !out.contains("PRIVATE KEY"),
        "{out}"
    );
}

#[test]
fn network_is_off_unless_enabled() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");

    let env = Env::new();
    let registry = load(&env, "");
    let out = bash(&registry, &env, &connect);
    assert!(!out.contains("connected"), "{out}");
    assert!(!out.ends_with("[exit code: 0]"), "{out}");

    let env = Env::new();
    let registry = load(&env, "[sandbox]\nnetwork = true\n");
    let out = bash(&registry, &env, &connect);
    assert_eq!(out, "connected\n[exit code: 0]");
}

fn timeout_kills_the_whole_tree(config: &str) {
    let env = Env::new();
    let registry = load(&env, config);
    // A fractional duration nobody else uses marks our sleeps in the host's process list
    // (inside the sandbox's PID namespace, `$!` would not be a host pid).
    let marker = format!("300.{}", unique());
    let started = Instant::now();
    let out = bash(
        &registry,
        &env,
        &format!("echo begun; sleep {marker} & sleep {marker}"),
    );
    assert_eq!(out, "begun\n[killed: timed out after 1 s]");
    assert!(started.elapsed() < Duration::from_secs(20));
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_with(&marker), Vec::<String>::new());
}

#[test]
fn timeout_kills_the_command_and_its_children() {
    timeout_kills_the_whole_tree("[tools]\nbash_timeout_seconds = 1\n");
}

#[test]
fn timeout_kills_the_process_group_without_the_sandbox() {
    timeout_kills_the_whole_tree("[tools]\nbash_timeout_seconds = 1\n[sandbox]\nbash = \"off\"\n");
}

#[test]
fn background_job_is_read_while_running_and_after_it_ends() {
    let env = Env::new();
    let registry = load(&env, "");
    let started = call(
        &registry,
        &env,
        "bash",
        serde_json::json!({
            "command": "echo start; while [ ! -e go ]; do sleep 0.05; done; echo end; exit 4",
            "run_in_background": true
        }),
    );
    assert!(started.contains("bash-1"), "{started}");

    let read = |registry: &Registry| {
        call(
            registry,
            &env,
            "bash_output",
            serde_json::json!({ "job_id": "bash-1" }),
        )
    };
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !seen.contains("start") && Instant::now() < deadline {
        let out = read(&registry);
        assert!(out.starts_with("[bash-1] running\n"), "{out}");
        seen.push_str(&out);
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(seen.contains("start"), "{seen}");
    let out = call(
        &registry,
        &env,
        "wait",
        serde_json::json!({ "timeout_seconds": 1 }),
    );
    assert_eq!(out, "[bash-1] running");

    std::fs::write(env.workspace().join("go"), "").unwrap();
    let out = call(&registry, &env, "wait", serde_json::json!({}));
    assert_eq!(out, "[bash-1] failed (exit code 4)\nend");
    assert_eq!(
        read(&registry),
        "[bash-1] failed (exit code 4)\n(no new output)"
    );
    let out = call(
        &registry,
        &env,
        "kill_shell",
        serde_json::json!({ "job_id": "bash-1" }),
    );
    assert!(out.contains("already failed"), "{out}");
}

#[test]
fn kill_shell_stops_a_background_job() {
    let env = Env::new();
    let registry = load(&env, "");
    let marker = format!("300.{}", unique());
    call(
        &registry,
        &env,
        "bash",
        serde_json::json!({ "command": format!("sleep {marker}"), "run_in_background": true }),
    );
    let out = call(
        &registry,
        &env,
        "kill_shell",
        serde_json::json!({ "job_id": "bash-1" }),
    );
    assert!(
        out.starts_with("[bash-1] killed (killed by request)"),
        "{out}"
    );
    let out = call(
        &registry,
        &env,
        "kill_shell",
        serde_json::json!({ "job_id": "bash-7" }),
    );
    assert!(out.contains("no such job"), "{out}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_with(&marker), Vec::<String>::new());
}

#[test]
fn a_plugin_without_the_process_grant_is_denied() {
    let env = Env::new();
    let registry = load(&env, "[plugin.shell]\nprocess = false\n");
    match try_call(
        &registry,
        &env,
        "bash",
        serde_json::json!({ "command": "echo hi" }),
    ) {
        Err(CallError::Plugin(PluginError::Denied(message))) => {
            assert!(message.contains("`process` capability"), "{message}");
        }
        other => panic!("expected a denial, got {other:?}"),
    }
}

#[test]
fn enforce_without_bubblewrap_refuses_and_says_how_to_fix() {
    let env = Env::new();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_reasonix"))
        .args(["tools", "call", "bash", r#"{"command":"echo hi"}"#, "--dir"])
        .arg(env.workspace())
        .current_dir(env.project())
        .env("REASONIX_HOME", env.home())
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("bubblewrap"), "{err}");
    assert!(err.contains("apt-get install bubblewrap"), "{err}");
    assert!(
        err.contains("bash = \\\"off\\\"") || err.contains("bash = \"off\""),
        "{err}"
    );
}

#[test]
fn credentials_never_reach_commands() {
    let env = Env::new();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_reasonix"))
        .args(["tools", "call", "bash", r#"{"command":"env"}"#, "--dir"])
        .arg(env.workspace())
        .current_dir(env.project())
        .env("REASONIX_HOME", env.home())
        .env("FOO_API_KEY", "sk-do-not-leak")
        .env("GITHUB_TOKEN", "ghp-do-not-leak")
        .env("UNRELATED_SETTING", "also-not-passed")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("PATH="), "{text}");
    assert!(text.contains("TMPDIR="), "{text}");
    for leaked in ["FOO_API_KEY", "do-not-leak", "UNRELATED_SETTING"] {
        assert!(
            !text.contains(leaked),
            "{leaked} reached the command:\n{text}"
        );
    }
}
