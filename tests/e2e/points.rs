//! Every interception point through a real `reasonix run`: the `probe` component (built from
//! tests/fixtures/probe, installed like any plugin) subscribes to all 17 points and, per point,
//! blocks, replaces or lets through as its config says, logging every payload it sees. The mock
//! LLM records what each request carried. Slot ownership: a second owner of a slot fails the
//! run naming both plugins.
//!
//! `compaction.prepare` / `compaction.complete` have no dispatch site until compaction exists;
//! `session.rotate` has none in `run` (a front end's `/new`): both are covered by the agent's
//! unit tests.

use crate::support::{Env, stderr, stdout, tool_results};
use reasonix_mock_llm::{MockLlm, Reply};
use std::process::Output;

struct Probe {
    env: Env,
    mock: MockLlm,
}

impl Probe {
    /// A trusted project on the mock with the probe installed and `config` as its
    /// `[plugin.probe.config]` lines.
    fn new(config: &str) -> Probe {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let provider = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
        env.project_config(&format!("{provider}\n[plugin.probe.config]\n{config}\n"));
        env.install_fixture("probe");
        std::fs::write(env.workspace().join("notes.txt"), "ordinary notes\n").unwrap();
        Probe { env, mock }
    }

    fn run(&self, args: &[&str]) -> Output {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.env
            .command(&all)
            .env("REASONIX_LOG", "info")
            .output()
            .unwrap()
    }

    fn requests(&self) -> Vec<serde_json::Value> {
        self.mock.requests().iter().map(|r| r.json()).collect()
    }

