//! The built-in `instructions` interceptor: at `system_prompt.build` it appends the user's and
//! the project's instruction files to the system prompt.
//!
//! Sources, in this order (each under its own heading): the user's own files (Reasonix's home,
//! then `~/.claude/CLAUDE.md`; the host lists those directories in [`USER_DIRS_ENV`] and lets
//! this component read Markdown files there and nothing else), then the workspace root
//! (`REASONIX.md`, `AGENTS.md`, `CLAUDE.md`, each followed by its `.local.md` variant), then
//! `.claude/CLAUDE.md`. A line holding only `@relative/path` imports that file in its place
//! ([`imports`]). Each file is cut at [`MAX_FILE_BYTES`], all of them at [`MAX_TOTAL_BYTES`].
#![forbid(unsafe_code)]

pub mod imports;
pub mod sources;

use reasonix_sdk::{Decision, Error, Plugin, PluginInfo, Subscription, WorkspaceAccess};
use serde_json::Value;
use sources::Found;
use std::path::{Path, PathBuf};

pub const POINT: &str = "system_prompt.build";
/// After the environment section (`environment`, priority 0).
pub const PRIORITY: i32 = 100;
/// At most this many bytes of one instruction file (with its imports) enter the prompt.
pub const MAX_FILE_BYTES: usize = 32 * 1024;
/// At most this many bytes of all instruction files together.
pub const MAX_TOTAL_BYTES: usize = 64 * 1024;
/// Where the host lists the user's instruction directories, one per line. Requesting this name
/// is what asks the host for read access to them (Markdown files only; see ADR 0019).
pub const USER_DIRS_ENV: &str = "REASONIX_USER_DIRS";

/// The config key under which the host names the trusted project directory, if any.
pub const TRUSTED_KEY: &str = "trusted_project";

/// The project-instructions plugin.
pub struct Instructions;

impl Plugin for Instructions {
    fn info() -> PluginInfo {
        let mut info = reasonix_sdk::plugin_info(
            "instructions",
            "0.1.0",
            "Built-in interceptor: the user's and the project's instruction files in the system prompt",
        );
        info.capabilities.workspace = WorkspaceAccess::Read;
        info.capabilities.env = vec![USER_DIRS_ENV.to_string()];
        info
    }

    fn subscriptions() -> Vec<Subscription> {
        vec![Subscription::new(POINT).priority(PRIORITY)]
    }

    fn intercept(point: &str, payload: &str) -> Result<Decision, Error> {
        if point != POINT {
            return Ok(Decision::Proceed);
        }
        let mut value: Value = serde_json::from_str(payload).map_err(|e| {
            Error::InvalidInput(format!("instructions: the `{POINT}` payload: {e}"))
        })?;
        let field = |name: &str| value.get(name).and_then(Value::as_str).map(str::to_string);
        let (Some(prompt), Some(workspace)) = (field("prompt"), field("workspaceRoot")) else {
            return Err(Error::InvalidInput(format!(
                "instructions: the `{POINT}` payload lacks `prompt` or `workspaceRoot`"
            )));
        };
        let user_dirs: Vec<PathBuf> = std::env::var(USER_DIRS_ENV)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.is_empty())
            .map(PathBuf::from)
            .collect();
        // Set by the host (never a file): the project directory the user trusted, whose
        // instruction files may import from `~/.claude`.
        let trusted = reasonix_sdk::host::config_value(TRUSTED_KEY)
            .and_then(|v| v.as_str().map(PathBuf::from))
            .filter(|p| p.is_absolute());
        let found = sources::collect(&user_dirs, Path::new(&workspace), trusted.as_deref());
        if found.is_empty() {
            return Ok(Decision::Proceed);
        }
        value["prompt"] = Value::String(append(&prompt, &found));
        Ok(Decision::Replace(value.to_string()))
    }
}

/// The section for `found`, starting with the blank line that separates it from the prompt
/// before it (whose last line ends with a newline when the environment section is there).
pub fn render(found: &[Found]) -> String {
    let only_root = found.iter().all(|f| f.in_workspace_root);
    let mut out = String::from("\n# Project instructions\n\n");
    out.push_str(if only_root {
        "The project keeps these instructions for agents in its root directory. Follow them; they take precedence over the general guidance above when the two disagree.\n"
    } else {
        "The user and the project keep these instructions for agents. Follow them; they take precedence over the general guidance above when the two disagree (the project's over the user's).\n"
    });
    for f in found {
        out.push_str(&format!("\n## {}\n\n{}\n", f.heading, f.text));
        if f.truncated {
            out.push_str(&format!(
                "\n[{} is longer; only its first part is shown. Read the file for the rest.]\n",
                f.heading
            ));
        }
    }
    out
}

/// Put the section after `prompt`: one blank line between them.
pub fn append(prompt: &str, found: &[Found]) -> String {
    let mut out = prompt.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&render(found));
    out
}

reasonix_sdk::export!(Instructions);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
