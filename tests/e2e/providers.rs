//! The provider layer end to end: the built-in `llm` component (openai, anthropic, responses)
//! loaded through the registry, driven by the kernel's `ProviderClient`, talking real HTTP to
//! the mock LLM server — streaming, tool-call reassembly, reasoning replay, usage, every fault,
//! credentials and the CLI views.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use crate::BUILTINS;

use reasonix_agent::completion::{ChatRequest, Completion, CompletionError, ProviderClient};
use reasonix_config::providers::retry::RetryPolicy;
use reasonix_config::providers::{ResolvedProvider, resolve_providers};
use reasonix_config::{Config, Paths};
use reasonix_core::cancel::CancelToken;
use reasonix_core::types::{FinishReason, Message, Role, StreamEvent, ToolCall, ToolSpec, Usage};
use reasonix_host::Registry;
use reasonix_mock_llm::{Fault, MockLlm, Reply, Step};
use serde_json::Value;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::{Env, shared_artifact_cache, stderr, stdout};

const KINDS: [&str; 3] = ["openai", "anthropic", "responses"];
const KEY: &str = "sk-test-5ecret-k3y";

/// One registry for the whole file: loading is not what these tests are about.
fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let home = tempfile::tempdir().unwrap().keep();
        let paths = Paths {
            state: home.clone(),
            home,
            cache: shared_artifact_cache(),
        };
        Registry::load(BUILTINS, &paths, &Default::default(), None).unwrap()
    })
}

/// A provider `mock` of `kind` pointing at `mock`, its key in `<home>/.env`.
struct Setup {
    env: Env,
    mock: MockLlm,
    providers: Vec<ResolvedProvider>,
}

impl Setup {
    fn new(kind: &str, extra: &str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        std::fs::write(env.home().join(".env"), format!("MOCK_LLM_KEY={KEY}\n")).unwrap();
        let text = provider_config(kind, &mock.base_url(), extra);
        let config = Config::parse(&env.project().join("reasonix.toml"), &text).unwrap();
        let providers = resolve_providers(&config).unwrap();
        Setup {
            env,
            mock,
            providers,
        }
    }

    fn client(&self) -> ProviderClient {
        ProviderClient::new(
            registry(),
            &self.providers,
            Some("mock"),
            None,
            None,
            &self.env.home(),
        )
        .unwrap()
        .with_policy(fast_policy(3))
    }

    fn stream(&self, request: &ChatRequest) -> Result<Completion, CompletionError> {
        self.client()
            .stream(request, &CancelToken::new(), &mut |_| {})
    }
}

fn provider_config(kind: &str, base_url: &str, extra: &str) -> String {
    support::mock_provider_config(
        kind,
        base_url,
        &format!("stall_timeout_seconds = 2\n{extra}"),
    )
}

fn fast_policy(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        base: Duration::from_millis(10),
        cap: Duration::from_secs(3),
        retry_after_ceiling: Duration::from_secs(3),
        jitter: Duration::ZERO,
        ..RetryPolicy::default()
    }
}

fn user(text: &str) -> Message {
    Message::text(Role::User, text)
}

fn ask(text: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![user(text)],
        ..ChatRequest::default()
    }
}

