//! `reasonix run` against a misbehaving endpoint (issue 24 §2): the real binary as a child
//! process, the mock LLM server with a fault injected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use reasonix_mock_llm::{Fault, Finish, MockLlm, Reply};
use std::net::TcpListener;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{Env, shared_artifact_cache};

/// A temp home, project and workspace; `./reasonix.toml` names a provider `mock` of one kind
/// that retries once, so a wrongly retried fault shows as a second request, not a long wait.
struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    fn new(kind: &'static str) -> Setup {
        Setup::with_provider(kind, None, "stall_timeout_seconds = 30\nmax_retries = 1")
    }

    /// The provider `mock` at `base_url` (default: the mock's) with `extra` provider keys.
    fn with_provider(kind: &'static str, base_url: Option<&str>, extra: &str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let url = base_url.map_or_else(|| mock.base_url(), str::to_string);
        env.project_config(&env.mock_provider(kind, &url, "sk-test", extra));
        Setup { env, mock }
    }

    /// `reasonix run --dir <workspace> <task>`, sessions under a temp state root.
    fn run(&self, task: &str) -> Output {
        self.run_with(&[], task)
    }

    /// `reasonix run <flags> --dir <workspace> <task>`.
    fn run_with(&self, flags: &[&str], task: &str) -> Output {
        Command::new(env!("CARGO_BIN_EXE_reasonix"))
            .arg("run")
            .args(flags)
            .arg("--dir")
            .arg(self.env.workspace())
            .arg(task)
            .current_dir(self.env.project())
            .env("REASONIX_HOME", self.env.home())
            .env("REASONIX_CACHE_HOME", shared_artifact_cache())
            .env("REASONIX_STATE_HOME", self.env.root.path().join("state"))
            .env_remove("REASONIX_LOG")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A finished answer (`finish_reason: stop` / `message_delta` with a stop reason) whose body
/// closes cleanly without `data: [DONE]` / `message_stop` is the answer: one request, exit 0.
#[test]
fn a_finished_answer_without_its_terminal_event_is_finished() {
    for kind in ["openai", "anthropic"] {
        let setup = Setup::new(kind);
        setup
            .mock
            .enqueue(Reply::text(&["po", "ng"]).with_fault(Fault::OmitTerminal));
        let out = setup.run("ping");
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout).trim_end(), "pong", "{kind}");
        assert_eq!(setup.mock.requests().len(), 1, "{kind}: re-sent");
    }
}

/// A 503 whose `Retry-After` asks for an hour is not retried early: the run fails at once,
/// saying how long the provider asked to wait.
#[test]
fn a_503_retry_after_beyond_the_longest_wait_fails_at_once_saying_so() {
    let setup = Setup::new("openai");
    setup
        .mock
        .enqueue(Reply::default().with_fault(Fault::Status {
            status: 503,
            retry_after: Some("3600".into()),
            body: String::new(),
        }));
    setup.mock.enqueue(Reply::text(&["too early"]));
    let out = setup.run("ping");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("retry after 3600 s"), "{stderr}");
    assert_eq!(setup.mock.requests().len(), 1, "retried before Retry-After");
    assert!(!text(&out.stdout).contains("too early"));
}

