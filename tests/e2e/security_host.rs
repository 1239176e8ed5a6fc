//! Attacks on the host's own resources by a hostile component (`tests/fixtures/hostile-host`):
//! floods of header fields, descriptors and log lines, host calls that block past the
//! deadline, self-descriptions that block or are far too large, a stack overflow and `exit`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{Env, stderr, stdout};

/// A copy of the fixture whose 16-byte `MODE` marker says `mode` (see the fixture's docs).
fn hostile_with_mode(dir: &Path, mode: &[u8; 16]) -> PathBuf {
    let mut bytes = std::fs::read(support::fixture("hostile_host")).unwrap();
    let marker = b"MODE:normal.....";
    let at = bytes
        .windows(marker.len())
        .position(|w| w == marker)
        .expect("the fixture carries its MODE marker");
    bytes[at..at + marker.len()].copy_from_slice(mode);
    let path = dir.join(format!(
        "hostile-{}.wasm",
        String::from_utf8_lossy(&mode[5..]).trim_end_matches('.')
    ));
    // The artifact cache is shared between test runs: forget what an earlier run remembered
    // about these bytes, so this run describes them itself.
    forget_failures(&reasonix_host::cache::sha256_hex(&bytes));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn forget_failures(sha: &str) {
    let mut dirs = vec![support::shared_artifact_cache()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                dirs.push(path);
            } else if name.starts_with(sha) && name.ends_with(".failed") {
                std::fs::remove_file(&path).unwrap();
            }
        }
    }
}

