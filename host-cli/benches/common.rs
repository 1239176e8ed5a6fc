//! Timing helpers shared by the benchmarks: medians over repeated runs, printed as a table.
#![allow(dead_code)]

use std::time::{Duration, Instant};

/// Run `f` `runs` times; return the sorted durations.
pub fn sample(runs: usize, mut f: impl FnMut()) -> Vec<Duration> {
    let mut out: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    out.sort();
    out
}

pub fn median(samples: &[Duration]) -> Duration {
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

pub fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

pub fn us(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}
