//! Backend knowledge: protocol detection, effort tables and clamps, declared levels, thinking,
//! temperature, stall defaults and what `profile` reports. (These moved here from the kernel's
//! provider-resolution tests when the knowledge moved into the component.)

use super::*;
use crate::{parse_options, profile};
use proptest::prelude::*;
use reasonix_sdk::Error;
use reasonix_sdk::provider::ProfileRequest;

/// One configured model: its kind, base URL, model and `options` JSON.
struct Model {
    kind: &'static str,
    url: &'static str,
    model: &'static str,
    options: String,
}

fn model(kind: &'static str, url: &'static str, model: &'static str, options: &str) -> Model {
    Model {
        kind,
        url,
        model,
        options: if options.is_empty() {
            "{}".to_string()
        } else {
            options.to_string()
        },
    }
}

impl Model {
    fn target(&self) -> Target<'_> {
        Target {
            kind: self.kind,
            base_url: self.url,
            model: self.model,
        }
    }

    fn config(&self) -> ReasoningConfig {
        parse_options(&self.options).unwrap().1
    }

    fn protocol(&self) -> ReasoningProtocol {
        protocol(self.target(), &self.config())
    }

    fn map(&self, requested: Option<&str>) -> Result<EffortMapping, String> {
        let config = self.config();
        map_effort(
            self.target(),
            protocol(self.target(), &config),
            requested,
            &config,
        )
    }

    fn request(&self, effort: Option<&str>) -> ProfileRequest {
        ProfileRequest {
            kind: self.kind.into(),
            provider: "p".into(),
            base_url: self.url.into(),
            model: self.model.into(),
            effort: effort.map(str::to_string),
            options: self.options.clone(),
        }
    }
}

/// (effort, thinking) sent for one requested level, "-" for none; "ERR" when refused.
fn eff(m: &Model, requested: Option<&str>) -> String {
    match m.map(requested) {
        Ok(mapping) => format!(
            "{}/{}",
            mapping.effort.as_deref().unwrap_or("-"),
            mapping.thinking.as_deref().unwrap_or("-")
        ),
        Err(_) => "ERR".into(),
    }
}

fn table(m: &Model, rows: &[(&str, &str)]) {
    for (requested, wanted) in rows {
        let requested = (!requested.is_empty()).then_some(*requested);
        assert_eq!(
            eff(m, requested),
            *wanted,
            "{} {} {:?} {requested:?}",
            m.kind,
            m.model,
            m.url
        );
    }
}

