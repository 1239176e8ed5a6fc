//! A deny rule holds in every posture, for the spellings the shell runs as `git push` (the
//! spellings themselves are tested in `reasonix-rules`).

use super::rule::{Rule, ToolKind};
use super::{Call, Policy, Posture};
use serde_json::json;
use std::path::Path;

const SPELLINGS: &[&str] = &[
    "git push",
    "\"git\" push",
    "g\\it push",
    "FOO=1 git push",
    "command git push",
    "env -i nice -n 5 /usr/bin/git push",
    "bash -c 'git push'",
    "(git push)",
    "$G push",
];

#[test]
fn a_deny_holds_in_every_posture() {
    let policy = Policy {
        allow: vec![Rule::parse("Bash").unwrap()],
        deny: vec![Rule::parse("Bash(git push:*)").unwrap()],
        ..Policy::default()
    };
    for command in SPELLINGS {
        let args = json!({ "command": command });
        let call = Call {
            tool: "bash",
            kind: ToolKind::described(r#"{"properties":{"command":{"type":"string"}}}"#, false),
            read_only: false,
            args: &args,
            workspace: Path::new("/w"),
            reach: None,
            own_rules: false,
        };
        for posture in [Posture::Yolo, Posture::Auto, Posture::Ask] {
            let err = policy.resolve_headless(&call, posture).unwrap_err();
            assert!(err.contains("git push:*"), "{posture:?} {command:?}: {err}");
        }
    }
}

/// Why a tool asks comes from what it is (its class), never from how its name is spelled.
#[test]
fn the_reason_to_ask_comes_from_the_tool_class_not_its_name() {
    let policy = Policy::default();
    let args = json!({});
    let reason = |tool: &str, own_rules: bool, reach: Option<&str>| {
        let call = Call {
            tool,
            kind: ToolKind::Other,
            read_only: false,
            args: &args,
            workspace: Path::new("/w"),
            reach,
            own_rules,
        };
        policy.resolve_headless(&call, Posture::Ask).unwrap_err()
    };
    assert!(reason("server_tool", true, None).contains("tools of MCP servers need approval"));
    let named_like_one = reason("mcp__x__y", false, None);
    assert!(!named_like_one.contains("MCP"), "{named_like_one}");
    let wider = reason("peek", false, Some("a wide peek reads other projects"));
    assert!(
        wider.contains("a wide peek reads other projects, which needs approval"),
        "{wider}"
    );
}

/// `[permissions]` as the configuration reads it becomes the policy: the deny rule blocks even
/// under `--yolo`, the allow rule lets its command run under `ask`.
#[test]
fn the_configured_rules_are_the_policy() {
    let config = reasonix_config::Config::parse(
        Path::new("/home/me/.reasonix/config.toml"),
        "[permissions]\nmode = \"ask\"\nallow = [\"Bash(cargo test:*)\"]\ndeny = [\"Bash(rm:*)\"]\n",
    )
    .unwrap();
    let policy = Policy::from(config.permission_rules().unwrap());
    let workspace = Path::new("/w");
    let call = |args: &serde_json::Value| -> Result<(), String> {
        let call = Call {
            tool: "bash",
            kind: ToolKind::Shell,
            read_only: false,
            args,
            workspace,
            reach: None,
            own_rules: false,
        };
        let posture = if args["command"] == "rm -rf target" {
            Posture::Yolo
        } else {
            Posture::Ask
        };
        policy.resolve_headless(&call, posture).map(|_| ())
    };
    let err = call(&json!({ "command": "rm -rf target" })).unwrap_err();
    assert!(err.contains("Bash(rm:*)"), "{err}");
    assert!(call(&json!({ "command": "cargo test --all" })).is_ok());
}
