//! A 1,000-turn session at a 64k window, lived turn by turn (issue #24 §3): how often it
//! compacts, what the transcript holds afterwards, and how long resuming it takes next to a
//! 1,000-turn session that never compacted.
//!
//! Every turn is a real `reasonix run -c` child against the mock LLM server: the model reads
//! `data.txt` (4 KB) and answers; a compaction's summary request gets a short digest. Two
//! scripts: the file is the same every turn (issue #24's script: re-reads of an unchanged file
//! are answered with a line), or it changes every turn (every read is new, the worst case).
//! Then `run -c` is timed (start → first request, from the mock's clock; CPU from `wait4`) on a
//! copy of each grown session, 7 samples, and on a 1,000-turn session of the same turns written
//! with the session API and never compacted (a window far past its size).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use common::{copy_dir, median, ms, timeval, wait4};
use reasonix_agent::session::SessionStore;
use reasonix_core::types::{Message, Role, ToolCall};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const TURNS: usize = 1000;
const WINDOW: &str = "context_window = 64000\n";
const RUNS: usize = 7;

/// 4 KB of a file; the same text every turn unless `turn` is given.
fn data(turn: Option<usize>) -> String {
    let tag = turn.unwrap_or(0);
    (0..64)
        .map(|i| format!("row {i:02}: {tag:04} {}\n", "x".repeat(50)))
        .collect()
}

struct Session {
    root: tempfile::TempDir,
    workspace: PathBuf,
}

/// What one child did.
struct Ran {
    stdout: String,
    cpu: Duration,
    first_request: Duration,
}

