//! The MCP tier in a session: start the configured servers in the background and say what
//! failed. (`@server:uri` references and prompt commands are input expansion:
//! `reasonix_session::input`.)

pub mod flags;
pub mod sandbox;

use crate::context::Context;
use crate::term::errln;
use reasonix_config::mcp::SourceKind;
use reasonix_config::{ProjectTrust, TrustStore};
use reasonix_core::terminal::shown;
use reasonix_mcp::{ServerState, Servers, StartOptions};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

static TRUST_MCP_FOR_THIS_RUN: AtomicBool = AtomicBool::new(false);

/// `--trust-mcp`: let the project's `.mcp.json` servers start for this run (set from `main`).
pub fn trust_mcp_for_this_run(trust: bool) {
    TRUST_MCP_FOR_THIS_RUN.store(trust, Ordering::Relaxed);
}

/// Start the configured servers for `workspace`; returns at once. A project server starts only
/// when its file is approved: `.mcp.json` by `reasonix mcp trust` or `--trust-mcp`, the
/// project `reasonix.toml` by workspace trust.
pub fn start(cx: &Context, workspace: &Path) -> Servers {
    let specs = cx.config.mcp_servers.clone();
    if specs.is_empty() {
        return Servers::default();
    }
    let mut options = StartOptions::new(workspace.to_path_buf());
    if let Some(s) = cx
        .config
        .tools
        .mcp_startup_timeout_seconds
        .filter(|s| *s > 0)
    {
        options.startup_timeout = Duration::from_secs(s);
    }
    if let Some(s) = cx.config.tools.mcp_call_timeout_seconds.filter(|s| *s > 0) {
        options.call_timeout = Duration::from_secs(s);
    }
    options.project_toml_trusted = cx.config.project_trust == Some(ProjectTrust::Trusted);
    options.confine = Some(sandbox::confinement(&cx.paths, &cx.config, workspace));
    options.project_mcp_json_approved =
        TRUST_MCP_FOR_THIS_RUN.load(Ordering::Relaxed) || mcp_json_approved(cx, workspace);
    for spec in specs.iter().filter(|s| s.enabled) {
        let why = match spec.origin.kind {
            SourceKind::ProjectMcpJson if !options.project_mcp_json_approved => {
                "approve that file with `reasonix mcp trust` (or pass --trust-mcp)"
            }
            SourceKind::ProjectToml if !options.project_toml_trusted => {
                "the workspace is not trusted (`reasonix trust`, or --trust-workspace for one run)"
            }
            _ => continue,
        };
        errln!(
            "warning: MCP server `{}` from {} is not started: {why}",
            shown(&spec.name),
            shown(&spec.origin.file.display().to_string())
        );
    }
    match Servers::start(specs, options) {
        Ok(servers) => servers,
        Err(e) => {
            errln!("warning: {}", shown(&e.to_string()));
            Servers::default()
        }
    }
}

/// Whether the user approved the project `.mcp.json` exactly as it was read for this session,
/// its servers executing the workspace files pinned then (ADR 0026). When only those files
/// changed, say which.
fn mcp_json_approved(cx: &Context, workspace: &Path) -> bool {
    let Some(sha) = &cx.config.project_mcp_json_sha256 else {
        return false;
    };
    let pinned = &cx.config.project_mcp_json_pins;
    match TrustStore::load(&cx.paths.home) {
        Ok(store) => {
            let changes = store.mcp_pin_changes(workspace, sha, pinned);
            if !changes.is_empty() {
                errln!(
                    "warning: the MCP servers of {} are not started: {} since you approved it. Review the change, then approve again with `reasonix mcp trust` (or /mcp approve)",
                    shown(&workspace.join(".mcp.json").display().to_string()),
                    shown(&changes.join(", "))
                );
            }
            store.mcp_content_approved(workspace, sha, pinned)
        }
        Err(e) => {
            errln!("warning: {}", shown(&e.to_string()));
            false
        }
    }
}

/// Print one warning per server that failed to start (with the end of its stderr).
pub fn report_failures(servers: &Servers) {
    for conflict in servers.name_conflicts() {
        errln!("warning: MCP: {}", shown(&conflict));
    }
    for status in servers.statuses() {
        if let ServerState::Failed { reason, stderr } = &status.state {
            errln!(
                "warning: MCP server `{}` failed to start: {}",
                shown(&status.name),
                shown(reason)
            );
            let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            for line in &tail[tail.len().saturating_sub(5)..] {
                errln!("  {}", shown(line));
            }
        }
    }
}
