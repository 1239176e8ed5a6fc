//! Tests of provider resolution, model references, the chosen effort level and the request
//! options. (What a protocol or an effort level means for a backend is the provider
//! component's; those tests live with it, in `plugins/llm/src/backend/tests.rs`.)

use super::*;
use crate::Config;
use proptest::prelude::*;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

fn config(text: &str) -> Config {
    Config::parse(Path::new("reasonix.toml"), text).unwrap()
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn resolve(text: &str) -> Result<Vec<ResolvedProvider>, ProviderConfigError> {
    resolve_providers_with(&config(text), no_env)
}

fn one(text: &str) -> ResolvedProvider {
    let mut all = resolve(text).unwrap();
    assert_eq!(all.len(), 1);
    all.remove(0)
}

fn err(text: &str) -> String {
    resolve(text).unwrap_err().to_string()
}

/// A config written for the original Reasonix.
const ORIGINAL: &str = r#"
default_model = "deepseek"
language = "zh"

[ui]
theme = "auto"

[agent]
system_prompt = "You are Reasonix"
temperature = 0.0
reasoning_language = "auto"

[[providers]]
name           = "deepseek"
kind           = "openai"
base_url       = "https://api.deepseek.com/"
models         = ["deepseek-v4-flash", "deepseek-v4-pro"]
default        = "deepseek-v4-flash"
api_key_env    = "DEEPSEEK_API_KEY"
context_window = 1000000
model_overrides = { "deepseek-v4-pro" = { context_window = 500000, max_output_tokens = 65536, supports_tools = true } }
billing_currency = "CNY"
price = { input = 2.0, output = 8.0, cache_hit = 0.2, currency = "CNY" }
prices = { "deepseek-v4-pro" = { input = 4, output = 16, cache_hit = 0.4 } }
headers = { "X-Trace" = "${TRACE:-off}" }
extra_body = { top_k = 5, nested = { a = [1, 2] } }
effort = "high"

[[providers]]
name = "claude-gw"
kind = "anthropic"
base_url = "https://gw.example.com/anthropic"
model = "claude-sonnet-4-6"
api_key_env = "GW_KEY"
auth_header = true
thinking = "enabled"

[[providers]]
name = "openrouter"
kind = "openai"
base_url = "https://openrouter.ai/api/v1"
models = ["anthropic/claude-sonnet-4.6", "deepseek/deepseek-v4-pro"]
api_key_env = "OPENROUTER_API_KEY"
vision = true
web_search = false
some_future_key = 1

[permissions]
mode  = "ask"
deny  = ["Bash(rm -rf*)"]
allow = ["Bash(go test:*)"]

[sandbox]
forbid_read = ["${HOME}/.ssh"]

[[plugins]]
name = "example"
command = "reasonix-plugin-example"
"#;

#[test]
fn original_reasonix_config_parses_and_resolves() {
    let cfg = config(ORIGINAL);
    assert_eq!(cfg.default_model.as_deref(), Some("deepseek"));
    assert_eq!(cfg.providers.len(), 3);
    assert_eq!(
        cfg.warnings(),
        [
            "reasonix.toml: ignored: [ui] (line 5) — not supported yet (settings of the original Reasonix; docs/CONFIG.md lists what this build reads)",
            "provider `openrouter`: unknown key `some_future_key` is ignored (check the spelling; see docs/CONFIG.md)"
        ]
    );
    let providers = resolve_providers_with(&cfg, no_env).unwrap();
    let ds = &providers[0];
    assert_eq!(ds.base_url, "https://api.deepseek.com");
    // Not configured: the component detects it.
    assert_eq!(ds.reasoning_protocol, None);
    assert_eq!(ds.default_model, "deepseek-v4-flash");
    assert_eq!(ds.api_key_env.as_deref(), Some("DEEPSEEK_API_KEY"));
    assert_eq!(ds.context_window_for("deepseek-v4-flash"), Some(1_000_000));
    assert_eq!(ds.context_window_for("deepseek-v4-pro"), Some(500_000));
    assert_eq!(ds.max_output_tokens_for("deepseek-v4-pro"), Some(65536));
    assert_eq!(ds.max_output_tokens_for("deepseek-v4-flash"), None);
    assert_eq!(ds.price_for("deepseek-v4-pro").unwrap().input, 4.0);
    assert_eq!(
        ds.price_for("deepseek-v4-flash").unwrap().cache_hit,
        Some(0.2)
    );
    assert_eq!(ds.headers["X-Trace"], "off");
    assert_eq!(ds.extra_body["nested"], json!({"a": [1, 2]}));
    // Not configured: the component's default for the model applies.
    assert_eq!(ds.stall_timeout, None);
    assert_eq!(ds.max_retries, 10);
    assert_eq!(ds.retry_budget, Duration::from_secs(300));
    assert_eq!(ds.origins(), ["https://api.deepseek.com:443"]);

    let gw = &providers[1];
    assert_eq!(gw.auth_header.as_deref(), Some("bearer"));
    assert_eq!(gw.reasoning_protocol, None);
    assert_eq!(gw.thinking.as_deref(), Some("enabled"));
    assert_eq!(
        gw.credential_header("x-api-key", ""),
        ("authorization".to_string(), "Bearer ".to_string())
    );

    let (p, model) = resolve_model(None, cfg.default_model.as_deref(), &providers).unwrap();
    assert_eq!(
        (p.name.as_str(), model.as_str()),
        ("deepseek", "deepseek-v4-flash")
    );
    let (p, model) = resolve_model(Some("deepseek/deepseek-v4-pro"), None, &providers).unwrap();
    assert_eq!(
        (p.name.as_str(), model.as_str()),
        ("deepseek", "deepseek-v4-pro")
    );
    assert_eq!(chosen_effort(p, &model, None).as_deref(), Some("high"));
    let options = p.request_options(&model);
    assert_eq!(
        options.to_string(),
        r#"{"extra_body":{"nested":{"a":[1,2]},"top_k":5},"headers":{"X-Trace":"off"}}"#
    );
    assert_eq!(
        providers[1]
            .request_options("claude-sonnet-4-6")
            .to_string(),
        r#"{"thinking":"enabled"}"#
    );
}

#[test]
fn project_entries_replace_user_entries_by_name() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "default_model = \"a\"\n[[providers]]\nname = \"a\"\nkind = \"openai\"\nbase_url = \"https://a.example\"\nmodel = \"m1\"\n[[providers]]\npreset = \"ollama\"\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("reasonix.toml"),
        "default_model = \"c\"\n[[providers]]\nname = \"c\"\npreset = \"llamacpp\"\n[[providers]]\nname = \"a\"\nkind = \"openai\"\nbase_url = \"https://a2.example\"\nmodel = \"m2\"\n[[providers]]\nname = \"ollama\"\npreset = \"ollama\"\nmodel = \"x\"\n",
    )
    .unwrap();
    let paths = crate::Paths {
        home: home.path().to_path_buf(),
        cache: home.path().join("cache"),
        state: home.path().to_path_buf(),
    };
    let cfg = Config::load(&paths, project.path()).unwrap();
    let names: Vec<_> = cfg.providers.iter().map(|p| p.effective_name()).collect();
    assert_eq!(names, ["a", "ollama", "c"]);
    assert_eq!(cfg.providers[0].model.as_deref(), Some("m2"));
    assert_eq!(
        cfg.providers[0].base_url.as_deref(),
        Some("https://a2.example")
    );
    assert_eq!(cfg.providers[1].model.as_deref(), Some("x"));
    assert_eq!(cfg.default_model.as_deref(), Some("c"));
    let resolved = resolve_providers_with(&cfg, no_env).unwrap();
    let (p, m) = resolve_model(None, cfg.default_model.as_deref(), &resolved).unwrap();
    assert_eq!((p.name.as_str(), m.as_str()), ("c", "local"));
}

