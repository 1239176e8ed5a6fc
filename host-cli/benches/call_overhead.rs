//! Per-call overhead of a wasm tool (fresh instance per call, capability-scoped context,
//! deadline and memory limit) against the same crate's logic called natively.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use reasonix_runtime::builtins::BUILTINS;

use common::{median, sample, us};
use reasonix_core::settings::Paths;
use reasonix_core::types::ToolContext;
use reasonix_host::Registry;
use std::time::Duration;

/// Calls per sample; the median sample is reported per call.
const BATCH: usize = 50;

fn per_call(samples: &[Duration], batch: usize) -> Duration {
    median(samples) / u32::try_from(batch).unwrap()
}

/// `REASONIX_BENCH_ONLY=<text>` runs only the rows whose label contains the text (for profiling
/// one row under `perf`).
fn selected(label: &str) -> bool {
    std::env::var("REASONIX_BENCH_ONLY").map_or(true, |only| label.contains(&only))
}

fn main() {
    // On tmpfs when there is one: the native editor syncs its temp file before renaming it
    // (the component writes in place), and a disk's sync time would swamp what is compared.
    let shm = std::path::Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    // The Reasonix home (whose `.env` is always forbidden) beside the workspace, as in real use.
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    let workspace = std::fs::canonicalize(dir.path().join("ws")).unwrap();
    let small: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    std::fs::write(workspace.join("small.txt"), &small).unwrap();
    let long_line = "x".repeat(1023) + "\n";
    std::fs::write(workspace.join("wide.txt"), long_line.repeat(1024)).unwrap();
    let short_line = "y".repeat(63) + "\n";
    std::fs::write(workspace.join("tall.txt"), short_line.repeat(16 * 1024)).unwrap();

    let paths = Paths {
        home: dir.path().join("home"),
        // A kept cache lets `perf` see only the calls, not the one-time compile.
        cache: std::env::var_os("REASONIX_BENCH_CACHE")
            .map_or_else(|| dir.path().join("cache"), std::path::PathBuf::from),
        state: dir.path().join("home"),
    };
    let registry = Registry::load(BUILTINS, &paths, &Default::default(), None).unwrap();
    let kernel_ctx = ToolContext {
        call_id: "bench".into(),
        workspace: workspace.clone(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    };
    let sdk_ctx = reasonix_sdk::CallContext {
        call_id: "bench".into(),
        workspace: workspace.to_string_lossy().into_owned(),
    };

    println!("| call | wasm µs/call | native µs/call | ratio |");
    println!("|---|---|---|---|");
    let read_tools = reasonix_fs_core::read_tools();
    for (label, tool, args, batch, runs) in [
        (
            "read_file, 20-line file",
            "read_file",
            r#"{"path":"small.txt"}"#,
            BATCH,
            30,
        ),
        (
            "read_file, 1 MiB of 64-byte lines (first 2000 shown)",
            "read_file",
            r#"{"path":"tall.txt"}"#,
            5,
            15,
        ),
        (
            "read_file, 1 MiB of 1 KiB lines (all 1024 shown)",
            "read_file",
            r#"{"path":"wide.txt"}"#,
            5,
            15,
        ),
        ("ls, 2 entries", "ls", r#"{}"#, BATCH, 30),
    ] {
        if !selected(label) {
            continue;
        }
        let wasm_tool = registry.tool(tool).unwrap();
        let expected = read_tools.invoke(tool, args, &sdk_ctx).unwrap();
        assert_eq!(wasm_tool.invoke(args, &kernel_ctx).unwrap(), expected);
        let wasm = sample(runs, || {
            for _ in 0..batch {
                wasm_tool.invoke(args, &kernel_ctx).unwrap();
            }
        });
        let native = sample(runs, || {
            for _ in 0..batch {
                read_tools.invoke(tool, args, &sdk_ctx).unwrap();
            }
        });
        let (w, n) = (per_call(&wasm, batch), per_call(&native, batch));
        println!(
            "| {label} | {} | {} | {:.2}× |",
            us(w),
            us(n),
            w.as_secs_f64() / n.as_secs_f64()
        );
    }

    // edit_file on a 1 MiB file: a unique marker line in the middle is flipped A→B→A, so every
    // call really rewrites the file and each batch (even) leaves it as it started.
    let mut text = short_line.repeat(8 * 1024);
    text.push_str("MARKER_A\n");
    text.push_str(&short_line.repeat(8 * 1024));
    std::fs::write(workspace.join("edit.txt"), &text).unwrap();
    let flip = |i: usize| {
        let (from, to) = if i.is_multiple_of(2) {
            ("A", "B")
        } else {
            ("B", "A")
        };
        format!(r#"{{"path":"edit.txt","old_string":"MARKER_{from}","new_string":"MARKER_{to}"}}"#)
    };
    if !selected("edit_file") {
        return;
    }
    let edit = registry.tool("edit_file").unwrap();
    let write_tools = reasonix_fs_core::write_tools();
    const EDITS: usize = 4;
    let wasm = sample(15, || {
        for i in 0..EDITS {
            edit.invoke(&flip(i), &kernel_ctx).unwrap();
        }
    });
    let native = sample(15, || {
        for i in 0..EDITS {
            write_tools.invoke("edit_file", &flip(i), &sdk_ctx).unwrap();
        }
    });
    assert_eq!(
        std::fs::read_to_string(workspace.join("edit.txt")).unwrap(),
        text
    );
    let (w, n) = (per_call(&wasm, EDITS), per_call(&native, EDITS));
    println!(
        "| edit_file, 1 MiB file, one unique match | {} | {} | {:.2}× |",
        us(w),
        us(n),
        w.as_secs_f64() / n.as_secs_f64()
    );
}
