//! `reasonix sessions import`: sessions of the original Reasonix (Go) converted into sessions
//! of this workspace (docs/SESSIONS.md). Each transcript is converted whole or not at all; one
//! that cannot be read is reported with its file and line and the others still convert.

use super::session_admin::workspace_store;
use crate::exit::{Code, Failure, Outcome};
use crate::term::{errln, outln};
use anyhow::anyhow;
use reasonix_agent::session::go::{self, Imported};
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
        match go::import(&store, file) {
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
                errln!("error: {}", shown(&e.to_string()));
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
