//! The agent loop end to end, in process: the real registry (built-in tool components and the
//! `llm` provider component), the kernel's `ProviderClient` talking HTTP to the mock LLM server,
//! and `Agent::run`. Each test scripts the model, then checks what really happened: files on
//! disk, the outcome, the events, and the request bodies the mock recorded — in each provider
//! kind's own wire shape.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use std::sync::Arc;

use crate::BUILTINS;

use reasonix_agent::agent_loop::{Agent, AgentConfig, AgentEvent, RunOutcome, RunStatus};
use reasonix_agent::completion::ProviderClient;
use reasonix_agent::permissions::{Policy, Posture, Rule};
use reasonix_agent::session::SessionStore;
use reasonix_config::providers::retry::RetryPolicy;
use reasonix_config::providers::{ResolvedProvider, resolve_providers};
use reasonix_config::{Config, Paths};
use reasonix_core::cancel::CancelToken;
use reasonix_core::types::{Message, Role, ToolCall};
use reasonix_host::Registry;
use reasonix_mock_llm::{Fault, MockLlm, RecordedRequest, Reply, Step, Usage as MockUsage};
use serde_json::Value;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::{Env, shared_artifact_cache};

const KINDS: [&str; 3] = ["openai", "anthropic", "responses"];
const SYSTEM: &str = "You are Reasonix, a coding agent. Work in the workspace.";

/// One registry for the whole file: loading is not what these tests are about.
fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(load_registry)
}

fn load_registry() -> Registry {
    let home = tempfile::tempdir().unwrap().keep();
    let paths = Paths {
        state: home.clone(),
        home,
        cache: shared_artifact_cache(),
    };
    Registry::load(BUILTINS, &paths, &Default::default(), None).unwrap()
}

/// A registry of its own, for a test that cancels: cancelling kills only the cancelled calls'
/// jobs, but a test about that must not lean on it to keep the tests beside it safe.
fn own_registry() -> &'static Registry {
    Box::leak(Box::new(load_registry()))
}

/// A temp home and workspace, the mock, and a provider `mock` of one kind pointing at it.
struct Setup {
    kind: &'static str,
    env: Env,
    mock: MockLlm,
    providers: Vec<ResolvedProvider>,
}

impl Setup {
    fn new(kind: &'static str) -> Setup {
        Setup::with(kind, "")
    }

    /// With extra `[[providers]]` keys.
    fn with(kind: &'static str, extra: &str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let text = env.mock_provider(
            kind,
            &mock.base_url(),
            "sk-test",
            &format!("stall_timeout_seconds = 5\n{extra}"),
        );
        let config = Config::parse(&env.project().join("reasonix.toml"), &text).unwrap();
        let providers = resolve_providers(&config).unwrap();
        Setup {
            kind,
            env,
            mock,
            providers,
        }
    }

    fn client(&self) -> ProviderClient {
        self.client_on(registry())
    }

    fn client_on(&self, registry: &'static Registry) -> ProviderClient {
        ProviderClient::new(
            registry,
            &self.providers,
            Some("mock"),
            None,
            None,
            &self.env.home(),
        )
        .unwrap()
        .with_policy(RetryPolicy {
            max_retries: 2,
            base: Duration::from_millis(10),
            cap: Duration::from_millis(100),
            retry_after_ceiling: Duration::from_millis(100),
            jitter: Duration::ZERO,
            ..RetryPolicy::default()
        })
    }

    fn config(&self, posture: Posture, policy: Policy) -> AgentConfig {
        AgentConfig {
            workspace: self.env.workspace(),
            system_prompt: SYSTEM.into(),
            append_system_prompt: None,
            max_steps: 30,
            posture,
            policy,
            effort: None,
            max_output_tokens: None,
            enabled_tools: None,
            compaction: Default::default(),
            mcp_schema_budget: reasonix_agent::agent_loop::deferred::DEFAULT_BUDGET,
        }
    }

    fn agent(&self, posture: Posture, policy: Policy) -> Agent {
        Agent::new(
            Arc::new(registry()),
            self.client(),
            self.config(posture, policy),
        )
        .unwrap()
    }

    fn agent_on(&self, registry: &'static Registry, posture: Posture) -> Agent {
        let config = self.config(posture, Policy::default());
        Agent::new(Arc::new(registry), self.client_on(registry), config).unwrap()
    }

    fn ws(&self) -> std::path::PathBuf {
        self.env.workspace()
    }

    fn seed(&self, path: &str, text: &str) {
        let path = self.ws().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The tool results of request `n` (0-based), in order, in this kind's wire shape.
    fn tool_results(&self, n: usize) -> Vec<(String, String)> {
        tool_results(self.kind, &self.mock.requests()[n])
    }
}

fn run(agent: &mut Agent, task: &str) -> (RunOutcome, Vec<AgentEvent>) {
    let mut events = Vec::new();
    let outcome = agent.run(task, &CancelToken::new(), &mut |e| events.push(e));
    (outcome, events)
}

fn call(id: &str, name: &str, arguments: &str) -> Reply {
    Reply::tool_calls(&[(id, name, arguments)], 2)
}

fn usage(prompt: u64, completion: u64, cache_hit: u64) -> MockUsage {
    MockUsage {
        prompt,
        completion,
        cache_hit,
        cache_miss: prompt - cache_hit,
        reasoning: 0,
    }
}

fn policy(allow: &[&str], deny: &[&str]) -> Policy {
    let rules = |list: &[&str]| list.iter().map(|r| Rule::parse(r).unwrap()).collect();
    Policy {
        allow: rules(allow),
        deny: rules(deny),
        ..Policy::default()
    }
}

fn tool_results(kind: &str, request: &RecordedRequest) -> Vec<(String, String)> {
    support::tool_results(kind, &request.json())
}

/// The key of the conversation array in each wire's body.
fn list_key(kind: &str) -> &'static str {
    if kind == "responses" {
        "input"
    } else {
        "messages"
    }
}

