//! History-search latency over 1,000 saved sessions (ignored; run it with `--release`):
//!
//! `cargo test -p reasonix-runtime --release --lib history::bench -- --ignored --nocapture`

use super::*;
use reasonix_agent::session::SessionStore;
use reasonix_core::types::{Message, Role};
use std::time::Instant;

const SESSIONS: usize = 1_000;
const MESSAGES: usize = 20;
const WORDS: usize = 60;

/// A deterministic pseudo-random vocabulary walk (no extra crate).
struct Words(u64);

impl Words {
    fn next(&mut self, vocabulary: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        // Skewed like text: small numbers (common words) far more often.
        let r = (self.0 % 1_000_000) as f64 / 1_000_000.0;
        ((r * r * r) * vocabulary as f64) as usize
    }
}

fn context(workspace: &Path) -> ToolContext {
    ToolContext {
        call_id: "bench".into(),
        workspace: workspace.to_path_buf(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    }
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn history_search_over_1000_sessions() {
    let state = tempfile::tempdir().unwrap();
    let ws = Path::new("/bench/workspace");
    let store = SessionStore::new(state.path(), ws);
    let vocabulary: Vec<String> = (0..5_000).map(|i| format!("w{i}")).collect();
    let mut words = Words(0x9e37_79b9_7f4a_7c15);
    let mut bytes = 0u64;
    for s in 0..SESSIONS {
        let mut writer = store.create("p", "m").unwrap();
        for m in 0..MESSAGES {
            let mut text: Vec<&str> = (0..WORDS)
                .map(|_| vocabulary[words.next(vocabulary.len())].as_str())
                .collect();
            let marker = format!("decision{s}x{m}");
            if m == 7 {
                text.push(&marker);
            }
            let role = if m % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            };
            writer
                .message(&Message::text(role, text.join(" ")))
                .unwrap();
        }
        bytes += std::fs::metadata(writer.path()).unwrap().len();
    }
    let call = |tool: &HistoryTool, query: &str| {
        let args = format!(r#"{{"operation":"search","query":"{query}"}}"#);
        tool.invoke(&args, &context(ws)).unwrap()
    };

    let tool = HistoryTool::new(state.path());
    let t = Instant::now();
    let out = call(&tool, "decision512x7 w42");
    let cold = t.elapsed();
    assert!(out.contains("decision512x7"), "{out}");

    let t = Instant::now();
    let rounds = 20;
    for i in 0..rounds {
        let out = call(&tool, &format!("decision{}x7 w3 w17", i * 37));
        assert!(out.contains(&format!("decision{}x7", i * 37)), "{out}");
    }
    let hot = t.elapsed() / rounds;

    let restarted = HistoryTool::new(state.path());
    let t = Instant::now();
    call(&restarted, "decision900x7");
    let warm = t.elapsed();

    // One session grows by a message: only that is read.
    let id = store.list().unwrap()[0].id.clone();
    let (mut writer, _) = store.open(&id).unwrap();
    writer
        .message(&Message::text(Role::User, "appended zanzibar remark"))
        .unwrap();
    drop(writer);
    let t = Instant::now();
    let out = call(&tool, "zanzibar");
    let appended = t.elapsed();
    assert!(out.contains("zanzibar"), "{out}");

    let index_bytes: u64 = std::fs::read_dir(state.path().join("index/history"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    println!(
        "history over {SESSIONS} sessions × {MESSAGES} messages ({:.1} MiB of transcripts, index {:.1} MiB):\n  \
         first call (builds the index): {cold:.2?}\n  \
         first call of a new process (stored index, nothing new): {warm:.2?}\n  \
         search, index current (mean of {rounds}): {hot:.2?}\n  \
         search after one session grew by a message: {appended:.2?}",
        bytes as f64 / 1_048_576.0,
        index_bytes as f64 / 1_048_576.0,
    );
}
