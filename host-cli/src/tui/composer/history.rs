//! Prompt history of one workspace: `<state>/history/<workspace key>.jsonl`, newest last.
//!
//! One JSON object per line (`{"text": "..."}`), appended on submit, so two sessions in the same
//! workspace only ever add whole lines. Loading reads at most the file's tail; the file is
//! rewritten down to the cap once it holds twice as many lines.

use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Entries kept (in memory and, after compaction, on disk).
pub const MAX_ENTRIES: usize = 1_000;
/// Only this much of the file's end is read at start-up.
pub const TAIL_BYTES: u64 = 4 * 1024 * 1024;
/// A longer entry (a huge paste) is kept for this session only, not written.
pub const MAX_ENTRY_BYTES: usize = 256 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// "prompt history <path>: <why>", in the language of the screen.
    #[error("{}", describe(.path, .source))]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

fn describe(path: &Path, source: &io::Error) -> String {
    reasonix_i18n::t!(
        "composer-history-error",
        path = path.display().to_string(),
        error = source.to_string()
    )
}

#[derive(Serialize, Deserialize)]
struct Record {
    text: String,
}

#[derive(Debug, Clone, Default)]
pub struct History {
    path: Option<PathBuf>,
    entries: Vec<String>,
    /// Lines in the file (an estimate after a tail read); compaction is due past 2 × cap.
    file_lines: usize,
}

impl History {
    /// A history that is not persisted (tests, or when the state directory is unusable).
    pub fn in_memory() -> History {
        History::default()
    }

    /// `<state_dir>/history/<workspace_key(workspace)>.jsonl`.
    pub fn path_for(state_dir: &Path, workspace: &Path) -> PathBuf {
        state_dir.join("history").join(format!(
            "{}.jsonl",
            reasonix_agent::session::workspace_key(workspace)
        ))
    }

    /// The history at `path`; a missing file is an empty history, corrupt or oversized lines
    /// are skipped.
    pub fn load(path: PathBuf) -> Result<History, HistoryError> {
        let err = |source| HistoryError::Io {
            path: path.clone(),
            source,
        };
        let mut file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(History {
                    path: Some(path),
                    ..History::default()
                });
            }
            Err(e) => return Err(err(e)),
        };
        let len = file.metadata().map_err(err)?.len();
        let truncated = len > TAIL_BYTES;
        if truncated {
            file.seek(SeekFrom::Start(len - TAIL_BYTES)).map_err(err)?;
        }
        let mut bytes = Vec::new();
        file.take(TAIL_BYTES).read_to_end(&mut bytes).map_err(err)?;
        let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
        if truncated && !lines.is_empty() {
            // The first line was cut by the seek.
            lines.remove(0);
        }
        let mut entries: Vec<String> = Vec::new();
        for line in &lines {
            if line.is_empty() || line.len() > MAX_ENTRY_BYTES * 2 {
                continue;
            }
            let Ok(record) = serde_json::from_slice::<Record>(line) else {
                continue;
            };
            if entries.last() != Some(&record.text) {
                entries.push(record.text);
            }
        }
        let file_lines = if truncated {
            usize::MAX / 2
        } else {
            lines.len()
        };
        if entries.len() > MAX_ENTRIES {
            entries.drain(..entries.len() - MAX_ENTRIES);
        }
        Ok(History {
            path: Some(path),
            entries,
            file_lines,
        })
    }

    /// Oldest first.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds a submitted prompt (a repeat of the newest entry is not added) and appends it to
    /// the file. The in-memory history is updated even when writing fails.
    pub fn push(&mut self, text: &str) -> Result<(), HistoryError> {
        if text.trim().is_empty() || self.entries.last().is_some_and(|last| last == text) {
            return Ok(());
        }
        self.entries.push(text.to_string());
        if self.entries.len() > MAX_ENTRIES {
            self.entries.drain(..self.entries.len() - MAX_ENTRIES);
        }
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        if text.len() > MAX_ENTRY_BYTES {
            return Ok(());
        }
        let err = |source| HistoryError::Io {
            path: path.clone(),
            source,
        };
        self.file_lines = self.file_lines.saturating_add(1);
        if self.file_lines > 2 * MAX_ENTRIES {
            self.rewrite(&path).map_err(err)?;
            return Ok(());
        }
        let mut line = serde_json::to_string(&Record {
            text: text.to_string(),
        })
        .map_err(|e| err(io::Error::other(e)))?;
        line.push('\n');
        let mut file = open_private(&path, false).map_err(err)?;
        // One write per line: concurrent sessions interleave whole lines only.
        file.write_all(line.as_bytes()).map_err(err)
    }

    fn rewrite(&mut self, path: &Path) -> io::Result<()> {
        let mut out = String::new();
        for text in &self.entries {
            if text.len() > MAX_ENTRY_BYTES {
                continue;
            }
            let line =
                serde_json::to_string(&Record { text: text.clone() }).map_err(io::Error::other)?;
            out.push_str(&line);
            out.push('\n');
        }
        let tmp = path.with_extension("jsonl.tmp");
        let mut file = open_private(&tmp, true)?;
        file.write_all(out.as_bytes())?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        self.file_lines = self.entries.len();
        Ok(())
    }
}

