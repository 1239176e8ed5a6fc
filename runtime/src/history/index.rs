//! The BM25 index over saved messages: one [`FileIndex`] per transcript or archive (what was
//! read of it, and each message's term counts), and in memory an inverted list per term over
//! all of them. Appending to a file only adds postings; a replaced file's postings are taken
//! out first.

use super::scan::Identity;
use super::tokenize;
use reasonix_core::types::Role;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Version of the stored per-file index; another version is rebuilt.
pub const INDEX_VERSION: u32 = 1;
/// BM25 term-frequency saturation and length normalisation (the usual values).
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// One indexed message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    /// Its position among the file's messages (0-based).
    pub n: u32,
    pub role: Role,
    pub at_ms: u64,
    /// Byte offset of its line, to read it back for a snippet or a window.
    pub offset: u64,
    /// Terms in it.
    pub len: u32,
    /// (term, count), the term as its number in the file's `vocabulary`.
    pub terms: Vec<(u32, u32)>,
}

/// What the index knows of one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileIndex {
    pub version: u32,
    pub source: PathBuf,
    pub identity: Identity,
    /// File length when last read (with `identity.modified_ns`: nothing new to read).
    pub seen_len: u64,
    /// Fingerprint (head, tail) of the bytes up to `consumed`.
    pub fingerprint: (u64, u64),
    /// Bytes of complete lines read.
    pub consumed: u64,
    /// The session id (the header's, or the archive's file name).
    pub session: String,
    /// The workspace path its header names.
    pub workspace: String,
    pub created_ms: u64,
    /// `<id>.archive.jsonl`: messages compaction took out of the live history.
    pub archive: bool,
    /// Every term of the file's messages once (docs refer to them by number: stored once per
    /// file, not once per message).
    #[serde(default)]
    pub vocabulary: Vec<String>,
    pub docs: Vec<Doc>,
}

impl FileIndex {
    pub fn empty(source: &Path, archive: bool) -> FileIndex {
        FileIndex {
            version: INDEX_VERSION,
            source: source.to_path_buf(),
            identity: Identity::default(),
            seen_len: 0,
            fingerprint: (0, 0),
            consumed: 0,
            session: session_of_file_name(source, archive),
            workspace: String::new(),
            created_ms: 0,
            archive,
            vocabulary: Vec::new(),
            docs: Vec::new(),
        }
    }

    /// Term numbers by term, for [`FileIndex::push_message`].
    pub fn vocabulary_map(&self) -> HashMap<String, u32> {
        self.vocabulary
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), u32::try_from(i).unwrap_or(u32::MAX)))
            .collect()
    }

    /// Index one more message; `vocabulary` is [`FileIndex::vocabulary_map`], kept current.
    pub fn push_message(
        &mut self,
        vocabulary: &mut HashMap<String, u32>,
        role: Role,
        at_ms: u64,
        offset: u64,
        text: &str,
    ) {
        let mut counts: HashMap<u32, u32> = HashMap::new();
        let mut len = 0u32;
        for term in tokenize::terms(text) {
            let id = match vocabulary.get(&term) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(self.vocabulary.len()).unwrap_or(u32::MAX);
                    self.vocabulary.push(term.clone());
                    vocabulary.insert(term, id);
                    id
                }
            };
            *counts.entry(id).or_insert(0) += 1;
            len = len.saturating_add(1);
        }
        let mut terms: Vec<(u32, u32)> = counts.into_iter().collect();
        terms.sort_unstable();
        let n = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
        self.docs.push(Doc {
            n,
            role,
            at_ms,
            offset,
            len,
            terms,
        });
    }
}

/// The session id a file's name gives (`<id>.jsonl`, `<id>.archive.jsonl`).
pub fn session_of_file_name(path: &Path, archive: bool) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name.strip_suffix(".jsonl").unwrap_or(&name);
    let name = if archive {
        name.strip_suffix(".archive").unwrap_or(name)
    } else {
        name
    };
    name.to_string()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Posting {
    file: u32,
    doc: u32,
    tf: u32,
}

/// Every indexed file, and postings over all of them.
#[derive(Debug, Default)]
pub struct Index {
    /// A removed file leaves `None` (postings refer to slots by number).
    files: Vec<Option<FileIndex>>,
    by_path: HashMap<PathBuf, usize>,
    postings: HashMap<String, Vec<Posting>>,
}

/// One ranked message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub file: usize,
    pub doc: usize,
    pub score: f64,
}

impl Index {
    pub fn file(&self, slot: usize) -> Option<&FileIndex> {
        self.files.get(slot).and_then(Option::as_ref)
    }

