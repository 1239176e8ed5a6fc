//! The transcript side of compaction: the `compaction` record (the effective history's first
//! `replaced` messages give way to `messages`) and the archive of the originals it dropped or
//! changed, `<id>.archive.jsonl` beside the transcript (one message per line, tagged with the
//! compaction's number and its index in the history it was taken from).
//!
//! The archive is written first, then the record as one line: a process killed in between
//! leaves the session as it was before (the archive then holds lines of a compaction that never
//! happened, which a later one with the same number repeats).

use super::{Edit, Record, SessionError, SessionWriter, io_error, now_ms};
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

/// Replay a `compaction_edits` record: each message replaces the one at its index. Returns
/// how many messages the compaction covered (up to its last edit), or `None` when an index is
/// past the history (a transcript edited by hand): then nothing changes.
pub(super) fn replay_edits(messages: &mut [Message], edits: Vec<Edit>) -> Option<usize> {
    let covered = edits.iter().map(|e| e.index + 1).max()?;
    if covered > messages.len() {
        return None;
    }
    for edit in edits {
        messages[edit.index] = edit.message;
    }
    Some(covered)
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
        // Snip and prune rewrite messages in place (the head is the history up to the last
        // one rewritten, with the rewrites): record only those. A summary changes the shape.
        let in_place = tier != "summary"
            && head.len() == replaced
            && !originals.is_empty()
            && originals.iter().all(|(i, _)| *i < replaced)
            && originals.iter().map(|(i, _)| i + 1).max() == Some(replaced);
        let record = if in_place {
            Record::CompactionEdits {
                number,
                tier: tier.to_string(),
                edits: originals
                    .iter()
                    .map(|(i, _)| Edit {
                        index: *i,
                        message: head[*i].clone(),
                    })
                    .collect(),
                at_ms: now_ms(),
            }
        } else {
            Record::Compaction {
                number,
                tier: tier.to_string(),
                replaced,
                messages: head.to_vec(),
                at_ms: now_ms(),
            }
        };
        self.append(&record)?;
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

    proptest::proptest! {
        /// An in-place compaction recorded as edits loads to exactly the history (and turns)
        /// the whole-head record gives, and its record is smaller when few messages change.
        #[test]
        fn edits_replay_like_the_whole_head(
            n in 1usize..24,
            picks in proptest::collection::btree_set(0usize..24, 1..6),
            turn_every in 1usize..5,
        ) {
            let edited: Vec<usize> = picks.into_iter().filter(|&i| i < n).collect();
            proptest::prop_assume!(!edited.is_empty());
            let history: Vec<Message> = (0..n)
                .map(|i| Message::text(Role::User, format!("message {i} {}", "x".repeat(200))))
                .collect();
            let replaced = edited.iter().max().unwrap() + 1;
            let mut head = history[..replaced].to_vec();
            for &i in &edited {
                head[i] = Message::text(Role::User, format!("[snipped {i}]"));
            }
            let originals: Vec<(usize, &Message)> = edited.iter().map(|&i| (i, &history[i])).collect();
            let dir = tempfile::tempdir().unwrap();
            let store = SessionStore::new(dir.path(), Path::new("/w"));
            let write = |whole: bool| {
                let mut w = store.create("p", "m").unwrap();
                for (i, m) in history.iter().enumerate() {
                    if i % turn_every == 0 {
                        w.begin_turn().unwrap();
                    }
                    w.message(m).unwrap();
                }
                let before = std::fs::metadata(w.path()).unwrap().len();
                if whole {
                    w.append(&super::super::Record::Compaction {
                        number: 1,
                        tier: "snip".into(),
                        replaced,
                        messages: head.clone(),
                        at_ms: 0,
                    })
                    .unwrap();
                } else {
                    w.compaction("snip", replaced, &head, &originals).unwrap();
                }
                w.message(&Message::text(Role::User, "after")).unwrap();
                let size = std::fs::metadata(w.path()).unwrap().len() - before;
                (load(w.path()).unwrap(), size)
            };
            let (whole, whole_size) = write(true);
            let (edits, edits_size) = write(false);
            proptest::prop_assert_eq!(&whole.messages, &edits.messages);
            proptest::prop_assert_eq!(&whole.timeline.turns, &edits.timeline.turns);
            proptest::prop_assert_eq!(whole.compactions, edits.compactions);
            // Never more than the index fields; much less when few of the head are rewritten.
            proptest::prop_assert!(edits_size <= whole_size + 16 * edited.len() as u64);
            if edited.len() * 2 <= replaced {
                proptest::prop_assert!(edits_size < whole_size);
            }
        }
    }
}
