//! Long sessions: what one more turn costs when the session already holds 10, 100 or 1,000
//! turns (each with a 4 KB tool result), and how long a 10,000-message session takes to resume.
//!
//! Each sample is a real `reasonix run -c` child against the mock LLM server (loopback, no
//! delays): the session is loaded, one turn runs (the model calls `read_file`, then answers),
//! and the process exits. Measured from `wait4` on the child: CPU (user + sys); its peak RSS
//! from `/proc/<pid>/status` (`VmHWM`, polled);
//! from the mock's clock: start → first request (config, registry, loading the transcript,
//! building the request) and the bytes of that request. The transcripts are written once per
//! size with the session API the binary uses, so they are what a real session leaves.
//!
//! Two variants: no context window configured (the history is sent whole, as a session without
//! compaction does), and a 200K-token window, where compaction keeps the request bounded. For
//! the second, the session is compacted once before measuring (one warm-up turn on the template
//! session), so the samples show the steady state between compactions, not the compaction.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;
mod pty;

use common::{copy_dir, median, ms, timeval, wait4_with_peak_rss};
use pty::Term;
use reasonix_agent::session::SessionStore;
use reasonix_core::types::{Message, Role, ToolCall};
use reasonix_mock_llm::{MockLlm, Reply};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

const RUNS: usize = 7;
const RESULT_BYTES: usize = 4096;

struct Sample {
    cpu: Duration,
    max_rss_kib: u64,
    first_request: Duration,
    request_bytes: usize,
}

struct Bench {
    root: tempfile::TempDir,
    workspace: PathBuf,
}

/// A 4 KB tool result that differs from turn to turn (as real file contents do).
fn tool_result(turn: usize) -> String {
    let mut text = String::with_capacity(RESULT_BYTES);
    let mut line = 0;
    while text.len() < RESULT_BYTES - 80 {
        text.push_str(&format!(
            "turn {turn} line {line}: fn handler_{turn}_{line}(input: &str) -> Result<(), Error>\n"
        ));
        line += 1;
    }
    text
}

fn message(role: Role, content: String) -> Message {
    Message {
        role,
        content,
        reasoning: None,
        reasoning_state: None,
        tool_calls: vec![],
        tool_call_id: None,
        raw_content: None,
        images: Vec::new(),
    }
}

