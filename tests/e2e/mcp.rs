//! MCP servers end to end (issue #15): the real `reasonix run` binary against the mock LLM,
//! with real MCP servers as child processes or on loopback HTTP — the reference
//! `@modelcontextprotocol/server-everything` (stdio, legacy SSE, streamable HTTP), a server on
//! the Python SDK (tests/mcp-servers/fastmcp_server.py; stdio, streamable HTTP) and servers that
//! misbehave (tests/mcp-servers/fault_server.py). Each test scripts the model to call an MCP
//! tool as `mcp__<server>__<tool>` and checks what the model received in the next request.
//!
//! The servers come from `.ci/run` (see tests/e2e/support/mcp.rs and docs/mcp/testing.md);
//! without them a test prints why and passes, unless `REASONIX_REQUIRE_MCP_SERVERS=1`.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements, nothing from servers (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

use crate::support::{self, Env, mcp, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A temp home, workspace and project, the mock, and the provider `mock` in the project's
/// `reasonix.toml`. MCP servers go into `<home>/config.toml`, `<home>/mcp.json` or the
/// project's `.mcp.json`.
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
            "stall_timeout_seconds = 30\n",
        ));
        Setup { env, mock }
    }

    /// `<home>/config.toml` with these `[[plugins]]` entries (see [`mcp::plugin_stdio`]).
    fn user_plugins(&self, entries: &str) {
        std::fs::write(self.env.home().join("config.toml"), entries).unwrap();
    }

    /// `reasonix run --dir <workspace> <args…>`, not run yet.
    fn command(&self, args: &[&str]) -> Command {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.env.command(&all)
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).stdin(Stdio::null()).output().unwrap()
    }

    fn request(&self, i: usize) -> Value {
        let requests = self.mock.requests();
        assert!(
            requests.len() > i,
            "the model received {} request(s), not {}",
            requests.len(),
            i + 1
        );
        requests[i].json()
    }
}

/// Names of the tools offered in a request.
fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The content of the tool result with `call_id` in a request.
fn tool_result(body: &Value, call_id: &str) -> String {
    support::tool_results("openai", body)
        .into_iter()
        .find(|(id, _)| id == call_id)
        .map(|(_, content)| content)
        .unwrap_or_else(|| panic!("no tool result for {call_id} in {body}"))
}

/// The text of the last user message in a request.
fn last_user_message(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .unwrap_or_default()
}

fn assert_success(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    assert!(!stderr(out).contains("panicked"), "{}", stderr(out));
}

fn offered(body: &Value, name: &str) -> bool {
    tool_names(body).iter().any(|t| t == name)
}

/// server-everything through `reasonix run`: its tools offered as `mcp__everything__*`, a plain
/// call (`echo`), a call that reports progress (`trigger-long-running-operation`), and a
/// resource pulled into the task with `@everything:<uri>`.
fn exercise_everything(s: &Setup) {
    s.mock.enqueue_all([
        Reply::tool_calls(
            &[
                (
                    "c1",
                    "mcp__everything__echo",
                    r#"{"message":"hi from the model"}"#,
                ),
                (
                    "c2",
                    "mcp__everything__trigger-long-running-operation",
                    r#"{"duration":1,"steps":3}"#,
                ),
            ],
            2,
        ),
        Reply::text(&["everything ", "answered"]),
    ]);
    let out = s.run(&[
        "--allowed-tools",
        "mcp__everything",
        "summarise @everything:demo://resource/dynamic/text/7 please",
    ]);
    assert_success(&out);
    assert_eq!(stdout(&out), "everything answered\n");

    let first = s.request(0);
    for tool in [
        "mcp__everything__echo",
        "mcp__everything__get-sum",
        "mcp__everything__trigger-long-running-operation",
    ] {
        assert!(offered(&first, tool), "{tool}: {:?}", tool_names(&first));
    }
    let task = last_user_message(&first);
    assert!(
        task.contains("Resource 7: This is a plaintext resource"),
        "the resource was not pulled into the task: {task}"
    );

    let second = s.request(1);
    assert_eq!(tool_result(&second, "c1"), "Echo: hi from the model");
    let progress = tool_result(&second, "c2");
    assert!(
        progress.contains("Long running operation completed. Duration: 1 seconds, Steps: 3."),
        "{progress}"
    );

    // A prompt with arguments as the task (quotes group words, the last argument takes the
    // rest), a resource named beside it, and the progress of a call shown while it runs.
    s.mock.enqueue_all([
        Reply::tool_calls(
            &[(
                "c3",
                "mcp__everything__trigger-long-running-operation",
                r#"{"duration":1,"steps":2}"#,
            )],
            1,
        ),
        Reply::text(&["sunny"]),
    ]);
    let out = s.run(&[
        "--allowed-tools",
        "mcp__everything",
        "--output-format",
        "stream-json",
        "/mcp__everything__args-prompt \"New York\" New York State @everything:demo://resource/dynamic/text/3",
    ]);
    assert_success(&out);
    let task = last_user_message(&s.request(2));
    assert!(
        task.starts_with(
            "What's weather in New York, New York State @everything:demo://resource/dynamic/text/3?"
        ),
        "the prompt was not expanded with its arguments: {task}"
    );
    assert!(
        task.contains("Resource 3: This is a plaintext resource"),
        "the resource named beside the prompt was not read: {task}"
    );
    // The init line names the servers and their status, as Claude Code's does.
    let init = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "system" && v["subtype"] == "init")
        .expect("an init line");
    assert_eq!(
        init["mcp_servers"],
        serde_json::json!([{"name": "everything", "status": "connected"}]),
        "{init}"
    );
    let progress: Vec<Value> = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "tool_progress" && v["id"] == "c3")
        .collect();
    assert!(
        !progress.is_empty(),
        "no progress line for the running call: {}",
        stdout(&out)
    );
}

