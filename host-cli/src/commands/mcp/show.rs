//! `reasonix mcp list` and `reasonix mcp get`: what is configured where, and whether it starts.
//!
//! Commands, arguments and URLs are shown as written (`${VAR}` unexpanded); environment
//! variables and headers by name only, since their values are often tokens.

use super::approve::describe;
use super::status::{self, Probe};
use super::{lookup, workspace};
use crate::exit::{Code, Failure, Outcome};
use crate::term::{self, errln, outln};
use anyhow::anyhow;
use reasonix_config::mcp::{ServerSpec, SourceKind, Transport};
use reasonix_config::mcp_files::{self, Inventory, ListedServer};
use reasonix_config::{Paths, ProjectTrust, TrustCheck, TrustStore};
use reasonix_core::terminal::shown;
use reasonix_mcp::StartOptions;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

/// Everything `list` and `get` print from.
struct Report {
    inventory: Inventory,
    probes: BTreeMap<String, Probe>,
    mcp_json: TrustCheck,
    /// The project's `reasonix.toml` is trusted (`reasonix trust`, `--trust-workspace`).
    toml_trusted: bool,
}

fn report(only: Option<&str>) -> Result<Report, Failure> {
    let paths = Paths::from_env();
    let workspace = workspace()?;
    let mut inventory = mcp_files::inventory(&paths.home, &workspace, &lookup(&workspace));
    let from_packages = package_servers(&paths, &inventory.servers);
    inventory.servers.extend(from_packages);
    for problem in &inventory.problems {
        errln!("warning: {}", shown(problem));
    }
    let store = TrustStore::load(&paths.home).map_err(Failure::usage)?;
    // Approval of the `.mcp.json` bytes the inventory read, not of a later read of the file.
    let mcp_json = store.check_mcp_content(
        &workspace,
        inventory.project_mcp_json_sha256.as_deref(),
        &inventory.project_mcp_json_pins,
    );
    // The merged config gives the `[tools]` MCP timeouts and honours `--trust-workspace`; a
    // config that does not load is reported by the commands that need it, not here.
    let config = crate::context::load_config(&paths, &workspace).ok();
    let toml_trusted = match &config {
        Some(config) => config.project_trust == Some(ProjectTrust::Trusted),
        None => store.check(&workspace) == TrustCheck::Trusted,
    };
    let specs: Vec<ServerSpec> = inventory
        .servers
        .iter()
        .filter(|s| s.active)
        .filter_map(|s| s.spec.as_ref().ok())
        .filter(|spec| only.is_none_or(|name| spec.name == name))
        .cloned()
        .collect();
    let mut options = StartOptions::new(workspace.clone());
    if let Some(tools) = config.as_ref().map(|c| &c.tools) {
        if let Some(s) = tools.mcp_startup_timeout_seconds.filter(|s| *s > 0) {
            options.startup_timeout = Duration::from_secs(s);
        }
        if let Some(s) = tools.mcp_call_timeout_seconds.filter(|s| *s > 0) {
            options.call_timeout = Duration::from_secs(s);
        }
    }
    options.project_mcp_json_approved = mcp_json == TrustCheck::Trusted;
    options.project_toml_trusted = toml_trusted;
    // Project servers probed here are confined as in a session, even when the config does
    // not load (then with the defaults).
    let defaults = reasonix_config::Config::default();
    let for_sandbox = config.as_ref().unwrap_or(&defaults);
    options.confine = Some(crate::mcp::sandbox::confinement(
        &paths,
        for_sandbox,
        &workspace,
    ));
    let probes = status::probe(specs, options);
    Ok(Report {
        inventory,
        probes,
        mcp_json,
        toml_trusted,
    })
}

/// The installed packages' MCP servers as `mcp list` shows them: the entry with `${VAR}` by
/// name (never its value), and the spec to probe; active unless a configured server has the
/// name (then the package's is not started).
fn package_servers(paths: &Paths, configured: &[ListedServer]) -> Vec<ListedServer> {
    let load = |lookup: &dyn Fn(&str) -> Option<String>| {
        reasonix_package::installed::load(&paths.home, lookup)
            .map(|l| l.packages)
            .unwrap_or_default()
    };
    let by_name = load(&|name| Some(format!("${{{name}}}")));
    let real = load(&|name| std::env::var(name).ok());
    let mut out = Vec::new();
    for server in by_name.iter().flat_map(|p| &p.mcp_servers) {
        let Some(spec) = real
            .iter()
            .flat_map(|p| &p.mcp_servers)
            .find(|s| s.name == server.name)
        else {
            continue;
        };
        let raw = match &server.transport {
            reasonix_config::mcp::Transport::Stdio {
                command, args, env, ..
            } => json!({"command": command, "args": args, "env": env}),
            reasonix_config::mcp::Transport::Http { url, headers } => {
                json!({"type": "http", "url": url, "headers": headers})
            }
            reasonix_config::mcp::Transport::Sse { url, headers } => {
                json!({"type": "sse", "url": url, "headers": headers})
            }
        };
        out.push(ListedServer {
            name: server.name.clone(),
            origin: server.origin.clone(),
            raw,
            spec: Ok(spec.clone()),
            active: !configured.iter().any(|c| c.active && c.name == server.name),
        });
    }
    out
}

