//! `reasonix mcp trust` / `untrust`: the approval of a project's `.mcp.json`. The file comes
//! with the repository, so whoever can change the repository chose its commands; they start
//! only after the user has seen them and approved that very file content.

use super::{command_line, workspace};
use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use anyhow::anyhow;
use reasonix_config::mcp_files::{self, McpFile};
use reasonix_config::{Paths, TrustStore};
use reasonix_core::terminal::shown;
use serde_json::Value;

pub fn trust() -> Outcome {
    let paths = Paths::from_env();
    let workspace = workspace()?;
    let path = mcp_files::project_file(&workspace);
    let file = McpFile::load(&path).map_err(Failure::usage)?;
    let shown_path = path.display().to_string();
    if !file.existed() {
        return Err(Failure::usage(anyhow!(
            "there is no {} to approve",
            shown(&shown_path)
        )));
    }
    let mut store = TrustStore::load(&paths.home).map_err(Failure::usage)?;
    let servers: Vec<(&String, &Value)> = file.servers().collect();
    if servers.is_empty() {
        outln!("{} configures no servers", shown(&shown_path));
    } else {
        outln!(
            "{} lets these servers start when Reasonix runs in {}:",
            shown(&shown_path),
            shown(&workspace.display().to_string())
        );
    }
    for (name, entry) in servers {
        outln!("  {}: {}", shown(name), describe(entry));
        if let Some(Value::Object(env)) = entry.get("env") {
            for (key, value) in env {
                let value = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_string);
                outln!("      env {}={}", shown(key), shown(&value));
            }
        }
        if let Some(cwd) = entry.get("cwd").and_then(Value::as_str) {
            outln!("      in {}", shown(cwd));
        }
        if let Err(e) = mcp_files::check_entry(&path, name, entry) {
            outln!("      (will not start: {})", shown(&e.to_string()));
        }
    }
    // The workspace files those commands execute, pinned by content: a change to one (an
    // edit, a pull) withdraws the approval as a change to the file itself does (ADR 0026).
    let pinned = file.pins(&workspace, &super::lookup(&workspace));
    for pin in &pinned {
        outln!(
            "  runs {} (sha256 {}), pinned: a change to it asks again",
            shown(&pin.path),
            pin.sha256.get(..12).unwrap_or(&pin.sha256)
        );
    }
    // The content shown above, not whatever the file holds a moment later.
    let sha = file
        .loaded_sha256()
        .ok_or_else(|| Failure::usage(anyhow!("there is no {} to approve", shown(&shown_path))))?;
    let changed = store.approve_mcp_content(&workspace, sha.to_string(), pinned);
    if changed {
        store.save(&paths.home).map_err(Failure::runtime)?;
        outln!(
            "approved {} as it is now; when it changes, its servers stop starting until you approve it again",
            shown(&shown_path)
        );
    } else {
        outln!("{} was already approved as it is", shown(&shown_path));
    }
    Ok(Code::Success)
}

pub fn untrust() -> Outcome {
    let paths = Paths::from_env();
    let workspace = workspace()?;
    let mut store = TrustStore::load(&paths.home).map_err(Failure::usage)?;
    let path = mcp_files::project_file(&workspace).display().to_string();
    if !store.unapprove_mcp(&workspace) {
        return Err(Failure::usage(anyhow!(
            "{} is not approved (nothing to withdraw)",
            shown(&path)
        )));
    }
    store.save(&paths.home).map_err(Failure::runtime)?;
    outln!(
        "{}: approval withdrawn; its servers no longer start",
        shown(&path)
    );
    Ok(Code::Success)
}

/// An entry as written: the command line in full, or the transport and URL with the names of
/// its headers.
pub(super) fn describe(entry: &Value) -> String {
    let text = |key: &str| entry.get(key).and_then(Value::as_str);
    if let Some(command) = text("command") {
        let args = entry
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|a| a.as_str().unwrap_or("<not a string>"));
        return format!(
            "stdio: {}",
            command_line(std::iter::once(command).chain(args))
        );
    }
    let kind = text("type").unwrap_or("http");
    let mut out = format!(
        "{}: {}",
        shown(kind),
        shown(text("url").unwrap_or("<no url>"))
    );
    if let Some(Value::Object(headers)) = entry.get("headers") {
        let names: Vec<String> = headers.keys().map(|k| shown(k).to_string()).collect();
        if !names.is_empty() {
            out.push_str(&format!(" (headers: {})", names.join(", ")));
        }
    }
    out
}