#[test]
fn protocol_detection_from_host() {
    let cases = [
        (
            "openai",
            "https://api.deepseek.com",
            "deepseek-v4-flash",
            "deepseek",
        ),
        ("openai", "https://api.deepseek.com/beta", "x", "deepseek"),
        (
            "anthropic",
            "https://api.deepseek.com/anthropic",
            "deepseek-v4-pro",
            "deepseek",
        ),
        ("openai", "https://api.openai.com/v1", "gpt-5.5", "openai"),
        (
            "responses",
            "https://api.openai.com/v1",
            "gpt-5.5",
            "openai",
        ),
        ("openai", "https://api.moonshot.cn/v1", "kimi-k3", "kimi-k3"),
        (
            "openai",
            "https://api.moonshot.ai/v1",
            "kimi-k3-preview",
            "kimi-k3",
        ),
        (
            "openai",
            "https://api.moonshot.ai/v1",
            "kimi-k2.6",
            "generic",
        ),
        (
            "openai",
            "https://open.bigmodel.cn/api/paas/v4",
            "glm-5.2",
            "glm",
        ),
        ("openai", "https://api.z.ai/api/paas/v4", "glm-5.2", "glm"),
        (
            "anthropic",
            "https://open.bigmodel.cn/api/anthropic",
            "glm-5.2",
            "glm",
        ),
        (
            "openai",
            "https://api.minimax.io/v1",
            "MiniMax-M3",
            "minimax",
        ),
        (
            "openai",
            "https://api.minimaxi.com/v1",
            "MiniMax-M3",
            "minimax",
        ),
        (
            "anthropic",
            "https://api.anthropic.com",
            "claude-sonnet-4-6",
            "anthropic",
        ),
        ("openai", "http://localhost:11434/v1", "llama", "ollama"),
        ("openai", "http://[::1]:11434", "llama", "ollama"),
        ("openai", "https://ollama.com/v1", "glm-5.2", "ollama"),
        (
            "anthropic",
            "https://api.kimi.com/coding",
            "kimi-k3",
            "generic",
        ),
        ("openai", "http://localhost:8080/v1", "local", "generic"),
        ("anthropic", "https://gw.example.com", "claude", "generic"),
        ("openai", "https://notdeepseek.com", "x", "generic"),
        ("openai", "HTTPS://API.DEEPSEEK.COM:443/v1", "x", "deepseek"),
        ("openai", "https://u@api.deepseek.com", "x", "deepseek"),
        ("openai", "not a url", "x", "generic"),
        ("openai", "ftp://api.deepseek.com", "x", "generic"),
        ("openai", "https://api.deepseek.com:x", "x", "generic"),
        ("openai", "", "x", "generic"),
    ];
    for (kind, url, model, wanted) in cases {
        assert_eq!(
            detect(kind, url, model).name(),
            wanted,
            "{kind} {url} {model}"
        );
    }
    // A configured protocol wins; `auto` (any case) means detect.
    let m = |options: &str| model("openai", "https://api.deepseek.com", "m", options);
    assert_eq!(
        m(r#"{"reasoning_protocol": "AUTO"}"#).protocol().name(),
        "deepseek"
    );
    assert_eq!(
        m(r#"{"reasoning_protocol": "none"}"#).protocol().name(),
        "none"
    );
    let glm = model(
        "openai",
        "https://gw.example.com",
        "m",
        r#"{"reasoning_protocol": "glm"}"#,
    );
    assert_eq!(glm.protocol().name(), "glm");
}

#[test]
fn there_is_one_list_of_reasoning_protocols() {
    let names: Vec<_> = ReasoningProtocol::ALL.map(ReasoningProtocol::name).to_vec();
    assert_eq!(
        names,
        [
            "deepseek",
            "openai",
            "glm",
            "kimi-k3",
            "minimax",
            "anthropic",
            "ollama",
            "generic",
            "none"
        ]
    );
    for p in ReasoningProtocol::ALL {
        assert_eq!(ReasoningProtocol::from_name(p.name()), Some(p));
    }
    assert_eq!(ReasoningProtocol::from_name("auto"), None);
    // The options error lists exactly that list.
    let err = parse_options(r#"{"reasoning_protocol": "magic"}"#).unwrap_err();
    assert!(
        err.contains("`reasoning_protocol`") || err.contains("reasoning_protocol = \"magic\""),
        "{err}"
    );
    assert!(err.contains(&names.join(", ")), "{err}");
}

#[test]
fn stall_timeout_default_per_kind() {
    assert_eq!(stall_timeout_ms("openai"), 300_000);
    assert_eq!(stall_timeout_ms("anthropic"), 120_000);
    assert_eq!(stall_timeout_ms("responses"), 120_000);
}

#[test]
fn deepseek_effort_table() {
    let flash = model(
        "openai",
        "https://api.deepseek.com",
        "deepseek-v4-flash",
        "",
    );
    table(
        &flash,
        &[
            ("", "-/-"),
            ("auto", "-/-"),
            ("AUTO", "-/-"),
            ("disabled", "-/disabled"),
            ("off", "-/disabled"),
            ("low", "low/enabled"),
            ("medium", "high/enabled"),
            ("high", "high/enabled"),
            ("xhigh", "high/enabled"),
            ("max", "max/enabled"),
            ("MAX ", "max/enabled"),
            ("ultra", "ERR"),
        ],
    );
    let pro = model("openai", "https://api.deepseek.com", "deepseek-v4-pro", "");
    table(
        &pro,
        &[
            ("low", "high/enabled"),
            ("medium", "high/enabled"),
            ("xhigh", "max/enabled"),
            ("max", "max/enabled"),
        ],
    );
    // DeepSeek's Anthropic endpoint: same mapping; Opus aliases use the Pro mapping.
    let opus = model(
        "anthropic",
        "https://api.deepseek.com/anthropic",
        "claude-opus-4-8",
        "",
    );
    table(
        &opus,
        &[
            ("low", "high/enabled"),
            ("xhigh", "max/enabled"),
            ("disabled", "-/disabled"),
        ],
    );
    let flash_anthropic = model(
        "anthropic",
        "https://api.deepseek.com/anthropic",
        "deepseek-v4-flash",
        "",
    );
    table(
        &flash_anthropic,
        &[("xhigh", "high/enabled"), ("low", "low/enabled")],
    );
    // `thinking` from config passes through on auto.
    let off = model(
        "openai",
        "https://api.deepseek.com",
        "deepseek-v4-flash",
        r#"{"thinking": "disabled"}"#,
    );
    table(&off, &[("", "-/disabled"), ("high", "high/enabled")]);
}

#[test]
fn effort_table_per_backend() {
    let anthropic = model(
        "anthropic",
        "https://api.anthropic.com",
        "claude-sonnet-4-6",
        "",
    );
    table(
        &anthropic,
        &[
            ("", "-/-"),
            ("low", "low/adaptive"),
            ("medium", "medium/adaptive"),
            ("high", "high/adaptive"),
            ("xhigh", "xhigh/adaptive"),
            ("max", "max/adaptive"),
            ("disabled", "-/disabled"),
            ("minimal", "ERR"),
        ],
    );
    let gateway = model("anthropic", "https://gw.example.com", "claude", "");
    table(
        &gateway,
        &[
            ("", "-/-"),
            ("enabled", "-/enabled"),
            ("disabled", "-/disabled"),
            ("high", "-/enabled"),
            ("bogus", "ERR"),
        ],
    );
    let glm = model(
        "openai",
        "https://open.bigmodel.cn/api/paas/v4",
        "glm-5.2",
        "",
    );
    table(
        &glm,
        &[
            ("", "-/-"),
            ("enabled", "-/enabled"),
            ("disabled", "-/disabled"),
            ("max", "-/enabled"),
            ("adaptive", "-/enabled"),
            ("ultra", "ERR"),
        ],
    );
    let minimax = model("openai", "https://api.minimax.io/v1", "MiniMax-M3", "");
    table(
        &minimax,
        &[
            ("", "-/-"),
            ("adaptive", "-/adaptive"),
            ("enabled", "-/adaptive"),
            ("disabled", "-/disabled"),
            ("high", "-/adaptive"),
            ("ultra", "ERR"),
        ],
    );
    let kimi = model("openai", "https://api.moonshot.cn/v1", "kimi-k3", "");
    table(
        &kimi,
        &[
            ("", "max/-"),
            ("auto", "max/-"),
            ("low", "low/-"),
            ("medium", "high/-"),
            ("high", "high/-"),
            ("xhigh", "max/-"),
            ("max", "max/-"),
            ("disabled", "ERR"),
        ],
    );
    let ollama = model("openai", "http://localhost:11434/v1", "qwen3", "");
    table(
        &ollama,
        &[
            ("", "-/-"),
            ("none", "-/-"),
            ("low", "low/-"),
            ("medium", "medium/-"),
            ("max", "max/-"),
            ("xhigh", "max/-"),
            ("minimal", "ERR"),
        ],
    );
    let openai = model("openai", "https://api.openai.com/v1", "gpt-5.5", "");
    table(
        &openai,
        &[
            ("", "-/-"),
            ("minimal", "minimal/-"),
            ("xhigh", "xhigh/-"),
            ("max", "xhigh/-"),
            ("off", "none/-"),
            ("ultra", "ERR"),
        ],
    );
    let generic = model("openai", "https://gw.example.com/v1", "m", "");
    table(
        &generic,
        &[
            ("", "-/-"),
            ("low", "low/-"),
            ("medium", "medium/-"),
            ("high", "high/-"),
            ("max", "high/-"),
            ("xhigh", "high/-"),
            ("disabled", "ERR"),
            ("minimal", "ERR"),
        ],
    );
    let responses = model("responses", "https://gw.example.com/v1", "m", "");
    table(
        &responses,
        &[
            ("", "-/-"),
            ("disabled", "none/-"),
            ("off", "none/-"),
            ("minimal", "minimal/-"),
            ("max", "max/-"),
            ("ultra", "ERR"),
        ],
    );
    let none = model(
        "openai",
        "https://api.deepseek.com",
        "m",
        r#"{"reasoning_protocol": "none"}"#,
    );
    table(&none, &[("", "-/-"), ("auto", "-/-"), ("high", "ERR")]);
}

#[test]
fn declared_efforts_replace_the_table() {
    // `max` is clamped on a generic endpoint unless declared.
    let declared = model(
        "openai",
        "https://gw.example.com/v1",
        "m",
        r#"{"supported_efforts": ["low", "high", "max", "auto"], "default_effort": "high"}"#,
    );
    table(
        &declared,
        &[
            ("", "high/-"),
            ("auto", "high/-"),
            ("max", "max/-"),
            ("low", "low/-"),
            ("medium", "ERR"),
        ],
    );
    let first = model(
        "openai",
        "https://gw.example.com/v1",
        "m",
        r#"{"supported_efforts": ["medium", "high"]}"#,
    );
    table(&first, &[("", "medium/-")]);
    // A default that is not declared is ignored: the first declared level.
    let stray = model(
        "openai",
        "https://gw.example.com/v1",
        "m",
        r#"{"supported_efforts": ["Medium", "high"], "default_effort": "max"}"#,
    );
    table(&stray, &[("", "medium/-"), ("HIGH", "high/-")]);
    // LongCat-style thinking levels.
    let thinking = model(
        "openai",
        "https://api.longcat.chat/openai/v1",
        "LongCat-2.0",
        r#"{"supported_efforts": ["enabled", "disabled"], "default_effort": "enabled"}"#,
    );
    table(
        &thinking,
        &[
            ("", "-/enabled"),
            ("disabled", "-/disabled"),
            ("high", "ERR"),
        ],
    );
    let msg = first.map(Some("max")).unwrap_err();
    assert!(msg.contains("auto, medium, high"), "{msg}");
    // A model declared as DeepSeek behind a gateway (OpenCode-Go style): its declared levels
    // with DeepSeek's thinking.
    let ds = model(
        "openai",
        "https://opencode.ai/zen/go/v1",
        "deepseek-v4-pro",
        r#"{"reasoning_protocol": "deepseek", "supported_efforts": ["disabled", "high", "max"], "default_effort": "high"}"#,
    );
    table(
        &ds,
        &[
            ("", "high/enabled"),
            ("disabled", "-/disabled"),
            ("low", "ERR"),
        ],
    );
    let glm = model("openai", "https://opencode.ai/zen/go/v1", "glm-5.2", "");
    table(&glm, &[("max", "high/-")]);
    // Declared off words on a Responses kind are the `none` effort.
    let responses = model(
        "responses",
        "https://gw.example.com/v1",
        "m",
        r#"{"supported_efforts": ["none", "high"]}"#,
    );
    table(&responses, &[("none", "none/-"), ("", "none/-")]);
}

#[test]
fn error_lists_valid_levels_for_the_backend() {
    let kimi = model("openai", "https://api.moonshot.cn/v1", "kimi-k3", "");
    let msg = kimi.map(Some("disabled")).unwrap_err();
    assert!(
        msg.contains("`disabled`")
            && msg.contains("auto, low, high, max")
            && msg.contains("kimi-k3"),
        "{msg}"
    );
    // Through `profile`: invalid-input naming the provider and the model.
    match profile(&kimi.request(Some("disabled"))) {
        Err(Error::InvalidInput(message)) => assert!(
            message.starts_with("provider `p` (model kimi-k3): effort `disabled`")
                && message.contains("auto, low, high, max"),
            "{message}"
        ),
        other => panic!("expected invalid-input, got {other:?}"),
    }
    let none = model(
        "openai",
        "https://gw.example.com",
        "m",
        r#"{"reasoning_protocol": "none"}"#,
    );
    let msg = none.map(Some("high")).unwrap_err();
    assert!(
        msg.contains("\"none\"") && msg.contains("use auto"),
        "{msg}"
    );
    let responses = model("responses", "https://gw.example.com", "m", "");
    let msg = responses.map(Some("ultra")).unwrap_err();
    assert!(msg.contains("responses kind"), "{msg}");
}

#[test]
fn profile_reports_protocol_levels_and_stall() {
    let cases: &[(Model, &str, &[&str], u32)] = &[
        (
            model(
                "openai",
                "https://api.deepseek.com",
                "deepseek-v4-flash",
                "",
            ),
            "deepseek",
            &["auto", "disabled", "low", "high", "max"],
            300_000,
        ),
        (
            model("openai", "https://api.deepseek.com", "deepseek-v4-pro", ""),
            "deepseek",
            &["auto", "disabled", "high", "max"],
            300_000,
        ),
        (
            model(
                "anthropic",
                "https://api.anthropic.com",
                "claude-sonnet-4-6",
                "",
            ),
            "anthropic",
            &["auto", "low", "medium", "high", "xhigh", "max", "disabled"],
            120_000,
        ),
        (
            model("openai", "https://api.moonshot.cn/v1", "kimi-k3", ""),
            "kimi-k3",
            &["auto", "low", "high", "max"],
            300_000,
        ),
        (
            model("openai", "https://api.moonshot.cn/v1", "kimi-k2.6", ""),
            "generic",
            &["auto", "low", "medium", "high"],
            300_000,
        ),
        (
            model("responses", "https://api.openai.com/v1", "gpt-5.5", ""),
            "openai",
            &[
                "auto", "none", "minimal", "low", "medium", "high", "xhigh", "max",
            ],
            120_000,
        ),
        (
            model(
                "openai",
                "https://gw.example.com",
                "m",
                r#"{"supported_efforts": ["low", "max"]}"#,
            ),
            "generic",
            &["auto", "low", "max"],
            300_000,
        ),
        (
            model(
                "openai",
                "https://gw.example.com",
                "m",
                r#"{"reasoning_protocol": "none", "supported_efforts": ["low"]}"#,
            ),
            "none",
            &["auto"],
            300_000,
        ),
    ];
    for (m, protocol, levels, stall) in cases {
        let got = profile(&m.request(None)).unwrap();
        assert_eq!(got.reasoning_protocol, *protocol, "{} {}", m.url, m.model);
        assert_eq!(got.effort_levels, *levels, "{} {}", m.url, m.model);
        assert_eq!(got.stall_timeout_ms, *stall, "{} {}", m.url, m.model);
        // Every level offered is accepted.
        for level in got.effort_levels {
            assert!(
                m.map(Some(&level)).is_ok(),
                "{} {}: offered level {level} is refused",
                m.url,
                m.model
            );
        }
    }
}

#[test]
fn profile_refuses_bad_options_and_unknown_kinds() {
    for (options, key) in [
        (r#"{"thinking": "maybe"}"#, "thinking"),
        (r#"{"reasoning_protocol": "magic"}"#, "reasoning_protocol"),
        (r#"{"supported_efforts": "low"}"#, "supported_efforts"),
        (r#"{"supported_efforts": [1]}"#, "supported_efforts"),
        ("[1]", "options must be a JSON object"),
    ] {
        let m = model("openai", "https://gw.example.com", "m", options);
        match profile(&m.request(None)) {
            Err(Error::InvalidInput(message)) => assert!(
                message.starts_with("provider `p` (model m): ") && message.contains(key),
                "{options}: {message}"
            ),
            other => panic!("{options}: expected invalid-input, got {other:?}"),
        }
    }
    let m = model("gemini", "https://g.example", "g1", "");
    assert!(
        matches!(profile(&m.request(None)), Err(Error::Unsupported(message)) if message.contains("`gemini`")),
    );
}

#[test]
fn thinking_and_temperature_reach_the_wire_as_the_backend_needs() {
    // What `open` builds: the protocol resolved, thinking mapped, temperature dropped where the
    // backend refuses it.
    let wire = |kind: &str, url: &str, model: &str, effort: Option<&str>, options: &str| {
        let request = reasonix_sdk::CompletionRequest {
            kind: kind.into(),
            provider: "p".into(),
            base_url: url.into(),
            model: model.into(),
            messages: vec![],
            tools: vec![],
            effort: effort.map(str::to_string),
            max_output_tokens: None,
            options: options.into(),
        };
        crate::convert_request(request).unwrap()
    };
    let r = wire(
        "openai",
        "https://api.deepseek.com/",
        "deepseek-v4-pro",
        Some("xhigh"),
        r#"{"temperature": 0.25}"#,
    );
    assert_eq!(r.options.reasoning_protocol, ReasoningProtocol::Deepseek);
    assert_eq!(r.effort.as_deref(), Some("max"));
    assert_eq!(r.options.thinking.as_deref(), Some("enabled"));
    assert_eq!(r.options.temperature, Some(0.25));
    assert_eq!(r.base_url, "https://api.deepseek.com");
    let r = wire(
        "openai",
        "https://api.deepseek.com",
        "deepseek-v4-flash",
        Some("disabled"),
        r#"{"temperature": 0}"#,
    );
    assert_eq!(
        (r.effort, r.options.thinking.as_deref()),
        (None, Some("disabled"))
    );
    assert_eq!(r.options.temperature, Some(0.0));
    for (kind, url, model) in [
        ("openai", "https://api.moonshot.cn/v1", "kimi-k3"),
        (
            "anthropic",
            "https://api.anthropic.com",
            "claude-sonnet-4-6",
        ),
    ] {
        let r = wire(kind, url, model, None, r#"{"temperature": 0.2}"#);
        assert_eq!(r.options.temperature, None, "{url}");
    }
    let r = wire(
        "openai",
        "https://api.moonshot.cn/v1",
        "kimi-k3",
        None,
        "{}",
    );
    assert_eq!(r.effort.as_deref(), Some("max"));
    // A bad effort is refused by `open` as by `profile`.
    let request = reasonix_sdk::CompletionRequest {
        kind: "openai".into(),
        provider: "p".into(),
        base_url: "https://api.moonshot.cn/v1".into(),
        model: "kimi-k3".into(),
        messages: vec![],
        tools: vec![],
        effort: Some("disabled".into()),
        max_output_tokens: None,
        options: "{}".into(),
    };
    assert!(matches!(
        crate::convert_request(request),
        Err(Error::InvalidInput(message)) if message.contains("auto, low, high, max")
    ));
}

proptest! {
    #[test]
    fn arbitrary_profiles_never_panic(
        kind in "(openai|anthropic|responses|[a-z]{0,6})", url in "\\PC{0,30}",
        model_name in "\\PC{0,12}", effort in proptest::option::of("\\PC{0,8}"),
        proto in proptest::option::of("(deepseek|glm|kimi-k3|none|auto|[a-z-]{0,8})"),
        supported in proptest::collection::vec("[a-z]{0,6}", 0..3),
    ) {
        let options = serde_json::json!({
            "reasoning_protocol": proto,
            "supported_efforts": supported,
        })
        .to_string();
        let request = ProfileRequest {
            kind, provider: "p".into(), base_url: url, model: model_name, effort, options,
        };
        if let Ok(p) = profile(&request) {
            prop_assert_eq!(p.effort_levels.first().map(String::as_str), Some("auto"));
            prop_assert!(p.stall_timeout_ms > 0);
        }
    }
}

#[test]
fn models_that_read_images_are_known_by_name() {
    for model in [
        "claude-sonnet-4-5",
        "claude-3-haiku-20240307",
        "anthropic/claude-opus-4",
        "gpt-4o-mini",
        "gpt-4.1",
        "gpt-5",
        "o3",
        "o4-mini",
        "gemini-2.5-pro",
        "qwen2.5-vl-72b-instruct",
        "Qwen3-VL-235B",
        "glm-4.5v",
        "moonshot-v1-8k-vision-preview",
    ] {
        assert!(reads_images(model), "{model}");
    }
    for model in [
        "deepseek-chat",
        "deepseek-reasoner",
        "gpt-3.5-turbo",
        "gpt-4",
        "o1-mini",
        "o3-mini",
        "claude-2.1",
        "claude-instant-1.2",
        "glm-4.6",
        "kimi-k2-0905-preview",
        "qwen3-coder-plus",
        "",
    ] {
        assert!(!reads_images(model), "{model}");
    }
}

#[test]
fn the_profile_says_whether_the_model_reads_images_and_vision_detail_is_checked() {
    let ask = |model: &str, options: &str| {
        profile(&ProfileRequest {
            kind: "openai".into(),
            provider: "p".into(),
            base_url: "https://api.example.com/v1".into(),
            model: model.into(),
            effort: None,
            options: options.into(),
        })
    };
    assert!(ask("gpt-4o", "{}").unwrap().images);
    assert!(!ask("deepseek-chat", "{}").unwrap().images);
    assert!(ask("gpt-4o", r#"{"vision_detail":"LOW"}"#).is_ok());
    match ask("gpt-4o", r#"{"vision_detail":"ultra"}"#) {
        Err(Error::InvalidInput(message)) => {
            assert!(message.contains("vision_detail = \"ultra\""), "{message}");
            assert!(message.contains("auto, low, high"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}