#[test]
fn duplicate_in_one_file_is_an_error() {
    let e = err(
        "[[providers]]\npreset = \"ollama\"\n[[providers]]\nname = \"ollama\"\npreset = \"llamacpp\"\n",
    );
    assert!(e.contains("`ollama` is defined more than once"), "{e}");
}

#[test]
fn presets_fill_unset_keys() {
    let p = one("[[providers]]\npreset = \"kimi\"\n");
    assert_eq!(p.name, "kimi");
    assert_eq!(p.preset.as_deref(), Some("kimi"));
    assert_eq!(p.kind, "openai");
    assert_eq!(p.base_url, "https://api.moonshot.cn/v1");
    assert_eq!(p.default_model, "kimi-k3");
    assert_eq!(p.api_key_env.as_deref(), Some("KIMI_API_KEY"));
    assert_eq!(p.context_window, Some(262144));
    // Left to the component, which detects it per model.
    assert_eq!(p.reasoning_protocol, None);
    assert_eq!(p.protocol_for("kimi-k2.6"), None);

    // Entry keys win; a model list replaces the preset's; `preset_id` is an alias.
    let p = one(
        "[[providers]]\nname = \"ds\"\npreset_id = \"deepseek\"\nbase_url = \"https://proxy.example.com/v1\"\nmodel = \"deepseek-v4-pro\"\napi_key_env = \"PROXY_KEY\"\n",
    );
    assert_eq!(p.name, "ds");
    assert_eq!(p.base_url, "https://proxy.example.com/v1");
    assert_eq!(p.models, ["deepseek-v4-pro"]);
    assert_eq!(p.default_model, "deepseek-v4-pro");
    assert_eq!(p.api_key_env.as_deref(), Some("PROXY_KEY"));
    // The preset's explicit protocol survives a base_url change …
    assert_eq!(p.reasoning_protocol.as_deref(), Some("deepseek"));
    assert_eq!(
        p.protocol_for("deepseek-v4-pro").as_deref(),
        Some("deepseek")
    );
    // … unless the entry says `auto`.
    let p = one("[[providers]]\npreset = \"deepseek\"\nreasoning_protocol = \"Auto\"\n");
    assert_eq!(p.reasoning_protocol, None);

    let p = one("[[providers]]\npreset = \"ollama\"\n");
    assert_eq!(p.api_key_env, None);
    assert_eq!(p.reasoning_protocol.as_deref(), Some("ollama"));
    assert_eq!(p.origins(), ["http://localhost:11434"]);
    // `api_key_env = ""` removes the preset's key.
    let p = one("[[providers]]\npreset = \"openai\"\napi_key_env = \"\"\n");
    assert_eq!(p.api_key_env, None);
    let e = err("[[providers]]\npreset = \"nope\"\n");
    assert!(
        e.contains("`preset`") && e.contains("deepseek, openai"),
        "{e}"
    );
}

