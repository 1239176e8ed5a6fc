//! BM25 over saved facts, with the history index's words (CJK as characters and pairs), so a
//! fact is found by the rare words it shares with a query. Kept in memory per store and read
//! again only when a fact directory changed.

use super::store::{Fact, Store};
use crate::history::tokenize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::SystemTime;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// The most distinct query terms scored.
const MAX_QUERY_TERMS: usize = 32;

/// One fact found, with its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub fact: Fact,
    pub score: f64,
}

struct Doc {
    len: f64,
    counts: HashMap<String, u32>,
}

/// The facts of one store, indexed.
pub struct Index {
    facts: Vec<Fact>,
    docs: Vec<Doc>,
    /// Documents containing each term.
    df: HashMap<String, u32>,
    avg_len: f64,
    /// The fact directories' modification times when read.
    seen: Vec<Option<SystemTime>>,
}

fn modified(dirs: &[PathBuf]) -> Vec<Option<SystemTime>> {
    dirs.iter()
        .map(|d| std::fs::metadata(d).and_then(|m| m.modified()).ok())
        .collect()
}

impl Index {
    pub fn build(facts: Vec<Fact>) -> Index {
        let mut index = Index {
            facts: Vec::with_capacity(facts.len()),
            docs: Vec::with_capacity(facts.len()),
            df: HashMap::new(),
            avg_len: 0.0,
            seen: Vec::new(),
        };
        for fact in facts {
            index.push(fact);
        }
        index
    }

    fn push(&mut self, fact: Fact) {
        let mut counts: HashMap<String, u32> = HashMap::new();
        let terms = tokenize::terms(&fact.text);
        for t in &terms {
            *counts.entry(t.clone()).or_default() += 1;
        }
        for t in counts.keys() {
            *self.df.entry(t.clone()).or_default() += 1;
        }
        let n = self.docs.len() as f64;
        self.avg_len = (self.avg_len * n + terms.len() as f64) / (n + 1.0);
        self.docs.push(Doc {
            len: terms.len() as f64,
            counts,
        });
        self.facts.push(fact);
    }

    /// A fact just saved through `store`: indexed without reading the others again.
    pub fn add(&mut self, fact: Fact, store: &Store) {
        self.push(fact);
        let dirs: Vec<PathBuf> = store.dirs().iter().map(|d| d.to_path_buf()).collect();
        self.seen = modified(&dirs);
    }

    /// The store's facts, indexed (read again only when a fact directory changed since).
    pub fn refreshed(previous: Option<Index>, store: &Store) -> Index {
        let dirs: Vec<PathBuf> = store.dirs().iter().map(|d| d.to_path_buf()).collect();
        let now = modified(&dirs);
        if let Some(index) = previous
            && index.seen == now
        {
            return index;
        }
        let mut index = Index::build(store.all());
        index.seen = now;
        index
    }

    pub fn facts(&self) -> &[Fact] {
        &self.facts
    }

    /// The best `limit` facts for `query`; after the best, those below `floor` × its score
    /// are left out. Facts sharing no word with the query are never hits.
    pub fn search(&self, query: &str, limit: usize, floor: f64) -> Vec<Hit> {
        let mut terms = tokenize::terms(query);
        terms.sort();
        terms.dedup();
        terms.truncate(MAX_QUERY_TERMS);
        let n = self.docs.len() as f64;
        let mut scored: Vec<(usize, f64)> = self
            .docs
            .iter()
            .enumerate()
            .filter_map(|(i, doc)| {
                let mut score = 0.0;
                for term in &terms {
                    let Some(&tf) = doc.counts.get(term) else {
                        continue;
                    };
                    let df = f64::from(*self.df.get(term).unwrap_or(&1));
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    let tf = f64::from(tf);
                    let norm = K1 * (1.0 - B + B * doc.len / self.avg_len.max(1.0));
                    score += idf * tf * (K1 + 1.0) / (tf + norm);
                }
                (score > 0.0).then_some((i, score))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let best = scored.first().map_or(0.0, |s| s.1);
        scored
            .into_iter()
            .take_while(|(_, s)| *s >= best * floor)
            .take(limit)
            .map(|(i, score)| Hit {
                fact: self.facts[i].clone(),
                score,
            })
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::memory::store::Scope;

    fn fact(id: &str, text: &str) -> Fact {
        Fact {
            id: id.into(),
            scope: Scope::Project,
            revision: 1,
            created_ms: 0,
            updated_ms: 0,
            text: text.into(),
        }
    }

    #[test]
    fn rare_shared_words_rank_first_and_unrelated_facts_are_not_hits() {
        let index = Index::build(vec![
            fact("a", "The project uses PostgreSQL 16 for storage"),
            fact("b", "Tests run with cargo nextest in CI"),
            fact("c", "The user prefers tabs over spaces"),
            fact("d", "部署使用 Kubernetes 集群"),
        ]);
        let hits = index.search("which database? postgresql", 5, 0.3);
        assert_eq!(hits[0].fact.id, "a");
        assert_eq!(hits.len(), 1);
        assert!(index.search("weather tomorrow", 5, 0.3).is_empty());
        assert_eq!(index.search("集群", 5, 0.3)[0].fact.id, "d");
    }
}
