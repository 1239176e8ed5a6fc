//! Rewinding a session's files to the start of a turn, and undoing the last rewind.
//!
//! Code rewind to turn N: every path touched in turns N.. gets its earliest snapshot from
//! those turns back (deleted when it did not exist then). Before anything is written, the
//! current content of every path the rewind will change is saved as a checkpoint of its own,
//! so the rewind can be undone. Each file is written atomically and confined to the workspace
//! (see [`crate::checkpoint::confine`]); a path that cannot be restored is reported, and the
//! others still are.

use crate::checkpoint::confine::{self, ConfineError, Content};
use crate::checkpoint::{Checkpoint, CheckpointError, CheckpointStore, now_ms};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreReport {
    /// Paths written back.
    pub restored: Vec<String>,
    /// Paths deleted (they did not exist then).
    pub deleted: Vec<String>,
    /// Paths left as they are, with why.
    pub failed: Vec<String>,
    /// Turns among the rewound ones that ran shell commands (their effects stay).
    pub shell_turns: Vec<u32>,
    /// Paths that could not be snapshotted when their turn ran (not restored).
    pub untracked: Vec<String>,
}

/// The turns that have a checkpoint.
pub fn turns(store: &CheckpointStore) -> Result<Vec<Checkpoint>, CheckpointError> {
    store.turns()
}

/// Put the files back as they were at the start of `turn`.
pub fn rewind_code(
    store: &CheckpointStore,
    workspace: &Path,
    turn: u32,
) -> Result<RestoreReport, CheckpointError> {
    let all = store.turns()?;
    if !all.iter().any(|c| c.turn == turn) {
        let known: Vec<String> = all.iter().map(|c| c.turn.to_string()).collect();
        return Err(CheckpointError::NoTurn {
            turn,
            known: if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            },
        });
    }
    let later: Vec<&Checkpoint> = all.iter().filter(|c| c.turn >= turn).collect();
    let mut target = Checkpoint {
        turn,
        at_ms: now_ms(),
        ..Checkpoint::default()
    };
    let in_order: Vec<Checkpoint> = later.iter().map(|c| (*c).clone()).collect();
    target.files = earliest(&in_order);
    for checkpoint in &later {
        target
            .absent_dirs
            .extend(checkpoint.absent_dirs.iter().cloned());
    }
    let mut undo = snapshot_current(store, workspace, &target)?;
    let mut made = Vec::new();
    let mut report = apply(store, workspace, &target, &mut made)?;
    // What the rewind removed or made, so its undo can make or remove it again.
    undo.present_dirs = report_removed_dirs(&target, workspace, &mut report);
    undo.absent_dirs.extend(made);
    store.save_rewind(&undo)?;
    report.shell_turns = later.iter().filter(|c| c.shell).map(|c| c.turn).collect();
    report.untracked = later.iter().flat_map(|c| c.skipped.clone()).collect();
    Ok(report)
}

/// Undo the newest rewind that is not undone yet: its files get back what they held just
/// before it.
pub fn undo_last(
    store: &CheckpointStore,
    workspace: &Path,
) -> Result<RestoreReport, CheckpointError> {
    let Some((n, checkpoint)) = store.last_rewind()? else {
        return Err(CheckpointError::NothingToUndo);
    };
    for dir in &checkpoint.present_dirs {
        let _ = confine::make_dir(workspace, dir);
    }
    let mut report = apply(store, workspace, &checkpoint, &mut Vec::new())?;
    let _ = report_removed_dirs(&checkpoint, workspace, &mut report);
    store.mark_undone(n, &checkpoint)?;
    Ok(report)
}

/// What the paths `target` names hold now (a rewind's own checkpoint). A path that is a link
/// now is left out: the undo will not touch it.
fn snapshot_current(
    store: &CheckpointStore,
    workspace: &Path,
    target: &Checkpoint,
) -> Result<Checkpoint, CheckpointError> {
    let mut now = Checkpoint {
        turn: target.turn,
        at_ms: now_ms(),
        ..Checkpoint::default()
    };
    for path in target.files.keys() {
        match confine::read(workspace, path) {
            Ok((Content::Absent, missing)) => {
                now.files.insert(path.clone(), None);
                now.absent_dirs.extend(missing);
            }
            Ok((Content::File(bytes), _)) => {
                now.files.insert(path.clone(), Some(store.put(&bytes)?));
            }
            Err(e) => now.skipped.push(e.to_string()),
        }
    }
    Ok(now)
}

/// Write or delete every path of `checkpoint`. The directories `made` collects are the ones
/// writing had to create.
fn apply(
    store: &CheckpointStore,
    workspace: &Path,
    checkpoint: &Checkpoint,
    made: &mut Vec<String>,
) -> Result<RestoreReport, CheckpointError> {
    let mut report = RestoreReport::default();
    for (path, content) in &checkpoint.files {
        let result = match content {
            Some(sha) => match store.get(sha) {
                Ok(bytes) => confine::write(workspace, path, &bytes).map(|dirs| {
                    made.extend(dirs);
                    report.restored.push(path.clone());
                }),
                Err(e) => {
                    report.failed.push(format!("{path}: {e}"));
                    continue;
                }
            },
            None => {
                let existed = matches!(
                    std::fs::symlink_metadata(workspace.join(path)),
                    Ok(m) if !m.is_dir()
                );
                confine::remove(workspace, path).map(|()| {
                    if existed {
                        report.deleted.push(path.clone());
                    }
                })
            }
        };
        if let Err(e) = result {
            report.failed.push(describe(&e));
        }
    }
    Ok(report)
}

/// Remove the checkpoint's absent directories that are empty now (deepest first); the ones
/// removed.
fn report_removed_dirs(
    checkpoint: &Checkpoint,
    workspace: &Path,
    report: &mut RestoreReport,
) -> BTreeSet<String> {
    let mut dirs: Vec<&String> = checkpoint.absent_dirs.iter().collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
    let mut removed = BTreeSet::new();
    for dir in dirs {
        match remove_tree_if_empty(workspace, dir) {
            Ok(gone) => removed.extend(gone),
            Err(e) => report.failed.push(describe(&e)),
        }
    }
    removed
}

/// Remove `dir` and its empty subdirectories, when nothing but empty directories is left.
fn remove_tree_if_empty(workspace: &Path, dir: &str) -> Result<Vec<String>, ConfineError> {
    let path = workspace.join(dir);
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return Ok(Vec::new());
    };
    if !meta.is_dir() {
        return Ok(Vec::new());
    }
    let mut removed = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&path) {
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        for name in names {
            removed.extend(remove_tree_if_empty(workspace, &format!("{dir}/{name}"))?);
        }
    }
    if confine::remove_empty_dir(workspace, dir)? {
        removed.push(dir.to_string());
    }
    Ok(removed)
}

fn describe(e: &ConfineError) -> String {
    e.to_string()
}

/// Earliest snapshot per path over `checkpoints` (in turn order).
pub fn earliest(checkpoints: &[Checkpoint]) -> BTreeMap<String, Option<String>> {
    let mut out = BTreeMap::new();
    for checkpoint in checkpoints {
        for (path, content) in &checkpoint.files {
            out.entry(path.clone()).or_insert_with(|| content.clone());
        }
    }
    out
}
