//! Start-to-ready: `reasonix tools list` (engine, registry, every built-in loaded and described)
//! against a bare `reasonix version`, with a warm and a cold compiled-artifact cache (a cold one
//! takes the built-ins' artifacts embedded at build time); plus the registry load alone,
//! in-process, and once with the built-ins compiled (what a cold start cost before ADR 0025).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use reasonix_runtime::builtins::BUILTINS;

use common::{median, ms, sample};
use reasonix_config::{Config, Paths};
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

    // Cold, with the embedded artifacts ignored: every built-in compiled and instantiated.
    let compiled: Vec<reasonix_host::BuiltinComponent> = BUILTINS
        .iter()
        .map(|b| reasonix_host::BuiltinComponent {
            precompiled: None,
            ..*b
        })
        .collect();
    let mut n = 0;
    let cold_compiled = sample(1, || {
        n += 1;
        let paths = Paths {
            cache: dir.path().join(format!("compiled-{n}")),
            ..paths.clone()
        };
        let registry =
            Registry::load(&compiled, &paths, &config.registry_settings(), None).unwrap();
        assert!(registry.problems().is_empty());
    });
    let mut n = 0;
    let cold_in_process = sample(COLD_RUNS, || {
        n += 1;
        let paths = Paths {
            cache: dir.path().join(format!("embedded-{n}")),
            ..paths.clone()
        };
        let registry = Registry::load(BUILTINS, &paths, &config.registry_settings(), None).unwrap();
        assert!(registry.problems().is_empty());
    });

    let total: usize = BUILTINS.iter().map(|b| b.bytes.len()).sum();
    let artifacts: usize = BUILTINS
        .iter()
        .filter_map(|b| b.precompiled)
        .map(|p| p.artifact.bytes().len())
        .sum();
    println!(
        "built-in components: {} ({} KiB in total; embedded artifacts {} KiB)\n",
        BUILTINS.len(),
        total / 1024,
        artifacts / 1024
    );
    println!("| measurement | median ms | min ms |");
    println!("|---|---|---|");
    for (name, s) in [
        ("`reasonix version` (baseline)", &version),
        ("`reasonix tools list`, warm cache", &warm),
        (
            "`reasonix tools list`, cold cache (built-ins from the embedded artifacts)",
            &cold,
        ),
        ("`Registry::load`, in-process, warm", &in_process),
        (
            "`Registry::load`, in-process, cold cache (embedded artifacts)",
            &cold_in_process,
        ),
        (
            "`Registry::load`, in-process, cold cache, built-ins compiled (no embedded artifacts)",
            &cold_compiled,
        ),
        (
            "`Registry::load`, in-process, warm, without the built-in interceptors",
            &in_process_without,
        ),
    ] {
        println!("| {name} | {} | {} |", ms(median(s)), ms(s[0]));
    }
    println!(
        "\ncold start-to-ready is {:.2}× the warm one (target ≤ 3×)",
        median(&cold).as_secs_f64() / median(&warm).as_secs_f64()
    );
    let delta = median(&warm).saturating_sub(median(&version));
    println!(
        "\nwarm start-to-ready adds {} ms over `reasonix version` (target ≤ 15 ms)",
        ms(delta)
    );
}
