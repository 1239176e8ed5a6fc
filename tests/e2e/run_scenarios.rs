//! `reasonix run` as a user runs it — the real binary as a child process against the mock LLM
//! server: a run killed with SIGKILL mid-turn and continued with `-c`, and the cache-first
//! prefix staying byte-identical across separate runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use reasonix_agent::session::SessionStore;
use reasonix_core::types::{Message, Role};
use reasonix_mock_llm::{MockLlm, Reply, Step};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{Env, shared_artifact_cache};

const KINDS: [&str; 3] = ["openai", "anthropic", "responses"];

/// A temp home, project and workspace; `./reasonix.toml` names a provider `mock` of one kind.
struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    fn new(kind: &'static str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        env.project_config(&env.mock_provider(
            kind,
            &mock.base_url(),
            "sk-test",
            "stall_timeout_seconds = 30",
        ));
        Setup { env, mock }
    }

    fn state(&self) -> PathBuf {
        self.env.root.path().join("state")
    }

    /// `reasonix run --dir <workspace> <args>`, sessions under a temp state root.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_reasonix"));
        command
            .arg("run")
            .arg("--dir")
            .arg(self.env.workspace())
            .args(args)
            .current_dir(self.env.project())
            .env("REASONIX_HOME", self.env.home())
            .env("REASONIX_CACHE_HOME", shared_artifact_cache())
            .env("REASONIX_STATE_HOME", self.state())
            .env_remove("REASONIX_LOG")
            .stdin(Stdio::null());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn store(&self) -> SessionStore {
        SessionStore::new(&self.state(), &self.env.workspace())
    }

    /// The messages of the only session of the workspace (read without taking its lock).
    fn transcript(&self) -> Vec<Message> {
        let sessions = self.store().list().unwrap();
        assert!(sessions.len() <= 1, "{sessions:?}");
        match sessions.first() {
            Some(s) => reasonix_agent::session::load(&s.path).unwrap().messages,
            None => Vec::new(),
        }
    }
}

/// The user texts of a request body, in order.
fn user_texts(kind: &str, body: &Value) -> Vec<String> {
    let list = if kind == "responses" {
        &body["input"]
    } else {
        &body["messages"]
    };
    list.as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .flat_map(|m| match &m["content"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str().map(str::to_string))
                .collect(),
            _ => vec![],
        })
        .collect()
}

/// The body text with the top-level array `key` (its value, brackets included) removed.
fn without_list(body: &str, key: &str) -> String {
    let needle = format!("\"{key}\":[");
    let start = body
        .match_indices(&needle)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || body.as_bytes()[i - 1] != b'\\')
        .unwrap_or_else(|| panic!("no `{key}` array in {body}"))
        + needle.len()
        - 1;
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in body.bytes().enumerate().skip(start) {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return format!("{}{}", &body[..start], &body[i + 1..]);
                }
            }
            _ => {}
        }
    }
    panic!("unterminated `{key}` array");
}

