//! `reasonix`: the command-line front end.
#![forbid(unsafe_code)]

mod builtins;
mod commands;
mod context;
mod exit;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "reasonix",
    version,
    about = "A coding agent for the terminal where every capability is a sandboxed WebAssembly plugin"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the version, the WIT contract version and the engine.
    Version,
    /// Inspect plugins.
    #[command(subcommand)]
    Plugin(PluginCommand),
    /// Inspect and invoke tools.
    #[command(subcommand)]
    Tools(ToolsCommand),
}

#[derive(Debug, Subcommand)]
enum PluginCommand {
    /// Every plugin: name, version, source, roles, what it serves, capabilities requested and granted.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum ToolsCommand {
    /// Every tool: name, read-only flag and canonical JSON schema.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Print the tool contract as Markdown (what `docs/TOOL_CONTRACT.md` holds).
    Doc,
    /// Invoke one tool, as a plugin developer would to test it. The result goes to stdout
    /// (exit 0); a tool error goes to stderr (exit 1).
    Call {
        /// Tool name.
        name: String,
        /// Arguments as a JSON object.
        arguments: String,
        /// Workspace root (default: `[sandbox] workspace_root`, else the current directory).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Version => commands::version::run(),
        Command::Plugin(PluginCommand::List { json }) => commands::plugins::list(json),
        Command::Tools(ToolsCommand::List { json }) => commands::tools::list(json),
        Command::Tools(ToolsCommand::Doc) => commands::tools::doc(),
        Command::Tools(ToolsCommand::Call {
            name,
            arguments,
            dir,
        }) => commands::tools::call(&name, &arguments, dir.as_deref()),
    };
    match result {
        Ok(code) => code.into(),
        Err(failure) => {
            eprintln!("error: {failure:#}");
            failure.exit_code().into()
        }
    }
}