/// A prompt command that names no prompt, or misses a required argument, stops the run
/// before anything reaches the model, saying what was wrong.
fn prompt_errors_stop_the_run(s: &Setup) {
    let out = s.run(&["/mcp__everything__args-prompt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the argument `city` is required"),
        "{}",
        stderr(&out)
    );
    let out = s.run(&["/mcp__everything__no-such-prompt", "x"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unknown command /mcp__everything__no-such-prompt"),
        "{}",
        stderr(&out)
    );
    assert!(s.mock.requests().is_empty(), "a request was sent");
}

#[test]
fn a_prompt_command_that_cannot_be_expanded_stops_the_run() {
    let Some((command, args)) = mcp::everything_stdio() else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio("everything", &command, &args, ""));
    prompt_errors_stop_the_run(&s);
}

#[test]
fn everything_over_stdio_tools_progress_and_a_resource() {
    let Some((command, args)) = mcp::everything_stdio() else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio("everything", &command, &args, ""));
    exercise_everything(&s);
}

#[test]
fn everything_over_streamable_http_tools_progress_and_a_resource() {
    let Some(server) = mcp::everything_http("streamableHttp") else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_remote(
        "everything",
        "http",
        &server.url("/mcp"),
        "",
    ));
    exercise_everything(&s);
}

#[test]
fn everything_over_legacy_sse_tools_progress_and_a_resource() {
    let Some(server) = mcp::everything_http("sse") else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_remote(
        "everything",
        "sse",
        &server.url("/sse"),
        "",
    ));
    exercise_everything(&s);
}

/// The FastMCP server through `reasonix run`: a tool with arguments, one with progress, a
/// resource and a resource template as `@fastmcp:<uri>`.
fn exercise_fastmcp(s: &Setup) {
    s.mock.enqueue_all([
        Reply::tool_calls(
            &[
                ("c1", "mcp__fastmcp__add", r#"{"a":2,"b":40}"#),
                ("c2", "mcp__fastmcp__count_with_progress", r#"{"steps":3}"#),
            ],
            1,
        ),
        Reply::text(&["fastmcp answered"]),
    ]);
    let out = s.run(&[
        "--allowed-tools",
        "mcp__fastmcp",
        "use @fastmcp:notes://greeting and @fastmcp:notes://topic/otters",
    ]);
    assert_success(&out);
    assert_eq!(stdout(&out), "fastmcp answered\n");

    let first = s.request(0);
    for tool in [
        "mcp__fastmcp__add",
        "mcp__fastmcp__count_with_progress",
        "mcp__fastmcp__peek",
    ] {
        assert!(offered(&first, tool), "{tool}: {:?}", tool_names(&first));
    }
    let task = last_user_message(&first);
    assert!(task.contains("hello from the fastmcp resource"), "{task}");
    assert!(task.contains("notes about otters"), "{task}");

    let second = s.request(1);
    assert!(
        tool_result(&second, "c1").contains("sum=42"),
        "{}",
        tool_result(&second, "c1")
    );
    assert!(
        tool_result(&second, "c2").contains("counted to 3"),
        "{}",
        tool_result(&second, "c2")
    );

    // The prompt as the task. Its text names a resource: the server's words, never read.
    s.mock.enqueue(Reply::text(&["reviewed"]));
    let out = s.run(&["/mcp__fastmcp__review", "Rust", "error handling"]);
    assert_success(&out);
    let task = last_user_message(&s.request(2));
    assert!(
        task.starts_with("Review this Rust code, focusing on error handling."),
        "{task}"
    );
    assert!(
        !task.contains("hello from the fastmcp resource"),
        "a reference in the server's prompt text was read: {task}"
    );

    // A repository's custom command: its template is sent, but only the references the user
    // typed are read, never one the template (a file of the repository) names.
    let commands = s.env.workspace().join(".claude").join("commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("topic.md"),
        "Summarise $ARGUMENTS. Also use @fastmcp:notes://greeting\n",
    )
    .unwrap();
    s.mock.enqueue(Reply::text(&["summarised"]));
    let out = s.run(&["/topic @fastmcp:notes://topic/otters"]);
    assert_success(&out);
    let task = last_user_message(&s.request(3));
    assert!(
        task.starts_with("Summarise @fastmcp:notes://topic/otters. Also use"),
        "{task}"
    );
    assert!(task.contains("notes about otters"), "{task}");
    assert!(
        !task.contains("hello from the fastmcp resource"),
        "a reference in the repository's template was read: {task}"
    );
}

#[test]
fn fastmcp_over_stdio_tools_progress_and_resources() {
    let Some((command, args)) = mcp::fastmcp_stdio() else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio("fastmcp", &command, &args, ""));
    exercise_fastmcp(&s);
}

/// A server's own `call_timeout_seconds` bounds its prompt and resource requests too, not only
/// its tool calls: a prompt that takes 60 s stops the run after about 2.
#[test]
fn a_servers_call_timeout_bounds_its_prompt_requests() {
    let Some((command, args)) = mcp::fastmcp_stdio() else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio(
        "fastmcp",
        &command,
        &args,
        "call_timeout_seconds = 2",
    ));
    let started = Instant::now();
    let out = s.run(&["/mcp__fastmcp__slow", "60"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "the prompt request was not cut at 2 s: {:?}",
        started.elapsed()
    );
    let err = stderr(&out);
    assert!(
        err.contains("prompts/get") && err.contains("2 s"),
        "the timeout is not named: {err}"
    );
    assert!(s.mock.requests().is_empty());
}

#[test]
fn fastmcp_over_streamable_http_tools_progress_and_resources() {
    let Some(server) = mcp::fastmcp_http() else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_remote(
        "fastmcp",
        "http",
        &server.url("/mcp"),
        "",
    ));
    exercise_fastmcp(&s);
}

