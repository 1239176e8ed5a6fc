//! MCP tools in the agent's pipeline, through a real `reasonix run` against the mock LLM and
//! the reference server (`@modelcontextprotocol/server-everything`) over stdio:
//! - permission rules (`mcp__server`, `mcp__server__tool`) and the default posture (an MCP tool
//!   is a writer: asked, so refused headless);
//! - a `PreToolUse` hook (the `tool.before` interception point) blocking an MCP call;
//! - the prompt prefix: the same servers give the same `tools` bytes on two starts;
//! - a server's environment: the allow-list and its own `env`, never the user's other secrets.

use crate::support::{Env, stderr, tool_results};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;

fn everything() -> Option<PathBuf> {
    crate::support::mcp::everything()
}

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    /// A trusted project config: the mock as the model, server-everything as `everything`
    /// (`env` added to its entry), then `extra`.
    fn new(entry: &std::path::Path, env_line: &str, extra: &str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let config = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
        env.project_config(&format!(
            "{config}\n[[plugins]]\nname = \"everything\"\ncommand = \"node\"\nargs = [\"{}\", \"stdio\"]\n{env_line}\n{extra}",
            entry.display()
        ));
        Setup { env, mock }
    }

    fn run(&self, args: &[&str]) -> Output {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.env
            .command(&all)
            .env("SECRET_API_KEY", "sk-must-not-leak")
            .env("PASSED_TOKEN", "tok-named-in-env")
            .output()
            .unwrap()
    }

    fn result(&self, request: usize, id: &str) -> String {
        tool_results("openai", &self.mock.requests()[request].json())
            .into_iter()
            .find(|(call, _)| call == id)
            .map(|(_, content)| content)
            .unwrap_or_else(|| panic!("no result for {id} in request {request}"))
    }

    fn echo(&self, id: &str, text: &str) {
        self.mock.enqueue(Reply::tool_calls(
            &[(
                id,
                "mcp__everything__echo",
                &format!(r#"{{"message":"{text}"}}"#),
            )],
            1,
        ));
        self.mock.enqueue(Reply::text(&["done"]));
    }
}

#[test]
fn an_mcp_tool_asks_by_default_and_rules_by_server_or_tool_decide() {
    let Some(entry) = everything() else { return };
    let s = Setup::new(&entry, "", "");

    // Default posture, no rule: a writer that would ask is refused in a headless run.
    s.echo("c1", "first");
    let out = s.run(&["echo once"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let refused = s.result(1, "c1");
    assert!(!refused.contains("Echo: first"), "{refused}");

    // `mcp__everything` (the whole server) allows it.
    s.echo("c2", "second");
    let out = s.run(&["--allowed-tools", "mcp__everything", "--", "echo again"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(s.result(3, "c2").contains("Echo: second"));

    // A deny rule on the exact tool wins even in yolo.
    s.echo("c3", "third");
    let out = s.run(&[
        "--yolo",
        "--disallowed-tools",
        "mcp__everything__echo",
        "--",
        "echo denied",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let denied = s.result(5, "c3");
    assert!(!denied.contains("Echo: third"), "{denied}");
}

/// The rule families by kind (`Bash`, `Edit`, `Read`, `WebFetch`) never cover an MCP tool, which
/// runs unconfined: a `Bash` grant (for sandboxed commands) does not let a server's tool run,
/// and `deny Bash` does not block one its own rule allows. The refusal names what would help.
#[test]
fn rule_families_by_kind_do_not_cover_mcp_tools() {
    let Some(entry) = everything() else { return };
    let s = Setup::new(&entry, "", "");
    for (i, family) in ["Bash", "Edit", "Read", "WebFetch"].iter().enumerate() {
        let id = format!("a{i}");
        s.echo(&id, "through a family");
        let out = s.run(&["--allowed-tools", family, "--", "echo"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let refused = s.result(2 * i + 1, &id);
        assert!(
            !refused.contains("Echo: through a family"),
            "`{family}` allowed an MCP tool: {refused}"
        );
        assert!(refused.contains("MCP servers need approval"), "{refused}");
        assert!(!refused.contains("acceptEdits"), "{refused}");
        assert!(refused.contains("mcp__everything__echo"), "{refused}");
    }
    s.echo("d1", "despite deny Bash");
    let out = s.run(&[
        "--allowed-tools",
        "mcp__everything__echo",
        "--disallowed-tools",
        "Bash",
        "--",
        "echo",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(s.result(9, "d1").contains("Echo: despite deny Bash"));
}

#[test]
fn a_pre_tool_use_hook_blocks_an_mcp_call() {
    let Some(entry) = everything() else { return };
    let s = Setup::new(&entry, "", "");
    let script = s.env.root.path().join("guard.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat >/dev/null\necho 'no echo from MCP today' >&2\nexit 2\n",
    )
    .unwrap();
    let settings = serde_json::json!({"hooks": {"PreToolUse": [{
        "matcher": "mcp__everything__echo",
        "hooks": [{"type": "command", "command": format!("sh {}", script.display())}],
    }]}});
    std::fs::write(s.env.home().join("settings.json"), settings.to_string()).unwrap();
    s.echo("c1", "blocked");
    let out = s.run(&["--yolo", "echo through a hook"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = s.result(1, "c1");
    assert!(result.contains("no echo from MCP today"), "{result}");
    assert!(!result.contains("Echo: blocked"), "{result}");
}

#[test]
fn the_same_servers_give_the_same_prefix_bytes_on_every_start() {
    let Some(entry) = everything() else { return };
    let s = Setup::new(&entry, "", "");
    for _ in 0..2 {
        s.mock.enqueue(Reply::text(&["hi"]));
        let out = s.run(&["hello"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let requests = s.mock.requests();
    let tools = |i: usize| -> String { requests[i].json()["tools"].to_string() };
    let names: Vec<String> = requests[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        names.iter().any(|n| n == "mcp__everything__echo"),
        "{names:?}"
    );
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "tools are sent sorted by name");
    assert_eq!(
        tools(0),
        tools(1),
        "the tools bytes differ between two starts"
    );
    // Same system prompt bytes too.
    let system = |i: usize| -> Value { requests[i].json()["messages"][0].clone() };
    assert_eq!(system(0), system(1));
}

#[test]
fn a_server_gets_the_allow_listed_environment_and_its_own_env_only() {
    let Some(entry) = everything() else { return };
    let s = Setup::new(&entry, "env = { PASSED_TOKEN = \"${PASSED_TOKEN}\" }", "");
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "mcp__everything__get-env", "{}")],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run(&["--yolo", "show the environment"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = s.result(1, "c1");
    assert!(result.contains("tok-named-in-env"), "{result}");
    assert!(result.contains("\"PATH\""), "{result}");
    assert!(!result.contains("sk-must-not-leak"), "{result}");
    assert!(!result.contains("SECRET_API_KEY"), "{result}");
}
