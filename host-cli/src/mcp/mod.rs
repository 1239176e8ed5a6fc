//! The MCP tier in a session: start the configured servers in the background, say what failed,
//! and resolve `@server:uri` resource references in a task.

pub mod flags;
pub mod prompt_args;
pub mod prompt_command;
pub mod sandbox;

use crate::context::Context;
use crate::term::errln;
use crate::turn::Turn;
use reasonix_agent::config::mcp::SourceKind;
use reasonix_agent::config::{ProjectTrust, TrustStore};
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

/// `text` with every `@<server>:<uri>` of `words` (the user's own words) that names a
/// configured server read through `resources/read` and appended as
/// `<resource ref="server:uri">…</resource>` (the original's form), its images attached. A
/// reference that cannot be read is an error naming it.
pub fn with_resources(text: &str, words: &str, servers: &Servers) -> Result<Turn, String> {
    let resources = resource_blocks(words, servers)?;
    Ok(Turn {
        text: format!("{text}{}", resources.text),
        images: resources.images,
    })
}

/// The task of `reasonix run`: a `/mcp__<server>__<prompt> args…` line becomes the prompt's
/// text; `@<server>:<uri>` references are read from the user's own words only, never from
/// text a server returned (a prompt cannot make Reasonix read another server's resources).
pub fn expand_task(task: &str, servers: &Servers) -> Result<Turn, String> {
    let body = prompt_command::expand(task, servers)?.unwrap_or_else(|| task.to_string());
    with_resources(&body, task, servers)
}

/// The `<resource>` blocks for the references in `text`, each preceded by a blank line, and
/// the images among the resources (each also described in its block).
pub fn resource_blocks(text: &str, servers: &Servers) -> Result<Turn, String> {
    let names: Vec<String> = servers.statuses().into_iter().map(|s| s.name).collect();
    let mut appended = Turn::default();
    let mut seen: Vec<(String, String)> = Vec::new();
    for word in text.split_whitespace() {
        let Some(reference) = word.strip_prefix('@') else {
            continue;
        };
        let reference = reference.trim_end_matches(['.', ',', ';', ')', '"', '\'']);
        let Some((server, uri)) = reference.split_once(':') else {
            continue;
        };
        if uri.is_empty() || !names.iter().any(|n| n == server) {
            continue;
        }
        let key = (server.to_string(), uri.to_string());
        if seen.contains(&key) {
            continue;
        }
        let read = servers
            .read_resource(server, uri)
            .map_err(|e| format!("@{server}:{uri}: {e}"))?;
        appended.text.push_str(&format!(
            "\n\n<resource ref=\"{server}:{uri}\">\n{}\n</resource>",
            read.text
        ));
        appended.images.extend(read.images);
        seen.push(key);
    }
    Ok(appended)
}