    pub fn slot_of(&self, path: &Path) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    /// Every file, with its slot.
    pub fn files(&self) -> impl Iterator<Item = (usize, &FileIndex)> {
        self.files
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.as_ref().map(|f| (i, f)))
    }

    /// Put `file` in (replacing what was known of its source).
    pub fn replace(&mut self, file: FileIndex) {
        let slot = match self.by_path.get(&file.source) {
            Some(&slot) => {
                self.unpost(slot);
                slot
            }
            None => {
                self.files.push(None);
                let slot = self.files.len() - 1;
                self.by_path.insert(file.source.clone(), slot);
                slot
            }
        };
        self.post(slot, &file, 0);
        self.files[slot] = Some(file);
    }

    /// Docs appended to the file in `slot` (its other fields updated to `update`).
    pub fn append(&mut self, slot: usize, update: FileIndex) {
        let Some(Some(old)) = self.files.get(slot) else {
            self.replace(update);
            return;
        };
        let first_new = old.docs.len();
        self.post(slot, &update, first_new);
        self.files[slot] = Some(update);
    }

    pub fn remove(&mut self, path: &Path) {
        if let Some(slot) = self.by_path.remove(path) {
            self.unpost(slot);
            self.files[slot] = None;
        }
    }

    fn post(&mut self, slot: usize, file: &FileIndex, from: usize) {
        let file_no = u32::try_from(slot).unwrap_or(u32::MAX);
        for (i, doc) in file.docs.iter().enumerate().skip(from) {
            let doc_no = u32::try_from(i).unwrap_or(u32::MAX);
            for (id, tf) in &doc.terms {
                // A stored entry naming a term it does not have is damaged: that term is lost.
                let Some(term) = file.vocabulary.get(*id as usize) else {
                    continue;
                };
                self.postings
                    .entry(term.clone())
                    .or_default()
                    .push(Posting {
                        file: file_no,
                        doc: doc_no,
                        tf: *tf,
                    });
            }
        }
    }

    fn unpost(&mut self, slot: usize) {
        let Some(Some(old)) = self.files.get(slot) else {
            return;
        };
        let file = u32::try_from(slot).unwrap_or(u32::MAX);
        let terms = old.vocabulary.clone();
        for term in terms {
            if let Some(list) = self.postings.get_mut(&term) {
                list.retain(|p| p.file != file);
                if list.is_empty() {
                    self.postings.remove(&term);
                }
            }
        }
    }

    /// The best `limit` messages for `query` among the files `in_scope` accepts, BM25-ranked
    /// with document frequencies and lengths of that scope. After the best hit, hits scoring
    /// below `floor` × the best are dropped: they matched only the query's common words.
    pub fn search(
        &self,
        query: &str,
        in_scope: &dyn Fn(&FileIndex) -> bool,
        limit: usize,
        floor: f64,
    ) -> Vec<Hit> {
        let mut terms = tokenize::terms(query);
        terms.sort();
        terms.dedup();
        terms.truncate(super::MAX_QUERY_TERMS);
        let scope: Vec<bool> = self
            .files
            .iter()
            .map(|f| f.as_ref().is_some_and(in_scope))
            .collect();
        let (docs, total_len) =
            self.files()
                .filter(|(slot, _)| scope[*slot])
                .fold((0u64, 0u64), |(n, len), (_, f)| {
                    (
                        n + f.docs.len() as u64,
                        len + f.docs.iter().map(|d| u64::from(d.len)).sum::<u64>(),
                    )
                });
        if docs == 0 || limit == 0 {
            return Vec::new();
        }
        let avg_len = (total_len as f64 / docs as f64).max(1.0);
        let mut scores: HashMap<(u32, u32), f64> = HashMap::new();
        for term in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let in_scope: Vec<&Posting> = list
                .iter()
                .filter(|p| scope.get(p.file as usize).copied().unwrap_or(false))
                .collect();
            let df = in_scope.len() as f64;
            if df == 0.0 {
                continue;
            }
            let idf = (1.0 + (docs as f64 - df + 0.5) / (df + 0.5)).ln();
            for p in in_scope {
                let Some(doc) = self
                    .file(p.file as usize)
                    .and_then(|f| f.docs.get(p.doc as usize))
                else {
                    continue;
                };
                let tf = f64::from(p.tf);
                let norm = K1 * (1.0 - B + B * f64::from(doc.len) / avg_len);
                *scores.entry((p.file, p.doc)).or_insert(0.0) +=
                    idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .map(|((file, doc), score)| Hit {
                file: file as usize,
                doc: doc as usize,
                score,
            })
            .collect();
        let at = |h: &Hit| {
            self.file(h.file)
                .and_then(|f| f.docs.get(h.doc))
                .map_or(0, |d| d.at_ms)
        };
        // Best first; equal scores: the more recent first, then a stable order.
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(at(b).cmp(&at(a)))
                .then(a.file.cmp(&b.file))
                .then(a.doc.cmp(&b.doc))
        });
        if let Some(best) = hits.first().map(|h| h.score) {
            let keep = hits
                .iter()
                .skip(1)
                .take_while(|h| h.score >= best * floor)
                .count()
                + 1;
            hits.truncate(keep);
        }
        hits.truncate(limit);
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, texts: &[&str]) -> FileIndex {
        let mut f = FileIndex::empty(Path::new(name), false);
        let mut vocabulary = f.vocabulary_map();
        for (i, t) in texts.iter().enumerate() {
            f.push_message(&mut vocabulary, Role::User, i as u64, 0, t);
        }
        f
    }

    fn ranked(index: &Index, query: &str) -> Vec<(String, usize)> {
        index
            .search(query, &|_| true, 10, 0.0)
            .iter()
            .map(|h| (index.file(h.file).unwrap().session.clone(), h.doc))
            .collect()
    }

    #[test]
    fn bm25_prefers_rare_terms_and_short_focused_messages() {
        let mut index = Index::default();
        index.replace(file(
            "/s/a.jsonl",
            &[
                "the build is slow and the tests are slow",
                "we decided to use sqlite for the cache",
            ],
        ));
        index.replace(file(
            "/s/b.jsonl",
            &[
                "the the the the",
                "a long message about many things: the cache, the build, the weather, the tests, sqlite maybe, lunch, deadlines, and more",
            ],
        ));
        // `sqlite` is rare; the short message that is about it wins over the long one.
        let hits = ranked(&index, "sqlite cache");
        assert_eq!(hits[0], ("a".into(), 1));
        assert_eq!(hits[1], ("b".into(), 1));
        // A message matching only the common word ranks below one matching the rare one.
        let hits = ranked(&index, "the slow");
        assert_eq!(hits[0], ("a".into(), 0));
        // Nothing matches: nothing found.
        assert!(ranked(&index, "postgres").is_empty());
    }

    #[test]
    fn the_relative_floor_keeps_the_best_and_trims_common_word_noise() {
        let mut index = Index::default();
        let mut texts = vec!["the migration to tokio was decided on monday"];
        texts.extend(std::iter::repeat_n("the weather on monday was fine", 20));
        index.replace(file("/s/a.jsonl", &texts));
        let all = index.search("tokio monday", &|_| true, 50, 0.0);
        let trimmed = index.search("tokio monday", &|_| true, 50, 0.5);
        assert_eq!(all.len(), 21);
        assert_eq!(trimmed.len(), 1, "{trimmed:?}");
        assert_eq!(trimmed[0].doc, 0);
        // Only common words in the query: the best is still kept.
        assert!(!index.search("monday", &|_| true, 50, 0.99).is_empty());
    }

    #[test]
    fn scope_limits_documents_and_statistics() {
        let mut index = Index::default();
        index.replace(file("/p/a.jsonl", &["redis was chosen"]));
        index.replace(file("/q/b.jsonl", &["redis everywhere"]));
        let only_p = index.search("redis", &|f| f.source.starts_with("/p"), 10, 0.0);
        assert_eq!(only_p.len(), 1);
        assert_eq!(index.file(only_p[0].file).unwrap().session, "a");
    }

    #[test]
    fn replacing_and_removing_a_file_takes_its_postings_out() {
        let mut index = Index::default();
        index.replace(file("/s/a.jsonl", &["alpha"]));
        index.replace(file("/s/b.jsonl", &["alpha beta"]));
        index.replace(file("/s/a.jsonl", &["gamma"]));
        assert_eq!(ranked(&index, "alpha"), [("b".to_string(), 0)]);
        assert_eq!(ranked(&index, "gamma"), [("a".to_string(), 0)]);
        index.remove(Path::new("/s/b.jsonl"));
        assert!(ranked(&index, "alpha").is_empty());
        // Appending adds the new docs only.
        let slot = index.slot_of(Path::new("/s/a.jsonl")).unwrap();
        let mut grown = index.file(slot).unwrap().clone();
        let mut vocabulary = grown.vocabulary_map();
        grown.push_message(&mut vocabulary, Role::Assistant, 9, 0, "delta gamma");
        index.append(slot, grown);
        assert_eq!(
            ranked(&index, "gamma"),
            [("a".to_string(), 0), ("a".to_string(), 1)]
        );
    }
}