pub fn list(as_json: bool) -> Outcome {
    let report = report(None)?;
    let active: Vec<&ListedServer> = report
        .inventory
        .servers
        .iter()
        .filter(|s| s.active)
        .collect();
    if as_json {
        let servers: Vec<Value> = active
            .iter()
            .map(|s| server_json(&report, s, false))
            .collect();
        let value = json!({"servers": servers, "problems": report.inventory.problems});
        term::print_json(&value).map_err(Failure::runtime)?;
        return Ok(Code::Success);
    }
    if active.is_empty() {
        outln!(
            "no MCP servers configured; add one with `reasonix mcp add <name> -- <command> [args…]` or `reasonix mcp import`"
        );
    }
    for server in active {
        outln!("{}: {}", shown(&server.name), state_line(&report, server));
        outln!("    {}", describe(&server.raw));
        outln!("    {}", source_line(&report, server));
    }
    Ok(Code::Success)
}

pub fn get(name: &str, as_json: bool) -> Outcome {
    let report = report(Some(name))?;
    let entries: Vec<&ListedServer> = report.inventory.named(name).collect();
    let Some(server) = entries.first().copied() else {
        return Err(Failure::usage(anyhow!(
            "no MCP server named `{}` is configured (see `reasonix mcp list`)",
            shown(name)
        )));
    };
    if as_json {
        let mut value = server_json(&report, server, true);
        value["overrides"] = entries[1..]
            .iter()
            .map(|s| Value::from(s.origin.file.display().to_string()))
            .collect();
        term::print_json(&value).map_err(Failure::runtime)?;
        return Ok(Code::Success);
    }
    let raw = &server.raw;
    let text = |key: &str| raw.get(key).and_then(Value::as_str);
    let keys = |key: &str| -> Vec<String> {
        raw.get(key)
            .and_then(Value::as_object)
            .map(|m| m.keys().map(|k| shown(k).to_string()).collect())
            .unwrap_or_default()
    };
    outln!("{}", shown(&server.name));
    outln!("  source: {}", source_line(&report, server));
    for other in &entries[1..] {
        outln!(
            "  overrides: {}",
            shown(&other.origin.file.display().to_string())
        );
    }
    match &server.spec {
        Ok(spec) => outln!("  transport: {}", transport_name(&spec.transport)),
        Err(e) => outln!("  invalid: {}", shown(&e.to_string())),
    }
    if let Some(command) = text("command") {
        outln!("  command: {}", shown(command));
        for arg in raw
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            outln!("  arg: {}", shown(arg.as_str().unwrap_or("<not a string>")));
        }
    }
    if let Some(cwd) = text("cwd").or_else(|| text("dir")) {
        outln!("  cwd: {}", shown(cwd));
    }
    let env = keys("env");
    if !env.is_empty() {
        outln!("  env: {} (values not shown)", env.join(", "));
    }
    if let Some(url) = text("url") {
        outln!("  url: {}", shown(url));
    }
    let headers = keys("headers");
    if !headers.is_empty() {
        outln!("  headers: {} (values not shown)", headers.join(", "));
    }
    if let Ok(spec) = &server.spec {
        outln!("  enabled: {}", spec.enabled);
        outln!("  startup timeout: {}", seconds(spec.startup_timeout));
        outln!("  call timeout: {}", seconds(spec.call_timeout));
        for (tool, timeout) in &spec.tool_timeouts {
            outln!("  timeout of {}: {}", shown(tool), seconds(Some(*timeout)));
        }
    }
    outln!("  status: {}", state_line(&report, server));
    match report.probes.get(name) {
        Some(Probe::Ready { tools }) => {
            for (tool, description) in tools {
                let first = description.lines().next().unwrap_or("");
                outln!("    {}: {}", shown(tool), shown(first));
            }
        }
        Some(Probe::Failed { stderr, .. }) if !stderr.trim().is_empty() => {
            outln!("  stderr (end):");
            for line in stderr.lines() {
                outln!("    {}", shown(line));
            }
        }
        _ => {}
    }
    Ok(Code::Success)
}

fn seconds(timeout: Option<Duration>) -> String {
    timeout.map_or_else(|| "default".into(), |t| format!("{}s", t.as_secs()))
}

fn transport_name(transport: &Transport) -> &'static str {
    match transport {
        Transport::Stdio { .. } => "stdio",
        Transport::Http { .. } => "http",
        Transport::Sse { .. } => "sse",
    }
}

fn kind_name(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::LocalMcpJson => "local: user mcp.json, this workspace only",
        SourceKind::ProjectToml => "project reasonix.toml [[plugins]]",
        SourceKind::ProjectMcpJson => "project .mcp.json",
        SourceKind::UserToml => "user config.toml [[plugins]]",
        SourceKind::UserMcpJson => "user mcp.json",
        SourceKind::Package => "an installed package",
    }
}

