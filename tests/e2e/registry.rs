//! The kernel in one process: hostile plugins are stopped and the same registry keeps serving;
//! provider streams and interceptors work through their adapters; clashes, hashes and the
//! compiled-artifact cache behave.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use crate::BUILTINS;

use reasonix_config::{Config, Paths};
use reasonix_core::CallError;
use reasonix_core::capability::Capabilities;
use reasonix_core::types::{CompletionRequest, Decision, Message, Role, StreamEvent, ToolContext};
use reasonix_host::cache::Provenance;
use reasonix_host::index::{IndexEntry, PluginIndex};
use reasonix_host::{BuiltinComponent, LoadError, Precompiled, Registry};
use support::Env;

fn paths(env: &Env) -> Paths {
    Paths {
        home: env.home(),
        cache: env.home().join("cache"),
        state: env.home(),
    }
}

fn load(env: &Env, config_text: &str) -> Registry {
    let config = Config::parse(&env.project().join("reasonix.toml"), config_text).unwrap();
    Registry::load(BUILTINS, &paths(env), &config.registry_settings(), None).unwrap()
}

fn ctx(env: &Env) -> ToolContext {
    ToolContext {
        call_id: "t-1".into(),
        workspace: env.workspace(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    }
}

#[test]
fn hostile_plugin_is_stopped_and_the_process_keeps_serving() {
    let env = Env::new();
    env.install_fixture("hostile");
    std::fs::write(env.workspace().join("a.txt"), "still here\n").unwrap();
    let registry = load(
        &env,
        // The deadline leaves `hog` time to reach the memory limit on a loaded machine.
        "[plugin.hostile]\ncall_timeout_ms = 2000\nmemory_mib = 48\n",
    );
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());
    let call = |name: &str| registry.tool(name).unwrap().invoke("{}", &ctx(&env));
    let still_serving = || {
        assert_eq!(call("echo").unwrap(), "{}");
        let read = registry
            .tool("read_file")
            .unwrap()
            .invoke(r#"{"path":"a.txt"}"#, &ctx(&env))
            .unwrap();
        assert!(read.contains("still here"));
    };

    let started = std::time::Instant::now();
    match call("spin") {
        Err(CallError::Deadline { plugin, timeout_ms }) => {
            assert_eq!((plugin.as_str(), timeout_ms), ("hostile", 2000));
        }
        other => panic!("spin: {other:?}"),
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the loop was stopped"
    );
    still_serving();

    match call("hog") {
        Err(CallError::Memory { plugin, limit_mib }) => {
            assert_eq!((plugin.as_str(), limit_mib), ("hostile", 48));
        }
        other => panic!("hog: {other:?}"),
    }
    still_serving();

    match call("boom") {
        Err(CallError::Crashed { plugin, message }) => {
            assert_eq!(plugin, "hostile");
            assert!(message.contains("panicked on purpose"), "{message}");
        }
        other => panic!("boom: {other:?}"),
    }
    still_serving();
}

fn endpoint(origins: &[&str]) -> reasonix_host::host::http::Endpoint {
    reasonix_host::host::http::Endpoint {
        provider: "local".into(),
        origins: origins
            .iter()
            .map(|o| {
                let (scheme, authority) = o.split_once("://").unwrap();
                reasonix_host::host::http::Origin::new(scheme, authority).unwrap()
            })
            .collect(),
        credential: None,
        stall: std::time::Duration::from_secs(30),
        cancel: reasonix_core::cancel::CancelToken::new(),
    }
}

#[test]
fn provider_stream_and_interceptor_adapters() {
    let env = Env::new();
    env.install_fixture("roles");
    let registry = load(&env, "");
    let provider = registry.provider("echo").expect("echo kind served");
    assert_eq!(provider.source(), "roles");
    // The profile travels through the host adapter both ways; a refusal keeps its case and
    // the component's message.
    let mut asked = reasonix_core::types::ProfileRequest {
        kind: "echo".into(),
        provider: "local".into(),
        base_url: "http://127.0.0.1:1".into(),
        model: "m".into(),
        effort: Some("loud".into()),
        options: "{}".into(),
    };
    let profile = provider.profile(&asked).unwrap();
    assert_eq!(profile.reasoning_protocol, "echo");
    assert_eq!(profile.effort_levels, ["auto", "loud"]);
    assert_eq!(profile.stall_timeout_ms, 7_000);
    asked.effort = Some("quiet".into());
    match provider.profile(&asked) {
        Err(reasonix_core::error::CallError::Plugin(
            reasonix_core::error::PluginError::InvalidInput(message),
        )) => assert!(
            message.contains("provider `local` (model m): effort `quiet`"),
            "{message}"
        ),
        other => panic!("expected invalid-input, got {other:?}"),
    }
    let request = CompletionRequest {
        kind: "echo".into(),
        provider: "local".into(),
        base_url: "http://127.0.0.1:1".into(),
        model: "m".into(),
        messages: vec![Message {
            role: Role::User,
            content: "hello streaming world".into(),
            reasoning: None,
            reasoning_state: None,
            tool_calls: vec![],
            tool_call_id: None,
            raw_content: None,
            images: Vec::new(),
        }],
        tools: registry.tools().map(|t| t.spec().clone()).collect(),
        effort: None,
        max_output_tokens: None,
        options: "{}".into(),
    };
    // The fixture asks for no network, so an endpoint with an origin is refused before it runs.
    let denied = provider
        .open(&request, endpoint(&["http://127.0.0.1:1"]))
        .err()
        .expect("an origin the plugin was not granted");
    assert!(
        denied
            .to_string()
            .contains("plugin `roles` was not granted network access to http://127.0.0.1:1"),
        "{denied}"
    );
    let mut stream = provider.open(&request, endpoint(&[])).unwrap();
    let mut batches = Vec::new();
    loop {
        let batch = stream.next().unwrap();
        if batch.is_empty() {
            break;
        }
        batches.push(batch);
    }
    assert!(
        batches.len() >= 4,
        "text arrives in several batches: {batches:?}"
    );
    let text: String = batches
        .iter()
        .flatten()
        .filter_map(|e| match e {
            StreamEvent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "hello streaming world");
    assert!(
        batches
            .iter()
            .flatten()
            .any(|e| matches!(e, StreamEvent::Usage(u) if u.cache_hit_tokens == 6))
    );
    drop(stream);

    let bad = CompletionRequest {
        messages: vec![],
        ..request
    };
    assert!(matches!(
        provider.open(&bad, endpoint(&[])),
        Err(CallError::Plugin(reasonix_core::PluginError::InvalidInput(
            _
        )))
    ));

    // By name: built-in interceptor components (e.g. `hooks`) load beside the fixture.
    let interceptor = registry
        .interceptors()
        .iter()
        .find(|i| i.source() == "roles")
        .expect("the fixture's interceptor");
    assert_eq!(
        interceptor.points(),
        [reasonix_core::types::Subscription {
            point: "tool.before".into(),
            priority: -10,
        }]
    );
    // It exports the tool interface too, listing no tools: that role is not served.
    let roles = &registry
        .plugins()
        .iter()
        .find(|p| p.name() == "roles")
        .expect("roles loaded")
        .described
        .roles;
    assert!(roles.tool.is_none() && roles.provider.is_some() && roles.interceptor.is_some());
    assert_eq!(
        interceptor.intercept("tool.before", r#"{"a":1}"#).unwrap(),
        Decision::Proceed
    );
    assert_eq!(
        interceptor
            .intercept("tool.before", r#"{"a":"secret"}"#)
            .unwrap(),
        Decision::Block("mentions a secret".into())
    );
    assert_eq!(
        interceptor
            .intercept("tool.before", r#"{"a":"draft"}"#)
            .unwrap(),
        Decision::Replace(r#"{"a":"final"}"#.into())
    );
}

#[test]
fn one_component_serves_a_tool_and_an_interceptor_through_one_export() {
    let env = Env::new();
    env.install_fixture("gatekeeper");
    let registry = load(
        &env,
        "[plugin.gatekeeper.config]\nblock_path = \"secrets/\"\nreplace_tool = \"read_file\"\nreplacement = \"(redacted)\"\n",
    );
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());

    let stamp = registry.tool("stamp").expect("the tool role is served");
    assert_eq!(stamp.source(), "gatekeeper");
    assert!(stamp.spec().read_only);
    assert_eq!(
        stamp.spec().guidance.as_deref(),
        Some("Stamp texts with `stamp` when asked to.")
    );
    let schema: serde_json::Value = serde_json::from_str(&stamp.spec().parameters).unwrap();
    assert_eq!(schema["required"], serde_json::json!(["text"]));
    assert_eq!(
        stamp.invoke(r#"{"text":"x"}"#, &ctx(&env)).unwrap(),
        "stamped: x"
    );
    match stamp.invoke(r#"{"text":1}"#, &ctx(&env)) {
        Err(CallError::Plugin(reasonix_core::PluginError::InvalidInput(m))) => {
            assert!(m.contains("field `text`"), "{m}")
        }
        other => panic!("a bad argument: {other:?}"),
    }

    let interceptor = registry
        .interceptors()
        .iter()
        .find(|i| i.source() == "gatekeeper")
        .expect("the interceptor role is served");
    let sub = |point: &str, priority| reasonix_core::types::Subscription {
        point: point.into(),
        priority,
    };
    assert_eq!(
        interceptor.points(),
        [sub("tool.before", -100), sub("tool.after", 0)]
    );
    let before = |arguments: &str| {
        serde_json::json!({"name": "read_file", "arguments": arguments, "callId": "c1"}).to_string()
    };
    assert_eq!(
        interceptor
            .intercept("tool.before", &before(r#"{"path":"secrets/key.pem"}"#))
            .unwrap(),
        Decision::Block("gatekeeper: secrets/ is off limits".into())
    );
    assert_eq!(
        interceptor
            .intercept("tool.before", &before(r#"{"path":"src/main.rs"}"#))
            .unwrap(),
        Decision::Proceed
    );
    let after = |name: &str| {
        serde_json::json!({"name": name, "arguments": "{}", "result": "the text", "isError": false, "callId": "c2"})
            .to_string()
    };
    match interceptor
        .intercept("tool.after", &after("read_file"))
        .unwrap()
    {
        Decision::Replace(payload) => {
            let payload: serde_json::Value = serde_json::from_str(&payload).unwrap();
            assert_eq!(
                payload,
                serde_json::json!({"name": "read_file", "arguments": "{}", "result": "(redacted)", "isError": false, "callId": "c2"})
            );
        }
        other => panic!("tool.after of read_file: {other:?}"),
    }
    assert_eq!(
        interceptor.intercept("tool.after", &after("ls")).unwrap(),
        Decision::Proceed
    );

    // It exports the provider interface too, with no kinds: that role is not served.
    let plugin = registry
        .plugins()
        .iter()
        .find(|p| p.name() == "gatekeeper")
        .unwrap();
    let roles = &plugin.described.roles;
    assert!(roles.tool.is_some() && roles.interceptor.is_some() && roles.provider.is_none());
    assert!(plugin.described.provider_kinds.is_empty());
    assert!(registry.providers().all(|p| p.source() != "gatekeeper"));
}

#[test]
fn without_config_the_gatekeeper_lets_everything_through() {
    let env = Env::new();
    env.install_fixture("gatekeeper");
    let registry = load(&env, "");
    let interceptor = registry
        .interceptors()
        .iter()
        .find(|i| i.source() == "gatekeeper")
        .unwrap();
    let payload = r#"{"name":"read_file","arguments":"{\"path\":\"secrets/k\"}","callId":"c"}"#;
    assert_eq!(
        interceptor.intercept("tool.before", payload).unwrap(),
        Decision::Proceed
    );
    match interceptor.intercept("tool.before", "not json") {
        Err(CallError::Plugin(reasonix_core::PluginError::InvalidInput(m))) => {
            assert!(m.contains("payload"), "{m}")
        }
        other => panic!("a malformed payload: {other:?}"),
    }
}

#[test]
fn tool_clash_names_both_plugins_and_keeps_the_first() {
    let env = Env::new();
    let hostile = std::fs::read(support::fixture("hostile")).unwrap();
    env.install_raw("a-hostile.wasm", &hostile);
    env.install_raw("b-hostile.wasm", &hostile);
    let registry = load(&env, "");
    let clash = registry
        .problems()
        .iter()
        .find(|p| matches!(p, LoadError::Clash { .. }))
        .expect("clash reported")
        .to_string();
    assert!(
        clash.contains("a-hostile.wasm") && clash.contains("b-hostile.wasm"),
        "{clash}"
    );
    assert_eq!(registry.tool("echo").unwrap().source(), "hostile");
}

#[test]
fn index_grants_apply_and_hash_mismatch_refuses() {
    let env = Env::new();
    let path = env.install_fixture("hostile");
    std::fs::write(env.workspace().join("data.txt"), "indexed read").unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let entry = IndexEntry {
        file: "hostile.wasm".into(),
        name: "hostile".into(),
        version: "0.1.0".into(),
        source: path.display().to_string(),
        sha256: reasonix_host::cache::sha256_hex(&bytes),
        granted: Capabilities {
            workspace: reasonix_core::capability::WorkspaceAccess::Read,
            ..Default::default()
        },
        granted_limits: Default::default(),
        enabled: true,
    };
    let mut index = PluginIndex::default();
    index.upsert(entry.clone());
    index.save(&env.plugins_dir()).unwrap();

    // Hostile requests no workspace access, so even a recorded grant gives it none.
    let registry = load(&env, "");
    let plugin = registry
        .plugins()
        .iter()
        .find(|p| p.name() == "hostile")
        .unwrap();
    assert_eq!(plugin.granted, Capabilities::default());

    let mut tampered = bytes.clone();
    tampered.extend_from_slice(b"\0");
    std::fs::write(&path, tampered).unwrap();
    let registry = load(&env, "");
    assert!(registry.plugins().iter().all(|p| p.name() != "hostile"));
    let message = registry.problems()[0].to_string();
    assert!(message.contains("does not match the index"), "{message}");
    assert!(registry.tool("read_file").is_some(), "built-ins still load");
}

#[test]
fn a_fresh_cache_compiles_no_built_in_and_a_damaged_artifact_is_replaced() {
    let env = Env::new();
    assert!(
        BUILTINS.iter().all(|b| b.precompiled.is_some()),
        "a native build embeds every built-in's artifact"
    );
    // A fresh cache: the built-ins come from the artifacts the build compiled, described by
    // the build, so nothing is compiled or instantiated.
    let cold = load(&env, "");
    assert!(cold.problems().is_empty(), "{:?}", cold.problems());
    assert!(
        cold.plugins()
            .iter()
            .all(|p| p.described.provenance == Provenance::Embedded)
    );
    assert!(
        cold.plugins()
            .iter()
            .all(|p| p.described.description_cached)
    );
    // They were stored: the next start maps them from the cache.
    let warm = load(&env, "");
    assert!(
        warm.plugins()
            .iter()
            .all(|p| p.described.provenance == Provenance::Cached)
    );
    assert!(
        warm.plugins()
            .iter()
            .all(|p| p.described.description_cached)
    );
    assert_eq!(specs(&cold), specs(&warm));
    assert_eq!(infos(&cold), infos(&warm));

    // Artifacts are mapped, so damage them only once nothing maps them any more.
    drop((cold, warm));
    for entry in std::fs::read_dir(env.home().join("cache")).unwrap() {
        std::fs::write(entry.unwrap().path(), b"garbage").unwrap();
    }
    let healed = load(&env, "");
    assert!(healed.problems().is_empty(), "{:?}", healed.problems());
    assert!(
        healed
            .plugins()
            .iter()
            .all(|p| p.described.provenance == Provenance::Embedded)
    );
    assert!(healed.tool("ls").is_some());
}

fn specs(r: &Registry) -> Vec<reasonix_core::types::ToolSpec> {
    r.tools().map(|t| t.spec().clone()).collect()
}

type PluginFacts = Vec<(
    reasonix_host::component::PluginInfo,
    Vec<reasonix_core::types::ProviderKind>,
    Vec<reasonix_core::types::Subscription>,
)>;

fn infos(r: &Registry) -> PluginFacts {
    r.plugins()
        .iter()
        .map(|p| {
            (
                p.described.info.clone(),
                p.described.provider_kinds.clone(),
                p.described.interception_points.clone(),
            )
        })
        .collect()
}

fn load_builtins(env: &Env, builtins: &[BuiltinComponent]) -> Registry {
    let config = Config::parse(&env.project().join("reasonix.toml"), "").unwrap();
    let registry =
        Registry::load(builtins, &paths(env), &config.registry_settings(), None).unwrap();
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());
    registry
}

#[test]
fn built_ins_are_compiled_only_for_an_engine_the_build_did_not_compile_for() {
    // An engine tag the build did not compile for (another wasmtime configuration or CPU):
    // the embedded artifact is not touched, the component is compiled and cached.
    let foreign: Vec<BuiltinComponent> = BUILTINS
        .iter()
        .map(|b| BuiltinComponent {
            precompiled: b.precompiled.map(|p| Precompiled {
                engine_tag: "0000000000000000",
                ..p
            }),
            ..*b
        })
        .collect();
    let env = Env::new();
    let compiled = load_builtins(&env, &foreign);
    assert!(
        compiled
            .plugins()
            .iter()
            .all(|p| p.described.provenance == Provenance::Compiled)
    );
    let warm = load_builtins(&env, &foreign);
    assert!(
        warm.plugins()
            .iter()
            .all(|p| p.described.provenance == Provenance::Cached)
    );

    // What the build says about each built-in is what the component says about itself.
    let bare: Vec<BuiltinComponent> = BUILTINS
        .iter()
        .map(|b| BuiltinComponent {
            precompiled: None,
            ..*b
        })
        .collect();
    let asked = load_builtins(&Env::new(), &bare);
    assert!(
        asked
            .plugins()
            .iter()
            .all(|p| p.described.provenance == Provenance::Compiled
                && !p.described.description_cached)
    );
    let embedded = load_builtins(&Env::new(), BUILTINS);
    assert_eq!(specs(&asked), specs(&embedded));
    assert_eq!(infos(&asked), infos(&embedded));
    assert_eq!(specs(&asked), specs(&compiled));
}
