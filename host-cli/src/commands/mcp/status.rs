//! Whether each server starts: every enabled, permitted server is started through the MCP
//! manager (each with its own startup timeout, side by side) and asked for its tools, then
//! stopped. A project server whose file is not approved is never started here either.

use reasonix_config::mcp::ServerSpec;
use reasonix_mcp::{ServerState, Servers, StartOptions};
use std::collections::BTreeMap;
use std::time::Duration;

/// What starting a server showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Configured with `disabled` / `enabled = false` / `auto_start = false`: not started.
    Disabled,
    /// A project server whose file is not approved (or workspace not trusted): not started.
    NotApproved,
    /// Started and listed its tools (name as the server calls it, description).
    Ready { tools: Vec<(String, String)> },
    /// Did not start, with why and the end of its stderr.
    Failed { reason: String, stderr: String },
}

/// Past the longest startup timeout, for the manager to record the timeout itself.
const MARGIN: Duration = Duration::from_secs(2);

/// Start `specs` and report on each, by name. `options` say whether the project's servers
/// may start at all, and the default timeouts.
pub fn probe(specs: Vec<ServerSpec>, options: StartOptions) -> BTreeMap<String, Probe> {
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let servers = match Servers::start(specs, options) {
        Ok(servers) => servers,
        Err(e) => {
            let reason = e.to_string();
            return names
                .into_iter()
                .map(|name| {
                    let failed = Probe::Failed {
                        reason: reason.clone(),
                        stderr: String::new(),
                    };
                    (name, failed)
                })
                .collect();
        }
    };
    servers.wait_ready(servers.longest_startup() + MARGIN);
    let mut tools: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for tool in servers.tools() {
        let server = tool.source().to_string();
        let spec = tool.spec();
        let prefix = format!("mcp__{server}__");
        let name = spec.name.strip_prefix(&prefix).unwrap_or(&spec.name);
        tools
            .entry(server)
            .or_default()
            .push((name.to_string(), spec.description.clone()));
    }
    let probes = servers
        .statuses()
        .into_iter()
        .map(|status| {
            let probe = match status.state {
                ServerState::Disabled => Probe::Disabled,
                ServerState::NotApproved => Probe::NotApproved,
                ServerState::Ready { .. } => Probe::Ready {
                    tools: tools.remove(&status.name).unwrap_or_default(),
                },
                ServerState::Starting => Probe::Failed {
                    reason: "still starting when its startup timeout passed".into(),
                    stderr: String::new(),
                },
                ServerState::Failed { reason, stderr } => Probe::Failed { reason, stderr },
            };
            (status.name, probe)
        })
        .collect();
    servers.shutdown();
    probes
}
