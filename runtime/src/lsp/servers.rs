//! Which language server serves which files: the built-in table (the first server of a
//! language found on `PATH`), replaced language by language by `[lsp.servers.<language>]` of
//! the user's own config, and how a chosen server's program is found.
//!
//! A program is looked up on Reasonix's own `PATH` and refused when it lies inside the
//! workspace: a repository could otherwise plant `rust-analyzer` in a `PATH` entry it holds
//! (`node_modules/.bin`) and have it run on the first `lsp_*` call.

use reasonix_config::LspSettings;
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A language and how to start its server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    pub language: String,
    /// Commands tried in order (program, arguments); the first found on `PATH` runs.
    pub candidates: Vec<(String, Vec<String>)>,
    pub extensions: Vec<String>,
    pub root_markers: Vec<String>,
    pub initialization_options: Value,
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

fn spec(
    language: &str,
    candidates: &[(&str, &[&str])],
    extensions: &[&str],
    root_markers: &[&str],
    initialization_options: Value,
) -> ServerSpec {
    ServerSpec {
        language: language.into(),
        candidates: candidates
            .iter()
            .map(|(program, args)| ((*program).to_string(), strings(args)))
            .collect(),
        extensions: strings(extensions),
        root_markers: strings(root_markers),
        initialization_options,
    }
}

/// The servers Reasonix knows without configuration.
fn builtin(settings: &LspSettings) -> Vec<ServerSpec> {
    // Build scripts and proc macros are the repository's code: rust-analyzer runs them only
    // when the user says so. `cargo check` on save is off for the same reason (it builds
    // them); the native diagnostics (type errors included) need neither.
    let build = settings.rust_build_scripts.unwrap_or(false);
    vec![
        spec(
            "rust",
            &[("rust-analyzer", &[])],
            &["rs"],
            &["Cargo.toml"],
            json!({
                "cargo": {"buildScripts": {"enable": build}},
                "procMacro": {"enable": build},
                "checkOnSave": false,
                "cachePriming": {"enable": false},
            }),
        ),
        spec(
            "python",
            &[
                ("basedpyright-langserver", &["--stdio"]),
                ("pyright-langserver", &["--stdio"]),
                ("pylsp", &[]),
            ],
            &["py", "pyi"],
            &[
                "pyproject.toml",
                "setup.py",
                "setup.cfg",
                "requirements.txt",
            ],
            Value::Null,
        ),
        spec(
            "typescript",
            &[("typescript-language-server", &["--stdio"])],
            &["ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"],
            &["tsconfig.json", "jsconfig.json", "package.json"],
            // A separate syntax-only server answers before the project is loaded, and its
            // "definition" of an imported name is the import line: one semantic server only.
            json!({"tsserver": {"useSyntaxServer": "never"}}),
        ),
        spec("go", &[("gopls", &[])], &["go"], &["go.mod"], Value::Null),
        spec(
            "c",
            &[("clangd", &[])],
            &["c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx"],
            &["compile_commands.json", "CMakeLists.txt", ".clangd"],
            Value::Null,
        ),
    ]
}

/// The table in force: the built-ins, each replaced by the user's `[lsp.servers.<language>]`
/// (keys it leaves out keep the built-in's), and the user's new languages.
pub fn table(settings: &LspSettings) -> Vec<ServerSpec> {
    let mut specs = builtin(settings);
    for (language, user) in &settings.servers {
        let index = match specs.iter().position(|s| &s.language == language) {
            Some(i) => i,
            None => {
                specs.push(spec(language, &[], &[], &[], Value::Null));
                specs.len() - 1
            }
        };
        if user.enabled == Some(false) {
            specs.remove(index);
            continue;
        }
        let entry = &mut specs[index];
        if let Some(command) = &user.command {
            entry.candidates = vec![(command.clone(), user.args.clone().unwrap_or_default())];
        } else if let Some(args) = &user.args {
            for candidate in &mut entry.candidates {
                candidate.1 = args.clone();
            }
        }
        if let Some(extensions) = &user.extensions {
            entry.extensions = extensions
                .iter()
                .map(|e| e.trim_start_matches('.').to_string())
                .collect();
        }
        if let Some(markers) = &user.root_markers {
            entry.root_markers = markers.clone();
        }
        if let Some(options) = &user.initialization_options {
            entry.initialization_options = serde_json::to_value(options).unwrap_or(Value::Null);
        }
    }
    specs.retain(|s| !s.candidates.is_empty() && !s.extensions.is_empty());
    specs
}

