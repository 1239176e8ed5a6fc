//! A JavaScript plugin against the exported WIT installs and runs: `js-words`
//! (tests/polyglot/js-tool/app.js) is built with `jco componentize` (componentize-js,
//! StarlingMonkey) against its world (wit/world.wit: the Reasonix tool world plus the WASI
//! filesystem), installed with `reasonix plugin install`, and called with `reasonix tools call`.
//! Its file tool reads the workspace only with a workspace grant, and never outside it. A
//! component built with the component-model async ABI (jco's QuickJS backend) is refused at
//! install and at load, with a message that says how to rebuild it.
//!
//! jco is installed by `.ci/run` (pinned, into `target/js-toolchain/`), which also sets
//! `REASONIX_REQUIRE_POLYGLOT=1` so a missing toolchain fails CI instead of skipping. Locally,
//! without it, the tests print why they skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use support::{Env, repo_root, stderr, stdout};

/// The jco executable: `$JCO`, else `jco` on `PATH`, else the one `.ci/run` installs under the
/// target directory; or why there is none.
fn jco() -> Result<PathBuf, String> {
    let installed = support::shared_artifact_cache()
        .parent()
        .unwrap()
        .join("js-toolchain/node_modules/.bin/jco");
    let candidates: Vec<PathBuf> = match std::env::var_os("JCO") {
        Some(program) => vec![PathBuf::from(program)],
        None => vec![PathBuf::from("jco"), installed],
    };
    let mut why = Vec::new();
    for program in candidates {
        match Command::new(&program).arg("--version").output() {
            Ok(out) if out.status.success() => return Ok(program),
            Ok(out) => why.push(format!(
                "`{} --version` failed: {}",
                program.display(),
                String::from_utf8_lossy(&out.stderr)
            )),
            Err(e) => why.push(format!("{}: {e}", program.display())),
        }
    }
    Err(format!(
        "jco is not installed ({}); run `npm install @bytecodealliance/jco @bytecodealliance/componentize-js` (see .ci/run)",
        why.join("; ")
    ))
}

/// None (with the reason printed) when the toolchain is missing and CI did not require it.
fn toolchain() -> Option<PathBuf> {
    match jco() {
        Ok(program) => Some(program),
        Err(why) if std::env::var_os("REASONIX_REQUIRE_POLYGLOT").is_some() => {
            panic!("REASONIX_REQUIRE_POLYGLOT is set but {why}")
        }
        Err(why) => {
            eprintln!("skipping the JavaScript polyglot test: {why}");
            None
        }
    }
}

