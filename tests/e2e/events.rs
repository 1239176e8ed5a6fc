//! `reasonix run --output-format events`: the session protocol (`reasonix-protocol`,
//! docs/PROTOCOL.md) as a consumer reads it — every line an event naming its session, agent
//! and turn with a `seq` one more than the line before; one event per fact.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;

fn run(env: &Env, args: &[&str], input: &str) -> (i32, Vec<Value>, String) {
    let ws = env.workspace();
    let mut all = vec![
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "--output-format",
        "events",
    ];
    all.extend_from_slice(args);
    let out = env.reasonix_fed(&all, input);
    let lines = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (out.status.code().unwrap_or(-1), lines, stderr(&out))
}

fn setup() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    std::fs::write(env.workspace().join("notes.txt"), "alpha\n").unwrap();
    (env, mock)
}

fn types(lines: &[Value]) -> Vec<&str> {
    lines.iter().map(|l| l["type"].as_str().unwrap()).collect()
}

/// Every line names the session, `main`, a turn, and the next `seq`.
fn assert_numbered(lines: &[Value]) {
    let session = lines[0]["session_id"].clone();
    assert!(session.is_string(), "{}", lines[0]);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["v"], 1, "{line}");
        assert_eq!(line["seq"], i as u64 + 1, "{line}");
        assert_eq!(line["session_id"], session, "{line}");
        assert_eq!(line["agent_id"], "main", "{line}");
        assert!(line["turn_id"].is_u64(), "{line}");
        assert!(line.get("parent_agent_id").is_none(), "{line}");
    }
}

