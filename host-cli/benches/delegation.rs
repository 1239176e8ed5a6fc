//! What a sub-agent costs (docs/PERFORMANCE.md, "Sub-agents"): one scripted task — read a file
//! and say what it holds — done directly, and through one `explore` child, by a headless
//! `reasonix run` against the mock LLM server (loopback, no delays). Per run: wall time, peak
//! RSS of the process, the bytes and (estimated) tokens of every prompt sent, and the spawn
//! cost: from the request that asked for the child's work to the child's first request
//! (directly: from the request that asked for the read to the next request).
//!
//! The two ways alternate run by run, so a drift of the machine's load affects both alike.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use common::{median, ms, wait4_with_peak_rss};
use reasonix_mock_llm::{MockLlm, Reply};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 20;
/// What the built-in `explore` profile's system prompt starts with: its requests carry it.
const EXPLORE: &str = "You are an explore sub-agent of Reasonix";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    Direct,
    Explore,
}

#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    peak_rss_kib: u64,
    prompt_bytes: usize,
    input_tokens: u64,
    spawn: Duration,
}

struct Bench {
    root: tempfile::TempDir,
    mock: MockLlm,
}

impl Bench {
    fn new() -> Bench {
        let root = tempfile::tempdir().unwrap();
        let mock = MockLlm::start().unwrap();
        for dir in ["home", "project", "workspace", "cache", "state"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        std::fs::write(root.path().join("home/.env"), "MOCK_LLM_KEY=sk-bench\n").unwrap();
        let config = format!(
            "default_model = \"mock\"\n[[providers]]\nname = \"mock\"\nkind = \"openai\"\n\
             base_url = \"{}\"\nmodel = \"mock-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n",
            mock.base_url()
        );
        std::fs::write(root.path().join("home/config.toml"), config).unwrap();
        std::fs::write(
            root.path().join("workspace/notes.txt"),
            "The release is on Friday; the changelog needs one more entry.\n",
        )
        .unwrap();
        Bench { root, mock }
    }

    fn path(&self, p: &str) -> std::path::PathBuf {
        self.root.path().join(p)
    }

    fn script(&self, way: Way) {
        let read = Reply::tool_calls(&[("r1", "read_file", r#"{"path":"notes.txt"}"#)], 1);
        let answer =
            Reply::text(&["notes.txt: the release is on Friday; one changelog entry is missing."]);
        match way {
            Way::Direct => self.mock.enqueue_all([read, answer]),
            Way::Explore => {
                self.mock.enqueue(Reply::tool_calls(
                    &[(
                        "t1",
                        "task",
                        r#"{"profile":"explore","description":"read the notes","prompt":"Read notes.txt and say in one line what it holds."}"#,
                    )],
                    1,
                ));
                self.mock.enqueue_when(EXPLORE, read);
                self.mock.enqueue_when(
                    EXPLORE,
                    Reply::text(&[
                        "It says the release is on Friday and one changelog entry is missing.",
                    ]),
                );
                self.mock.enqueue(answer);
            }
        }
    }

    // The child is reaped by `wait4`, not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    fn once(&self, way: Way) -> Sample {
        self.script(way);
        let seen = self.mock.requests().len();
        let out = std::fs::File::create(self.path("stdout")).unwrap();
        let start = Instant::now();
        let child = Command::new(env!("CARGO_BIN_EXE_reasonix"))
            .args(["run", "--output-format", "json", "--dir"])
            .arg(self.path("workspace"))
            .arg("What do the notes say?")
            .current_dir(self.path("project"))
            .env("REASONIX_HOME", self.path("home"))
            .env("REASONIX_CACHE_HOME", self.path("cache"))
            .env("REASONIX_STATE_HOME", self.path("state"))
            .env_remove("REASONIX_LOG")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (status, _, peak_rss_kib) = wait4_with_peak_rss(child.id());
        let wall = start.elapsed();
        let stdout = std::fs::read_to_string(self.path("stdout")).unwrap_or_default();
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "reasonix run failed: {stdout}"
        );
        let result: serde_json::Value =
            serde_json::from_str(stdout.lines().last().unwrap_or("{}")).unwrap();
        let requests: Vec<_> = self.mock.requests().into_iter().skip(seen).collect();
        let expected = if way == Way::Direct { 2 } else { 4 };
        assert_eq!(requests.len(), expected, "{stdout}");
        assert_eq!(self.mock.pending(), 0);
        Sample {
            wall,
            peak_rss_kib,
            prompt_bytes: requests.iter().map(|r| r.body.len()).sum(),
            input_tokens: result["usage"]["input_tokens"].as_u64().unwrap_or(0),
            spawn: requests[1].at.duration_since(requests[0].at),
        }
    }
}

fn median_of<T: Ord + Copy>(samples: &[Sample], f: impl Fn(&Sample) -> T) -> T {
    let mut v: Vec<T> = samples.iter().map(f).collect();
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let bench = Bench::new();
    // Warm-up: the built-ins compiled into the artifact cache.
    bench.once(Way::Direct);
    bench.once(Way::Explore);
    let mut direct = Vec::new();
    let mut explore = Vec::new();
    for _ in 0..RUNS {
        direct.push(bench.once(Way::Direct));
        explore.push(bench.once(Way::Explore));
    }
    println!("| measurement (median of {RUNS}) | direct | through one explore child | ratio |");
    println!("|---|---|---|---|");
    let row = |name: &str, a: f64, b: f64, unit: &str| {
        println!("| {name} | {a:.2} {unit} | {b:.2} {unit} | {:.2}× |", b / a);
    };
    let wall = |s: &[Sample]| median_of(s, |s| s.wall);
    let spawn = |s: &[Sample]| median_of(s, |s| s.spawn);
    row(
        "wall time of the run",
        wall(&direct).as_secs_f64() * 1e3,
        wall(&explore).as_secs_f64() * 1e3,
        "ms",
    );
    row(
        "request that asks → next request (the child's first)",
        spawn(&direct).as_secs_f64() * 1e3,
        spawn(&explore).as_secs_f64() * 1e3,
        "ms",
    );
    row(
        "peak RSS",
        median_of(&direct, |s| s.peak_rss_kib) as f64 / 1024.0,
        median_of(&explore, |s| s.peak_rss_kib) as f64 / 1024.0,
        "MiB",
    );
    row(
        "prompt bytes sent (all requests)",
        median_of(&direct, |s| s.prompt_bytes) as f64,
        median_of(&explore, |s| s.prompt_bytes) as f64,
        "B",
    );
    row(
        "input tokens (mock's estimate)",
        median_of(&direct, |s| s.input_tokens) as f64,
        median_of(&explore, |s| s.input_tokens) as f64,
        "",
    );
    let mut walls: Vec<Duration> = explore.iter().map(|s| s.wall).collect();
    walls.sort();
    println!(
        "\nexplore runs: wall median {} ms, max {} ms",
        ms(median(&walls)),
        ms(walls[walls.len() - 1])
    );
}
