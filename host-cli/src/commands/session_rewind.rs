//! `reasonix sessions rewind <session> --turn N [--code|--conversation|--both]` and
//! `--undo`: put the files and/or the conversation back to the start of a turn, or undo the
//! last rewind. Takes the session's lock: refused while a live process has it open.

use super::session_admin::workspace_store;
use crate::clock::now_ms;
use crate::exit::{Code, Failure, Outcome};
use crate::term::{errln, outln};
use anyhow::anyhow;
use reasonix_agent::checkpoint::{Checkpoint, CheckpointStore};
use reasonix_agent::rewind::{self, RestoreReport};
use reasonix_agent::session::{Record, load};
use reasonix_core::terminal::shown;
use std::path::Path;

/// What a rewind puts back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Code,
    Conversation,
    Both,
}

impl Scope {
    fn code(self) -> bool {
        self != Scope::Conversation
    }
    fn conversation(self) -> bool {
        self != Scope::Code
    }
    fn describe(self) -> &'static str {
        match self {
            Scope::Code => "files",
            Scope::Conversation => "conversation",
            Scope::Both => "files and conversation",
        }
    }
}

pub fn rewind(query: &str, turn: u32, scope: Scope, dir: Option<&Path>) -> Outcome {
    let (store, workspace) = workspace_store(dir)?;
    let summary = store.find(query).map_err(Failure::usage)?;
    let (mut writer, loaded) = store.open(&summary.id).map_err(Failure::runtime)?;
    let keep = match loaded.timeline.start_of(turn) {
        Some(index) => index,
        None if scope.conversation() => {
            let known: Vec<String> = loaded
                .timeline
                .turns
                .iter()
                .map(|t| t.turn.to_string())
                .collect();
            return Err(Failure::usage(anyhow!(
                "session {} has no turn {turn} in its conversation (turns: {})",
                summary.id,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
        None => loaded.messages.len(),
    };
    let checkpoints = CheckpointStore::for_transcript(writer.path());
    let report = if scope.code() {
        Some(rewind::rewind_code(&checkpoints, &workspace, turn).map_err(Failure::usage)?)
    } else {
        // Still a rewind of its own, so `--undo` undoes this one and not an older one.
        checkpoints
            .save_rewind(&Checkpoint {
                turn,
                ..Checkpoint::default()
            })
            .map_err(Failure::runtime)?;
        None
    };
    writer
        .append(&Record::Rewind {
            turn,
            keep,
            conversation: scope.conversation(),
            at_ms: now_ms(),
        })
        .map_err(Failure::runtime)?;
    outln!(
        "rewound session {} to the start of turn {turn} ({})",
        summary.id,
        scope.describe()
    );
    if scope.conversation() {
        let prompt = loaded.messages.get(keep).map(|m| m.content.as_str());
        outln!(
            "conversation: {keep} messages kept; turn {turn}'s prompt was: {}",
            shown(prompt.unwrap_or(""))
        );
    }
    let failed = report.as_ref().is_some_and(|r| !r.failed.is_empty());
    if let Some(report) = &report {
        print_report(report);
    }
    outln!(
        "undo it with: reasonix sessions rewind {} --undo",
        summary.id
    );
    Ok(if failed { Code::Failure } else { Code::Success })
}

pub fn undo(query: &str, dir: Option<&Path>) -> Outcome {
    let (store, workspace) = workspace_store(dir)?;
    let summary = store.find(query).map_err(Failure::usage)?;
    let (mut writer, before) = store.open(&summary.id).map_err(Failure::runtime)?;
    let checkpoints = CheckpointStore::for_transcript(writer.path());
    let report = rewind::undo_last(&checkpoints, &workspace).map_err(Failure::usage)?;
    writer
        .append(&Record::RewindUndone { at_ms: now_ms() })
        .map_err(Failure::runtime)?;
    let after = load(writer.path()).map_err(Failure::runtime)?;
    outln!("undid the last rewind of session {}", summary.id);
    if after.messages.len() != before.messages.len() {
        outln!("conversation: back to {} messages", after.messages.len());
    }
    print_report(&report);
    Ok(if report.failed.is_empty() {
        Code::Success
    } else {
        Code::Failure
    })
}

fn print_report(report: &RestoreReport) {
    let list = |paths: &[String]| {
        paths
            .iter()
            .map(|p| shown(p).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !report.restored.is_empty() {
        outln!("restored: {}", list(&report.restored));
    }
    if !report.deleted.is_empty() {
        outln!("deleted: {}", list(&report.deleted));
    }
    if report.restored.is_empty() && report.deleted.is_empty() {
        outln!("no file needed restoring");
    }
    for failure in &report.failed {
        errln!("not restored: {}", shown(failure));
    }
    for untracked in &report.untracked {
        errln!("not tracked when it ran: {}", shown(untracked));
    }
    if !report.shell_turns.is_empty() {
        let turns: Vec<String> = report.shell_turns.iter().map(u32::to_string).collect();
        errln!(
            "warning: turn {} ran shell commands; what they changed is not tracked and was not undone",
            turns.join(", ")
        );
    }
}
