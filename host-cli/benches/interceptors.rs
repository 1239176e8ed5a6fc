//! Per-call cost of an interception: nobody listening (the payload is never built), and each
//! built-in interceptor component at its point through the agent's dispatcher — JSON encoding of
//! the payload, a fresh instance with the plugin's limits, the component's work, strict decoding
//! of a replacement. The sidecar tier's figure comes from
//! `cargo test -p reasonix-sidecar --release --test intercept_cost -- --ignored --nocapture`,
//! a hook process's from `hooks::hook_process_cost` (see docs/PERFORMANCE.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use reasonix_runtime::builtins::BUILTINS;

use common::{median, sample, us};
use reasonix_agent::agent_loop::Interceptors;
use reasonix_agent::agent_loop::intercept::{Outcome, points};
use reasonix_agent::agent_loop::payloads::{SystemPromptBuild, ToolAfter};
use reasonix_core::interceptor::Interceptor;
use reasonix_core::settings::Paths;
use reasonix_host::Registry;
use std::sync::Arc;
use std::time::Duration;

/// Dispatches per sample; the median sample is reported per dispatch.
const BATCH: u32 = 50;
const RUNS: usize = 30;

fn per_call(samples: &[Duration]) -> Duration {
    median(samples) / BATCH
}

fn tool_after(result: String) -> ToolAfter {
    ToolAfter {
        name: "read_file".into(),
        arguments: r#"{"path":"notes.txt"}"#.into(),
        result,
        is_error: false,
        call_id: "c1".into(),
        session_id: None,
    }
}

fn time_tool_after(interceptors: &Interceptors, result: &str) -> Duration {
    let original = tool_after(result.to_string());
    per_call(&sample(RUNS, || {
        for _ in 0..BATCH {
            let outcome = interceptors.dispatch(
                points::TOOL_AFTER,
                || original.clone(),
                |r: &ToolAfter| r.validate(&original),
            );
            assert!(!matches!(outcome, Outcome::Blocked(_)), "{outcome:?}");
        }
    }))
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    let workspace = std::fs::canonicalize(dir.path().join("ws")).unwrap();
    let paths = Paths {
        home: dir.path().join("home"),
        cache: dir.path().join("cache"),
        state: dir.path().join("home"),
    };
    let registry = Registry::load(BUILTINS, &paths, &Default::default(), None).unwrap();
    let bound = registry.interceptors_for(&workspace);
    let by_name = |name: &str| -> Arc<dyn Interceptor> {
        bound
            .iter()
            .find(|i| i.source() == name)
            .unwrap_or_else(|| panic!("no built-in interceptor `{name}`"))
            .clone()
    };
    let only =
        |names: &[&str]| Interceptors::new(names.iter().map(|n| by_name(n)).collect()).unwrap();

    // 4 KiB of ordinary text, one with a key in it, and 256 KiB (cut by `bound`).
    let small: String = "a line of ordinary tool output, nothing secret in it\n".repeat(78);
    let keyed = format!(
        "{}api_key = sk-proj-abcdefghij0123456789KLMNOP\n",
        &small[..4000]
    );
    let giant: String = "y".repeat(63).repeat(4096);

    println!("| interception | µs per call |");
    println!("|---|---|");
    let none = Interceptors::new(Vec::new()).unwrap();
    let nobody = per_call(&sample(RUNS, || {
        for _ in 0..BATCH {
            let outcome = none.dispatch(
                points::TOOL_AFTER,
                || -> ToolAfter { unreachable!("the payload was built") },
                |_| Ok(()),
            );
            assert_eq!(outcome, Outcome::Unchanged);
        }
    }));
    println!(
        "| nobody listening (`tool.after`) | {:.3} |",
        nobody.as_secs_f64() * 1e6
    );
    for (label, names, result) in [
        (
            "`redact` at `tool.after`, 4 KiB, nothing to redact",
            &["redact"][..],
            &small,
        ),
        (
            "`redact` at `tool.after`, 4 KiB with a key (replaced)",
            &["redact"][..],
            &keyed,
        ),
        (
            "`bound` at `tool.after`, 4 KiB (under the bound)",
            &["bound"][..],
            &small,
        ),
        (
            "`bound` at `tool.after`, 256 KiB (cut to 32 KiB)",
            &["bound"][..],
            &giant,
        ),
        (
            "`redact` + `bound` at `tool.after`, 4 KiB",
            &["redact", "bound"][..],
            &small,
        ),
    ] {
        let interceptors = only(names);
        println!(
            "| {label} | {} |",
            us(time_tool_after(&interceptors, result))
        );
    }

    // `system_prompt.build`, once per session: the environment block and the instruction files.
    std::fs::write(
        workspace.join("AGENTS.md"),
        "# Agents\n\nRun `cargo test`.\n",
    )
    .unwrap();
    let build = SystemPromptBuild {
        prompt: "You are Reasonix.".into(),
        workspace_root: workspace.display().to_string(),
        os: "linux".into(),
        arch: "x86_64".into(),
        shell: Some("bash".into()),
    };
    for (label, names) in [
        (
            "`environment` at `system_prompt.build`",
            &["environment"][..],
        ),
        (
            "`instructions` at `system_prompt.build` (one file)",
            &["instructions"][..],
        ),
    ] {
        let interceptors = only(names);
        let t = per_call(&sample(RUNS, || {
            for _ in 0..BATCH {
                let outcome = interceptors.dispatch(
                    points::SYSTEM_PROMPT_BUILD,
                    || build.clone(),
                    |r: &SystemPromptBuild| r.validate(&build),
                );
                assert!(matches!(outcome, Outcome::Replaced(_)), "{outcome:?}");
            }
        }));
        println!("| {label} | {} |", us(t));
    }
}
