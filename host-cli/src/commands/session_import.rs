//! `reasonix sessions import`: transcripts added to this workspace's sessions (docs/SESSIONS.md)
//! — this build's own (`sessions export --format transcript` on another machine) moved as they
//! are, the original Reasonix's (Go) converted. Each is imported whole or not at all; one that
//! cannot be read is reported with its file and line and the others still go.

use super::session_admin::workspace_store;
use crate::exit::{Code, Failure, Outcome};
use crate::term::{errln, outln};
use anyhow::anyhow;
use reasonix_agent::session::go::{self, Imported};
use reasonix_agent::session::transfer;
use reasonix_config::Paths;
use reasonix_core::terminal::shown;
use std::path::{Path, PathBuf};

pub fn run(from: &[PathBuf], dir: Option<&Path>) -> Outcome {
    let (store, workspace) = workspace_store(dir)?;
    let files: Vec<PathBuf> = if from.is_empty() {
        go::find(&Paths::from_env().state)
    } else {
        let mut files = Vec::new();
        for path in from {
            if path.is_dir() {
                files.extend(go::transcripts_in(path));
            } else if path.is_file() {
                files.push(path.clone());
            } else {
                return Err(Failure::usage(anyhow!(
                    "{}: no such file or directory",
                    shown(&path.display().to_string())
                )));
            }
        }
        files
    };
    if files.is_empty() {
        outln!(
            "no sessions of the original Reasonix found{}",
            if from.is_empty() {
                " (looked in sessions-v4 under the state directory; name files or directories with --from)"
            } else {
                ""
            }
        );
        return Ok(Code::Success);
    }
    let (mut imported, mut present, mut failed) = (0, 0, 0);
    for file in &files {
        let name = shown(&file.display().to_string()).to_string();
        let imported_one = if first_line(file).is_some_and(|l| transfer::is_transcript(&l)) {
            transfer::import(&store, file).map_err(|e| e.to_string())
        } else {
            go::import(&store, file).map_err(|e| e.to_string())
        };
        match imported_one {
            Ok(Imported::New { id, messages }) => {
                imported += 1;
                outln!("imported {name} as {} ({messages} messages)", shown(&id));
            }
            Ok(Imported::Exists { id }) => {
                present += 1;
                outln!("already imported: {name} ({})", shown(&id));
            }
            Ok(Imported::Empty) => outln!("skipped {name}: nothing was said in it"),
            Err(e) => {
                failed += 1;
                errln!("error: {}", shown(&e));
            }
        }
    }
    outln!(
        "{imported} imported into {}, {present} already there, {failed} failed",
        shown(&workspace.display().to_string())
    );
    Ok(if failed > 0 {
        Code::Failure
    } else {
        Code::Success
    })
}

/// The first line of `file` (at most 64 KiB of it), to tell a transcript of this build from
/// one of the original Reasonix.
fn first_line(file: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    let f = std::fs::File::open(file).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(f.take(64 * 1024))
        .read_line(&mut line)
        .ok()?;
    Some(line)
}
