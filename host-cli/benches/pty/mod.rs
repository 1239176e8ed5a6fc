//! The interactive session in a pseudo-terminal for the benchmarks (portable-pty and a vt100
//! parser that answers the cursor-position and device-attribute queries a terminal answers),
//! 120×40, with `REASONIX_HOME`, `HOME` and the cache pointed at the bench's directories.
#![allow(dead_code)]

use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Term {
    child: Box<dyn Child + Send + Sync>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    pub parser: Arc<Mutex<vt100::Parser>>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Term {
    pub fn spawn(home: &Path, project: &Path, cache: &Path, args: &[&str]) -> Term {
        Term::spawn_bin(
            Path::new(env!("CARGO_BIN_EXE_reasonix")),
            home,
            project,
            cache,
            args,
        )
    }

    /// Like [`Term::spawn`], with another build of `reasonix` (a before/after comparison).
    pub fn spawn_bin(
        binary: &Path,
        home: &Path,
        project: &Path,
        cache: &Path,
        args: &[&str],
    ) -> Term {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 120,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(binary);
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

    pub fn send(&self, text: &str) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(text.as_bytes()).unwrap();
        w.flush().unwrap();
    }

    pub fn wait(&self, pred: impl Fn(&str) -> bool) {
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

    pub fn rss_kib(&self) -> u64 {
        let pid = self.child.process_id().unwrap();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    /// CPU time the session's live threads have used so far, in nanoseconds (the first field
    /// of each `/proc/<pid>/task/<tid>/schedstat`): finer than the clock ticks of `stat`.
    pub fn cpu_ns(&self) -> u64 {
        let pid = self.child.process_id().unwrap();
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return 0;
        };
        tasks
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
            .filter_map(|s| {
                s.split_whitespace()
                    .next()
                    .and_then(|v| v.parse::<u64>().ok())
            })
            .sum()
    }

    /// The session's peak resident set so far (`VmHWM`), KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let pid = self.child.process_id().unwrap();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    pub fn quit(mut self) {
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
