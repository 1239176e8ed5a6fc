//! Seals on cache files: an HMAC-SHA256, keyed by a secret of this user's Reasonix, over a
//! file's name and its identity on disk (device, inode, size, modification and change times).
//!
//! A file nobody sealed (planted by a checkout, an archive or a tool) or one changed after it
//! was sealed (any write or rename changes its change time, which no process can set back) is
//! not ours. Sealing the identity rather than the bytes keeps a warm start from reading every
//! artifact: an artifact is mapped, not read.

use ring::hmac;
use std::path::Path;

/// Bytes of a key.
const KEY_LEN: usize = 32;
/// Separates what one seal covers from another's (and from any other use of the key).
const DOMAIN: &[u8] = b"reasonix artifact cache seal v1\0";

/// The secret seals are made with.
pub(super) struct SealKey(hmac::Key);

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(..)")
    }
}

/// What a seal covers of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Identity(Vec<u8>);

impl Identity {
    /// The identity of the file at `path` (not following a symlink).
    pub(super) fn of(path: &Path) -> std::io::Result<Identity> {
        std::fs::symlink_metadata(path).map(|m| Identity::from_metadata(&m))
    }

    #[cfg(unix)]
    pub(super) fn from_metadata(meta: &std::fs::Metadata) -> Identity {
        use std::os::unix::fs::MetadataExt;
        let mut bytes = Vec::with_capacity(64);
        for value in [
            meta.dev(),
            meta.ino(),
            meta.size(),
            meta.mtime() as u64,
            meta.mtime_nsec() as u64,
            meta.ctime() as u64,
            meta.ctime_nsec() as u64,
        ] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        Identity(bytes)
    }

    #[cfg(not(unix))]
    pub(super) fn from_metadata(meta: &std::fs::Metadata) -> Identity {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let mut bytes = meta.len().to_le_bytes().to_vec();
        bytes.extend_from_slice(&modified.to_le_bytes());
        Identity(bytes)
    }
}

impl SealKey {
    /// The key in `path`, created when missing: 32 random bytes, readable by this user only.
    /// A key file that is not a private regular file of ours of the right length is replaced
    /// (whoever could read or write it could forge seals), which voids every existing seal.
    pub(super) fn load_or_create(path: &Path) -> Result<SealKey, String> {
        if let Some(bytes) = read_private(path) {
            return Ok(SealKey::from_bytes(&bytes));
        }
        let mut bytes = [0u8; KEY_LEN];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
            .map_err(|_| "the system random source failed".to_string())?;
        write_private(path, &bytes)
            .map_err(|e| format!("cannot write the cache key {}: {e}", path.display()))?;
        Ok(SealKey::from_bytes(&bytes))
    }

    fn from_bytes(bytes: &[u8]) -> SealKey {
        SealKey(hmac::Key::new(hmac::HMAC_SHA256, bytes))
    }

    /// The seal of the file called `name` with this identity, as stored (the raw tag).
    pub(super) fn seal(&self, name: &str, identity: &Identity) -> Vec<u8> {
        hmac::sign(&self.0, &sealed_message(name, identity))
            .as_ref()
            .to_vec()
    }

    /// Whether `seal` (as stored) is this key's seal of `name` with this identity; compared
    /// in constant time.
    pub(super) fn verify(&self, name: &str, identity: &Identity, seal: &[u8]) -> bool {
        hmac::verify(&self.0, &sealed_message(name, identity), seal).is_ok()
    }
}

/// What a seal signs: the domain, the file name, its identity.
fn sealed_message(name: &str, identity: &Identity) -> Vec<u8> {
    let mut message = Vec::with_capacity(DOMAIN.len() + name.len() + 1 + identity.0.len());
    message.extend_from_slice(DOMAIN);
    message.extend_from_slice(name.as_bytes());
    message.push(0);
    message.extend_from_slice(&identity.0);
    message
}

/// The key's bytes, if `path` is a regular file of ours that nobody else can read or write.
fn read_private(path: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_file() || meta.len() != KEY_LEN as u64 {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.uid() != rustix::process::geteuid().as_raw() || meta.mode() & 0o077 != 0 {
            return None;
        }
    }
    let bytes = std::fs::read(path).ok()?;
    (bytes.len() == KEY_LEN).then_some(bytes)
}

/// Write `bytes` to `path` atomically, mode 0600, creating its directory (0700).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    super::integrity::create_private_dir(dir)?;
    // NamedTempFile creates the file with mode 0600.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_key_is_created_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/cache.key");
        let key = SealKey::load_or_create(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let file = dir.path().join("a");
        std::fs::write(&file, b"x").unwrap();
        let id = Identity::of(&file).unwrap();
        let seal = key.seal("a", &id);
        let again = SealKey::load_or_create(&path).unwrap();
        assert!(again.verify("a", &id, &seal));
        assert!(
            !again.verify("b", &id, &seal),
            "a seal is bound to its file name"
        );
    }

    #[test]
    fn a_key_others_can_read_is_replaced_and_voids_its_seals() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.key");
        let key = SealKey::load_or_create(&path).unwrap();
        let file = dir.path().join("a");
        std::fs::write(&file, b"x").unwrap();
        let id = Identity::of(&file).unwrap();
        let seal = key.seal("a", &id);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let replaced = SealKey::load_or_create(&path).unwrap();
        assert!(!replaced.verify("a", &id, &seal));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn any_change_to_a_sealed_file_breaks_its_seal() {
        let dir = tempfile::tempdir().unwrap();
        let key = SealKey::load_or_create(&dir.path().join("cache.key")).unwrap();
        let file = dir.path().join("a.cwasm");
        std::fs::write(&file, b"compiled").unwrap();
        let seal = key.seal("a.cwasm", &Identity::of(&file).unwrap());
        assert!(key.verify("a.cwasm", &Identity::of(&file).unwrap(), &seal));
        // Rewritten in place with bytes of the same length.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&file, b"COMPILED").unwrap();
        assert!(!key.verify("a.cwasm", &Identity::of(&file).unwrap(), &seal));
        // Replaced by another file.
        let other = dir.path().join("b");
        std::fs::write(&other, b"compiled").unwrap();
        std::fs::rename(&other, &file).unwrap();
        assert!(!key.verify("a.cwasm", &Identity::of(&file).unwrap(), &seal));
        // Garbage and foreign seals.
        let id = Identity::of(&file).unwrap();
        assert!(!key.verify("a.cwasm", &id, b"zz"));
        assert!(!key.verify("a.cwasm", &id, b""));
        let other_key = SealKey::load_or_create(&dir.path().join("other.key")).unwrap();
        assert!(!key.verify("a.cwasm", &id, &other_key.seal("a.cwasm", &id)));
    }
}
