//! Keeping the index current and on disk: each source file's [`FileIndex`] is stored as its own
//! small JSON file under `<state>/index/history/`, so bringing the index up to date reads only
//! what was appended to each transcript since last time and rewrites only the entries of the
//! files that changed (atomically: temp file + rename). A stored entry that does not parse, or
//! that describes another file, is rebuilt from the transcript — never an error.

use super::index::{FileIndex, INDEX_VERSION, Index};
use super::scan::{self, Entry};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Files (transcripts + archives) the index follows at most; more are left out (the newest
/// by name are kept, session ids start with their date).
pub const MAX_FILES: usize = 20_000;

/// How one file's entry changed in a refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Unchanged,
    Appended,
    /// Read again from the start (new, replaced, shrunk, or its stored entry was unusable).
    Rebuilt,
}

/// The index directory and the in-memory index it backs.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    pub index: Index,
}

impl Store {
    pub fn new(dir: PathBuf) -> Store {
        Store {
            dir,
            index: Index::default(),
        }
    }

    /// Where the entry of `source` is stored.
    fn entry_path(&self, source: &Path) -> PathBuf {
        let digest = Sha256::digest(source.to_string_lossy().as_bytes());
        let name: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{name}.json"))
    }

    /// Bring every transcript and archive in `session_dirs` up to date, and forget files that
    /// are gone from them. Returns the sources in those directories.
    pub fn refresh(&mut self, session_dirs: &[PathBuf]) -> Vec<PathBuf> {
        let mut sources = Vec::new();
        for dir in session_dirs {
            sources.extend(transcripts_in(dir));
        }
        sources.sort();
        if sources.len() > MAX_FILES {
            sources.drain(..sources.len() - MAX_FILES);
        }
        let present: BTreeSet<&PathBuf> = sources.iter().collect();
        let gone: Vec<PathBuf> = self
            .index
            .files()
            .map(|(_, f)| f.source.clone())
            .filter(|s| {
                session_dirs.iter().any(|d| s.parent() == Some(d.as_path())) && !present.contains(s)
            })
            .collect();
        for source in gone {
            self.index.remove(&source);
            let _ = std::fs::remove_file(self.entry_path(&source));
        }
        for source in &sources {
            self.refresh_file(source);
        }
        sources
    }

    /// Bring one file's entry up to date (loading its stored entry first when the index has
    /// none in memory).
    pub fn refresh_file(&mut self, source: &Path) -> Change {
        let archive = is_archive(source);
        // The common case, checked on what is in memory without copying it: nothing new.
        if let (Some(known), Ok(meta)) = (
            self.index
                .slot_of(source)
                .and_then(|slot| self.index.file(slot)),
            std::fs::symlink_metadata(source),
        ) && untouched(known, &meta)
        {
            return Change::Unchanged;
        }
        let known = match self.index.slot_of(source) {
            Some(slot) => self.index.file(slot).cloned(),
            None => self.load_entry(source),
        };
        let in_memory = self.index.slot_of(source).is_some();
        let (entry, change) = update(source, known, archive);
        match change {
            Change::Unchanged if in_memory => {}
            Change::Appended if in_memory => {
                if let Some(slot) = self.index.slot_of(source) {
                    self.index.append(slot, entry.clone());
                }
            }
            _ => self.index.replace(entry.clone()),
        }
        if change != Change::Unchanged {
            // A failed write costs only a re-read next time.
            let _ = self.save_entry(&entry);
        }
        change
    }

    fn load_entry(&self, source: &Path) -> Option<FileIndex> {
        let bytes = std::fs::read(self.entry_path(source)).ok()?;
        let entry: FileIndex = serde_json::from_slice(&bytes).ok()?;
        // Parsed is not enough: an entry of another file, or one whose numbers do not hang
        // together, is rebuilt rather than trusted.
        let terms = entry.vocabulary.len();
        let coherent = entry.docs.iter().enumerate().all(|(i, d)| {
            d.n as usize == i
                && d.offset < entry.consumed
                && d.terms.iter().all(|(id, _)| (*id as usize) < terms)
        });
        (entry.version == INDEX_VERSION && entry.source == source && coherent).then_some(entry)
    }

