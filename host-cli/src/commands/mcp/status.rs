//! Whether each server starts: every enabled, permitted server is started (each with its own
//! startup timeout, side by side) and asked for its tools, then stopped.

use reasonix_agent::config::mcp::ServerSpec;
use std::collections::BTreeMap;
use std::path::Path;

/// What starting a server showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Configured with `disabled` / `enabled = false` / `auto_start = false`: not started.
    Disabled,
    /// A project server whose file is not approved (or workspace not trusted): not started.
    NotApproved,
    /// Started and listed its tools (name, description).
    Ready { tools: Vec<(String, String)> },
    /// Did not start, with why and the end of its stderr.
    Failed { reason: String, stderr: String },
}

/// Start `specs` and report on each, by name. `mcp_json_approved` / `toml_trusted` say
/// whether the project's servers may start at all.
pub fn probe(
    specs: Vec<ServerSpec>,
    workspace: &Path,
    mcp_json_approved: bool,
    toml_trusted: bool,
) -> BTreeMap<String, Probe> {
    let _ = (workspace, mcp_json_approved, toml_trusted);
    specs
        .into_iter()
        .map(|spec| {
            let probe = if spec.enabled {
                Probe::Failed {
                    reason: "this build cannot start MCP servers yet".into(),
                    stderr: String::new(),
                }
            } else {
                Probe::Disabled
            };
            (spec.name, probe)
        })
        .collect()
}
