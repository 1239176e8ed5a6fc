//! `reasonix sessions …`: the subcommands and their dispatch.

use super::session_admin as admin;
use super::session_rewind::{self as rewind, Scope};
use crate::exit::{Failure, Outcome};
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// The sessions of the workspace, most recently updated first.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Workspace root (default: `[sandbox] workspace_root`, else the current directory).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Print a session's conversation (id, id prefix or title text).
    Show {
        session: String,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Write a session's conversation as Markdown or JSON lines, or its transcript (to move
    /// it to another machine: `sessions import --from FILE` there).
    Export {
        session: String,
        #[arg(long, value_enum, default_value = "markdown")]
        format: super::session_admin::ExportFormat,
        /// Write to this file (atomically) instead of stdout.
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Give a session a title (`sessions list` and `--resume` use it).
    Rename {
        session: String,
        title: String,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Delete a session with its checkpoints and archive (refused while it is open).
    Delete {
        session: String,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// A new session sharing the history up to the start of a turn (all of it without --turn).
    Fork {
        session: String,
        #[arg(long)]
        turn: Option<u32>,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Add transcripts to this workspace's sessions: exported with `--format transcript`
    /// (from another machine), or the original Reasonix's (Go), converted: those of `--from`,
    /// else every one found under the state directory (`sessions-v4`).
    Import {
        /// A transcript (`<id>.jsonl`) or a directory of them; repeatable.
        #[arg(long)]
        from: Vec<PathBuf>,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// The sessions with their fork relations.
    Tree {
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Put the files and/or the conversation back to the start of a turn, or undo the last
    /// rewind. What shell commands changed is not tracked.
    Rewind {
        session: String,
        #[arg(long, required_unless_present = "undo")]
        turn: Option<u32>,
        /// Only the files.
        #[arg(long, conflicts_with_all = ["conversation", "both", "undo"])]
        code: bool,
        /// Only the conversation.
        #[arg(long, conflicts_with_all = ["both", "undo"])]
        conversation: bool,
        /// Files and conversation (the default).
        #[arg(long, conflicts_with = "undo")]
        both: bool,
        /// Undo the last rewind.
        #[arg(long, conflicts_with = "turn")]
        undo: bool,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

pub fn run(command: SessionsCommand) -> Outcome {
    match command {
        SessionsCommand::List { json, dir } => super::sessions::list(json, dir.as_deref()),
        SessionsCommand::Show { session, dir } => admin::show(&session, dir.as_deref()),
        SessionsCommand::Export {
            session,
            format,
            output,
            dir,
        } => admin::export(&session, format, output.as_deref(), dir.as_deref()),
        SessionsCommand::Rename {
            session,
            title,
            dir,
        } => admin::rename(&session, &title, dir.as_deref()),
        SessionsCommand::Delete { session, dir } => admin::delete(&session, dir.as_deref()),
        SessionsCommand::Fork { session, turn, dir } => admin::fork(&session, turn, dir.as_deref()),
        SessionsCommand::Tree { dir } => admin::tree(dir.as_deref()),
        SessionsCommand::Import { from, dir } => super::session_import::run(&from, dir.as_deref()),
        SessionsCommand::Rewind {
            session,
            undo: true,
            dir,
            ..
        } => rewind::undo(&session, dir.as_deref()),
        SessionsCommand::Rewind {
            session,
            turn,
            code,
            conversation,
            dir,
            ..
        } => {
            let scope = match (code, conversation) {
                (true, _) => Scope::Code,
                (_, true) => Scope::Conversation,
                _ => Scope::Both,
            };
            let turn = turn.ok_or_else(|| {
                Failure::usage(anyhow::anyhow!("--turn N is required (or --undo)"))
            })?;
            rewind::rewind(&session, turn, scope, dir.as_deref())
        }
    }
}