impl Bench {
    fn new() -> Bench {
        let root = tempfile::tempdir().unwrap();
        for dir in ["home", "project", "workspace", "cache", "state", "template"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let workspace = std::fs::canonicalize(root.path().join("workspace")).unwrap();
        std::fs::write(workspace.join("notes.txt"), "hello bench\n").unwrap();
        std::fs::write(root.path().join("home/.env"), "MOCK_LLM_KEY=sk-bench\n").unwrap();
        Bench { root, workspace }
    }

    fn path(&self, p: &str) -> PathBuf {
        self.root.path().join(p)
    }

    /// The template state directory: one session of `turns` turns (4 messages each: the task,
    /// a `read_file` call, its 4 KB result, the answer).
    fn write_session(&self, turns: usize) {
        let state = self.path("template");
        let _ = std::fs::remove_dir_all(&state);
        std::fs::create_dir_all(&state).unwrap();
        let store = SessionStore::new(&state, &self.workspace);
        let mut writer = store.create("mock", "mock-model").unwrap();
        for turn in 0..turns {
            writer
                .message(&message(Role::User, format!("Turn {turn}: read notes.txt")))
                .unwrap();
            let mut call = message(Role::Assistant, String::new());
            call.tool_calls = vec![ToolCall {
                id: format!("call_{turn}"),
                name: "read_file".into(),
                arguments: r#"{"path":"notes.txt"}"#.into(),
            }];
            writer.message(&call).unwrap();
            let mut result = message(Role::Tool, tool_result(turn));
            result.tool_call_id = Some(format!("call_{turn}"));
            writer.message(&result).unwrap();
            writer
                .message(&message(Role::Assistant, format!("Done with turn {turn}.")))
                .unwrap();
        }
    }

    /// The state directory the child uses: a copy of the template.
    fn restore_session(&self) {
        let state = self.path("state");
        let _ = std::fs::remove_dir_all(&state);
        copy_dir(&self.path("template"), &state);
    }

    /// The state directory becomes the template (after a warm-up turn compacted it).
    fn keep_as_template(&self) {
        let template = self.path("template");
        std::fs::remove_dir_all(&template).unwrap();
        copy_dir(&self.path("state"), &template);
    }

    // The child is reaped by `wait4` (for its rusage), not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    fn once(&self, extra_config: &str) -> Sample {
        self.restore_session();
        // A mock of its own per sample: the requests it records (up to 10 MiB each) must not
        // pile up in this process, whose memory a forked child would count as its own.
        let mock = MockLlm::start().unwrap();
        write_config(&self.path("home/config.toml"), &mock, extra_config);
        mock.enqueue_all([
            Reply::tool_calls(&[("c1", "read_file", r#"{"path":"notes.txt"}"#)], 1),
            Reply::text(&["Read it."]),
        ]);
        // A summary request, should compaction need one.
        mock.enqueue_tool_free(Reply::text(&[
            "Earlier turns read notes.txt, one per turn.",
        ]));
        let seen = mock.requests().len();
        let out = std::fs::File::create(self.path("stdout")).unwrap();
        let err = std::fs::File::create(self.path("stderr")).unwrap();
        let start = std::time::Instant::now();
        let child = Command::new(env!("CARGO_BIN_EXE_reasonix"))
            .args(["run", "-c", "--yolo", "--dir"])
            .arg(&self.workspace)
            .arg("Read notes.txt once more")
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
        let (status, usage, peak_kib) = wait4_with_peak_rss(child.id());
        let show = |p: &str| std::fs::read_to_string(self.path(p)).unwrap_or_default();
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "reasonix run -c failed (status {status}):\n{}\n{}",
            show("stdout"),
            show("stderr")
        );
        let requests = mock.requests();
        assert_eq!(mock.pending(), 0, "{}", show("stderr"));
        // The turn's first request offers tools (a summary request before it does not).
        let first = requests[seen..]
            .iter()
            .find(|r| r.body.contains("\"tools\""))
            .unwrap();
        Sample {
            cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
            max_rss_kib: peak_kib,
            first_request: first.at.duration_since(start),
            request_bytes: first.body.len(),
        }
    }
}

fn medians(samples: &[Sample]) -> (Duration, Duration, f64, usize) {
    let pick = |f: &dyn Fn(&Sample) -> Duration| {
        let mut v: Vec<Duration> = samples.iter().map(f).collect();
        v.sort();
        median(&v)
    };
    let mut rss: Vec<u64> = samples.iter().map(|s| s.max_rss_kib).collect();
    rss.sort();
    let mut bytes: Vec<usize> = samples.iter().map(|s| s.request_bytes).collect();
    bytes.sort();
    (
        pick(&|s| s.cpu),
        pick(&|s| s.first_request),
        rss[rss.len() / 2] as f64 / 1024.0,
        bytes[bytes.len() / 2],
    )
}

/// The user's config: the mock as the one provider, `extra` appended to its entry.
fn write_config(path: &std::path::Path, mock: &MockLlm, extra: &str) {
    std::fs::write(
        path,
        format!(
            "default_model = \"mock\"\n[[providers]]\nname = \"mock\"\nkind = \"openai\"\n\
             base_url = \"{}\"\nmodel = \"mock-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n{extra}",
            mock.base_url()
        ),
    )
    .unwrap();
}

/// Turns measured per interactive session, after two warm-up turns.
const INTERACTIVE_TURNS: usize = 10;

/// One interactive session (in a pseudo-terminal) that resumed the template session with `-c`,
/// loaded once: the CPU per turn of its threads over [`INTERACTIVE_TURNS`] turns, its RSS after
/// them (MiB) and the size of its last request (bytes).
fn interactive(bench: &Bench, extra_config: &str) -> (Duration, f64, usize) {
    let home = bench.path("tui-home");
    let _ = std::fs::remove_dir_all(&home);
    copy_dir(&bench.path("template"), &home);
    std::fs::create_dir_all(home.join("user")).unwrap();
    std::fs::write(home.join(".env"), "MOCK_LLM_KEY=sk-bench\n").unwrap();
    let mock = MockLlm::start().unwrap();
    write_config(&home.join("config.toml"), &mock, extra_config);
    for _ in 0..4 {
        mock.enqueue_tool_free(Reply::text(&[
            "Earlier turns read notes.txt, one per turn.",
        ]));
    }
    let term = Term::spawn(&home, &bench.workspace, &bench.path("cache"), &["-c"]);
    term.wait(|s| s.contains("resumed"));
    let turn = |i: usize| {
        mock.enqueue_all([
            Reply::tool_calls(&[("c1", "read_file", r#"{"path":"notes.txt"}"#)], 1),
            Reply::text(&[&format!("Read it, turn {i}.")]),
        ]);
        term.send("Read notes.txt once more\r");
        term.wait(|s| s.contains(&format!("Read it, turn {i}.")));
    };
    turn(0);
    turn(1);
    let before = term.cpu_ns();
    for i in 2..2 + INTERACTIVE_TURNS {
        turn(i);
    }
    let per_turn = Duration::from_nanos((term.cpu_ns() - before) / INTERACTIVE_TURNS as u64);
    let rss = term.rss_kib() as f64 / 1024.0;
    let last = mock
        .requests()
        .iter()
        .rev()
        .find(|r| r.body.contains("\"tools\""))
        .map_or(0, |r| r.body.len());
    term.quit();
    (per_turn, rss, last)
}

fn main() {
    let bench = Bench::new();
    // Appended to the `[[providers]]` entry.
    let variants = [
        ("no compaction (no window)", ""),
        ("compaction, 200K window", "context_window = 200000\n"),
    ];
    // Warm-up: compiles the built-ins into the artifact cache.
    bench.write_session(1);
    bench.once("");
    println!(
        "| variant | session before the turn | CPU of the turn's process ms | start → first request ms | first request KiB | peak RSS MiB |"
    );
    println!("|---|---|---|---|---|---|");
    for (label, extra) in variants {
        let mut per_turn_cpu = Vec::new();
        for turns in [10usize, 100, 1000, 2500] {
            bench.write_session(turns);
            if !extra.is_empty() {
                // Compacts the session when it is past the window; measured from there on.
                bench.once(extra);
                bench.keep_as_template();
            }
            let mut samples = Vec::with_capacity(RUNS);
            for _ in 0..RUNS {
                // Each run starts from the same session (a run appends to it).
                samples.push(bench.once(extra));
            }
            let (cpu, first, rss, bytes) = medians(&samples);
            per_turn_cpu.push((turns, cpu));
            println!(
                "| {label} | {turns} turns ({} messages) | {} | {} | {:.0} | {rss:.1} |",
                turns * 4,
                ms(cpu),
                ms(first),
                bytes as f64 / 1024.0
            );
        }
        if let (Some((_, small)), Some((_, large))) = (per_turn_cpu.first(), per_turn_cpu.get(2)) {
            println!(
                "| {label} | 1,000 vs 10 turns | CPU × {:.2} | | | |",
                large.as_secs_f64() / small.as_secs_f64()
            );
        }
    }
    println!();
    println!(
        "| variant | session resumed (loaded once) | CPU per turn ms ({INTERACTIVE_TURNS} turns) | RSS after MiB | last request KiB |"
    );
    println!("|---|---|---|---|---|");
    for (label, extra) in variants {
        for turns in [10usize, 100, 1000] {
            bench.write_session(turns);
            let (cpu, rss, bytes) = interactive(&bench, extra);
            println!(
                "| {label} | {turns} turns | {} | {rss:.1} | {:.0} |",
                ms(cpu),
                bytes as f64 / 1024.0
            );
        }
    }
}
