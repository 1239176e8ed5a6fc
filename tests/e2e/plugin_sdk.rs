//! The plugin SDK and scaffolding end to end (#6): `reasonix plugin new` creates a crate outside
//! the repository, plain `cargo build --release --target wasm32-wasip2` builds it unchanged,
//! `reasonix plugin install --yes` installs it, and the real binary then serves the tool (with
//! the schema derived from the Rust type), uses the provider kind in `reasonix run`, and loads
//! the interceptor. `reasonix plugin wit` writes the contract byte for byte.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use support::{Env, repo_root, shared_artifact_cache, stderr, stdout};

/// The three scaffolded and built components.
struct Built {
    /// Keeps the scaffolded sources (outside the repository) alive for the test process.
    _sources: tempfile::TempDir,
    tool: PathBuf,
    provider: PathBuf,
    interceptor: PathBuf,
}

fn reasonix(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reasonix"))
        .args(args)
        .current_dir(cwd)
        .env_remove("REASONIX_LOG")
        .output()
        .unwrap()
}

/// `cargo build --release --target wasm32-wasip2` in `crate_dir`, as a plugin author would run
/// it: no CARGO_*/RUSTFLAGS inherited from the test's own cargo. The target directory lives
/// under the repository's, so reruns are incremental and the three crates share dependencies.
fn cargo_build(crate_dir: &Path) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(crate_dir)
        .args(["build", "--release", "--target", "wasm32-wasip2"]);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if (key.starts_with("CARGO_") && key != "CARGO_HOME" && key != "CARGO_NET_OFFLINE")
            || key.starts_with("RUSTC")
            || key == "RUSTFLAGS"
        {
            command.env_remove(key);
        }
    }
    command.env("CARGO_TARGET_DIR", target_dir());
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "building the scaffolded crate {} failed:\n{}",
        crate_dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
        .join("plugin-sdk-e2e")
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let sources = tempfile::tempdir().unwrap();
        assert!(!sources.path().starts_with(repo_root()));
        let mut paths = Vec::new();
        for (name, kind) in [
            ("word-counter", "tool"),
            ("echo-model", "provider"),
            ("rm-guard", "interceptor"),
        ] {
            let out = reasonix(&["plugin", "new", name, "--kind", kind], sources.path());
            assert!(out.status.success(), "plugin new {name}: {}", stderr(&out));
            assert!(stdout(&out).contains("cargo build --release --target wasm32-wasip2"));
            let dir = sources.path().join(name);
            cargo_build(&dir);
            let wasm = target_dir()
                .join("wasm32-wasip2/release")
                .join(format!("{}.wasm", name.replace('-', "_")));
            assert!(wasm.is_file(), "{} missing", wasm.display());
            paths.push(wasm);
        }
        let interceptor = paths.pop().unwrap();
        let provider = paths.pop().unwrap();
        let tool = paths.pop().unwrap();
        Built {
            _sources: sources,
            tool,
            provider,
            interceptor,
        }
    })
}

fn install(env: &Env, wasm: &Path) {
    let out = env.reasonix(&["plugin", "install", "--yes", wasm.to_str().unwrap()]);
    assert!(out.status.success(), "install: {}", stderr(&out));
}

