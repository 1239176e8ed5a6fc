//! The agent's tool pipeline end to end: real `reasonix run`, real interceptor and tool
//! components loaded through the registry, the mock LLM recording what the next request
//! carries. An interceptor component blocks a call at `tool.before` and replaces a result at
//! `tool.after`; a tool's "read-only" claim counts only when its plugin's grant backs it; the
//! built-in tool set's system prompt is pinned byte for byte.

use crate::support::{self, Env, stderr, stdout, tool_results};
use reasonix_agent::agent_loop::prompt::build;
use reasonix_core::catalog::Catalog;
use reasonix_core::tool::Tool;
use reasonix_core::types::ToolSpec;
use reasonix_host::Registry;
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::process::Output;

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    /// A trusted project whose default model is the mock; `extra` is appended to its config.
    fn new(extra: &str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let config = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
        env.project_config(&format!("{config}\n{extra}"));
        Setup { env, mock }
    }

    fn reasonix(&self, args: &[&str]) -> Output {
        self.env.reasonix(args)
    }

    /// `reasonix run --dir <workspace> <args…>` in the default posture (`ask`).
    fn run(&self, args: &[&str]) -> Output {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        self.reasonix(&all)
    }

    /// The tool results the `i`-th request carried, by call id.
    fn results(&self, i: usize) -> Vec<(String, String)> {
        tool_results("openai", &self.mock.requests()[i].json())
    }

    fn result(&self, i: usize, id: &str) -> String {
        self.results(i)
            .into_iter()
            .find(|(call, _)| call == id)
            .map(|(_, content)| content)
            .unwrap_or_else(|| panic!("no result for {id} in request {i}"))
    }
}

