//! Compiled-artifact cache: precompiled components keyed by the component's sha256 and the
//! engine's compatibility hash, so a warm start compiles nothing.
//!
//! Only files this module wrote are ever deserialized: they live under the cache directory and
//! are named after the hash of the bytes they were compiled from.

use sha2::{Digest, Sha256};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Hex sha256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Where compiled components are kept.
#[derive(Debug, Clone)]
pub struct ArtifactCache {
    dir: PathBuf,
    engine_tag: String,
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
    pub fn new(dir: PathBuf, engine: &Engine) -> ArtifactCache {
        let mut hasher = DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        // The wasmtime version is part of the compatibility hash; add ours so a kernel change
        // in how components are linked also invalidates old artifacts.
        env!("CARGO_PKG_VERSION").hash(&mut hasher);
        ArtifactCache {
            dir,
            engine_tag: format!("{:016x}", hasher.finish()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
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
        if path.is_file() {
            // SAFETY: `path` is inside our cache directory and named after the sha256 of the
            // component it was compiled from and the engine's compatibility hash; the kernel
            // wrote it with `Component::serialize` from that very engine configuration, through
            // an atomic rename, so a partially written file is never visible and a file is
            // never modified in place (replacing or deleting it leaves our mapping intact).
            // wasmtime still checks the header and compatibility before use. Anyone able to
            // rewrite it in place could equally replace the `reasonix` binary itself. Mapping
            // (rather than reading) keeps warm start-up cost independent of component size.
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
        let text = std::fs::read(self.description_path(sha256)).ok()?;
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
        std::fs::create_dir_all(&self.dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        std::io::Write::write_all(&mut tmp, data)?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

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
