//! Provider configuration through the real path: a `[[providers]]` entry written like the
//! original's is resolved (`kernel::providers`), its options built and its effort chosen by the
//! `ProviderClient`, profiled and mapped by the `llm` component, and the request the component
//! sends is checked on the wire of the mock LLM server. Also: every preset is profiled, a bad
//! effort is refused before any request, the stall timeout comes from the profile.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use crate::BUILTINS;

use reasonix_agent::completion::{ChatRequest, ProviderClient, ask_profile};
use reasonix_config::providers::resolve_providers;
use reasonix_config::{Config, Paths};
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
        None,
        &env.home(),
    )
    .unwrap();
    assert_eq!(client.model(), "deepseek-v4-pro");
    mock.enqueue(Reply::text(&["hi"]));
    // `xhigh` on a DeepSeek Pro model maps to `max` with thinking enabled.
    let request = ChatRequest {
        messages: vec![Message::text(Role::User, "hello")],
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

fn registry_in(env: &Env) -> Registry {
    let paths = Paths {
        home: env.home(),
        cache: support::shared_artifact_cache(),
        state: env.home(),
    };
    Registry::load(BUILTINS, &paths, &Default::default(), None).unwrap()
}

#[test]
fn every_preset_is_profiled_by_the_builtin_component() {
    // The presets are data (they may name hosts and protocols); the built-in component must
    // know every protocol they set and detect the rest.
    let env = Env::new();
    let registry = registry_in(&env);
    let detected = [
        ("deepseek", "deepseek"),
        ("openai", "openai"),
        ("anthropic", "anthropic"),
        ("kimi", "kimi-k3"),
        ("qwen", "generic"),
        ("glm", "glm"),
        ("minimax", "minimax"),
        ("openrouter", "generic"),
        ("ollama", "ollama"),
        ("llamacpp", "generic"),
    ];
    for preset in reasonix_config::providers::presets() {
        let text = format!("[[providers]]\npreset = \"{}\"\n", preset.id);
        let config = Config::parse(&env.project().join("reasonix.toml"), &text).unwrap();
        let p = resolve_providers(&config).unwrap().remove(0);
        let kind = registry
            .provider(&p.kind)
            .unwrap_or_else(|| panic!("{}: kind {} is not served", p.name, p.kind));
        for model in &p.models {
            let profile = ask_profile(kind.as_ref(), &p, model, None)
                .unwrap_or_else(|e| panic!("{}/{model}: {e}", p.name));
            assert_eq!(profile.effort_levels[0], "auto", "{}/{model}", p.name);
            assert!(profile.stall_timeout_ms > 0);
            if *model == p.default_model
                && let Some((_, wanted)) = detected.iter().find(|(id, _)| *id == preset.id)
            {
                assert_eq!(profile.reasoning_protocol, *wanted, "{}/{model}", p.name);
            }
        }
    }
    // Kimi's other models are not kimi-k3.
    let config = Config::parse(
        &env.project().join("reasonix.toml"),
        "[[providers]]\npreset = \"kimi\"\n",
    )
    .unwrap();
    let p = resolve_providers(&config).unwrap().remove(0);
    let kind = registry.provider(&p.kind).unwrap();
    let profile = ask_profile(kind.as_ref(), &p, "kimi-k2.6", None).unwrap();
    assert_eq!(profile.reasoning_protocol, "generic");
}

#[test]
fn a_bad_effort_is_refused_before_any_request_with_the_components_message() {
    let mock = MockLlm::start().unwrap();
    let env = Env::new();
    let registry = registry_in(&env);
    let entry = |extra: &str| {
        format!(
            "[[providers]]\nname = \"k3\"\nkind = \"openai\"\nbase_url = \"{}/v1\"\nmodels = [\"kimi-k3\", \"other\"]\nreasoning_protocol = \"kimi-k3\"\n{extra}\n",
            mock.base_url()
        )
    };
    let client = |extra: &str, flag: Option<&str>| {
        let config = Config::parse(&env.project().join("reasonix.toml"), &entry(extra)).unwrap();
        let providers = resolve_providers(&config).unwrap();
        ProviderClient::new(&registry, &providers, None, None, flag, &env.home())
    };
    // `--effort`: the component's table for the backend, naming provider and model.
    let err = client("", Some("disabled")).err().unwrap().to_string();
    assert!(
        err.contains("provider `k3` (model kimi-k3)")
            && err.contains("effort `disabled`")
            && err.contains("auto, low, high, max"),
        "{err}"
    );
    // The same problem in the config, and other settings only the component can judge.
    for (extra, wanted) in [
        ("effort = \"ultra\"", "effort `ultra`"),
        ("thinking = \"maybe\"", "thinking = \"maybe\""),
        (
            "model_overrides = { \"kimi-k3\" = { reasoning_protocol = \"magic\" } }",
            "reasoning_protocol = \"magic\"",
        ),
    ] {
        let err = client(extra, None).err().unwrap().to_string();
        assert!(
            err.contains("provider `k3` (model kimi-k3)") && err.contains(wanted),
            "{extra}: {err}"
        );
    }
    // The flag wins over a config value the backend would refuse.
    let ok = client("effort = \"disabled\"", Some("high")).unwrap();
    assert_eq!(ok.effort(), Some("high"));
    assert_eq!(ok.profile().reasoning_protocol, "kimi-k3");
    assert_eq!(ok.profile().effort_levels, ["auto", "low", "high", "max"]);
    // A request naming a level of its own is checked too, still before anything is sent.
    let request = ChatRequest {
        effort: Some("minimal".into()),
        ..ChatRequest::default()
    };
    let err = ok
        .stream(&request, &CancelToken::new(), &mut |_| {})
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("effort `minimal`"), "{err}");
    assert!(mock.requests().is_empty(), "nothing reached the backend");
}

#[test]
fn the_stall_timeout_comes_from_the_profile_unless_configured() {
    let env = Env::new();
    let registry = registry_in(&env);
    let stall = |kind: &str, extra: &str| {
        let text = format!(
            "[[providers]]\nname = \"p\"\nkind = \"{kind}\"\nbase_url = \"http://127.0.0.1:9\"\nmodel = \"m\"\n{extra}\n"
        );
        let config = Config::parse(&env.project().join("reasonix.toml"), &text).unwrap();
        let providers = resolve_providers(&config).unwrap();
        ProviderClient::new(&registry, &providers, None, None, None, &env.home())
            .unwrap()
            .stall_timeout()
            .as_secs()
    };
    assert_eq!(stall("openai", ""), 300);
    assert_eq!(stall("anthropic", ""), 120);
    assert_eq!(stall("responses", ""), 120);
    assert_eq!(stall("openai", "stall_timeout_seconds = 7"), 7);
}