/// The LSP `languageId` of a file with extension `ext`.
pub fn language_id(language: &str, ext: &str) -> String {
    match (language, ext) {
        ("typescript", "tsx") => "typescriptreact".into(),
        ("typescript", "js" | "mjs" | "cjs") => "javascript".into(),
        ("typescript", "jsx") => "javascriptreact".into(),
        ("c", "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx") => "cpp".into(),
        _ => language.into(),
    }
}

/// A server's program as it will run.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Variables set for it besides the passed-through ones.
    pub env: Vec<(String, String)>,
    /// Directories of the (hidden) home it needs to read.
    pub extra_read: Vec<PathBuf>,
    /// `PATH` entries put first (the toolchain's `bin`).
    pub path_first: Vec<PathBuf>,
}

/// Find `name` (or an absolute path) on `path_var`; refused inside `workspace`.
pub(super) fn find(name: &str, path_var: &OsStr, workspace: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let found = if Path::new(name).is_absolute() {
        executable(Path::new(name)).then(|| PathBuf::from(name))
    } else if name.contains('/') {
        None
    } else {
        std::env::split_paths(path_var)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(name))
            .find(|candidate| executable(candidate))
    };
    let found = found.ok_or_else(|| format!("`{name}` is not on PATH"))?;
    let real = std::fs::canonicalize(&found).unwrap_or_else(|_| found.clone());
    let inside = |p: &Path| p.starts_with(workspace);
    if inside(&found) || inside(&real) {
        return Err(format!(
            "`{name}` was found inside the workspace ({}); a language server is never started from the repository itself. Install it elsewhere or name an absolute path in [lsp.servers]",
            found.display()
        ));
    }
    Ok(found)
}

/// How `spec` starts in `workspace`: its first candidate found on `PATH`.
pub fn resolve(
    spec: &ServerSpec,
    workspace: &Path,
    home: Option<&Path>,
) -> Result<Resolved, String> {
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    let mut misses = Vec::new();
    for (name, args) in &spec.candidates {
        match find(name, &path_var, workspace) {
            Ok(program) => {
                let mut resolved = Resolved {
                    program,
                    args: args.clone(),
                    env: Vec::new(),
                    extra_read: Vec::new(),
                    path_first: Vec::new(),
                };
                if spec.language == "rust" {
                    rust_toolchain(&mut resolved, workspace, home)?;
                }
                return Ok(resolved);
            }
            Err(e) => misses.push(e),
        }
    }
    Err(format!(
        "no {} language server was found: {}. Install one, or name it in [lsp.servers.{}] of your config (docs/LSP.md)",
        spec.language,
        misses.join("; "),
        spec.language
    ))
}

/// Whether any candidate of `spec` is on `PATH` (cheap: nothing runs).
pub fn available(spec: &ServerSpec, workspace: &Path) -> bool {
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    spec.candidates
        .iter()
        .any(|(name, _)| find(name, &path_var, workspace).is_ok())
}