// ---------------------------------------------------------------------------------------------
// Raw JSON splitting, for byte-for-byte comparisons of request bodies.
//
// Re-serialising a parsed body proves nothing about the bytes that went over the wire (serde
// would normalise key order, escapes and number formats). So these helpers cut the body text
// itself: they walk it once, tracking strings (with escapes) and nesting depth, and return the
// exact byte slices of the top-level members and of the elements of an array. Each slice is
// then checked to parse and to equal the serde view of the same element, so a bug in the
// splitter cannot make a comparison pass.
// ---------------------------------------------------------------------------------------------

/// The raw items of a JSON object or array at depth 1 (object members as `"key":value`).
fn split_raw(container: &str) -> Vec<&str> {
    let bytes = container.as_bytes();
    assert!(
        matches!(bytes.first(), Some(b'{' | b'[')),
        "not a container"
    );
    let mut items = Vec::new();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut start = 1;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    let last = container[start..i].trim();
                    if !last.is_empty() {
                        items.push(last);
                    }
                    return items;
                }
            }
            b',' if depth == 1 => {
                items.push(container[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    panic!("unterminated JSON container");
}

/// `(key, raw value)` of each top-level member of a JSON object body.
fn members(body: &str) -> Vec<(String, &str)> {
    split_raw(body.trim())
        .into_iter()
        .map(|member| {
            // The key is a JSON string: its end is the first unescaped quote after the first.
            let bytes = member.as_bytes();
            let mut i = 1;
            while bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            let key: String = serde_json::from_str(&member[..=i]).unwrap();
            let rest = member[i + 1..].trim_start();
            let value = rest.strip_prefix(':').unwrap().trim();
            (key, value)
        })
        .collect()
}

/// The raw elements of the top-level array `key` of a body, checked against serde's view.
fn raw_list<'b>(body: &'b str, key: &str) -> Vec<&'b str> {
    let raw = members(body)
        .into_iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no `{key}` in {body}"))
        .1;
    let elements = split_raw(raw);
    let parsed: Vec<Value> = serde_json::from_str(raw).unwrap();
    assert_eq!(
        elements.len(),
        parsed.len(),
        "splitter disagrees with serde"
    );
    for (raw, value) in elements.iter().zip(&parsed) {
        assert_eq!(&serde_json::from_str::<Value>(raw).unwrap(), value);
    }
    elements
}

// ---------------------------------------------------------------------------------------------
// 1. A multi-turn task for each provider kind.
// ---------------------------------------------------------------------------------------------

