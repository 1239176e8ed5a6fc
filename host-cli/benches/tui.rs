//! The interactive session in a pseudo-terminal (portable-pty + a vt100 parser, the same way
//! the end-to-end tests drive it), against the mock LLM:
//! - launch to a ready prompt, warm artifact cache;
//! - keystroke-to-frame latency while a 2,000-token answer streams;
//! - resident memory with a 1,000-message session loaded (`-c`), against a new session.
//!
//! - with `REASONIX_BENCH_BASELINE=<path to another build's reasonix>`: launch and keystroke
//!   measurements, for both builds in alternating rounds within this one run (the machines are
//!   noisy; a comparison across runs is not fair).
//!
//! Frame time with a 10,000-line tool result in view is measured in-process by the
//! `tui::bench_frames` test (`cargo test --release -p reasonix --bin reasonix -- --ignored bench_frames --nocapture`).
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_macros)]

mod common;
mod pty;

use common::{median, ms};
use pty::Term;
use reasonix_agent::session::SessionStore;
use reasonix_core::types::{Message, Role};
use reasonix_mock_llm::{MockLlm, Reply};
use std::time::{Duration, Instant};

const LAUNCHES: usize = 20;
const KEYSTROKES: usize = 40;

fn ready(screen: &str) -> bool {
    screen.contains("ctx 0") || screen.contains("ctx ")
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    let cache = dir.path().join("cache");
    for d in [&home, &project, &home.join("user")] {
        std::fs::create_dir_all(d).unwrap();
    }
    let project = project.canonicalize().unwrap();
    let mock = MockLlm::start().unwrap();
    std::fs::write(home.join(".env"), "MOCK_LLM_KEY=k\n").unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "default_model = \"mock\"\n[[providers]]\nname = \"mock\"\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"mock-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n",
            mock.base_url()
        ),
    )
    .unwrap();

    if let Some(baseline) = std::env::var_os("REASONIX_BENCH_BASELINE") {
        compare(
            std::path::Path::new(&baseline),
            &mock,
            &home,
            &project,
            dir.path(),
        );
        return;
    }

    // Warm the artifact cache, then launch to a ready prompt.
    Term::spawn(&home, &project, &cache, &[]).quit();
    let mut launches = Vec::new();
    for _ in 0..LAUNCHES {
        let start = Instant::now();
        let term = Term::spawn(&home, &project, &cache, &[]);
        term.wait(ready);
        launches.push(start.elapsed());
        term.quit();
    }
    launches.sort();

    // Keystrokes while a 2,000-token answer streams (a token every millisecond or so): as
    // shipped, and with the redactor off, whose `frontend.event` pass each streamed piece
    // takes (issue #32 item 6).
    let config = std::fs::read_to_string(home.join("config.toml")).unwrap();
    let (latencies, streaming_still) = keystrokes(&mock, &home, &project, &cache);
    std::fs::write(
        home.join("config.toml"),
        format!("{config}[plugin.redact]\nenabled = false\n"),
    )
    .unwrap();
    let (unredacted, _) = keystrokes(&mock, &home, &project, &cache);
    std::fs::write(home.join("config.toml"), &config).unwrap();

    // RSS: a new session against one with 1,000 messages.
    let fresh = Term::spawn(&home, &project, &cache, &[]);
    fresh.wait(ready);
    std::thread::sleep(Duration::from_millis(200));
    let rss_fresh = fresh.rss_kib();
    fresh.quit();
    let store = SessionStore::new(&home, &project);
    let mut writer = store.create("mock", "mock-model").unwrap();
    for i in 0..1000 {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        let content = format!("message {i}: {}", "lorem ipsum dolor sit amet ".repeat(8));
        writer.message(&Message::text(role, content)).unwrap();
    }
    drop(writer);
    let loaded = Term::spawn(&home, &project, &cache, &["-c"]);
    loaded.wait(|s| s.contains("resumed"));
    std::thread::sleep(Duration::from_millis(200));
    let rss_loaded = loaded.rss_kib();
    loaded.quit();

    println!("| measurement | median | p90 |");
    println!("|---|---:|---:|");
    let p90 = |v: &[Duration]| v[(v.len() * 9 / 10).min(v.len() - 1)];
    println!(
        "| launch to a ready prompt, warm (ms, {LAUNCHES} runs) | {} | {} |",
        ms(median(&launches)),
        ms(p90(&launches))
    );
    println!(
        "| keystroke to frame while a 2,000-token answer streams (ms, {KEYSTROKES} keys; stream still running at the end: {streaming_still}) | {} | {} |",
        ms(median(&latencies)),
        ms(p90(&latencies))
    );
    println!(
        "| the same with the redactor off (ms) | {} | {} |",
        ms(median(&unredacted)),
        ms(p90(&unredacted))
    );
    println!(
        "| RSS, new session (MiB) | {:.1} | |",
        rss_fresh as f64 / 1024.0
    );
    println!(
        "| RSS, 1,000-message session loaded with -c (MiB) | {:.1} | |",
        rss_loaded as f64 / 1024.0
    );
}