fn read_both() -> Reply {
    Reply::tool_calls(
        &[
            ("c1", "read_file", r#"{"path":"secrets/key.txt"}"#),
            ("c2", "read_file", r#"{"path":"notes.txt"}"#),
        ],
        1,
    )
}

fn workspace_with_secret(env: &Env) {
    let ws = env.workspace();
    std::fs::create_dir_all(ws.join("secrets")).unwrap();
    std::fs::write(ws.join("secrets/key.txt"), "TOPSECRET-4711\n").unwrap();
    std::fs::write(ws.join("notes.txt"), "ordinary notes\n").unwrap();
}

#[test]
fn an_interceptor_component_blocking_tool_before_stops_the_call_in_a_real_run() {
    let s = Setup::new("[plugin.gatekeeper.config]\nblock_path = \"secrets/\"\n");
    s.env.install_fixture("gatekeeper");
    workspace_with_secret(&s.env);
    s.mock.enqueue(read_both());
    s.mock.enqueue(Reply::text(&["done"]));

    let out = s.run(&["read the files"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "done\n");
    let blocked = s.result(1, "c1");
    assert!(
        blocked.contains("blocked by interceptor `gatekeeper`: gatekeeper: secrets/ is off limits"),
        "{blocked}"
    );
    assert!(!s.mock.requests()[1].body.contains("TOPSECRET"));
    // The other call went through untouched.
    assert!(s.result(1, "c2").contains("ordinary notes"));
    assert!(stderr(&out).contains("gatekeeper"), "{}", stderr(&out));
}

#[test]
fn an_interceptor_component_replacing_a_result_changes_what_the_next_request_carries() {
    let s = Setup::new(
        "[plugin.gatekeeper.config]\nreplace_tool = \"read_file\"\nreplacement = \"(redacted by gatekeeper)\"\n",
    );
    s.env.install_fixture("gatekeeper");
    workspace_with_secret(&s.env);
    s.mock.enqueue(read_both());
    s.mock.enqueue(Reply::text(&["done"]));

    let out = s.run(&["read the files"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(s.result(1, "c1"), "(redacted by gatekeeper)");
    assert_eq!(s.result(1, "c2"), "(redacted by gatekeeper)");
    let body = &s.mock.requests()[1].body;
    assert!(!body.contains("TOPSECRET"), "the original result leaked");
    assert!(
        !body.contains("ordinary notes"),
        "the original result leaked"
    );
}

#[test]
fn without_the_interceptors_config_the_component_lets_everything_through() {
    // The same component with nothing configured: the results are the files' contents, so
    // the two tests above measure the interceptor, not a broken read.
    let s = Setup::new("");
    s.env.install_fixture("gatekeeper");
    workspace_with_secret(&s.env);
    s.mock.enqueue(read_both());
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run(&["read the files"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(s.result(1, "c1").contains("TOPSECRET-4711"));
    assert!(s.result(1, "c2").contains("ordinary notes"));
}

fn peek_script(mock: &MockLlm) {
    mock.enqueue(Reply::tool_calls(
        &[("p1", "peek", r#"{"what":"the weather"}"#)],
        1,
    ));
    mock.enqueue(Reply::text(&["ok"]));
}

#[test]
fn a_read_only_tool_whose_plugin_may_run_commands_is_asked_about() {
    let s = Setup::new("");
    let fixture = support::fixture("sly");
    let out = s.reasonix(&["plugin", "install", fixture.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Install shows the class the kernel will apply, not the tool's claim.
    let shown = stdout(&out);
    assert!(shown.contains("peek: runs commands"), "{shown}");

    peek_script(&s.mock);
    let out = s.run(&["peek"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = s.result(1, "p1");
    assert!(
        result.starts_with("Permission needed: `peek` was not run"),
        "{result}"
    );
    assert!(
        !s.env.workspace().join("marker.txt").exists(),
        "the 'read-only' tool ran a command without a question"
    );

    let info = s.reasonix(&["plugin", "info", "sly"]);
    assert!(
        stdout(&info).contains("tool peek (runs commands (asks like Bash))"),
        "{}",
        stdout(&info)
    );
}

#[test]
fn the_same_tool_in_a_plugin_without_grants_is_believed() {
    let s = Setup::new("");
    // Copied in without an index entry: loaded with no capabilities at all.
    s.env.install_fixture("sly");
    peek_script(&s.mock);
    let out = s.run(&["peek"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = s.result(1, "p1");
    // It ran (read-only, no question), and could not run its command.
    assert!(
        result.starts_with("peeked at the weather (the command failed"),
        "{result}"
    );
    assert!(!s.env.workspace().join("marker.txt").exists());
}

/// The system prompt of the built-in tool set, for a fixed environment: the start of every
/// request, so a change to it must be deliberate (bless with `REASONIX_BLESS=1`).
#[test]
fn the_built_in_system_prompt_is_pinned() {
    let env = Env::new();
    let registry = Registry::load(
        crate::BUILTINS,
        &reasonix_core::settings::Paths::under(env.home()),
        &Default::default(),
        None,
    )
    .unwrap();
    // With the runtime's own tools, as a session offers them.
    let mut specs: Vec<ToolSpec> = Catalog::tools(&registry)
        .iter()
        .chain(&reasonix_runtime::delegate::tools::Delegating::all(
            &env.home(),
        ))
        .map(|t| t.spec().clone())
        .collect();
    specs.push(
        reasonix_agent::agent_loop::plan::ExitPlanMode::new()
            .spec()
            .clone(),
    );
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    // The kernel builds part 1 (the guidance); the built-in `environment` component appends
    // the rest, pinned byte for byte through a real run in `builtin_interceptors`.
    let prompt = build(None, &specs);
    let golden = support::repo_root().join("tests/e2e/golden/system_prompt.txt");
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    let expected = expected
        .split_once("\n\n# Environment\n")
        .map_or(expected.as_str(), |(guidance, _)| guidance);
    assert_eq!(
        prompt, expected,
        "the built-in system prompt changed; if on purpose, say so in CHANGELOG.md and rerun with REASONIX_BLESS=1"
    );
}

#[test]
fn disabling_a_tool_takes_its_guidance_out_of_the_prompt() {
    // `[tools] enabled` narrows what is offered; the request's system prompt follows.
    let s = Setup::new("[tools]\nenabled = [\"read_file\", \"grep\"]\n");
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run(&["hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let body: Value = s.mock.requests()[0].json();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("`read_file` before editing"), "{system}");
    assert!(system.contains("`grep`"), "{system}");
    assert!(!system.contains("`bash`"), "{system}");
    assert!(!system.contains("`edit_file`"), "{system}");
}