/// A tool the server marks `readOnlyHint` is still a writer for an untrusted server: a headless
/// run without an allow rule refuses it, and the model is told how to allow it.
#[test]
fn read_only_hint_of_an_untrusted_server_does_not_make_a_reader() {
    let Some((command, args)) = mcp::fastmcp_stdio() else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio("fastmcp", &command, &args, ""));
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__fastmcp__peek", r#"{"key":"k"}"#)], 1),
        Reply::text(&["refused"]),
    ]);
    let out = s.run(&["peek at k"]);
    assert_success(&out);
    assert!(offered(&s.request(0), "mcp__fastmcp__peek"));
    let result = tool_result(&s.request(1), "c1");
    assert!(result.starts_with("Permission needed"), "{result}");
    assert!(!result.contains("peeked k"), "{result}");
}

/// A project's `.mcp.json` as Claude Code writes it (stdio with `type`, `env` with
/// `${VAR:-default}`), unchanged: without `--trust-mcp` a headless run does not start it, and
/// says so; with it, its tools work.
#[test]
fn claude_code_project_mcp_json_works_unchanged_once_trusted() {
    let Some(entry) = mcp::everything() else {
        return;
    };
    let s = Setup::new();
    let claude_code_file = serde_json::json!({
        "mcpServers": {
            "everything": {
                "type": "stdio",
                "command": "node",
                "args": [entry, "stdio"],
                "env": { "REASONIX_MCP_MARK": "${REASONIX_MCP_TEST_UNSET:-marked-by-default}" }
            }
        }
    });
    std::fs::write(
        s.env.project().join(".mcp.json"),
        serde_json::to_string_pretty(&claude_code_file).unwrap(),
    )
    .unwrap();

    // Not approved: not started, and the user is told how to approve it.
    s.mock.enqueue(Reply::text(&["no servers"]));
    let out = s.run(&["--yolo", "anything there?"]);
    assert_success(&out);
    assert!(
        !tool_names(&s.request(0))
            .iter()
            .any(|t| t.starts_with("mcp__")),
        "{:?}",
        tool_names(&s.request(0))
    );
    let err = stderr(&out);
    assert!(
        err.contains(".mcp.json") && err.contains("--trust-mcp"),
        "no word about the unapproved .mcp.json: {err}"
    );

    // Approved for this run.
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__everything__get-env", "{}")], 1),
        Reply::text(&["trusted"]),
    ]);
    let out = s.run(&["--yolo", "--trust-mcp", "show the env"]);
    assert_success(&out);
    let env = tool_result(&s.request(2), "c1");
    assert!(env.contains("marked-by-default"), "{env}");
}

/// `<home>/mcp.json` (the user's own, Claude Code's schema) needs no approval.
#[test]
fn user_mcp_json_servers_start_without_approval() {
    let Some((command, args)) = mcp::everything_stdio() else {
        return;
    };
    let s = Setup::new();
    // A broken entry beside it (a variable nobody set) costs only itself.
    mcp::write_mcp_json(
        &s.env.home().join("mcp.json"),
        &[
            ("everything", mcp::mcp_json_stdio(&command, &args)),
            (
                "needs-token",
                serde_json::json!({"type": "http", "url": "https://example.invalid/mcp",
                    "headers": {"Authorization": "Bearer ${REASONIX_TEST_UNSET_TOKEN}"}}),
            ),
        ],
    );
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__everything__get-sum", r#"{"a":1,"b":2}"#)], 1),
        Reply::text(&["summed"]),
    ]);
    let out = s.run(&["--allowed-tools", "mcp__everything__get-sum", "add"]);
    assert_success(&out);
    let err = stderr(&out);
    assert!(
        err.contains("mcp.json")
            && err.contains("`needs-token`")
            && err.contains("REASONIX_TEST_UNSET_TOKEN"),
        "the broken entry is not named with its file and variable: {err}"
    );
    assert!(offered(&s.request(0), "mcp__everything__get-sum"));
    assert_eq!(tool_result(&s.request(1), "c1"), "The sum of 1 and 2 is 3.");
}

