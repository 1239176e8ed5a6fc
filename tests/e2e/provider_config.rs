//! Provider configuration through the real path: a `[[providers]]` entry written like the
//! original's is resolved (`kernel::providers`), its effort mapped and its options built by the
//! `ProviderClient`, and the request the `llm` component sends is checked on the wire of the
//! mock LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use crate::BUILTINS;

use reasonix_agent::completion::{ChatRequest, ProviderClient};
use reasonix_agent::config::{Config, Paths};
use reasonix_agent::providers::resolve_providers;
use reasonix_core::cancel::CancelToken;
use reasonix_core::types::{Message, Role, StreamEvent};
use reasonix_host::Registry;
use reasonix_mock_llm::{MockLlm, Reply};
use support::Env;

const KEY: &str = "sk-e2e-secret-123";

#[test]
fn configured_provider_reaches_the_wire_as_configured() {
    let mock = MockLlm::start().unwrap();
    let env = Env::new();
    std::fs::write(
        env.home().join(".env"),
        format!("# provider keys\nexport PROVIDER_CONFIG_KEY=\"{KEY}\"\n"),
    )
    .unwrap();
    let base = mock.base_url();
    let text = format!(
        r#"
default_model = "local/deepseek-v4-pro"

[[providers]]
name = "local"
kind = "openai"
base_url = "{base}/v1/"
request_url = "{base}/custom/chat/completions"
models = ["deepseek-v4-flash", "deepseek-v4-pro"]
api_key_env = "PROVIDER_CONFIG_KEY"
reasoning_protocol = "deepseek"
headers = {{ "X-Extra" = "${{REASONIX_E2E_UNSET_VAR:-from-default}}" }}
extra_body = {{ top_k = 5 }}
temperature = 0.25
max_retries = 3

[agent]
temperature = 0.0

[permissions]
allow = ["Bash(cargo test:*)"]
"#
    );
    let config = Config::parse(&env.project().join("reasonix.toml"), &text).unwrap();
    assert_eq!(config.warnings(), Vec::<String>::new());
    let paths = Paths {
        home: env.home(),
        cache: support::shared_artifact_cache(),
        state: env.home(),
    };
    let registry = Registry::load(BUILTINS, &paths, &config.registry_settings(), None).unwrap();
    let providers = resolve_providers(&config).unwrap();
    assert_eq!(providers[0].base_url, format!("{base}/v1"));
    assert_eq!(providers[0].max_retries, 3);

    let client = ProviderClient::new(
        &registry,
        &providers,
        None,
        config.default_model.as_deref(),
        &env.home(),
    )
    .unwrap();
    assert_eq!(client.model(), "deepseek-v4-pro");
    mock.enqueue(Reply::text(&["hi"]));
    // `xhigh` on a DeepSeek Pro model maps to `max` with thinking enabled.
    let request = ChatRequest {
        messages: vec![Message {
            role: Role::User,
            content: "hello".into(),
            reasoning: None,
            reasoning_state: None,
            tool_calls: vec![],
            tool_call_id: None,
        }],
        effort: Some("xhigh".into()),
        ..ChatRequest::default()
    };
    let events = client
        .stream(&request, &CancelToken::new(), &mut |_| {})
        .unwrap()
        .collect()
        .unwrap();
    assert!(
        events.contains(&StreamEvent::Text("hi".into())),
        "{events:?}"
    );

    let seen = mock.requests();
    assert_eq!(seen.len(), 1);
    let r = &seen[0];
    assert_eq!(r.path, "/custom/chat/completions", "request_url is used");
    assert_eq!(r.header("x-extra"), Some("from-default"));
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {KEY}").as_str()),
        "the host adds the credential from <home>/.env"
    );
    let body = r.json();
    assert_eq!(body["model"], "deepseek-v4-pro");
    assert_eq!(body["reasoning_effort"], "max");
    assert_eq!(body["thinking"]["type"], "enabled");
    assert_eq!(body["top_k"], 5);
    assert_eq!(body["temperature"], 0.25);
    assert!(!r.body.contains(KEY), "the component never sees the key");
}
