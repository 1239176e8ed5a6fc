//! The `reasonix` binary in a pseudo-terminal, its screen kept by a vt100 parser: type into
//! it, wait for text to appear, read the scrollback. Answers the terminal queries a real
//! terminal answers (cursor position, device attributes), which crossterm and ratatui send.

use super::{Env, shared_artifact_cache};
use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Pty {
    child: Box<dyn Child + Send + Sync>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    parser: Arc<Mutex<vt100::Parser>>,
    /// Every byte the program wrote, for failure messages.
    raw: Arc<Mutex<Vec<u8>>>,
    // Kept open for the child's lifetime.
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Env {
    /// `reasonix args…` in a `cols`×`rows` terminal, with this env's home and project.
    pub fn pty(&self, args: &[&str], cols: u16, rows: u16, vars: &[(&str, &str)]) -> Pty {
        let system = native_pty_system();
        let pair = system
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_reasonix"));
        cmd.args(args);
        cmd.cwd(self.project());
        cmd.env_clear();
        for name in ["PATH", "LANG", "LC_ALL", "TMPDIR"] {
            if let Ok(value) = std::env::var(name) {
                cmd.env(name, value);
            }
        }
        cmd.env("TERM", "xterm-256color");
        // English whatever the machine's locale; a test of another language overrides it.
        cmd.env("REASONIX_LANG", "en");
        cmd.env("REASONIX_HOME", self.home());
        cmd.env("HOME", self.user_home());
        cmd.env("REASONIX_CACHE_HOME", shared_artifact_cache());
        for (name, value) in vars {
            cmd.env(name, value);
        }
        let child = pair
            .slave
            .spawn_command(cmd)
            .expect("spawn reasonix in the pty");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("pty reader");
        let writer = Arc::new(Mutex::new(pair.master.take_writer().expect("pty writer")));
        let parser = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZero::new(rows).expect("rows > 0"),
            std::num::NonZero::new(cols).expect("cols > 0"),
            10_000,
        )));
        let raw = Arc::new(Mutex::new(Vec::new()));
        {
            let (parser, writer, raw) = (parser.clone(), writer.clone(), raw.clone());
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                loop {
                    let n = match reader.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    let chunk = &buf[..n];
                    raw.lock().unwrap().extend_from_slice(chunk);
                    let mut p = parser.lock().unwrap();
                    p.process(chunk);
                    let mut replies = Vec::new();
                    if contains(chunk, b"\x1b[6n") {
                        let (row, col) = p.screen().cursor_position();
                        replies.push(format!("\x1b[{};{}R", row + 1, col + 1));
                    }
                    if contains(chunk, b"\x1b[c") || contains(chunk, b"\x1b[0c") {
                        replies.push("\x1b[?1;2c".to_string());
                    }
                    drop(p);
                    for reply in replies {
                        let mut w = writer.lock().unwrap();
                        let _ = w.write_all(reply.as_bytes());
                        let _ = w.flush();
                    }
                }
            });
        }
        Pty {
            child,
            writer,
            parser,
            raw,
            _master: pair.master,
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

impl Pty {
    /// Type `text` (bytes as a terminal sends them: `\r` is Enter, `\x1b` Esc).
    pub fn send(&self, text: &str) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(text.as_bytes()).unwrap();
        w.flush().unwrap();
    }

    /// Type `text` one character at a time, as a person would (a paste arrives at once).
    pub fn type_text(&self, text: &str) {
        for c in text.chars() {
            self.send(&c.to_string());
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Whether the program ever wrote `bytes` to the terminal.
    pub fn raw_contains(&self, bytes: &[u8]) -> bool {
        contains(&self.raw.lock().unwrap(), bytes)
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// Everything printed, scrollback first, then the screen.
    pub fn transcript(&self) -> String {
        let mut p = self.parser.lock().unwrap();
        p.screen_mut().set_scrollback(usize::MAX);
        let depth = p.screen().scrollback();
        let mut lines = Vec::new();
        for offset in (1..=depth).rev() {
            p.screen_mut().set_scrollback(offset);
            if let Some(first) = p.screen().contents().lines().next() {
                lines.push(first.to_string());
            } else {
                lines.push(String::new());
            }
        }
        p.screen_mut().set_scrollback(0);
        let screen = p.screen().contents();
        lines.extend(screen.lines().map(str::to_string));
        lines.join("\n")
    }

    /// Wait until `needle` is in the transcript; panics with the screen after `timeout`.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let text = self.transcript();
            if text.contains(needle) {
                return text;
            }
            if Instant::now() > deadline {
                let raw = String::from_utf8_lossy(&self.raw.lock().unwrap()).into_owned();
                let tail: String = raw
                    .chars()
                    .rev()
                    .take(3000)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                panic!(
                    "`{needle}` did not appear within {timeout:?}.\n--- transcript ---\n{text}\n--- raw tail ---\n{tail:?}"
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Wait until `needle` is no longer on the screen (a live line such as the turn's spinner,
    /// `(Esc to cancel)`, gone once the turn ended); panics with the screen after `timeout`.
    /// Wait until the screen (not the scrollback) shows `needle`; the screen then.
    pub fn wait_on_screen(&self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if screen.contains(needle) || Instant::now() > deadline {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_gone(&self, needle: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while self.screen().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "`{needle}` was still on the screen after {timeout:?}:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Resize the terminal (the program gets SIGWINCH); the emulator keeps its scrollback.
    pub fn resize(&self, cols: u16, rows: u16) {
        self.parser.lock().unwrap().set_size(
            std::num::NonZero::new(rows).expect("rows > 0"),
            std::num::NonZero::new(cols).expect("cols > 0"),
        );
        self._master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize the pty");
    }

    /// The foreground colour of the visible cell at (`row`, `col`).
    pub fn cell_fg(&self, row: u16, col: u16) -> vt100::Color {
        let p = self.parser.lock().unwrap();
        p.screen()
            .cell(row, col)
            .map_or(vt100::Color::Default, |c| c.fgcolor())
    }

    /// How many bytes the program has written so far.
    pub fn bytes_written(&self) -> usize {
        self.raw.lock().unwrap().len()
    }

    /// The program's process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("a pid")
    }

    /// Wait for the program to exit; its exit code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<u32> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status.exit_code());
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}
