//! The agent's side of checkpoints: a `turn` record and an empty checkpoint when a user turn
//! starts, then, before each writer runs, the turn-start content of every path its preview
//! names (the first touch in the turn), and a mark when the turn runs a shell command.

use super::{Agent, AgentEvent};
use crate::checkpoint::{CheckpointStore, TurnRecorder};
use crate::permissions::{Preview, ToolKind};

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
