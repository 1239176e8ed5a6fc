use super::*;
use outcome::Ended;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Answers each hook by its command: `exit N`, `out TEXT`, `err TEXT` words; records inputs.
#[derive(Default)]
struct Fake {
    inputs: RefCell<Vec<(String, Value)>>,
    warnings: RefCell<Vec<String>>,
}

impl Runner for Fake {
    fn run(&self, hook: &HookSpec, input: &str, _ws: Option<&str>) -> Run {
        assert!(input.ends_with('\n'));
        self.inputs
            .borrow_mut()
            .push((hook.command.clone(), serde_json::from_str(input).unwrap()));
        let (mut code, mut stdout, mut stderr) = (0, String::new(), String::new());
        for part in hook.command.split(';') {
            let part = part.trim();
            if let Some(n) = part.strip_prefix("exit ") {
                code = n.parse().unwrap();
            } else if let Some(t) = part.strip_prefix("out ") {
                stdout = t.to_string();
            } else if let Some(t) = part.strip_prefix("err ") {
                stderr = t.to_string();
            } else if part == "hang" {
                return Run {
                    ended: Ended::Killed("timed out after 1 s".into()),
                    stdout,
                    stderr,
                };
            }
        }
        Run {
            ended: Ended::Exited(code),
            stdout,
            stderr,
        }
    }
    fn warn(&self, message: &str) {
        self.warnings.borrow_mut().push(message.to_string());
    }
}

fn hook(event: &str, matcher: Option<&str>, command: &str) -> HookSpec {
    HookSpec {
        event: event.into(),
        matcher: matcher.map(str::to_string),
        matcher_style: "claude".into(),
        command: command.into(),
        timeout_ms: None,
        cwd: None,
        env: BTreeMap::new(),
        source: "s.json:1".into(),
        condition: None,
    }
}

fn with<'a>(fake: &'a Fake, hooks: Vec<HookSpec>) -> Hooks<'a> {
    Hooks {
        hooks,
        workspace: Some("/ws".into()),
        runner: fake,
    }
}

#[test]
fn pre_tool_use_blocks_matching_calls_with_claude_input() {
    let fake = Fake::default();
    let h = with(
        &fake,
        vec![
            hook("PreToolUse", Some("Read"), "exit 2; err never"),
            hook("PreToolUse", Some("Bash"), "exit 2; err no rm -rf"),
            hook("PreToolUse", None, "out after"),
        ],
    );
    let payload = r#"{"name":"bash","arguments":"{\"command\":\"rm -rf /\"}","callId":"c1"}"#;
    let d = h.intercept("tool.before", payload).unwrap();
    assert_eq!(
        d,
        Decision::Block("a PreToolUse hook blocked this call: no rm -rf".into())
    );
    let inputs = fake.inputs.borrow();
    assert_eq!(
        inputs.len(),
        1,
        "the Read hook does not match; the first block stops the rest"
    );
    let input = &inputs[0].1;
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"]["command"], "rm -rf /");
    assert_eq!(input["tool_use_id"], "c1");
    assert_eq!(input["cwd"], "/ws");
}

#[test]
fn session_start_context_is_added_once_with_the_prompt_context() {
    let fake = Fake::default();
    let h = with(
        &fake,
        vec![
            hook("SessionStart", None, "out branch main"),
            hook("UserPromptSubmit", None, "out extra"),
        ],
    );
    let d = h
        .intercept(
            "input.receive",
            r#"{"text":"fix it","sessionStart":"startup","sessionId":"s1"}"#,
        )
        .unwrap();
    let Decision::Replace(json) = d else {
        panic!("{d:?}")
    };
    assert_eq!(fake.inputs.borrow()[0].1["session_id"], "s1");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["text"],
        "<hook-context event=\"SessionStart\">\nbranch main\n</hook-context>\n\nfix it\n\n<hook-context event=\"UserPromptSubmit\">\nextra\n</hook-context>"
    );
    assert_eq!(v["sessionStart"], "startup");
    // A later input has no `sessionStart`: only the prompt hook runs.
    fake.inputs.borrow_mut().clear();
    h.intercept("input.receive", r#"{"text":"more"}"#).unwrap();
    let inputs = fake.inputs.borrow();
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0].1["prompt"], "more");
}

