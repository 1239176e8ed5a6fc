//! Builds every built-in plugin crate (`plugins/*` with `[package.metadata.reasonix] builtin =
//! true`) for `wasm32-wasip2`, precompiles each with the kernel's own engine (ADR 0025) and
//! generates `builtins.rs`, which embeds the components with their sha256, their compiled
//! artifact and their self-description, so start-up never hashes, compiles or instantiates
//! them.
// Cargo reads the build script's stdout; it prints nothing from plugins (see src/term.rs).
#![allow(clippy::disallowed_macros)]

use sha2::{Digest, Sha256};
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const WASM_TARGET: &str = "wasm32-wasip2";
const PLUGIN_PROFILE: &str = "plugin";
const PACKAGE_PREFIX: &str = "reasonix-plugin-";

fn main() {
    if let Err(message) = run() {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let root = manifest_dir
        .parent()
        .ok_or("runtime has no parent directory")?
        .to_path_buf();
    let out_dir = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?);
    // The kernel's engine configuration and how it describes components shape the artifacts.
    for watched in [
        "plugins",
        "sdk",
        "wit",
        "Cargo.lock",
        "Cargo.toml",
        "kernel/host/src",
        "kernel/core/src",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }

    let packages = builtin_packages(&root.join("plugins"))?;
    let target_dir = wasm_target_dir(&out_dir);
    if !packages.is_empty() {
        ensure_wasm_target()?;
        build_components(&root, &target_dir, &packages)?;
    }

    let precompiler = Precompiler::new(&out_dir)?;
    // A `static`, not a `const`: a const is copied into every codegen unit that names it, and
    // the embedded components and artifacts (tens of MB) with it.
    let mut generated = String::from(
        "/// Components built from `plugins/` and embedded in this binary.\n\
         // SAFETY (each `from_build_script`): the artifact is the file runtime/build.rs wrote\n\
         // from `reasonix_host::component::precompile` of the component embedded beside it, in\n\
         // this same build, with this crate's `reasonix-host`.\n\
         #[allow(unsafe_code)]\n\
         pub static BUILTINS: &[reasonix_host::BuiltinComponent] = &[\n",
    );
    for package in &packages {
        let file = format!("{}.wasm", package.replace('-', "_"));
        let built = target_dir
            .join(WASM_TARGET)
            .join(PLUGIN_PROFILE)
            .join(&file);
        let bytes = fs::read(&built).map_err(|e| format!("{}: {e}", built.display()))?;
        let embedded = out_dir.join(&file);
        fs::write(&embedded, &bytes).map_err(|e| format!("{}: {e}", embedded.display()))?;
        let name = package.strip_prefix(PACKAGE_PREFIX).unwrap_or(package);
        let precompiled = match &precompiler {
            Some(p) => p.precompile(name, &bytes, &out_dir)?,
            None => "None".to_string(),
        };
        let _ = writeln!(
            generated,
            "    reasonix_host::BuiltinComponent {{ name: {name:?}, bytes: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{file}\")), sha256: {:?}, precompiled: {precompiled} }},",
            hex_sha256(&bytes)
        );
    }
    generated.push_str("];\n");
    let path = out_dir.join("builtins.rs");
    fs::write(&path, generated).map_err(|e| format!("{}: {e}", path.display()))
}

/// Compiles the built-ins with the engine `reasonix-host` configures, the one the binary
/// runs them under. Only for a native build: a cross-compiled binary's engine targets another
/// machine, so its built-ins are compiled where it runs (once, then cached).
struct Precompiler {
    host: reasonix_host::host::ComponentHost,
    engine_tag: String,
}

impl Precompiler {
    fn new(out_dir: &Path) -> Result<Option<Precompiler>, String> {
        if env::var("TARGET").ok() != env::var("HOST").ok() {
            return Ok(None);
        }
        // The host wants a cache directory; a fresh one, so nothing stale is read.
        let cache = out_dir.join("precompile-cache");
        let _ = fs::remove_dir_all(&cache);
        let key = out_dir.join("precompile-cache.key");
        let host = reasonix_host::host::ComponentHost::new(cache, key, None)
            .map_err(|e| format!("cannot start the WebAssembly engine to precompile: {e:#}"))?;
        let engine_tag = host.cache().engine_tag().to_string();
        Ok(Some(Precompiler { host, engine_tag }))
    }

