//! The `reasonix` binary: listing, calling, and refusing bad input with clear messages.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::Value;
use support::{Env, stderr, stdout};

#[test]
fn version_names_the_contract() {
    let env = Env::new();
    let out = env.reasonix(&["version"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.starts_with("reasonix "), "{text}");
    assert!(text.contains("reasonix:plugin@0.2.0"), "{text}");
}

#[test]
fn plugin_list_json_describes_builtins() {
    let env = Env::new();
    let out = env.reasonix(&["plugin", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let plugins = v["plugins"].as_array().unwrap();
    let read = plugins
        .iter()
        .find(|p| p["name"] == "fs-read")
        .expect("fs-read listed");
    assert_eq!(read["source"], "builtin");
    assert_eq!(read["kinds"], serde_json::json!(["tool"]));
    assert!(
        read["tools"]
            .as_array()
            .unwrap()
            .contains(&Value::from("read_file"))
    );
    assert_eq!(read["capabilities"]["requested"]["workspace"], "read");
    assert_eq!(read["capabilities"]["granted"]["workspace"], "read");
    assert_eq!(read["sha256"].as_str().unwrap().len(), 64);
    let write = plugins
        .iter()
        .find(|p| p["name"] == "fs-write")
        .expect("fs-write listed");
    assert_eq!(write["capabilities"]["granted"]["workspace"], "read-write");
    assert!(v["problems"].as_array().unwrap().is_empty());
}

#[test]
fn tools_list_json_has_canonical_schemas() {
    let env = Env::new();
    let out = env.reasonix(&["tools", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tools: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let find = |n: &str| tools.iter().find(|t| t["name"] == n).cloned().unwrap();
    assert_eq!(find("read_file")["read_only"], true);
    assert_eq!(find("ls")["read_only"], true);
    assert_eq!(find("write_file")["read_only"], false);
    assert_eq!(
        find("read_file")["parameters"]["required"],
        serde_json::json!(["path"])
    );
    // The text form prints the canonical schema: sorted keys, no whitespace.
    let text = stdout(&env.reasonix(&["tools", "list"]));
    let line = text.lines().find(|l| l.starts_with("read_file\t")).unwrap();
    let schema = line.rsplit('\t').next().unwrap();
    let reparsed: Value = serde_json::from_str(schema).unwrap();
    assert_eq!(serde_json::to_string(&reparsed).unwrap(), schema);
}

#[test]
fn call_reads_a_workspace_file() {
    let env = Env::new();
    std::fs::write(env.workspace().join("notes.txt"), "alpha\r\nbeta\n").unwrap();
    let out = env.call("read_file", r#"{"path":"notes.txt"}"#);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "1→alpha\n2→beta");
}

#[test]
fn call_writes_then_reads_back() {
    let env = Env::new();
    let out = env.call(
        "write_file",
        r#"{"path":"sub/new.txt","content":"one\ntwo\n"}"#,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("sub/new.txt")).unwrap(),
        "one\ntwo\n"
    );
    let listed = stdout(&env.call("ls", r#"{"recursive":true}"#));
    assert!(listed.contains("sub/"), "{listed}");
}

#[test]
fn bad_arguments_are_named() {
    let env = Env::new();
    let out = env.call("read_file", r#"{"path": 3}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("invalid input"), "{}", stderr(&out));
    let out = env.call("read_file", r#"{}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("`path`"), "{}", stderr(&out));
    let out = env.call("read_file", "not json");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not valid JSON"), "{}", stderr(&out));
}

#[test]
fn unknown_tool_lists_the_known_ones() {
    let env = Env::new();
    let out = env.call("no_such_tool", "{}");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("no tool named `no_such_tool`") && err.contains("read_file"),
        "{err}"
    );
}

#[test]
fn broken_components_are_named_and_the_rest_still_load() {
    let env = Env::new();
    env.install_raw("notwasm.wasm", b"this is not webassembly");
    env.install_raw("core.wasm", b"\0asm\x01\0\0\0");
    let hostile = std::fs::read(support::fixture("hostile")).unwrap();
    env.install_raw("truncated.wasm", &hostile[..hostile.len() / 3]);
    env.install_fixture("future");
    env.install_fixture("legacy");
    let out = env.reasonix(&["tools", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("read_file"), "built-ins still load");
    let err = stderr(&out);
    let line_for = |file: &str| {
        err.lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("no message for {file} in:\n{err}"))
            .to_string()
    };
    assert!(line_for("notwasm.wasm").contains("not a WebAssembly file"));
    assert!(line_for("core.wasm").contains("core WebAssembly module, not a component"));
    assert!(line_for("truncated.wasm").contains("invalid component"));
    let future = line_for("future.wasm");
    assert!(
        future.contains("reasonix:plugin@9.0.0")
            && future.contains("supports reasonix:plugin@0.2.0"),
        "{future}"
    );
    let legacy = line_for("legacy.wasm");
    assert!(
        legacy.contains("built for reasonix:plugin@0.1.0")
            && legacy.contains("supports reasonix:plugin@0.2.0")
            && legacy.contains("rebuild the plugin"),
        "{legacy}"
    );
}

#[test]
fn malformed_config_names_file_and_line() {
    let env = Env::new();
    env.project_config("[plugin.fs-read]\nmemory_mib = \"lots\"\n");
    let out = env.reasonix(&["tools", "list"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("reasonix.toml") && err.contains("line 2") && err.contains("memory_mib"),
        "{err}"
    );

    env.project_config("[plugins\n");
    let err = stderr(&env.reasonix(&["tools", "list"]));
    assert!(err.contains("reasonix.toml: line 1"), "{err}");
}

#[test]
fn a_component_can_serve_several_roles() {
    let env = Env::new();
    env.install_fixture("roles");
    let out = env.reasonix(&["plugin", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let roles = v["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "roles")
        .expect("roles listed");
    assert_eq!(roles["source"], "installed");
    assert_eq!(
        roles["kinds"],
        serde_json::json!(["provider", "interceptor"])
    );
    assert_eq!(roles["provider_kinds"], serde_json::json!(["echo"]));
    assert_eq!(roles["limits"]["memory_mib"], 32);
}

#[test]
fn disabled_plugin_does_not_load() {
    let env = Env::new();
    env.project_config("[plugin.fs-write]\nenabled = false\n");
    let out = env.reasonix(&["tools", "list"]);
    assert!(out.status.success());
    assert!(!stdout(&out).contains("write_file"));
    assert!(stdout(&out).contains("read_file"));
}

#[test]
fn tool_contract_document_matches_the_registry() {
    let env = Env::new();
    let out = env.reasonix(&["tools", "doc"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let generated = stdout(&out);
    let path = support::repo_root().join("docs/TOOL_CONTRACT.md");
    if std::env::var_os("REASONIX_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/TOOL_CONTRACT.md is out of date with the registry; regenerate it with\n  cargo run -q -- tools doc > docs/TOOL_CONTRACT.md\n(or run this test with REASONIX_BLESS=1)"
    );
    for tool in ["read_file", "ls", "write_file"] {
        assert!(
            generated.contains(&format!("\n## {tool}\n")),
            "{tool} documented"
        );
    }
}

#[test]
fn todo_write_validates_and_renders_through_the_component() {
    let env = Env::new();
    let out = env.call(
        "todo_write",
        r#"{"todos":[{"content":"Read the code","status":"completed"},{"content":"Fix it","status":"in_progress","activeForm":"Fixing it"}]}"#,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim_end(),
        "Todo list (1/2 done):\n[x] Read the code\n[>] Fixing it"
    );
    let out = env.call(
        "todo_write",
        r#"{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}"#,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("keep exactly one item in progress"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unresolvable_sandbox_entries_are_reported() {
    let env = Env::new();
    env.project_config("[sandbox]\nforbid_read = [\"${REASONIX_TEST_SURELY_UNSET}/x\"]\n");
    let out = env.reasonix(&["tools", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("forbid_read") && err.contains("REASONIX_TEST_SURELY_UNSET"),
        "{err}"
    );
}