#[test]
fn read_write_bash_answer_for_every_kind() {
    for kind in KINDS {
        let setup = Setup::new(kind);
        setup.seed("notes.txt", "hello agent\n");
        setup.mock.enqueue_all([
            call("call_r", "read_file", r#"{"path":"notes.txt"}"#).with_usage(usage(500, 20, 0)),
            call(
                "call_w",
                "write_file",
                r#"{"path":"out/upper.txt","content":"HELLO AGENT\n"}"#,
            )
            .with_usage(usage(600, 30, 500)),
            call("call_b", "bash", r#"{"command":"wc -c < out/upper.txt"}"#)
                .with_usage(usage(700, 25, 600)),
            Reply::text(&["Wrote out/upper.txt ", "(12 bytes)."]).with_usage(usage(800, 10, 700)),
        ]);
        let mut agent = setup.agent(Posture::Auto, Policy::default());
        let (outcome, events) = run(&mut agent, "Uppercase notes.txt into out/upper.txt");

        assert_eq!(outcome.status, RunStatus::Success, "{kind}: {outcome:?}");
        assert_eq!(outcome.result, "Wrote out/upper.txt (12 bytes).", "{kind}");
        assert_eq!(outcome.steps, 4, "{kind}");
        assert_eq!(
            std::fs::read_to_string(setup.ws().join("out/upper.txt")).unwrap(),
            "HELLO AGENT\n",
            "{kind}: the file was not written"
        );
        assert_eq!(setup.mock.requests().len(), 4, "{kind}");

        // Each tool result reached the model in the next request, in the kind's wire shape.
        let read = setup.tool_results(1);
        assert_eq!(read.len(), 1, "{kind}: {read:?}");
        assert_eq!(read[0].0, "call_r", "{kind}");
        assert!(read[0].1.contains("hello agent"), "{kind}: {read:?}");
        let write = setup.tool_results(2);
        assert_eq!(write.len(), 2, "{kind}: {write:?}");
        assert_eq!(write[1].0, "call_w", "{kind}");
        assert!(!write[1].1.starts_with("Error"), "{kind}: {write:?}");
        let bash = setup.tool_results(3);
        assert_eq!(bash.len(), 3, "{kind}: {bash:?}");
        assert_eq!(bash[2].0, "call_b", "{kind}");
        assert!(
            bash[2].1.contains("12"),
            "{kind}: bash did not count the bytes: {bash:?}"
        );
        assert!(
            events.iter().any(|e| matches!(e,
                AgentEvent::ToolFinished { name, is_error: false, .. } if name == "bash")),
            "{kind}"
        );

        // Usage totals are the sums of what the mock reported.
        let u = outcome.usage;
        assert_eq!(u.requests, 4, "{kind}");
        assert_eq!(u.input_tokens, 500 + 600 + 700 + 800, "{kind}: {u:?}");
        assert_eq!(u.output_tokens, 20 + 30 + 25 + 10, "{kind}: {u:?}");
        assert_eq!(u.cache_read_tokens, 500 + 600 + 700, "{kind}: {u:?}");
        assert_eq!(u.cache_miss_tokens, 500 + 100 + 100 + 100, "{kind}: {u:?}");
        let reported: u64 = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Usage(u) => Some(u.prompt_tokens),
                _ => None,
            })
            .sum();
        assert_eq!(reported, u.input_tokens, "{kind}");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Cache-first: 20 turns, every request extends the previous one byte for byte.
// ---------------------------------------------------------------------------------------------

/// Anthropic's cache breakpoint on the last block of the last message, as the `llm` component
/// writes it (serde_json sorts keys, so it comes first in the block, followed by a comma). The
/// breakpoint moves to the new last message each turn by design — the cache key is the content
/// before it, not the marker — so it is the one thing removed before comparing.
const ANTHROPIC_BREAKPOINT: &str = r#""cache_control":{"type":"ephemeral"},"#;

#[test]
fn twenty_turns_only_ever_append_and_report_the_cache_hits() {
    for kind in KINDS {
        // Reasoning is replayed in the history the way each backend needs (DeepSeek
        // `reasoning_content`, signed Anthropic thinking blocks, Responses reasoning items):
        // that replay must be as stable as the rest.
        let extra = match kind {
            "openai" => "reasoning_protocol = \"deepseek\"",
            "anthropic" => "reasoning_protocol = \"anthropic\"\nthinking = \"adaptive\"",
            _ => "",
        };
        let setup = Setup::with(kind, extra);
        for i in 0..5 {
            setup.seed(&format!("src/f{i}.rs"), &format!("fn f{i}() {{}}\n"));
        }
        let mut hits = 0;
        for turn in 0..20u64 {
            let prompt = 1000 + turn * 150;
            let hit = if turn == 0 {
                0
            } else {
                1000 + (turn - 1) * 150
            };
            hits += hit;
            let reply = if turn == 19 {
                Reply::text(&["All ", "five files read."])
            } else if turn % 2 == 0 {
                call(
                    &format!("call_{turn}"),
                    "read_file",
                    &format!(r#"{{"path":"src/f{}.rs"}}"#, turn % 5),
                )
            } else {
                call(&format!("call_{turn}"), "ls", r#"{"path":"src"}"#)
            };
            let reply = reply
                .with_reasoning(&format!("step {turn}: look"), Some(&format!("sig-{turn}")))
                .with_usage(usage(prompt, 12, hit));
            setup.mock.enqueue(reply);
        }
        let mut agent = setup.agent(Posture::Auto, Policy::default());
        let (outcome, _) = run(&mut agent, "Read every file under src.");
        assert_eq!(outcome.status, RunStatus::Success, "{kind}: {outcome:?}");
        assert_eq!(outcome.steps, 20, "{kind}");
        assert_eq!(outcome.result, "All five files read.", "{kind}");
        assert_eq!(
            outcome.usage.cache_read_tokens, hits,
            "{kind}: the cache-hit tokens the mock returned"
        );

        let requests = setup.mock.requests();
        assert_eq!(requests.len(), 20, "{kind}");
        let key = list_key(kind);
        let first_members = members(&requests[0].body);
        for n in 1..requests.len() {
            let (prev, next) = (&requests[n - 1].body, &requests[n].body);
            // Everything but the conversation (model, system prompt / instructions, tools and
            // their order, options) is the same bytes in every request.
            let fixed = |body: &str| -> Vec<(String, String)> {
                members(body)
                    .into_iter()
                    .filter(|(k, _)| k != key)
                    .map(|(k, v)| (k, v.to_string()))
                    .collect()
            };
            assert_eq!(
                fixed(prev),
                fixed(next),
                "{kind}: request {n} changed the prefix"
            );
            let old = raw_list(prev, key);
            let new = raw_list(next, key);
            assert!(
                new.len() > old.len(),
                "{kind}: request {n} did not grow ({} → {})",
                old.len(),
                new.len()
            );
            for (i, (a, b)) in old.iter().zip(&new).enumerate() {
                let a = if kind == "anthropic" && i + 1 == old.len() {
                    a.replacen(ANTHROPIC_BREAKPOINT, "", 1)
                } else {
                    (*a).to_string()
                };
                assert_eq!(
                    a,
                    *b,
                    "{kind}: element {i} of `{key}` differs between requests {} and {}",
                    n - 1,
                    n
                );
            }
        }
        assert!(
            requests[19].body.contains("step 17: look"),
            "{kind}: reasoning was not replayed, so the test would not cover it"
        );
        // The system prompt and the tools are in the fixed part, and are what the agent holds.
        let names: Vec<&str> = first_members.iter().map(|(k, _)| k.as_str()).collect();
        assert!(names.contains(&"tools"), "{kind}: {names:?}");
        let body = requests[19].json();
        let system = match kind {
            "openai" => body["messages"][0]["content"].clone(),
            "anthropic" => body["system"][0]["text"].clone(),
            _ => body["instructions"].clone(),
        };
        // The built-in `environment` component appended its section at `system_prompt.build`.
        let system = system.as_str().unwrap_or_default();
        assert!(
            system.starts_with(&format!("{SYSTEM}\n\n# Environment\n")),
            "{kind}: {body}"
        );
        assert_eq!(
            body["tools"].as_array().unwrap().len(),
            agent.tool_specs().len(),
            "{kind}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Batches, the loop guard, truncated arguments, a cut stream.
// ---------------------------------------------------------------------------------------------

#[test]
fn readers_run_together_the_writer_after_them_and_results_keep_call_order() {
    let setup = Setup::new("openai");
    setup.seed("a.txt", "alpha\n");
    setup.seed("b.txt", "beta\n");
    setup.seed("c.txt", "gamma\n");
    setup.mock.enqueue_all([
        Reply::tool_calls(
            &[
                ("r1", "read_file", r#"{"path":"a.txt"}"#),
                ("r2", "read_file", r#"{"path":"b.txt"}"#),
                ("r3", "read_file", r#"{"path":"c.txt"}"#),
                (
                    "w1",
                    "write_file",
                    r#"{"path":"d.txt","content":"delta\n"}"#,
                ),
                ("l1", "ls", "{}"),
                ("l2", "ls", r#"{"path":"."}"#),
            ],
            2,
        ),
        Reply::text(&["done"]),
    ]);
    let mut agent = setup.agent(Posture::Auto, Policy::default());
    let (outcome, events) = run(&mut agent, "Read a, b, c; write d; list.");
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");

    let results = setup.tool_results(1);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["r1", "r2", "r3", "w1", "l1", "l2"], "call order");
    assert!(results[0].1.contains("alpha"), "{results:?}");
    assert!(results[1].1.contains("beta"), "{results:?}");
    assert!(results[2].1.contains("gamma"), "{results:?}");
    // The listings ran after the writer: they see the file it created.
    assert!(results[4].1.contains("d.txt"), "{results:?}");
    assert!(results[5].1.contains("d.txt"), "{results:?}");

    // Event order: the three readers start together, the writer starts only after all of them
    // finished, and the listings only after the writer finished.
    let order: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolStarted { id, .. } => Some(format!("start {id}")),
            AgentEvent::ToolFinished { id, .. } => Some(format!("end {id}")),
            _ => None,
        })
        .collect();
    let at = |s: &str| order.iter().position(|o| o == s).unwrap();
    for r in ["r1", "r2", "r3"] {
        assert!(at(&format!("start {r}")) < at("end r1"), "{order:?}");
        assert!(at(&format!("end {r}")) < at("start w1"), "{order:?}");
    }
    assert!(at("end w1") < at("start l1"), "{order:?}");
    assert!(at("end w1") < at("start l2"), "{order:?}");
}

#[test]
fn a_call_that_keeps_failing_is_warned_at_3_and_stopped_at_5() {
    let setup = Setup::new("openai");
    for i in 1..=6 {
        setup.mock.enqueue(call(
            &format!("call_{i}"),
            "read_file",
            r#"{"path":"missing.txt"}"#,
        ));
    }
    let mut agent = setup.agent(Posture::Auto, Policy::default());
    let (outcome, _) = run(&mut agent, "Read missing.txt");

    assert_eq!(outcome.status, RunStatus::Error, "{outcome:?}");
    assert!(
        outcome.result.contains("read_file") && outcome.result.contains('5'),
        "{outcome:?}"
    );
    assert_eq!(
        setup.mock.requests().len(),
        5,
        "no request after the 5th call"
    );
    assert_eq!(setup.mock.pending(), 1);
    let results = setup.tool_results(4);
    assert_eq!(results.len(), 4);
    assert!(!results[1].1.contains("failed 2 times"), "{results:?}");
    assert!(!results[1].1.contains("times."), "{results:?}");
    assert!(
        results[2].1.contains("failed 3 times"),
        "the 3rd result warns the model: {results:?}"
    );
    assert!(results[3].1.contains("failed 4 times"), "{results:?}");
    // The 5th result is in the history even though no request carries it.
    let last = agent.history().last().unwrap();
    assert_eq!(last.role, Role::Tool);
    assert!(last.content.contains("failed 5 times"), "{last:?}");
}

#[test]
fn truncated_tool_call_json_is_reported_to_the_model_and_the_run_goes_on() {
    for kind in KINDS {
        let setup = Setup::new(kind);
        setup.seed("a.txt", "alpha\n");
        setup.mock.enqueue_all([
            call("call_cut", "read_file", r#"{"path": "a.t"#),
            call("call_ok", "read_file", r#"{"path":"a.txt"}"#),
            Reply::text(&["a.txt says alpha"]),
        ]);
        let mut agent = setup.agent(Posture::Auto, Policy::default());
        let (outcome, _) = run(&mut agent, "Read a.txt");
        assert_eq!(outcome.status, RunStatus::Success, "{kind}: {outcome:?}");
        assert_eq!(outcome.result, "a.txt says alpha", "{kind}");
        let results = setup.tool_results(1);
        assert_eq!(results.len(), 1, "{kind}: {results:?}");
        assert_eq!(results[0].0, "call_cut", "{kind}");
        assert!(
            results[0].1.contains("not valid JSON") && results[0].1.contains("cut off"),
            "{kind}: {results:?}"
        );
        let results = setup.tool_results(2);
        assert!(results[1].1.contains("alpha"), "{kind}: {results:?}");
    }
}

#[test]
fn a_stream_cut_mid_answer_is_replayed_once_and_the_answer_is_whole() {
    let setup = Setup::new("openai");
    let answer = Reply::text(&["The answer ", "is ", "forty-two."]);
    setup.mock.enqueue_all([
        answer.clone().with_fault(Fault::CutAfter { events: 3 }),
        answer,
    ]);
    let mut agent = setup.agent(Posture::Auto, Policy::default());
    let (outcome, events) = run(&mut agent, "What is the answer?");
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
    assert_eq!(outcome.result, "The answer is forty-two.");
    assert_eq!(outcome.steps, 1, "a replay is not a new step");
    let requests = setup.mock.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].body, requests[1].body,
        "the same request replayed"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::Notice(n) if n.contains("replaying"))),
        "{events:?}"
    );
    // The history holds the answer once, not the cut prefix plus the replay.
    let last = agent.history().last().unwrap();
    assert_eq!(last.content, "The answer is forty-two.");
}

#[test]
fn an_unknown_tool_is_answered_with_the_tool_list_and_the_run_goes_on() {
    let setup = Setup::new("openai");
    setup
        .mock
        .enqueue_all([call("call_x", "run_tests", "{}"), Reply::text(&["ok"])]);
    let mut agent = setup.agent(Posture::Auto, Policy::default());
    let (outcome, _) = run(&mut agent, "Run the tests");
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
    let results = setup.tool_results(1);
    assert!(results[0].1.contains("no tool `run_tests`"), "{results:?}");
    assert!(results[0].1.contains("read_file"), "{results:?}");
}

#[test]
fn max_steps_stops_a_model_that_keeps_calling_tools() {
    let setup = Setup::new("openai");
    for i in 0..4 {
        setup.mock.enqueue(call(&format!("c{i}"), "ls", "{}"));
    }
    let mut config = setup.config(Posture::Auto, Policy::default());
    config.max_steps = 2;
    let mut agent = Agent::new(Arc::new(registry()), setup.client(), config).unwrap();
    let (outcome, _) = run(&mut agent, "List forever");
    assert_eq!(outcome.status, RunStatus::MaxSteps, "{outcome:?}");
    assert_eq!(outcome.steps, 2);
    assert!(outcome.result.contains("--max-steps"), "{outcome:?}");
    assert_eq!(setup.mock.requests().len(), 2);
}

#[test]
fn cancelling_stops_a_request_waiting_on_the_model() {
    let setup = Setup::new("anthropic");
    setup.mock.enqueue(Reply {
        steps: vec![
            Step::Text("thinking about it".into()),
            Step::Gate("never".into()),
            Step::Text(" done".into()),
        ],
        ..Reply::default()
    });
    let mut agent = setup.agent(Posture::Auto, Policy::default());
    let cancel = CancelToken::new();
    let started = Instant::now();
    let outcome = std::thread::scope(|scope| {
        let canceller = cancel.clone();
        let mock = &setup.mock;
        scope.spawn(move || {
            mock.wait_for_requests(1, Duration::from_secs(30));
            std::thread::sleep(Duration::from_millis(100));
            canceller.cancel();
        });
        agent.run("Take your time", &cancel, &mut |_| {})
    });
    assert_eq!(outcome.status, RunStatus::Cancelled, "{outcome:?}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "cancel took {:?} (the stall watchdog is 5 s)",
        started.elapsed()
    );
    assert_eq!(
        setup.mock.requests().len(),
        1,
        "a cancelled request is not replayed"
    );
}

#[test]
fn cancelling_stops_a_running_shell_command() {
    let setup = Setup::new("openai");
    setup.mock.enqueue_all([
        call("call_s", "bash", r#"{"command":"sleep 2; touch late"}"#),
        Reply::text(&["not reached"]),
    ]);
    let mut agent = setup.agent_on(own_registry(), Posture::Auto);
    let cancel = CancelToken::new();
    let (started_tx, started_rx) = std::sync::mpsc::channel::<Instant>();
    let (outcome, returned, tool_started, cancelled_at) = std::thread::scope(|scope| {
        let canceller = cancel.clone();
        // Cancel 300 ms after the command started.
        let watcher = scope.spawn(move || {
            let tool_started = started_rx.recv().unwrap();
            std::thread::sleep(Duration::from_millis(300));
            canceller.cancel();
            (tool_started, Instant::now())
        });
        let mut sent = Some(started_tx);
        let outcome = agent.run("Sleep", &cancel, &mut |e| {
            if matches!(&e, AgentEvent::ToolStarted { name, .. } if name == "bash")
                && let Some(tx) = sent.take()
            {
                tx.send(Instant::now()).unwrap();
            }
        });
        let returned = Instant::now();
        let (tool_started, cancelled_at) = watcher.join().unwrap();
        (outcome, returned, tool_started, cancelled_at)
    });
    assert_eq!(outcome.status, RunStatus::Cancelled, "{outcome:?}");
    // Not killed, the command would end 1.7 s after the cancel.
    assert!(
        returned - cancelled_at < Duration::from_millis(1200),
        "the run returned {:?} after the cancel: the command was waited for",
        returned - cancelled_at
    );
    // The call is answered in the history (a resumed session needs no repair).
    let last = agent.history().last().unwrap();
    assert_eq!(last.role, Role::Tool, "{last:?}");
    assert_eq!(setup.mock.requests().len(), 1);
    // And the command did not go on in the background: by now it would have touched `late`.
    std::thread::sleep(
        (tool_started + Duration::from_millis(2500)).saturating_duration_since(Instant::now()),
    );
    assert!(
        !setup.ws().join("late").exists(),
        "the command kept running after the cancel"
    );
}

/// Two agents on one registry (one component host, one job table), each running a shell
/// command: cancelling one agent's turn kills its command only; the other's runs to its end.
#[test]
fn cancelling_one_agent_leaves_the_other_agents_command_running() {
    let registry = own_registry();
    let (a, b) = (Setup::new("openai"), Setup::new("anthropic"));
    a.mock.enqueue_all([
        call("call_a", "bash", r#"{"command":"sleep 2; touch late"}"#),
        Reply::text(&["not reached"]),
    ]);
    b.mock.enqueue_all([
        call("call_b", "bash", r#"{"command":"sleep 2; touch done"}"#),
        Reply::text(&["b finished"]),
    ]);
    let mut agent_a = a.agent_on(registry, Posture::Auto);
    let mut agent_b = b.agent_on(registry, Posture::Auto);
    let cancel_a = CancelToken::new();
    let (started_tx, started_rx) = std::sync::mpsc::channel::<&str>();
    let (outcome_a, outcome_b) = std::thread::scope(|scope| {
        let started_b = started_tx.clone();
        let run_b = scope.spawn(move || {
            let mut sent = Some(started_b);
            agent_b.run("Sleep", &CancelToken::new(), &mut |e| {
                if matches!(&e, AgentEvent::ToolStarted { name, .. } if name == "bash")
                    && let Some(tx) = sent.take()
                {
                    tx.send("b").unwrap();
                }
            })
        });
        let canceller = cancel_a.clone();
        let watcher = scope.spawn(move || {
            // Both commands are running, then A is cancelled.
            let mut seen = vec![started_rx.recv().unwrap(), started_rx.recv().unwrap()];
            seen.sort_unstable();
            assert_eq!(seen, ["a", "b"]);
            std::thread::sleep(Duration::from_millis(300));
            canceller.cancel();
        });
        let mut sent = Some(started_tx);
        let outcome_a = agent_a.run("Sleep", &cancel_a, &mut |e| {
            if matches!(&e, AgentEvent::ToolStarted { name, .. } if name == "bash")
                && let Some(tx) = sent.take()
            {
                tx.send("a").unwrap();
            }
        });
        watcher.join().unwrap();
        (outcome_a, run_b.join().unwrap())
    });
    assert_eq!(outcome_a.status, RunStatus::Cancelled, "{outcome_a:?}");
    assert_eq!(outcome_b.status, RunStatus::Success, "{outcome_b:?}");
    assert_eq!(outcome_b.result, "b finished");
    let (_, b_result) = &b.tool_results(1)[0];
    assert!(
        !b_result.contains("killed"),
        "B's command was killed: {b_result}"
    );
    assert!(
        b.ws().join("done").exists(),
        "B's command did not run to its end"
    );
    // A's command was killed, not waited for: by now it would have touched `late`.
    assert!(!a.ws().join("late").exists(), "A's command kept running");
}

/// What one read-only tool call costs in component stores, with the built-in interceptors a
/// session loads (the redactor at `tool.after` and `frontend.event`, the bounder at
/// `tool.after`; the hooks runner only when hooks are configured, as here it is not): the
/// same task with and without the call, the extra model request taken off. The call itself,
/// the redactor and the bounder for the model, the redactor once for the display: four (it
/// was six, when the result was shown twice and the tool-calls-only answer dispatched empty).
#[test]
fn a_read_only_call_costs_at_most_three_stores() {
    let home = tempfile::tempdir().unwrap().keep();
    let paths = Paths {
        state: home.clone(),
        home,
        cache: shared_artifact_cache(),
    };
    let mut settings = reasonix_core::settings::RegistrySettings::default();
    settings.plugins.insert(
        "hooks".into(),
        reasonix_core::settings::PluginSettings {
            enabled: Some(false),
            ..Default::default()
        },
    );
    let registry: &'static Registry = Box::leak(Box::new(
        Registry::load(BUILTINS, &paths, &settings, None).unwrap(),
    ));
    let setup = Setup::new("openai");
    setup.seed("notes.txt", "alpha\n");
    let stores = |script: Vec<Reply>| {
        setup.mock.enqueue_all(script);
        let mut agent = setup.agent_on(registry, Posture::Ask);
        let before = registry.stores_created();
        let (outcome, _) = run(&mut agent, "Read notes.txt");
        assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
        registry.stores_created() - before
    };
    let without = stores(vec![Reply::text(&["no need"])]);
    let with = stores(vec![
        call("call_r", "read_file", r#"{"path":"notes.txt"}"#),
        Reply::text(&["alpha it is"]),
    ]);
    // One more model request: one more store of the provider component.
    let per_call = with - without - 1;
    #[allow(
        clippy::disallowed_macros,
        reason = "the measured figure, for the record"
    )]
    {
        eprintln!(
            "stores: run without a call {without}, with one read_file call {with}, per call {per_call}"
        );
    }
    // The tool, `redact` (its `tool.after` and the `frontend.event` showing the result share
    // one instance) and `bound`.
    assert!(per_call <= 3, "a read-only call cost {per_call} stores");
}

// ---------------------------------------------------------------------------------------------
// 4. Permissions inside the loop.
// ---------------------------------------------------------------------------------------------

#[test]
fn headless_ask_refuses_a_writer_and_the_model_sees_why() {
    let setup = Setup::new("anthropic");
    setup.seed("keep.txt", "original\n");
    setup.mock.enqueue_all([
        call(
            "call_w",
            "write_file",
            r#"{"path":"keep.txt","content":"changed\n"}"#,
        ),
        Reply::text(&["I could not write keep.txt."]),
    ]);
    let mut agent = setup.agent(Posture::Ask, Policy::default());
    let (outcome, events) = run(&mut agent, "Change keep.txt");
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(setup.ws().join("keep.txt")).unwrap(),
        "original\n"
    );
    let results = setup.tool_results(1);
    assert_eq!(results.len(), 1);
    let refusal = &results[0].1;
    assert!(refusal.starts_with("Permission needed"), "{refusal}");
    assert!(refusal.contains("--auto"), "{refusal}");
    assert!(refusal.contains("--allowed-tools"), "{refusal}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolStarted { .. })),
        "a refused call never starts"
    );
}

#[test]
fn yolo_still_obeys_deny_rules() {
    let setup = Setup::new("responses");
    setup.mock.enqueue_all([
        Reply::tool_calls(
            &[
                (
                    "call_s",
                    "write_file",
                    r#"{"path":"secret/x","content":"leak"}"#,
                ),
                (
                    "call_p",
                    "write_file",
                    r#"{"path":"public/x","content":"fine"}"#,
                ),
            ],
            1,
        ),
        Reply::text(&["ok"]),
    ]);
    let mut agent = setup.agent(Posture::Yolo, policy(&[], &["Edit(secret/**)"]));
    let (outcome, _) = run(&mut agent, "Write both files");
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
    assert!(
        !setup.ws().join("secret/x").exists(),
        "a denied write ran under --yolo"
    );
    assert_eq!(
        std::fs::read_to_string(setup.ws().join("public/x")).unwrap(),
        "fine",
        "yolo lets the other writer run"
    );
    let results = setup.tool_results(1);
    assert!(results[0].1.starts_with("Blocked"), "{results:?}");
    assert!(results[0].1.contains("Edit(secret/**)"), "{results:?}");
}

/// Issue #26 item 3: the spellings of `git push` that slipped past a `Bash(git push:*)` deny
/// copied from Claude Code, each a real bash call under --yolo.
#[test]
fn a_git_push_deny_holds_for_every_spelling_under_yolo() {
    let spellings = [
        "git push origin main",
        "git  push",
        "\"git\" push",
        "FOO=1 git push",
        "command git push",
        "g\\it push",
        "ls && git push",
        "bash -c 'git push'",
        "env -i nice -n 5 /usr/bin/git push",
        "(git push)",
        "$G push",
    ];
    let setup = Setup::new("openai");
    let calls: Vec<(String, String)> = spellings
        .iter()
        .enumerate()
        .map(|(i, cmd)| {
            (
                format!("call_{i}"),
                serde_json::json!({ "command": cmd }).to_string(),
            )
        })
        .chain([(
            "call_status".to_string(),
            r#"{"command":"git status"}"#.to_string(),
        )])
        .collect();
    let refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "bash", args.as_str()))
        .collect();
    setup
        .mock
        .enqueue_all([Reply::tool_calls(&refs, 1), Reply::text(&["ok"])]);
    let mut agent = setup.agent(Posture::Yolo, policy(&[], &["Bash(git push:*)"]));
    let (outcome, _) = run(&mut agent, "Push it");
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
    let results = setup.tool_results(1);
    assert_eq!(results.len(), spellings.len() + 1, "{results:?}");
    for (i, spelling) in spellings.iter().enumerate() {
        let (_, text) = results
            .iter()
            .find(|(id, _)| *id == format!("call_{i}"))
            .unwrap();
        assert!(
            text.starts_with("Blocked") && text.contains("Bash(git push:*)"),
            "`{spelling}` was not refused under --yolo: {text}"
        );
    }
    let (_, status) = results.iter().find(|(id, _)| id == "call_status").unwrap();
    assert!(
        !status.starts_with("Blocked"),
        "git status was refused: {status}"
    );
}

#[test]
fn a_prefix_allow_rule_does_not_cover_a_command_with_shell_operators() {
    let setup = Setup::new("openai");
    setup.mock.enqueue_all([
        call("call_1", "bash", r#"{"command":"echo hi && touch pwned"}"#),
        call("call_2", "bash", r#"{"command":"echo hi there"}"#),
        Reply::text(&["done"]),
    ]);
    let mut agent = setup.agent(Posture::Ask, policy(&["Bash(echo hi:*)"], &[]));
    let (outcome, _) = run(&mut agent, "Say hi");
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
    assert!(
        !setup.ws().join("pwned").exists(),
        "`echo hi && touch pwned` ran under `Bash(echo hi:*)`"
    );
    let results = setup.tool_results(2);
    assert!(results[0].1.starts_with("Permission needed"), "{results:?}");
    // The rule itself works: the plain command it covers ran.
    assert!(results[1].1.contains("hi there"), "{results:?}");
}

// ---------------------------------------------------------------------------------------------
// 5. Sessions.
// ---------------------------------------------------------------------------------------------

fn message(role: Role, content: &str) -> Message {
    Message {
        role,
        content: content.into(),
        reasoning: None,
        reasoning_state: None,
        tool_calls: vec![],
        tool_call_id: None,
        raw_content: None,
        images: Vec::new(),
    }
}

fn store(setup: &Setup) -> SessionStore {
    SessionStore::new(&setup.env.home().join("state"), &setup.ws())
}

#[test]
fn every_message_is_in_the_transcript_in_order() {
    let setup = Setup::new("openai");
    setup.seed("a.txt", "alpha\n");
    setup.mock.enqueue_all([
        call("call_r", "read_file", r#"{"path":"a.txt"}"#).with_usage(usage(100, 5, 0)),
        Reply::text(&["alpha it is"]).with_usage(usage(120, 4, 100)),
    ]);
    let store = store(&setup);
    let writer = store.create("mock", "mock-model").unwrap();
    let id = writer.id().to_string();
    let mut agent = setup
        .agent(Posture::Auto, Policy::default())
        .with_session(writer, Vec::new());
    let (outcome, _) = run(&mut agent, "Read a.txt");
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
    assert_eq!(outcome.session_id.as_deref(), Some(id.as_str()));
    let history = agent.history().to_vec();
    drop(agent);

    let (_writer, loaded) = store.open(&id).unwrap();
    assert_eq!(loaded.messages, history);
    let roles: Vec<Role> = loaded.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert_eq!(loaded.messages[1].tool_calls[0].id, "call_r");
    assert_eq!(loaded.messages[2].tool_call_id.as_deref(), Some("call_r"));
    assert_eq!(loaded.messages[3].content, "alpha it is");
    assert_eq!(loaded.usage.len(), 2);
    assert_eq!(loaded.usage[1].cache_hit_tokens, 100);
}

#[test]
fn resuming_after_an_unanswered_call_inserts_a_placeholder_the_provider_accepts() {
    for kind in KINDS {
        let setup = Setup::new(kind);
        let store = store(&setup);
        // A transcript as a run killed between a tool call and its result leaves it.
        let id = {
            let mut writer = store.create("mock", "mock-model").unwrap();
            writer.message(&message(Role::User, "Write x.txt")).unwrap();
            writer
                .message(&Message {
                    tool_calls: vec![ToolCall {
                        id: "call_lost".into(),
                        name: "write_file".into(),
                        arguments: r#"{"path":"x.txt","content":"x"}"#.into(),
                    }],
                    ..message(Role::Assistant, "")
                })
                .unwrap();
            writer.id().to_string()
        };
        setup.mock.enqueue(Reply::text(&["Resumed."]));
        let (writer, loaded) = store.open(&id).unwrap();
        assert_eq!(loaded.messages.len(), 2);
        let mut agent = setup
            .agent(Posture::Auto, Policy::default())
            .with_session(writer, loaded.messages);
        let (outcome, _) = run(&mut agent, "go on");
        assert_eq!(outcome.status, RunStatus::Success, "{kind}: {outcome:?}");
        assert_eq!(outcome.result, "Resumed.", "{kind}");

        // The request answers the lost call right after it, then carries the new task.
        let results = setup.tool_results(0);
        assert_eq!(results.len(), 1, "{kind}: {results:?}");
        assert_eq!(results[0].0, "call_lost", "{kind}");
        assert!(
            results[0].1.starts_with("Interrupted"),
            "{kind}: {results:?}"
        );
        assert_wire_pairs_calls_with_results(kind, &setup.mock.requests()[0].json());
        drop(agent);

        // The placeholder is in the transcript too, so the next resume needs no repair.
        let (_writer, loaded) = store.open(&id).unwrap();
        let roles: Vec<Role> = loaded.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::User,
                Role::Assistant
            ],
            "{kind}"
        );
    }
}

/// What the real APIs check: each tool call is answered by a result right after it, and a
/// result answers a call just made.
fn assert_wire_pairs_calls_with_results(kind: &str, body: &Value) {
    match kind {
        "openai" => {
            let m = body["messages"].as_array().unwrap();
            for (i, msg) in m.iter().enumerate() {
                for (k, c) in msg["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    assert_eq!(m[i + 1 + k]["role"], "tool", "{body}");
                    assert_eq!(m[i + 1 + k]["tool_call_id"], c["id"], "{body}");
                }
            }
        }
        "anthropic" => {
            let m = body["messages"].as_array().unwrap();
            for (i, msg) in m.iter().enumerate() {
                let uses: Vec<&Value> = msg["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|b| b["type"] == "tool_use")
                    .collect();
                if uses.is_empty() {
                    continue;
                }
                let next = &m[i + 1];
                assert_eq!(next["role"], "user", "{body}");
                for u in uses {
                    assert!(
                        next["content"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|b| b["type"] == "tool_result" && b["tool_use_id"] == u["id"]),
                        "{body}"
                    );
                }
            }
        }
        _ => {
            let items = body["input"].as_array().unwrap();
            for (i, item) in items.iter().enumerate() {
                if item["type"] == "function_call" {
                    assert!(
                        items[i + 1..]
                            .iter()
                            .any(|o| o["type"] == "function_call_output"
                                && o["call_id"] == item["call_id"]),
                        "{body}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_raw_splitter_handles_strings_escapes_and_nesting() {
    let body = r#"{"a" : [1, {"x":"],\"}"}, "s,[{"] , "messages":[{"k":"v\\"},[]],"z":{}}"#;
    let m = members(body);
    assert_eq!(m.len(), 3);
    assert_eq!(m[0], ("a".to_string(), r#"[1, {"x":"],\"}"}, "s,[{"]"#));
    assert_eq!(raw_list(body, "a"), ["1", r#"{"x":"],\"}"}"#, r#""s,[{""#]);
    assert_eq!(raw_list(body, "messages"), [r#"{"k":"v\\"}"#, "[]"]);
    assert_eq!(m[2], ("z".to_string(), "{}"));
}

/// `/reload` on real registries: the agent is rebuilt on a registry loaded after a plugin was
/// installed; the session goes on, the new interceptor acts from the next turn, and a reload
/// whose new runtime cannot be built leaves the old one running.
#[test]
fn reload_swaps_the_runtime_between_turns_and_keeps_the_session() {
    let s = Setup::new("openai");
    let home = s.env.home();
    let paths = Paths {
        state: home.clone(),
        home: home.clone(),
        cache: shared_artifact_cache(),
    };
    let load = |config: &str| -> &'static Registry {
        let config = Config::parse(&s.env.project().join("reasonix.toml"), config).unwrap();
        Box::leak(Box::new(
            Registry::load(BUILTINS, &paths, &config.registry_settings(), None).unwrap(),
        ))
    };
    let first = load("");
    let mut agent = Agent::new(
        Arc::new(first),
        s.client_on(first),
        s.config(Posture::Ask, Policy::default()),
    )
    .unwrap();
    s.mock.enqueue(Reply::text(&["one"]));
    agent.run("first turn", &CancelToken::new(), &mut |_| {});
    let prefix = serde_json::to_string(&agent.request().messages[0]).unwrap();

    // A no-op reload: same plugins, same prefix bytes.
    let same = load("");
    let report = agent
        .reload(
            Arc::new(same),
            s.client_on(same),
            s.config(Posture::Ask, Policy::default()),
        )
        .unwrap();
    assert_eq!(report.generation, 1);
    assert!(!report.prefix_changed, "{report:?}");
    assert_eq!(
        serde_json::to_string(&agent.request().messages[0]).unwrap(),
        prefix
    );

    // Install the probe, configured to rewrite the task; reload; the next turn is rewritten.
    s.env.install_fixture("probe");
    let config = "[plugin.probe.config]\n\"input.receive\" = \"replace\"\n\"input.receive.with\" = '{\"text\":\"rewritten after reload\"}'\n";
    let second = load(config);
    let report = agent
        .reload(
            Arc::new(second),
            s.client_on(second),
            s.config(Posture::Ask, Policy::default()),
        )
        .unwrap();
    assert_eq!(report.generation, 2);
    s.mock.enqueue(Reply::text(&["two"]));
    let outcome = agent.run("second turn", &CancelToken::new(), &mut |_| {});
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
    let last = s.mock.requests().last().unwrap().json();
    let users: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(users, ["first turn", "rewritten after reload"]);

    // A second owner of the probe's slot: the new runtime fails, the old one keeps running.
    s.env.install_fixture("rival");
    let broken = load(config);
    let err = agent
        .reload(
            Arc::new(broken),
            s.client_on(broken),
            s.config(Posture::Ask, Policy::default()),
        )
        .unwrap_err();
    assert!(err.to_string().contains("slot `session_policy`"), "{err}");
    assert_eq!(agent.generation(), 2);
    s.mock.enqueue(Reply::text(&["three"]));
    let outcome = agent.run("third turn", &CancelToken::new(), &mut |_| {});
    assert_eq!(outcome.status, RunStatus::Success, "{outcome:?}");
    assert_eq!(agent.history().len(), 6);
}

/// One registry, two agents of two workspaces: each agent's interceptors work in its own
/// workspace (the instructions component reads that workspace's `AGENTS.md`), however the
/// agents are created or interleaved.
#[test]
fn agents_sharing_a_registry_each_intercept_in_their_own_workspace() {
    let a = Setup::new("openai");
    let b = Setup::new("openai");
    std::fs::write(
        a.env.workspace().join("AGENTS.md"),
        "Workspace A: use tabs.\n",
    )
    .unwrap();
    std::fs::write(
        b.env.workspace().join("AGENTS.md"),
        "Workspace B: use spaces.\n",
    )
    .unwrap();
    let agent_a = Agent::new(
        Arc::new(registry()),
        a.client(),
        a.config(Posture::Ask, Policy::default()),
    )
    .unwrap();
    let agent_b = Agent::new(
        Arc::new(registry()),
        b.client(),
        b.config(Posture::Ask, Policy::default()),
    )
    .unwrap();
    let prompt = |agent: &Agent| agent.request().messages[0].content.clone();
    assert!(
        prompt(&agent_a).contains("Workspace A: use tabs."),
        "{}",
        prompt(&agent_a)
    );
    assert!(!prompt(&agent_a).contains("Workspace B"));
    assert!(
        prompt(&agent_b).contains("Workspace B: use spaces."),
        "{}",
        prompt(&agent_b)
    );
    assert!(!prompt(&agent_b).contains("Workspace A"));
}
