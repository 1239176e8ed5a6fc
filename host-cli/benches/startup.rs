//! Start-to-ready: `reasonix tools list` (engine, registry, every built-in loaded and described)
//! against a bare `reasonix version`, with a warm and a cold compiled-artifact cache; plus the
//! registry load alone, in-process.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

use common::{median, ms, sample};
use reasonix_agent::config::{Config, Paths};
use reasonix_host::Registry;
use std::path::Path;
use std::process::Command;

const RUNS: usize = 40;
const COLD_RUNS: usize = 5;

fn run(bin: &str, args: &[&str], home: &Path, cache: &Path) {
    let out = Command::new(bin)
        .args(args)
        .env("REASONIX_HOME", home)
        .env("REASONIX_CACHE_HOME", cache)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn main() {
    let bin = env!("CARGO_BIN_EXE_reasonix");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(&home).unwrap();

    let version = sample(RUNS, || run(bin, &["version"], &home, &cache));
    run(bin, &["tools", "list"], &home, &cache);
    let warm = sample(RUNS, || run(bin, &["tools", "list"], &home, &cache));
    let mut n = 0;
    let cold = sample(COLD_RUNS, || {
        n += 1;
        run(
            bin,
            &["tools", "list"],
            &home,
            &dir.path().join(format!("cold-{n}")),
        );
    });

    let paths = Paths {
        home: home.clone(),
        cache: cache.clone(),
        state: home.clone(),
    };
    let config = Config::default();
    let load = || {
        let registry = Registry::load(BUILTINS, &paths, &config.registry_settings(), None).unwrap();
        assert!(registry.problems().is_empty());
    };
    let in_process = sample(RUNS, load);
    // The same without the four built-in interceptor components: the registry before they
    // existed.
    let without: Vec<reasonix_host::BuiltinComponent> = BUILTINS
        .iter()
        .filter(|b| !["environment", "instructions", "redact", "bound"].contains(&b.name))
        .copied()
        .collect();
    let load_without = || {
        let registry = Registry::load(&without, &paths, &config.registry_settings(), None).unwrap();
        assert!(registry.problems().is_empty());
    };
    load_without();
    let in_process_without = sample(RUNS, load_without);

    let total: usize = BUILTINS.iter().map(|b| b.bytes.len()).sum();
    println!(
        "built-in components: {} ({} KiB in total)\n",
        BUILTINS.len(),
        total / 1024
    );
    println!("| measurement | median ms | min ms |");
    println!("|---|---|---|");
    for (name, s) in [
        ("`reasonix version` (baseline)", &version),
        ("`reasonix tools list`, warm cache", &warm),
        (
            "`reasonix tools list`, cold cache (compiles every built-in)",
            &cold,
        ),
        ("`Registry::load`, in-process, warm", &in_process),
        (
            "`Registry::load`, in-process, warm, without the built-in interceptors",
            &in_process_without,
        ),
    ] {
        println!("| {name} | {} | {} |", ms(median(s)), ms(s[0]));
    }
    let delta = median(&warm).saturating_sub(median(&version));
    println!(
        "\nwarm start-to-ready adds {} ms over `reasonix version` (target ≤ 15 ms)",
        ms(delta)
    );
}