/// Opens for append (or truncates), creating the directory 0700 and the file 0600.
fn open_private(path: &Path, truncate: bool) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    let mut options = OpenOptions::new();
    options.create(true);
    if truncate {
        options.write(true).truncate(true);
    } else {
        options.append(true);
    }
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn temp() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = History::path_for(dir.path(), Path::new("/some/work space"));
        (dir, path)
    }

    #[test]
    fn round_trip_collapses_consecutive_duplicates() {
        let (_dir, path) = temp();
        let mut h = History::load(path.clone()).unwrap();
        assert!(h.is_empty());
        h.push("one").unwrap();
        h.push("two\nlines \"quoted\"").unwrap();
        h.push("two\nlines \"quoted\"").unwrap();
        h.push("   ").unwrap();
        h.push("one").unwrap();
        assert_eq!(h.len(), 3);
        assert_eq!(fs::read_to_string(&path).unwrap().lines().count(), 3);
        let again = History::load(path.clone()).unwrap();
        assert_eq!(again.entries(), ["one", "two\nlines \"quoted\"", "one"]);
        assert!(path.to_string_lossy().contains("/history/"));
        assert!(path.to_string_lossy().ends_with(".jsonl"));
    }

    #[cfg(unix)]
    #[test]
    fn file_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, path) = temp();
        let mut h = History::load(path.clone()).unwrap();
        h.push("secret").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dir_mode, 0o700);
    }

    #[test]
    fn corrupt_and_oversized_lines_are_skipped() {
        let (_dir, path) = temp();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let huge = format!("{{\"text\":\"{}\"}}", "x".repeat(MAX_ENTRY_BYTES * 2 + 10));
        let body = format!(
            "{{\"text\":\"good\"}}\nnot json\n{{\"text\": 5}}\n\u{0}\u{1}\n{huge}\n{{\"text\":\"also good\"}}\n"
        );
        fs::write(&path, body).unwrap();
        let h = History::load(path).unwrap();
        assert_eq!(h.entries(), ["good", "also good"]);
    }

    #[test]
    fn capped_in_memory_and_compacted_on_disk() {
        let (_dir, path) = temp();
        let mut h = History::load(path.clone()).unwrap();
        for i in 0..(2 * MAX_ENTRIES + 5) {
            h.push(&format!("entry {i}")).unwrap();
        }
        assert_eq!(h.len(), MAX_ENTRIES);
        assert_eq!(
            h.entries().last().unwrap(),
            &format!("entry {}", 2 * MAX_ENTRIES + 4)
        );
        let lines = fs::read_to_string(&path).unwrap().lines().count();
        assert!(
            lines <= 2 * MAX_ENTRIES,
            "file not compacted: {lines} lines"
        );
        let again = History::load(path).unwrap();
        assert_eq!(again.len(), MAX_ENTRIES);
        assert_eq!(again.entries().last(), h.entries().last());
    }

    #[test]
    fn a_big_file_is_read_from_its_tail() {
        let (_dir, path) = temp();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let filler = format!("{{\"text\":\"{}\"}}\n", "f".repeat(100_000));
        let mut body = String::new();
        while (body.len() as u64) < TAIL_BYTES + 200_000 {
            body.push_str(&filler);
        }
        body.push_str("{\"text\":\"last\"}\n");
        fs::write(&path, body).unwrap();
        let h = History::load(path).unwrap();
        assert_eq!(h.entries().last().unwrap(), "last");
        assert_eq!(
            h.len(),
            2,
            "only the tail is read and consecutive repeats collapse"
        );
    }
}