    fn save_entry(&self, entry: &FileIndex) -> io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let bytes = serde_json::to_vec(entry).map_err(io::Error::other)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        tmp.write_all(&bytes)?;
        tmp.persist(self.entry_path(&entry.source))
            .map_err(|e| e.error)?;
        Ok(())
    }
}

/// `*.jsonl` regular files directly in `dir` (symlinks are not followed: nothing outside the
/// state directory gets read).
fn transcripts_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

pub fn is_archive(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with(".archive.jsonl"))
}

/// The up-to-date entry of `source` from what was known of it.
fn update(source: &Path, known: Option<FileIndex>, archive: bool) -> (FileIndex, Change) {
    let Ok(meta) = std::fs::symlink_metadata(source) else {
        return (FileIndex::empty(source, archive), Change::Rebuilt);
    };
    let identity = scan::identity(&meta);
    let len = meta.len();
    if let Some(known) = known {
        if untouched(&known, &meta) {
            return (known, Change::Unchanged);
        }
        let same_file =
            known.identity.device == identity.device && known.identity.inode == identity.inode;
        let intact = same_file
            && len >= known.consumed
            && scan::fingerprint(source, known.consumed).ok() == Some(known.fingerprint);
        if intact {
            let mut entry = known;
            return match read_into(&mut entry, source) {
                Ok(()) => {
                    entry.identity = identity;
                    entry.seen_len = len;
                    (entry, Change::Appended)
                }
                Err(_) => (FileIndex::empty(source, archive), Change::Rebuilt),
            };
        }
    }
    let mut entry = FileIndex::empty(source, archive);
    if read_into(&mut entry, source).is_err() {
        return (FileIndex::empty(source, archive), Change::Rebuilt);
    }
    entry.identity = identity;
    entry.seen_len = len;
    (entry, Change::Rebuilt)
}

/// The same file, with the length and modification time it had when last read.
fn untouched(known: &FileIndex, meta: &std::fs::Metadata) -> bool {
    known.identity == scan::identity(meta) && known.seen_len == meta.len()
}

