//! Every interception point through a real `reasonix run`, in both tiers: the `probe` component
//! (built from tests/fixtures/probe, installed like any plugin) and the `probe.py` sidecar
//! (tests/sidecars, installed as a package) subscribe to all 17 points and, per point, block,
//! replace or let through as configured, recording every payload they see. The mock LLM records
//! what each request carried. Slot ownership: a second owner of a slot fails the run naming
//! both plugins.
//!
//! `compaction.prepare` / `compaction.complete` have no dispatch site until compaction exists;
//! `session.rotate` has none in `run` (a front end's `/new`): both are covered by the agent's
//! unit tests.

use crate::support::{Env, repo_root, stderr, stdout, tool_results};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::process::Output;

use reasonix_core::slots::POINTS;

/// Which tier serves the probe.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tier {
    Component,
    Sidecar,
}

const TIERS: [Tier; 2] = [Tier::Component, Tier::Sidecar];

/// What the probe answers at one point: `(point, "block" | "replace" | "allow" | "deny",
/// JSON object deep-merged into the payload for "replace")`.
type Action<'a> = (&'a str, &'a str, &'a str);

struct Probe {
    env: Env,
    mock: MockLlm,
    tier: Tier,
}

impl Probe {
    /// A trusted project on the mock with the probe of `tier` installed, answering `actions`.
    fn new(tier: Tier, actions: &[Action]) -> Probe {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let provider = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
        let mut config = String::new();
        if tier == Tier::Component {
            config.push_str("[plugin.probe.config]\n");
            for (point, action, with) in actions {
                config.push_str(&format!("\"{point}\" = \"{action}\"\n"));
                if !with.is_empty() {
                    config.push_str(&format!("\"{point}.with\" = '{with}'\n"));
                }
            }
        }
        env.project_config(&format!("{provider}\n{config}"));
        std::fs::write(env.workspace().join("notes.txt"), "ordinary notes\n").unwrap();
        let probe = Probe { env, mock, tier };
        match tier {
            Tier::Component => {
                probe.env.install_fixture("probe");
            }
            Tier::Sidecar => probe.install_sidecar(actions),
        }
        probe
    }

    /// Where the sidecar appends what it receives: in the workspace, the one place a sandboxed
    /// sidecar may write.
    fn log_path(&self) -> std::path::PathBuf {
        self.env.workspace().join(".probe-log.jsonl")
    }

