//! A plugin written in another language against the exported WIT installs and runs: the Python
//! tool `shout` (tests/polyglot/python-tool/app.py) is built with componentize-py against the
//! `reasonix:plugin/tool-plugin` world, installed under `<home>/plugins/`, listed, and called.
//!
//! componentize-py is installed by `.ci/run`, which also sets `REASONIX_REQUIRE_POLYGLOT=1` so a
//! missing tool fails CI instead of skipping. Locally, without it, the test prints why it skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use support::{Env, repo_root, stderr, stdout};

const COMPONENTIZE_PY: &str = "componentize-py";

/// The componentize-py executable (`$COMPONENTIZE_PY` or on `PATH`), or why there is none.
fn componentize_py() -> Result<PathBuf, String> {
    let program = std::env::var_os("COMPONENTIZE_PY")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(COMPONENTIZE_PY));
    match Command::new(&program).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(program),
        Ok(out) => Err(format!(
            "`{} --version` failed: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        )),
        Err(e) => Err(format!(
            "{} is not installed ({e}); run `pip install componentize-py` (see .ci/run)",
            program.display()
        )),
    }
}

/// None (with the reason printed) when the toolchain is missing and CI did not require it.
fn toolchain() -> Option<PathBuf> {
    match componentize_py() {
        Ok(program) => Some(program),
        Err(why) if std::env::var_os("REASONIX_REQUIRE_POLYGLOT").is_some() => {
            panic!("REASONIX_REQUIRE_POLYGLOT is set but {why}")
        }
        Err(why) => {
            eprintln!("skipping the polyglot test: {why}");
            None
        }
    }
}

/// The contract as a plugin author gets it: `reasonix plugin wit --out DIR`.
fn wit_dir(env: &Env, scratch: &Path) -> PathBuf {
    let out_dir = scratch.join("wit");
    let out = env.reasonix(&["plugin", "wit", "--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "plugin wit failed: {}", stderr(&out));
    out_dir
}

/// Build the Python plugin once per test process; return the component bytes. componentize-py
/// output is not reproducible (the snapshot differs run to run), so the component is kept under
/// `target/polyglot/`, keyed by the source, the WIT and the tool version: a rerun then reuses it,
/// and its compiled artifact, instead of paying both again.
fn shout_component(program: &Path) -> &'static [u8] {
    static BUILT: OnceLock<Vec<u8>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let env = Env::new();
        let scratch = env.root.path().join("build");
        std::fs::create_dir_all(&scratch).unwrap();
        // Build from a copy so componentize-py's `__pycache__` never lands in the repository.
        let source = repo_root().join("tests/polyglot/python-tool/app.py");
        std::fs::copy(&source, scratch.join("app.py")).unwrap();
        let wit = wit_dir(&env, &scratch);

        let version = Command::new(program).arg("--version").output().unwrap();
        let mut key = version.stdout;
        key.extend(std::fs::read(&source).unwrap());
        let mut wit_files: Vec<PathBuf> = std::fs::read_dir(&wit)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        wit_files.sort();
        for file in wit_files {
            key.extend(file.file_name().unwrap().as_encoded_bytes());
            key.extend(std::fs::read(&file).unwrap());
        }
        let key = reasonix_host::cache::sha256_hex(&key);
        let kept_dir = support::shared_artifact_cache()
            .parent()
            .unwrap()
            .join("polyglot");
        let kept = kept_dir.join(format!("shout-{}.wasm", &key[..16]));
        if let Ok(bytes) = std::fs::read(&kept) {
            return bytes;
        }

        let output = scratch.join("shout.wasm");
        let started = std::time::Instant::now();
        let out = Command::new(program)
            .current_dir(&scratch)
            .arg("-d")
            .arg(&wit)
            .args([
                "-w",
                "reasonix:plugin/tool-plugin@0.2.0",
                "componentize",
                "app",
                "-o",
            ])
            .arg(&output)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "componentize-py failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&output).unwrap();
        eprintln!(
            "built shout.wasm with componentize-py in {:.1} s, {} bytes",
            started.elapsed().as_secs_f64(),
            bytes.len()
        );
        std::fs::create_dir_all(&kept_dir).unwrap();
        let tmp = kept_dir.join(format!(".shout-{}.{}.tmp", &key[..16], std::process::id()));
        std::fs::write(&tmp, &bytes).unwrap();
        std::fs::rename(&tmp, &kept).unwrap();
        bytes
    })
}

/// Install the way a user does: `reasonix plugin install <file> --yes` (grants what it asks for,
/// which is nothing).
fn install(env: &Env, bytes: &[u8]) {
    let source = env.root.path().join("shout.wasm");
    std::fs::write(&source, bytes).unwrap();
    let out = env.reasonix(&["plugin", "install", source.to_str().unwrap(), "--yes"]);
    assert!(
        out.status.success(),
        "plugin install failed:\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        env.home().join("packages.json").is_file(),
        "plugin install wrote no index"
    );
}

#[test]
fn python_plugin_installs_lists_and_runs() {
    let Some(program) = toolchain() else { return };
    let bytes = shout_component(&program);
    let env = Env::new();
    install(&env, bytes);

    let out = env.call("shout", r#"{"text":"hi"}"#);
    assert!(out.status.success(), "shout failed: {}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "HI");
    assert!(
        !stderr(&out).contains("warning:"),
        "unexpected warnings: {}",
        stderr(&out)
    );

    let shout = support::listed_plugin(&env, "shout");
    assert_eq!(shout["version"], "0.1.0", "{shout}");
    assert_eq!(shout["source"], "installed", "{shout}");
    assert_eq!(shout["kinds"], serde_json::json!(["tool"]), "{shout}");
    assert_eq!(shout["tools"], serde_json::json!(["shout"]), "{shout}");
    assert_eq!(shout["sha256"], reasonix_host::cache::sha256_hex(bytes));
    let nothing =
        serde_json::json!({"workspace": "none", "network": [], "env": [], "process": false});
    assert_eq!(shout["capabilities"]["requested"], nothing, "{shout}");
    assert_eq!(shout["capabilities"]["granted"], nothing, "{shout}");

    let out = env.reasonix(&["tools", "list", "--json"]);
    assert!(out.status.success(), "tools list failed: {}", stderr(&out));
    let tools: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tool = tools
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "shout"))
        .unwrap_or_else(|| panic!("shout missing from tools list: {tools}"));
    assert_eq!(tool["plugin"], "shout", "{tool}");
    assert_eq!(tool["read_only"], true, "{tool}");
    assert_eq!(
        tool["guidance"], "Use `shout` when the user asks for text in capitals.",
        "{tool}"
    );
    assert_eq!(
        tool["parameters"]["required"],
        serde_json::json!(["text"]),
        "{tool}"
    );
}

#[test]
fn python_plugin_errors_reach_the_caller_as_typed_errors() {
    let Some(program) = toolchain() else { return };
    let bytes = shout_component(&program);
    let env = Env::new();
    install(&env, bytes);

    // A wrong field: the plugin raises `Err(Error_InvalidInput)`, the CLI exits 1 naming it.
    let out = env.call("shout", r#"{"txt":"hi"}"#);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("invalid input") && err.contains("`text` is required"),
        "{err}"
    );
    assert!(stdout(&out).is_empty(), "stdout: {}", stdout(&out));
}
