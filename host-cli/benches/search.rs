//! `grep` through the wasm component against `rg -j1` (single-threaded ripgrep) on the same
//! large real tree, in the same run. The tree is the whole cargo registry source directory
//! (`$CARGO_HOME/registry/src/index.crates.io-*`, every crate the workspace depends on — about
//! 480 MB in 22 000 files when this was written); set `REASONIX_BENCH_TREE` to search another
//! directory. The tree is the workspace, since the component only sees its workspace.
//!
//! Both sides honour `.gitignore` outside git repositories (`--no-require-git`), skip hidden
//! and binary files and search one file at a time; grep also sorts each directory's entries
//! by name (rg does not) and skips credential files. The page cache is warmed first.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use reasonix_runtime::builtins::BUILTINS;

use common::{median, ms, sample};
use reasonix_core::settings::Paths;
use reasonix_core::types::ToolContext;
use reasonix_host::Registry;
use std::path::{Path, PathBuf};
use std::process::Command;

const RUNS: usize = 5;

/// Rare patterns: a literal and a regex, each with a handful of matches.
const PATTERNS: &[&str] = &["unreachable_unchecked", r"fn\s+decode_utf\d+"];

fn registry_tree() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("REASONIX_BENCH_TREE") {
        return Some(PathBuf::from(dir));
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let src = home.join("registry/src");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&src)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("index.crates.io-"))
        })
        .collect();
    dirs.sort();
    dirs.pop()
}

/// Files and bytes under `dir` (for the report).
fn size_of(dir: &Path) -> (u64, u64) {
    let (mut files, mut bytes) = (0, 0);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(t) = entry.file_type() else { continue };
            if t.is_dir() {
                stack.push(entry.path());
            } else if t.is_file() {
                files += 1;
                bytes += entry.metadata().map(|m| m.len()).unwrap_or(0);
            }
        }
    }
    (files, bytes)
}

fn rg(tree: &Path, pattern: &str) -> Option<String> {
    let out = Command::new("rg")
        .current_dir(tree)
        .args([
            "-j1",
            "--no-require-git",
            "--no-config",
            "-n",
            "--no-heading",
            "-H",
        ])
        .args(["-e", pattern])
        .output()
        .ok()?;
    // 0: matches, 1: none; anything else is a failure.
    matches!(out.status.code(), Some(0 | 1))
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn main() {
    let Some(tree) = registry_tree() else {
        println!("search bench skipped: no cargo registry sources found; set REASONIX_BENCH_TREE");
        return;
    };
    let tree = std::fs::canonicalize(&tree).unwrap();
    let (files, bytes) = size_of(&tree);
    println!(
        "tree: {} ({files} files, {:.0} MB)\n",
        tree.display(),
        bytes as f64 / 1e6
    );

    let dir = tempfile::tempdir().unwrap();
    let paths = Paths {
        home: dir.path().join("home"),
        // A kept cache lets `perf` see only the search, not the one-time compile.
        cache: std::env::var_os("REASONIX_BENCH_CACHE")
            .map_or_else(|| dir.path().join("cache"), PathBuf::from),
        state: dir.path().join("home"),
    };
    let registry = Registry::load(BUILTINS, &paths, &Default::default(), None).unwrap();
    let Some(grep) = registry.tool("grep") else {
        panic!("grep is not loaded; problems: {:?}", registry.problems());
    };
    let cx = ToolContext {
        call_id: "bench".into(),
        workspace: tree.clone(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    };
    let have_rg = rg(&tree, "warm-up-the-page-cache").is_some();
    if !have_rg {
        println!(
            "note: `rg` (ripgrep) not found; the rg column is skipped (apt-get install ripgrep)\n"
        );
    }

    println!("| pattern | matches (grep / rg) | grep wasm ms | rg -j1 ms | ratio |");
    println!("|---|---|---|---|---|");
    for pattern in PATTERNS {
        let args = serde_json::json!({ "pattern": pattern, "timeout_seconds": 300 }).to_string();
        let first = grep.invoke(&args, &cx).unwrap();
        assert!(!first.contains("timed out"), "{first}");
        let ours = first
            .lines()
            .filter(|l| !l.starts_with("(no matches") && !l.starts_with("... ("))
            .count();
        let wasm = median(&sample(RUNS, || {
            grep.invoke(&args, &cx).unwrap();
        }));
        if have_rg {
            let theirs = rg(&tree, pattern).unwrap_or_default().lines().count();
            let native = median(&sample(RUNS, || {
                rg(&tree, pattern).unwrap();
            }));
            println!(
                "| `{pattern}` | {ours} / {theirs} | {} | {} | {:.2}× |",
                ms(wasm),
                ms(native),
                wasm.as_secs_f64() / native.as_secs_f64()
            );
        } else {
            println!("| `{pattern}` | {ours} / – | {} | – | – |", ms(wasm));
        }
    }
}