/// Install the fixture with what it asks (read access to the workspace) and a short deadline.
fn installed(env: &Env, timeout_ms: u64) {
    let out = env.reasonix(&[
        "plugin",
        "install",
        support::fixture("hostile_host").to_str().unwrap(),
        "--yes",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    env.project_config(&format!(
        "[plugin.hostile-host]\ncall_timeout_ms = {timeout_ms}\n"
    ));
}

/// Run `reasonix` with `args` in `env`, returning its output and peak RSS in KiB (from
/// `wait4`'s rusage of exactly this child).
///
/// On Linux that peak also counts the address space the child was started from, as it stood
/// when the child called `exec` (a spawned child shares or copies its parent's until then). The
/// end-to-end tests share one process, whose other tests keep registries of their own (hundreds
/// of MB), so the child is not started from here but from a small process: this test binary
/// started again to run only [`rusage_launcher`], which waits for the child and writes its
/// exit status and peak RSS next to its stdout and stderr.
fn run_measured(env: &Env, args: &[&str]) -> (Output, u64) {
    let dir = tempfile::tempdir().unwrap();
    let request = serde_json::json!({
        "program": env!("CARGO_BIN_EXE_reasonix"),
        "args": args,
        "cwd": env.project(),
        "home": env.home(),
        "cache": support::shared_artifact_cache(),
    });
    std::fs::write(dir.path().join("request.json"), request.to_string()).unwrap();
    // The launcher's name as the test harness knows it (the module path without the crate).
    let launcher = concat!(module_path!(), "::rusage_launcher");
    let launcher = launcher.split_once("::").map_or(launcher, |(_, name)| name);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            launcher,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(RUSAGE_LAUNCH_DIR, dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success() && stdout(&out).contains("1 passed"),
        "the rusage launcher failed:\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    let number = |name: &str| -> i64 { String::from_utf8(read(name)).unwrap().parse().unwrap() };
    let output = Output {
        status: std::os::unix::process::ExitStatusExt::from_raw(
            i32::try_from(number("status")).unwrap(),
        ),
        stdout: read("stdout"),
        stderr: read("stderr"),
    };
    (output, u64::try_from(number("maxrss")).unwrap())
}

/// Where [`run_measured`] tells [`rusage_launcher`] what to run and gets the results back.
const RUSAGE_LAUNCH_DIR: &str = "REASONIX_E2E_RUSAGE_LAUNCH_DIR";

/// Not a check: the small process [`run_measured`] starts a measured child from. Without
/// `REASONIX_E2E_RUSAGE_LAUNCH_DIR` (any normal run) it does nothing.
#[test]
#[ignore = "a helper process for run_measured, not a test"]
fn rusage_launcher() {
    let Some(dir) = std::env::var_os(RUSAGE_LAUNCH_DIR).map(PathBuf::from) else {
        return;
    };
    let request: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("request.json")).unwrap()).unwrap();
    let text = |key: &str| request[key].as_str().unwrap().to_string();
    let args: Vec<String> = request["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let child = Command::new(text("program"))
        .args(&args)
        .current_dir(text("cwd"))
        .env("REASONIX_HOME", text("home"))
        .env("REASONIX_CACHE_HOME", text("cache"))
        .env_remove("REASONIX_LOG")
        .env_remove(RUSAGE_LAUNCH_DIR)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut status = 0;
    #[allow(unsafe_code)]
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    #[allow(unsafe_code)]
    let rc = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid as libc::pid_t, "wait4 failed");
    std::mem::forget(child);
    std::fs::write(dir.join("status"), status.to_string()).unwrap();
    std::fs::write(dir.join("maxrss"), usage.ru_maxrss.to_string()).unwrap();
}

#[test]
fn a_header_fields_flood_stops_at_the_limit_and_the_host_stays_small() {
    let env = Env::new();
    installed(&env, 30_000);
    let ws = env.workspace();
    let (out, peak_kib) = run_measured(
        &env,
        &[
            "tools",
            "call",
            "fields_flood",
            "{}",
            "--dir",
            ws.to_str().unwrap(),
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        err.contains("plugin `hostile-host`") && err.contains("HTTP header bytes"),
        "{err}"
    );
    // The attack asks for 20 000 × 100 KiB ≈ 2 GB of host memory.
    assert!(peak_kib < 600 * 1024, "peak RSS {peak_kib} KiB");
}

#[test]
fn a_descriptor_flood_stops_at_the_open_files_limit() {
    let env = Env::new();
    installed(&env, 30_000);
    let file = env.workspace().join("f.txt");
    std::fs::write(&file, "x").unwrap();
    let args = serde_json::json!({ "path": file }).to_string();
    let out = env.call("fd_flood", &args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        err.contains("plugin `hostile-host`") && err.contains("open files"),
        "{err}"
    );
    assert!(!stdout(&out).contains("held 20000"), "{}", stdout(&out));
}

#[test]
fn a_log_flood_is_cut_with_one_notice() {
    let env = Env::new();
    installed(&env, 30_000);
    let out = env.call("log_flood", "{}");
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    // 200 000 lines of 1 KiB were sent; 1 MiB of them may pass.
    assert!(err.len() < 2 << 20, "{} bytes of log output", err.len());
    assert!(
        err.contains("log lines and progress reports dropped"),
        "{}",
        &err[err.len().saturating_sub(500)..]
    );
}

#[test]
fn a_blocking_sleep_ends_at_the_deadline() {
    let env = Env::new();
    installed(&env, 2_000);
    let started = Instant::now();
    let out = env.call("sleep", "{}");
    let took = started.elapsed();
    let err = stderr(&out);
    assert!(err.contains("2000 ms deadline"), "{err}");
    // The plugin asked for 9 s in one host call.
    assert!(took < Duration::from_secs(7), "took {took:?}");
}

#[test]
fn a_blocking_describe_fails_within_the_describe_deadline_and_is_remembered() {
    let env = Env::new();
    let slow = hostile_with_mode(&env.plugins_dir(), b"MODE:slow-descr.");
    // The first start also compiles the component (slow in a debug build), so its time says
    // little; that `describe` was stopped at its 5 s deadline (it sleeps 15 s) is the proof.
    let out = env.reasonix(&["tools", "list"]);
    let err = stderr(&out);
    assert!(
        err.contains(slow.to_str().unwrap()) && err.contains("5000 ms deadline"),
        "{err}"
    );

    let started = Instant::now();
    let out = env.reasonix(&["tools", "list"]);
    let second = started.elapsed();
    let err = stderr(&out);
    assert!(err.contains("remembered from an earlier start"), "{err}");
    assert!(
        second < Duration::from_secs(3),
        "second start took {second:?}"
    );
}

#[test]
fn oversized_self_descriptions_are_refused_with_the_limit() {
    let env = Env::new();
    hostile_with_mode(&env.plugins_dir(), b"MODE:many-tools.");
    let out = env.reasonix(&["tools", "list"]);
    let err = stderr(&out);
    assert!(
        err.contains("it lists 20001 tools, over the limit of 256"),
        "{err}"
    );
    assert!(!stdout(&out).contains("t20000"));

    let env = Env::new();
    hostile_with_mode(&env.plugins_dir(), b"MODE:huge-descr.");
    let out = env.reasonix(&["tools", "list"]);
    let err = stderr(&out);
    assert!(err.contains("over the limit of 1048576 bytes"), "{err}");
    assert!(stdout(&out).len() < 1 << 20);
}

#[test]
fn a_stack_overflow_says_so() {
    let env = Env::new();
    installed(&env, 30_000);
    let out = env.call("overflow", "{}");
    let err = stderr(&out);
    assert!(
        err.contains("plugin `hostile-host` crashed: stack overflow"),
        "{err}"
    );
    assert!(!err.contains("wasm trap: wasm trap"), "{err}");
}

#[test]
fn exit_is_reported_as_an_exit() {
    let env = Env::new();
    installed(&env, 30_000);
    let out = env.call("exit", "{}");
    let err = stderr(&out);
    // `wasi:cli/exit` carries only success or failure: std's exit(3) arrives as status 1.
    assert!(
        err.contains("plugin `hostile-host` exited with status 1"),
        "{err}"
    );
    assert!(!err.contains("backtrace"), "{err}");
}

#[test]
fn install_errors_are_printed_once() {
    let env = Env::new();
    let missing = env.root.path().join("missing.wasm");
    let out = env.reasonix(&["plugin", "install", missing.to_str().unwrap(), "--yes"]);
    let err = stderr(&out);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    let garbage = env.root.path().join("garbage.wasm");
    std::fs::write(&garbage, b"not wasm").unwrap();
    let out = env.reasonix(&["plugin", "install", garbage.to_str().unwrap(), "--yes"]);
    let err = stderr(&out);
    assert_eq!(err.matches("not a WebAssembly file").count(), 1, "{err}");
}

/// A plugin granted the whole network (`*`) still cannot reach private or link-local addresses
/// by writing them inside an IPv6 address: IPv4-mapped, IPv4-compatible, NAT64 (well-known and
/// local-use), 6to4 and Teredo forms of 169.254.169.254 (cloud metadata) are refused by policy
/// before any connection, and so is loopback.
#[test]
fn private_addresses_inside_ipv6_forms_are_refused() {
    let env = Env::new();
    let source = support::fixture("netprobe");
    let out = env.reasonix(&["plugin", "install", source.to_str().unwrap(), "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let get = |authority: &str| {
        let args = format!(r#"{{"authority":"{authority}","path":"/"}}"#);
        env.call("http_get", &args)
    };
    for authority in [
        "169.254.169.254:80",
        "[::ffff:169.254.169.254]:80",
        "[::169.254.169.254]:80",
        "[64:ff9b::169.254.169.254]:80",
        "[64:ff9b:1::a9fe:a9fe]:80",
        "[2002:a9fe:a9fe::1]:80",
        // Teredo: the client address is the last 32 bits, inverted (0x5601_5601 = !169.254.169.254).
        "[2001:0:4136:e378:8000:63bf:5601:5601]:80",
        "[::ffff:10.0.0.1]:80",
        "[2002:c0a8:0101::1]:80",
    ] {
        let out = get(authority);
        assert_eq!(out.status.code(), Some(1), "{authority}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(
            err.contains("DestinationIpProhibited") && err.contains("plugins may not reach"),
            "{authority} was not refused by policy: {err}"
        );
    }

    // Loopback too: `*` never reaches this machine (issue #32 item 2).
    let authority = support::one_shot_server();
    let out = get(&authority);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("never through `*`"),
        "{}",
        stderr(&out)
    );
}
