//! Compiled-artifact cache: precompiled components keyed by the component's sha256 and the
//! engine's compatibility hash, so a warm start compiles nothing.
//!
//! Only files this module wrote are ever deserialized. Because a deserialized artifact is
//! native code, that rests on what can be checked, not on where the directory lies
//! ([`integrity`], [`seal`]): the directory and its ancestors are writable by nobody but this
//! user; every file is a private regular file of ours; and every file carries a seal (an HMAC
//! over its name and identity, keyed by a secret in Reasonix's state directory, which plugins
//! and jobs never see) made when this module wrote it. A file a checkout, an archive or a tool
//! put there, or changed since, has no valid seal and is ignored. When the directory or key
//! cannot be trusted, nothing is read from or written to it.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use wasmtime::Engine;
use wasmtime::component::Component;

pub use reasonix_core::sha256_hex;

/// A built-in's compiled artifact, made at build time by `runtime/build.rs` with
/// [`crate::component::precompile`] (the kernel's own engine configuration) and embedded in
/// the executable. [`ArtifactCache::load_or_compile`] deserializes it as native code.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedArtifact(&'static [u8]);

impl EmbeddedArtifact {
    /// For `builtins.rs`, which the build script generates.
    ///
    /// # Safety
    ///
    /// `bytes` must be exactly what [`crate::component::precompile`] returned for a
    /// component, in a build of this crate: they are later run as native code.
    // Unsafe to call, not unsafe inside: the promise is the caller's.
    #[allow(unsafe_code)]
    pub const unsafe fn from_build_script(bytes: &'static [u8]) -> EmbeddedArtifact {
        EmbeddedArtifact(bytes)
    }

    pub fn bytes(self) -> &'static [u8] {
        self.0
    }
}

/// Where compiled components are kept.
#[derive(Debug, Clone)]
pub struct ArtifactCache {
    dir: PathBuf,
    engine_tag: String,
    /// The file holding the seal key (`<state>/cache.key`).
    key_file: PathBuf,
    /// Decided on first use: the key, or why the directory is not used.
    trust: Arc<OnceLock<Result<SealKey, String>>>,
}

/// How a component was obtained, for benchmarks and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provenance {
    /// Deserialized from the cache.
    Cached,
    /// Compiled now (and stored, when the cache is writable).
    Compiled,
    /// Deserialized from the artifact the build embedded in the binary (a built-in whose
    /// artifact was not in the cache yet; stored there for the next start).
    Embedded,
}