/// A Reasonix-Go `config.toml` with `[[plugins]]` using every key of the original: the enabled
/// servers start and their tools work; `auto_start = false` keeps one stopped.
#[test]
fn reasonix_go_plugins_config_works_unchanged() {
    let Some(entry) = mcp::everything() else {
        return;
    };
    let Some((python, fastmcp_args)) = mcp::fastmcp_stdio() else {
        return;
    };
    let entry = entry.display().to_string();
    let fastmcp = &fastmcp_args[0];
    let s = Setup::new();
    let go_config = format!(
        r#"# ~/.reasonix/config.toml of Reasonix-Go
default_model = "mock"

[tools]
mcp_call_timeout_seconds = 300

[[plugins]]
name    = "everything"
type    = "stdio"
command = "node"
args    = ["{entry}", "stdio"]
env     = {{ REASONIX_MCP_MARK = "go-config-mark" }}
startup_timeout_seconds = 60
call_timeout_seconds    = 60
tool_timeout_seconds    = {{ "trigger-long-running-operation" = 30 }}
concurrency = "serial"

[[plugins]]
name    = "fastmcp"
command = "{python}"
args    = ["{fastmcp}"]
auto_start = true
concurrency = "parallel"

[[plugins]]
name       = "dormant"
command    = "{python}"
args       = ["{fastmcp}"]
auto_start = false
"#
    );
    s.user_plugins(&go_config);
    s.mock.enqueue_all([
        Reply::tool_calls(
            &[
                ("c1", "mcp__everything__get-env", "{}"),
                ("c2", "mcp__fastmcp__add", r#"{"a":1,"b":1}"#),
            ],
            1,
        ),
        Reply::text(&["go config works"]),
    ]);
    let out = s.run(&["--yolo", "check the servers"]);
    assert_success(&out);
    let err = stderr(&out);
    assert!(!err.contains("not loaded"), "{err}");
    // The original's default call cap for MCP tools is one of its MCP keys too.
    assert!(!err.contains("mcp_call_timeout_seconds"), "{err}");

    let first = s.request(0);
    assert!(offered(&first, "mcp__everything__get-env"));
    assert!(offered(&first, "mcp__fastmcp__add"));
    assert!(
        !tool_names(&first)
            .iter()
            .any(|t| t.starts_with("mcp__dormant__")),
        "auto_start = false started the server: {:?}",
        tool_names(&first)
    );
    let second = s.request(1);
    assert!(tool_result(&second, "c1").contains("go-config-mark"));
    assert!(tool_result(&second, "c2").contains("sum=2"));
}

/// A server that never answers `initialize` fails after its startup timeout; the run goes on
/// and another server's tool works.
#[test]
fn a_server_that_never_initializes_times_out_and_the_others_work() {
    let Some((fault, fault_args)) = mcp::fault_server("never-init", &[]) else {
        return;
    };
    let Some((command, args)) = mcp::everything_stdio() else {
        return;
    };
    let s = Setup::new();
    let pids = s.env.root.path().join("silent.pids");
    s.user_plugins(&format!(
        "{}{}",
        mcp::plugin_stdio(
            "silent",
            &fault,
            &fault_args,
            &format!("startup_timeout_seconds = 3\n{}", mcp::pidfile_env(&pids))
        ),
        mcp::plugin_stdio("everything", &command, &args, "")
    ));
    s.mock.enqueue_all([
        Reply::tool_calls(
            &[("c1", "mcp__everything__echo", r#"{"message":"still here"}"#)],
            1,
        ),
        Reply::text(&["done"]),
    ]);
    let started = Instant::now();
    let out = s.run(&["--allowed-tools", "mcp__everything", "echo"]);
    assert_success(&out);
    // Generous: the timeout is 3 s, the machine is slow and shared.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert!(offered(&s.request(0), "mcp__everything__echo"));
    assert!(
        !tool_names(&s.request(0))
            .iter()
            .any(|t| t.starts_with("mcp__silent__"))
    );
    assert_eq!(tool_result(&s.request(1), "c1"), "Echo: still here");
    let err = stderr(&out);
    assert!(
        err.contains("`silent`") && err.contains("within 3 s"),
        "the failed server is not reported with its timeout: {err}"
    );
    // It ignores a closed stdin; it must not outlive the run all the same.
    mcp::assert_no_server_outlives(&pids, Duration::from_secs(10));
}

/// A server that exits in the middle of a call: the call fails with an error the model can
/// read (naming the server), and the next call restarts the server and succeeds.
#[test]
fn a_server_that_exits_mid_call_fails_the_call_and_restarts_on_the_next_use() {
    let s = Setup::new();
    let marker = s.env.root.path().join("crashed-once");
    let Some((fault, fault_args)) = mcp::fault_server("exit-mid-call", &[marker.to_str().unwrap()])
    else {
        return;
    };
    s.user_plugins(&mcp::plugin_stdio("crashy", &fault, &fault_args, ""));
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__crashy__crash", "{}")], 1),
        Reply::tool_calls(&[("c2", "mcp__crashy__crash", "{}")], 1),
        Reply::text(&["recovered"]),
    ]);
    let out = s.run(&["--allowed-tools", "mcp__crashy", "crash it"]);
    assert_success(&out);
    assert!(marker.exists(), "the server never got the first call");
    assert!(offered(&s.request(0), "mcp__crashy__crash"));

    let failed = tool_result(&s.request(1), "c1");
    assert!(
        failed.contains("crashy"),
        "the error names no server: {failed}"
    );
    assert!(
        !failed.contains("crash survived"),
        "the first call cannot have succeeded: {failed}"
    );
    let retried = tool_result(&s.request(2), "c2");
    assert_eq!(retried, "crash survived: this is the restarted server");
}

/// The peak RSS (KiB) of a `reasonix run` answering at once, with no MCP server: the baseline
/// the stderr-flood test compares against.
fn baseline_peak_rss_kib() -> u64 {
    let s = Setup::new();
    s.mock.enqueue(Reply::text(&["baseline"]));
    let (out, peak) = mcp::output_with_peak_rss(s.command(&["hello"]));
    assert_success(&out);
    peak
}

/// A server that writes hundreds of MB to stderr while it works: the run completes, the tool
/// answers (so its stderr was drained all along), and the memory of `reasonix` stays bounded.
#[test]
fn a_server_flooding_stderr_leaves_memory_bounded() {
    const FLOOD_MB: u64 = 300;
    let Some((fault, fault_args)) = mcp::fault_server("stderr-flood", &[&FLOOD_MB.to_string()])
    else {
        return;
    };
    let baseline = baseline_peak_rss_kib();
    let s = Setup::new();
    let pids = s.env.root.path().join("noisy.pids");
    s.user_plugins(&mcp::plugin_stdio(
        "noisy",
        &fault,
        &fault_args,
        &format!("call_timeout_seconds = 180\n{}", mcp::pidfile_env(&pids)),
    ));
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__noisy__flood_status", "{}")], 1),
        Reply::text(&["survived the flood"]),
    ]);
    let (out, peak) =
        mcp::output_with_peak_rss(s.command(&["--allowed-tools", "mcp__noisy", "how loud is it"]));
    assert_success(&out);
    assert!(offered(&s.request(0), "mcp__noisy__flood_status"));
    let status = tool_result(&s.request(1), "c1");
    let written: u64 = status
        .strip_prefix("stderr bytes written: ")
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{status}"));
    assert!(
        written >= FLOOD_MB * 1024 * 1024,
        "the server's stderr was not drained: {written} bytes written"
    );
    eprintln!(
        "stderr flood: {written} bytes drained; peak RSS {peak} KiB, {baseline} KiB without a server"
    );
    // Bounded: far below the flood, within 64 MiB of a run without any server.
    assert!(
        peak < baseline + 64 * 1024,
        "peak RSS {peak} KiB with {FLOOD_MB} MB of stderr, {baseline} KiB without a server"
    );
    assert!(
        stderr(&out).len() < 1024 * 1024,
        "the flood reached the user: {} bytes of stderr",
        stderr(&out).len()
    );
    mcp::assert_no_server_outlives(&pids, Duration::from_secs(10));
}

