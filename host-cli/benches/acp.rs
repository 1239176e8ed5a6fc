//! `reasonix acp` latencies (docs/PERFORMANCE.md, "ACP"): a raw JSON-lines client (no SDK, so
//! only the agent is measured) spawns the agent and times, per round,
//! - spawn → the `initialize` answer;
//! - `session/new` sent → its answer (configuration, registry, runtime opened in the folder);
//! - `session/prompt` sent → the first `session/update` of the answer (the mock LLM answers at
//!   once, on loopback), and → the prompt's answer (`end_turn`).
//!
//! Also the same prompt through `reasonix run --output-format events` (a fresh process each
//! time) for scale.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use common::{median, ms};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 20;

fn command(bin: &str, home: &Path, cache: &Path, ws: &Path) -> Command {
    let mut c = Command::new(bin);
    c.env("REASONIX_HOME", home)
        .env("HOME", home)
        .env("REASONIX_CACHE_HOME", cache)
        .env("REASONIX_STATE_HOME", home.join("state"))
        .env_remove("REASONIX_LOG")
        .current_dir(ws);
    c
}

struct Round {
    initialize: Duration,
    new_session: Duration,
    first_update: Duration,
    prompt_done: Duration,
}

fn round(bin: &str, home: &Path, cache: &Path, ws: &Path, mock: &MockLlm) -> Round {
    mock.enqueue(Reply::text(&["hello ", "from the mock"]));
    let start = Instant::now();
    let mut child = command(bin, home, cache, ws)
        .arg("acp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let mut until = |pred: &dyn Fn(&Value) -> bool| -> (Value, Instant) {
        loop {
            let line = lines.next().unwrap().unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if pred(&v) {
                return (v, Instant::now());
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}),
    );
    let (_, initialized) = until(&|v| v["id"] == 1);
    let sent_new = Instant::now();
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": ws, "mcpServers": []}}),
    );
    let (answer, opened) = until(&|v| v["id"] == 2);
    let sid = answer["result"]["sessionId"].as_str().unwrap().to_string();
    let sent_prompt = Instant::now();
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}}),
    );
    let (_, first) = until(&|v| {
        v["method"] == "session/update"
            && v["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    });
    let (done, finished) = until(&|v| v["id"] == 3);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    // End of input: the agent ends its sessions and exits.
    drop(stdin);
    child.wait().unwrap();
    Round {
        initialize: initialized - start,
        new_session: opened - sent_new,
        first_update: first - sent_prompt,
        prompt_done: finished - sent_prompt,
    }
}

fn main() {
    let bin = env!("CARGO_BIN_EXE_reasonix");
    let root = tempfile::tempdir().unwrap();
    let mock = MockLlm::start().unwrap();
    let home = root.path().join("home");
    let cache = root.path().join("cache");
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
    // Warm-up: the built-ins' artifacts into the cache.
    round(bin, &home, &cache, &ws, &mock);
    let mut rounds = Vec::new();
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        rounds.push(round(bin, &home, &cache, &ws, &mock));
        mock.enqueue(Reply::text(&["hello ", "from the mock"]));
        let start = Instant::now();
        let out = command(bin, &home, &cache, &ws)
            .args(["run", "--output-format", "events", "hi"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        runs.push(start.elapsed());
    }
    let row = |label: &str, mut v: Vec<Duration>| {
        v.sort();
        println!("| {label} | {} | {} |", ms(median(&v)), ms(v[v.len() - 1]));
    };
    println!("| `reasonix acp`, {RUNS} rounds | median ms | max ms |");
    println!("|---|---:|---:|");
    row(
        "spawn → `initialize` answered",
        rounds.iter().map(|r| r.initialize).collect(),
    );
    row(
        "`session/new` → answered (runtime opened)",
        rounds.iter().map(|r| r.new_session).collect(),
    );
    row(
        "`session/prompt` → first `session/update` of the answer",
        rounds.iter().map(|r| r.first_update).collect(),
    );
    row(
        "`session/prompt` → `end_turn`",
        rounds.iter().map(|r| r.prompt_done).collect(),
    );
    row(
        "for scale: `reasonix run --output-format events` (whole process)",
        runs,
    );
}
