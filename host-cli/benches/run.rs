//! A headless `reasonix run` of four model turns against the mock LLM server (loopback, no
//! delays), run as a child process N times: wall time, CPU time and peak RSS of the child (from
//! `wait4`'s rusage), and the time from spawning the process to the mock receiving its first
//! request.
//!
//! Turns: `read_file` → `write_file` → `ls` (or `bash` in the second row) → the answer (in the
//! third row streamed in 2000 deltas, each passing `frontend.event`), with
//! `--yolo` so nothing is refused. Every run uses a warm compiled-artifact cache (one warm-up
//! run first) and a fresh session.
//!
//! Variants, interleaved run by run so a drift of the machine's load affects all alike: this
//! build as shipped; this build with the built-in interceptors switched off in the user's
//! config; and, when `REASONIX_BENCH_BASELINE` names another `reasonix` binary (e.g. one built
//! from an earlier commit), that binary on the same script.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use common::{median, ms, timeval, wait4};
use reasonix_mock_llm::{MockLlm, Reply};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 20;

/// What one child cost.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    cpu: Duration,
    /// Peak resident set, KiB.
    max_rss_kib: u64,
    first_request: Duration,
}

/// Deltas of the long answer: every streamed piece passes `frontend.event` when an
/// interceptor listens there (the built-in redactor does).
const LONG_ANSWER_DELTAS: usize = 2000;

/// Which script a run follows.
#[derive(Clone, Copy)]
enum Turns {
    /// read, write, ls, a one-line answer.
    Ls,
    /// read, write, bash, a one-line answer.
    Bash,
    /// read, write, ls, an answer streamed in [`LONG_ANSWER_DELTAS`] pieces.
    LongAnswer,
}

