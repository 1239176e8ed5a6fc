//! `reasonix mcp`: the MCP servers Reasonix starts: add, remove, list, show and import them,
//! and approve a project's `.mcp.json` (its servers start only once the user approved that
//! very file).
//!
//! Scopes as in Claude Code: `local` servers (yours, for this workspace only) go to
//! `projects.<workspace>.mcpServers` of `<home>/mcp.json`, `user` ones (yours, every workspace)
//! to its top-level `mcpServers`, `project` ones to the workspace's `.mcp.json` (shared with the
//! repository), all in Claude Code's `mcpServers` schema; `[[plugins]]` entries of the
//! `config.toml` files are listed but never edited here.

mod add;
mod add_json;
mod approve;
mod import;
mod remove;
mod show;
mod status;

use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use anyhow::anyhow;
use reasonix_config::mcp_files::{self, McpFile};
use reasonix_config::{Paths, TrustStore};
use reasonix_core::terminal::shown;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Subcommand)]
pub enum McpCommand {
    /// Add a server: `add <name> [-e KEY=VALUE]... -- <command> [args...]` (stdio), or
    /// `add --transport http|sse <name> <url> [-H "Name: value"]...`.
    Add(add::AddArgs),
    /// Add a server from its JSON entry, as Claude Code writes it: `add-json <name> '<json>'`
    /// (e.g. '{"type":"http","url":"https://…"}' or '{"command":"npx","args":[…]}').
    AddJson(add_json::AddJsonArgs),
    /// Remove a server from the mcp.json file that defines it.
    Remove(remove::RemoveArgs),
    /// Every configured server: source file, transport, enabled, approval of project files,
    /// and its status (each enabled server is started to count its tools).
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// One server in full: command and arguments or URL, environment variable and header
    /// names (never their values), timeouts, the file it comes from, status and tools.
    Get {
        name: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Copy servers from Claude Code's configuration (~/.claude.json: its own servers and
    /// this project's) or from another .mcp.json file.
    Import(import::ImportArgs),
    /// Approve this workspace's .mcp.json as it is now: its servers may start. A changed file
    /// needs approving again.
    Trust,
    /// Withdraw the approval of this workspace's .mcp.json.
    Untrust,
}

pub fn run(command: McpCommand) -> Outcome {
    match command {
        McpCommand::Add(args) => add::run(args),
        McpCommand::AddJson(args) => add_json::run(args),
        McpCommand::Remove(args) => remove::run(args),
        McpCommand::List { json } => show::list(json),
        McpCommand::Get { name, json } => show::get(&name, json),
        McpCommand::Import(args) => import::run(args),
        McpCommand::Trust => approve::trust(),
        McpCommand::Untrust => approve::untrust(),
    }
}

/// Which file an edit goes to (Claude Code's scopes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// Yours, in this workspace only: `projects.<workspace>.mcpServers` of `<home>/mcp.json`.
    Local,
    /// `<home>/mcp.json`: yours, in every workspace.
    User,
    /// `.mcp.json` of the current directory: shared with the repository.
    Project,
}

/// The workspace: the current directory, canonical (as the trust list records it).
fn workspace() -> Result<PathBuf, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::usage(anyhow!("cannot read the current directory: {e}")))?;
    Ok(std::fs::canonicalize(&cwd).unwrap_or(cwd))
}

fn scope_file(paths: &Paths, workspace: &Path, scope: Scope) -> PathBuf {
    match scope {
        Scope::User | Scope::Local => mcp_files::user_file(&paths.home),
        Scope::Project => mcp_files::project_file(workspace),
    }
}

/// The servers of `scope`, read for editing.
fn load_scope(paths: &Paths, workspace: &Path, scope: Scope) -> Result<McpFile, Failure> {
    let path = scope_file(paths, workspace, scope);
    match scope {
        Scope::Local => McpFile::load_local(&path, workspace),
        Scope::User | Scope::Project => McpFile::load(&path),
    }
    .map_err(Failure::usage)
}

/// How a scope is named in messages: `local` names the workspace, since its file does not.
fn scope_place(file: &McpFile, scope: Scope, workspace: &Path) -> String {
    let path = shown(&file.path().display().to_string()).to_string();
    match scope {
        Scope::Local => format!(
            "{path} (local: only in {})",
            shown(&workspace.display().to_string())
        ),
        Scope::User => format!("{path} (user: every workspace)"),
        Scope::Project => format!("{path} (project: shared with the repository)"),
    }
}

/// Write an edited file. The project file keeps its approval when the user edits an approved
/// file through these commands (the change is their own); otherwise say what starting its
/// servers needs.
fn save_edit(paths: &Paths, workspace: &Path, scope: Scope, file: &McpFile) -> Result<(), Failure> {
    match scope {
        Scope::User | Scope::Local => file.save(true).map_err(Failure::runtime),
        Scope::Project => {
            let mut store = TrustStore::load(&paths.home).map_err(Failure::usage)?;
            // Approved as read (not as the file may hold by now), and re-approved as written.
            let pinned = file.pins(workspace, &lookup(workspace));
            let was_approved = file
                .loaded_sha256()
                .is_some_and(|sha| store.mcp_content_approved(workspace, sha, &pinned));
            file.save(false).map_err(Failure::runtime)?;
            if was_approved {
                let pinned = file.pins(workspace, &lookup(workspace));
                store.approve_mcp_content(workspace, file.text_sha256(), pinned);
                store.save(&paths.home).map_err(Failure::runtime)?;
                outln!(
                    "{} stays approved with this change (see `reasonix mcp untrust`)",
                    shown(&file.path().display().to_string())
                );
            } else if file.servers().next().is_some() {
                outln!(
                    "note: the servers of {} start only once you approve the file: `reasonix mcp trust`",
                    shown(&file.path().display().to_string())
                );
            }
            Ok(())
        }
    }
}

/// Add (or with `force` replace) server `name` in `scope` and say where it went; `what`
/// describes it, already escaped.
fn save_entry(
    scope: Scope,
    name: &str,
    entry: serde_json::Value,
    force: bool,
    what: &str,
) -> Outcome {
    let paths = Paths::from_env();
    let workspace = workspace()?;
    let mut file = load_scope(&paths, &workspace, scope)?;
    let replaced = file.insert(name, entry, force).map_err(Failure::usage)?;
    save_edit(&paths, &workspace, scope, &file)?;
    let verb = if replaced.is_some() {
        "replaced"
    } else {
        "added"
    };
    outln!("{verb} {what} in {}", scope_place(&file, scope, &workspace));
    Ok(Code::Success)
}

/// `${VAR}` as the servers will see it (as the config loader expands it):
/// `REASONIX_WORKSPACE_ROOT` and `CLAUDE_PROJECT_DIR` name the workspace, other names come from
/// the environment.
fn lookup(workspace: &Path) -> impl Fn(&str) -> Option<String> {
    let workspace = workspace.to_string_lossy().into_owned();
    move |name: &str| match name {
        "REASONIX_WORKSPACE_ROOT" | "CLAUDE_PROJECT_DIR" => Some(workspace.clone()),
        _ => std::env::var(name).ok(),
    }
}

/// A command line for display: each word escaped, and quoted as a shell would need it when it
/// holds anything but plain characters.
fn command_line<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    words
        .into_iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
            let word = if plain {
                w.to_string()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            };
            shown(&word).to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}