/// The approval of the file a project server comes from; `None` for user files.
fn approval(report: &Report, kind: SourceKind) -> Option<&'static str> {
    match (kind, &report.mcp_json, report.toml_trusted) {
        (SourceKind::ProjectMcpJson, TrustCheck::Trusted, _) => Some("approved"),
        (SourceKind::ProjectMcpJson, TrustCheck::Changed, _) => Some("changed since approved"),
        (SourceKind::ProjectMcpJson, TrustCheck::Unknown, _) => Some("not approved"),
        (SourceKind::ProjectToml, _, true) => Some("workspace trusted"),
        (SourceKind::ProjectToml, _, false) => Some("workspace not trusted"),
        _ => None,
    }
}

fn approval_json(report: &Report, kind: SourceKind) -> Value {
    match approval(report, kind) {
        Some(text) => Value::from(text.replace(' ', "-")),
        None => Value::Null,
    }
}

fn source_line(report: &Report, server: &ListedServer) -> String {
    let mut label = kind_name(server.origin.kind).to_string();
    if let Some(approval) = approval(report, server.origin.kind) {
        label.push_str(", ");
        label.push_str(approval);
    }
    format!(
        "{} ({label})",
        shown(&server.origin.file.display().to_string())
    )
}

/// One line: ready with its tool count, failed and why, or why it is not started.
fn state_line(report: &Report, server: &ListedServer) -> String {
    let spec = match &server.spec {
        Ok(spec) => spec,
        Err(e) => return format!("invalid: {}", shown(&e.to_string())),
    };
    match report.probes.get(&spec.name) {
        Some(Probe::Disabled) => "disabled".into(),
        Some(Probe::NotApproved) => match server.origin.kind {
            SourceKind::ProjectToml => {
                "not started: the workspace is not trusted (`reasonix trust`)".into()
            }
            _ => "not started: .mcp.json is not approved (`reasonix mcp trust`)".into(),
        },
        Some(Probe::Ready { tools }) => match tools.len() {
            1 => "ready, 1 tool".into(),
            n => format!("ready, {n} tools"),
        },
        Some(Probe::Failed { reason, .. }) => format!("failed: {}", shown(reason)),
        None => "unknown".into(),
    }
}

fn server_json(report: &Report, server: &ListedServer, full: bool) -> Value {
    let raw = &server.raw;
    let names = |key: &str| -> Vec<String> {
        raw.get(key)
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let probe = server
        .spec
        .as_ref()
        .ok()
        .and_then(|spec| report.probes.get(&spec.name));
    let status = match (&server.spec, probe) {
        (Err(e), _) => json!({"state": "invalid", "reason": e.to_string()}),
        (_, Some(Probe::Disabled)) => json!({"state": "disabled"}),
        (_, Some(Probe::NotApproved)) => json!({"state": "not-approved"}),
        (_, Some(Probe::Ready { tools })) => {
            let mut s = json!({"state": "ready", "tools": tools.len()});
            if full {
                s["tool_list"] = tools
                    .iter()
                    .map(|(n, d)| json!({"name": n, "description": d}))
                    .collect();
            }
            s
        }
        (_, Some(Probe::Failed { reason, stderr })) => {
            let mut s = json!({"state": "failed", "reason": reason});
            if full {
                s["stderr"] = Value::from(stderr.as_str());
            }
            s
        }
        (Ok(_), None) => json!({"state": "unknown"}),
    };
    let spec = server.spec.as_ref().ok();
    let mut value = json!({
        "name": server.name,
        "source": {
            "file": server.origin.file.display().to_string(),
            "kind": kind_name(server.origin.kind),
            "scope": match server.origin.kind {
                SourceKind::LocalMcpJson => "local",
                kind if kind.is_project() => "project",
                _ => "user",
            },
        },
        "approval": approval_json(report, server.origin.kind),
        "transport": spec.map(|s| transport_name(&s.transport)),
        "enabled": spec.map(|s| s.enabled),
        "status": status,
    });
    if let Some(command) = raw.get("command") {
        value["command"] = command.clone();
        value["args"] = raw.get("args").cloned().unwrap_or_else(|| json!([]));
        value["env_keys"] = json!(names("env"));
    }
    if let Some(url) = raw.get("url") {
        value["url"] = url.clone();
        value["header_names"] = json!(names("headers"));
    }
    if full {
        if let Some(cwd) = raw.get("cwd").or_else(|| raw.get("dir")) {
            value["cwd"] = cwd.clone();
        }
        if let Some(spec) = spec {
            let secs = |t: Option<Duration>| t.map(|t| t.as_secs());
            value["startup_timeout_seconds"] = json!(secs(spec.startup_timeout));
            value["call_timeout_seconds"] = json!(secs(spec.call_timeout));
            value["tool_timeout_seconds"] = spec
                .tool_timeouts
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(v.as_secs())))
                .collect::<serde_json::Map<_, _>>()
                .into();
        }
    }
    value
}