/// Read `source` from `entry.consumed` on into `entry`.
fn read_into(entry: &mut FileIndex, source: &Path) -> io::Result<()> {
    let lines = scan::read_from(source, entry.consumed)?;
    let mut vocabulary = entry.vocabulary_map();
    for (offset, line) in lines.entries {
        match line {
            Entry::Header {
                id,
                workspace,
                created_ms,
            } if offset == 0 => {
                if !id.is_empty() && !entry.archive {
                    entry.session = id;
                }
                entry.workspace = workspace;
                entry.created_ms = created_ms;
            }
            Entry::Message { role, text, at_ms } => {
                entry.push_message(&mut vocabulary, role, at_ms, offset, &text);
            }
            _ => {}
        }
    }
    entry.consumed = lines.end;
    entry.fingerprint = scan::fingerprint(source, entry.consumed)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::fs::OpenOptions;

    fn header(id: &str) -> String {
        format!(
            "{{\"type\":\"session\",\"version\":1,\"id\":\"{id}\",\"workspace\":\"/w\",\"provider\":\"p\",\"model\":\"m\",\"created_ms\":1}}\n"
        )
    }

    fn message(role: &str, text: &str) -> String {
        format!(
            "{{\"type\":\"message\",\"role\":\"{role}\",\"content\":{},\"at_ms\":2}}\n",
            serde_json::to_string(text).unwrap()
        )
    }

    fn append(path: &Path, text: &str) {
        let mut f = OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    fn found(store: &Store, query: &str) -> Vec<(String, usize)> {
        store
            .index
            .search(query, &|_| true, 10, 0.0)
            .iter()
            .map(|h| (store.index.file(h.file).unwrap().session.clone(), h.doc))
            .collect()
    }

    struct Dirs {
        _root: tempfile::TempDir,
        sessions: PathBuf,
        index: PathBuf,
    }

    fn dirs() -> Dirs {
        let root = tempfile::tempdir().unwrap();
        let sessions = root.path().join("projects/k/sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        let index = root.path().join("index/history");
        Dirs {
            sessions,
            index,
            _root: root,
        }
    }

    #[test]
    fn appended_messages_are_read_incrementally_and_survive_a_restart() {
        let d = dirs();
        let path = d.sessions.join("s1.jsonl");
        append(&path, &(header("s1") + &message("user", "pick a database")));
        let mut store = Store::new(d.index.clone());
        store.refresh(std::slice::from_ref(&d.sessions));
        assert_eq!(found(&store, "database"), [("s1".to_string(), 0)]);

        append(&path, &message("assistant", "we use sqlite"));
        assert_eq!(store.refresh_file(&path), Change::Appended);
        assert_eq!(found(&store, "sqlite"), [("s1".to_string(), 1)]);
        assert_eq!(store.refresh_file(&path), Change::Unchanged);

        // A new process: the stored entry is picked up, and only the appended line read.
        append(&path, &message("user", "and redis for queues"));
        let mut again = Store::new(d.index.clone());
        assert_eq!(again.refresh_file(&path), Change::Appended);
        assert_eq!(found(&again, "sqlite"), [("s1".to_string(), 1)]);
        assert_eq!(found(&again, "redis"), [("s1".to_string(), 2)]);
    }

    #[test]
    fn a_torn_line_is_read_once_it_is_complete() {
        let d = dirs();
        let path = d.sessions.join("s1.jsonl");
        let line = message("user", "halfway written");
        append(&path, &(header("s1") + &line[..10]));
        let mut store = Store::new(d.index.clone());
        store.refresh(std::slice::from_ref(&d.sessions));
        assert!(found(&store, "halfway").is_empty());
        append(&path, &line[10..]);
        assert_eq!(store.refresh_file(&path), Change::Appended);
        assert_eq!(found(&store, "halfway"), [("s1".to_string(), 0)]);
    }

    #[test]
    fn a_truncated_or_replaced_file_is_read_again() {
        let d = dirs();
        let path = d.sessions.join("s1.jsonl");
        append(
            &path,
            &(header("s1") + &message("user", "alpha") + &message("user", "beta")),
        );
        let mut store = Store::new(d.index.clone());
        store.refresh(std::slice::from_ref(&d.sessions));
        assert_eq!(found(&store, "beta").len(), 1);

        // Shrunk.
        std::fs::write(&path, header("s1") + &message("user", "alpha")).unwrap();
        assert_eq!(store.refresh_file(&path), Change::Rebuilt);
        assert!(found(&store, "beta").is_empty());

        // Same length, other content (rewritten in place, at a later time).
        std::fs::write(&path, header("s1") + &message("user", "gamma")).unwrap();
        later(&path);
        assert_eq!(store.refresh_file(&path), Change::Rebuilt);
        assert_eq!(found(&store, "gamma"), [("s1".to_string(), 0)]);
        assert!(found(&store, "alpha").is_empty());

        // Replaced by another file renamed over it, longer than before.
        let other = d.sessions.join("tmp");
        std::fs::write(
            &other,
            header("s1") + &message("user", "delta") + &message("user", "epsilon"),
        )
        .unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(store.refresh_file(&path), Change::Rebuilt);
        assert!(found(&store, "gamma").is_empty());
        assert_eq!(found(&store, "epsilon"), [("s1".to_string(), 1)]);

        // Deleted: forgotten.
        std::fs::remove_file(&path).unwrap();
        store.refresh(std::slice::from_ref(&d.sessions));
        assert!(found(&store, "delta").is_empty());
    }

    #[test]
    fn a_damaged_stored_entry_is_rebuilt() {
        let d = dirs();
        let path = d.sessions.join("s1.jsonl");
        append(&path, &(header("s1") + &message("user", "the decision")));
        let mut store = Store::new(d.index.clone());
        store.refresh(std::slice::from_ref(&d.sessions));
        let entries: Vec<PathBuf> = std::fs::read_dir(&d.index)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(entries.len(), 1);
        // Valid JSON that does not hang together (a term number past the vocabulary).
        let mut incoherent: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&entries[0]).unwrap()).unwrap();
        incoherent["docs"][0]["terms"][0][0] = 9_999.into();
        let incoherent = incoherent.to_string().into_bytes();
        // Cut in half, garbage, incoherent: each is rebuilt from the transcript.
        for damage in [
            b"{\"version\":1,\"sour".as_slice(),
            b"\xff\xfe garbage".as_slice(),
            incoherent.as_slice(),
        ] {
            std::fs::write(&entries[0], damage).unwrap();
            let mut fresh = Store::new(d.index.clone());
            assert_eq!(fresh.refresh_file(&path), Change::Rebuilt);
            assert_eq!(found(&fresh, "decision"), [("s1".to_string(), 0)]);
            // And written back whole.
            let back: FileIndex =
                serde_json::from_slice(&std::fs::read(&entries[0]).unwrap()).unwrap();
            assert_eq!(back.docs.len(), 1);
        }
    }

    #[test]
    fn archives_take_their_session_from_the_file_name() {
        let d = dirs();
        let archive = d.sessions.join("s1.archive.jsonl");
        append(&archive, &message("user", "an archived remark"));
        append(
            &archive,
            "{\"role\":\"assistant\",\"content\":\"bare message line\"}\n",
        );
        let mut store = Store::new(d.index.clone());
        store.refresh(std::slice::from_ref(&d.sessions));
        assert_eq!(found(&store, "archived"), [("s1".to_string(), 0)]);
        assert_eq!(found(&store, "bare"), [("s1".to_string(), 1)]);
        let (_, file) = store.index.files().next().unwrap();
        assert!(file.archive);
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_transcripts_are_not_followed() {
        let d = dirs();
        let outside = d._root.path().join("outside.jsonl");
        std::fs::write(&outside, header("x") + &message("user", "secret outside")).unwrap();
        std::os::unix::fs::symlink(&outside, d.sessions.join("link.jsonl")).unwrap();
        let mut store = Store::new(d.index.clone());
        store.refresh(std::slice::from_ref(&d.sessions));
        assert!(found(&store, "secret").is_empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn arbitrary_transcript_bytes_never_panic_the_indexer(
            first in proptest::collection::vec(any::<u8>(), 0..600),
            more in proptest::collection::vec(any::<u8>(), 0..300),
            cut in 0usize..600,
        ) {
            let d = dirs();
            let path = d.sessions.join("s.jsonl");
            let mut bytes = header("s").into_bytes();
            bytes.extend_from_slice(&first);
            std::fs::write(&path, &bytes).unwrap();
            let mut store = Store::new(d.index.clone());
            store.refresh(std::slice::from_ref(&d.sessions));
            append_bytes(&path, &more);
            store.refresh_file(&path);
            // Shrink it somewhere, then search.
            let f = OpenOptions::new().write(true).open(&path).unwrap();
            f.set_len(cut.min(bytes.len()) as u64).unwrap();
            store.refresh_file(&path);
            let _ = store.index.search("a b 数据", &|_| true, 5, 0.3);
            // The stored entry, damaged arbitrarily, is still no panic.
            for entry in std::fs::read_dir(&d.index).unwrap() {
                std::fs::write(entry.unwrap().path(), &more).unwrap();
            }
            let mut fresh = Store::new(d.index.clone());
            fresh.refresh(std::slice::from_ref(&d.sessions));
        }
    }

    /// Move the file's modification time on (a coarse clock can give two quick writes the same).
    fn later(path: &Path) {
        let f = OpenOptions::new().write(true).open(path).unwrap();
        let then = f.metadata().unwrap().modified().unwrap();
        f.set_modified(then + std::time::Duration::from_secs(5))
            .unwrap();
    }

    fn append_bytes(path: &Path, bytes: &[u8]) {
        let mut f = OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(bytes).unwrap();
    }
}
