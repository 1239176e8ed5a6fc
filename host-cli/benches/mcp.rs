//! The MCP tier (issue #15), figures for docs/PERFORMANCE.md:
//! - launch of the interactive session to a ready prompt with no MCP server, and with three
//!   configured, one of which takes 5 s to answer `initialize` (servers start in the
//!   background: the prompt must not wait for them);
//! - per-call overhead of an MCP tool (a minimal stdio echo server, and the reference
//!   server-everything's `echo`) against a wasm built-in (`read_file` of a 20-line file);
//! - prompt-prefix bytes each server adds (its tools as the OpenAI-style `tools` entries), and
//!   that two starts give the same bytes.
//!
//! Needs python3, node and server-everything (REASONIX_MCP_EVERYTHING or the CI location).
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_macros)]

mod common;
mod pty;

use reasonix_runtime::builtins::BUILTINS;

use common::{median, ms, us};
use pty::Term;
use reasonix_config::mcp::{Origin, ServerSpec, SourceKind, Transport};
use reasonix_core::settings::Paths;
use reasonix_core::types::ToolContext;
use reasonix_host::Registry;
use reasonix_mcp::{Servers, StartOptions};
use reasonix_mock_llm::MockLlm;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const LAUNCHES: usize = 10;
const CALLS: usize = 300;

/// A minimal MCP server: one `echo` tool; `SLOW` seconds of sleep before it reads anything.
const ECHO_SERVER: &str = r#"
import json, sys, time, os
time.sleep(float(os.environ.get("SLOW", "0")))
for line in sys.stdin:
    msg = json.loads(line)
    mid = msg.get("id")
    method = msg.get("method")
    if mid is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "echo", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "description": "Echo the text back.",
                  "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": msg["params"]["arguments"]["text"]}]}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\n")
    sys.stdout.flush()
"#;

fn everything() -> PathBuf {
    let candidates = [
        std::env::var_os("REASONIX_MCP_EVERYTHING").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../target/mcp-servers/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        )),
        Some(PathBuf::from(
            "/work/mcp-servers/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        )),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
        .expect("server-everything: set REASONIX_MCP_EVERYTHING")
}

fn spec(name: &str, command: &str, args: &[&str], env: &[(&str, &str)]) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        transport: Transport::Stdio {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
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
            file: PathBuf::from("bench"),
            kind: SourceKind::UserMcpJson,
        },
    }
}

/// Launch the session in a PTY and wait for its status line; the time it took.
fn launch_to_prompt(home: &Path, project: &Path, cache: &Path) -> Duration {
    let start = Instant::now();
    let term = Term::spawn(home, project, cache, &[]);
    term.wait(|screen| screen.contains("ctx "));
    let took = start.elapsed();
    term.quit();
    took
}

/// The `tools` entries a server adds to an OpenAI-style request, as bytes.
fn prefix_bytes(servers: &Servers) -> (usize, String) {
    let mut specs: Vec<_> = servers.tools().iter().map(|t| t.spec().clone()).collect();
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    let entries: Vec<serde_json::Value> = specs
        .iter()
        .map(|s| {
            serde_json::json!({"type": "function", "function": {
                "name": s.name,
                "description": s.description,
                "parameters": serde_json::from_str::<serde_json::Value>(&s.parameters).unwrap(),
            }})
        })
        .collect();
    let text = serde_json::to_string(&entries).unwrap();
    (text.len(), text)
}

