//! The checkpoint of the turn in progress: the first touch of each path records what it held
//! when the turn started.

use super::confine::{self, Content};
use super::{Checkpoint, CheckpointError, CheckpointStore, now_ms};
use std::path::{Path, PathBuf};

/// Records one user turn's checkpoint as its tools run.
#[derive(Debug)]
pub struct TurnRecorder {
    store: CheckpointStore,
    workspace: PathBuf,
    checkpoint: Checkpoint,
}

impl TurnRecorder {
    /// Start turn `turn`'s checkpoint (written at once, empty).
    pub fn start(
        store: CheckpointStore,
        workspace: &Path,
        turn: u32,
    ) -> Result<TurnRecorder, CheckpointError> {
        let checkpoint = Checkpoint {
            turn,
            at_ms: now_ms(),
            ..Checkpoint::default()
        };
        store.save_turn(&checkpoint)?;
        Ok(TurnRecorder {
            store,
            workspace: workspace.to_path_buf(),
            checkpoint,
        })
    }

    pub fn turn(&self) -> u32 {
        self.checkpoint.turn
    }

    /// A writer is about to change `path` (as its preview names it). Only the first touch in
    /// the turn counts. A path that cannot be snapshotted (outside the workspace, through a
    /// link, too large) is listed as skipped, never read.
    pub fn touch(&mut self, path: &str) -> Result<(), CheckpointError> {
        let rel = match confine::relative(&self.workspace, path) {
            Ok(rel) => rel,
            Err(e) => return self.skip(e.to_string()),
        };
        if self.checkpoint.files.contains_key(&rel) {
            return Ok(());
        }
        match confine::read(&self.workspace, &rel) {
            Ok((Content::Absent, missing_dir)) => {
                self.checkpoint.files.insert(rel, None);
                if let Some(dir) = missing_dir {
                    self.checkpoint.absent_dirs.insert(dir);
                }
            }
            Ok((Content::File(bytes), _)) => {
                let sha = self.store.put(&bytes)?;
                self.checkpoint.files.insert(rel, Some(sha));
            }
            Err(e) => return self.skip(e.to_string()),
        }
        self.store.save_turn(&self.checkpoint)
    }

    /// The turn ran a shell command (its effects are not tracked).
    pub fn ran_shell(&mut self) -> Result<(), CheckpointError> {
        if self.checkpoint.shell {
            return Ok(());
        }
        self.checkpoint.shell = true;
        self.store.save_turn(&self.checkpoint)
    }

    /// A writer whose changes could not be known (its preview failed) runs untracked.
    pub fn untracked(&mut self, why: String) -> Result<(), CheckpointError> {
        self.skip(why)
    }

    fn skip(&mut self, why: String) -> Result<(), CheckpointError> {
        if self.checkpoint.skipped.contains(&why) {
            return Ok(());
        }
        self.checkpoint.skipped.push(why);
        self.store.save_turn(&self.checkpoint)
    }
}
