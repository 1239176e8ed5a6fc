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

#[cfg(test)]
mod tests {
    use super::super::{SessionStore, load};
    use crate::types::{Message, Role};
    use std::path::Path;

    #[test]
    fn a_compaction_replays_on_load_and_archives_the_originals() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path(), Path::new("/w"));
        let mut w = store.create("p", "m").unwrap();
        let texts = ["fact", "work 1", "work 2", "tail"];
        for t in texts {
            w.message(&Message::text(Role::User, t)).unwrap();
        }
        let head = [
            Message::text(Role::User, "fact"),
            Message::text(Role::User, "digest"),
        ];
        let originals = [(1, &Message::text(Role::User, "work 1"))];
        assert_eq!(w.compaction("summary", 3, &head, &originals).unwrap(), 1);
        w.message(&Message::text(Role::User, "after")).unwrap();
        let (id, path, archive) = (w.id().to_string(), w.path().to_path_buf(), w.archive_path());
        drop(w);

        let loaded = load(&path).unwrap();
        let now: Vec<&str> = loaded.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(now, ["fact", "digest", "tail", "after"]);
        assert_eq!(loaded.compactions, 1);
        let lines = std::fs::read_to_string(&archive).unwrap();
        let line: serde_json::Value = serde_json::from_str(lines.trim()).unwrap();
        assert_eq!(
            (line["compaction"].clone(), line["index"].clone()),
            (1.into(), 1.into())
        );
        assert_eq!(line["content"], "work 1");

        // The next compaction of the reopened session gets the next number; one that claims
        // more messages than there are is ignored on load.
        let (mut w, _) = store.open(&id).unwrap();
        assert_eq!(w.compaction("prune", 99, &[], &[]).unwrap(), 2);
        drop(w);
        assert_eq!(load(&path).unwrap().messages.len(), 4);
    }
}