/// A tool answering with 50 MB of text (more than any frame may be) and one with 8 MB: the
/// model receives a bounded result each time, and `reasonix` does not hold the 50 MB.
#[test]
fn a_fifty_megabyte_result_reaches_the_model_bounded() {
    let Some((fault, fault_args)) = mcp::fault_server("huge-result", &["50"]) else {
        return;
    };
    let baseline = baseline_peak_rss_kib();
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio("huge", &fault, &fault_args, ""));
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__huge__huge", "{}")], 1),
        Reply::tool_calls(&[("c2", "mcp__huge__huge", r#"{"mb":1}"#)], 1),
        Reply::text(&["bounded"]),
    ]);
    let (out, peak) =
        mcp::output_with_peak_rss(s.command(&["--allowed-tools", "mcp__huge", "fetch it all"]));
    assert_success(&out);
    assert!(offered(&s.request(0), "mcp__huge__huge"));
    eprintln!("huge results: peak RSS {peak} KiB, {baseline} KiB without a server");
    for (request, call) in [(1, "c1"), (2, "c2")] {
        let result = tool_result(&s.request(request), call);
        assert!(
            result.len() < 1024 * 1024,
            "{call}: the model received {} bytes",
            result.len()
        );
        assert!(
            s.mock.requests()[request].body.len() < 2 * 1024 * 1024,
            "{call}: request of {} bytes",
            s.mock.requests()[request].body.len()
        );
    }
    // 50 MB: an error naming the server; 8 MB: the head of the text, cut.
    let too_big = tool_result(&s.request(1), "c1");
    assert!(too_big.contains("huge"), "{too_big}");
    assert!(!too_big.contains("0123456789abcdef"), "{too_big}");
    let cut = tool_result(&s.request(2), "c2");
    assert!(cut.contains("HUGE-START"), "{}", &cut[..cut.len().min(300)]);
    assert!(
        peak < baseline + 100 * 1024,
        "peak RSS {peak} KiB after a 50 MB result, {baseline} KiB without a server"
    );
}

