//! `reasonix mcp import`: servers from Claude Code's configuration (or any `mcpServers`
//! file) copied, as written, into ours, each keeping its scope.

use super::{Scope, load_scope, save_edit, scope_file, scope_place, workspace};
use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use anyhow::anyhow;
use reasonix_config::Paths;
use reasonix_config::mcp_files::{self, McpFile};
use reasonix_core::terminal::shown;
use serde_json::Value;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The file to import from: a .mcp.json, or Claude Code's user config (default:
    /// ~/.claude.json, whose own servers and this project's are imported).
    #[arg(long)]
    from: Option<PathBuf>,
    /// Where the file's top-level `mcpServers` go (Claude Code's user servers: `user` by
    /// default). The servers Claude Code keeps for this project (`projects.<dir>`, its `local`
    /// scope) always become this workspace's local servers, never user-wide or project ones.
    #[arg(long, short = 's', value_enum, default_value = "user")]
    scope: Scope,
    /// Replace servers of the same name instead of skipping them.
    #[arg(long)]
    force: bool,
}

pub fn run(args: ImportArgs) -> Outcome {
    let paths = Paths::from_env();
    let workspace = workspace()?;
    let from = match args.from {
        Some(path) => path,
        None => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".claude.json"))
            .ok_or_else(|| Failure::usage(anyhow!("HOME is not set; name the file with --from")))?,
    };
    let found = mcp_files::importable(&from, &workspace).map_err(Failure::usage)?;
    let from_shown = from.display().to_string();
    for scope in [args.scope, Scope::Local] {
        let target = scope_file(&paths, &workspace, scope);
        if std::fs::canonicalize(&from).ok() == std::fs::canonicalize(&target).ok()
            && target.exists()
        {
            return Err(Failure::usage(anyhow!(
                "{} is the file to import into; choose the other --scope",
                shown(&from_shown)
            )));
        }
    }
    // `<home>/mcp.json` holds both the user and the local servers: one document for both.
    let mut home: Option<McpFile> = None;
    let mut project: Option<McpFile> = None;
    let mut touched: Vec<Scope> = Vec::new();
    let (mut imported, mut skipped) = (0, 0);
    for item in found {
        // Claude Code's `local` servers are for this workspace only, whatever --scope says:
        // copied anywhere else they would start in every workspace, or go into the repository.
        let scope = if item.local { Scope::Local } else { args.scope };
        let slot = match scope {
            Scope::Project => &mut project,
            Scope::User | Scope::Local => &mut home,
        };
        let file = match slot {
            Some(file) => file,
            None => slot.insert(load_scope(&paths, &workspace, scope)?),
        };
        file.select((scope == Scope::Local).then_some(workspace.as_path()))
            .map_err(Failure::usage)?;
        let name_shown = shown(&item.name).to_string();
        if let Some(reason) = why_not(file, &item.name, &item.entry, args.force) {
            skipped += 1;
            outln!("skipped `{name_shown}` ({}): {reason}", shown(&item.place));
            continue;
        }
        let replaced = file
            .insert(&item.name, item.entry.clone(), args.force)
            .map_err(Failure::usage)?;
        imported += 1;
        let verb = if replaced.is_some() {
            "replaced"
        } else {
            "imported"
        };
        outln!(
            "{verb} `{name_shown}` ({}) as {}: {}",
            shown(&item.place),
            scope_name(scope),
            super::approve::describe(&item.entry)
        );
        if !touched.contains(&scope) {
            touched.push(scope);
        }
    }
    if let Some(file) = &home
        && touched.iter().any(|s| *s != Scope::Project)
    {
        save_edit(&paths, &workspace, Scope::User, file)?;
    }
    if let Some(file) = &project
        && touched.contains(&Scope::Project)
    {
        save_edit(&paths, &workspace, Scope::Project, file)?;
    }
    let mut into: Vec<String> = Vec::new();
    for scope in &touched {
        if let Some(file) = match scope {
            Scope::Project => &project,
            Scope::User | Scope::Local => &home,
        } {
            into.push(scope_place(file, *scope, &workspace));
        }
    }
    let into = if into.is_empty() {
        "nothing".to_string()
    } else {
        into.join(" and ")
    };
    outln!(
        "{imported} imported into {into}, {skipped} skipped, from {}",
        shown(&from_shown)
    );
    Ok(Code::Success)
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Local => "local (this workspace only)",
        Scope::User => "user",
        Scope::Project => "project",
    }
}

/// Why an entry is not imported, or `None` when it is.
fn why_not(file: &McpFile, name: &str, entry: &Value, force: bool) -> Option<String> {
    if let Some(problem) = reasonix_config::mcp::server_name_problem(name) {
        return Some(format!("{problem} (rename it in the source first)"));
    }
    if let Some(reason) = unsupported_transport(entry) {
        return Some(reason);
    }
    if let Err(e) = mcp_files::check_entry(file.path(), name, entry) {
        return Some(format!(
            "not an entry Reasonix can start: {}",
            shown(&e.to_string())
        ));
    }
    if file.get(name).is_some() && !force {
        return Some(format!(
            "a server of that name is already in {} (--force replaces it)",
            shown(&file.path().display().to_string())
        ));
    }
    None
}

/// Why an entry's `type` is not a transport Reasonix speaks, or `None`.
pub(super) fn unsupported_transport(entry: &Value) -> Option<String> {
    let kind = entry.get("type").and_then(Value::as_str)?;
    let known = matches!(
        kind.to_ascii_lowercase().as_str(),
        "stdio" | "http" | "sse" | "streamable-http" | "streamable_http"
    );
    (!known).then(|| {
        format!(
            "transport type `{}` is not supported (Reasonix speaks stdio, http and sse)",
            shown(kind)
        )
    })
}
