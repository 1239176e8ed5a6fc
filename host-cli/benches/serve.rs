//! `reasonix serve` costs (docs/PERFORMANCE.md, "reasonix serve"): resident memory idle and
//! with 10 idle sessions open, and the latency of an event over SSE — a prompt posted → the
//! first `text_delta` read by the client — against the mock LLM on loopback, beside the same
//! answer in the interactive session: Enter → its first word on the terminal's screen.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;
mod pty;

use common::{median, ms};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-token-0123456789abcdef";
const RUNS: usize = 20;

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let bin = env!("CARGO_BIN_EXE_reasonix");
    let root = tempfile::tempdir().unwrap();
    let mock = MockLlm::start().unwrap();
    let home = root.path().join("home");
    let ws = root.path().join("workspace");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&ws).unwrap();
    let ws = ws.canonicalize().unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "default_model = \"mock\"\n[[providers]]\nname = \"mock\"\nkind = \"openai\"\n\
             base_url = \"{}\"\nmodel = \"mock-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n",
            mock.base_url()
        ),
    )
    .unwrap();
    std::fs::write(home.join(".env"), "MOCK_LLM_KEY=sk-bench\n").unwrap();
    let mut child = Command::new(bin)
        .args(["serve", "--listen", "127.0.0.1:0", "--token", TOKEN])
        .env("REASONIX_HOME", &home)
        .env("HOME", &home)
        .env("REASONIX_CACHE_HOME", root.path().join("cache"))
        .env("REASONIX_STATE_HOME", home.join("state"))
        .current_dir(&ws)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .strip_prefix("reasonix serve: listening on ")
        .unwrap()
        .to_string();
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let idle = rss_kib(child.id());
    let open = || -> String {
        let r = http
            .post(format!("{base}/sessions"))
            .bearer_auth(TOKEN)
            .body(json!({ "cwd": ws }).to_string())
            .send()
            .unwrap();
        assert_eq!(r.status(), 201);
        r.json::<Value>().unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let first = open();
    std::thread::sleep(Duration::from_millis(300));
    let one = rss_kib(child.id());
    for _ in 0..9 {
        open();
    }
    std::thread::sleep(Duration::from_millis(300));
    let ten = rss_kib(child.id());

    // SSE latency: prompt posted → the first text_delta read.
    let mut latencies = Vec::new();
    let mut last = 0u64;
    for _ in 0..RUNS {
        mock.enqueue(Reply::text(&["hello ", "there"]));
        let events = http
            .get(format!("{base}/sessions/{first}/events"))
            .bearer_auth(TOKEN)
            .header("Last-Event-ID", last.to_string())
            .send()
            .unwrap();
        let mut lines = BufReader::new(events).lines();
        let sent = Instant::now();
        let posted = http
            .post(format!("{base}/sessions/{first}/ops"))
            .bearer_auth(TOKEN)
            .body(json!({"type": "prompt", "text": "hi"}).to_string())
            .send()
            .unwrap();
        assert_eq!(posted.status(), 202);
        let mut first_delta = None;
        while let Some(Ok(line)) = lines.next() {
            if let Some(id) = line.strip_prefix("id: ") {
                last = id.parse().unwrap();
            }
            if line.starts_with("event: text_delta") && first_delta.is_none() {
                first_delta = Some(sent.elapsed());
            }
            if line.starts_with("event: turn_finished") {
                // Read past its data line so `last` is right for the next round.
                let _ = lines.next();
                break;
            }
        }
        latencies.push(first_delta.unwrap());
    }
    latencies.sort();
    let _ = child.kill();
    let _ = child.wait();

    // The same answer in the interactive session: Enter → its first word drawn.
    let term = pty::Term::spawn(&home, &ws, &root.path().join("cache"), &[]);
    term.wait(|screen| screen.contains("ctx "));
    let mut drawn = Vec::new();
    for round in 0..RUNS {
        let word = format!("hello{round:02}");
        mock.enqueue(Reply::text(&[&format!("{word} "), "there"]));
        let sent = Instant::now();
        term.send("hi\r");
        term.wait(|screen| screen.contains(&word));
        drawn.push(sent.elapsed());
        // The turn's end: the status line is back to idle before the next prompt.
        term.wait(|screen| screen.contains(&format!("{word} there")));
        std::thread::sleep(Duration::from_millis(50));
    }
    drawn.sort();
    term.quit();
    println!("| `reasonix serve` | value |");
    println!("|---|---:|");
    println!(
        "| RSS idle (no session) | {:.1} MiB |",
        idle as f64 / 1024.0
    );
    println!(
        "| RSS with 1 idle session | {:.1} MiB |",
        one as f64 / 1024.0
    );
    println!(
        "| RSS with 10 idle sessions | {:.1} MiB |",
        ten as f64 / 1024.0
    );
    println!(
        "| per further idle session | {:.2} MiB |",
        (ten as f64 - one as f64) / 9.0 / 1024.0
    );
    println!(
        "| prompt posted → first `text_delta` over SSE (median of {RUNS}) | {} ms (max {} ms) |",
        ms(median(&latencies)),
        ms(latencies[latencies.len() - 1])
    );
    println!(
        "| for comparison, the interactive session: Enter → the first word on screen (median of {RUNS}) | {} ms (max {} ms) |",
        ms(median(&drawn)),
        ms(drawn[drawn.len() - 1])
    );
}