/// rust-analyzer under rustup is a proxy that needs `~/.rustup`, which the sandbox hides:
/// run the toolchain's real binary instead, with that toolchain's `cargo` and `rustc` first
/// on `PATH` and readable, and the registry's sources (never `~/.cargo`'s credentials).
fn rust_toolchain(
    resolved: &mut Resolved,
    workspace: &Path,
    home: Option<&Path>,
) -> Result<(), String> {
    let real =
        std::fs::canonicalize(&resolved.program).unwrap_or_else(|_| resolved.program.clone());
    let is_proxy = real
        .file_name()
        .is_some_and(|n| n == "rustup" || n == "rustup-init");
    if is_proxy {
        // The proxy *is* rustup (already refused inside the workspace by `find`): ask that very
        // binary, never whatever `rustup` a `PATH` entry leads to.
        let which = rustup_which(&real, workspace)?;
        // The real directory: a toolchain named by version is often a link to another, and
        // only real paths are bound into the sandbox.
        let which = std::fs::canonicalize(&which).unwrap_or(which);
        if which.starts_with(workspace) {
            return Err(format!(
                "the workspace's rust-toolchain file chooses a toolchain inside the workspace ({}); rust-analyzer is never started from the repository itself",
                which.display()
            ));
        }
        resolved.program = which;
    }
    if let Some(bin) = resolved.program.parent().map(Path::to_path_buf) {
        let cargo = bin.join("cargo");
        if cargo.is_file() {
            resolved
                .env
                .push(("CARGO".into(), cargo.display().to_string()));
            resolved
                .env
                .push(("RUSTC".into(), bin.join("rustc").display().to_string()));
            if let Some(toolchain) = bin.parent() {
                resolved.extra_read.push(toolchain.to_path_buf());
            }
            resolved.path_first.push(bin);
        }
    }
    if let Some(home) = home {
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".cargo"));
        for sub in ["registry", "git"] {
            if cargo_home.join(sub).is_dir() {
                resolved.extra_read.push(cargo_home.join(sub));
            }
        }
        resolved
            .env
            .push(("CARGO_HOME".into(), cargo_home.display().to_string()));
    }
    // No network inside: cargo must not try to fetch (it would wait, then fail).
    resolved
        .env
        .push(("CARGO_NET_OFFLINE".into(), "true".into()));
    Ok(())
}

/// `rustup which rust-analyzer` in the workspace (its toolchain file counts), bounded in time
/// and never installing anything.
fn rustup_which(rustup: &Path, workspace: &Path) -> Result<PathBuf, String> {
    // The allow-listed environment (no keys), with rustup's own directories.
    let vars = reasonix_sidecar::spawn::PASSED_THROUGH
        .iter()
        .chain(&["RUSTUP_HOME", "CARGO_HOME", "RUSTUP_TOOLCHAIN"])
        .filter_map(|k| std::env::var_os(k).map(|v| (*k, v)));
    let mut child = Command::new(rustup)
        .args(["which", "rust-analyzer"])
        .current_dir(workspace)
        .env_clear()
        .envs(vars)
        .env("RUSTUP_AUTO_INSTALL", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("`rustup which rust-analyzer` could not run: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("`rustup which rust-analyzer` did not answer within 10 s".into());
            }
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("`rustup which rust-analyzer`: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || text.is_empty() {
        return Err(format!(
            "rust-analyzer is not installed for this workspace's toolchain (`rustup component add rust-analyzer`): {}",
            reasonix_core::terminal::line(String::from_utf8_lossy(&out.stderr).trim())
        ));
    }
    Ok(PathBuf::from(text))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use reasonix_config::LspServerSettings;

    #[test]
    fn the_users_entry_replaces_a_language_and_adds_new_ones() {
        let mut settings = LspSettings::default();
        settings.servers.insert(
            "python".into(),
            LspServerSettings {
                command: Some("/opt/pylsp".into()),
                ..Default::default()
            },
        );
        settings.servers.insert(
            "go".into(),
            LspServerSettings {
                enabled: Some(false),
                ..Default::default()
            },
        );
        settings.servers.insert(
            "zig".into(),
            LspServerSettings {
                command: Some("zls".into()),
                extensions: Some(vec![".zig".into()]),
                ..Default::default()
            },
        );
        let specs = table(&settings);
        let python = specs.iter().find(|s| s.language == "python").unwrap();
        assert_eq!(python.candidates, [("/opt/pylsp".to_string(), vec![])]);
        assert_eq!(python.extensions, ["py", "pyi"]);
        assert!(specs.iter().all(|s| s.language != "go"));
        let zig = specs.iter().find(|s| s.language == "zig").unwrap();
        assert_eq!(zig.extensions, ["zig"]);
    }

    #[test]
    fn a_program_inside_the_workspace_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let bin = ws.join("node_modules/.bin");
        std::fs::create_dir_all(&bin).unwrap();
        let program = bin.join("rust-analyzer");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([bin.clone()]).unwrap();
        let err = find("rust-analyzer", &path, &ws).unwrap_err();
        assert!(err.contains("inside the workspace"), "{err}");
        let err = find(program.to_str().unwrap(), &path, &ws).unwrap_err();
        assert!(err.contains("inside the workspace"), "{err}");
    }
}
