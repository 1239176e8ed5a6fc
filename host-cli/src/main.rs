//! `reasonix`: the command-line front end.
#![forbid(unsafe_code)]

mod cli_text;
mod commands;
mod exit;
mod flags;
mod i18n_lint;
mod term;
mod tui;
mod wording;

use crate::term::errln;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use reasonix_runtime::{builtins, clock, context, hooks, launch, mcp};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "reasonix",
    version,
    about = "A coding agent for the terminal where every capability is a sandboxed WebAssembly plugin",
    after_help = "As in Claude Code, `reasonix -p \"task\" [flags]` is `reasonix run -p \"task\" [flags]`."
)]
struct Cli {
    /// Trust this workspace's reasonix.toml for this run: settings that widen what plugins,
    /// commands or credentials reach take effect (see `reasonix trust`).
    #[arg(long, global = true)]
    trust_workspace: bool,
    /// Let the project's `.mcp.json` servers start for this run (see `reasonix mcp trust`).
    #[arg(long, global = true)]
    trust_mcp: bool,
    #[command(subcommand)]
    command: Option<Command>,
    /// Without a subcommand: the interactive session.
    #[command(flatten)]
    session: tui::SessionArgs,
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
    /// The configured LLM providers.
    #[command(subcommand)]
    Providers(ProvidersCommand),
    /// Check the installation and configuration; exit 1 when something would not work.
    Doctor {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Run one task headless, to the end: the answer streams to stdout, tool activity to
    /// stderr. Exit 0 on success, 1 when the run fails, 2 on a usage or configuration error,
    /// 3 when the final answer was cut off, 4 when `--timeout` was reached.
    Run(Box<commands::run::RunArgs>),
    /// Saved sessions (transcripts) of a workspace.
    #[command(subcommand)]
    Sessions(commands::sessions_cli::SessionsCommand),
    /// Trust a workspace: its reasonix.toml may then widen what plugins, commands and
    /// credentials reach (sandbox roots, network, permissions, providers). Without arguments,
    /// trusts the current directory.
    Trust(commands::trust::TrustArgs),
    /// Hooks from settings.json files (Claude Code compatible).
    #[command(subcommand)]
    Hooks(HooksCommand),
    /// Choose a provider, save its API key and test it (interactive; needs a terminal).
    Setup,
    /// MCP servers: add, remove, list, get, import; approve a project's .mcp.json.
    #[command(subcommand)]
    Mcp(commands::mcp::McpCommand),
    /// Serve the Agent Client Protocol on stdin/stdout, for editors that start an agent
    /// (Zed, JetBrains, Neovim plugins): sessions, streamed updates, tool calls with diffs,
    /// approvals in the editor. docs/ACP.md.
    Acp,
    /// Serve the session protocol over HTTP and server-sent events (loopback by default;
    /// every API request needs the token). docs/SERVE.md.
    Serve(commands::serve::ServeArgs),
    /// Skills (SKILL.md folders) this workspace sees: list them, show one.
    #[command(subcommand)]
    Skills(commands::skills::SkillsCommand),
}

#[derive(Debug, Subcommand)]
enum HooksCommand {
    /// Every configured hook: event, point, matcher, command, the file it comes from, and
    /// whether it runs (trusted, fires in this build).
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum ProvidersCommand {
    /// Every configured provider: kind and the plugin serving it, endpoint, models, where the
    /// API key comes from (never the key). Exit 1 when a provider's kind is not served.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// The built-in presets a `[[providers]]` entry can start from (`preset = "<id>"`).
    Presets {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Send one prompt and stream the answer: text to stdout, reasoning, retries and usage to
    /// stderr.
    Try {
        /// Model reference: a provider name, `provider/model`, or a bare model name
        /// (default: `default_model`).
        #[arg(long, short)]
        model: Option<String>,
        /// Reasoning effort (e.g. low, high, max; default: the provider's).
        #[arg(long)]
        effort: Option<String>,
        /// The prompt.
        #[arg(required = true)]
        prompt: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
enum PluginCommand {
    /// Every plugin: name, version, source, roles, what it serves, capabilities requested and granted.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Install a component from a .wasm file or a directory (a cargo crate is built first),
    /// after showing what it asks for and getting the grant.
    Install(commands::plugins::InstallArgs),
    /// Reinstall a plugin from its recorded source (or a new one); asks again only when it
    /// requests more than it was granted.
    Update(commands::plugins::UpdateArgs),
    /// Everything about one plugin: description, tools, kinds, capabilities, limits, index entry.
    Info {
        name: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Everything about one installed package: where it came from, what it brings and runs.
    Show {
        name: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Check one installed package: its files against their hashes, and that it still reads.
    Doctor { name: String },
    /// Marketplaces (Claude Code's `.claude-plugin/marketplace.json`) to install packages from
    /// as `entry@marketplace`.
    #[command(subcommand)]
    Marketplace(commands::packages::MarketplaceCommand),
    /// Remove an installed plugin: its file, index entry and compiled artifacts.
    Remove { name: String },
    /// Enable an installed plugin.
    Enable { name: String },
    /// Disable an installed plugin (it is kept but not loaded).
    Disable { name: String },
    /// Scaffold a plugin crate (Rust, reasonix-sdk) that builds with
    /// `cargo build --release --target wasm32-wasip2`.
    New {
        /// Plugin (and crate) name: lowercase letters, digits, `-`, `_`, starting with a letter.
        name: String,
        /// What the plugin serves.
        #[arg(long, value_enum, default_value = "tool")]
        kind: commands::plugin_new::Kind,
        /// Directory to create (default: ./<name>); must be missing or empty.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The reasonix-sdk crate to depend on (default: the sdk/ of the tree this binary was
        /// built from).
        #[arg(long)]
        sdk_path: Option<PathBuf>,
    },
    /// Write the plugin contract (the WIT package) for components in other languages.
    Wit {
        /// Directory to write the .wit files to (default: ./wit).
        #[arg(long)]
        out: Option<PathBuf>,
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

/// The subcommands, for [`with_print_shorthand`].
const SUBCOMMANDS: &[&str] = &[
    "version",
    "plugin",
    "tools",
    "providers",
    "doctor",
    "run",
    "sessions",
    "trust",
    "hooks",
    "setup",
    "mcp",
    "skills",
    "help",
];

/// Claude Code's `claude -p "task" …`: with `-p`/`--print` among the arguments (before `--`)
/// and no subcommand first, the arguments are those of `run`. `reasonix -p "task"` is
/// `reasonix run -p "task"`.
fn with_print_shorthand(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let first = args
        .iter()
        .skip(1)
        .position(|a| a != "--trust-workspace" && a != "--trust-mcp")
        .map(|i| i + 1);
    let Some(first) = first else {
        return args;
    };
    if args[first]
        .to_str()
        .is_some_and(|a| SUBCOMMANDS.contains(&a))
    {
        return args;
    }
    let print = args[first..]
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "-p" || a == "--print");
    if print {
        args.insert(first, "run".into());
    }
    args
}

fn main() -> ExitCode {
    // Before anything is started: keys the user exported must not be readable from
    // /proc/<pid>/environ by the programs Reasonix runs with the user's rights.
    if let Err(e) = reasonix_host::host::process::keep_environment_private() {
        errln!("warning: {e}");
    }
    let language = reasonix_i18n::choose(cli_text::configured_language().as_deref(), &|name| {
        std::env::var(name).ok()
    });
    reasonix_i18n::set_language(language.language);
    let matches = cli_text::localize(Cli::command(), language.language)
        .get_matches_from(with_print_shorthand(std::env::args_os().collect()));
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    context::trust_workspace_for_this_run(cli.trust_workspace);
    mcp::trust_mcp_for_this_run(cli.trust_mcp);
    let Some(command) = cli.command else {
        return finish(tui::run(cli.session));
    };
    let result = match command {
        Command::Version => commands::version::run(),
        Command::Plugin(PluginCommand::List { json }) => commands::plugins::list(json),
        Command::Plugin(PluginCommand::Install(args)) => commands::plugins::install(args),
        Command::Plugin(PluginCommand::Update(args)) => commands::plugins::update(args),
        Command::Plugin(PluginCommand::Info { name, json }) => commands::plugins::info(&name, json),
        Command::Plugin(PluginCommand::Remove { name }) => commands::plugins::remove(&name),
        Command::Plugin(PluginCommand::Show { name, json }) => commands::plugins::info(&name, json),
        Command::Plugin(PluginCommand::Doctor { name }) => commands::packages::doctor(&name),
        Command::Plugin(PluginCommand::Marketplace(command)) => {
            commands::packages::marketplace(command)
        }
        Command::Plugin(PluginCommand::Enable { name }) => {
            commands::plugins::set_enabled(&name, true)
        }
        Command::Plugin(PluginCommand::Disable { name }) => {
            commands::plugins::set_enabled(&name, false)
        }
        Command::Plugin(PluginCommand::New {
            name,
            kind,
            dir,
            sdk_path,
        }) => commands::plugin_new::run(&name, kind, dir.as_deref(), sdk_path.as_deref()),
        Command::Plugin(PluginCommand::Wit { out }) => commands::plugin_wit::run(out.as_deref()),
        Command::Tools(ToolsCommand::List { json }) => commands::tools::list(json),
        Command::Tools(ToolsCommand::Doc) => commands::tools::doc(),
        Command::Providers(ProvidersCommand::List { json }) => commands::providers::list(json),
        Command::Providers(ProvidersCommand::Presets { json }) => {
            commands::providers::presets(json)
        }
        Command::Providers(ProvidersCommand::Try {
            model,
            effort,
            prompt,
        }) => {
            commands::providers::try_prompt(model.as_deref(), effort.as_deref(), &prompt.join(" "))
        }
        Command::Doctor { json } => commands::doctor::run(json),
        Command::Run(args) => commands::run::run(*args),
        Command::Trust(args) => commands::trust::run(args),
        Command::Hooks(HooksCommand::List { json }) => commands::hooks::list(json),
        Command::Skills(command) => commands::skills::run(command),
        Command::Setup => commands::setup::run(),
        Command::Serve(args) => commands::serve::run(args),
        Command::Acp => reasonix_acp::serve()
            .map(|()| exit::Code::Success)
            .map_err(|e| exit::Failure::runtime(anyhow::anyhow!(e))),
        Command::Mcp(command) => commands::mcp::run(command),
        Command::Sessions(command) => commands::sessions_cli::run(command),
        Command::Tools(ToolsCommand::Call {
            name,
            arguments,
            dir,
        }) => commands::tools::call(&name, &arguments, dir.as_deref()),
    };
    finish(result)
}

fn finish(result: exit::Outcome) -> ExitCode {
    match result {
        Ok(code) => code.into(),
        Err(failure) => {
            let home = reasonix_config::Paths::from_env().home;
            let message = commands::setup::with_real_home(&format!("{failure:#}"), &home);
            errln!("{}", reasonix_i18n::t!("run-error", message = message));
            failure.exit_code().into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(args: &[&str]) -> Vec<String> {
        with_print_shorthand(args.iter().map(|a| a.into()).collect())
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn print_shorthand_is_run() {
        assert_eq!(rewrite(&["r", "-p", "task"]), ["r", "run", "-p", "task"]);
        assert_eq!(
            rewrite(&["r", "--trust-workspace", "--model", "m", "--print", "t"]),
            [
                "r",
                "--trust-workspace",
                "run",
                "--model",
                "m",
                "--print",
                "t"
            ]
        );
        // A subcommand first, no -p, or -p only after `--`: unchanged.
        assert_eq!(rewrite(&["r", "run", "-p", "t"]), ["r", "run", "-p", "t"]);
        assert_eq!(rewrite(&["r", "doctor"]), ["r", "doctor"]);
        assert_eq!(rewrite(&["r", "--model", "m"]), ["r", "--model", "m"]);
        assert_eq!(rewrite(&["r", "--", "-p"]), ["r", "--", "-p"]);
        assert_eq!(rewrite(&["r"]), ["r"]);
    }
}