/// Build `tests/polyglot/js-tool` with `jco componentize <extra>` once per key; return the
/// component bytes. The build (a 14 MB component, wizer-initialised) takes 10–20 s, so the
/// component is kept under `target/polyglot/`, keyed by the source, the WIT, the jco version and
/// the flags: a rerun reuses it, and its compiled artifact.
fn build(program: &Path, label: &str, extra: &[&str]) -> Vec<u8> {
    let env = Env::new();
    let scratch = env.root.path().join("build");
    let source_dir = repo_root().join("tests/polyglot/js-tool");
    std::fs::create_dir_all(scratch.join("wit/deps")).unwrap();
    std::fs::copy(source_dir.join("app.js"), scratch.join("app.js")).unwrap();
    std::fs::copy(
        source_dir.join("wit/world.wit"),
        scratch.join("wit/world.wit"),
    )
    .unwrap();
    for entry in std::fs::read_dir(source_dir.join("wit/deps")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            scratch.join("wit/deps").join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    // The Reasonix contract as a plugin author gets it: `reasonix plugin wit --out DIR`.
    let reasonix_wit = scratch.join("wit/deps/reasonix-plugin");
    let out = env.reasonix(&["plugin", "wit", "--out", reasonix_wit.to_str().unwrap()]);
    assert!(out.status.success(), "plugin wit failed: {}", stderr(&out));

    let version = Command::new(program).arg("--version").output().unwrap();
    let mut key = version.stdout;
    key.extend(extra.join(" ").as_bytes());
    let mut files = vec![scratch.join("app.js"), scratch.join("wit/world.wit")];
    for dir in ["wit/deps", "wit/deps/reasonix-plugin"] {
        let mut in_dir: Vec<PathBuf> = std::fs::read_dir(scratch.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        in_dir.sort();
        files.extend(in_dir);
    }
    for file in files {
        key.extend(file.file_name().unwrap().as_encoded_bytes());
        key.extend(std::fs::read(&file).unwrap());
    }
    let key = reasonix_host::cache::sha256_hex(&key);
    let kept_dir = support::shared_artifact_cache()
        .parent()
        .unwrap()
        .join("polyglot");
    let kept = kept_dir.join(format!("{label}-{}.wasm", &key[..16]));
    if let Ok(bytes) = std::fs::read(&kept) {
        return bytes;
    }

    let output = scratch.join(format!("{label}.wasm"));
    let started = std::time::Instant::now();
    let out = Command::new(program)
        .current_dir(&scratch)
        .args([
            "componentize",
            "app.js",
            "--wit",
            "wit",
            "--world-name",
            "js-tool",
        ])
        .args(extra)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "jco componentize failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&output).unwrap();
    eprintln!(
        "built {label}.wasm with jco componentize in {:.1} s, {} bytes",
        started.elapsed().as_secs_f64(),
        bytes.len()
    );
    std::fs::create_dir_all(&kept_dir).unwrap();
    let tmp = kept_dir.join(format!(
        ".{label}-{}.{}.tmp",
        &key[..16],
        std::process::id()
    ));
    std::fs::write(&tmp, &bytes).unwrap();
    std::fs::rename(&tmp, &kept).unwrap();
    bytes
}

/// The plugin as the recipe in docs/PLUGINS.md builds it: StarlingMonkey, every optional
/// engine feature off (it needs no clocks, HTTP, randomness or stdio).
fn js_words(program: &Path) -> &'static [u8] {
    static BUILT: OnceLock<Vec<u8>> = OnceLock::new();
    BUILT.get_or_init(|| {
        build(
            program,
            "js-words",
            &[
                "--disable",
                "clocks",
                "http",
                "random",
                "stdio",
                "fetch-event",
            ],
        )
    })
}

/// `reasonix plugin install <file> --grant <grant>`.
fn install(env: &Env, bytes: &[u8], grant: &str) {
    let source = env.root.path().join("js-words.wasm");
    std::fs::write(&source, bytes).unwrap();
    let out = env.reasonix(&[
        "plugin",
        "install",
        source.to_str().unwrap(),
        "--grant",
        grant,
    ]);
    assert!(
        out.status.success(),
        "plugin install failed:\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn js_plugin_installs_lists_and_runs() {
    let Some(program) = toolchain() else { return };
    let bytes = js_words(&program);
    let env = Env::new();
    install(&env, bytes, "workspace=read");

    let out = env.call("word_count", r#"{"text":"one  two\nthree"}"#);
    assert!(out.status.success(), "word_count failed: {}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "3");
    assert!(
        !stderr(&out).contains("warning:"),
        "unexpected warnings: {}",
        stderr(&out)
    );

    let plugin = support::listed_plugin(&env, "js-words");
    assert_eq!(plugin["version"], "0.1.0", "{plugin}");
    assert_eq!(plugin["source"], "installed", "{plugin}");
    assert_eq!(
        plugin["tools"],
        serde_json::json!(["word_count", "head_lines"]),
        "{plugin}"
    );
    assert_eq!(plugin["sha256"], reasonix_host::cache::sha256_hex(bytes));
    let read = serde_json::json!({"workspace": "read", "network": [], "env": [], "process": false});
    assert_eq!(plugin["capabilities"]["requested"], read, "{plugin}");
    assert_eq!(plugin["capabilities"]["granted"], read, "{plugin}");

    // A bad call is the plugin's typed error (a thrown `error` variant), exit 1.
    let out = env.call("word_count", r#"{"txt":"hi"}"#);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("invalid input") && err.contains("unknown field `txt`"),
        "{err}"
    );
    assert!(stdout(&out).is_empty(), "stdout: {}", stdout(&out));
}

#[test]
fn js_plugin_reads_the_workspace_only_with_the_grant_and_never_outside() {
    let Some(program) = toolchain() else { return };
    let bytes = js_words(&program);
    let granted = Env::new();
    install(&granted, bytes, "workspace=read");
    std::fs::write(granted.workspace().join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    let secret = granted.root.path().join("secret.txt");
    std::fs::write(&secret, "TOP SECRET\n").unwrap();

    let out = granted.call("head_lines", r#"{"path":"notes.txt","lines":2}"#);
    assert!(out.status.success(), "head_lines failed: {}", stderr(&out));
    assert_eq!(stdout(&out), "one\ntwo\n");

    // With the grant, still nothing outside the workspace: WASI refuses the path.
    for path in ["../secret.txt", secret.to_str().unwrap()] {
        let args = serde_json::json!({ "path": path }).to_string();
        let out = granted.call("head_lines", &args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{path}: read outside the workspace"
        );
        assert!(!stdout(&out).contains("SECRET"), "{path}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("cannot open"),
            "{path}: {}",
            stderr(&out)
        );
    }

    // The same component installed without the workspace grant gets no preopen at all.
    let denied = Env::new();
    install(&denied, bytes, "workspace=none");
    std::fs::write(denied.workspace().join("notes.txt"), "one\ntwo\n").unwrap();
    let out = denied.call("head_lines", r#"{"path":"notes.txt"}"#);
    assert_eq!(
        out.status.code(),
        Some(1),
        "read without a grant: {}",
        stdout(&out)
    );
    assert!(stdout(&out).is_empty(), "stdout: {}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("denied") && err.contains("no access to the workspace"),
        "{err}"
    );
    // Its other tool works as before.
    let out = denied.call("word_count", r#"{"text":"a b"}"#);
    assert!(out.status.success(), "word_count failed: {}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "2");
}

#[test]
fn js_component_with_the_async_abi_is_refused_with_how_to_rebuild() {
    let Some(program) = toolchain() else { return };
    // jco's QuickJS backend lifts exports with the component-model async ABI.
    static BUILT: OnceLock<Vec<u8>> = OnceLock::new();
    let bytes = BUILT.get_or_init(|| build(&program, "js-words-qjs", &["--backend", "qjs"]));
    let env = Env::new();

    let source = env.root.path().join("js-words-qjs.wasm");
    std::fs::write(&source, bytes).unwrap();
    let out = env.reasonix(&["plugin", "install", source.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1), "stdout: {}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("built with the component-model async ABI")
            && err.contains("rebuild it without async")
            && err.contains("--backend qjs"),
        "{err}"
    );
    assert!(
        !env.home().join("packages.json").is_file()
            || !std::fs::read_to_string(env.home().join("packages.json"))
                .unwrap()
                .contains("js-words"),
        "a refused install was recorded"
    );

    // Dropped into the plugins directory by hand, the registry refuses it the same way and
    // the built-in tools still load.
    env.install_raw("js-words-qjs.wasm", bytes);
    let out = env.reasonix(&["tools", "list"]);
    assert!(out.status.success(), "tools list failed: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("js-words-qjs.wasm") && err.contains("component-model async ABI"),
        "{err}"
    );
    assert!(stdout(&out).contains("read_file"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("word_count"), "{}", stdout(&out));
}