/// A final answer cut off by the output limit or a content filter is not a success: a notice
/// on stderr, `stop_reason` in the result object, exit 3 — and exit 0 when
/// `[agent] accept_cut_off_answer = true`. Never re-sent.
#[test]
fn a_cut_off_answer_is_reported_and_exits_3() {
    for kind in ["openai", "anthropic", "responses"] {
        for (finish, reason, why) in [
            (Finish::Length, "length", "output limit"),
            (Finish::ContentFilter, "content_filter", "content filter"),
        ] {
            let setup = Setup::new(kind);
            setup
                .mock
                .enqueue(Reply::text(&["half an ", "answer"]).with_finish(finish));
            let out = setup.run("ping");
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(3), "{kind} {reason}: {stderr}");
            assert_eq!(text(&out.stdout).trim_end(), "half an answer", "{kind}");
            assert!(
                stderr.contains("the answer was cut off")
                    && stderr.contains(why)
                    && stderr.contains(&format!("finish_reason: {reason}")),
                "{kind} {reason}: {stderr}"
            );
            assert_eq!(setup.mock.requests().len(), 1, "{kind}: re-sent");

            setup
                .mock
                .enqueue(Reply::text(&["half"]).with_finish(finish));
            let out = setup.run_with(&["--output-format", "json"], "ping");
            assert_eq!(out.status.code(), Some(3), "{kind} {reason}");
            let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(result["stop_reason"], reason, "{kind}: {result}");
            assert_eq!(result["subtype"], "success", "{kind}");
            assert_eq!(result["is_error"], true, "{kind}");
            assert_eq!(result["result"], "half", "{kind}");
        }
    }

    // Accepted by config: exit 0, the notice and `stop_reason` stay.
    let setup = Setup::new("openai");
    let written = std::fs::read_to_string(setup.env.project().join("reasonix.toml")).unwrap();
    setup.env.project_config(&format!(
        "{written}\n[agent]\naccept_cut_off_answer = true\n"
    ));
    setup
        .mock
        .enqueue(Reply::text(&["half"]).with_finish(Finish::Length));
    let out = setup.run_with(&["--output-format", "stream-json"], "ping");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let last: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(last["stop_reason"], "length");
    assert_eq!(last["is_error"], false);
    assert!(stdout.contains("the answer was cut off"), "{stdout}");

    // A finished answer says so.
    setup.mock.enqueue(Reply::text(&["pong"]));
    let out = setup.run_with(&["--output-format", "json"], "ping");
    assert_eq!(out.status.code(), Some(0));
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["stop_reason"], "stop");
}

/// Tool calls of a step the model did not finish (`length`, `content_filter`) never run: the
/// last call's arguments may be cut short, and a cut that leaves valid JSON would write half a
/// file. Each call is answered "not run", and the model goes on.
#[test]
fn tool_calls_of_a_cut_off_step_do_not_run() {
    for kind in ["openai", "anthropic", "responses"] {
        for finish in [Finish::Length, Finish::ContentFilter] {
            let setup = Setup::new(kind);
            let args = serde_json::json!({"path": "half.txt", "content": "the first half"});
            setup.mock.enqueue(
                Reply::tool_calls(&[("call_1", "write_file", &args.to_string())], 1)
                    .with_finish(finish),
            );
            setup.mock.enqueue(Reply::text(&["gave up"]));
            let out = setup.run_with(&["--yolo"], "write it");
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{kind} {finish:?}: {stderr}");
            assert!(
                !setup.env.workspace().join("half.txt").exists(),
                "{kind} {finish:?}: a cut-off call ran"
            );
            assert!(
                stderr.contains("tool calls were cut off"),
                "{kind} {finish:?}: {stderr}"
            );
            let requests = setup.mock.requests();
            assert_eq!(requests.len(), 2, "{kind} {finish:?}");
            let second = &requests[1].body;
            assert!(second.contains("not run"), "{kind} {finish:?}: {second}");
        }
    }
}

/// The deadline also stops a tool that runs past it: the command is killed, the run ends with
/// exit 4 and says it was running that tool; the model is not asked again.
#[test]
fn a_tool_running_at_the_deadline_is_stopped() {
    let setup = Setup::new("openai");
    let args = serde_json::json!({"command": "sleep 60; echo never > late.txt"});
    setup.mock.enqueue(Reply::tool_calls(
        &[("call_1", "bash", &args.to_string())],
        1,
    ));
    setup.mock.enqueue(Reply::text(&["should not be asked"]));
    let started = Instant::now();
    let out = setup.run_with(&["--yolo", "--timeout", "3s"], "sleep");
    let elapsed = started.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}: {stderr}");
    assert!(
        stderr.contains("the run's time limit of 3s") && stderr.contains("running `bash`"),
        "{stderr}"
    );
    assert_eq!(setup.mock.requests().len(), 1, "{stderr}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!setup.env.workspace().join("late.txt").exists());
}

