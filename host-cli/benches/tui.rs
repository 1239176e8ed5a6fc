//! The interactive session in a pseudo-terminal (portable-pty + a vt100 parser, the same way
//! the end-to-end tests drive it), against the mock LLM:
//! - launch to a ready prompt, warm artifact cache;
//! - keystroke-to-frame latency while a 2,000-token answer streams;
//! - resident memory with a 1,000-message session loaded (`-c`), against a new session.
//!
//! Frame time with a 10,000-line tool result in view is measured in-process by the
//! `tui::bench_frames` test (`cargo test --release -p reasonix --bin reasonix -- --ignored bench_frames --nocapture`).
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_macros)]

mod common;

use common::{median, ms};
use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};
use reasonix_agent::session::SessionStore;
use reasonix_core::types::{Message, Role};
use reasonix_mock_llm::{MockLlm, Reply};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const LAUNCHES: usize = 20;
const KEYSTROKES: usize = 40;

struct Term {
    child: Box<dyn Child + Send + Sync>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    parser: Arc<Mutex<vt100::Parser>>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Term {
    fn spawn(home: &Path, project: &Path, cache: &Path, args: &[&str]) -> Term {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 120,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_reasonix"));
        cmd.args(args);
        cmd.cwd(project);
        cmd.env("TERM", "xterm-256color");
        cmd.env("REASONIX_HOME", home);
        cmd.env("HOME", home.join("user"));
        cmd.env("REASONIX_CACHE_HOME", cache);
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = Arc::new(Mutex::new(pair.master.take_writer().unwrap()));
        let parser = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZero::new(40).unwrap(),
            std::num::NonZero::new(120).unwrap(),
            0,
        )));
        let (p, w) = (parser.clone(), writer.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 16384];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let chunk = &buf[..n];
                let mut parser = p.lock().unwrap();
                parser.process(chunk);
                let has = |needle: &[u8]| chunk.windows(needle.len()).any(|x| x == needle);
                let mut replies = Vec::new();
                if has(b"\x1b[6n") {
                    let (row, col) = parser.screen().cursor_position();
                    replies.push(format!("\x1b[{};{}R", row + 1, col + 1));
                }
                if has(b"\x1b[c") {
                    replies.push("\x1b[?1;2c".into());
                }
                drop(parser);
                for r in replies {
                    let mut w = w.lock().unwrap();
                    let _ = w.write_all(r.as_bytes());
                    let _ = w.flush();
                }
            }
        });
        Term {
            child,
            writer,
            parser,
            _master: pair.master,
        }
    }

    fn send(&self, text: &str) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(text.as_bytes()).unwrap();
        w.flush().unwrap();
    }

    fn wait(&self, pred: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if pred(&self.parser.lock().unwrap().screen().contents()) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out:\n{}",
                self.parser.lock().unwrap().screen().contents()
            );
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn rss_kib(&self) -> u64 {
        let pid = self.child.process_id().unwrap();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    fn quit(mut self) {
        self.send("\x04");
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
    }
}

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

    // Keystrokes while a 2,000-token answer streams (a token every millisecond or so).
    let tokens: Vec<String> = (0..2000).map(|i| format!("tok{i} ")).collect();
    let chunks: Vec<&str> = tokens.iter().map(String::as_str).collect();
    mock.enqueue(Reply::text(&chunks).with_chunk_delay_ms(1));
    let term = Term::spawn(&home, &project, &cache, &[]);
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
        "| RSS, new session (MiB) | {:.1} | |",
        rss_fresh as f64 / 1024.0
    );
    println!(
        "| RSS, 1,000-message session loaded with -c (MiB) | {:.1} | |",
        rss_loaded as f64 / 1024.0
    );
}