/// A response that is not JSON and one of the wrong shape: each call fails with a clear error
/// naming the server, and `reasonix` neither crashes nor hangs.
#[test]
fn malformed_responses_fail_the_call_clearly() {
    let Some((fault, fault_args)) = mcp::fault_server("malformed", &[]) else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio(
        "broken",
        &fault,
        &fault_args,
        "call_timeout_seconds = 5",
    ));
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__broken__wrong_shape", "{}")], 1),
        Reply::tool_calls(&[("c2", "mcp__broken__garbage", "{}")], 1),
        Reply::text(&["coped"]),
    ]);
    let started = Instant::now();
    let out = s.run(&["--allowed-tools", "mcp__broken", "call the broken server"]);
    assert_success(&out);
    assert_eq!(stdout(&out), "coped\n");
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "{:?}",
        started.elapsed()
    );
    let first = s.request(0);
    for tool in ["mcp__broken__garbage", "mcp__broken__wrong_shape"] {
        assert!(offered(&first, tool), "{tool}: {:?}", tool_names(&first));
    }
    for (request, call) in [(1, "c1"), (2, "c2")] {
        let result = tool_result(&s.request(request), call);
        assert!(result.contains("broken"), "{call}: {result}");
        let lower = result.to_lowercase();
        assert!(
            ["error", "invalid", "malformed", "timed out", "failed"]
                .iter()
                .any(|word| lower.contains(word)),
            "{call}: not an error: {result}"
        );
    }
}

/// `notifications/tools/list_changed` after a call: the tool set offered within the running turn
/// stays the same (the prompt prefix changes only at a turn boundary).
#[test]
fn list_changed_does_not_change_the_tools_mid_turn() {
    let Some((fault, fault_args)) = mcp::fault_server("list-changed", &[]) else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio("shifty", &fault, &fault_args, ""));
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__shifty__switch", "{}")], 1),
        Reply::text(&["switched"]),
    ]);
    let out = s.run(&["--allowed-tools", "mcp__shifty", "switch"]);
    assert_success(&out);
    let first = s.request(0);
    let second = s.request(1);
    assert!(offered(&first, "mcp__shifty__before_switch"));
    assert_eq!(tool_result(&second, "c1"), "switched");
    assert_eq!(
        tool_names(&first),
        tool_names(&second),
        "the tools changed inside a turn"
    );
    assert_eq!(first["tools"], second["tools"]);
}

