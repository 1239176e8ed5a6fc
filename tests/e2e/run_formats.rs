//! The bytes of every `reasonix run --output-format`, pinned: one scripted run (a rate-limited
//! request retried, reasoning, streamed text, a tool that works, one that fails, one the rules
//! refuse, a final answer in Chinese with a terminal escape in it) printed in each format and
//! compared with `tests/e2e/golden/run_formats/<format>.txt`. Ids, durations and paths are
//! replaced by placeholders first. `REASONIX_BLESS=1` rewrites the files after a deliberate
//! change of a format (and the change belongs in docs/RUN.md and the CHANGELOG).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{self, Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply, Usage};

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    fn new() -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        env.project_config(&env.mock_provider(
            "openai",
            &mock.base_url(),
            "sk-test",
            "stall_timeout_seconds = 5\n\
             price = { input = 2.0, output = 8.0, cache_hit = 0.5, currency = \"$\" }\n\
             [permissions]\n\
             deny = [\"Bash(rm:*)\"]\n",
        ));
        std::fs::write(
            env.workspace().join("notes.txt"),
            "first line\nsecond line\n",
        )
        .unwrap();
        Setup { env, mock }
    }

    fn script(&self) {
        self.mock.enqueue(Reply::rate_limited("0"));
        self.mock.enqueue(
            Reply::tool_calls(
                &[
                    ("call_1", "read_file", r#"{"path":"notes.txt"}"#),
                    ("call_2", "read_file", r#"{"path":"missing.txt"}"#),
                    ("call_3", "bash", r#"{"command":"rm -rf notes.txt"}"#),
                ],
                2,
            )
            .with_reasoning("The notes first.", None)
            .with_usage(Usage {
                prompt: 1000,
                completion: 20,
                cache_hit: 600,
                cache_miss: 400,
                reasoning: 4,
            }),
        );
        self.mock.enqueue(
            Reply::text(&["读完了：", "two lines ", "\u{1b}[31mred\u{1b}[0m."]).with_usage(Usage {
                prompt: 1100,
                completion: 9,
                cache_hit: 1000,
                cache_miss: 100,
                reasoning: 0,
            }),
        );
    }

    /// `reasonix run --dir <workspace> <args…> "read the notes"`: stdout and stderr, each with
    /// what changes from run to run replaced.
    fn run(&self, args: &[&str]) -> (String, String) {
        self.script();
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        all.push("read the notes");
        let out = self.env.command(&all).output().unwrap();
        assert_eq!(self.mock.pending(), 0, "{}", stderr(&out));
        (self.normalise(&stdout(&out)), self.normalise(&stderr(&out)))
    }

    /// The bytes as printed, but for the workspace's path, session ids, durations and retry
    /// delays.
    fn normalise(&self, text: &str) -> String {
        let ws = self.env.workspace().to_string_lossy().into_owned();
        let mut text = text.replace(&ws, "<workspace>");
        for id in session_ids(&text) {
            text = text.replace(&id, "<session>");
        }
        for key in ["\"duration_ms\":", "\"delay_ms\":"] {
            text = zero_numbers_after(&text, key);
        }
        text.lines().map(retry_delay).collect::<Vec<_>>().join("\n")
            + if text.ends_with('\n') { "\n" } else { "" }
    }
}

/// Every session id the output names: in `"session_id":"…"` and in text mode's `session …]`.
fn session_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for marker in ["\"session_id\":\"", "session "] {
        let mut rest = text;
        while let Some(at) = rest.find(marker) {
            rest = &rest[at + marker.len()..];
            let end = rest.find(['"', ']', '\n']).unwrap_or(rest.len());
            let id = &rest[..end];
            if !id.is_empty() && !ids.iter().any(|known| known == id) {
                ids.push(id.to_string());
            }
        }
    }
    // Longest first, so no id is replaced inside another.
    ids.sort_by_key(|id| std::cmp::Reverse(id.len()));
    ids
}

/// `text` with the number after each `key` replaced by 0.
fn zero_numbers_after(text: &str, key: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        rest = rest[at + key.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('0');
    }
    out.push_str(rest);
    out
}

/// Text mode's `retrying (1/10) in 0.3 s: …` with the delay replaced.
fn retry_delay(line: &str) -> String {
    match (line.find(" in "), line.find(" s: ")) {
        (Some(start), Some(end)) if line.starts_with("retrying") && start < end => {
            format!("{}<delay>{}", &line[..start + 4], &line[end..])
        }
        _ => line.to_string(),
    }
}

/// `got` equals `tests/e2e/golden/run_formats/<name>.txt`, or rewrites it under
/// `REASONIX_BLESS=1`.
fn golden(name: &str, got: &str) {
    let path = support::repo_root().join(format!("tests/e2e/golden/run_formats/{name}.txt"));
    if std::env::var_os("REASONIX_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (REASONIX_BLESS=1 writes it)", path.display()));
    if want != got {
        let first = want
            .lines()
            .zip(got.lines())
            .position(|(w, g)| w != g)
            .unwrap_or(want.lines().count().min(got.lines().count()));
        panic!(
            "{name}: the output differs from {} from line {}:\n  want: {:?}\n  got:  {:?}\nwhole output:\n{got}",
            path.display(),
            first + 1,
            want.lines().nth(first),
            got.lines().nth(first),
        );
    }
}

fn check(name: &str, args: &[&str]) {
    let setup = Setup::new();
    let (out, err) = setup.run(args);
    golden(name, &format!("== stdout\n{out}== stderr\n{err}"));
}

#[test]
fn text() {
    check("text", &[]);
}

#[test]
fn text_with_thinking() {
    check("text-thinking", &["--show-thinking"]);
}

#[test]
fn print_only() {
    check("print", &["-p"]);
}

#[test]
fn json() {
    check("json", &["--output-format", "json"]);
}

#[test]
fn stream_json() {
    check("stream-json", &["--output-format", "stream-json"]);
}

#[test]
fn stream_json_with_partial_messages() {
    check(
        "stream-json-partial",
        &[
            "--output-format",
            "stream-json",
            "--include-partial-messages",
        ],
    );
}

#[test]
fn stream_json_v1() {
    check("stream-json-v1", &["--output-format", "stream-json-v1"]);
}

#[test]
fn events() {
    check("events", &["--output-format", "events"]);
}
