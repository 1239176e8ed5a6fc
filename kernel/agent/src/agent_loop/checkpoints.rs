//! The agent's side of checkpoints: a `turn` record and an empty checkpoint when a user turn
//! starts, then, before each writer runs, the turn-start content of every path its preview
//! names (the first touch in the turn), and a mark when the turn runs a shell command.

use super::{Agent, AgentEvent};
use crate::checkpoint::{Checkpoint, CheckpointStore, TurnRecorder};
use crate::permissions::{Preview, ToolKind};
use crate::rewind;
use crate::session::{Record, load};
use crate::types::Message;

impl Agent {
    /// A user turn starts: number it in the transcript and open its checkpoint. Without a
    /// session there is nothing to rewind, so nothing is recorded.
    pub(super) fn begin_turn(&mut self, on_event: &mut dyn FnMut(AgentEvent)) {
        self.checkpoint = None;
        let Some(session) = &mut self.session else {
            return;
        };
        let turn = match session.begin_turn() {
            Ok(turn) => turn,
            Err(e) => {
                on_event(AgentEvent::Notice(format!("session not saved: {e}")));
                return;
            }
        };
        let store = CheckpointStore::for_transcript(session.path());
        match TurnRecorder::start(store, &self.config.workspace, turn) {
            Ok(recorder) => self.checkpoint = Some(recorder),
            Err(e) => on_event(AgentEvent::Notice(format!(
                "no checkpoint for this turn (rewind cannot restore its files): {e}"
            ))),
        }
    }

    /// A call is about to run: snapshot what a writer will change, note a shell command.
    pub(super) fn checkpoint_call(
        &mut self,
        kind: ToolKind,
        preview: Option<&Preview>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) {
        let Some(recorder) = &mut self.checkpoint else {
            return;
        };
        let result = match (kind, preview) {
            (ToolKind::Shell, _) => recorder.ran_shell(),
            (ToolKind::FileWriter, Some(Preview::Changes(changes))) => changes
                .iter()
                .try_for_each(|change| recorder.touch(&change.path)),
            (ToolKind::FileWriter, Some(Preview::Unavailable(why))) => {
                recorder.untracked(format!("a writer's changes were not known: {why}"))
            }
            _ => Ok(()),
        };
        if let Err(e) = result {
            on_event(AgentEvent::Notice(format!(
                "checkpoint of turn {} incomplete: {e}",
                recorder.turn()
            )));
        }
    }
}

/// What a rewind in a running session did.
#[derive(Debug, Clone)]
pub struct Rewound {
    /// The files' side (`None` when only the conversation went back).
    pub files: Option<crate::rewind::RestoreReport>,
    /// The prompt of the turn rewound to (for the composer), when the conversation went back.
    pub prompt: Option<String>,
    /// The effective history now.
    pub history: Vec<Message>,
}

impl Agent {
    /// Rewind this session to the start of `turn`: its files (`code`), its conversation, or
    /// both. Between turns only (a run holds `&mut self`).
    pub fn rewind(&mut self, turn: u32, code: bool, conversation: bool) -> Result<Rewound, String> {
        let workspace = self.config.workspace.clone();
        let Some(session) = &mut self.session else {
            return Err("this session is not saved: there is nothing to rewind".into());
        };
        let loaded = load(session.path()).map_err(|e| e.to_string())?;
        let keep = match loaded.timeline.start_of(turn) {
            Some(keep) => keep,
            None if conversation => {
                return Err(format!("turn {turn} is not in this conversation"));
            }
            None => loaded.messages.len(),
        };
        let store = CheckpointStore::for_transcript(session.path());
        let files = if code {
            Some(rewind::rewind_code(&store, &workspace, turn).map_err(|e| e.to_string())?)
        } else {
            store
                .save_rewind(&Checkpoint {
                    turn,
                    ..Checkpoint::default()
                })
                .map_err(|e| e.to_string())?;
            None
        };
        session
            .append(&Record::Rewind {
                turn,
                keep,
                conversation,
                at_ms: crate::checkpoint::now_ms(),
            })
            .map_err(|e| e.to_string())?;
        let prompt = conversation
            .then(|| loaded.messages.get(keep).map(|m| m.content.clone()))
            .flatten();
        self.reread_history()?;
        Ok(Rewound {
            files,
            prompt,
            history: self.history.clone(),
        })
    }

    /// Undo the last rewind of this session.
    pub fn undo_rewind(&mut self) -> Result<Rewound, String> {
        let workspace = self.config.workspace.clone();
        let Some(session) = &mut self.session else {
            return Err("this session is not saved: there is nothing to undo".into());
        };
        let store = CheckpointStore::for_transcript(session.path());
        let files = rewind::undo_last(&store, &workspace).map_err(|e| e.to_string())?;
        session
            .append(&Record::RewindUndone {
                at_ms: crate::checkpoint::now_ms(),
            })
            .map_err(|e| e.to_string())?;
        self.reread_history()?;
        Ok(Rewound {
            files: Some(files),
            prompt: None,
            history: self.history.clone(),
        })
    }

    /// The history as the transcript now replays it (after a rewind record).
    fn reread_history(&mut self) -> Result<(), String> {
        let Some(session) = &self.session else {
            return Ok(());
        };
        let loaded = load(session.path()).map_err(|e| e.to_string())?;
        self.history = loaded.messages;
        self.failures.clear();
        Ok(())
    }
}
