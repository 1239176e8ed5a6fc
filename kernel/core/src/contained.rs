//! Reading a file a workspace (or a package) provides only when it really lies inside the
//! folder it was found in: a symbolic link to `~/.aws/credentials` named `SKILL.md` or
//! `review.md` would otherwise put the secret in the model's prompt. The check is on what was
//! opened (on Linux the kernel's record of the descriptor), not on the path string.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The text of `path`, at most `max` bytes, UTF-8, when the file opened is a regular file
/// inside `root` (both taken through their real paths). The error says what was wrong.
pub fn read_within(root: &Path, path: &Path, max: u64) -> Result<String, String> {
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let real = opened_path(&file, path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !real.starts_with(&root) {
        return Err(format!(
            "{}: leads out of {} (to {}); skipped",
            path.display(),
            root.display(),
            real.display()
        ));
    }
    let meta = file
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file; skipped", path.display()));
    }
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > max {
        return Err(format!(
            "{}: larger than {} KiB; skipped",
            path.display(),
            max / 1024
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8; skipped", path.display()))
}

#[cfg(target_os = "linux")]
fn opened_path(file: &std::fs::File, _path: &Path) -> std::io::Result<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
}

#[cfg(not(target_os = "linux"))]
fn opened_path(file: &std::fs::File, path: &Path) -> std::io::Result<PathBuf> {
    // No descriptor path here: the real path, and the same file (device and inode) as opened.
    use std::os::unix::fs::MetadataExt;
    let real = path.canonicalize()?;
    let (a, b) = (file.metadata()?, std::fs::metadata(&real)?);
    if a.dev() != b.dev() || a.ino() != b.ino() {
        return Err(std::io::Error::other(
            "the file changed while it was opened",
        ));
    }
    Ok(real)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_link_out_of_the_folder_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "sk-live-123").unwrap();
        std::fs::write(root.path().join("ok.md"), "fine").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.path().join("SKILL.md"))
            .unwrap();
        std::os::unix::fs::symlink(root.path().join("ok.md"), root.path().join("inside.md"))
            .unwrap();
        assert_eq!(
            read_within(root.path(), &root.path().join("ok.md"), 100).unwrap(),
            "fine"
        );
        assert_eq!(
            read_within(root.path(), &root.path().join("inside.md"), 100).unwrap(),
            "fine",
            "a link inside the folder is fine"
        );
        let e = read_within(root.path(), &root.path().join("SKILL.md"), 100).unwrap_err();
        assert!(e.contains("leads out of"), "{e}");
        assert!(
            read_within(root.path(), &root.path().join("ok.md"), 2)
                .unwrap_err()
                .contains("larger than")
        );
    }
}