fn main() {
    let everything = everything();
    let everything = everything.to_str().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let echo_py = dir.path().join("echo.py");
    std::fs::write(&echo_py, ECHO_SERVER).unwrap();
    let echo_py = echo_py.to_str().unwrap().to_string();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    std::fs::write(
        workspace.join("small.txt"),
        (1..=20).map(|i| format!("line {i}\n")).collect::<String>(),
    )
    .unwrap();

    // Launch to a ready prompt: no server, then three (one slow).
    let home = dir.path().join("home");
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(home.join("user")).unwrap();
    let mock = MockLlm::start().unwrap();
    std::fs::write(home.join(".env"), "MOCK_LLM_KEY=k\n").unwrap();
    let base = format!(
        "default_model = \"mock\"\n[[providers]]\nname = \"mock\"\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"mock-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n",
        mock.base_url()
    );
    std::fs::write(home.join("config.toml"), &base).unwrap();
    launch_to_prompt(&home, &workspace, &cache);
    let mut without: Vec<Duration> = (0..LAUNCHES)
        .map(|_| launch_to_prompt(&home, &workspace, &cache))
        .collect();
    let servers_toml = format!(
        "\n[[plugins]]\nname = \"everything\"\ncommand = \"node\"\nargs = [\"{everything}\", \"stdio\"]\n\
         \n[[plugins]]\nname = \"echo\"\ncommand = \"python3\"\nargs = [\"{echo_py}\"]\n\
         \n[[plugins]]\nname = \"slow\"\ncommand = \"python3\"\nargs = [\"{echo_py}\"]\nenv = {{ SLOW = \"5\" }}\n"
    );
    std::fs::write(home.join("config.toml"), format!("{base}{servers_toml}")).unwrap();
    let mut with: Vec<Duration> = (0..LAUNCHES)
        .map(|_| launch_to_prompt(&home, &workspace, &cache))
        .collect();
    without.sort();
    with.sort();

    // Per call: wasm read_file against MCP echo (minimal server, and server-everything).
    let paths = Paths {
        home: dir.path().join("home2"),
        cache: dir.path().join("cache2"),
        state: dir.path().join("home2"),
    };
    let registry = Registry::load(BUILTINS, &paths, &Default::default(), None).unwrap();
    let context = ToolContext {
        call_id: "bench".into(),
        workspace: workspace.clone(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    };
    let read_file = registry
        .tools()
        .into_iter()
        .find(|t| t.spec().name == "read_file")
        .unwrap();
    let time_calls = |tool: &dyn reasonix_core::tool::Tool, args: &str| -> Duration {
        for _ in 0..20 {
            tool.invoke(args, &context).unwrap();
        }
        let mut samples = Vec::new();
        for _ in 0..CALLS {
            let start = Instant::now();
            tool.invoke(args, &context).unwrap();
            samples.push(start.elapsed());
        }
        median(&samples)
    };
    let wasm = time_calls(read_file.as_ref(), r#"{"path":"small.txt"}"#);
    let servers = Servers::start(
        vec![
            spec("echo", "python3", &[&echo_py], &[]),
            spec("everything", "node", &[&everything, "stdio"], &[]),
        ],
        StartOptions::new(workspace.clone()),
    )
    .unwrap();
    servers.wait_ready(Duration::from_secs(30));
    let tools = servers.tools();
    let find = |name: &str| {
        tools
            .iter()
            .find(|t| t.spec().name == name)
            .unwrap()
            .clone()
    };
    let echo_min = time_calls(find("mcp__echo__echo").as_ref(), r#"{"text":"hello"}"#);
    let echo_ref = time_calls(
        find("mcp__everything__echo").as_ref(),
        r#"{"message":"hello"}"#,
    );

    // Prefix bytes per server, and byte-stability across two starts.
    let mut prefix = Vec::new();
    for (name, s) in [
        ("echo (1 tool)", spec("echo", "python3", &[&echo_py], &[])),
        (
            "server-everything (all its tools)",
            spec("everything", "node", &[&everything, "stdio"], &[]),
        ),
    ] {
        let once = |s: ServerSpec| {
            let servers = Servers::start(vec![s], StartOptions::new(workspace.clone())).unwrap();
            servers.wait_ready(Duration::from_secs(30));
            let out = prefix_bytes(&servers);
            servers.shutdown();
            out
        };
        let (bytes, first) = once(s.clone());
        let (_, second) = once(s);
        prefix.push((name, bytes, servers_count(&first), first == second));
    }
    servers.shutdown();

    let p90 = |v: &[Duration]| v[(v.len() * 9 / 10).min(v.len() - 1)];
    println!("| measurement | median | p90 |");
    println!("|---|---:|---:|");
    println!(
        "| launch to a ready prompt, no MCP server (ms, {LAUNCHES} runs) | {} | {} |",
        ms(median(&without)),
        ms(p90(&without))
    );
    println!(
        "| launch to a ready prompt, 3 MCP servers, one 5 s slow (ms, {LAUNCHES} runs) | {} | {} |",
        ms(median(&with)),
        ms(p90(&with))
    );
    println!();
    println!("| call ({CALLS} calls, median) | µs/call | ratio to wasm |");
    println!("|---|---:|---:|");
    let ratio = |d: Duration| d.as_secs_f64() / wasm.as_secs_f64();
    println!(
        "| wasm built-in `read_file`, 20-line file | {} | 1.00 |",
        us(wasm)
    );
    println!(
        "| MCP `echo`, minimal Python stdio server | {} | {:.2} |",
        us(echo_min),
        ratio(echo_min)
    );
    println!(
        "| MCP `echo`, server-everything (Node) over stdio | {} | {:.2} |",
        us(echo_ref),
        ratio(echo_ref)
    );
    println!();
    println!("| server | tools | prefix bytes | same bytes on a second start |");
    println!("|---|---:|---:|---|");
    for (name, bytes, count, same) in prefix {
        println!("| {name} | {count} | {bytes} | {same} |");
    }
}

fn servers_count(tools_json: &str) -> usize {
    serde_json::from_str::<Vec<serde_json::Value>>(tools_json)
        .map(|v| v.len())
        .unwrap_or(0)
}
