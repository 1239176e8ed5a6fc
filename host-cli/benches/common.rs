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

/// Reap `pid` and return its exit status and resource usage (the child's CPU time and peak
/// RSS).
#[allow(unsafe_code)]
pub fn wait4(pid: u32) -> (i32, libc::rusage) {
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals of the right type; `pid` is our own child that
    // nothing else waits for (the `Child` handle is never waited on).
    let rc = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid as libc::pid_t, "wait4 failed");
    (status, usage)
}

pub fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// Like [`wait4`], also returning the child's own peak RSS in KiB (`VmHWM`, read from
/// `/proc/<pid>/status` every millisecond while it runs). `ru_maxrss` cannot give that: Linux
/// carries the spawning process's resident size over `exec`, so a child of a large benchmark
/// process reports at least the benchmark's size.
#[allow(unsafe_code)]
pub fn wait4_with_peak_rss(pid: u32) -> (i32, libc::rusage, u64) {
    let status_file = format!("/proc/{pid}/status");
    let mut peak = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kib);
        }
        let mut status = 0;
        // SAFETY: as in `wait4`; WNOHANG returns 0 while the child runs.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers are to live locals of the right type; `pid` is our own child.
        let rc = unsafe { libc::wait4(pid as libc::pid_t, &mut status, libc::WNOHANG, &mut usage) };
        if rc == pid as libc::pid_t {
            return (status, usage, peak);
        }
        assert_eq!(rc, 0, "wait4 failed");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Copy a directory tree of regular files.
#[allow(clippy::unwrap_used)]
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