    fn read_notes(&self) {
        self.mock.enqueue(Reply::tool_calls(
            &[("c1", "read_file", r#"{"path":"notes.txt"}"#)],
            1,
        ));
        self.mock.enqueue(Reply::text(&["done"]));
    }
}

/// The payloads the probe logged at `point`, in order.
fn observed(out: &Output, point: &str) -> Vec<serde_json::Value> {
    let marker = format!("observed {point} ");
    stderr(out)
        .lines()
        .filter_map(|l| l.split_once(&marker).map(|(_, json)| json.to_string()))
        .map(|json| serde_json::from_str(&json).unwrap_or(serde_json::Value::String(json)))
        .collect()
}

fn user_text(request: &serde_json::Value) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn failed_with(out: &Output, text: &str) {
    assert_ne!(out.status.code(), Some(0), "{}{}", stdout(out), stderr(out));
    let all = format!("{}{}", stdout(out), stderr(out));
    assert!(all.contains(text), "{all}");
}

#[test]
fn observing_every_point_a_run_meets_sees_its_payload_in_order() {
    let p = Probe::new("");
    p.read_notes();
    let out = p.run(&["read the notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "done\n");
    let input = observed(&out, "input.receive");
    assert_eq!(input[0]["text"], "read the notes");
    let start = observed(&out, "agent.before_start");
    assert_eq!(start[0]["model"], "mock-model");
    assert!(start[0]["toolCount"].as_u64().unwrap() > 5);
    assert_eq!(observed(&out, "context.prepare").len(), 2);
    let request = observed(&out, "provider.request");
    assert_eq!(request[0]["provider"], "mock");
    assert_eq!(request[0]["request"]["messages"][0]["role"], "system");
    assert_eq!(observed(&out, "provider.response")[1]["text"], "done");
    assert_eq!(observed(&out, "tool.before")[0]["name"], "read_file");
    assert!(
        observed(&out, "tool.after")[0]["result"]
            .as_str()
            .unwrap()
            .contains("ordinary notes")
    );
    // read_file is a reader: the host allowed it.
    assert_eq!(
        observed(&out, "permission.decision")[0]["hostDecision"],
        "allow"
    );
    for (point, phase) in [
        ("session.start", "start"),
        ("session.save", "save"),
        ("session.end", "end"),
    ] {
        let seen = observed(&out, point);
        assert_eq!(seen.len(), 1, "{point}");
        assert_eq!(seen[0]["phase"], phase);
        assert!(
            seen[0]["sessionPath"].as_str().unwrap().ends_with(".jsonl"),
            "{seen:?}"
        );
    }
    assert!(observed(&out, "session.load").is_empty());
    let kinds: Vec<String> = observed(&out, "frontend.event")
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect();
    assert!(
        kinds.contains(&"tool_output".to_string()) && kinds.contains(&"message".to_string()),
        "{kinds:?}"
    );

    // Continuing the session loads it first.
    p.mock.enqueue(Reply::text(&["again"]));
    let out = p.run(&["-c", "and again"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(observed(&out, "session.load").len(), 1);
}

#[test]
fn input_receive_replaced_and_blocked() {
    let p = Probe::new(
        r#""input.receive" = "replace"
"input.receive.with" = '{"text":"rewritten by the probe"}'"#,
    );
    p.mock.enqueue(Reply::text(&["ok"]));
    let out = p.run(&["the original task"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = user_text(&p.requests()[0]);
    assert!(
        sent.contains("rewritten by the probe") && !sent.contains("original"),
        "{sent}"
    );

    let p = Probe::new(r#""input.receive" = "block""#);
    let out = p.run(&["the original task"]);
    failed_with(&out, "input.receive blocked by probe");
    assert!(p.mock.requests().is_empty());
}

#[test]
fn agent_before_start_and_session_start_block_the_run() {
    for point in ["agent.before_start", "session.start"] {
        let p = Probe::new(&format!(r#""{point}" = "block""#));
        let out = p.run(&["task"]);
        failed_with(&out, &format!("{point} blocked by probe"));
        assert!(p.mock.requests().is_empty(), "{point}");
    }
    // Neither may be changed.
    let p = Probe::new(
        r#""agent.before_start" = "replace"
"agent.before_start.with" = '{"model":"another"}'"#,
    );
    let out = p.run(&["task"]);
    failed_with(&out, "cannot be changed");
}

#[test]
fn context_prepare_and_provider_request_change_this_request_only() {
    let p = Probe::new(
        r#""context.prepare" = "replace"
"context.prepare.with" = '{"messages":[{"role":"user","content":"context from the probe"}]}'
"provider.request" = "replace"
"provider.request.with" = '{"request":{"maxTokens":77}}'"#,
    );
    p.mock.enqueue(Reply::text(&["ok"]));
    let out = p.run(&["the user's words"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = &p.requests()[0];
    assert_eq!(user_text(request), "context from the probe");
    let budget = request
        .get("max_tokens")
        .or_else(|| request.get("max_completion_tokens"));
    assert_eq!(budget, Some(&serde_json::json!(77)), "{request}");

    // An invalid replacement stops the run before anything is sent.
    let p = Probe::new(
        r#""provider.request" = "replace"
"provider.request.with" = '{"model":"swapped"}'"#,
    );
    let out = p.run(&["task"]);
    failed_with(&out, "not a valid payload");
    assert!(p.mock.requests().is_empty());

    let p = Probe::new(r#""provider.request" = "block""#);
    let out = p.run(&["task"]);
    failed_with(&out, "provider.request blocked by probe");
    assert!(p.mock.requests().is_empty());
}

#[test]
fn provider_response_replaced_and_blocked() {
    let p = Probe::new(
        r#""provider.response" = "replace"
"provider.response.with" = '{"text":"the probe answered"}'"#,
    );
    p.mock.enqueue(Reply::text(&["the model answered"]));
    let out = p.run(&["--output-format", "json", "task"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(result["result"], "the probe answered", "{result}");

    let p = Probe::new(r#""provider.response" = "block""#);
    p.mock.enqueue(Reply::text(&["the model answered"]));
    let out = p.run(&["task"]);
    failed_with(&out, "provider.response blocked by probe");
}

#[test]
fn tool_points_replace_arguments_and_results() {
    let p = Probe::new(
        r#""tool.before" = "replace"
"tool.before.with" = '{"arguments":"{\"path\":\"other.txt\"}"}'"#,
    );
    std::fs::write(p.env.workspace().join("other.txt"), "the other file\n").unwrap();
    p.read_notes();
    let out = p.run(&["read"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let results = tool_results("openai", &p.requests()[1]);
    assert!(results[0].1.contains("the other file"), "{results:?}");

    let p = Probe::new(
        r#""tool.after" = "replace"
"tool.after.with" = '{"result":"result by the probe"}'"#,
    );
    p.read_notes();
    let out = p.run(&["read"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        tool_results("openai", &p.requests()[1])[0].1,
        "result by the probe"
    );

    let p = Probe::new(r#""tool.before" = "block""#);
    p.read_notes();
    let out = p.run(&["read"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = &tool_results("openai", &p.requests()[1])[0].1;
    assert!(result.contains("tool.before blocked by probe"), "{result}");
}

#[test]
fn permission_decision_allows_a_headless_writer_and_denies_an_allowed_one() {
    let write = || {
        Reply::tool_calls(
            &[(
                "w1",
                "write_file",
                r#"{"path":"out.txt","content":"written"}"#,
            )],
            1,
        )
    };
    // Headless `ask`: the host refuses the writer; the probe allows it (audited).
    let p = Probe::new(r#""permission.decision" = "allow""#);
    p.mock.enqueue(write());
    p.mock.enqueue(Reply::text(&["done"]));
    let out = p.run(&["write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(p.env.workspace().join("out.txt")).unwrap(),
        "written"
    );
    assert_eq!(
        observed(&out, "permission.decision")[0]["hostDecision"],
        "deny"
    );
    assert!(
        stderr(&out).contains("plugin `probe` allowed `write_file`"),
        "{}",
        stderr(&out)
    );

    // Without the probe's answer the same run writes nothing.
    let p = Probe::new("");
    p.mock.enqueue(write());
    p.mock.enqueue(Reply::text(&["done"]));
    let out = p.run(&["write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!p.env.workspace().join("out.txt").exists());

    // The host allows it (yolo); the probe denies it.
    let p = Probe::new(r#""permission.decision" = "deny""#);
    p.mock.enqueue(write());
    p.mock.enqueue(Reply::text(&["done"]));
    let out = p.run(&["--permission-mode", "bypassPermissions", "write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!p.env.workspace().join("out.txt").exists());
    let result = &tool_results("openai", &p.requests()[1])[0].1;
    assert!(
        result.contains("permission.decision denied by probe"),
        "{result}"
    );
}

#[test]
fn frontend_event_changes_what_is_shown_not_what_the_model_reads() {
    let p = Probe::new(
        r#""frontend.event" = "replace"
"frontend.event.with" = '{"text":"shown by the probe"}'"#,
    );
    p.read_notes();
    let out = p.run(&["--output-format", "stream-json", "--verbose", "read"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown = stdout(&out);
    assert!(shown.contains("shown by the probe"), "{shown}");
    assert!(!shown.contains("ordinary notes"), "{shown}");
    // The model read the file.
    assert!(
        tool_results("openai", &p.requests()[1])[0]
            .1
            .contains("ordinary notes")
    );
}

#[test]
fn two_owners_of_one_slot_fail_the_run_naming_both() {
    let p = Probe::new("");
    p.env.install_fixture("rival");
    p.mock.enqueue(Reply::text(&["ok"]));
    let out = p.run(&["task"]);
    failed_with(
        &out,
        "slot `session_policy` is claimed by both `probe` and `rival`",
    );
    assert!(p.mock.requests().is_empty());
}