    /// Write `<name>.cwasm` and `<name>.describe.json` to `out_dir`; returns the
    /// `Some(Precompiled { .. })` expression that embeds them.
    fn precompile(&self, name: &str, bytes: &[u8], out_dir: &Path) -> Result<String, String> {
        let (artifact, description) = reasonix_host::component::precompile(&self.host, name, bytes)
            .map_err(|e| format!("precompiling the built-in `{name}`: {e}"))?;
        let artifact_file = format!("{name}.cwasm");
        let description_file = format!("{name}.describe.json");
        for (file, data) in [
            (&artifact_file, artifact.as_slice()),
            (&description_file, description.as_bytes()),
        ] {
            let path = out_dir.join(file);
            fs::write(&path, data).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(format!(
            "Some(reasonix_host::Precompiled {{ engine_tag: {tag:?}, artifact: unsafe {{ reasonix_host::cache::EmbeddedArtifact::from_build_script(include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{artifact_file}\"))) }}, description: include_str!(concat!(env!(\"OUT_DIR\"), \"/{description_file}\")) }})",
            tag = self.engine_tag
        ))
    }
}

/// Package names of the plugin crates marked as built-ins, sorted.
fn builtin_packages(plugins_dir: &Path) -> Result<Vec<String>, String> {
    let mut packages = Vec::new();
    let entries =
        fs::read_dir(plugins_dir).map_err(|e| format!("{}: {e}", plugins_dir.display()))?;
    for entry in entries.flatten() {
        let manifest = entry.path().join("Cargo.toml");
        let Ok(text) = fs::read_to_string(&manifest) else {
            continue;
        };
        let value: toml::Table =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", manifest.display()))?;
        let builtin = value
            .get("package")
            .and_then(|p| p.get("metadata"))
            .and_then(|m| m.get("reasonix"))
            .and_then(|r| r.get("builtin"))
            .and_then(|b| b.as_bool())
            .unwrap_or(false);
        if builtin {
            let name = value
                .get("package")
                .and_then(|p| p.get("name"))
                .and_then(|n| n.as_str())
                .ok_or_else(|| format!("{}: no package name", manifest.display()))?;
            packages.push(name.to_string());
        }
    }
    packages.sort();
    Ok(packages)
}

/// A target directory of its own: the outer cargo holds the lock on its own one.
fn wasm_target_dir(out_dir: &Path) -> PathBuf {
    // OUT_DIR is <target>/[<triple>/]<profile>/build/<pkg>-<hash>/out.
    let mut dir = out_dir.to_path_buf();
    for _ in 0..4 {
        dir.pop();
    }
    dir.join("wasm-plugins")
}

/// The pinned toolchain may have been installed before the project asked for `wasm32-wasip2`
/// (rustup installs a toolchain file's `targets` only when it installs the toolchain itself):
/// add the target, which is idempotent, or stop with the command that does.
fn ensure_wasm_target() -> Result<(), String> {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run {rustc}: {e}"))?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    let installed = || {
        sysroot
            .join("lib/rustlib")
            .join(WASM_TARGET)
            .join("lib")
            .is_dir()
    };
    if installed() {
        return Ok(());
    }
    let command = format!("rustup target add {WASM_TARGET}");
    println!("cargo:warning=the {WASM_TARGET} target is missing; running `{command}`");
    // `RUSTUP_TOOLCHAIN` (set by the rustup proxy that started cargo) makes rustup add the
    // target to the toolchain this build uses.
    let added = Command::new("rustup")
        .args(["target", "add", WASM_TARGET])
        .output();
    match added {
        Ok(out) if out.status.success() && installed() => Ok(()),
        Ok(out) => Err(format!(
            "the built-in plugins need the {WASM_TARGET} target, and `{command}` failed:\n{}\nrun `{command}` and build again",
            String::from_utf8_lossy(&out.stderr)
        )),
        Err(e) => Err(format!(
            "the built-in plugins need the {WASM_TARGET} target, which this toolchain lacks, and rustup could not be run ({e}); install the target (`{command}`) and build again"
        )),
    }
}

/// Initial linear memory of a built-in component, in bytes (a multiple of the 64 KiB wasm page).
const BUILTIN_INITIAL_MEMORY: u32 = 8 << 20;

fn build_components(root: &Path, target_dir: &Path, packages: &[String]) -> Result<(), String> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .arg("build")
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .arg("--target")
        .arg(WASM_TARGET)
        .arg("--profile")
        .arg(PLUGIN_PROFILE)
        .arg("--target-dir")
        .arg(target_dir);
    for package in packages {
        command.arg("-p").arg(package);
    }
    // The outer build's settings (its target, flags, wrappers, jobserver) must not leak into
    // the wasm build.
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        if (key.starts_with("CARGO_") && key != "CARGO_HOME" && key != "CARGO_NET_OFFLINE")
            || key.starts_with("RUSTC")
            || key == "RUSTFLAGS"
            || key == "RUSTDOCFLAGS"
            || key == "CARGO_MAKEFLAGS"
            || key == "MAKEFLAGS"
            || key == "MFLAGS"
        {
            command.env_remove(key.as_ref());
        }
    }
    // Wasm SIMD: memchr, memmem and UTF-8 validation in the built-ins (line splitting, search)
    // use 128-bit vectors instead of one byte or word at a time. Every engine we run on
    // supports it (wasmtime enables it by default).
    //
    // A larger initial memory: a call that fits never executes `memory.grow`, and growing is
    // what costs (the host changes the protection of the new pages, and again when the slot is
    // reused). Pages a call does not touch cost nothing: the pooling allocator keeps the slot
    // mapped and resets only dirty pages.
    command.env(
        "CARGO_TARGET_WASM32_WASIP2_RUSTFLAGS",
        format!("-C target-feature=+simd128 -C link-arg=--initial-memory={BUILTIN_INITIAL_MEMORY}"),
    );
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo to build the built-in plugins: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "building the built-in plugins for {WASM_TARGET} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(())
}

fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}
