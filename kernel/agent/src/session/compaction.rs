//! The transcript side of compaction: the `compaction` record (the effective history's first
//! `replaced` messages give way to `messages`) and the archive of the originals it dropped or
//! changed, `<id>.archive.jsonl` beside the transcript (one message per line, tagged with the
//! compaction's number and its index in the history it was taken from).
//!
//! The archive is written first, then the record as one line: a process killed in between
//! leaves the session as it was before (the archive then holds lines of a compaction that never
//! happened, which a later one with the same number repeats).

use super::{Record, SessionError, SessionWriter, io_error, now_ms};
use crate::types::Message;
use serde::Serialize;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::PathBuf;

/// One archived original.
#[derive(Serialize)]
struct Archived<'a> {
    compaction: u32,
    index: usize,
    #[serde(flatten)]
    message: &'a Message,
    at_ms: u64,
}

/// Replay a `compaction` record onto the history loaded so far. A record that replaces more
/// messages than there are (a transcript edited by hand) is ignored: the originals stay.
pub(super) fn replay(messages: &mut Vec<Message>, replaced: usize, head: Vec<Message>) {
    if replaced <= messages.len() {
        messages.splice(..replaced, head);
    }
}

impl SessionWriter {
    /// `<id>.archive.jsonl` beside the transcript.
    pub fn archive_path(&self) -> PathBuf {
        self.path
            .with_file_name(format!("{}.archive.jsonl", self.id))
    }

    /// Compactions recorded in this transcript so far.
    pub fn compactions(&self) -> u32 {
        self.compactions
    }

    /// Record a compaction: archive `originals` (index in the history, message), then append
    /// the record that replaces the first `replaced` messages with `head`. Returns the
    /// compaction's number (1 for the first of the session).
    pub fn compaction(
        &mut self,
        tier: &str,
        replaced: usize,
        head: &[Message],
        originals: &[(usize, &Message)],
    ) -> Result<u32, SessionError> {
        let number = self.compactions + 1;
        let archive = self.archive_path();
        if !originals.is_empty() {
            let mut file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&archive)
                .map_err(io_error(&archive))?;
            let at_ms = now_ms();
            for (index, message) in originals {
                let mut line = serde_json::to_vec(&Archived {
                    compaction: number,
                    index: *index,
                    message,
                    at_ms,
                })
                .map_err(|e| io_error(&archive)(io::Error::new(io::ErrorKind::InvalidData, e)))?;
                line.push(b'\n');
                file.write_all(&line).map_err(io_error(&archive))?;
            }
            file.flush().map_err(io_error(&archive))?;
        }
        self.append(&Record::Compaction {
            number,
            tier: tier.to_string(),
            replaced,
            messages: head.to_vec(),
            at_ms: now_ms(),
        })?;
        self.compactions = number;
        Ok(number)
    }
}