fn text_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn tool_calls(events: &[StreamEvent]) -> Vec<ToolCall> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCall(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

fn usage(events: &[StreamEvent]) -> Option<Usage> {
    events.iter().rev().find_map(|e| match e {
        StreamEvent::Usage(u) => Some(*u),
        _ => None,
    })
}

/// The assistant message a caller would store from a finished stream.
fn assistant_message(events: &[StreamEvent]) -> Message {
    let reasoning: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Reasoning(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    Message {
        role: Role::Assistant,
        content: text_of(events),
        reasoning: (!reasoning.is_empty()).then_some(reasoning),
        reasoning_state: events.iter().rev().find_map(|e| match e {
            StreamEvent::ReasoningState(s) => Some(s.clone()),
            _ => None,
        }),
        tool_calls: tool_calls(events),
        tool_call_id: None,
        raw_content: None,
        images: Vec::new(),
    }
}

#[test]
fn text_arrives_incrementally_for_every_kind() {
    for kind in KINDS {
        let setup = Setup::new(kind, "");
        setup.mock.enqueue(Reply {
            steps: vec![
                Step::Text("Hel".into()),
                Step::Text("lo ".into()),
                Step::Gate("rest".into()),
                Step::Text("world".into()),
            ],
            ..Reply::default()
        });
        let mut completion = setup.stream(&ask("hi")).unwrap();
        // The mock holds the stream open at the gate: a first batch can only come back now if
        // the component hands deltas over as they arrive.
        let mut early = Vec::new();
        while !text_of(&early).starts_with("Hel") {
            let batch = completion.next_events().unwrap();
            assert!(!batch.is_empty(), "{kind}: stream ended at the gate");
            early.extend(batch);
        }
        assert!(
            !text_of(&early).contains("world"),
            "{kind}: text from after the gate arrived before it was released"
        );
        setup.mock.release("rest");
        let rest = completion.collect().unwrap();
        let all: Vec<StreamEvent> = early.into_iter().chain(rest).collect();
        assert_eq!(text_of(&all), "Hello world", "{kind}");
        assert_eq!(
            all.last(),
            Some(&StreamEvent::Done(FinishReason::Stop)),
            "{kind}"
        );

        let sent = &setup.mock.requests()[0];
        let expected_path = match kind {
            "openai" => "/chat/completions",
            "anthropic" => "/v1/messages",
            _ => "/responses",
        };
        assert_eq!(sent.path, expected_path, "{kind}");
        assert_eq!(sent.json()["model"], "mock-model", "{kind}");
        assert_eq!(sent.json()["stream"], true, "{kind}");
    }
}

#[test]
fn fragmented_tool_calls_are_reassembled_for_every_kind() {
    let first_args = r#"{"path":"src/main.rs","offset":10,"note":"ünïcødé ✓"}"#;
    let second_args = r#"{"command":"cargo test -- --nocapture","timeout":120}"#;
    for kind in KINDS {
        let setup = Setup::new(kind, "");
        setup.mock.enqueue(Reply::tool_calls(
            &[
                ("call_a", "read_file", first_args),
                ("call_b", "bash", second_args),
            ],
            9,
        ));
        let tools = vec![ToolSpec {
            name: "read_file".into(),
            description: "Read a file".into(),
            parameters: r#"{"properties":{"path":{"type":"string"}},"type":"object"}"#.into(),
            read_only: true,
            guidance: None,
        }];
        let request = ChatRequest {
            tools,
            ..ask("read and test")
        };
        let events = setup.stream(&request).unwrap().collect().unwrap();
        let calls = tool_calls(&events);
        assert_eq!(calls.len(), 2, "{kind}: {events:?}");
        assert_eq!(
            (calls[0].id.as_str(), calls[0].name.as_str()),
            ("call_a", "read_file"),
            "{kind}"
        );
        assert_eq!(
            (calls[1].id.as_str(), calls[1].name.as_str()),
            ("call_b", "bash"),
            "{kind}"
        );
        let parsed = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert_eq!(parsed(&calls[0].arguments), parsed(first_args), "{kind}");
        assert_eq!(parsed(&calls[1].arguments), parsed(second_args), "{kind}");
        assert_eq!(
            events.last(),
            Some(&StreamEvent::Done(FinishReason::ToolCalls)),
            "{kind}"
        );
        // The tool schema reached the wire unchanged.
        let body = setup.mock.requests()[0].body.clone();
        assert!(
            body.contains(r#"{"properties":{"path":{"type":"string"}},"type":"object"}"#),
            "{kind}: {body}"
        );
    }
}

#[test]
fn reasoning_is_captured_and_replayed_the_way_each_backend_needs() {
    for kind in KINDS {
        let extra = match kind {
            "openai" => "reasoning_protocol = \"deepseek\"",
            "anthropic" => "reasoning_protocol = \"anthropic\"\nthinking = \"adaptive\"",
            _ => "",
        };
        let setup = Setup::new(kind, extra);
        setup.mock.enqueue(Reply {
            steps: vec![
                Step::Reasoning {
                    text: "The user wants the file. ".into(),
                    signature: Some("c2lnbmF0dXJl".into()),
                },
                Step::Reasoning {
                    text: "Read it first.".into(),
                    signature: None,
                },
                Step::ToolCall {
                    id: "call_r".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"a.txt"}"#.into(),
                    fragments: 3,
                },
            ],
            ..Reply::default()
        });
        setup.mock.enqueue(Reply::text(&["done"]));

        let first = setup.stream(&ask("show a.txt")).unwrap().collect().unwrap();
        let assistant = assistant_message(&first);
        assert_eq!(
            assistant.reasoning.as_deref(),
            Some("The user wants the file. Read it first."),
            "{kind}: {first:?}"
        );
        let history = vec![
            user("show a.txt"),
            assistant,
            Message {
                role: Role::Tool,
                content: "hello".into(),
                reasoning: None,
                reasoning_state: None,
                tool_calls: vec![],
                tool_call_id: Some("call_r".into()),
                raw_content: None,
                images: Vec::new(),
            },
        ];
        let second = setup
            .stream(&ChatRequest {
                messages: history,
                ..ChatRequest::default()
            })
            .unwrap()
            .collect()
            .unwrap();
        assert_eq!(text_of(&second), "done", "{kind}");

        let body = setup.mock.requests()[1].json();
        match kind {
            "openai" => {
                let assistant = &body["messages"][1];
                assert_eq!(assistant["role"], "assistant");
                assert_eq!(
                    assistant["reasoning_content"],
                    "The user wants the file. Read it first."
                );
                assert_eq!(assistant["tool_calls"][0]["id"], "call_r");
                assert_eq!(body["messages"][2]["tool_call_id"], "call_r");
            }
            "anthropic" => {
                let blocks = &body["messages"][1]["content"];
                assert_eq!(blocks[0]["type"], "thinking", "{body}");
                assert_eq!(
                    blocks[0]["thinking"],
                    "The user wants the file. Read it first."
                );
                assert_eq!(blocks[0]["signature"], "c2lnbmF0dXJl");
                let tool_use = blocks
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|b| b["type"] == "tool_use")
                    .unwrap();
                assert_eq!(tool_use["id"], "call_r");
                assert_eq!(tool_use["input"]["path"], "a.txt");
                let result = &body["messages"][2]["content"][0];
                assert_eq!(result["type"], "tool_result");
                assert_eq!(result["tool_use_id"], "call_r");
            }
            _ => {
                let input = body["input"].as_array().unwrap();
                let reasoning = input
                    .iter()
                    .position(|i| i["type"] == "reasoning")
                    .expect("reasoning item replayed");
                let call = input
                    .iter()
                    .position(|i| i["type"] == "function_call")
                    .unwrap();
                assert!(reasoning < call, "reasoning precedes the call: {body}");
                assert_eq!(input[call]["call_id"], "call_r");
                let output = input
                    .iter()
                    .find(|i| i["type"] == "function_call_output")
                    .unwrap();
                assert_eq!(output["call_id"], "call_r");
            }
        }
    }
}

#[test]
fn usage_is_normalised_for_every_kind() {
    for kind in KINDS {
        let setup = Setup::new(kind, "");
        setup
            .mock
            .enqueue(Reply::text(&["ok"]).with_usage(reasonix_mock_llm::Usage {
                prompt: 1000,
                completion: 50,
                cache_hit: 800,
                cache_miss: 200,
                reasoning: 20,
            }));
        let events = setup.stream(&ask("hi")).unwrap().collect().unwrap();
        let u = usage(&events).unwrap_or_else(|| panic!("{kind}: no usage in {events:?}"));
        assert_eq!(
            (
                u.prompt_tokens,
                u.completion_tokens,
                u.cache_hit_tokens,
                u.cache_miss_tokens
            ),
            (1000, 50, 800, 200),
            "{kind}"
        );
        // Anthropic does not report reasoning tokens separately.
        let reasoning = if kind == "anthropic" { 0 } else { 20 };
        assert_eq!(u.reasoning_tokens, reasoning, "{kind}");
    }
}

#[test]
fn the_key_goes_only_in_the_kinds_header_and_never_into_errors() {
    for kind in KINDS {
        let setup = Setup::new(kind, "");
        setup.mock.enqueue(Reply::text(&["ok"]));
        setup.stream(&ask("hi")).unwrap().collect().unwrap();
        let sent = &setup.mock.requests()[0];
        match kind {
            "anthropic" => {
                assert_eq!(sent.header("x-api-key"), Some(KEY));
                assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
            }
            _ => assert_eq!(
                sent.header("authorization"),
                Some(format!("Bearer {KEY}").as_str())
            ),
        }
        assert!(!sent.body.contains(KEY), "{kind}: key in the body");

        // A backend that echoes the key back in an error: the message names the provider and
        // the status, and the key is scrubbed.
        setup.mock.enqueue(Reply::status(
            401,
            &format!(r#"{{"error":{{"message":"invalid key {KEY}"}}}}"#),
        ));
        let err = setup.stream(&ask("hi")).err().unwrap();
        let text = err.to_string();
        assert!(matches!(err, CompletionError::Auth { .. }), "{kind}: {err}");
        assert!(text.contains("mock") && text.contains("401"), "{text}");
        assert!(!text.contains(KEY), "{kind}: key leaked: {text}");
        assert!(text.contains("[redacted]"), "{text}");
        assert_eq!(setup.mock.requests().len(), 2, "{kind}: 401 is not retried");
    }
}

#[test]
fn auth_header_override_sends_a_bearer_token_to_an_anthropic_gateway() {
    let setup = Setup::new("anthropic", "auth_header = \"bearer\"");
    setup.mock.enqueue(Reply::text(&["ok"]));
    setup.stream(&ask("hi")).unwrap().collect().unwrap();
    let sent = &setup.mock.requests()[0];
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(sent.header("x-api-key"), None);
}

#[test]
fn rate_limit_waits_for_retry_after_then_succeeds() {
    let setup = Setup::new("openai", "");
    setup.mock.enqueue(Reply::rate_limited("1"));
    setup.mock.enqueue(Reply::text(&["after the wait"]));
    let mut notices = Vec::new();
    let events = setup
        .client()
        .stream(&ask("hi"), &CancelToken::new(), &mut |n| {
            notices.push(n.clone())
        })
        .unwrap()
        .collect()
        .unwrap();
    assert_eq!(text_of(&events), "after the wait");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0].delay, Duration::from_secs(1));
    assert_eq!(notices[0].attempt, 1);
    let requests = setup.mock.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1].at.duration_since(requests[0].at) >= Duration::from_secs(1),
        "the retry came before Retry-After"
    );
}

