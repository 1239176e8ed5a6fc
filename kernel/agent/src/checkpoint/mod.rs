//! Checkpoints: what the files a session's tools changed held at the start of each user turn,
//! so a rewind can put them back. Never git; works outside repositories.
//!
//! Beside the transcript, `<id>.ckpt/` holds `objects/<sha256>` (file contents, stored once
//! however many turns or paths share them), one `turn-<N>.json` per user turn (path → object,
//! or `null` when the file did not exist) and one `rewind-<K>.json` per rewind (what the files
//! held just before it, to undo it). Every file is written to a temporary file and renamed.

pub mod confine;
mod recorder;

pub use confine::{ConfineError, Content};
pub use recorder::TurnRecorder;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum CheckpointError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: not a checkpoint ({error})")]
    Invalid { path: PathBuf, error: String },
    #[error("checkpoint object {0} is missing or damaged")]
    Object(String),
    #[error("no checkpoint for turn {turn}; the session's turns with checkpoints: {known}")]
    NoTurn { turn: u32, known: String },
    #[error("there is no rewind to undo")]
    NothingToUndo,
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> CheckpointError + '_ {
    move |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One snapshot: what the listed paths held at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The user turn (for a rewind: the turn it went back to).
    pub turn: u32,
    pub at_ms: u64,
    /// Workspace-relative path → sha256 of its content, `None` when it did not exist.
    pub files: BTreeMap<String, Option<String>>,
    /// Directories that did not exist then (removed again by a restore when left empty).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub absent_dirs: BTreeSet<String>,
    /// Directories that existed then and a rewind removed (made again by its undo).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub present_dirs: BTreeSet<String>,
    /// The turn ran shell commands: what they changed is not tracked.
    #[serde(default)]
    pub shell: bool,
    /// Paths that could not be snapshotted, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// A rewind checkpoint whose undo has been done.
    #[serde(default)]
    pub undone: bool,
}

/// The checkpoint directory of one session.
#[derive(Debug, Clone)]
pub struct CheckpointStore {
    dir: PathBuf,
}

impl CheckpointStore {
    /// `<id>.ckpt/` beside the transcript `<id>.jsonl`.
    pub fn for_transcript(transcript: &Path) -> CheckpointStore {
        CheckpointStore {
            dir: transcript.with_extension("ckpt"),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn objects(&self) -> PathBuf {
        self.dir.join("objects")
    }

    /// Store `bytes` once; its sha256 (hex) names it.
    pub fn put(&self, bytes: &[u8]) -> Result<String, CheckpointError> {
        let sha = hex(&Sha256::digest(bytes));
        let path = self.objects().join(&sha);
        if path.is_file() {
            return Ok(sha);
        }
        write_atomic(&path, bytes)?;
        Ok(sha)
    }

    /// The content stored as `sha`, checked against its name.
    pub fn get(&self, sha: &str) -> Result<Vec<u8>, CheckpointError> {
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(CheckpointError::Object(sha.to_string()));
        }
        let bytes = std::fs::read(self.objects().join(sha))
            .map_err(|_| CheckpointError::Object(sha.to_string()))?;
        if hex(&Sha256::digest(&bytes)) != sha {
            return Err(CheckpointError::Object(sha.to_string()));
        }
        Ok(bytes)
    }

    pub fn save_turn(&self, checkpoint: &Checkpoint) -> Result<(), CheckpointError> {
        self.save(&format!("turn-{}.json", checkpoint.turn), checkpoint)
    }

    fn save(&self, name: &str, checkpoint: &Checkpoint) -> Result<(), CheckpointError> {
        let path = self.dir.join(name);
        let bytes =
            serde_json::to_vec_pretty(checkpoint).map_err(|e| CheckpointError::Invalid {
                path: path.clone(),
                error: e.to_string(),
            })?;
        write_atomic(&path, &bytes)
    }

    fn load(&self, path: &Path) -> Result<Checkpoint, CheckpointError> {
        let bytes = std::fs::read(path).map_err(io_error(path))?;
        serde_json::from_slice(&bytes).map_err(|e| CheckpointError::Invalid {
            path: path.to_path_buf(),
            error: e.to_string(),
        })
    }

    /// `prefix-<N>.json` files, by N.
    fn numbered(&self, prefix: &str) -> Result<Vec<(u32, PathBuf)>, CheckpointError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&self.dir)(e)),
        };
        let mut out: Vec<(u32, PathBuf)> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let n = name.strip_prefix(prefix)?.strip_suffix(".json")?;
                Some((n.parse().ok()?, entry.path()))
            })
            .collect();
        out.sort_by_key(|(n, _)| *n);
        Ok(out)
    }

    /// Every turn checkpoint, in turn order.
    pub fn turns(&self) -> Result<Vec<Checkpoint>, CheckpointError> {
        self.numbered("turn-")?
            .into_iter()
            .map(|(_, path)| self.load(&path))
            .collect()
    }

    /// Save the snapshot taken just before a rewind; returns its number.
    pub fn save_rewind(&self, checkpoint: &Checkpoint) -> Result<u32, CheckpointError> {
        let next = self.numbered("rewind-")?.last().map_or(1, |(n, _)| n + 1);
        self.save(&format!("rewind-{next}.json"), checkpoint)?;
        Ok(next)
    }

    /// The newest rewind not undone yet: undoing again and again walks back through the
    /// rewinds, newest first (a stack).
    pub fn last_rewind(&self) -> Result<Option<(u32, Checkpoint)>, CheckpointError> {
        for (n, path) in self.numbered("rewind-")?.into_iter().rev() {
            let checkpoint = self.load(&path)?;
            if !checkpoint.undone {
                return Ok(Some((n, checkpoint)));
            }
        }
        Ok(None)
    }

    pub fn mark_undone(&self, n: u32, checkpoint: &Checkpoint) -> Result<(), CheckpointError> {
        let done = Checkpoint {
            undone: true,
            ..checkpoint.clone()
        };
        self.save(&format!("rewind-{n}.json"), &done)
    }
}

/// Write `bytes` to a temporary file beside `path`, then rename it over `path`.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(io_error(dir))?;
    temp.write_all(bytes).map_err(io_error(path))?;
    temp.as_file().sync_all().map_err(io_error(path))?;
    temp.persist(path)
        .map_err(|e| io_error(path)(e.error))
        .map(|_| ())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
