//! `reasonix mcp import`: servers from Claude Code's configuration (or any `mcpServers`
//! file) copied, as written, into ours.

use super::{Scope, save_edit, scope_file, workspace};
use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use anyhow::anyhow;
use reasonix_agent::config::Paths;
use reasonix_agent::config::mcp_files::{self, McpFile};
use reasonix_core::terminal::shown;
use serde_json::Value;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The file to import from: a .mcp.json, or Claude Code's user config (default:
    /// ~/.claude.json, whose own servers and this project's are imported).
    #[arg(long)]
    from: Option<PathBuf>,
    /// Which of our files to write.
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
    let target = scope_file(&paths, &workspace, args.scope);
    let from_shown = from.display().to_string();
    let target_shown = target.display().to_string();
    if std::fs::canonicalize(&from).ok() == std::fs::canonicalize(&target).ok() && target.exists() {
        return Err(Failure::usage(anyhow!(
            "{} is the file to import into; choose the other --scope",
            shown(&from_shown)
        )));
    }
    let mut file = McpFile::load(&target).map_err(Failure::usage)?;
    let mut imported = 0;
    let mut skipped = 0;
    for (name, entry, place) in found {
        let name_shown = shown(&name).to_string();
        match why_not(&file, &name, &entry, args.force) {
            Some(reason) => {
                skipped += 1;
                outln!("skipped `{name_shown}` ({}): {reason}", shown(&place));
            }
            None => {
                let replaced = file
                    .insert(&name, entry.clone(), args.force)
                    .map_err(Failure::usage)?;
                imported += 1;
                let verb = if replaced.is_some() {
                    "replaced"
                } else {
                    "imported"
                };
                outln!(
                    "{verb} `{name_shown}` ({}): {}",
                    shown(&place),
                    super::approve::describe(&entry)
                );
            }
        }
    }
    if imported > 0 {
        save_edit(&paths, &workspace, args.scope, &file)?;
    }
    outln!(
        "{imported} imported into {}, {skipped} skipped, from {}",
        shown(&target_shown),
        shown(&from_shown)
    );
    Ok(Code::Success)
}

/// Why an entry is not imported, or `None` when it is.
fn why_not(file: &McpFile, name: &str, entry: &Value, force: bool) -> Option<String> {
    if let Some(problem) = reasonix_agent::config::mcp::server_name_problem(name) {
        return Some(format!("{problem} (rename it in the source first)"));
    }
    if let Some(kind) = entry.get("type").and_then(Value::as_str)
        && !matches!(
            kind.to_ascii_lowercase().as_str(),
            "stdio" | "http" | "sse" | "streamable-http" | "streamable_http"
        )
    {
        return Some(format!(
            "transport type `{}` is not supported (Reasonix speaks stdio, http and sse)",
            shown(kind)
        ));
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