#[test]
fn every_preset_resolves_alone() {
    for preset in presets() {
        let p = one(&format!("[[providers]]\npreset = \"{}\"\n", preset.id));
        assert_eq!(p.name, preset.id);
        assert!(p.has_model(&p.default_model));
        // That the built-in component knows each preset's protocol and profiles its default
        // model: tests/e2e/provider_config.rs.
    }
}

#[test]
fn validation_names_provider_and_key() {
    let base = "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.example\"\nmodel = \"m\"\n";
    assert!(resolve(base).is_ok());
    let cases: &[(&str, &str)] = &[
        (
            "[[providers]]\nkind = \"openai\"\n",
            "entry #1 has no `name`",
        ),
        ("[[providers]]\nname = \"a/b\"\n", "`name`"),
        (
            "[[providers]]\nname = \"x\"\nbase_url = \"https://x\"\nmodel = \"m\"\n",
            "`kind` is missing",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nmodel = \"m\"\n",
            "`base_url` is missing",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"api.x.com\"\nmodel = \"m\"\n",
            "`base_url` = \"api.x.com\" must be an absolute URL",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"ftp://x.com\"\nmodel = \"m\"\n",
            "https://",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://u:p@x.com\"\nmodel = \"m\"\n",
            "credentials",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"${NOPE}/v1\"\nmodel = \"m\"\n",
            "`${NOPE}` is not set",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\n",
            "`models` is empty",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodels = [\"a\"]\ndefault = \"b\"\n",
            "`default` = \"b\" is not one of models (a)",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodels = [\"a\", \" \"]\n",
            "empty model name",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\nsupported_efforts = [\"low\"]\ndefault_effort = \"high\"\n",
            "`default_effort` = \"high\" is not one of supported_efforts",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\nmodel_overrides = { m = { supported_efforts = [\"low\"], default_effort = \"max\" } }\n",
            "`model_overrides.\"m\".default_effort` = \"max\" is not one of supported_efforts (low)",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\napi_key_env = \"sk-abc123\"\n",
            "NAME of an environment variable",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\nauth_header = \"bad header\"\n",
            "`auth_header`",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\nheaders = { \"X-A\" = \"${NOPE}\" }\n",
            "`headers.X-A`",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\nheaders = { \"X-A\" = \"a\\nb\" }\n",
            "`headers.X-A` contains a control character",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\nrequest_url = \"/chat\"\n",
            "`request_url`",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\nchat_url = \"nope\"\n",
            "`chat_url`",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\ntemperature = -1.0\n",
            "`temperature`",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\nstall_timeout_seconds = 0\n",
            "`stall_timeout_seconds`",
        ),
        (
            "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodel = \"m\"\nretry_budget_seconds = 0\n",
            "`retry_budget_seconds`",
        ),
    ];
    for (text, wanted) in cases {
        let e = err(text);
        assert!(e.contains(wanted), "{text}\n=> {e}");
        if !wanted.contains("entry #1") {
            assert!(e.starts_with("provider `"), "{e}");
        }
    }
}

#[test]
fn a_wrong_type_is_a_config_error_with_the_key() {
    let e = Config::parse(
        Path::new("reasonix.toml"),
        "[[providers]]\nname = \"x\"\nmodels = \"one\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("line 3") && e.contains("models = \"one\"") && e.contains("sequence"),
        "{e}"
    );
}

#[test]
fn urls_variables_and_request_url() {
    let env = |k: &str| (k == "GW").then(|| "gw.example.com".to_string());
    let cfg = config(
        "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://${GW}/v1///\"\nchat_url = \"http://${GW}:8080/chat\"\nmodel = \"m\"\nmax_retries = 3\nstall_timeout_seconds = 9\nretry_budget_seconds = 60\n",
    );
    let p = resolve_providers_with(&cfg, env).unwrap().remove(0);
    assert_eq!(p.base_url, "https://gw.example.com/v1");
    assert_eq!(
        p.request_url.as_deref(),
        Some("http://gw.example.com:8080/chat")
    );
    assert_eq!(
        p.origins(),
        ["https://gw.example.com:443", "http://gw.example.com:8080"]
    );
    assert_eq!(
        (p.max_retries, p.stall_timeout, p.retry_budget),
        (3, Some(Duration::from_secs(9)), Duration::from_secs(60))
    );
    // request_url wins over chat_url; an IPv6 origin keeps its brackets.
    let p = one(
        "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"http://[::1]:9000\"\nrequest_url = \"http://[::1]:9000/a\"\nchat_url = \"http://other/b\"\nmodel = \"m\"\n",
    );
    assert_eq!(p.request_url.as_deref(), Some("http://[::1]:9000/a"));
    assert_eq!(p.origins(), ["http://[::1]:9000"]);
}

#[test]
fn models_default_and_model_forms() {
    let p = one(
        "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodels = [\"a\", \"b\", \"a\"]\n",
    );
    assert_eq!(
        (p.models.clone(), p.default_model.as_str()),
        (vec!["a".to_string(), "b".into()], "a")
    );
    let p = one(
        "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodels = [\"a\", \"b\"]\nmodel = \"c\"\n",
    );
    assert_eq!(p.models, ["a", "b", "c"]);
    assert_eq!(p.default_model, "c");
    let p = one(
        "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.com\"\nmodels = [\"a\", \"b\"]\ndefault = \"b\"\n",
    );
    assert_eq!(p.default_model, "b");
}

#[test]
fn configured_protocol_per_model() {
    // `auto` (any case) means "let the component detect"; overrides win per model; values are
    // passed on lowercase, whatever they are (the component says which it knows).
    let p = one(
        "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://x.example\"\nmodels = [\"a\", \"b\", \"c\"]\nreasoning_protocol = \"AUTO\"\nmodel_overrides = { b = { reasoning_protocol = \"None\" }, c = { reasoning_protocol = \"auto\" } }\n",
    );
    assert_eq!(p.reasoning_protocol, None);
    assert_eq!(p.protocol_for("a"), None);
    assert_eq!(p.protocol_for("b").as_deref(), Some("none"));
    assert_eq!(p.protocol_for("c"), None);
    let p = one(
        "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"https://gw.example\"\nmodels = [\"m\", \"n\"]\nreasoning_protocol = \" Magic \"\nmodel_overrides = { n = { reasoning_protocol = \"auto\" } }\n",
    );
    assert_eq!(p.protocol_for("m").as_deref(), Some("magic"));
    // An override's `auto` falls back to the provider's value.
    assert_eq!(p.protocol_for("n").as_deref(), Some("magic"));
}

#[test]
fn credential_header_overrides() {
    let mut p = one("[[providers]]\npreset = \"anthropic\"\n");
    assert_eq!(
        p.credential_header("X-Api-Key", ""),
        ("x-api-key".into(), String::new())
    );
    for (setting, wanted) in [
        ("bearer", ("authorization", "Bearer ")),
        ("x-api-key", ("x-api-key", "")),
        ("api-key", ("api-key", "")),
    ] {
        p.auth_header = Some(setting.into());
        let (h, v) = p.credential_header("authorization", "Bearer ");
        assert_eq!((h.as_str(), v.as_str()), wanted, "{setting}");
    }
    let p = one("[[providers]]\npreset = \"anthropic\"\nauth_header = \"Bearer\"\n");
    assert_eq!(p.auth_header.as_deref(), Some("bearer"));
    let p = one("[[providers]]\npreset = \"anthropic\"\nauth_header = false\n");
    assert_eq!(p.auth_header, None);
}

// ---- model references ----------------------------------------------------------------------

fn refs() -> Vec<ResolvedProvider> {
    resolve(
        r#"
[[providers]]
preset = "deepseek"
[[providers]]
name = "proxy"
preset = "deepseek"
models = ["deepseek-v4-pro", "only-here"]
[[providers]]
preset = "openrouter"
models = ["anthropic/claude-sonnet-4.6", "deepseek/deepseek-v4-pro"]
[[providers]]
preset = "anthropic"
"#,
    )
    .unwrap()
}

fn pick(reference: Option<&str>, default: Option<&str>) -> Result<(String, String), ModelRefError> {
    let providers = refs();
    resolve_model(reference, default, &providers).map(|(p, m)| (p.name.clone(), m))
}

#[test]
fn model_references() {
    let ok = |r: Option<&str>, d: Option<&str>, p: &str, m: &str| {
        assert_eq!(
            pick(r, d).unwrap(),
            (p.to_string(), m.to_string()),
            "{r:?} {d:?}"
        );
    };
    ok(None, None, "deepseek", "deepseek-v4-flash");
    ok(None, Some("proxy"), "proxy", "deepseek-v4-pro");
    ok(
        Some("  "),
        Some("openrouter"),
        "openrouter",
        "anthropic/claude-sonnet-4.6",
    );
    ok(
        Some("anthropic"),
        Some("proxy"),
        "anthropic",
        "claude-sonnet-4-6",
    );
    ok(Some("proxy/only-here"), None, "proxy", "only-here");
    ok(Some("only-here"), None, "proxy", "only-here");
    ok(
        Some("deepseek-v4-flash"),
        None,
        "deepseek",
        "deepseek-v4-flash",
    );
    ok(Some("deepseek/"), None, "deepseek", "deepseek-v4-flash");
    // OpenRouter ids contain '/': split at the first one only when it names a provider.
    ok(
        Some("openrouter/anthropic/claude-sonnet-4.6"),
        None,
        "openrouter",
        "anthropic/claude-sonnet-4.6",
    );
    // `anthropic/claude-sonnet-4.6`: `anthropic` is a provider without that model, but the
    // whole reference is an OpenRouter model.
    ok(
        Some("anthropic/claude-sonnet-4.6"),
        None,
        "openrouter",
        "anthropic/claude-sonnet-4.6",
    );
    // `deepseek/deepseek-v4-pro` is both deepseek's model and an OpenRouter id: the provider
    // prefix wins.
    ok(
        Some("deepseek/deepseek-v4-pro"),
        None,
        "deepseek",
        "deepseek-v4-pro",
    );
}

#[test]
fn model_reference_errors_list_what_is_configured() {
    let e = pick(Some("deepseek-v4-pro"), None).unwrap_err();
    assert!(matches!(e, ModelRefError::Ambiguous { .. }));
    let text = e.to_string();
    assert!(
        text.contains("deepseek/deepseek-v4-pro, proxy/deepseek-v4-pro"),
        "{text}"
    );

    let text = pick(Some("deepseek/nope"), None).unwrap_err().to_string();
    assert!(
        text.contains("provider `deepseek` has no model `nope`"),
        "{text}"
    );
    assert!(
        text.contains("deepseek-v4-flash, deepseek-v4-pro"),
        "{text}"
    );

    let text = pick(Some("gpt-9"), None).unwrap_err().to_string();
    assert!(
        text.contains("`gpt-9`") && text.contains("proxy (deepseek-v4-pro, only-here)"),
        "{text}"
    );
    let text = pick(None, Some("nobody/x")).unwrap_err().to_string();
    assert!(text.contains("`nobody/x`"), "{text}");

    assert_eq!(
        resolve_model(Some("x"), None, &[]).unwrap_err(),
        ModelRefError::NoProviders
    );
}

proptest! {
    #[test]
    fn model_reference_parsing_never_panics(reference in "\\PC{0,40}", default in proptest::option::of("[a-z/ -]{0,20}")) {
        let providers = refs();
        if let Ok((p, m)) = resolve_model(Some(&reference), default.as_deref(), &providers) {
            // An implicit preset takes any model as `preset/model`.
            prop_assert!(p.has_model(&m) || is_implicit(p), "{reference}: {} {m}", p.name);
        }
    }

    #[test]
    fn provider_prefixed_references_resolve(idx in 0usize..4, m in 0usize..3) {
        let providers = refs();
        let p = &providers[idx];
        let model = &p.models[m % p.models.len()];
        let (got, got_model) = resolve_model(Some(&format!("{}/{model}", p.name)), None, &providers).unwrap();
        prop_assert_eq!(&got.name, &p.name);
        prop_assert_eq!(&got_model, model);
    }

    #[test]
    fn arbitrary_provider_entries_never_panic(
        name in "[a-z/ ]{0,6}", kind in proptest::option::of("[a-z]{0,8}"),
        url in proptest::option::of("\\PC{0,30}"), model in proptest::option::of("\\PC{0,10}"),
        effort in proptest::option::of("[a-z]{0,6}"), proto in proptest::option::of("[a-z-]{0,8}"),
    ) {
        let settings = ProviderSettings {
            name, kind, base_url: url, model, effort, reasoning_protocol: proto,
            ..Default::default()
        };
        let cfg = Config { providers: vec![settings], ..Default::default() };
        if let Ok(all) = resolve_providers_with(&cfg, no_env) {
            let p = &all[0];
            let _ = chosen_effort(p, &p.default_model, None);
            prop_assert!(p.request_options(&p.default_model).is_object());
        }
    }
}

// ---- effort level and options ---------------------------------------------------------------

fn provider_for(kind: &str, url: &str, model: &str, extra: &str) -> ResolvedProvider {
    one(&format!(
        "[[providers]]\nname = \"p\"\nkind = \"{kind}\"\nbase_url = \"{url}\"\nmodels = [\"{model}\"]\n{extra}\n"
    ))
}

/// The level a request carries for each flag (`""` = no flag), `-` for auto.
fn levels(p: &ResolvedProvider, rows: &[(&str, &str)]) {
    for (flag, wanted) in rows {
        let flag = (!flag.is_empty()).then_some(*flag);
        assert_eq!(
            chosen_effort(p, &p.default_model, flag)
                .as_deref()
                .unwrap_or("-"),
            *wanted,
            "{flag:?}"
        );
    }
}

#[test]
fn requested_effort_beats_config() {
    let p = provider_for(
        "openai",
        "https://gw.example",
        "m",
        "effort = \"MAX\"\ndefault_effort = \"low\"",
    );
    levels(
        &p,
        &[
            ("", "max"),
            ("low", "low"),
            (" High ", "high"),
            ("auto", "-"),
            ("  ", "max"),
        ],
    );
    let p = provider_for(
        "openai",
        "https://gw.example",
        "m",
        "default_effort = \"low\"",
    );
    levels(&p, &[("", "low"), ("ultra", "ultra")]);
    // An explicit `auto` stops the chain: the backend's default, not `default_effort`.
    let p = provider_for(
        "openai",
        "https://gw.example",
        "m",
        "effort = \"auto\"\ndefault_effort = \"low\"",
    );
    levels(&p, &[("", "-")]);
    let p = provider_for("openai", "https://gw.example", "m", "");
    levels(&p, &[("", "-")]);
}

#[test]
fn per_model_overrides_reach_the_options() {
    // OpenCode-Go style: one gateway, a model declared as DeepSeek with its own levels.
    let p = one(r#"
[[providers]]
name = "go"
kind = "openai"
base_url = "https://opencode.ai/zen/go/v1"
models = ["glm-5.2", "deepseek-v4-pro"]
effort = "high"
model_overrides = { "deepseek-v4-pro" = { reasoning_protocol = "deepseek", supported_efforts = ["Disabled", "high", "max", "auto"], default_effort = "high", effort = "max" } }
"#);
    assert_eq!(
        p.request_options("deepseek-v4-pro"),
        json!({
            "reasoning_protocol": "deepseek",
            "supported_efforts": ["disabled", "high", "max"],
            "default_effort": "high"
        })
    );
    assert_eq!(
        chosen_effort(&p, "deepseek-v4-pro", None).as_deref(),
        Some("max")
    );
    assert_eq!(p.request_options("glm-5.2"), json!({}));
    assert_eq!(chosen_effort(&p, "glm-5.2", None).as_deref(), Some("high"));
}

#[test]
fn request_options_shape() {
    let p = one(r#"
[[providers]]
name = "gw"
kind = "openai"
base_url = "https://gw.example.com/v1"
request_url = "https://gw.example.com/v1/chat"
model = "m"
temperature = 0.5
thinking = "Adaptive"
headers = { "x-extra" = "1" }
extra_body = { top_k = 5 }
strip_chain_of_thought = true
"#);
    let options = p.request_options("m");
    assert_eq!(
        options,
        json!({
            "request_url": "https://gw.example.com/v1/chat",
            "thinking": "adaptive",
            "temperature": 0.5,
            "headers": {"x-extra": "1"},
            "extra_body": {"top_k": 5},
            "strip_chain_of_thought": true
        })
    );
    // Sorted keys: byte-stable text.
    assert!(
        options.to_string().starts_with("{\"extra_body\""),
        "{options}"
    );
    // Minimal provider: nothing to say.
    let p = one("[[providers]]\npreset = \"llamacpp\"\nreasoning_protocol = \"auto\"\n");
    assert_eq!(p.request_options("local"), json!({}));
    // Declared levels carry the default `auto` stands for; without them it is not sent (the
    // agent already applied it: `chosen_effort`).
    let p = provider_for(
        "openai",
        "https://gw.example",
        "m",
        "supported_efforts = [\"low\", \"max\"]\ndefault_effort = \"max\"\ntemperature = 0",
    );
    assert_eq!(
        p.request_options("m"),
        json!({"supported_efforts": ["low", "max"], "default_effort": "max", "temperature": 0.0})
    );
    let p = provider_for(
        "openai",
        "https://gw.example",
        "m",
        "default_effort = \"max\"",
    );
    assert_eq!(p.request_options("m"), json!({}));
}

#[test]
fn resolved_provider_serializes_for_listing() {
    let p =
        one("[[providers]]\npreset = \"deepseek\"\nheaders = { \"X-Token\" = \"secret-value\" }\n");
    let v = serde_json::to_value(&p).unwrap();
    assert_eq!(v["headers"], json!(["X-Token"]));
    assert!(!v.to_string().contains("secret-value"));
    assert_eq!(v["stall_timeout"], json!(null));
    let p = one("[[providers]]\npreset = \"deepseek\"\nstall_timeout_seconds = 30\n");
    assert_eq!(
        serde_json::to_value(&p).unwrap()["stall_timeout"],
        json!(30)
    );
    assert_eq!(v["name"], json!("deepseek"));
    assert_eq!(v["models"], json!(["deepseek-v4-flash", "deepseek-v4-pro"]));
}

#[test]
fn example_config_documents_every_key_and_resolves() {
    // The commented "Every key" entry of reasonix.example.toml, uncommented, must parse with no
    // unknown-key warning and resolve: the documentation and the code agree.
    let example = include_str!("../../../../reasonix.example.toml");
    let start = example
        .find("# Every key, with its default")
        .expect("the example lists every provider key");
    let text: String = example[start..]
        .lines()
        .skip(1)
        .map(|l| l.strip_prefix("# ").unwrap_or(l))
        .map(|l| format!("{l}\n"))
        .collect();
    let cfg = config(&text);
    assert_eq!(cfg.providers.len(), 1);
    assert_eq!(cfg.warnings(), Vec::<String>::new());
    let p = resolve_providers_with(&cfg, no_env).unwrap().remove(0);
    assert_eq!(p.name, "deepseek");
    assert_eq!(p.max_output_tokens_for("deepseek-v4-pro"), Some(65536));
    assert_eq!(
        p.protocol_for("deepseek-v4-pro").as_deref(),
        Some("deepseek")
    );
    assert_eq!(
        chosen_effort(&p, "deepseek-v4-pro", None).as_deref(),
        Some("max")
    );
}

#[test]
fn warnings_name_the_provider() {
    let cfg = config(
        r#"
[[providers]]
name = "a"
kind = "openai"
base_url = "https://a.example"
models = ["m1"]
request_url = "https://a.example/x"
chat_url = "https://a.example/y"
model_overrides = { "m2" = { context_window = 1, colour = "red" } }
[[providers]]
preset = "deepseek"
typo_key = true
[[providers]]
kind = "openai"
mystery = 1
"#,
    );
    assert_eq!(
        cfg.warnings(),
        [
            "provider `a`: both `request_url` and the legacy `chat_url` are set; `request_url` is used",
            "provider `a`: model_overrides.\"m2\" names a model that is not in `models`; check the spelling",
            "provider `a`: unknown key `colour` in model_overrides.\"m2\" is ignored",
            "provider `deepseek`: unknown key `typo_key` is ignored (check the spelling; see docs/CONFIG.md)",
            "provider #3: unknown key `mystery` is ignored (check the spelling; see docs/CONFIG.md)",
        ]
    );
}

/// A config as the original's `setup` writes it: no `[[providers]]`, a model alias.
#[test]
fn without_providers_presets_and_aliases_resolve() {
    let implicit = |reference: &str| {
        let (p, m) = resolve_model(Some(reference), None, &[]).unwrap();
        assert!(is_implicit(p), "{reference}");
        (p.name.clone(), m, p.base_url.clone(), p.api_key_env.clone())
    };
    let deepseek = |m: &str| {
        (
            "deepseek".to_string(),
            m.to_string(),
            "https://api.deepseek.com".to_string(),
            Some("DEEPSEEK_API_KEY".to_string()),
        )
    };
    assert_eq!(implicit("deepseek-flash"), deepseek("deepseek-v4-flash"));
    assert_eq!(implicit("deepseek-pro"), deepseek("deepseek-v4-pro"));
    assert_eq!(implicit("deepseek"), deepseek("deepseek-v4-flash"));
    assert_eq!(implicit("deepseek-v4-pro"), deepseek("deepseek-v4-pro"));
    // `preset/model` takes a model the preset does not list (the original's older ids).
    assert_eq!(
        implicit("deepseek/deepseek-chat"),
        deepseek("deepseek-chat")
    );
    assert_eq!(implicit("deepseek/"), deepseek("deepseek-v4-flash"));
    assert_eq!(implicit("anthropic").2, "https://api.anthropic.com");
    // `default_model` as `setup` writes it.
    let cfg = config("default_model = \"deepseek-flash\"\n");
    let resolved = resolve_providers_with(&cfg, no_env).unwrap();
    assert!(resolved.is_empty());
    let (p, m) = resolve_model(None, cfg.default_model.as_deref(), &resolved).unwrap();
    assert_eq!(
        (p.name.as_str(), m.as_str()),
        ("deepseek", "deepseek-v4-flash")
    );
    // Nothing chosen, nothing configured; and a reference nothing knows.
    assert_eq!(
        resolve_model(None, None, &[]).unwrap_err(),
        ModelRefError::NoProviders
    );
    let e = resolve_model(Some("gpt-9"), None, &[]).unwrap_err();
    assert_eq!(e, ModelRefError::NoProviders);
    assert!(e.to_string().contains("reasonix providers presets"), "{e}");
}

/// Explicit `[[providers]]` entries win; presets only resolve what nothing configured does.
#[test]
fn configured_providers_win_over_presets_and_aliases() {
    let cfg = config(
        r#"
[[providers]]
preset = "deepseek"
base_url = "http://127.0.0.1:9/v1"

[[providers]]
name = "deepseek-pro"
kind = "openai"
base_url = "https://gw.example.com/v1"
model = "their-pro"
"#,
    );
    let providers = resolve_providers_with(&cfg, no_env).unwrap();
    let pick = |r: &str| {
        let (p, m) = resolve_model(Some(r), None, &providers).unwrap();
        (p.name.clone(), m, p.base_url.clone(), is_implicit(p))
    };
    // The alias goes through the configured `deepseek` (its base URL), not the preset's.
    assert_eq!(
        pick("deepseek-flash"),
        (
            "deepseek".into(),
            "deepseek-v4-flash".into(),
            "http://127.0.0.1:9/v1".into(),
            false
        )
    );
    // A provider named like an alias wins over the alias.
    assert_eq!(pick("deepseek-pro").0, "deepseek-pro");
    assert!(!pick("deepseek-pro").3);
    // A configured provider without that model: an error, never a fall back on the preset.
    assert!(matches!(
        resolve_model(Some("deepseek/deepseek-chat"), None, &providers).unwrap_err(),
        ModelRefError::UnknownModel { .. }
    ));
    // A preset nothing configures still resolves, with the preset's own URL.
    assert_eq!(
        pick("kimi"),
        (
            "kimi".into(),
            "kimi-k3".into(),
            "https://api.moonshot.cn/v1".into(),
            true
        )
    );
    // No reference: the first configured provider, as before.
    let (p, _) = resolve_model(None, None, &providers).unwrap();
    assert_eq!(p.name, "deepseek");
}

#[test]
fn every_preset_is_an_implicit_provider() {
    let ids: Vec<&str> = presets().iter().map(|p| p.id.as_str()).collect();
    let names: Vec<&str> = implicit_providers()
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(ids, names);
    for (preset, p) in presets().iter().zip(implicit_providers()) {
        assert_eq!(p.base_url, preset.base_url);
        assert_eq!(p.api_key_env, preset.api_key_env);
        assert_eq!(p.preset.as_deref(), Some(preset.id.as_str()));
    }
}