/// The engine's compatibility hash plus this kernel's version: an artifact compiled under a
/// different tag is never deserialized. Built-ins record the tag they were precompiled under.
pub fn engine_tag(engine: &Engine) -> String {
    let mut hasher = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    // The wasmtime version is part of the compatibility hash; add ours so a kernel change in
    // how components are linked also invalidates old artifacts.
    env!("CARGO_PKG_VERSION").hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

impl ArtifactCache {
    /// A cache in `dir` whose files are sealed with the key in `key_file` (created on first
    /// use).
    pub fn new(dir: PathBuf, engine: &Engine, key_file: PathBuf) -> ArtifactCache {
        ArtifactCache {
            dir,
            engine_tag: engine_tag(engine),
            key_file,
            trust: Arc::default(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The [`engine_tag`] of the engine this cache serves.
    pub fn engine_tag(&self) -> &str {
        &self.engine_tag
    }

    /// Why the directory is not used (then everything is compiled in memory), if so.
    pub fn refusal(&self) -> Option<&str> {
        self.trust().err()
    }

    fn trust(&self) -> Result<&SealKey, &str> {
        self.trust
            .get_or_init(|| {
                integrity::check_dir(&self.dir)?;
                if let Some(parent) = self.key_file.parent() {
                    integrity::check_dir(parent)?;
                }
                SealKey::load_or_create(&self.key_file)
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// `path` (in the cache directory) may be read: the directory is trusted, the file is a
    /// private regular file of ours, and its seal is this key's seal of what is there now.
    /// Returns the identity that was verified.
    fn trusted_file(&self, path: &Path) -> Option<Identity> {
        let key = self.trust().ok()?;
        let identity = Identity::from_metadata(&integrity::check_file(path).ok()?);
        let seal = std::fs::read(seal_path(path)).ok()?;
        key.verify(&file_name(path), &identity, &seal)
            .then_some(identity)
    }

    fn artifact_path(&self, sha256: &str) -> PathBuf {
        self.dir.join(format!("{sha256}-{}.cwasm", self.engine_tag))
    }

    /// Load the component for `bytes` (whose hash is `sha256`) from the cache, else from
    /// `embedded` (the artifact the build compiled from these bytes under this engine's tag),
    /// else compile it; what was not in the cache is stored there. A cache that cannot be
    /// written is not an error. Returns a compile error as `wasmtime::Error`.
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        sha256: &str,
        bytes: &[u8],
        embedded: Option<EmbeddedArtifact>,
        before_compiling: &dyn Fn(),
    ) -> wasmtime::Result<(Component, Provenance)> {
        let path = self.artifact_path(sha256);
        if let Some(identity) = self.trusted_file(&path) {
            // SAFETY: deserializing runs the file as native code, so it must be a file the
            // kernel wrote with `Component::serialize` (or copied from an `EmbeddedArtifact`)
            // for this engine configuration. It is: (1) the directory passed
            // `integrity::check_dir` — it and its ancestors are owned by us (or root) and not
            // group/other-writable (sticky ones like /tmp excepted), so only this user's own
            // processes can create or replace entries in it, and plugins and jobs never see it
            // (the host filesystem guard and the sandbox hide Reasonix's directories wherever
            // they lie); (2) the file passed `integrity::check_file` — a regular file (not a
            // symlink), ours, not group/other-writable; (3) its seal verifies: an HMAC, under
            // a key only Reasonix holds (in its state directory, as private as this one), over
            // the file's name and identity (device, inode, size, modification and change
            // times) taken when the kernel had written it through an atomic rename — a file
            // anyone else put here, or that was changed since, fails it; the identity is taken
            // again after mapping, so a swap in between is caught. Its name is the sha256 of
            // the component bytes plus the engine tag, and wasmtime still checks the header
            // and compatibility before use. Anyone who can still forge it is this user outside
            // Reasonix, who could equally replace the `reasonix` binary. Mapping (rather than
            // reading) keeps warm start-up cost independent of component size.
            #[allow(unsafe_code)]
            let loaded = unsafe { Component::deserialize_file(engine, &path) };
            let unchanged = Identity::of(&path).is_ok_and(|now| now == identity);
            match loaded {
                Ok(component) if unchanged => return Ok((component, Provenance::Cached)),
                Ok(_) => {}
                Err(_) => {
                    // Stale or damaged artifact: drop it and recompile below.
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        if let Some(artifact) = embedded {
            // SAFETY: an `EmbeddedArtifact` is made only by `from_build_script`, whose caller
            // (the generated `builtins.rs`) promises these are `Component::serialize` output of
            // the kernel's own engine configuration, compiled from `bytes` at build time and
            // linked into this executable, which nothing at run time can change; the caller
            // here passes them only when their recorded engine tag equals this engine's.
            // wasmtime checks the header and the compatibility of the compiled code with
            // this engine and host again before use and fails (it does not run anything) if
            // they differ; then the component is compiled below.
            #[allow(unsafe_code)]
            let loaded = unsafe { Component::deserialize(engine, artifact.bytes()) };
            if let Ok(component) = loaded {
                let _ = self.store(&path, artifact.bytes());
                return Ok((component, Provenance::Embedded));
            }
        }
        before_compiling();
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
        self.trusted_file(&path)?;
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
        let path = self.failure_path(sha256);
        self.trusted_file(&path)?;
        std::fs::read_to_string(path).ok()
    }

    /// Remember a failed description (best effort, like every cache write).
    pub fn store_failure(&self, sha256: &str, message: &str) {
        let _ = self.store(&self.failure_path(sha256), message.as_bytes());
    }

    /// Forget a remembered failure, so the next load describes the component again.
    pub fn forget_failure(&self, sha256: &str) {
        let _ = std::fs::remove_file(self.failure_path(sha256));
    }

    /// Write `data` to `path` through an atomic rename, then seal what is there.
    fn store(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        let Ok(key) = self.trust() else {
            return Ok(());
        };
        integrity::create_private_dir(&self.dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        std::io::Write::write_all(&mut tmp, data)?;
        tmp.persist(path).map_err(|e| e.error)?;
        // The identity after the rename (which may change the change time).
        let identity = Identity::of(path)?;
        let mut seal = tempfile::NamedTempFile::new_in(&self.dir)?;
        std::io::Write::write_all(&mut seal, &key.seal(&file_name(path), &identity))?;
        seal.persist(seal_path(path)).map_err(|e| e.error)?;
        Ok(())
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Where the seal of the cache file at `path` is kept.
fn seal_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".seal");
    PathBuf::from(name)
}

mod integrity;
mod seal;

use seal::{Identity, SealKey};

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
