//! MCP server entries from hostile files: a Claude Code `mcpServers` file (`.mcp.json`, which a
//! repository writes) through `from_mcp_json`, then `merge`. Nothing may panic; what is accepted
//! has a valid server name and a transport that fits it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reasonix_config::mcp::{SourceKind, Transport, from_mcp_json, merge};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lookup = |name: &str| (name.len() % 2 == 0).then(|| format!("v-{name}"));
    let Ok(specs) = from_mcp_json(Path::new(".mcp.json"), text, SourceKind::ProjectMcpJson, &lookup)
    else {
        return;
    };
    for spec in merge(specs) {
        assert!(!spec.name.is_empty() && spec.name.len() <= 64);
        assert!(
            spec.name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        // A project file can never mark its tools read-only.
        assert!(!spec.trust_read_only_hints);
        if let Transport::Http { url, .. } | Transport::Sse { url, .. } = &spec.transport {
            assert!(url.starts_with("http://") || url.starts_with("https://"));
        }
    }
});