#[test]
fn server_errors_back_off_exponentially_then_give_up_naming_the_provider() {
    let setup = Setup::new("anthropic", "");
    for _ in 0..4 {
        setup
            .mock
            .enqueue(Reply::status(500, r#"{"error":"boom"}"#));
    }
    let mut delays = Vec::new();
    let err = setup
        .client()
        .stream(&ask("hi"), &CancelToken::new(), &mut |n| {
            delays.push(n.delay)
        })
        .err()
        .unwrap();
    assert!(
        matches!(err, CompletionError::RetriesExhausted { attempts: 4, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("`mock`") && err.to_string().contains("500"));
    assert_eq!(
        delays,
        [10, 20, 40].map(Duration::from_millis).to_vec(),
        "500 ms × 2^(n−1) scaled to the test policy's 10 ms base"
    );
    assert_eq!(setup.mock.requests().len(), 4);
}

#[test]
fn a_503_then_success_is_retried_and_408_too() {
    let setup = Setup::new("responses", "");
    setup.mock.enqueue(Reply::status(503, "overloaded"));
    setup.mock.enqueue(Reply::status(408, "timeout"));
    setup.mock.enqueue(Reply::text(&["third time"]));
    let events = setup.stream(&ask("hi")).unwrap().collect().unwrap();
    assert_eq!(text_of(&events), "third time");
    assert_eq!(setup.mock.requests().len(), 3);
}

#[test]
fn quota_exhaustion_and_client_errors_are_not_retried() {
    let setup = Setup::new("openai", "");
    setup.mock.enqueue(Reply::status(
        429,
        r#"{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}"#,
    ));
    let err = setup.stream(&ask("hi")).err().unwrap();
    assert!(
        matches!(err, CompletionError::QuotaExhausted { .. }),
        "{err}"
    );
    assert_eq!(setup.mock.requests().len(), 1);

    setup
        .mock
        .enqueue(Reply::status(400, r#"{"error":"bad model"}"#));
    let err = setup.stream(&ask("hi")).err().unwrap();
    assert!(
        matches!(err, CompletionError::Http { status: 400, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("bad model"), "{err}");
    assert_eq!(setup.mock.requests().len(), 2);
}

#[test]
fn a_cut_stream_is_an_interrupted_error_that_may_be_replayed() {
    for kind in KINDS {
        let setup = Setup::new(kind, "");
        setup.mock.enqueue(
            Reply::text(&["one ", "two ", "three ", "four"])
                .with_fault(Fault::CutAfter { events: 3 }),
        );
        let mut completion = setup.stream(&ask("hi")).unwrap();
        let mut seen = Vec::new();
        let err = loop {
            match completion.next_events() {
                Ok(batch) if batch.is_empty() => panic!("{kind}: a cut stream ended cleanly"),
                Ok(batch) => seen.extend(batch),
                Err(e) => break e,
            }
        };
        assert!(
            matches!(err, CompletionError::Interrupted { .. }),
            "{kind}: {err}"
        );
        assert!(err.is_retryable());
        assert!(err.to_string().contains("`mock`"), "{err}");
        assert!(!text_of(&seen).contains("four"), "{kind}");
    }
}

#[test]
fn a_malformed_chunk_is_a_clear_error() {
    for kind in KINDS {
        let setup = Setup::new(kind, "");
        setup.mock.enqueue(
            Reply::text(&["fine ", "then"]).with_fault(Fault::MalformedAfter { events: 1 }),
        );
        let err = setup.stream(&ask("hi")).unwrap().collect().err().unwrap();
        assert!(
            matches!(err, CompletionError::BadResponse { .. }),
            "{kind}: {err}"
        );
        assert!(err.to_string().contains("`mock`"), "{err}");
    }
}

#[test]
fn a_stream_that_never_ends_is_stopped_by_the_watchdog() {
    for kind in KINDS {
        let setup = Setup::new(kind, "");
        setup
            .mock
            .enqueue(Reply::text(&["a", "b", "c"]).with_fault(Fault::HangAfter { events: 2 }));
        let started = Instant::now();
        let err = setup.stream(&ask("hi")).unwrap().collect().err().unwrap();
        assert!(
            matches!(err, CompletionError::Stalled { .. }),
            "{kind}: {err}"
        );
        assert!(err.to_string().contains("`mock`"), "{err}");
        // Not a timing claim: only that it did not wait for a default-sized timeout.
        assert!(started.elapsed() < Duration::from_secs(60), "{kind}");
    }
}

#[test]
fn cancelling_stops_a_stream_waiting_for_data() {
    let setup = Setup::new("openai", "");
    setup.mock.enqueue(Reply {
        steps: vec![Step::Text("first".into()), Step::Gate("never".into())],
        ..Reply::default()
    });
    let cancel = CancelToken::new();
    let mut completion = setup
        .client()
        .stream(&ask("hi"), &cancel, &mut |_| {})
        .unwrap();
    let first = completion.next_events().unwrap();
    assert_eq!(text_of(&first), "first");
    let canceller = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            cancel.cancel();
        })
    };
    let err = completion.next_events().err().unwrap();
    canceller.join().unwrap();
    assert!(matches!(err, CompletionError::Cancelled), "{err}");
}

#[test]
fn missing_key_and_unknown_kind_are_clear_errors() {
    let env = Env::new();
    let text = provider_config("openai", "http://127.0.0.1:9", "")
        + "\n[[providers]]\nname = \"gem\"\nkind = \"gemini\"\nbase_url = \"https://g.example\"\nmodel = \"g1\"\n";
    let config = Config::parse(&env.project().join("reasonix.toml"), &text).unwrap();
    let providers = resolve_providers(&config).unwrap();

    let err = ProviderClient::new(
        registry(),
        &providers,
        Some("mock"),
        None,
        None,
        &env.home(),
    )
    .err()
    .unwrap();
    let text = err.to_string();
    assert!(
        text.contains("MOCK_LLM_KEY") && text.contains(".env"),
        "{text}"
    );

    let err = ProviderClient::new(registry(), &providers, Some("gem"), None, None, &env.home())
        .err()
        .unwrap();
    let text = err.to_string();
    assert!(
        text.contains("gemini") && text.contains("anthropic, openai, responses"),
        "{text}"
    );
}

#[test]
fn a_provider_can_reach_only_its_own_origin() {
    // `request_url` on another port than `base_url` is still the provider's own endpoint …
    let setup = Setup::new("openai", "");
    let other = MockLlm::start().unwrap();
    other.enqueue(Reply::text(&["via request_url"]));
    let text = provider_config(
        "openai",
        &setup.mock.base_url(),
        &format!("request_url = \"{}/v1/chat/completions\"", other.base_url()),
    );
    let config = Config::parse(&setup.env.project().join("reasonix.toml"), &text).unwrap();
    let providers = resolve_providers(&config).unwrap();
    let client = ProviderClient::new(
        registry(),
        &providers,
        Some("mock"),
        None,
        None,
        &setup.env.home(),
    )
    .unwrap();
    let events = client
        .stream(&ask("hi"), &CancelToken::new(), &mut |_| {})
        .unwrap()
        .collect()
        .unwrap();
    assert_eq!(text_of(&events), "via request_url");
    assert_eq!(other.requests()[0].path, "/v1/chat/completions");
    assert!(setup.mock.requests().is_empty());
}

// ---- the CLI views --------------------------------------------------------------------------

#[test]
fn providers_list_shows_kind_plugin_models_and_key_source_never_the_key() {
    let setup = Setup::new("anthropic", "");
    setup
        .env
        .project_config(&provider_config("anthropic", &setup.mock.base_url(), ""));
    let out = setup.env.reasonix(&["providers", "list"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.contains("mock  (kind anthropic, served by llm)"),
        "{text}"
    );
    assert!(text.contains("MOCK_LLM_KEY (<home>/.env)"), "{text}");
    assert!(text.contains("default model: mock/mock-model"), "{text}");
    // The reasoning protocol and effort levels come from the component's profile (an
    // Anthropic-kind gateway: thinking only); the stall timeout is the configured one.
    assert!(
        text.contains(
            "reasoning: generic, effort auto (levels: auto, enabled, disabled); stall 2 s; retries 10"
        ),
        "{text}"
    );
    // `mock-model` is not a model the component knows to read images.
    assert!(
        text.contains("images:    not sent (not known to read images; `vision = true` sends them)"),
        "{text}"
    );
    assert!(!text.contains(KEY) && !stderr(&out).contains(KEY));

    let out = setup.env.reasonix(&["providers", "list", "--json"]);
    let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["providers"][0]["served_by"], "llm");
    assert_eq!(value["providers"][0]["api_key"], "<home>/.env");
    assert_eq!(value["providers"][0]["reasoning_protocol"], "generic");
    assert_eq!(
        value["providers"][0]["effort_levels"],
        serde_json::json!(["auto", "enabled", "disabled"])
    );
    assert_eq!(value["providers"][0]["stall_timeout_seconds"], 2);
    assert_eq!(value["providers"][0]["images"], false);
    assert_eq!(
        value["kinds_served"],
        serde_json::json!(["anthropic", "openai", "responses"])
    );
}

#[test]
fn an_unknown_kind_fails_listing_the_kinds_served() {
    let env = Env::new();
    env.project_config(
        "[[providers]]\nname = \"gem\"\nkind = \"gemini\"\nbase_url = \"https://g.example\"\nmodel = \"g1\"\n",
    );
    let out = env.reasonix(&["providers", "list"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("provider `gem` has kind `gemini`")
            && err.contains("kinds served: anthropic, openai, responses"),
        "{err}"
    );
    let out = env.reasonix(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("FAIL providers `gem`: kind `gemini`"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_effort_the_backend_refuses_fails_listing_and_doctor() {
    // Only the component knows the backend's levels: the config loads, and the listing and the
    // doctor report the component's refusal, naming provider, model and the valid levels.
    let env = Env::new();
    env.project_config(&provider_config(
        "openai",
        "http://127.0.0.1:9",
        "reasoning_protocol = \"kimi-k3\"\neffort = \"disabled\"",
    ));
    let out = env.reasonix(&["providers", "list"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("provider `mock` (model mock-model): effort `disabled`")
            && err.contains("auto, low, high, max"),
        "{err}"
    );
    assert!(
        stdout(&out).contains("reasoning: refused"),
        "{}",
        stdout(&out)
    );
    let out = env.reasonix(&["providers", "list", "--json"]);
    let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(
        value["providers"][0]["profile_error"]
            .as_str()
            .is_some_and(|e| e.contains("effort `disabled`")),
        "{value}"
    );
    let out = env.reasonix(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out)
            .contains("FAIL providers provider `mock` (model mock-model): effort `disabled`"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn providers_try_streams_an_answer_through_the_binary() {
    let setup = Setup::new("openai", "");
    setup
        .env
        .project_config(&provider_config("openai", &setup.mock.base_url(), ""));
    setup
        .mock
        .enqueue(Reply::text(&["Hello", " from", " the mock"]).with_usage(
            reasonix_mock_llm::Usage {
                prompt: 12,
                completion: 3,
                cache_hit: 8,
                cache_miss: 4,
                reasoning: 0,
            },
        ));
    let out = setup.env.reasonix(&["providers", "try", "say", "hello"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Hello from the mock");
    assert!(
        stderr(&out).contains("usage: prompt 12 (cache hit 8, miss 4)"),
        "{}",
        stderr(&out)
    );
    let body = setup.mock.requests()[0].json();
    assert_eq!(body["messages"][0]["content"], "say hello");
}

#[test]
fn doctor_passes_on_a_working_setup() {
    let setup = Setup::new("responses", "");
    setup.env.project_config(&format!(
        "{}\n[sandbox]\nbash = \"off\"\n",
        provider_config("responses", &setup.mock.base_url(), "")
    ));
    let out = setup.env.reasonix(&["doctor"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("ok   providers `mock`: kind responses served by llm"),
        "{text}"
    );
    assert!(text.contains("default model: mock/mock-model"), "{text}");
}

#[test]
fn a_component_sending_elsewhere_than_its_endpoint_is_refused_by_the_host() {
    // The kernel's endpoint is the mock, but the request the component gets says to post to
    // another origin (as a hostile or buggy component might): the host refuses it and nothing
    // reaches either server.
    let mock = MockLlm::start().unwrap();
    let elsewhere = MockLlm::start().unwrap();
    let (scheme, authority) = mock
        .base_url()
        .split_once("://")
        .map(|(s, a)| (s.to_string(), a.to_string()))
        .unwrap();
    let endpoint = reasonix_host::host::http::Endpoint {
        provider: "mock".into(),
        origins: vec![reasonix_host::host::http::Origin::new(&scheme, &authority).unwrap()],
        credential: Some((
            http::HeaderName::from_static("authorization"),
            http::HeaderValue::from_static("Bearer must-not-leak"),
        )),
        stall: Duration::from_secs(5),
        cancel: CancelToken::new(),
    };
    let request = reasonix_core::types::CompletionRequest {
        kind: "openai".into(),
        provider: "mock".into(),
        base_url: mock.base_url(),
        model: "m".into(),
        messages: vec![user("hi")],
        tools: vec![],
        effort: None,
        max_output_tokens: None,
        options: format!(
            r#"{{"request_url":"{}/chat/completions"}}"#,
            elsewhere.base_url()
        ),
    };
    let provider = registry().provider("openai").unwrap();
    let err = provider.open(&request, endpoint).err().expect("refused");
    let text = err.to_string();
    assert!(
        matches!(
            err,
            reasonix_core::CallError::Plugin(reasonix_core::PluginError::Denied(_))
        ),
        "{text}"
    );
    assert!(text.contains("mock"), "{text}");
    assert!(mock.requests().is_empty() && elsewhere.requests().is_empty());
}

#[test]
fn consecutive_requests_reuse_the_connection_unless_a_stream_was_abandoned() {
    for kind in KINDS {
        let setup = Setup::new(kind, "");
        setup.mock.enqueue(Reply::text(&["one"]));
        setup.mock.enqueue(Reply::text(&["two"]));
        setup
            .mock
            .enqueue(Reply::text(&["a", "b", "c"]).with_fault(Fault::CutAfter { events: 2 }));
        setup.mock.enqueue(Reply::text(&["four"]));
        let client = setup.client();
        let ask_once = || {
            client
                .stream(&ask("hi"), &CancelToken::new(), &mut |_| {})
                .unwrap()
                .collect()
        };
        assert_eq!(text_of(&ask_once().unwrap()), "one", "{kind}");
        assert_eq!(text_of(&ask_once().unwrap()), "two", "{kind}");
        assert!(ask_once().is_err(), "{kind}: the cut stream fails");
        assert_eq!(text_of(&ask_once().unwrap()), "four", "{kind}");
        let connections: Vec<u64> = setup.mock.requests().iter().map(|r| r.connection).collect();
        // The first two share one connection (no new TCP/TLS handshake per turn); the cut one
        // was closed by the server, so the next request opens a fresh connection.
        assert_eq!(connections[0], connections[1], "{kind}: {connections:?}");
        assert_ne!(connections[2], connections[3], "{kind}: {connections:?}");
    }
}