#[test]
fn user_prompt_submit_blocks_and_timeouts_block_gating_events() {
    let fake = Fake::default();
    let h = with(
        &fake,
        vec![hook(
            "UserPromptSubmit",
            None,
            r#"out {"decision":"block","reason":"no"}"#,
        )],
    );
    assert!(matches!(
        h.intercept("input.receive", r#"{"text":"x"}"#).unwrap(),
        Decision::Block(r) if r.ends_with("no")
    ));
    let h = with(&fake, vec![hook("PreToolUse", None, "hang")]);
    let d = h
        .intercept(
            "tool.before",
            r#"{"name":"ls","arguments":"{}","callId":"c"}"#,
        )
        .unwrap();
    assert!(matches!(d, Decision::Block(r) if r.contains("timed out")));
}

#[test]
fn post_tool_use_feedback_is_appended_and_permission_request_decides() {
    let fake = Fake::default();
    let h = with(
        &fake,
        vec![
            hook(
                "PostToolUse",
                Some("Write"),
                r#"out {"decision":"block","reason":"fmt failed"}"#,
            ),
            hook(
                "PermissionRequest",
                None,
                r#"out {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#,
            ),
        ],
    );
    let after = r#"{"name":"write_file","arguments":"{\"path\":\"a.rs\"}","result":"ok","isError":false,"callId":"c"}"#;
    let Decision::Replace(json) = h.intercept("tool.after", after).unwrap() else {
        panic!()
    };
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["result"],
        "ok\n\n<hook-context event=\"PostToolUse\">\nfmt failed\n</hook-context>"
    );
    assert_eq!(
        fake.inputs.borrow()[0].1["tool_input"]["file_path"],
        "/ws/a.rs"
    );
    let decision =
        r#"{"name":"bash","arguments":"{}","readOnly":false,"hostDecision":"deny","callId":"c"}"#;
    assert_eq!(
        h.intercept("permission.decision", decision).unwrap(),
        Decision::Allow
    );
    let allowed = decision.replace("\"deny\"", "\"allow\"");
    assert_eq!(
        h.intercept("permission.decision", &allowed).unwrap(),
        Decision::Proceed
    );
}

#[test]
fn observers_never_block() {
    let fake = Fake::default();
    let h = with(
        &fake,
        vec![
            hook("Stop", None, "exit 2; err x"),
            hook("Notification", Some("permission_denied"), "exit 1"),
        ],
    );
    let save = r#"{"sessionPath":"/st/20261201-x.jsonl","phase":"save"}"#;
    assert_eq!(
        h.intercept("session.save", save).unwrap(),
        Decision::Proceed
    );
    let stop = fake.inputs.borrow()[0].1.clone();
    assert_eq!(stop["session_id"], "20261201-x");
    assert_eq!(stop["transcript_path"], "/st/20261201-x.jsonl");
    let ev = r#"{"kind":"permission_denied","text":"no","detail":"bash"}"#;
    assert_eq!(
        h.intercept("frontend.event", ev).unwrap(),
        Decision::Proceed
    );
    assert_eq!(
        fake.warnings.borrow().len(),
        2,
        "{:?}",
        fake.warnings.borrow()
    );
    let msg = r#"{"kind":"message","text":"hi","detail":""}"#;
    h.intercept("frontend.event", msg).unwrap();
    assert_eq!(
        fake.inputs.borrow().len(),
        2,
        "messages fire no Notification"
    );
}

#[test]
fn an_if_condition_decides_whether_the_hook_runs() {
    let fake = Fake::default();
    let mut commit = hook("PreToolUse", Some("Bash"), "exit 2; err commit guard");
    commit.condition = Some("Bash(git commit*)".into());
    let mut on_prompt = hook("UserPromptSubmit", None, "out never");
    on_prompt.condition = Some("Bash".into());
    let h = with(&fake, vec![commit, on_prompt]);
    let call = |command: &str| {
        let payload = json!({
            "name": "bash",
            "arguments": json!({ "command": command }).to_string(),
            "callId": "c1",
        });
        h.intercept("tool.before", &payload.to_string()).unwrap()
    };
    assert_eq!(call("git status"), Decision::Proceed);
    assert_eq!(call("echo hi"), Decision::Proceed);
    assert!(fake.inputs.borrow().is_empty(), "the hook never ran");
    assert!(matches!(
        call("git add . && git commit -m x"),
        Decision::Block(_)
    ));
    assert_eq!(fake.inputs.borrow().len(), 1);
    let d = h
        .intercept("input.receive", r#"{"text":"hi","sessionId":"s"}"#)
        .unwrap();
    assert_eq!(d, Decision::Proceed, "`if` outside tool events: never runs");
    assert_eq!(fake.inputs.borrow().len(), 1);
}