/// Poll `done` every 10 ms; `Err` after `timeout`.
fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> Result<(), ()> {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > timeout {
            return Err(());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

fn kill(mut child: Child) {
    // `Child::kill` is SIGKILL on Unix: no handler runs, nothing is flushed at exit.
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
}

#[test]
fn sigkill_mid_run_then_continue_keeps_every_completed_message() {
    for kind in KINDS {
        let setup = Setup::new(kind);
        let ws = setup.env.workspace();
        std::fs::write(ws.join("notes.txt"), "hello run\n").unwrap();
        setup.mock.enqueue_all([
            Reply::tool_calls(&[("call_1", "read_file", r#"{"path":"notes.txt"}"#)], 2),
            Reply::tool_calls(
                &[(
                    "call_2",
                    "write_file",
                    r#"{"path":"upper.txt","content":"HELLO RUN\n"}"#,
                )],
                2,
            ),
            // Turn 3 streams a little, then holds at the gate until the process is gone.
            Reply {
                steps: vec![
                    Step::Text("Almost ".into()),
                    Step::Gate("never".into()),
                    Step::Text("done.".into()),
                ],
                ..Reply::default()
            },
        ]);
        let child = setup
            .command(&["--yolo", "Uppercase notes.txt into upper.txt"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(setup.env.root.path().join("stderr")).unwrap())
            .spawn()
            .unwrap();
        let seen = setup.mock.wait_for_requests(3, Duration::from_secs(60));
        assert_eq!(seen.len(), 3, "{kind}: the run never reached turn 3");
        // Turn 2 is complete in the transcript: the write call and its result.
        wait_until(Duration::from_secs(10), || {
            setup.transcript().len() >= 5
        })
        .unwrap_or_else(|()| {
            panic!(
                "{kind}: the transcript never had the turn-2 messages: {:#?}\nstderr: {}\nrequests: {}",
                setup.transcript(),
                std::fs::read_to_string(setup.env.root.path().join("stderr")).unwrap_or_default(),
                setup.mock.requests().len()
            )
        });
        kill(child);

        let before = setup.transcript();
        let shape: Vec<(Role, Option<&str>)> = before
            .iter()
            .map(|m| (m.role, m.tool_call_id.as_deref()))
            .collect();
        assert_eq!(
            shape,
            [
                (Role::User, None),
                (Role::Assistant, None),
                (Role::Tool, Some("call_1")),
                (Role::Assistant, None),
                (Role::Tool, Some("call_2")),
            ],
            "{kind}: the transcript of the killed run"
        );
        assert_eq!(before[1].tool_calls[0].id, "call_1", "{kind}");
        assert_eq!(before[3].tool_calls[0].id, "call_2", "{kind}");
        assert!(before[2].content.contains("hello run"), "{kind}");
        assert_eq!(
            std::fs::read_to_string(ws.join("upper.txt")).unwrap(),
            "HELLO RUN\n",
            "{kind}"
        );

        // A fresh script: the model sees everything and finishes.
        setup
            .mock
            .enqueue(Reply::text(&["Continued ", "and finished."]));
        let out = setup.run(&["--yolo", "-c", "--output-format", "json", "go on"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{kind}: stdout {}\nstderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let result: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{kind}: json output: {e}"));
        assert_eq!(result["result"], "Continued and finished.", "{kind}");
        assert_eq!(result["is_error"], false, "{kind}");

        let requests = setup.mock.requests();
        assert_eq!(requests.len(), 4, "{kind}");
        let body = requests[3].json();
        let results = support::tool_results(kind, &body);
        let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["call_1", "call_2"], "{kind}: {body}");
        assert!(results[0].1.contains("hello run"), "{kind}");
        assert_eq!(
            user_texts(kind, &body),
            ["Uppercase notes.txt into upper.txt", "go on"],
            "{kind}"
        );
        // The continued request starts with exactly what the killed run last sent, plus the
        // turn-2 messages: the cached prefix survives the kill.
        let old = requests[2].json();
        let list = if kind == "responses" {
            "input"
        } else {
            "messages"
        };
        let old_list = old[list].as_array().unwrap();
        let new_list = body[list].as_array().unwrap();
        let strip = |v: &Value| {
            let mut v = v.clone();
            if let Some(blocks) = v["content"].as_array_mut() {
                for b in blocks {
                    if let Some(o) = b.as_object_mut() {
                        o.remove("cache_control");
                    }
                }
            }
            v
        };
        for (i, m) in old_list.iter().enumerate() {
            let (old_m, new_m) = (strip(m), strip(&new_list[i]));
            if kind == "anthropic" && i + 1 == old_list.len() {
                // Anthropic merges the new user text into the user message that carries the
                // tool results (roles must alternate): the prefix extends block by block.
                assert_eq!(old_m["role"], new_m["role"], "{kind}");
                let (a, b) = (
                    old_m["content"].as_array().unwrap(),
                    new_m["content"].as_array().unwrap(),
                );
                assert_eq!(a[..], b[..a.len()], "{kind}: element {i}");
            } else {
                assert_eq!(old_m, new_m, "{kind}: element {i}");
            }
        }

        let after = setup.transcript();
        assert_eq!(&after[..5], &before[..], "{kind}: history rewritten");
        assert_eq!(after.len(), 7, "{kind}: {after:?}");
        assert_eq!(after[5].content, "go on", "{kind}");
        assert_eq!(after[6].content, "Continued and finished.", "{kind}");
    }
}

#[test]
fn the_prefix_is_byte_identical_across_runs_with_the_same_config() {
    for kind in KINDS {
        let setup = Setup::new(kind);
        setup
            .mock
            .enqueue_all([Reply::text(&["one"]), Reply::text(&["two"])]);
        for task in ["first task", "second task"] {
            let out = setup.run(&["-p", task]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{kind}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let requests = setup.mock.requests();
        let (a, b) = (requests[0].json(), requests[1].json());
        let list = if kind == "responses" {
            "input"
        } else {
            "messages"
        };
        let fixed = |v: &Value| {
            let mut v = v.clone();
            v.as_object_mut().unwrap().remove(list);
            v
        };
        assert_eq!(
            fixed(&a),
            fixed(&b),
            "{kind}: system prompt or tools changed"
        );
        assert!(
            a["tools"].as_array().is_some_and(|t| !t.is_empty()),
            "{kind}"
        );
        if kind == "openai" {
            // The system prompt is the first message here.
            assert_eq!(a["messages"][0], b["messages"][0], "{kind}");
            assert_eq!(a["messages"][0]["role"], "system");
        }
        // Byte level: the raw bodies are equal once the conversation array is cut out.
        assert_eq!(
            without_list(&requests[0].body, list),
            without_list(&requests[1].body, list),
            "{kind}: the bytes outside `{list}` differ"
        );
    }
}

/// `reasonix run "task" --dir X --yolo` (flags after the task, as `claude -p "task" --flags` is
/// commonly used) must apply the flags, not send them to the model as task words and run in
/// the current directory instead of the workspace.
#[test]
fn flags_after_the_task_are_flags_not_task_words() {
    let setup = Setup::new("openai");
    setup.mock.enqueue_all([
        Reply::tool_calls(
            &[(
                "call_w",
                "write_file",
                r#"{"path":"here.txt","content":"x"}"#,
            )],
            1,
        ),
        Reply::text(&["done"]),
    ]);
    let ws = setup.env.workspace();
    let out = Command::new(env!("CARGO_BIN_EXE_reasonix"))
        .args(["run", "write here.txt", "--dir"])
        .arg(&ws)
        .arg("--yolo")
        .current_dir(setup.env.project())
        .env("REASONIX_HOME", setup.env.home())
        .env("REASONIX_CACHE_HOME", shared_artifact_cache())
        .env("REASONIX_STATE_HOME", setup.state())
        .env_remove("REASONIX_LOG")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let body = setup.mock.requests()[0].json();
    assert_eq!(
        user_texts("openai", &body),
        ["write here.txt"],
        "the flags became part of the task"
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        ws.join("here.txt").exists(),
        "--dir / --yolo were not applied"
    );
    assert!(!setup.env.project().join("here.txt").exists());
}

/// SIGTERM while the model is streaming: the run stops promptly, reports `cancelled` (exit 1),
/// keeps what was complete, and the session can be continued.
#[test]
fn sigterm_mid_stream_cancels_cleanly_and_the_session_continues() {
    let setup = Setup::new("anthropic");
    std::fs::write(setup.env.workspace().join("a.txt"), "alpha\n").unwrap();
    setup.mock.enqueue_all([
        Reply::tool_calls(&[("call_1", "read_file", r#"{"path":"a.txt"}"#)], 1),
        Reply {
            steps: vec![Step::Text("Half ".into()), Step::Gate("never".into())],
            ..Reply::default()
        },
    ]);
    let child = setup
        .command(&["--yolo", "--output-format", "json", "Read a.txt"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let seen = setup.mock.wait_for_requests(2, Duration::from_secs(60));
    assert_eq!(seen.len(), 2, "the run never reached turn 2");
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "SIGTERM took {:?} to stop the run (the stall watchdog is 30 s)",
        started.elapsed()
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "json result after SIGTERM: {e}: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    assert_eq!(result["subtype"], "cancelled", "{result}");
    assert_eq!(result["is_error"], true, "{result}");

    // Every completed message is kept; the cut answer is not.
    let kept = setup.transcript();
    let roles: Vec<Role> = kept.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool], "{kept:?}");

    setup.mock.enqueue(Reply::text(&["alpha"]));
    let out = setup.run(&["--yolo", "-c", "-p", "and now?"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "alpha");
    let body = setup.mock.requests()[2].json();
    assert_eq!(support::tool_results("anthropic", &body)[0].0, "call_1");
    assert_eq!(user_texts("anthropic", &body), ["Read a.txt", "and now?"]);
}
