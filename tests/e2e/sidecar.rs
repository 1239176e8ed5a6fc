//! The sidecar tier end to end: a real Python sidecar (`tests/sidecars/probe.py`, standard
//! library only) installed with `reasonix plugin install`, driven through real `reasonix run`s
//! against the mock LLM. Interceptors block, replace and observe; a sidecar tool is called by
//! the model; crashes, hangs, oversized frames, early frames, ids never sent and declarations
//! outside the manifest each fail cleanly, naming the sidecar.

use crate::support::{Env, repo_root, stderr, stdout, tool_results};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Output;

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    fn new() -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let config = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
        env.project_config(&config);
        Setup { env, mock }
    }

    /// Where the probe appends every message it receives: in the workspace, the one place a
    /// sandboxed sidecar may write.
    fn log_path(&self) -> PathBuf {
        self.env.workspace().join("probe-log.jsonl")
    }

    /// A package directory holding the probe, its config (with the log path) and a manifest
    /// whose `runtime` is `runtime` plus the probe command.
    fn package(&self, name: &str, mut runtime: Value, mut config: Value) -> PathBuf {
        let dir = self.env.root.path().join(format!("src-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(
            repo_root().join("tests/sidecars/probe.py"),
            dir.join("probe.py"),
        )
        .unwrap();
        config["log"] = self.log_path().to_str().unwrap().into();
        std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
        runtime["command"] = "python3".into();
        runtime["args"] = json!([
            "${REASONIX_PLUGIN_ROOT}/probe.py",
            "${REASONIX_PLUGIN_ROOT}/config.json"
        ]);
        let manifest = json!({
            "apiVersion": "reasonix.io/plugin/v2",
            "name": name,
            "version": "0.1.0",
            "description": "test probe",
            "runtime": runtime,
        });
        std::fs::write(dir.join("reasonix-plugin.json"), manifest.to_string()).unwrap();
        dir
    }

    fn install(&self, dir: &std::path::Path) -> Output {
        let out = self
            .env
            .reasonix(&["plugin", "install", dir.to_str().unwrap(), "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out
    }

    /// Install an interceptor probe subscribed to the points of `config["points"]`.
    fn interceptor(&self, config: Value, extra: Value) -> Output {
        self.interceptor_named("probe", config, extra)
    }

    fn interceptor_named(&self, name: &str, config: Value, extra: Value) -> Output {
        let points: Vec<String> = config["points"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let mut runtime = json!({"capabilities": ["interceptors"], "intercepts": points});
        if let (Some(r), Some(e)) = (runtime.as_object_mut(), extra.as_object()) {
            r.extend(e.clone());
        }
        let dir = self.package(name, runtime, config);
        self.install(&dir)
    }

    fn run(&self, args: &[&str]) -> Output {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.env.reasonix(&all)
    }

    /// Every message the probe received.
    fn log(&self) -> Vec<Value> {
        std::fs::read_to_string(self.log_path())
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The `extension/intercept` params the probe received, in order.
    fn intercepts(&self) -> Vec<Value> {
        self.log()
            .into_iter()
            .filter(|m| m["method"] == "extension/intercept")
            .map(|m| m["params"].clone())
            .collect()
    }

    fn result(&self, i: usize, id: &str) -> String {
        tool_results("openai", &self.mock.requests()[i].json())
            .into_iter()
            .find(|(call, _)| call == id)
            .map(|(_, content)| content)
            .unwrap_or_else(|| panic!("no result for {id} in request {i}"))
    }

    fn notes(&self) {
        std::fs::write(self.env.workspace().join("notes.txt"), "ordinary notes\n").unwrap();
    }

    fn read_notes_script(&self) {
        self.mock.enqueue(Reply::tool_calls(
            &[("c1", "read_file", r#"{"path":"notes.txt"}"#)],
            1,
        ));
        self.mock.enqueue(Reply::text(&["done"]));
    }
}

fn both(out: &Output) -> String {
    format!("{}\n{}", stdout(out), stderr(out))
}

#[test]
fn install_shows_the_exact_command_and_list_and_info_show_the_package() {
    let s = Setup::new();
    let out = s.interceptor(json!({"points": {"tool.before": {}}}), json!({}));
    let text = both(&out);
    let root = s.env.home().join("packages/probe");
    assert!(
        text.contains(&format!(
            "python3 {0}/probe.py {0}/config.json",
            root.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("TRUST:") && text.contains("OS sandbox") && text.contains("tool.before"),
        "{text}"
    );
    assert!(root.join("probe.py").is_file());

    // A package like any other, whose sidecar is named with its command.
    let list = s.env.reasonix(&["plugin", "list"]);
    let listed = stdout(&list);
    assert!(
        listed.contains("probe 0.1.0 (package, reasonix layout)")
            && listed.contains(&format!("sidecar: python3 {}/probe.py", root.display())),
        "{listed}"
    );
    let info = s.env.reasonix(&["plugin", "info", "probe", "--json"]);
    let info: Value = serde_json::from_str(&stdout(&info)).unwrap();
    assert_eq!(info["kind"], "package");
    assert_eq!(info["sidecar"]["intercepts"], json!(["tool.before"]));

    // Without --yes and without a terminal, nothing is installed.
    let removed = s.env.reasonix(&["plugin", "remove", "probe"]);
    assert_eq!(removed.status.code(), Some(0), "{}", stderr(&removed));
    let dir = s.env.root.path().join("src-probe");
    let out = s
        .env
        .reasonix(&["plugin", "install", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    assert!(!root.exists());
    s.install(&dir);

    // `update` reinstalls from the recorded source.
    let updated = s.env.reasonix(&["plugin", "update", "probe", "--yes"]);
    assert_eq!(updated.status.code(), Some(0), "{}", stderr(&updated));
    assert!(
        stdout(&updated).contains("probe updated: 0.1.0 → 0.1.0"),
        "{}",
        stdout(&updated)
    );

    let disabled = s.env.reasonix(&["plugin", "disable", "probe"]);
    assert_eq!(disabled.status.code(), Some(0), "{}", stderr(&disabled));
    s.read_notes_script();
    s.notes();
    let out = s.run(&["read the notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(s.log().is_empty(), "a disabled sidecar was started");
}

#[test]
fn input_receive_replace_changes_the_task_the_model_sees() {
    let s = Setup::new();
    s.interceptor(
        json!({"points": {"input.receive": {"action": "replace", "replacement": {"text": "REPLACED TASK 42"}}}}),
        json!({}),
    );
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["the original task"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let body = &s.mock.requests()[0].body;
    assert!(body.contains("REPLACED TASK 42"), "{body}");
    assert!(!body.contains("the original task"), "{body}");
    let seen = s.intercepts();
    assert_eq!(seen[0]["event"], "input.receive");
    assert_eq!(seen[0]["payload"]["text"], "the original task");
    assert_eq!(seen[0]["seq"], 1);
}

#[test]
fn input_receive_block_stops_the_run_before_the_model_is_asked() {
    let s = Setup::new();
    s.interceptor(
        json!({"points": {"input.receive": {"action": "block", "reason": "no tasks on Fridays"}}}),
        json!({}),
    );
    let out = s.run(&["do something"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(
        text.contains("blocked by interceptor `probe`: no tasks on Fridays"),
        "{text}"
    );
    assert!(s.mock.requests().is_empty());
}

#[test]
fn tool_before_block_stops_the_call_and_tool_after_replaces_a_result() {
    let s = Setup::new();
    s.notes();
    s.interceptor(
        json!({"points": {
            "tool.before": {"action": "block", "reason": "reading is off limits"},
        }}),
        json!({}),
    );
    s.read_notes_script();
    let out = s.run(&["read the notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let result = s.result(1, "c1");
    assert!(
        result.contains("reading is off limits") && result.contains("probe"),
        "{result}"
    );
    assert!(!result.contains("ordinary notes"), "{result}");
    let seen = s.intercepts();
    assert_eq!(seen[0]["event"], "tool.before");
    assert_eq!(seen[0]["payload"]["name"], "read_file");
    assert_eq!(seen[0]["payload"]["callId"], "c1");

    let s = Setup::new();
    s.notes();
    s.interceptor(
        json!({"points": {"tool.after": {"action": "replace", "merge": {"result": "SCRUBBED BY SIDECAR"}}}}),
        json!({}),
    );
    s.read_notes_script();
    let out = s.run(&["read the notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let result = s.result(1, "c1");
    assert_eq!(result, "SCRUBBED BY SIDECAR");
    let seen = s.intercepts();
    assert!(
        seen[0]["payload"]["result"]
            .as_str()
            .unwrap()
            .contains("ordinary notes")
    );
}

#[test]
fn an_observer_sees_every_payload_in_order_and_changes_nothing() {
    let s = Setup::new();
    s.notes();
    s.interceptor(
        json!({"points": {"input.receive": {}, "tool.before": {}, "tool.after": {}}}),
        json!({}),
    );
    s.read_notes_script();
    let out = s.run(&["read the notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(s.result(1, "c1").contains("ordinary notes"));
    let seen = s.intercepts();
    let events: Vec<&str> = seen.iter().map(|p| p["event"].as_str().unwrap()).collect();
    assert_eq!(events, ["input.receive", "tool.before", "tool.after"]);
    let seqs: Vec<u64> = seen.iter().map(|p| p["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [1, 2, 3]);
    assert_eq!(seen[0]["timeoutMillis"], 5000);
    // The handshake came first, and the run ended with a shutdown.
    let methods: Vec<String> = s
        .log()
        .iter()
        .map(|m| m["method"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        methods.first().map(String::as_str),
        Some("extension/initialize")
    );
    assert_eq!(
        methods.get(1).map(String::as_str),
        Some("extension/initialized")
    );
    assert_eq!(
        methods.last().map(String::as_str),
        Some("extension/shutdown")
    );
}

#[test]
fn the_model_calls_a_sidecar_tool_which_is_asked_about_like_a_writer() {
    let s = Setup::new();
    let dir = s.package(
        "probe",
        json!({
            "capabilities": ["tools"],
            "tools": [{"name": "echo", "description": "Echo the arguments", "readOnly": true,
                       "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}}}]
        }),
        json!({"tools": {"echo": {"content": "echoed {arguments}"}}}),
    );
    s.install(&dir);
    let script = || {
        s.mock
            .enqueue(Reply::tool_calls(&[("e1", "echo", r#"{"x":7}"#)], 1));
        s.mock.enqueue(Reply::text(&["done"]));
    };
    // It claims read-only, but a sidecar runs unconfined: the default posture asks first.
    script();
    let out = s.run(&["echo seven"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let body = s.mock.requests()[0].body.clone();
    assert!(
        body.contains("Echo the arguments"),
        "the tool was not offered: {body}"
    );
    let result = s.result(1, "e1");
    assert!(
        result.starts_with("Permission needed: `echo` was not run"),
        "{result}"
    );

    script();
    let out = s.run(&["--yolo", "echo seven"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(s.result(3, "e1"), r#"echoed {"x": 7}"#);
    let calls: Vec<Value> = s
        .log()
        .into_iter()
        .filter(|m| m["method"] == "extension/tool/call")
        .collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["params"]["arguments"], json!({"x": 7}));
    assert_eq!(calls[0]["params"]["timeoutMillis"], 300_000);

    // A rule naming the sidecar tool is taken as a rule (a value after the first counts only
    // when it names a known tool), not as part of the task.
    script();
    let out = s.run(&["--allowed-tools", "Read", "echo", "say seven"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(s.result(5, "e1"), r#"echoed {"x": 7}"#);
}

#[test]
fn a_sidecar_crashing_mid_call_fails_the_run_naming_it_with_its_redacted_stderr_tail() {
    let s = Setup::new();
    s.interceptor(
        json!({
            "points": {"input.receive": {}},
            "fault": "exit-mid-call",
            "stderr": "probe: token sk-live-abcdefghijklmnop1234 loaded \u{1b}[31mred\u{1b}[0m"
        }),
        json!({}),
    );
    let out = s.run(&["hello"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(text.contains("sidecar `probe`"), "{text}");
    assert!(
        text.contains("exiting in the middle of input.receive"),
        "{text}"
    );
    assert!(!text.contains("sk-live-abcdefghijklmnop1234"), "{text}");
    assert!(text.contains("[REDACTED]"), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "a raw escape reached the terminal: {text}"
    );
    assert!(s.mock.requests().is_empty());
}

#[test]
fn a_required_sidecar_that_crashes_on_initialize_fails_the_run_an_optional_one_is_skipped() {
    let s = Setup::new();
    s.interceptor(
        json!({"points": {"input.receive": {}}, "fault": "crash-on-initialize"}),
        json!({"required": true}),
    );
    let out = s.run(&["hello"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(text.contains("sidecar `probe`"), "{text}");
    assert!(
        text.contains("crashing on initialize as configured"),
        "{text}"
    );
    assert!(s.mock.requests().is_empty());

    let s = Setup::new();
    s.interceptor(
        json!({"points": {"input.receive": {}}, "fault": "crash-on-initialize"}),
        json!({}),
    );
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        stderr(&out).contains("warning: sidecar skipped: sidecar `probe`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_hanging_sidecar_times_out_and_the_call_fails_closed_naming_it() {
    let s = Setup::new();
    s.notes();
    s.interceptor(
        json!({"points": {"tool.before": {}}, "fault": "hang"}),
        json!({"interceptTimeoutMillis": 1500}),
    );
    s.read_notes_script();
    let out = s.run(&["read the notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let result = s.result(1, "c1");
    assert!(
        result.contains("sidecar `probe` did not answer `extension/intercept` within 1500 ms"),
        "{result}"
    );
    assert!(
        !result.contains("ordinary notes"),
        "the hung interceptor was bypassed: {result}"
    );
}

#[test]
fn an_oversized_frame_is_fatal_and_named() {
    let s = Setup::new();
    s.interceptor(
        json!({"points": {"input.receive": {}}, "fault": "oversized-frame"}),
        json!({}),
    );
    let out = s.run(&["hello"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(
        text.contains("sidecar `probe`") && text.contains("frame_too_large"),
        "{text}"
    );
    assert!(s.mock.requests().is_empty());
}

#[test]
fn protocol_violations_poison_the_connection() {
    // A frame before `extension/initialized`.
    let s = Setup::new();
    s.interceptor(
        json!({"points": {"input.receive": {}}, "fault": "early-frame"}),
        json!({"required": true}),
    );
    let out = s.run(&["hello"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(
        text.contains("sent `host/ui/publish` before `extension/initialized`"),
        "{text}"
    );
    // An answer to an id it was never sent, and garbage.
    for (fault, needle) in [
        ("unknown-id", "which it was never sent"),
        ("garbage", "not JSON-RPC 2.0"),
        ("request-flood", "stopped reading its stdin"),
    ] {
        let s = Setup::new();
        s.interceptor(
            json!({"points": {"input.receive": {}}, "fault": fault}),
            json!({}),
        );
        let out = s.run(&["hello"]);
        assert_ne!(out.status.code(), Some(0), "{fault}");
        let text = both(&out);
        assert!(
            text.contains("sidecar `probe`") && text.contains(needle),
            "{fault}: {text}"
        );
        assert!(s.mock.requests().is_empty());
    }
}

#[test]
fn a_declaration_outside_the_manifest_is_refused() {
    let s = Setup::new();
    s.interceptor(
        json!({"points": {"input.receive": {}}, "subscribe": ["input.receive", "tool.after"]}),
        json!({"required": true}),
    );
    let out = s.run(&["hello"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(
        text.contains("capability_not_declared") && text.contains("tool.after"),
        "{text}"
    );
    assert!(s.mock.requests().is_empty());
}

#[test]
fn a_bad_manifest_is_refused_at_install_naming_the_field() {
    let s = Setup::new();
    let dir = s.package(
        "probe",
        json!({"capabilities": ["interceptors"], "colour": "red"}),
        json!({}),
    );
    let out = s
        .env
        .reasonix(&["plugin", "install", dir.to_str().unwrap(), "--yes"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("runtime") && stderr(&out).contains("colour"),
        "{}",
        stderr(&out)
    );
    assert!(!s.env.home().join("packages/probe").exists());
}

/// The points a run with one tool call dispatches, each with its family's deadline. A sidecar
/// subscribed to all 17 sees every one of them (a table the lead's per-point test extends).
#[test]
fn every_dispatched_point_reaches_a_sidecar_with_its_family_deadline() {
    let s = Setup::new();
    s.notes();
    let all: Vec<&str> = reasonix_core::slots::POINTS.to_vec();
    let points: serde_json::Map<String, Value> =
        all.iter().map(|p| (p.to_string(), json!({}))).collect();
    s.interceptor(json!({"points": points}), json!({}));
    s.read_notes_script();
    let out = s.run(&["read the notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(s.result(1, "c1").contains("ordinary notes"));
    let seen = s.intercepts();
    let events: std::collections::BTreeSet<&str> =
        seen.iter().map(|p| p["event"].as_str().unwrap()).collect();
    for point in [
        "input.receive",
        "agent.before_start",
        "context.prepare",
        "provider.request",
        "provider.response",
        "tool.before",
        "permission.decision",
        "tool.after",
        "session.start",
        "session.end",
    ] {
        assert!(
            events.contains(point),
            "`{point}` never reached the sidecar: {events:?}"
        );
    }
    for params in &seen {
        let event = params["event"].as_str().unwrap();
        let family = event.split('.').next().unwrap();
        let expected = match family {
            "session" | "context" | "compaction" | "system_prompt" => 30_000,
            _ => 5_000,
        };
        assert_eq!(params["timeoutMillis"], expected, "{event}");
    }
}

#[test]
fn permission_decision_allow_runs_an_asked_call_and_deny_stops_an_allowed_one() {
    let s = Setup::new();
    let dir = s.package(
        "probe",
        json!({
            "capabilities": ["tools", "interceptors"],
            "intercepts": ["permission.decision"],
            "tools": [{"name": "echo", "description": "Echo", "inputSchema": {"type": "object"}}]
        }),
        json!({
            "points": {"permission.decision": {"action": "allow"}},
            "tools": {"echo": {"content": "echoed {arguments}"}}
        }),
    );
    s.install(&dir);
    s.mock
        .enqueue(Reply::tool_calls(&[("e1", "echo", r#"{"x":1}"#)], 1));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run(&["echo"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(s.result(1, "e1"), r#"echoed {"x": 1}"#);
    let seen = s.intercepts();
    assert_eq!(seen[0]["event"], "permission.decision");
    assert_eq!(seen[0]["payload"]["hostDecision"], "deny");

    let s = Setup::new();
    s.notes();
    s.interceptor(
        json!({"points": {"permission.decision": {"action": "deny", "reason": "not today"}}}),
        json!({}),
    );
    s.read_notes_script();
    let out = s.run(&["read"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let result = s.result(1, "c1");
    assert!(
        result.contains("not today") && !result.contains("ordinary notes"),
        "{result}"
    );
}

#[test]
fn a_sidecar_owning_a_tool_slot_has_the_final_say_without_subscribing() {
    let s = Setup::new();
    s.notes();
    s.interceptor(
        json!({
            "points": {"tool.after": {"action": "replace", "merge": {"result": "FROM THE OWNER"}}},
            "subscribe": [],
            "declare": {"replaces": ["tool:read_file"]}
        }),
        json!({"intercepts": [], "capabilities": ["strategies"], "replaces": ["tool:read_file"]}),
    );
    s.read_notes_script();
    let out = s.run(&["read"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(s.result(1, "c1"), "FROM THE OWNER");
    let events: Vec<String> = s
        .intercepts()
        .iter()
        .map(|p| p["event"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(events, ["tool.before", "tool.after"]);
}

#[test]
fn two_sidecars_claiming_one_slot_fail_the_run_naming_both() {
    let s = Setup::new();
    for name in ["owner-a", "owner-b"] {
        s.interceptor_named(
            name,
            json!({"points": {}, "subscribe": [], "declare": {"replaces": ["system_prompt"]}}),
            json!({"intercepts": [], "capabilities": ["strategies"], "replaces": ["system_prompt"]}),
        );
    }
    let out = s.run(&["hello"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(
        text.contains("owner-a") && text.contains("owner-b") && text.contains("system_prompt"),
        "{text}"
    );
    assert!(s.mock.requests().is_empty());
}

#[test]
fn the_sidecar_gets_a_filtered_environment_without_credentials() {
    let s = Setup::new();
    s.interceptor(
        json!({"points": {"input.receive": {}}, "log_env": true}),
        json!({}),
    );
    s.mock.enqueue(Reply::text(&["ok"]));
    let ws = s.env.workspace();
    let out = s
        .env
        .command(&["run", "--dir", ws.to_str().unwrap(), "hello"])
        .env("OPENAI_API_KEY", "sk-parent-secret-0123456789")
        .env("GITHUB_TOKEN", "ghp_parentsecret0123456789")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let first = &s.log()[0];
    let env = first["env"].as_object().unwrap();
    assert!(
        !env.contains_key("OPENAI_API_KEY") && !env.contains_key("GITHUB_TOKEN"),
        "{env:?}"
    );
    assert!(!env.contains_key("REASONIX_HOME"), "{env:?}");
    let values: Vec<&str> = env.values().filter_map(Value::as_str).collect();
    assert!(
        !values
            .iter()
            .any(|v| v.contains("sk-test") || v.contains("secret")),
        "{values:?}"
    );
    assert_eq!(env["REASONIX_PLUGIN_NAME"], "probe");
    assert_eq!(
        env["REASONIX_PLUGIN_ROOT"].as_str().unwrap(),
        s.env.home().join("packages/probe").to_str().unwrap()
    );
    assert_eq!(first["cwd"].as_str().unwrap(), ws.to_str().unwrap());
}

/// A tool result over 64 KiB leaves the frame: the sidecar sees `null` and an
/// `ExternalizedField`, reads it in 256 KiB pages through `host/content/read`, and a replacement
/// that keeps it gets the original back.
#[test]
fn large_fields_are_externalised_and_read_in_pages() {
    let s = Setup::new();
    let big: String = (0..30_000).map(|i| format!("line {i:06}\n")).collect();
    let dir = s.package(
        "probe",
        json!({
            "capabilities": ["tools", "interceptors"],
            "intercepts": ["tool.after"],
            "tools": [{"name": "big", "description": "A big result", "inputSchema": {"type": "object"}}]
        }),
        json!({
            "points": {"tool.after": {"action": "replace", "merge": {"isError": false}}},
            "tools": {"big": {"content": big}},
            "read_content": true
        }),
    );
    s.install(&dir);
    // The whole result reaches the model only without the built-in bound (32 KiB).
    let config = s
        .env
        .mock_provider("openai", &s.mock.base_url(), "sk-test", "");
    s.env
        .project_config(&format!("{config}\n[plugin.bound]\nenabled = false\n"));
    s.mock.enqueue(Reply::tool_calls(&[("b1", "big", "{}")], 1));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run(&["--yolo", "get it"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let seen = s.intercepts();
    assert!(
        seen[0]["payload"]["result"].is_null(),
        "the field stayed in the frame"
    );
    let field = &seen[0]["externalized"][0];
    assert_eq!(field["jsonPointer"], "/result");
    let total = field["totalBytes"].as_u64().unwrap();
    assert_eq!(total, big.len() as u64);
    let read: Vec<Value> = s
        .log()
        .into_iter()
        .filter(|m| m.get("content_read").is_some())
        .map(|m| m["content_read"].clone())
        .collect();
    assert_eq!(read[0]["bytes"].as_u64().unwrap(), total, "{read:?}");
    assert_eq!(read[0]["sha256_ok"], true, "{read:?}");
    assert!(read[0]["pages"].as_u64().unwrap() >= 2, "{read:?}");
    // The replacement kept the field: the model reads the whole result.
    let result = s.result(1, "b1");
    assert!(
        result.contains("line 000000") && result.contains("line 029999"),
        "the result came back with {} bytes",
        result.len()
    );
}

/// The sidecar runs in the OS sandbox shell commands get: it cannot read Reasonix's home (the
/// provider keys, the plugin index) and can write only the workspace.
#[test]
fn the_sidecar_runs_in_the_os_sandbox() {
    let s = Setup::new();
    let home = s.env.home();
    let outside = s.env.root.path().join("outside.txt");
    let inside = s.env.workspace().join("inside.txt");
    s.interceptor(
        json!({
            "points": {"input.receive": {}},
            "try_read": [home.join(".env"), home.join("packages.json")],
            "try_write": [outside, inside],
        }),
        json!({}),
    );
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let fs: Vec<(String, bool)> = s
        .log()
        .into_iter()
        .filter(|m| m.get("fs").is_some())
        .map(|m| {
            (
                m["path"].as_str().unwrap().to_string(),
                m["ok"].as_bool().unwrap(),
            )
        })
        .collect();
    let ok = |path: &std::path::Path| {
        fs.iter()
            .find(|(p, _)| p == path.to_str().unwrap())
            .map(|(_, ok)| *ok)
            .unwrap_or_else(|| panic!("{} not tried: {fs:?}", path.display()))
    };
    assert!(
        !ok(&home.join(".env")),
        "the sidecar read the provider keys"
    );
    assert!(!ok(&home.join("packages.json")), "{fs:?}");
    // The test's directories lie under /tmp, which is private to the sandbox: the write may
    // land there, but never in the real file.
    let _ = ok(&outside);
    assert!(!outside.exists(), "it wrote outside the workspace");
    assert!(ok(&inside), "{fs:?}");
}

/// A reasonix.toml whose default model is provider `echo` of sidecar `probe`.
fn sidecar_provider_config(s: &Setup) {
    let text = r#"default_model = "sc"
[[providers]]
name = "sc"
kind = "plugin/probe/echo"
base_url = "http://127.0.0.1:9"
model = "m1"
max_retries = 0
"#;
    s.env.project_config(text);
}

fn provider_probe(s: &Setup, script: Value) {
    let dir = s.package(
        "probe",
        json!({"capabilities": ["providers"]}),
        json!({"provider": {"ref": "echo", "script": script}}),
    );
    s.install(&dir);
    sidecar_provider_config(s);
}

#[test]
fn a_sidecar_provider_streams_out_of_order_chunks_back_in_order() {
    let s = Setup::new();
    provider_probe(
        &s,
        json!([{
            "chunks": [
                [2, {"type": "text", "text": "world"}],
                [1, {"type": "text", "text": "hello "}],
                [2, {"type": "text", "text": "DUPLICATE"}],
                [4, {"type": "done", "finishReason": "stop"}],
                [3, {"type": "usage", "promptTokens": 7, "completionTokens": 2}]
            ],
            "end": {"lastSeq": 4}
        }]),
    );
    let out = s.run(&["say hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let text = stdout(&out);
    assert!(text.contains("hello world"), "{text}");
    assert!(!text.contains("DUPLICATE"), "{text}");
    let open: Vec<Value> = s
        .log()
        .into_iter()
        .filter(|m| m["method"] == "extension/provider/stream/open")
        .collect();
    assert_eq!(open[0]["params"]["providerRef"], "echo");
    assert_eq!(open[0]["params"]["model"], "m1");
    let messages = open[0]["params"]["request"]["messages"].as_array().unwrap();
    assert!(
        messages
            .iter()
            .any(|m| m["role"] == "user" && m["content"] == "say hello"),
        "{messages:?}"
    );
    assert!(s.mock.requests().is_empty(), "the mock LLM was asked");
}

#[test]
fn a_gap_in_a_sidecar_stream_fails_naming_the_missing_chunk() {
    let s = Setup::new();
    provider_probe(
        &s,
        json!([{
            "chunks": [[1, {"type": "text", "text": "a"}], [3, {"type": "text", "text": "c"}]],
            "end": {"lastSeq": 3}
        }]),
    );
    let out = s.run(&["hello"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(
        text.contains("stream_gap") && text.contains("chunk 2 never arrived"),
        "{text}"
    );
}

#[test]
fn a_sidecar_provider_crashing_mid_stream_fails_the_run_without_fallback() {
    let s = Setup::new();
    provider_probe(
        &s,
        json!([{"chunks": [[1, {"type": "text", "text": "partial"}]], "crash_after": 1}]),
    );
    let out = s.run(&["hello"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(
        text.contains("sidecar `probe`") && text.contains("provider crashing after chunk 1"),
        "{text}"
    );
    assert!(s.mock.requests().is_empty(), "fell back to another model");
}

#[test]
fn a_flood_of_early_chunks_fails_the_stream_boundedly() {
    let s = Setup::new();
    let chunks: Vec<Value> = (2..1200)
        .map(|seq| json!([seq, {"type": "text", "text": "x"}]))
        .collect();
    provider_probe(&s, json!([{"chunks": chunks, "end": {"lastSeq": 1200}}]));
    let out = s.run(&["hello"]);
    assert_ne!(out.status.code(), Some(0));
    let text = both(&out);
    assert!(
        text.contains("more than 1024 chunks arrived out of order"),
        "{text}"
    );
}

/// One package, one manifest: a sidecar `runtime` and a skill beside it, both used; a changed
/// probe script (the manifest untouched) refuses the whole package, sidecar included.
#[test]
fn a_package_brings_a_sidecar_and_a_skill_and_a_changed_script_stops_both() {
    let s = Setup::new();
    let dir = s.package(
        "probe",
        json!({"capabilities": ["interceptors"], "intercepts": ["tool.before"]}),
        json!({"points": {"tool.before": {}}}),
    );
    let manifest_path = dir.join("reasonix-plugin.json");
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    manifest["contributes"] = json!({"skills": ["skills"]});
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    std::fs::create_dir_all(dir.join("skills/probe-notes")).unwrap();
    std::fs::write(
        dir.join("skills/probe-notes/SKILL.md"),
        "---\ndescription: Probe notes\n---\nPROBE-SKILL-BODY\n",
    )
    .unwrap();
    let out = s.install(&dir);
    assert!(
        stderr(&out).contains("TRUST:") && stderr(&out).contains("skill probe:probe-notes"),
        "{}",
        stderr(&out)
    );

    s.notes();
    let skill = json!({"name": "probe:probe-notes"}).to_string();
    s.mock.enqueue(Reply::tool_calls(
        &[
            ("k1", "skill", &skill),
            ("c1", "read_file", r#"{"path":"notes.txt"}"#),
        ],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run(&["read the notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(s.result(1, "k1").contains("PROBE-SKILL-BODY"));
    assert!(s.result(1, "c1").contains("ordinary notes"));
    assert!(
        s.intercepts().iter().any(|p| p["event"] == "tool.before"),
        "the package's sidecar saw the calls: {:?}",
        s.log()
    );

    let installed = s.env.home().join("packages/probe/probe.py");
    let mut script = std::fs::read_to_string(&installed).unwrap();
    script.push_str("\n# changed\n");
    std::fs::write(&installed, script).unwrap();
    std::fs::remove_file(s.log_path()).unwrap();
    s.read_notes_script();
    let out = s.run(&["read the notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        stderr(&out).contains("probe.py: changed since install"),
        "{}",
        stderr(&out)
    );
    assert!(
        s.log().is_empty(),
        "a changed package's sidecar was started"
    );
}