fn run_command(env: &Env, args: &[&str]) -> Output {
    let ws = env.workspace();
    let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
    all.extend_from_slice(args);
    Command::new(env!("CARGO_BIN_EXE_reasonix"))
        .args(&all)
        .current_dir(env.project())
        .env("REASONIX_HOME", env.home())
        .env("REASONIX_CACHE_HOME", shared_artifact_cache())
        .env_remove("REASONIX_STATE_HOME")
        .env_remove("REASONIX_LOG")
        .env_remove("MOCK_LLM_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn scaffolded_tool_plugin_serves_its_typed_tool() {
    let env = Env::new();
    install(&env, &built().tool);

    let out = env.call("word_count", r#"{"text": "one two  three\nfour"}"#);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "4");

    // The schema the model sees is the one derived from `Args`.
    let out = env.reasonix(&["tools", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tools: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let tool = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "word_count")
        .expect("word_count listed");
    assert_eq!(tool["plugin"], "word-counter");
    assert_eq!(tool["read_only"], true);
    assert_eq!(tool["parameters"]["type"], "object");
    assert_eq!(tool["parameters"]["required"], serde_json::json!(["text"]));
    assert_eq!(tool["parameters"]["properties"]["text"]["type"], "string");
    assert_eq!(
        tool["parameters"]["properties"]["text"]["description"],
        "The text whose words to count."
    );
    assert_eq!(tool["parameters"]["additionalProperties"], false);
    assert_eq!(
        tool["guidance"],
        "Count words with `word_count` rather than by hand."
    );

    // `export!` exports every role; only the one with something listed is served.
    let out = env.reasonix(&["plugin", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let plugin = list["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "word-counter")
        .expect("word-counter listed");
    assert_eq!(plugin["kinds"], serde_json::json!(["tool"]), "{plugin}");
    assert_eq!(
        plugin["interception_points"],
        serde_json::json!([]),
        "{plugin}"
    );
}

#[test]
fn scaffolded_tool_rejects_bad_arguments_naming_the_field() {
    let env = Env::new();
    install(&env, &built().tool);

    let out = env.call("word_count", r#"{"text": 5}"#);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("invalid input"), "{err}");
    assert!(err.contains("field `text`"), "{err}");

    let out = env.call("word_count", "{}");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("missing field `text`"), "{err}");
}

#[test]
fn the_model_calls_the_scaffolded_tool_in_a_run() {
    let env = Env::new();
    install(&env, &built().tool);
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider(
        "openai",
        &mock.base_url(),
        "sk-test",
        "stall_timeout_seconds = 5",
    ));
    mock.enqueue(Reply::tool_calls(
        &[(
            "call_1",
            "word_count",
            r#"{"text":"the quick brown fox jumps"}"#,
        )],
        2,
    ));
    mock.enqueue(Reply::text(&["Five words."]));

    let out = run_command(&env, &["--yolo", "count the words"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Five words."), "{}", stdout(&out));

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0].json();
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(offered.contains(&"word_count"), "{offered:?}");
    let second = requests[1].json();
    let tool_message = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("the tool result is sent back");
    assert_eq!(tool_message["tool_call_id"], "call_1");
    assert_eq!(tool_message["content"], "5");
}

#[test]
fn scaffolded_provider_kind_answers_a_run() {
    let env = Env::new();
    install(&env, &built().provider);
    env.project_config(
        r#"default_model = "echo"
[[providers]]
name = "echo"
kind = "echo_model"
base_url = "http://127.0.0.1:9"
model = "echo-1"
"#,
    );

    let out = env.reasonix(&["providers", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("echo-model"), "{}", stdout(&out));

    let out = run_command(&env, &["--yolo", "hello from the test"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "echo: hello from the test");
}

#[test]
fn scaffolded_interceptor_loads_with_its_points() {
    let env = Env::new();
    install(&env, &built().interceptor);
    let out = env.reasonix(&["plugin", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let entry = text
        .split("\n\n")
        .find(|block| block.contains("rm-guard"))
        .unwrap_or(&text);
    assert!(entry.contains("roles: interceptor\n"), "{text}");
    assert!(entry.contains("tool.before (priority 0)"), "{text}");
}

#[test]
fn plugin_new_refuses_a_bad_name_and_a_non_empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = reasonix(&["plugin", "new", "Bad Name"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`Bad Name` is invalid"),
        "{}",
        stderr(&out)
    );

    std::fs::create_dir(dir.path().join("taken")).unwrap();
    std::fs::write(dir.path().join("taken/keep.txt"), "mine").unwrap();
    let out = reasonix(&["plugin", "new", "ok-name", "--dir", "taken"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not empty"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("taken/keep.txt")).unwrap(),
        "mine"
    );

    let out = reasonix(
        &["plugin", "new", "ok-name", "--sdk-path", "/nonexistent/sdk"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--sdk-path"), "{}", stderr(&out));
    assert!(!dir.path().join("ok-name").exists());
}

#[test]
fn plugin_wit_writes_the_contract_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("contract");
    let out = reasonix(
        &["plugin", "wit", "--out", out_dir.to_str().unwrap()],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let wit = repo_root().join("wit/0.2.0");
    let mut expected: Vec<String> = std::fs::read_dir(&wit)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    expected.sort();
    let mut written: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(
        written, expected,
        "every file of wit/0.2.0 and nothing else"
    );
    for name in &expected {
        assert_eq!(
            std::fs::read(out_dir.join(name)).unwrap(),
            std::fs::read(wit.join(name)).unwrap(),
            "{name} differs"
        );
        assert!(stdout(&out).contains(name.as_str()));
    }

    // Default: ./wit.
    let out = reasonix(&["plugin", "wit"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("wit/worlds.wit").is_file());
}
