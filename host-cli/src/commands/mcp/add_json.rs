//! `reasonix mcp add-json <name> '<json>'`: one server from its `mcpServers` entry, as Claude
//! Code's `claude mcp add-json` takes it.

use super::{Scope, save_entry};
use crate::exit::{Failure, Outcome};
use anyhow::anyhow;
use reasonix_core::terminal::shown;
use serde_json::Value;

#[derive(Debug, clap::Args)]
pub struct AddJsonArgs {
    /// Where to add it: `local` (yours, this workspace only; the default, as in Claude Code),
    /// `user` (yours, every workspace) or `project` (the workspace's .mcp.json).
    #[arg(long, short = 's', value_enum, default_value = "local")]
    scope: Scope,
    /// Replace a server of the same name in that scope.
    #[arg(long)]
    force: bool,
    /// Server name: letters, digits, `-` and `_` (tools become `mcp__<name>__<tool>`).
    name: String,
    /// The entry: a JSON object with `command` (and `args`, `env`, `cwd`) or `type` and `url`
    /// (and `headers`), as in a `.mcp.json`.
    json: String,
}

pub fn run(args: AddJsonArgs) -> Outcome {
    let entry = parse(&args.json)?;
    if let Some(reason) = super::import::unsupported_transport(&entry) {
        return Err(Failure::usage(anyhow!(
            "server `{}`: {reason}",
            shown(&args.name)
        )));
    }
    let what = format!(
        "server `{}`: {}",
        shown(&args.name),
        super::approve::describe(&entry)
    );
    save_entry(args.scope, &args.name, entry, args.force, &what)
}

/// The entry, or an error giving the line and column of what is wrong with it.
fn parse(text: &str) -> Result<Value, Failure> {
    let entry: Value = serde_json::from_str(text).map_err(|e| {
        Failure::usage(anyhow!(
            "the server's JSON is not valid at line {}, column {}: {}",
            e.line(),
            e.column(),
            shown(&e.to_string())
        ))
    })?;
    if !entry.is_object() {
        return Err(Failure::usage(anyhow!(
            "the server's JSON must be an object such as {{\"command\": \"npx\", \"args\": [\"-y\", \"server\"]}} or {{\"type\": \"http\", \"url\": \"https://…\"}}"
        )));
    }
    Ok(entry)
}