    fn install_sidecar(&self, actions: &[Action]) {
        let dir = self.env.root.path().join("probe-package");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(
            repo_root().join("tests/sidecars/probe.py"),
            dir.join("probe.py"),
        )
        .unwrap();
        let mut points = serde_json::Map::new();
        for (point, action, with) in actions {
            let mut answer = json!({"action": action});
            match *action {
                "block" => answer["reason"] = json!(format!("{point} blocked by probe")),
                "deny" => answer["reason"] = json!(format!("{point} denied by probe")),
                "replace" => answer["merge"] = serde_json::from_str(with).unwrap(),
                _ => {}
            }
            points.insert(point.to_string(), answer);
        }
        let config = json!({"points": points, "subscribe": POINTS, "log": self.log_path()});
        std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
        let manifest = json!({
            "apiVersion": "reasonix.io/plugin/v2",
            "name": "probe",
            "version": "0.1.0",
            "description": "test probe",
            "runtime": {
                "command": "python3",
                "args": ["${REASONIX_PLUGIN_ROOT}/probe.py", "${REASONIX_PLUGIN_ROOT}/config.json"],
                "capabilities": ["interceptors"],
                "intercepts": POINTS,
            },
        });
        std::fs::write(dir.join("reasonix-plugin.json"), manifest.to_string()).unwrap();
        let out = self
            .env
            .reasonix(&["plugin", "install", dir.to_str().unwrap(), "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
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

    /// The payloads the probe saw at `point` during the run that printed `out`, in order.
    fn observed(&self, out: &Output, point: &str) -> Vec<Value> {
        match self.tier {
            Tier::Component => observed(out, point),
            Tier::Sidecar => {
                let seen: Vec<Value> = std::fs::read_to_string(self.log_path())
                    .unwrap_or_default()
                    .lines()
                    .map(|l| serde_json::from_str::<Value>(l).unwrap())
                    .filter(|m| {
                        m["method"] == "extension/intercept" && m["params"]["event"] == point
                    })
                    .map(|m| m["params"]["payload"].clone())
                    .collect();
                seen
            }
        }
    }

    /// Forget what the sidecar logged so far (before a second run).
    fn clear_log(&self) {
        let _ = std::fs::remove_file(self.log_path());
    }
}

/// The payloads the component logged at `point`, in order.
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
    for tier in TIERS {
        let p = Probe::new(tier, &[]);
        p.read_notes();
        let out = p.run(&["read the notes"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "done\n");
        let seen = |point: &str| p.observed(&out, point);
        assert_eq!(
            seen("input.receive")[0]["text"],
            "read the notes",
            "{tier:?}"
        );
        let start = seen("agent.before_start");
        assert_eq!(start[0]["model"], "mock-model");
        assert!(start[0]["toolCount"].as_u64().unwrap() > 5);
        assert_eq!(seen("system_prompt.build").len(), 1, "{tier:?}");
        assert_eq!(seen("context.prepare").len(), 2);
        let request = seen("provider.request");
        assert_eq!(request[0]["provider"], "mock");
        assert_eq!(request[0]["request"]["messages"][0]["role"], "system");
        assert_eq!(seen("provider.response")[1]["text"], "done");
        assert_eq!(seen("tool.before")[0]["name"], "read_file");
        assert!(
            seen("tool.after")[0]["result"]
                .as_str()
                .unwrap()
                .contains("ordinary notes")
        );
        // read_file is a reader: the host allowed it.
        assert_eq!(seen("permission.decision")[0]["hostDecision"], "allow");
        for (point, phase) in [
            ("session.start", "start"),
            ("session.save", "save"),
            ("session.end", "end"),
        ] {
            let payloads = seen(point);
            assert_eq!(payloads.len(), 1, "{tier:?} {point}");
            assert_eq!(payloads[0]["phase"], phase);
            assert!(
                payloads[0]["sessionPath"]
                    .as_str()
                    .unwrap()
                    .ends_with(".jsonl"),
                "{payloads:?}"
            );
        }
        assert!(seen("session.load").is_empty());
        let kinds: Vec<String> = seen("frontend.event")
            .iter()
            .map(|e| e["kind"].as_str().unwrap().to_string())
            .collect();
        assert!(
            kinds.contains(&"tool_output".to_string()) && kinds.contains(&"message".to_string()),
            "{tier:?} {kinds:?}"
        );

        // Continuing the session loads it first.
        p.clear_log();
        p.mock.enqueue(Reply::text(&["again"]));
        let out = p.run(&["-c", "and again"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(p.observed(&out, "session.load").len(), 1, "{tier:?}");
    }
}

#[test]
fn input_receive_replaced_and_blocked() {
    for tier in TIERS {
        let p = Probe::new(
            tier,
            &[(
                "input.receive",
                "replace",
                r#"{"text":"rewritten by the probe"}"#,
            )],
        );
        p.mock.enqueue(Reply::text(&["ok"]));
        let out = p.run(&["the original task"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        let sent = user_text(&p.requests()[0]);
        assert!(
            sent.contains("rewritten by the probe") && !sent.contains("original"),
            "{tier:?}: {sent}"
        );

        let p = Probe::new(tier, &[("input.receive", "block", "")]);
        let out = p.run(&["the original task"]);
        failed_with(&out, "input.receive blocked by probe");
        assert!(p.mock.requests().is_empty());
    }
}

#[test]
fn agent_before_start_and_session_start_block_the_run() {
    for tier in TIERS {
        for point in ["agent.before_start", "session.start"] {
            let p = Probe::new(tier, &[(point, "block", "")]);
            let out = p.run(&["task"]);
            failed_with(&out, &format!("{point} blocked by probe"));
            assert!(p.mock.requests().is_empty(), "{tier:?} {point}");
        }
        // Neither may be changed.
        let p = Probe::new(
            tier,
            &[("agent.before_start", "replace", r#"{"model":"another"}"#)],
        );
        let out = p.run(&["task"]);
        failed_with(&out, "cannot be changed");
    }
}

#[test]
fn system_prompt_build_replaced_and_blocked() {
    for tier in TIERS {
        let p = Probe::new(
            tier,
            &[(
                "system_prompt.build",
                "replace",
                r#"{"prompt":"You are the agent of the probe."}"#,
            )],
        );
        p.mock.enqueue(Reply::text(&["ok"]));
        let out = p.run(&["task"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        let system = &p.requests()[0]["messages"][0]["content"];
        assert_eq!(system, "You are the agent of the probe.", "{tier:?}");

        let p = Probe::new(tier, &[("system_prompt.build", "block", "")]);
        let out = p.run(&["task"]);
        failed_with(&out, "system_prompt.build blocked by probe");
        assert!(p.mock.requests().is_empty());
    }
}

#[test]
fn context_prepare_and_provider_request_change_this_request_only() {
    for tier in TIERS {
        let p = Probe::new(
            tier,
            &[
                (
                    "context.prepare",
                    "replace",
                    r#"{"messages":[{"role":"user","content":"context from the probe"}]}"#,
                ),
                (
                    "provider.request",
                    "replace",
                    r#"{"request":{"maxTokens":77}}"#,
                ),
            ],
        );
        p.mock.enqueue(Reply::text(&["ok"]));
        let out = p.run(&["the user's words"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        let request = &p.requests()[0];
        assert_eq!(user_text(request), "context from the probe", "{tier:?}");
        let budget = request
            .get("max_tokens")
            .or_else(|| request.get("max_completion_tokens"));
        assert_eq!(budget, Some(&json!(77)), "{tier:?} {request}");

        // An invalid replacement stops the run before anything is sent.
        let p = Probe::new(
            tier,
            &[("provider.request", "replace", r#"{"model":"swapped"}"#)],
        );
        let out = p.run(&["task"]);
        failed_with(&out, "not a valid payload");
        assert!(p.mock.requests().is_empty());

        for point in ["context.prepare", "provider.request"] {
            let p = Probe::new(tier, &[(point, "block", "")]);
            let out = p.run(&["task"]);
            failed_with(&out, &format!("{point} blocked by probe"));
            assert!(p.mock.requests().is_empty());
        }
    }
}

#[test]
fn provider_response_replaced_and_blocked() {
    for tier in TIERS {
        let p = Probe::new(
            tier,
            &[(
                "provider.response",
                "replace",
                r#"{"text":"the probe answered"}"#,
            )],
        );
        p.mock.enqueue(Reply::text(&["the model answered"]));
        let out = p.run(&["--output-format", "json", "task"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(result["result"], "the probe answered", "{tier:?} {result}");

        let p = Probe::new(tier, &[("provider.response", "block", "")]);
        p.mock.enqueue(Reply::text(&["the model answered"]));
        let out = p.run(&["task"]);
        failed_with(&out, "provider.response blocked by probe");
    }
}

#[test]
fn tool_points_replace_arguments_and_results() {
    for tier in TIERS {
        let p = Probe::new(
            tier,
            &[(
                "tool.before",
                "replace",
                r#"{"arguments":"{\"path\":\"other.txt\"}"}"#,
            )],
        );
        std::fs::write(p.env.workspace().join("other.txt"), "the other file\n").unwrap();
        p.read_notes();
        let out = p.run(&["read"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        let results = tool_results("openai", &p.requests()[1]);
        assert!(
            results[0].1.contains("the other file"),
            "{tier:?} {results:?}"
        );

        let p = Probe::new(
            tier,
            &[(
                "tool.after",
                "replace",
                r#"{"result":"result by the probe"}"#,
            )],
        );
        p.read_notes();
        let out = p.run(&["read"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            tool_results("openai", &p.requests()[1])[0].1,
            "result by the probe"
        );

        for point in ["tool.before", "tool.after"] {
            let p = Probe::new(tier, &[(point, "block", "")]);
            p.read_notes();
            let out = p.run(&["read"]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            let result = &tool_results("openai", &p.requests()[1])[0].1;
            assert!(
                !result.contains("ordinary notes"),
                "{tier:?} {point}: {result}"
            );
            assert!(
                result.contains(&format!("{point} blocked by probe")),
                "{tier:?} {point}: {result}"
            );
        }
    }
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
    for tier in TIERS {
        // Headless `ask`: the host refuses the writer; the probe allows it (audited).
        let p = Probe::new(tier, &[("permission.decision", "allow", "")]);
        p.mock.enqueue(write());
        p.mock.enqueue(Reply::text(&["done"]));
        let out = p.run(&["write"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        assert_eq!(
            std::fs::read_to_string(p.env.workspace().join("out.txt")).unwrap(),
            "written"
        );
        assert_eq!(
            p.observed(&out, "permission.decision")[0]["hostDecision"],
            "deny"
        );
        assert!(
            stderr(&out).contains("plugin `probe` allowed `write_file`"),
            "{}",
            stderr(&out)
        );

        // Without the probe's answer the same run writes nothing.
        let p = Probe::new(tier, &[]);
        p.mock.enqueue(write());
        p.mock.enqueue(Reply::text(&["done"]));
        let out = p.run(&["write"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(!p.env.workspace().join("out.txt").exists());

        // The host allows it (yolo); the probe denies it.
        let p = Probe::new(tier, &[("permission.decision", "deny", "")]);
        p.mock.enqueue(write());
        p.mock.enqueue(Reply::text(&["done"]));
        let out = p.run(&["--permission-mode", "bypassPermissions", "write"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(!p.env.workspace().join("out.txt").exists(), "{tier:?}");
        let result = &tool_results("openai", &p.requests()[1])[0].1;
        assert!(
            result.contains("permission.decision denied by probe"),
            "{tier:?} {result}"
        );
    }
}

#[test]
fn session_save_and_end_blocks_are_reported_not_fatal() {
    for tier in TIERS {
        let p = Probe::new(
            tier,
            &[("session.save", "block", ""), ("session.end", "block", "")],
        );
        p.mock.enqueue(Reply::text(&["ok"]));
        let out = p.run(&["task"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        for point in ["session.save", "session.end"] {
            assert!(
                stderr(&out).contains(&format!("{point} blocked by probe")),
                "{tier:?}: {}",
                stderr(&out)
            );
        }
    }
}

#[test]
fn frontend_event_changes_what_is_shown_not_what_the_model_reads() {
    for tier in TIERS {
        let p = Probe::new(
            tier,
            &[(
                "frontend.event",
                "replace",
                r#"{"text":"shown by the probe"}"#,
            )],
        );
        p.read_notes();
        let out = p.run(&["--output-format", "stream-json", "--verbose", "read"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        let shown = stdout(&out);
        assert!(shown.contains("shown by the probe"), "{tier:?}: {shown}");
        assert!(!shown.contains("ordinary notes"), "{tier:?}: {shown}");
        // The model read the file.
        assert!(
            tool_results("openai", &p.requests()[1])[0]
                .1
                .contains("ordinary notes")
        );

        // A block hides the event.
        let p = Probe::new(tier, &[("frontend.event", "block", "")]);
        p.read_notes();
        let out = p.run(&["--output-format", "stream-json", "--verbose", "read"]);
        assert_eq!(out.status.code(), Some(0), "{tier:?}: {}", stderr(&out));
        assert!(
            !stdout(&out).contains("ordinary notes"),
            "{tier:?}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn two_owners_of_one_slot_fail_the_run_naming_both() {
    let p = Probe::new(Tier::Component, &[]);
    p.env.install_fixture("rival");
    p.mock.enqueue(Reply::text(&["ok"]));
    let out = p.run(&["task"]);
    failed_with(
        &out,
        "slot `session_policy` is claimed by both `probe` and `rival`",
    );
    assert!(p.mock.requests().is_empty());
}
