//! `--mcp-config` and `--strict-mcp-config`: MCP servers from the command line, in Claude
//! Code's `{"mcpServers": {…}}` shape, as a file or inline JSON. The user typed them, so they
//! are the user's own servers (trusted like `<home>/mcp.json`), and they win over configured
//! servers of the same name; `--strict-mcp-config` makes them the only ones.

use crate::Error;
use reasonix_config::mcp::{self, ServerSpec, SourceKind};
use std::path::Path;

/// A config file larger than this is refused.
const MAX_FILE: u64 = 1024 * 1024;

/// The servers `--mcp-config` values name, in order.
pub fn load(values: &[String]) -> Result<Vec<ServerSpec>, Error> {
    let lookup = |name: &str| std::env::var(name).ok();
    let mut servers = Vec::new();
    for value in values {
        let (origin, text) = if is_inline(value) {
            ("--mcp-config (inline)".to_string(), value.clone())
        } else {
            let shown = reasonix_core::terminal::shown(value).to_string();
            let fail = |e: std::io::Error| {
                Error::usage(format!("--mcp-config {shown}: cannot read it: {e}"))
            };
            let size = std::fs::metadata(value).map_err(fail)?.len();
            if size > MAX_FILE {
                return Err(Error::usage(format!(
                    "--mcp-config {shown}: {size} bytes, more than the {} KiB an MCP config may have",
                    MAX_FILE / 1024
                )));
            }
            (value.clone(), std::fs::read_to_string(value).map_err(fail)?)
        };
        let specs = mcp::from_mcp_json(Path::new(&origin), &text, SourceKind::UserMcpJson, &lookup)
            .map_err(|e| Error::usage(format!("--mcp-config: {e}")))?;
        servers.extend(specs);
    }
    Ok(servers)
}

/// The configured servers with the command line's: these replace any of the same name, or
/// (`strict`) all of them.
pub fn apply(configured: &mut Vec<ServerSpec>, extra: &[ServerSpec], strict: bool) {
    if strict {
        configured.clear();
    }
    configured.retain(|s| !extra.iter().any(|e| e.name == s.name));
    // A later `--mcp-config` wins over an earlier one for the same name.
    for spec in extra {
        configured.retain(|s| s.name != spec.name);
        configured.push(spec.clone());
    }
    configured.sort_by(|a, b| a.name.cmp(&b.name));
}

fn is_inline(value: &str) -> bool {
    value.trim_start().starts_with('{')
}

/// Whether a value after the first can be `--mcp-config`'s (the flag takes several, as in
/// Claude Code; the first that is neither JSON nor a file goes back to the task).
pub fn looks_like_config(value: &str) -> bool {
    is_inline(value) || Path::new(value).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_configs_load_and_replace_by_name() {
        let a =
            load(&[r#"{"mcpServers":{"a":{"command":"x"},"b":{"command":"y"}}}"#.into()]).unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].origin.kind, SourceKind::UserMcpJson);
        let b = load(&[r#"{"mcpServers":{"b":{"command":"z"}}}"#.into()]).unwrap();
        let mut configured = a.clone();
        apply(&mut configured, &b, false);
        assert_eq!(configured.len(), 2);
        assert_eq!(configured[1], b[0]);
        apply(&mut configured, &b, true);
        assert_eq!(configured, b);
        let e = load(&["{nope".into()]).unwrap_err().to_string();
        assert!(
            e.starts_with("--mcp-config: --mcp-config (inline):1:2"),
            "{e}"
        );
        let e = load(&["/nonexistent.json".into()]).unwrap_err().to_string();
        assert!(
            e.contains("--mcp-config /nonexistent.json: cannot read it"),
            "{e}"
        );
    }
}
