//! Forking a session: a new session that shares the parent's history up to the start of a
//! turn (or all of it). Its header names the parent and the turn; the turn marks and the
//! checkpoints of the shared turns are copied, so the fork can rewind into them too.

use crate::checkpoint::{CheckpointError, CheckpointStore};
use crate::session::{Record, SessionError, SessionStore, load};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ForkError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("nothing comes before turn 1 of session {0}: start a new session instead")]
    Empty(String),
    #[error("session {id} has no turn {turn} in its conversation (turns: {known})")]
    NoTurn {
        id: String,
        turn: u32,
        known: String,
    },
}

/// Fork session `parent` before turn `turn` (all of it when `None`); the new session's id.
pub fn fork(store: &SessionStore, parent: &str, turn: Option<u32>) -> Result<String, ForkError> {
    fork_as(store, parent, turn, None)
}

/// [`fork`], the new session taking the id `id` when given (`reasonix run --fork-session
/// --session-id`).
pub fn fork_as(
    store: &SessionStore,
    parent: &str,
    turn: Option<u32>,
    id: Option<&str>,
) -> Result<String, ForkError> {
    let source = store.transcript(parent);
    let loaded = load(&source)?;
    let cut = match turn {
        None => loaded.messages.len(),
        Some(turn) => loaded
            .timeline
            .start_of(turn)
            .ok_or_else(|| ForkError::NoTurn {
                id: parent.to_string(),
                turn,
                known: known_turns(&loaded.timeline),
            })?,
    };
    if cut == 0 {
        return Err(ForkError::Empty(parent.to_string()));
    }
    let Record::Session {
        provider, model, ..
    } = &loaded.header
    else {
        return Err(SessionError::NotATranscript { path: source }.into());
    };
    let mut writer = match id {
        Some(id) => store.create_as(id, provider, model, Some((parent, turn)))?,
        None => store.create_with_parent(provider, model, Some((parent, turn)))?,
    };
    let marks: Vec<_> = loaded
        .timeline
        .turns
        .iter()
        .filter(|t| t.index < cut)
        .copied()
        .collect();
    let mut next_mark = marks.iter().peekable();
    for (i, message) in loaded.messages[..cut].iter().enumerate() {
        while let Some(mark) = next_mark.next_if(|m| m.index == i) {
            writer.copy_turn(mark.turn)?;
        }
        writer.message(message)?;
    }
    copy_checkpoints(
        &CheckpointStore::for_transcript(&source),
        &CheckpointStore::for_transcript(writer.path()),
        &marks.iter().map(|m| m.turn).collect::<Vec<_>>(),
    )?;
    Ok(writer.id().to_string())
}

fn known_turns(timeline: &crate::timeline::Timeline) -> String {
    let turns: Vec<String> = timeline.turns.iter().map(|t| t.turn.to_string()).collect();
    if turns.is_empty() {
        "none".into()
    } else {
        turns.join(", ")
    }
}

/// The checkpoints of `turns` and the objects they name.
fn copy_checkpoints(
    from: &CheckpointStore,
    to: &CheckpointStore,
    turns: &[u32],
) -> Result<(), CheckpointError> {
    for checkpoint in from.turns()? {
        if !turns.contains(&checkpoint.turn) {
            continue;
        }
        for sha in checkpoint.files.values().flatten() {
            to.put(&from.get(sha)?)?;
        }
        to.save_turn(&checkpoint)?;
    }
    Ok(())
}