impl Session {
    fn new() -> Session {
        let root = tempfile::tempdir().unwrap();
        for dir in ["home", "project", "workspace", "state"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let workspace = std::fs::canonicalize(root.path().join("workspace")).unwrap();
        std::fs::write(root.path().join("home/.env"), "MOCK_LLM_KEY=sk-bench\n").unwrap();
        Session { root, workspace }
    }

    fn path(&self, p: &str) -> PathBuf {
        self.root.path().join(p)
    }

    /// One turn: `reasonix run [-c]` with the mock (a fresh one, so its recorded requests do
    /// not pile up here) scripted to read `data.txt` and answer.
    // The child is reaped by `wait4` (for its rusage), not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    fn turn(&self, turn: usize, window: &str, cache: &Path) -> Ran {
        let mock = MockLlm::start().unwrap();
        std::fs::write(
            self.path("home/config.toml"),
            format!(
                "default_model = \"mock\"\n[[providers]]\nname = \"mock\"\nkind = \"openai\"\n\
                 base_url = \"{}\"\nmodel = \"mock-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n{window}",
                mock.base_url()
            ),
        )
        .unwrap();
        mock.enqueue_all([
            Reply::tool_calls(&[("c1", "read_file", r#"{"path":"data.txt"}"#)], 1),
            Reply::text(&[&format!("Turn {turn}: the rows are as expected.")]),
        ]);
        for _ in 0..2 {
            mock.enqueue_tool_free(Reply::text(&[&format!(
                "Digest {turn}: earlier turns read data.txt; its rows were as expected."
            )]));
        }
        let out = std::fs::File::create(self.path("stdout")).unwrap();
        let err = std::fs::File::create(self.path("stderr")).unwrap();
        let mut args = vec!["run", "--yolo", "--output-format", "stream-json"];
        if turn > 0 {
            args.push("-c");
        }
        let start = std::time::Instant::now();
        let child = Command::new(env!("CARGO_BIN_EXE_reasonix"))
            .args(&args)
            .arg("--dir")
            .arg(&self.workspace)
            .arg(format!("Turn {turn}: check data.txt"))
            .current_dir(self.path("project"))
            .env("REASONIX_HOME", self.path("home"))
            .env("REASONIX_CACHE_HOME", cache)
            .env("REASONIX_STATE_HOME", self.path("state"))
            .env_remove("REASONIX_LOG")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap();
        let (status, usage) = wait4(child.id());
        let show = |p: &str| std::fs::read_to_string(self.path(p)).unwrap_or_default();
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "turn {turn} failed (status {status}):\n{}",
            show("stderr")
        );
        let requests = mock.requests();
        let first = requests
            .iter()
            .find(|r| r.body.contains("\"tools\""))
            .unwrap();
        Ran {
            stdout: show("stdout"),
            cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
            first_request: first.at.duration_since(start),
        }
    }

    /// The transcript's size and the bytes of its compaction records.
    fn transcript(&self) -> (usize, usize) {
        let mut total = 0;
        let mut records = 0;
        for entry in walk(&self.path("state")) {
            if entry.extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read_to_string(&entry).unwrap();
                total += text.len();
                records += text
                    .lines()
                    .filter(|l| l.starts_with("{\"type\":\"compaction"))
                    .map(str::len)
                    .sum::<usize>();
            }
        }
        (total, records)
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The compactions a turn's stream-json output reports, by tier.
fn compactions(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "compaction")
        .map(|v| v["tier"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// `run -c` timed `RUNS` times on copies of `session`'s state: start → first request and CPU,
/// medians.
fn resume(session: &Session, window: &str, cache: &Path) -> (Duration, Duration) {
    let saved = session.path("saved");
    let _ = std::fs::remove_dir_all(&saved);
    copy_dir(&session.path("state"), &saved);
    let (mut first, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let state = session.path("state");
        std::fs::remove_dir_all(&state).unwrap();
        copy_dir(&saved, &state);
        let ran = session.turn(TURNS, window, cache);
        first.push(ran.first_request);
        cpu.push(ran.cpu);
    }
    first.sort();
    cpu.sort();
    (median(&first), median(&cpu))
}

/// A never-compacted session of [`TURNS`] turns like the lived ones (the same messages), written
/// with the session API.
fn written_session(workspace: &Path, state: &Path) {
    let store = SessionStore::new(state, workspace);
    let mut writer = store.create("mock", "mock-model").unwrap();
    let text = |role: Role, content: String| Message {
        role,
        content,
        reasoning: None,
        reasoning_state: None,
        tool_calls: vec![],
        tool_call_id: None,
        raw_content: None,
        images: Vec::new(),
    };
    for turn in 0..TURNS {
        writer
            .message(&text(Role::User, format!("Turn {turn}: check data.txt")))
            .unwrap();
        let mut call = text(Role::Assistant, String::new());
        call.tool_calls = vec![ToolCall {
            id: format!("c1-{turn}"),
            name: "read_file".into(),
            arguments: r#"{"path":"data.txt"}"#.into(),
        }];
        writer.message(&call).unwrap();
        let mut result = text(Role::Tool, data(Some(turn)));
        result.tool_call_id = Some(format!("c1-{turn}"));
        writer.message(&result).unwrap();
        writer
            .message(&text(
                Role::Assistant,
                format!("Turn {turn}: the rows are as expected."),
            ))
            .unwrap();
    }
}

fn main() {
    let cache = tempfile::tempdir().unwrap();
    println!(
        "| session | compactions (snip / prune / summary) | transcript KiB | of it compaction records KiB | run -c: start → first request ms | run -c: CPU ms |"
    );
    println!("|---|---|---:|---:|---:|---:|");
    let mut resumed = Vec::new();
    for (label, changing) in [
        ("1,000 turns lived at 64k, the same file each turn", false),
        ("1,000 turns lived at 64k, the file changed each turn", true),
    ] {
        let session = Session::new();
        let mut tiers: Vec<String> = Vec::new();
        for turn in 0..TURNS {
            let turn_data = data(changing.then_some(turn));
            std::fs::write(session.workspace.join("data.txt"), turn_data).unwrap();
            let ran = session.turn(turn, WINDOW, cache.path());
            tiers.extend(compactions(&ran.stdout));
        }
        let count = |tier: &str| tiers.iter().filter(|t| *t == tier).count();
        let (total, records) = session.transcript();
        let (first, cpu) = resume(&session, WINDOW, cache.path());
        resumed.push(first);
        println!(
            "| {label} | {} ({} / {} / {}) | {:.0} | {:.0} | {} | {} |",
            tiers.len(),
            count("snip"),
            count("prune"),
            count("summary"),
            total as f64 / 1024.0,
            records as f64 / 1024.0,
            ms(first),
            ms(cpu)
        );
    }
    let session = Session::new();
    written_session(&session.workspace, &session.path("state"));
    std::fs::write(session.workspace.join("data.txt"), data(None)).unwrap();
    let (total, _) = session.transcript();
    // A window far past the session's size: nothing is compacted (without one, an assumed
    // 32k window would compact it on resume).
    let (first, cpu) = resume(&session, "context_window = 100000000\n", cache.path());
    println!(
        "| 1,000 turns never compacted (a 100M window) | 0 | {:.0} | 0 | {} | {} |",
        total as f64 / 1024.0,
        ms(first),
        ms(cpu)
    );
    for (label, lived) in ["same file", "changing file"].iter().zip(&resumed) {
        println!(
            "resume of the lived session ({label}) vs the never-compacted one: {:.2}×",
            lived.as_secs_f64() / first.as_secs_f64()
        );
    }
}
