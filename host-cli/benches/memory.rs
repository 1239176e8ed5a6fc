//! Standing memory at scale (docs/PERFORMANCE.md, "Standing memory"): 10,000 saved facts — the
//! index read from disk cold, a `memory` search and a turn's recall on the warm index, and
//! saving one more fact among them.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use common::{median, ms, sample, us};
use reasonix_runtime::memory::{Memory, Scope};
use std::path::Path;
use std::time::Instant;

const FACTS: usize = 10_000;
const QUERIES: usize = 50;

fn main() {
    let state = tempfile::tempdir().unwrap();
    let workspace = Path::new("/bench/workspace");
    let store = Memory::new(state.path()).store(workspace);
    // Facts of a few dozen words from a vocabulary large enough that most words are rare.
    let mut seed: u64 = 7;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let words: Vec<String> = (0..20_000).map(|i| format!("w{i}")).collect();
    let started = Instant::now();
    for i in 0..FACTS {
        let text: Vec<&str> = (0..24)
            .map(|_| words[next() % words.len()].as_str())
            .collect();
        let scope = if i % 10 == 0 {
            Scope::User
        } else {
            Scope::Project
        };
        store
            .remember_among(scope, &format!("fact {i}: {}", text.join(" ")), &[])
            .unwrap();
    }
    let written = started.elapsed();

    let memory = Memory::new(state.path());
    let cold = Instant::now();
    let count = memory.with_index(workspace, |index| index.facts().len());
    let cold = cold.elapsed();
    assert_eq!(count, FACTS);

    let queries: Vec<String> = (0..QUERIES)
        .map(|_| {
            (0..4)
                .map(|_| words[next() % words.len()].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let mut q = queries.iter().cycle();
    let search = sample(QUERIES, || {
        let query = q.next().unwrap();
        memory.with_index(workspace, |index| index.search(query, 5, 0.3));
    });
    let mut q = queries.iter().cycle();
    let recall = sample(QUERIES, || {
        let _ = memory.recall(workspace, q.next().unwrap());
    });
    let save = sample(5, || {
        let text = format!("one more fact {}", next());
        memory.remember(workspace, Scope::Project, &text).unwrap();
    });

    println!("| {FACTS} saved facts | value |");
    println!("|---|---:|");
    println!("| writing them (one file each) | {} ms |", ms(written));
    println!("| index read cold (every file) | {} ms |", ms(cold));
    println!(
        "| `memory` search, warm index (median of {QUERIES}) | {} µs |",
        us(median(&search))
    );
    println!(
        "| a turn's recall, warm index (median of {QUERIES}) | {} µs |",
        us(median(&recall))
    );
    println!(
        "| `remember` one more (compared with every saved fact, then indexed in place; median of 5) | {} ms |",
        ms(median(&save))
    );
}
