//! The first start on a fresh machine (issue 24 §1), as a user runs it: `reasonix` in `~` with
//! the default home (`~/.reasonix`, its cache inside the workspace), in a terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::process::Command;
use std::time::Duration;
use support::{Env, fixture};

const WAIT: Duration = Duration::from_secs(120);

/// `reasonix tools list` in a terminal, run in `home` with `HOME=home` and no `REASONIX_*`
/// directories (empty counts as unset): what it printed once it exited.
fn tools_list_in_home(env: &Env) -> String {
    let home = env.project().to_string_lossy().into_owned();
    let mut pty = env.pty(
        &["tools", "list"],
        120,
        40,
        &[
            ("HOME", &home),
            ("REASONIX_HOME", ""),
            ("REASONIX_CACHE_HOME", ""),
            ("REASONIX_STATE_HOME", ""),
        ],
    );
    assert_eq!(pty.wait_exit(WAIT), Some(0), "{}", pty.transcript());
    // The reader thread may still be draining the last bytes.
    std::thread::sleep(Duration::from_millis(200));
    pty.transcript()
}

#[test]
fn in_the_home_directory_no_start_compiles_a_built_in_and_the_cache_is_used() {
    let env = Env::new();
    let home = env.project();
    std::fs::create_dir_all(&home).unwrap();
    // An installed plugin, as `reasonix plugin install` leaves it.
    let out = Command::new(env!("CARGO_BIN_EXE_reasonix"))
        .args([
            "plugin",
            "install",
            fixture("scribe").to_str().unwrap(),
            "--yes",
        ])
        .current_dir(&home)
        .env("HOME", &home)
        .env_remove("REASONIX_HOME")
        .env_remove("REASONIX_CACHE_HOME")
        .env_remove("REASONIX_STATE_HOME")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    // A fresh cache (a new container, a wiped `~/.reasonix/cache`).
    let cache = home.join(".reasonix/cache");
    std::fs::remove_dir_all(&cache).unwrap();

    let first = tools_list_in_home(&env);
    assert!(first.contains("read_file"), "{first}");
    assert!(!first.contains("cache is not used"), "{first}");
    // Only the installed plugin is compiled, and the terminal says so while it is.
    let compiling: Vec<&str> = first
        .lines()
        .filter(|l| l.contains("· compiling "))
        .collect();
    assert_eq!(compiling.len(), 1, "{first}");
    assert!(compiling[0].contains("scribe.wasm"), "{first}");
    assert!(!first.contains("built-in component"), "{first}");
    // Everything it loaded is now in the cache, sealed (the installed plugin and the
    // built-ins that are on).
    let names: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let artifacts = names.iter().filter(|n| n.ends_with(".cwasm")).count();
    let seals = names.iter().filter(|n| n.ends_with(".cwasm.seal")).count();
    assert!(artifacts > crate::BUILTINS.len() / 2, "{names:?}");
    assert_eq!(artifacts, seals, "{names:?}");

    let second = tools_list_in_home(&env);
    assert!(second.contains("read_file"), "{second}");
    assert!(!second.contains("compiling"), "{second}");
    assert!(!second.contains("cache is not used"), "{second}");
}

/// How often `needle` occurs in `haystack`.
fn occurrences(haystack: &[u8], needle: &[u8]) -> usize {
    memchr::memmem::find_iter(haystack, needle).count()
}

/// 256 bytes of `blob` found nowhere else in `blobs` (which holds `blob`): components share
/// code (the WASI adapter, wit-bindgen's glue) and so do their compiled artifacts.
fn unique_sample<'a>(blob: &'a [u8], blobs: &[&[u8]]) -> &'a [u8] {
    const LEN: usize = 256;
    (1..64)
        .map(|k| blob.len() * k / 64)
        .map(|offset| &blob[offset..(offset + LEN).min(blob.len())])
        .find(|sample| {
            sample.len() == LEN && blobs.iter().map(|b| occurrences(b, sample)).sum::<usize>() == 1
        })
        .expect("no sample of a built-in is unique to it")
}

/// Each built-in component and its compiled artifact are in the binary once. A `const` table
/// would put a copy in every codegen unit that names it: twice in a release binary, up to eight
/// times in a debug one, tens of MB in all, on disk and mapped for nothing.
#[test]
fn the_binary_embeds_each_built_in_once() {
    let binary = std::fs::read(env!("CARGO_BIN_EXE_reasonix")).unwrap();
    let mut blobs: Vec<(String, &[u8])> = Vec::new();
    for builtin in crate::BUILTINS {
        blobs.push((
            format!("the component of `{}`", builtin.name),
            builtin.bytes,
        ));
        if let Some(precompiled) = builtin.precompiled {
            let artifact = precompiled.artifact.bytes();
            blobs.push((
                format!("the compiled artifact of `{}`", builtin.name),
                artifact,
            ));
        }
    }
    assert!(
        blobs.len() > crate::BUILTINS.len(),
        "a native build embeds compiled artifacts"
    );
    let all: Vec<&[u8]> = blobs.iter().map(|(_, blob)| *blob).collect();
    for (what, blob) in &blobs {
        let sample = unique_sample(blob, &all);
        assert_eq!(occurrences(&binary, sample), 1, "{what}");
    }
}