/// A 200 that is the whole completion as one JSON object (a proxy that ignored
/// `"stream": true`) is the answer: printed, exit 0, one request — and its finish reason
/// counts as a stream's does.
#[test]
fn a_non_streamed_json_completion_is_the_answer() {
    for kind in ["openai", "anthropic", "responses"] {
        let setup = Setup::new(kind);
        setup.mock.enqueue(
            Reply::text(&["po", "ng"])
                .with_reasoning("thinking", Some("sig"))
                .with_fault(Fault::NonStreamed),
        );
        let out = setup.run("ping");
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout).trim_end(), "pong", "{kind}");
        assert_eq!(setup.mock.requests().len(), 1, "{kind}: re-sent");

        setup.mock.enqueue(
            Reply::text(&["half"])
                .with_finish(Finish::Length)
                .with_fault(Fault::NonStreamed),
        );
        let out = setup.run_with(&["--output-format", "json"], "ping");
        assert_eq!(out.status.code(), Some(3), "{kind}: {}", text(&out.stderr));
        let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(result["result"], "half", "{kind}");
        assert_eq!(result["stop_reason"], "length", "{kind}");
        assert_eq!(setup.mock.requests().len(), 2, "{kind}: re-sent");
    }
}

/// A 200 HTML page (a captive portal) is named as one, its start quoted escaped on one line,
/// and not sent again.
#[test]
fn an_html_page_is_named_and_not_retried() {
    for kind in ["openai", "anthropic", "responses"] {
        let setup = Setup::new(kind);
        setup.mock.enqueue(Reply::body(
            "text/html; charset=utf-8",
            "<!DOCTYPE html>\n<html><head><title>Hotel Wi-Fi login\u{1b}[2J</title></head>\n<body>Accept the terms</body></html>",
        ));
        setup.mock.enqueue(Reply::text(&["too early"]));
        let out = setup.run("ping");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{kind}: {stderr}");
        assert!(
            stderr.contains(
                "the endpoint answered with an HTML page (text/html), not a model stream"
            ) && stderr.contains("captive portal")
                && stderr
                    .contains("first bytes: <!DOCTYPE html> <html><head><title>Hotel Wi-Fi login"),
            "{kind}: {stderr}"
        );
        assert!(!stderr.contains('\u{1b}'), "{kind}: unescaped: {stderr}");
        assert!(!stderr.contains("cut"), "{kind}: {stderr}");
        assert_eq!(setup.mock.requests().len(), 1, "{kind}: re-sent");
        assert!(!text(&out.stdout).contains("too early"), "{kind}");
    }
}

/// `Fault::CutAfter` just after the event that carries `marker` of `reply` on `wire`.
fn cut_after(wire: reasonix_mock_llm::Wire, reply: &Reply, marker: &str) -> Fault {
    let events = reasonix_mock_llm::render_events(wire, reply, "{}");
    let at = events
        .iter()
        .position(|e| e.contains(marker))
        .unwrap_or_else(|| panic!("no event carries {marker:?}: {events:?}"));
    Fault::CutAfter { events: at + 1 }
}

