//! The MCP servers an editor passes with `session/new` and `session/load`, as the user's own
//! servers of this session: they go through the same MCP tier (names checked, started in the
//! OS sandbox, their tools asked about like any), exactly as `--mcp-config` servers do. The
//! editor is the user's own program; a repository cannot put a server here.

use reasonix_config::mcp::{ServerSpec, SourceKind};
use serde_json::{Map, Value};
use std::path::Path;

/// The servers of `servers` (the request's `mcpServers`, in its wire form).
pub fn specs(servers: &[Value]) -> Result<Vec<ServerSpec>, String> {
    let mut doc = Map::new();
    for (i, server) in servers.iter().enumerate() {
        let name = server
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("mcpServers[{i}]: no `name`"))?;
        let mut entry = Map::new();
        if let Some(kind) = server.get("type").and_then(Value::as_str) {
            entry.insert("type".into(), kind.into());
        }
        for key in ["command", "url"] {
            if let Some(v) = server.get(key) {
                entry.insert(key.into(), v.clone());
            }
        }
        if let Some(args) = server.get("args") {
            entry.insert("args".into(), args.clone());
        }
        // ACP lists `[{name, value}]`; the MCP configuration has maps.
        for (from, to) in [("env", "env"), ("headers", "headers")] {
            if let Some(list) = server.get(from).and_then(Value::as_array) {
                let map: Map<String, Value> = list
                    .iter()
                    .filter_map(|p| {
                        Some((
                            p.get("name")?.as_str()?.to_string(),
                            p.get("value")?.clone(),
                        ))
                    })
                    .collect();
                entry.insert(to.into(), map.into());
            }
        }
        doc.insert(name.to_string(), entry.into());
    }
    if doc.is_empty() {
        return Ok(Vec::new());
    }
    let text = serde_json::json!({ "mcpServers": doc }).to_string();
    let none = |_: &str| None;
    reasonix_config::mcp::from_mcp_json(
        Path::new("session/new mcpServers"),
        &text,
        SourceKind::UserMcpJson,
        &none,
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use reasonix_config::mcp::Transport;

    #[test]
    fn stdio_and_http_servers_map_to_the_mcp_tier() {
        let servers = serde_json::json!([
            {"name": "docs", "command": "/usr/bin/node", "args": ["srv.js"], "env": [{"name": "TOKEN", "value": "t"}]},
            {"type": "http", "name": "web", "url": "https://example.com/mcp", "headers": [{"name": "Authorization", "value": "Bearer x"}]}
        ]);
        let specs = specs(servers.as_array().unwrap()).unwrap();
        assert_eq!(specs.len(), 2);
        let docs = specs.iter().find(|s| s.name == "docs").unwrap();
        match &docs.transport {
            Transport::Stdio {
                command, args, env, ..
            } => {
                assert_eq!(command, "/usr/bin/node");
                assert_eq!(args, &["srv.js"]);
                assert_eq!(env["TOKEN"], "t");
            }
            other => panic!("{other:?}"),
        }
        let web = specs.iter().find(|s| s.name == "web").unwrap();
        assert!(
            matches!(&web.transport, Transport::Http { headers, .. } if headers["Authorization"] == "Bearer x")
        );
    }

    #[test]
    fn a_bad_server_is_an_error_naming_it() {
        let servers = serde_json::json!([{"name": "bad name!", "command": "x"}]);
        let e = specs(servers.as_array().unwrap()).unwrap_err();
        assert!(e.contains("bad name!"), "{e}");
        let unnamed = serde_json::json!([{"command": "x"}]);
        assert_eq!(
            specs(unnamed.as_array().unwrap()).unwrap_err(),
            "mcpServers[0]: no `name`"
        );
    }
}