/// Rounds of the before/after comparison; each round runs both builds, in alternating order.
const ROUNDS: usize = 8;

/// Keystroke-to-frame latencies of this build against `baseline`, in alternating rounds.
fn compare(
    baseline: &std::path::Path,
    mock: &MockLlm,
    home: &std::path::Path,
    project: &std::path::Path,
    dir: &std::path::Path,
) {
    let this = std::path::PathBuf::from(env!("CARGO_BIN_EXE_reasonix"));
    // Each build keeps its own artifact cache, warmed by one launch to a ready prompt.
    let builds = [("baseline", baseline.to_path_buf()), ("this build", this)];
    let caches: Vec<_> = builds
        .iter()
        .enumerate()
        .map(|(i, (_, bin))| {
            let cache = dir.join(format!("cache-{i}"));
            let term = Term::spawn_bin(bin, home, project, &cache, &[]);
            term.wait(ready);
            term.quit();
            cache
        })
        .collect();
    // Launch to a ready prompt, alternating which build goes first.
    let mut launches: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for round in 0..LAUNCHES {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            let start = Instant::now();
            let term = Term::spawn_bin(&builds[i].1, home, project, &caches[i], &[]);
            term.wait(ready);
            launches[i].push(start.elapsed());
            term.quit();
        }
    }
    let mut all: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    let mut rounds: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for round in 0..ROUNDS {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            let (latencies, _) = keystrokes_with(&builds[i].1, mock, home, project, &caches[i]);
            rounds[i].push(median(&latencies));
            all[i].extend(latencies);
        }
    }
    println!("baseline: {}", baseline.display());
    println!("| build | launch to a ready prompt, warm, median of {LAUNCHES} | p90 |");
    println!("|---|---:|---:|");
    for (i, (name, _)) in builds.iter().enumerate() {
        launches[i].sort();
        let p90 = launches[i][(launches[i].len() * 9 / 10).min(launches[i].len() - 1)];
        println!("| {name} | {} | {} |", ms(median(&launches[i])), ms(p90));
    }
    println!(
        "| build | keystroke to frame, median of {} keys | p90 | round medians (ms) |",
        ROUNDS * KEYSTROKES
    );
    println!("|---|---:|---:|---|");
    for (i, (name, _)) in builds.iter().enumerate() {
        all[i].sort();
        let p90 = all[i][(all[i].len() * 9 / 10).min(all[i].len() - 1)];
        let shown: Vec<String> = rounds[i].iter().map(|d| ms(*d)).collect();
        println!(
            "| {name} | {} | {} | {} |",
            ms(median(&all[i])),
            ms(p90),
            shown.join(", ")
        );
    }
}

/// Keystroke-to-frame latencies (sorted) while a 2,000-token answer streams, and whether it
/// still streamed when the last key was drawn.
fn keystrokes(
    mock: &MockLlm,
    home: &std::path::Path,
    project: &std::path::Path,
    cache: &std::path::Path,
) -> (Vec<Duration>, bool) {
    let this = std::path::PathBuf::from(env!("CARGO_BIN_EXE_reasonix"));
    keystrokes_with(&this, mock, home, project, cache)
}

/// [`keystrokes`] with the given build of `reasonix`.
fn keystrokes_with(
    binary: &std::path::Path,
    mock: &MockLlm,
    home: &std::path::Path,
    project: &std::path::Path,
    cache: &std::path::Path,
) -> (Vec<Duration>, bool) {
    let tokens: Vec<String> = (0..2000).map(|i| format!("tok{i} ")).collect();
    let chunks: Vec<&str> = tokens.iter().map(String::as_str).collect();
    mock.enqueue(Reply::text(&chunks).with_chunk_delay_ms(1));
    let term = Term::spawn_bin(binary, home, project, cache, &[]);
    term.wait(ready);
    term.send("stream please\r");
    term.wait(|s| s.contains("tok10 "));
    let mut latencies = Vec::new();
    for i in 1..=KEYSTROKES {
        let typed = "q".repeat(i);
        let start = Instant::now();
        term.send("q");
        term.wait(|s| s.contains(&typed));
        latencies.push(start.elapsed());
        std::thread::sleep(Duration::from_millis(10));
    }
    let streaming_still = !term
        .parser
        .lock()
        .unwrap()
        .screen()
        .contents()
        .contains("tok1999");
    latencies.sort();
    term.quit();
    (latencies, streaming_still)
}