fn script(mock: &MockLlm, turns: Turns) {
    let with_bash = matches!(turns, Turns::Bash);
    let long: Vec<String> = (0..LONG_ANSWER_DELTAS)
        .map(|i| {
            if i % 40 == 39 {
                "line.\n".to_string()
            } else {
                format!("word{i} ")
            }
        })
        .collect();
    let long: Vec<&str> = long.iter().map(String::as_str).collect();
    let answer = match turns {
        Turns::LongAnswer => Reply::text(&long),
        _ => Reply::text(&["Wrote upper.txt."]),
    };
    let third = if with_bash {
        Reply::tool_calls(&[("c3", "bash", r#"{"command":"wc -c < upper.txt"}"#)], 1)
    } else {
        Reply::tool_calls(&[("c3", "ls", "{}")], 1)
    };
    mock.enqueue_all([
        Reply::tool_calls(&[("c1", "read_file", r#"{"path":"notes.txt"}"#)], 1),
        Reply::tool_calls(
            &[(
                "c2",
                "write_file",
                r#"{"path":"upper.txt","content":"HELLO BENCH\n"}"#,
            )],
            1,
        ),
        third,
        answer,
    ]);
}

struct Bench {
    root: tempfile::TempDir,
    mock: MockLlm,
    /// The user's config without the variant's lines.
    base_config: String,
}

/// One way of running the script.
struct Variant {
    label: &'static str,
    binary: std::path::PathBuf,
    /// Lines appended to the user's config.
    config: &'static str,
}

impl Bench {
    fn new() -> Bench {
        let root = tempfile::tempdir().unwrap();
        let mock = MockLlm::start().unwrap();
        for dir in ["home", "project", "workspace", "cache", "state"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        std::fs::write(root.path().join("home/.env"), "MOCK_LLM_KEY=sk-bench\n").unwrap();
        // The provider is the user's (a project file could not pair the key with this endpoint
        // without trust).
        let base_config = format!(
            "default_model = \"mock\"\n[[providers]]\nname = \"mock\"\nkind = \"openai\"\n\
             base_url = \"{}\"\nmodel = \"mock-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n",
            mock.base_url()
        );
        std::fs::write(root.path().join("home/config.toml"), &base_config).unwrap();
        Bench {
            root,
            mock,
            base_config,
        }
    }

    fn select(&self, variant: &Variant) {
        std::fs::write(
            self.path("home/config.toml"),
            format!("{}{}", self.base_config, variant.config),
        )
        .unwrap();
    }

    fn path(&self, p: &str) -> std::path::PathBuf {
        self.root.path().join(p)
    }

    // The child is reaped by `wait4` (for its rusage), not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    fn once(&self, variant: &Variant, turns: Turns) -> Sample {
        self.select(variant);
        let ws = self.path("workspace");
        std::fs::write(ws.join("notes.txt"), "hello bench\n").unwrap();
        let _ = std::fs::remove_file(ws.join("upper.txt"));
        script(&self.mock, turns);
        let seen = self.mock.requests().len();
        let out = std::fs::File::create(self.path("stdout")).unwrap();
        let err = std::fs::File::create(self.path("stderr")).unwrap();
        let start = Instant::now();
        let child = Command::new(&variant.binary)
            .args(["run", "--yolo", "--dir"])
            .arg(&ws)
            .arg("Uppercase notes.txt into upper.txt")
            .current_dir(self.path("project"))
            .env("REASONIX_HOME", self.path("home"))
            .env("REASONIX_CACHE_HOME", self.path("cache"))
            .env("REASONIX_STATE_HOME", self.path("state"))
            .env_remove("REASONIX_LOG")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap();
        let (status, usage) = wait4(child.id());
        let wall = start.elapsed();
        let show = |p: &str| std::fs::read_to_string(self.path(p)).unwrap_or_default();
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "reasonix run failed (status {status}):\n{}\n{}",
            show("stdout"),
            show("stderr")
        );
        assert_eq!(
            std::fs::read_to_string(ws.join("upper.txt")).unwrap(),
            "HELLO BENCH\n"
        );
        let requests = self.mock.requests();
        assert_eq!(requests.len() - seen, 4, "four model requests");
        assert_eq!(self.mock.pending(), 0);
        Sample {
            wall,
            cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
            max_rss_kib: usage.ru_maxrss as u64,
            first_request: requests[seen].at.duration_since(start),
        }
    }
}

fn median_of(samples: &[Sample], f: impl Fn(&Sample) -> Duration) -> (Duration, Duration) {
    let mut v: Vec<Duration> = samples.iter().map(f).collect();
    v.sort();
    (median(&v), v[v.len() - 1])
}

/// The built-in interceptors switched off in the user's config (a project file could not:
/// an untrusted project may not switch off a plugin serving interceptors).
const WITHOUT_BUILTIN_INTERCEPTORS: &str = "[plugin.environment]\nenabled = false\n\
     [plugin.instructions]\nenabled = false\n[plugin.redact]\nenabled = false\n\
     [plugin.bound]\nenabled = false\n";

fn variants() -> Vec<Variant> {
    let this = std::path::PathBuf::from(env!("CARGO_BIN_EXE_reasonix"));
    let mut out = vec![
        Variant {
            label: "this build",
            binary: this.clone(),
            config: "",
        },
        Variant {
            label: "built-in interceptors off",
            binary: this,
            config: WITHOUT_BUILTIN_INTERCEPTORS,
        },
    ];
    if let Some(baseline) = std::env::var_os("REASONIX_BENCH_BASELINE") {
        out.push(Variant {
            label: "baseline binary",
            binary: baseline.into(),
            config: "",
        });
    }
    out
}

fn main() {
    let bench = Bench::new();
    let variants = variants();
    // Warm-up: compiles each binary's built-ins into the artifact cache.
    for variant in &variants {
        bench.once(variant, Turns::Ls);
        bench.once(variant, Turns::Bash);
    }
    println!("| run | variant | measurement | median | max |");
    println!("|---|---|---|---|---|");
    for (label, turns) in [
        ("read, write, ls, answer", Turns::Ls),
        ("read, write, bash, answer", Turns::Bash),
        ("read, write, ls, 2000-delta answer", Turns::LongAnswer),
    ] {
        let mut samples: Vec<Vec<Sample>> = variants.iter().map(|_| Vec::new()).collect();
        for _ in 0..RUNS {
            for (variant, out) in variants.iter().zip(samples.iter_mut()) {
                out.push(bench.once(variant, turns));
            }
        }
        for (variant, out) in variants.iter().zip(&samples) {
            report(label, variant.label, out);
        }
        let (wall_this, _) = median_of(&samples[0], |s| s.wall);
        let (cpu_this, _) = median_of(&samples[0], |s| s.cpu);
        for (variant, out) in variants.iter().zip(&samples).skip(1) {
            let (wall, _) = median_of(out, |s| s.wall);
            let (cpu, _) = median_of(out, |s| s.cpu);
            println!(
                "| {label} | this build vs {} | wall / CPU | {:+.1} % / {:+.1} % | |",
                variant.label,
                (wall_this.as_secs_f64() / wall.as_secs_f64() - 1.0) * 100.0,
                (cpu_this.as_secs_f64() / cpu.as_secs_f64() - 1.0) * 100.0
            );
        }
    }
}

fn report(label: &str, variant: &str, samples: &[Sample]) {
    let (wall, wall_max) = median_of(samples, |s| s.wall);
    let (cpu, cpu_max) = median_of(samples, |s| s.cpu);
    let (first, first_max) = median_of(samples, |s| s.first_request);
    let mut rss: Vec<u64> = samples.iter().map(|s| s.max_rss_kib).collect();
    rss.sort();
    println!(
        "| {label} | {variant} | start → first request ms | {} | {} |",
        ms(first),
        ms(first_max)
    );
    println!(
        "| {label} | {variant} | wall ms | {} | {} |",
        ms(wall),
        ms(wall_max)
    );
    println!(
        "| {label} | {variant} | CPU (user+sys) ms | {} | {} |",
        ms(cpu),
        ms(cpu_max)
    );
    println!(
        "| {label} | {variant} | peak RSS MiB | {:.1} | {:.1} |",
        rss[rss.len() / 2] as f64 / 1024.0,
        rss[rss.len() - 1] as f64 / 1024.0
    );
}