/// A stream cut mid-answer is replayed; stdout shows the answer once, byte for byte
/// (`HALF-` then a replayed `HALF-pong` printed `HALF-HALF-pong`). A replay that answers
/// differently is marked where it starts again, never spliced silently.
#[test]
fn a_replayed_stream_prints_the_answer_once() {
    use reasonix_mock_llm::Wire;
    for (kind, wire) in [
        ("openai", Wire::OpenAi),
        ("anthropic", Wire::Anthropic),
        ("responses", Wire::Responses),
    ] {
        // The replay repeats the answer (split differently): printed once, nothing else.
        let setup = Setup::new(kind);
        let answer = Reply::text(&["HALF-", "po", "ng 你好"]);
        let fault = cut_after(wire, &answer, "HALF-");
        setup.mock.enqueue(answer.clone().with_fault(fault));
        setup
            .mock
            .enqueue(Reply::text(&["HA", "LF-p", "ong 你", "好"]));
        let out = setup.run("ping");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{kind}: {stderr}");
        assert_eq!(setup.mock.requests().len(), 2, "{kind}: not replayed");
        assert!(stderr.contains("replaying the request"), "{kind}: {stderr}");
        assert_eq!(text(&out.stdout), "HALF-pong 你好\n", "{kind}");

        // The replay says something else: the restart is marked on stdout.
        let setup = Setup::new(kind);
        let fault = cut_after(wire, &answer, "HALF-");
        setup.mock.enqueue(answer.clone().with_fault(fault));
        setup.mock.enqueue(Reply::text(&["pong"]));
        let out = setup.run("ping");
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            "HALF-\n[the stream was cut and the replay answers differently: the answer again from its start]\npong\n",
            "{kind}"
        );
        // The result object holds the final attempt's answer only.
        let setup = Setup::new(kind);
        let fault = cut_after(wire, &answer, "HALF-");
        setup.mock.enqueue(answer.clone().with_fault(fault));
        setup.mock.enqueue(Reply::text(&["pong"]));
        let out = setup.run_with(&["--output-format", "json"], "ping");
        let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(result["result"], "pong", "{kind}");
    }
}

/// A port nothing listens on: bound, its number taken, then closed again.
fn refused_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A refused connection (nothing listens) fails fast: two attempts with a short pause, not the
/// provider's ten retries, and the error names the endpoint and says it was refused.
#[test]
fn a_refused_connection_fails_after_two_attempts() {
    let url = format!("http://127.0.0.1:{}", refused_port());
    // The default retry settings: ten retries, the whole backoff schedule without the fix.
    let setup = Setup::with_provider("openai", Some(&url), "");
    let started = Instant::now();
    let out = setup.run("ping");
    let elapsed = started.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}: {stderr}");
    assert!(
        stderr.contains(&format!("cannot reach {url}"))
            && stderr.contains("gave up after 2 attempts")
            && stderr.contains("the connection was refused"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("retrying (").count(), 1, "{stderr}");

    // No such host: the same (in the user file, as a project may not pair the key with it).
    let setup = Setup::new("openai");
    let url = "http://no-such-host.invalid";
    std::fs::write(
        setup.env.home().join("config.toml"),
        setup.env.mock_provider("openai", url, "sk-test", ""),
    )
    .unwrap();
    setup.env.project_config("");
    let started = Instant::now();
    let out = setup.run("ping");
    let elapsed = started.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}: {stderr}");
    assert!(
        stderr.contains(&format!("cannot reach {url}"))
            && stderr.contains("gave up after 2 attempts")
            && stderr.contains("could not be resolved"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("retrying (").count(), 1, "{stderr}");
}