#[test]
fn a_run_is_a_numbered_stream_of_events_one_per_fact() {
    let (env, mock) = setup();
    mock.enqueue(Reply::tool_calls(
        &[("call_1", "read_file", r#"{"path":"notes.txt"}"#)],
        2,
    ));
    mock.enqueue(Reply::text(&["it says ", "alpha"]));
    let (code, lines, err) = run(&env, &["read notes.txt"], "");
    assert_eq!(code, 0, "{err}");
    assert_numbered(&lines);
    let kinds = types(&lines);
    assert_eq!(kinds[0], "session_started");
    assert_eq!(kinds[1], "turn_started");
    assert_eq!(*kinds.last().unwrap(), "turn_finished");
    for kind in [
        "user_message",
        "request_started",
        "assistant_message",
        "tool_started",
        "tool_finished",
        "text_delta",
        "usage",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    assert_eq!(lines[0]["turn_id"], 0);
    assert!(lines[1..].iter().all(|l| l["turn_id"] == 1));
    // The tool's result is one event, not a message again.
    let results: Vec<&Value> = lines
        .iter()
        .filter(|l| l.to_string().contains("alpha\\n") || l.to_string().contains("alpha\""))
        .filter(|l| {
            l["type"] != "text_delta"
                && l["type"] != "assistant_message"
                && l["type"] != "turn_finished"
        })
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["type"], "tool_finished");
    assert_eq!(results[0]["call_id"], "call_1");
    let finished = lines.last().unwrap();
    assert_eq!(finished["status"], "success");
    assert_eq!(finished["result"], "it says alpha");
    assert_eq!(finished["steps"], 2);
    // The session the events name is the one the run saved.
    let ws = env.workspace();
    let listed = env
        .command(&["sessions", "list", "--json", "--dir", ws.to_str().unwrap()])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_str(&stdout(&listed)).unwrap();
    assert_eq!(listed["sessions"][0]["id"], lines[0]["session_id"]);
}

#[test]
fn stream_json_input_gives_one_turn_per_line_in_one_stream() {
    let (env, mock) = setup();
    mock.enqueue(Reply::text(&["one"]));
    mock.enqueue(Reply::text(&["two"]));
    let line = |text: &str| {
        serde_json::json!({"type": "user", "message": {"role": "user", "content": text}})
            .to_string()
    };
    let (code, lines, err) = run(
        &env,
        &["--input-format", "stream-json"],
        &format!("{}\n{}\n", line("first"), line("second")),
    );
    assert_eq!(code, 0, "{err}");
    assert_numbered(&lines);
    let turns: Vec<(u64, &str)> = lines
        .iter()
        .filter(|l| {
            ["turn_started", "turn_finished", "user_message"].contains(&l["type"].as_str().unwrap())
        })
        .map(|l| (l["turn_id"].as_u64().unwrap(), l["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        turns,
        [
            (1, "turn_started"),
            (1, "user_message"),
            (1, "turn_finished"),
            (2, "turn_started"),
            (2, "user_message"),
            (2, "turn_finished"),
        ]
    );
}

/// `run --input-format ops --output-format events` as a client drives it: operations in,
/// events out, answering each question when it appears.
pub(crate) struct OpsClient {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<Value>,
    seen: Vec<Value>,
}

impl OpsClient {
    pub(crate) fn start(env: &Env) -> OpsClient {
        OpsClient::start_with(env, &[])
    }

    /// [`OpsClient::start`] with more `run` flags.
    pub(crate) fn start_with(env: &Env, flags: &[&str]) -> OpsClient {
        use std::io::BufRead;
        use std::process::Stdio;
        let ws = env.workspace();
        let mut args = vec![
            "run",
            "--dir",
            ws.to_str().unwrap(),
            "--input-format",
            "ops",
            "--output-format",
            "events",
        ];
        args.extend_from_slice(flags);
        let mut child = env
            .command(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let line = line.unwrap();
                let value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        OpsClient {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
        }
    }

    pub(crate) fn send(&mut self, op: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{op}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next event of type `kind` (every event on the way is kept in `seen`).
    pub(crate) fn until(&mut self, kind: &str) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no `{kind}` event; saw {:?}", types(&self.seen)));
            self.seen.push(line.clone());
            if line["type"] == kind {
                return line;
            }
        }
    }

    /// Close stdin (the session ends) and collect the exit code and the rest of the events.
    pub(crate) fn finish(mut self) -> (i32, Vec<Value>) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        while let Ok(line) = self.lines.recv_timeout(std::time::Duration::from_secs(5)) {
            self.seen.push(line);
        }
        (status.code().unwrap_or(-1), std::mem::take(&mut self.seen))
    }
}

/// A failed assertion leaves no session running.
impl Drop for OpsClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn write_call(id: &str, path: &str, content: &str) -> Reply {
    let args = serde_json::json!({"path": path, "content": content}).to_string();
    Reply::tool_calls(&[(id, "write_file", &args)], 2)
}

#[test]
fn an_ops_client_answers_each_question_by_its_id() {
    let (env, mock) = setup();
    std::fs::create_dir_all(env.home()).unwrap();
    std::fs::write(env.home().join("config.toml"), "# the user's own\n").unwrap();
    mock.enqueue(write_call("call_1", "once.txt", "one\n"));
    mock.enqueue(Reply::text(&["wrote it"]));
    mock.enqueue(write_call("call_2", "always.txt", "two\n"));
    mock.enqueue(Reply::text(&["wrote that too"]));
    mock.enqueue(write_call("call_3", "denied.txt", "three\n"));
    mock.enqueue(Reply::text(&["understood"]));
    let mut client = OpsClient::start(&env);

    client.send(r#"{"type":"prompt","text":"write once.txt"}"#);
    let q1 = client.until("question");
    assert_eq!(q1["tool"], "write_file", "{q1}");
    assert_eq!(q1["call_id"], "call_1", "{q1}");
    let changed = q1["changes"][0]["path"].as_str().unwrap();
    assert!(changed.ends_with("once.txt"), "{q1}");
    assert!(!env.workspace().join("once.txt").exists());
    // A wrong id or a rule the question did not offer answers nothing.
    client.send(r#"{"type":"approve","question_id":"q999"}"#);
    let failed = client.until("op_failed");
    assert!(
        failed["error"].as_str().unwrap().contains("q999"),
        "{failed}"
    );
    client.send(r#"{"type":"not an op"}"#);
    let failed = client.until("op_failed");
    assert!(
        failed["error"].as_str().unwrap().contains("stdin line 3"),
        "{failed}"
    );
    let id = q1["question_id"].as_str().unwrap().to_string();
    client.send(&format!(r#"{{"type":"approve","question_id":"{id}"}}"#));
    let closed = client.until("question_closed");
    assert_eq!(
        (closed["question_id"].as_str(), closed["answer"].as_str()),
        (Some(id.as_str()), Some("once"))
    );
    let done = client.until("turn_finished");
    assert_eq!(done["status"], "success", "{done}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("once.txt")).unwrap(),
        "one\n"
    );

    // "Always" is written to the user's own file by the session.
    client.send(r#"{"type":"prompt","text":"write always.txt"}"#);
    let q2 = client.until("question");
    let id2 = q2["question_id"].as_str().unwrap().to_string();
    assert_ne!(id2, id);
    let rule = q2["scopes"][0].as_str().unwrap().to_string();
    client.send(&format!(
        r#"{{"type":"approve","question_id":"{id2}","scope":"always"}}"#
    ));
    let closed = client.until("question_closed");
    assert_eq!(closed["answer"], "always", "{closed}");
    assert_eq!(closed["rule"].as_str(), Some(rule.as_str()), "{closed}");
    client.until("turn_finished");
    let config = std::fs::read_to_string(env.home().join("config.toml")).unwrap();
    assert!(
        config.contains("# the user's own") && config.contains(&rule),
        "{config}"
    );

    // A denial's note reaches the model; the file is not written.
    client.send(r#"{"type":"prompt","text":"write denied.txt"}"#);
    let q3 = client.until("question");
    let id3 = q3["question_id"].as_str().unwrap().to_string();
    client.send(&format!(
        r#"{{"type":"deny","question_id":"{id3}","note":"not that file"}}"#
    ));
    let closed = client.until("question_closed");
    assert_eq!(closed["answer"], "denied", "{closed}");
    client.until("turn_finished");
    assert!(!env.workspace().join("denied.txt").exists());
    let (code, lines) = client.finish();
    assert_eq!(code, 0);
    assert_numbered(&lines);
    let requests = mock.requests();
    let last = requests.last().unwrap().body.to_string();
    assert!(last.contains("not that file"), "{last}");
    // Three turns, numbered 1, 2, 3.
    let turns: Vec<u64> = lines
        .iter()
        .filter(|l| l["type"] == "turn_finished")
        .map(|l| l["turn_id"].as_u64().unwrap())
        .collect();
    assert_eq!(turns, vec![1, 2, 3]);
}

#[test]
fn cancel_withdraws_the_open_question_and_the_session_goes_on() {
    let (env, mock) = setup();
    mock.enqueue(write_call("call_1", "never.txt", "x\n"));
    mock.enqueue(Reply::text(&["fine"]));
    let mut client = OpsClient::start(&env);
    client.send(r#"{"type":"prompt","text":"write never.txt"}"#);
    let q = client.until("question");
    client.send(r#"{"type":"cancel"}"#);
    let closed = client.until("question_closed");
    assert_eq!(closed["question_id"], q["question_id"], "{closed}");
    assert_eq!(closed["answer"], "withdrawn", "{closed}");
    let done = client.until("turn_finished");
    assert_eq!(done["status"], "cancelled", "{done}");
    assert!(!env.workspace().join("never.txt").exists());
    // The withdrawn question cannot be answered any more; the next turn runs.
    let id = q["question_id"].as_str().unwrap();
    client.send(&format!(r#"{{"type":"approve","question_id":"{id}"}}"#));
    client.until("op_failed");
    client.send(r#"{"type":"prompt","text":"go on"}"#);
    let done = client.until("turn_finished");
    assert_eq!(done["status"], "success", "{done}");
    assert_eq!(done["result"], "fine", "{done}");
    let (code, _) = client.finish();
    assert_eq!(code, 0);
}

/// Ctrl-C (here SIGTERM, handled alike) during an ops session cancels the running turn and
/// ends the session: `turn_finished` says `cancelled` and the process exits, although the
/// client never closed stdin.
#[test]
fn an_interrupt_cancels_the_turn_and_ends_an_ops_session() {
    use reasonix_mock_llm::Step;
    let (env, mock) = setup();
    // The answer starts, then waits for a gate nobody opens.
    mock.enqueue(Reply::text(&["thinking about it"]).then(Step::Gate("never".into())));
    let mut client = OpsClient::start(&env);
    client.until("session_started");
    client.send(r#"{"type":"prompt","text":"take your time"}"#);
    client.until("text_delta");
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &client.child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let finished = client.until("turn_finished");
    assert_eq!(finished["status"], "cancelled", "{finished}");
    // stdin stays open: only the interrupt can end the session.
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = client.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the session did not end after the interrupt"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_ne!(status.code(), Some(0));
}