/// A per-tool timeout below the server's: the slow call fails with the limit named, well before
/// it would have finished, and the server (told to cancel) answers the next call.
#[test]
fn a_per_tool_timeout_fails_that_call_and_the_server_stays_up() {
    let Some((command, args)) = mcp::everything_stdio() else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio(
        "everything",
        &command,
        &args,
        "tool_timeout_seconds = { \"trigger-long-running-operation\" = 2 }",
    ));
    s.mock.enqueue_all([
        Reply::tool_calls(
            &[(
                "c1",
                "mcp__everything__trigger-long-running-operation",
                r#"{"duration":60,"steps":60}"#,
            )],
            1,
        ),
        Reply::tool_calls(
            &[("c2", "mcp__everything__echo", r#"{"message":"after"}"#)],
            1,
        ),
        Reply::text(&["done"]),
    ]);
    let started = Instant::now();
    let out = s.run(&["--allowed-tools", "mcp__everything", "run the long one"]);
    assert_success(&out);
    assert!(
        started.elapsed() < Duration::from_secs(45),
        "the 60 s call was not cut at its 2 s limit: {:?}",
        started.elapsed()
    );
    let timed_out = tool_result(&s.request(1), "c1");
    assert!(
        timed_out.contains("everything") && timed_out.contains("2 s"),
        "the timeout does not name the server and the limit: {timed_out}"
    );
    assert_eq!(tool_result(&s.request(2), "c2"), "Echo: after");
}

/// Ctrl-C during an MCP call: the server is told (`notifications/cancelled` with the call's
/// request id) before Reasonix exits.
#[test]
fn ctrl_c_sends_the_server_a_cancellation_for_the_running_call() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let log_arg = log.display().to_string();
    let Some((fault, fault_args)) = mcp::fault_server("cancel-log", &[&log_arg]) else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&mcp::plugin_stdio("waiter", &fault, &fault_args, ""));
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__waiter__wait", "{}")], 1),
        Reply::text(&["unused"]),
    ]);
    let mut child = s
        .command(&["--allowed-tools", "mcp__waiter", "wait for it"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
    let started = Instant::now();
    while !read_log().contains("started") {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the call never reached the server"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let request_id = read_log()
        .lines()
        .find_map(|l| l.strip_prefix("started ").map(str::to_string))
        .unwrap();
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "no exit after Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_ne!(status.code(), Some(0), "a cancelled run reported success");
    let logged = read_log();
    assert!(
        logged
            .lines()
            .any(|l| l.starts_with(&format!("cancelled {request_id}"))),
        "the server was not told the call {request_id} was cancelled: {logged}"
    );
}

/// An untrusted workspace's `reasonix.toml` `[[plugins]]` server is not started, and the run says
/// so (naming the server, the file and what would start it) instead of dropping it silently.
#[test]
fn an_untrusted_project_tomls_server_is_named_not_started() {
    let env = Env::untrusted();
    let mock = MockLlm::start().unwrap();
    std::fs::write(
        env.home().join("config.toml"),
        env.mock_provider("openai", &mock.base_url(), "sk-test", ""),
    )
    .unwrap();
    let marker = env.root.path().join("started");
    std::fs::write(
        env.project().join("reasonix.toml"),
        format!(
            "[[plugins]]\nname = \"tp\"\ncommand = \"sh\"\nargs = [\"-c\", \"touch '{}'\"]\n",
            marker.display()
        ),
    )
    .unwrap();
    mock.enqueue(Reply::text(&["fine"]));
    let ws = env.workspace();
    let out = env.reasonix(&["run", "--dir", ws.to_str().unwrap(), "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("MCP server `tp`")
            && err.contains("reasonix.toml")
            && err.contains("the workspace is not trusted"),
        "{err}"
    );
    assert!(
        !marker.exists(),
        "an untrusted project's server was started"
    );
}

/// Two servers' tools never share a name (issue #32 item 4): server `x__y`'s tool `z` would be
/// `mcp__x__y__z` like server `x`'s tool `y__z`, and a rule `mcp__x` would cover both. A server
/// name with `__` is refused, naming why; two tools of one server that come out the same are
/// both left out; two entries of one file with the same name are both refused.
#[test]
fn mcp_names_never_collide() {
    let Some((fault, x_args)) = mcp::fault_server("named", &["y__z,a.b,a_b,plain"]) else {
        return;
    };
    let Some((_, xy_args)) = mcp::fault_server("named", &["z"]) else {
        return;
    };
    let s = Setup::new();
    s.user_plugins(&format!(
        "{}{}",
        mcp::plugin_stdio("x", &fault, &x_args, ""),
        mcp::plugin_stdio("x__y", &fault, &xy_args, "")
    ));
    let twice = format!(
        r#"{{"mcpServers": {{"d": {{"command": "{fault}", "args": ["a"]}}, "d": {{"command": "{fault}", "args": ["b"]}}}}}}"#
    );
    std::fs::write(s.env.home().join("mcp.json"), twice).unwrap();
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__x__y__z", "{}")], 1),
        Reply::text(&["done"]),
    ]);
    let out = s.run(&["--allowed-tools", "mcp__x", "call it"]);
    assert_success(&out);
    let names = tool_names(&s.request(0));
    let mcp_names: Vec<&String> = names.iter().filter(|n| n.starts_with("mcp__")).collect();
    assert_eq!(
        mcp_names,
        ["mcp__x__plain", "mcp__x__y__z"],
        "offered: {names:?}"
    );
    // The one tool of that name is server `x`'s, and the rule `mcp__x` covered it.
    assert_eq!(tool_result(&s.request(1), "c1"), "called y__z");
    let err = stderr(&out);
    for said in [
        "cannot contain `__`",
        "would all be named `mcp__x__a_b`",
        "2 entries of this file name the server `d`",
    ] {
        assert!(err.contains(said), "no word `{said}` in: {err}");
    }
}

/// A stdio line that does not end (issue #32 item 5): the call it answers fails once the line
/// passes the 16 MiB limit for one message, not at the call timeout, and the server's next
/// answer is read normally.
#[test]
fn a_line_past_the_frame_limit_fails_its_call_at_the_limit() {
    let Some((fault, args)) = mcp::fault_server("endless-line", &["20"]) else {
        return;
    };
    let s = Setup::new();
    // A call timeout the test would hit, were the line read to its end.
    s.user_plugins(&mcp::plugin_stdio(
        "endless",
        &fault,
        &args,
        "call_timeout_seconds = 90\n",
    ));
    s.mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__endless__endless", "{}")], 1),
        Reply::tool_calls(&[("c2", "mcp__endless__after", "{}")], 2),
        Reply::text(&["done"]),
    ]);
    let out = s.run(&["--allowed-tools", "mcp__endless", "call it"]);
    assert_success(&out);
    let first = tool_result(&s.request(1), "c1");
    assert!(
        first.contains("larger than the 16 MiB limit"),
        "the oversized answer did not fail at the limit: {}",
        first.chars().take(300).collect::<String>()
    );
    assert_eq!(tool_result(&s.request(2), "c2"), "after");
}