/// A provider that accepts the request and never answers (stall timeout 300 s) is bounded by
/// `--timeout`: the run ends at the deadline with exit 4, an error naming the limit and what
/// it was waiting for, and `subtype: error_timeout` in the result object.
#[test]
fn a_stalled_provider_ends_at_the_run_deadline() {
    let setup = Setup::with_provider("openai", None, "stall_timeout_seconds = 300");
    setup
        .mock
        .enqueue(Reply::default().with_fault(Fault::Stall));
    let started = Instant::now();
    let out = setup.run_with(&["--timeout", "3s"], "ping");
    let elapsed = started.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}: {stderr}");
    assert!(
        stderr.contains("the run's time limit of 3s")
            && stderr.contains("waiting for provider `mock`")
            && stderr.contains("no response head"),
        "{stderr}"
    );
    assert_eq!(setup.mock.requests().len(), 1, "{stderr}");

    // The config key, and the JSON result says so.
    let written = std::fs::read_to_string(setup.env.project().join("reasonix.toml")).unwrap();
    setup
        .env
        .project_config(&format!("{written}\n[agent]\nrun_timeout = \"2s\"\n"));
    setup
        .mock
        .enqueue(Reply::default().with_fault(Fault::Stall));
    let started = Instant::now();
    let out = setup.run_with(&["--output-format", "json"], "ping");
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["subtype"], "error_timeout", "{result}");
    assert_eq!(result["is_error"], true);
    let message = result["result"].as_str().unwrap_or_default();
    assert!(
        message.contains("time limit of 2s") && message.contains("provider `mock`"),
        "{result}"
    );

    // A bad value is a usage error.
    let out = setup.run_with(&["--timeout", "soon"], "ping");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

/// A `Retry-After` the provider asks for that would end past the run's deadline is not waited
/// for: the run ends at once with exit 4, not after the wait, and nothing is re-sent.
#[test]
fn a_retry_after_past_the_deadline_is_not_waited_for() {
    let setup = Setup::with_provider("openai", None, "");
    setup
        .mock
        .enqueue(Reply::default().with_fault(Fault::Status {
            status: 429,
            retry_after: Some("60".into()),
            body: String::new(),
        }));
    setup.mock.enqueue(Reply::text(&["too late"]));
    let started = Instant::now();
    let out = setup.run_with(&["--timeout", "30s"], "ping");
    let elapsed = started.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}: {stderr}");
    assert!(
        stderr.contains("would start after the run's deadline") && stderr.contains("HTTP 429"),
        "{stderr}"
    );
    assert_eq!(setup.mock.requests().len(), 1, "{stderr}");
    assert!(!text(&out.stdout).contains("too late"));
}

/// Retries stop when the request's retry budget would be passed, not only after
/// `max_retries`: with 10 retries allowed and `retry_budget_seconds = 2`, backoffs of 0.5 s
/// and 1 s fit, the 2 s one does not. Each wait is one notice saying how long and why.
#[test]
fn retries_stop_at_the_retry_budget() {
    let setup = Setup::with_provider("openai", None, "max_retries = 10\nretry_budget_seconds = 2");
    for _ in 0..12 {
        setup
            .mock
            .enqueue(Reply::default().with_fault(Fault::Status {
                status: 503,
                retry_after: None,
                body: String::new(),
            }));
    }
    let started = Instant::now();
    let out = setup.run("ping");
    let elapsed = started.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}: {stderr}");
    let requests = setup.mock.requests().len();
    assert!((2..=4).contains(&requests), "{requests}: {stderr}");
    assert!(
        stderr.contains("retry budget (retry_budget_seconds = 2)"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("retrying (").count(),
        requests - 1,
        "{stderr}"
    );
    assert!(
        stderr.contains(" s: ") && stderr.contains("HTTP 503"),
        "{stderr}"
    );
}

/// A stream that goes silent midway is bounded by `--timeout` too: what was printed stays,
/// the run ends with exit 4 saying the answer had not finished.
#[test]
fn a_stream_silent_midway_ends_at_the_run_deadline() {
    let setup = Setup::with_provider("openai", None, "stall_timeout_seconds = 300");
    setup
        .mock
        .enqueue(Reply::text(&["half ", "an answer"]).with_fault(Fault::HangAfter { events: 1 }));
    let started = Instant::now();
    let out = setup.run_with(&["--timeout", "3s"], "ping");
    let elapsed = started.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}: {stderr}");
    assert!(
        stderr.contains("the run's time limit of 3s")
            && stderr.contains("the answer had not finished"),
        "{stderr}"
    );
    assert_eq!(setup.mock.requests().len(), 1, "{stderr}");
}
