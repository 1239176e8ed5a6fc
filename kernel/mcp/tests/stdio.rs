//! The manager against the reference server (`@modelcontextprotocol/server-everything`) over
//! stdio: start, list, call (with progress), prompts, resources, a server that dies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reasonix_config::mcp::{Origin, ServerSpec, SourceKind, Transport};
use reasonix_core::types::{ToolContext, ToolEvent, ToolEvents};
use reasonix_mcp::{ServerState, Servers, StartOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The reference server's entry script, or `None` (the test is skipped, unless CI requires it).
fn everything() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("REASONIX_MCP_EVERYTHING").map(PathBuf::from),
        Some(PathBuf::from(
            "/work/mcp-servers/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        )),
        Some(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/mcp-servers/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        ),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("REASONIX_REQUIRE_MCP_SERVERS").is_none(),
            "server-everything is required (REASONIX_REQUIRE_MCP_SERVERS) but not installed"
        );
        eprintln!("skipped: server-everything is not installed (see docs/MCP.md)");
    }
    found
}

fn stdio_spec(name: &str, command: &str, args: &[&str]) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        transport: Transport::Stdio {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: BTreeMap::new(),
            cwd: None,
        },
        startup_timeout: Some(Duration::from_secs(20)),
        call_timeout: None,
        tool_timeouts: BTreeMap::new(),
        enabled: true,
        concurrency: None,
        trust_read_only_hints: false,
        sandbox_off_requested: false,
        origin: Origin {
            file: PathBuf::from("/home/user/.reasonix/mcp.json"),
            kind: SourceKind::UserMcpJson,
        },
    }
}

fn context(dir: &Path) -> ToolContext {
    ToolContext {
        call_id: "call-1".into(),
        workspace: dir.to_path_buf(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    }
}

#[test]
fn the_reference_server_over_stdio() {
    let Some(entry) = everything() else { return };
    let dir = tempfile::tempdir().unwrap();
    let servers = Servers::start(
        vec![stdio_spec(
            "everything",
            "node",
            &[entry.to_str().unwrap(), "stdio"],
        )],
        StartOptions::new(dir.path().to_path_buf()),
    )
    .unwrap();
    servers.wait_ready(Duration::from_secs(30));
    let status = &servers.statuses()[0];
    let ServerState::Ready {
        tools,
        prompts,
        resources,
    } = &status.state
    else {
        panic!("not ready: {status:?}");
    };
    assert!(*tools > 5 && *prompts > 0 && *resources > 0, "{status:?}");
    assert!(servers.revision() > 0);

    let tools = servers.tools();
    let echo = tools
        .iter()
        .find(|t| t.spec().name == "mcp__everything__echo")
        .expect("echo");
    // Writers by default: the server is not trusted as read-only.
    assert!(!echo.spec().read_only);
    assert!(echo.effects().runs_commands);
    let out = echo
        .invoke(r#"{"message":"hello there"}"#, &context(dir.path()))
        .unwrap();
    assert!(out.contains("hello there"), "{out}");

    // Progress notifications reach the call's sink.
    let long = tools
        .iter()
        .find(|t| t.spec().name == "mcp__everything__trigger-long-running-operation")
        .expect("long-running tool");
    type Seen = Arc<Mutex<Vec<(String, Option<f32>)>>>;
    let seen: Seen = Arc::default();
    let sink_seen = seen.clone();
    let events = ToolEvents::new(move |event| match event {
        ToolEvent::Progress { message, fraction } => {
            sink_seen.lock().unwrap().push((message, fraction));
        }
    });
    let out = long
        .invoke(
            r#"{"duration":1,"steps":3}"#,
            &ToolContext {
                events: Some(events),
                agents: None,
                evidence: None,
                ..context(dir.path())
            },
        )
        .unwrap();
    assert!(!out.is_empty());
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= 2, "progress: {seen:?}");
    assert!(
        seen.iter().any(|(_, f)| f.is_some_and(|f| f > 0.0)),
        "{seen:?}"
    );

    // Prompts with arguments, resources.
    let prompt = servers
        .prompts()
        .into_iter()
        .find(|p| !p.arguments.is_empty())
        .expect("a prompt with arguments");
    let args: Vec<(String, String)> = prompt
        .arguments
        .iter()
        .map(|a| (a.name.clone(), "sunny".to_string()))
        .collect();
    let text = servers
        .get_prompt("everything", &prompt.name, args)
        .unwrap();
    assert!(!text.is_empty());
    let resource = servers.resources().into_iter().next().expect("a resource");
    let text = servers
        .read_resource("everything", &resource.uri)
        .unwrap()
        .text;
    assert!(!text.is_empty());
    servers.shutdown();
}

/// A server that exits when called: the call fails with the reason, the next use restarts it.
#[test]
fn a_server_that_dies_is_restarted_on_next_use() {
    let Some(entry) = everything() else { return };
    let dir = tempfile::tempdir().unwrap();
    // The server writes its pid, so this test kills its own server and no other.
    let pidfile = dir.path().join("pid");
    let script = format!(
        "echo $$ > '{}'; exec node '{}' stdio",
        pidfile.display(),
        entry.display()
    );
    let servers = Servers::start(
        vec![stdio_spec("everything", "sh", &["-c", &script])],
        StartOptions::new(dir.path().to_path_buf()),
    )
    .unwrap();
    servers.wait_ready(Duration::from_secs(30));
    let tools = servers.tools();
    let echo = tools
        .iter()
        .find(|t| t.spec().name == "mcp__everything__echo")
        .unwrap();
    echo.invoke(r#"{"message":"one"}"#, &context(dir.path()))
        .unwrap();
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let out = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .unwrap();
    assert!(out.success());
    std::thread::sleep(Duration::from_millis(300));
    let first = echo.invoke(r#"{"message":"two"}"#, &context(dir.path()));
    let second = match first {
        Ok(out) => out, // the death was noticed before the call: restarted at once
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains("everything"), "{text}");
            echo.invoke(r#"{"message":"two"}"#, &context(dir.path()))
                .unwrap()
        }
    };
    assert!(second.contains("two"), "{second}");
    assert_eq!(servers.statuses()[0].restarts, 1);
    servers.shutdown();
}