/// Past `[tools] mcp_schema_budget` (8 KiB by default) the MCP tools are not offered one by
/// one but through `mcp_tools` (issue #24 §3): the first request stays small however many
/// servers are connected, a search brings a tool's schema when the model needs it, and a call
/// through it is judged as the tool it names (an allow rule for that server lets it run, a
/// deny rule for the tool refuses it).
#[test]
fn past_the_schema_budget_mcp_tools_are_reached_through_one_tool() {
    let Some((command, args)) = mcp::everything_stdio() else {
        return;
    };
    let servers = |n: usize| -> String {
        (0..n)
            .map(|i| {
                mcp::plugin_stdio(
                    &format!("every{i}"),
                    &command,
                    &args,
                    "startup_timeout_seconds = 60\n",
                )
            })
            .collect()
    };
    let mut sizes = Vec::new();
    for n in [0, 1, 2, 5] {
        let s = Setup::new();
        s.user_plugins(&servers(n));
        s.mock.enqueue(Reply::text(&["ok"]));
        assert_success(&s.run(&["--yolo", "hi"]));
        let body = s.request(0);
        let names = tool_names(&body);
        let direct = names.iter().filter(|t| t.starts_with("mcp__")).count();
        match n {
            0 => assert!(direct == 0 && !names.contains(&"mcp_tools".to_string())),
            1 => assert!(
                direct > 5 && !names.contains(&"mcp_tools".to_string()),
                "{names:?}"
            ),
            _ => assert!(
                direct == 0 && names.contains(&"mcp_tools".to_string()),
                "{names:?}"
            ),
        }
        sizes.push((n, body["tools"].to_string().len(), body.to_string().len()));
    }
    println!("servers, tools bytes, request bytes: {sizes:?}");
    let tools_bytes = |n: usize| sizes.iter().find(|s| s.0 == n).unwrap().1;
    // The index of names grows with the servers; their schemas do not ride along.
    assert!(tools_bytes(5) < tools_bytes(1), "{sizes:?}");
    assert!(tools_bytes(5) - tools_bytes(0) < 6 * 1024, "{sizes:?}");

    let s = Setup::new();
    s.user_plugins(&servers(2));
    s.mock.enqueue_all([
        Reply::tool_calls(
            &[("c1", "mcp_tools", r#"{"action":"search","query":"echo"}"#)],
            1,
        ),
        Reply::tool_calls(
            &[
                (
                    "c2",
                    "mcp_tools",
                    r#"{"action":"call","name":"mcp__every1__echo","arguments":{"message":"via the index"}}"#,
                ),
                (
                    "c3",
                    "mcp_tools",
                    r#"{"action":"call","name":"mcp__every0__echo","arguments":{"message":"denied"}}"#,
                ),
            ],
            2,
        ),
        Reply::text(&["done"]),
    ]);
    let out = s.run(&[
        "--allowed-tools",
        "mcp__every1",
        "--disallowed-tools",
        "mcp__every0__echo",
        "echo something",
    ]);
    assert_success(&out);
    let found = tool_result(&s.request(1), "c1");
    assert!(
        found.contains("mcp__every0__echo") && found.contains("\"message\""),
        "the search did not bring the schema: {found}"
    );
    assert_eq!(tool_result(&s.request(2), "c2"), "Echo: via the index");
    let denied = tool_result(&s.request(2), "c3");
    assert!(
        denied.contains("mcp__every0__echo") && !denied.contains("Echo: denied"),
        "the deny rule did not hold through mcp_tools: {denied}"
    );
}

/// Issue #26 item 8: a server added with `reasonix mcp add` (local scope, the default, as in
/// Claude Code) starts in `reasonix run` in its workspace, and in no other.
#[test]
fn a_local_server_starts_in_its_workspace_only() {
    let Some((command, args)) = mcp::fault_server("named", &["greet"]) else {
        return;
    };
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    // The provider in the user's own file, so that any directory finds it.
    std::fs::write(
        env.home().join("config.toml"),
        env.mock_provider("openai", &mock.base_url(), "sk-test", ""),
    )
    .unwrap();
    let mut add = vec!["mcp", "add", "hello", "--", command.as_str()];
    add.extend(args.iter().map(String::as_str));
    let out = env.reasonix(&add);
    assert_success(&out);
    let ws = env.workspace();
    let elsewhere = env.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let run = |cwd: &std::path::Path| {
        env.command(&[
            "run",
            "--dir",
            ws.to_str().unwrap(),
            "--allowed-tools",
            "mcp__hello",
            "greet",
        ])
        .current_dir(cwd)
        .output()
        .unwrap()
    };

    mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__hello__greet", "{}")], 1),
        Reply::text(&["greeted"]),
    ]);
    let out = run(&env.project());
    assert_success(&out);
    let requests = mock.requests();
    assert!(offered(&requests[0].json(), "mcp__hello__greet"));
    assert_eq!(tool_result(&requests[1].json(), "c1"), "called greet");

    mock.enqueue(Reply::text(&["nothing here"]));
    let out = run(&elsewhere);
    assert_success(&out);
    let last = mock.requests().pop().unwrap().json();
    assert!(
        !offered(&last, "mcp__hello__greet"),
        "{:?}",
        tool_names(&last)
    );
}
