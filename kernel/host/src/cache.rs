//! Compiled-artifact cache: precompiled components keyed by the component's sha256 and the
//! engine's compatibility hash, so a warm start compiles nothing.
//!
//! Only files this module wrote are ever deserialized: they live under the cache directory and
//! are named after the hash of the bytes they were compiled from. Because a deserialized
//! artifact is native code, the directory is used only when nobody else can have written it
//! ([`integrity`]): not inside a workspace (or writable root) plugins and jobs can write, and
//! owned by the current user with no group or other write access, down from `/`. Otherwise
//! every component is compiled in memory and nothing is read from or written to it.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use wasmtime::Engine;
use wasmtime::component::Component;

pub use reasonix_core::sha256_hex;

/// Where compiled components are kept.
#[derive(Debug, Clone)]
pub struct ArtifactCache {
    dir: PathBuf,
    engine_tag: String,
    /// Workspaces and writable roots the cache must not lie in (what plugins and jobs write).
    untrusted: Vec<PathBuf>,
    /// Decided on first use: `Err` says why the directory is not used.
    trust: Arc<OnceLock<Result<(), String>>>,
}

/// How a component was obtained, for benchmarks and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provenance {
    /// Deserialized from the cache.
    Cached,
    /// Compiled now (and stored, when the cache is writable).
    Compiled,
}

impl ArtifactCache {
    /// A cache in `dir`, refused when it lies inside one of `untrusted` (the workspace and the
    /// writable roots of this run).
    pub fn new(dir: PathBuf, engine: &Engine, untrusted: Vec<PathBuf>) -> ArtifactCache {
        let mut hasher = DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        // The wasmtime version is part of the compatibility hash; add ours so a kernel change
        // in how components are linked also invalidates old artifacts.
        env!("CARGO_PKG_VERSION").hash(&mut hasher);
        ArtifactCache {
            dir,
            engine_tag: format!("{:016x}", hasher.finish()),
            untrusted,
            trust: Arc::default(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Why the directory is not used (then everything is compiled in memory), if so.
    pub fn refusal(&self) -> Option<&str> {
        self.trust().err()
    }

    fn trust(&self) -> Result<(), &str> {
        self.trust
            .get_or_init(|| integrity::check_dir(&self.dir, &self.untrusted))
            .as_ref()
            .map(|_| ())
            .map_err(String::as_str)
    }

    /// `path` (in the cache directory) may be read: the directory is trusted and the file is
    /// ours, a regular file, and writable by nobody else.
    fn trusted_file(&self, path: &Path) -> bool {
        self.trust().is_ok() && integrity::check_file(path).is_ok()
    }

    fn artifact_path(&self, sha256: &str) -> PathBuf {
        self.dir.join(format!("{sha256}-{}.cwasm", self.engine_tag))
    }

    /// Load the component for `bytes` (whose hash is `sha256`) from the cache, or compile it
    /// and store the result. A cache that cannot be written is not an error: the component is
    /// compiled in memory. Returns a compile error as `wasmtime::Error`.
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        sha256: &str,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, Provenance)> {
        let path = self.artifact_path(sha256);
        if self.trust().is_err() {
            // Not ours alone: never map it, never write it.
            return Ok((Component::new(engine, bytes)?, Provenance::Compiled));
        }
        if path.is_file() && self.trusted_file(&path) {
            // SAFETY: deserializing runs the file as native code, so it must be a file the
            // kernel wrote with `Component::serialize` from this engine configuration. It is:
            // (1) the directory passed `integrity::check_dir` — owned by us (or root), not
            // group/other-writable, nor is any ancestor (except sticky ones like /tmp), and not
            // inside this run's workspace or writable roots, which plugins and jobs can write
            // (plugins are also refused Reasonix's own directories by the host filesystem
            // guard wherever they lie) — so only this user's own processes can create or
            // replace entries in it; (2) the file passed `integrity::check_file` — a regular
            // file (not a symlink), ours, not group/other-writable; (3) its name is the sha256
            // of the component bytes plus the engine's compatibility hash, and the kernel only
            // ever writes it through an atomic rename, so a partial file is never visible and a
            // file is never modified in place (replacing or deleting it leaves our mapping
            // intact). wasmtime still checks the header and compatibility before use. Anyone
            // who can still write it is this user outside Reasonix, who could equally replace
            // the `reasonix` binary. Mapping (rather than reading) keeps warm start-up cost
            // independent of component size.
            #[allow(unsafe_code)]
            let loaded = unsafe { Component::deserialize_file(engine, &path) };
            match loaded {
                Ok(component) => return Ok((component, Provenance::Cached)),
                Err(_) => {
                    // Stale or damaged artifact: drop it and recompile below.
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        let component = Component::new(engine, bytes)?;
        if let Ok(serialized) = component.serialize() {
            let _ = self.store(&path, &serialized);
        }
        Ok((component, Provenance::Compiled))
    }

    fn description_path(&self, sha256: &str) -> PathBuf {
        self.dir
            .join(format!("{sha256}-{}.describe.json", self.engine_tag))
    }

    /// What a component said about itself last time (`describe` and the listings are
    /// deterministic for given bytes), so a warm start need not instantiate it. `None` when
    /// missing or unreadable (then it is described again).
    pub fn load_description<T: serde::de::DeserializeOwned>(&self, sha256: &str) -> Option<T> {
        let path = self.description_path(sha256);
        // Whoever could write it could change what the plugin asks for and what its tools
        // say; trusted on the same terms as the artifacts.
        if !self.trusted_file(&path) {
            return None;
        }
        let text = std::fs::read(path).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// Keep a component's self-description; a cache that cannot be written is not an error.
    pub fn store_description<T: serde::Serialize>(&self, sha256: &str, description: &T) {
        if let Ok(json) = serde_json::to_vec(description) {
            let _ = self.store(&self.description_path(sha256), &json);
        }
    }

    fn failure_path(&self, sha256: &str) -> PathBuf {
        self.dir
            .join(format!("{sha256}-{}.failed", self.engine_tag))
    }

    /// Why the component with this hash failed to describe itself last time, if it did: a
    /// component whose `describe` blocks or breaks the limits would otherwise cost every start
    /// the whole describe deadline again.
    pub fn load_failure(&self, sha256: &str) -> Option<String> {
        std::fs::read_to_string(self.failure_path(sha256)).ok()
    }

    /// Remember a failed description (best effort, like every cache write).
    pub fn store_failure(&self, sha256: &str, message: &str) {
        let _ = self.store(&self.failure_path(sha256), message.as_bytes());
    }

    /// Forget a remembered failure, so the next load describes the component again.
    pub fn forget_failure(&self, sha256: &str) {
        let _ = std::fs::remove_file(self.failure_path(sha256));
    }

    fn store(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        if self.trust().is_err() {
            return Ok(());
        }
        integrity::create_private_dir(&self.dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        std::io::Write::write_all(&mut tmp, data)?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

mod integrity;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_known_vector() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
