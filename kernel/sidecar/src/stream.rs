//! Putting a provider stream back in order: chunk `seq` numbers are 1-based and contiguous;
//! chunks that arrive early wait in a bounded buffer, duplicates (and replays of what was
//! already delivered) are dropped, and an end that leaves a hole is a `stream_gap` naming the
//! first missing number.

use std::collections::BTreeMap;

/// Chunks held out of order at most; more is a flood and fails the stream.
pub const MAX_BUFFERED: usize = 1024;

/// Why a stream cannot go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    #[error("stream_gap: chunk {missing} never arrived (the stream ended at {last})")]
    Gap { missing: u64, last: u64 },
    #[error("chunk seq must be 1 or more, got 0")]
    Zero,
    #[error("more than {MAX_BUFFERED} chunks arrived out of order (a flood)")]
    Flood,
    #[error("chunk {seq} arrived after the stream ended at {last}")]
    PastEnd { seq: u64, last: u64 },
}

/// The reassembly state of one stream.
#[derive(Debug)]
pub struct Reassembly<T> {
    next: u64,
    early: BTreeMap<u64, T>,
    last: Option<u64>,
}

impl<T> Default for Reassembly<T> {
    fn default() -> Self {
        Reassembly {
            next: 1,
            early: BTreeMap::new(),
            last: None,
        }
    }
}

impl<T> Reassembly<T> {
    /// Take chunk `seq`; return the chunks now deliverable, in order.
    pub fn push(&mut self, seq: u64, chunk: T) -> Result<Vec<T>, StreamError> {
        if seq == 0 {
            return Err(StreamError::Zero);
        }
        if let Some(last) = self.last
            && seq > last
        {
            return Err(StreamError::PastEnd { seq, last });
        }
        if seq < self.next || self.early.contains_key(&seq) {
            return Ok(Vec::new());
        }
        if seq > self.next {
            if self.early.len() >= MAX_BUFFERED {
                return Err(StreamError::Flood);
            }
            self.early.insert(seq, chunk);
            return Ok(Vec::new());
        }
        let mut ready = vec![chunk];
        self.next += 1;
        while let Some(chunk) = self.early.remove(&self.next) {
            ready.push(chunk);
            self.next += 1;
        }
        Ok(ready)
    }

    /// The sidecar says the stream ended after chunk `last_seq`. `Ok` when everything up to it
    /// was delivered.
    pub fn end(&mut self, last_seq: u64) -> Result<(), StreamError> {
        self.last = Some(last_seq);
        if self.next > last_seq {
            Ok(())
        } else {
            Err(StreamError::Gap {
                missing: self.next,
                last: last_seq,
            })
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn out_of_order_is_buffered_duplicates_dropped_gaps_named() {
        let mut r = Reassembly::default();
        assert_eq!(r.push(2, "b").unwrap(), Vec::<&str>::new());
        assert_eq!(r.push(2, "b again").unwrap(), Vec::<&str>::new());
        assert_eq!(r.push(1, "a").unwrap(), vec!["a", "b"]);
        assert_eq!(r.push(1, "a again").unwrap(), Vec::<&str>::new());
        assert_eq!(r.push(4, "d").unwrap(), Vec::<&str>::new());
        assert_eq!(
            r.end(4),
            Err(StreamError::Gap {
                missing: 3,
                last: 4
            })
        );
        assert_eq!(r.push(0, "zero"), Err(StreamError::Zero));
        assert!(matches!(
            r.push(9, "late"),
            Err(StreamError::PastEnd { .. })
        ));
    }

    #[test]
    fn a_flood_of_early_chunks_is_refused() {
        let mut r = Reassembly::default();
        for seq in 2..(2 + MAX_BUFFERED as u64) {
            r.push(seq, ()).unwrap();
        }
        assert_eq!(r.push(5000, ()), Err(StreamError::Flood));
    }

    proptest! {
        /// Any permutation of 1..=n, with duplicates, comes out as 1..=n exactly once.
        #[test]
        fn any_order_with_duplicates_reassembles(
            order in Just((1u64..=40).collect::<Vec<_>>()).prop_shuffle(),
            dups in proptest::collection::vec(1u64..=40, 0..20),
        ) {
            let mut r = Reassembly::default();
            let mut out = Vec::new();
            for seq in order.iter().chain(&dups) {
                out.extend(r.push(*seq, *seq).unwrap());
            }
            prop_assert_eq!(out, (1..=40).collect::<Vec<_>>());
            prop_assert!(r.end(40).is_ok());
        }

        /// Dropping any one chunk is a gap naming it.
        #[test]
        fn a_missing_chunk_is_named(missing in 1u64..=30) {
            let mut r = Reassembly::default();
            for seq in (1..=30).filter(|s| *s != missing) {
                r.push(seq, ()).unwrap();
            }
            prop_assert_eq!(r.end(30), Err(StreamError::Gap { missing, last: 30 }));
        }
    }
}
