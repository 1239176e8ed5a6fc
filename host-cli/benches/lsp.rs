//! Language servers behind the `lsp_*` tools (docs/PERFORMANCE.md, "Code intelligence"):
//! rust-analyzer on the fixture crate of tests/lsp — a cold start (sandbox, initialise, load
//! the workspace) to the first `lsp_definition` answer, then warm calls of each kind, and
//! `lsp_diagnostics` after an edit that introduces a type error.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use common::{copy_dir, median, ms};
use reasonix_config::LspSettings;
use reasonix_core::sandbox::SandboxConfig;
use reasonix_core::tool::Tool;
use reasonix_core::types::ToolContext;
use reasonix_runtime::lsp::Lsp;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const COLD_RUNS: usize = 5;
const WARM_RUNS: usize = 30;
const EDIT_RUNS: usize = 10;

fn context(workspace: &Path) -> ToolContext {
    ToolContext {
        call_id: "bench".into(),
        workspace: workspace.to_path_buf(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    }
}

fn tool(tools: &[Arc<dyn Tool>], name: &str) -> Arc<dyn Tool> {
    tools
        .iter()
        .find(|t| t.spec().name == name)
        .unwrap()
        .clone()
}

fn timed(tool: &dyn Tool, args: &str, cx: &ToolContext, want: &str) -> Duration {
    let started = Instant::now();
    let out = tool.invoke(args, cx).unwrap();
    let took = started.elapsed();
    assert!(out.contains(want), "{want} not in:\n{out}");
    took
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = std::fs::canonicalize(dir.path()).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/lsp/rust-crate");
    copy_dir(&root, &workspace);
    let cx = context(&workspace);
    let definition = r#"{"path":"src/lib.rs","line":4,"symbol":"area"}"#;
    let references = r#"{"path":"src/shapes.rs","line":2,"symbol":"Square"}"#;
    let hover = r#"{"path":"src/lib.rs","line":7,"symbol":"Square"}"#;
    let symbols = r#"{"path":"src/shapes.rs"}"#;

    let mut cold = Vec::new();
    for _ in 0..COLD_RUNS {
        let lsp = Lsp::new(&LspSettings::default(), SandboxConfig::default());
        let tools = reasonix_runtime::lsp::tools(&lsp);
        cold.push(timed(
            &*tool(&tools, "lsp_definition"),
            definition,
            &cx,
            "src/shapes.rs:7:12",
        ));
    }

    let lsp = Lsp::new(&LspSettings::default(), SandboxConfig::default());
    let tools = reasonix_runtime::lsp::tools(&lsp);
    timed(
        &*tool(&tools, "lsp_definition"),
        definition,
        &cx,
        "src/shapes.rs:7:12",
    );
    let warm = |name: &str, args: &str, want: &str| {
        let t = tool(&tools, name);
        let samples: Vec<Duration> = (0..WARM_RUNS)
            .map(|_| timed(&*t, args, &cx, want))
            .collect();
        median(&samples)
    };
    let w_definition = warm("lsp_definition", definition, "src/shapes.rs:7:12");
    let w_references = warm("lsp_references", references, "src/lib.rs:7:28");
    let w_hover = warm("lsp_hover", hover, "Square");
    let w_symbols = warm("lsp_symbols", symbols, "area");

    let lib = workspace.join("src/lib.rs");
    let clean = std::fs::read_to_string(&lib).unwrap();
    let broken = clean.replace(
        "    2 * s.area()",
        "    let n: u32 = \"two\";\n    n * s.area()",
    );
    let diagnostics = tool(&tools, "lsp_diagnostics");
    let mut after_edit = Vec::new();
    for i in 0..EDIT_RUNS {
        let (text, want) = if i % 2 == 0 {
            (&broken, "E0308")
        } else {
            (&clean, "No problems")
        };
        std::fs::write(&lib, text).unwrap();
        after_edit.push(timed(&*diagnostics, r#"{"path":"src/lib.rs"}"#, &cx, want));
    }
    drop(tools);
    drop(lsp);

    println!(
        "rust-analyzer on tests/lsp/rust-crate ({COLD_RUNS} cold starts, {WARM_RUNS} warm calls each):"
    );
    println!(
        "  cold start → first lsp_definition answer  median {}  (min {}, max {})",
        ms(median(&cold)),
        ms(*cold.iter().min().unwrap()),
        ms(*cold.iter().max().unwrap())
    );
    println!("  warm lsp_definition   median {}", ms(w_definition));
    println!("  warm lsp_references   median {}", ms(w_references));
    println!("  warm lsp_hover        median {}", ms(w_hover));
    println!("  warm lsp_symbols      median {}", ms(w_symbols));
    println!(
        "  lsp_diagnostics after an edit (type error in / out, {EDIT_RUNS} runs)  median {}",
        ms(median(&after_edit))
    );
}
