//! Whether anyone but this user can have written the artifact cache. Its files are mapped as
//! native code, so the directory must be out of reach of other users (plugins and jobs never
//! see it: Reasonix's directories are hidden from them wherever they lie).

use crate::sandbox::real_path;
use std::path::Path;

/// Check the cache directory (which need not exist yet): it and its ancestors writable by
/// nobody but this user (or root), sticky ancestors such as `/tmp` excepted. `Err` says why,
/// naming the path.
pub(super) fn check_dir(dir: &Path) -> Result<(), String> {
    let real = real_path(dir);
    #[cfg(unix)]
    for (i, ancestor) in real.ancestors().enumerate() {
        match std::fs::metadata(ancestor) {
            Ok(meta) => owned_safely(ancestor, &meta, i > 0)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("cannot inspect {}: {e}", ancestor.display())),
        }
    }
    Ok(())
}

/// Check one file of the cache: a regular file (not a symlink), owned by this user, not
/// group- or other-writable. Returns what was inspected.
pub(super) fn check_file(path: &Path) -> Result<std::fs::Metadata, String> {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|e| format!("cannot inspect {}: {e}", path.display()))?;
    if !meta.file_type().is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    #[cfg(unix)]
    owned_safely(path, &meta, false)?;
    Ok(meta)
}

/// Create the cache directory (and missing parents) readable and writable by this user only.
pub(super) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(unix)]
fn owned_safely(path: &Path, meta: &std::fs::Metadata, ancestor: bool) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me && meta.uid() != 0 {
        return Err(format!(
            "{} belongs to another user (uid {})",
            path.display(),
            meta.uid()
        ));
    }
    let others_write = meta.mode() & 0o022 != 0;
    // In a sticky directory others may add entries but not rename or remove ours.
    let sticky = meta.mode() & 0o1000 != 0;
    if others_write && !(ancestor && sticky) {
        return Err(format!(
            "{} is writable by its group or others (mode {:o})",
            path.display(),
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_private_dir_is_trusted_wherever_it_lies() {
        let root = tempfile::tempdir().unwrap();
        let cache = root.path().join("home/cache");
        create_private_dir(&cache).unwrap();
        assert_eq!(check_dir(&cache), Ok(()));
        // Inside what may be a workspace: location is not what trust rests on.
        let inside = root.path().join("ws/.reasonix/cache");
        create_private_dir(&inside).unwrap();
        assert_eq!(check_dir(&inside), Ok(()));
        // Not created yet: judged by its ancestors.
        assert_eq!(check_dir(&root.path().join("later/cache")), Ok(()));
    }

    #[test]
    fn a_dir_writable_by_others_is_not() {
        let root = tempfile::tempdir().unwrap();
        let shared = root.path().join("shared");
        create_private_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o775)).unwrap();
        let why = check_dir(&shared).unwrap_err();
        assert!(why.contains("writable by its group"), "{why}");
        // Also when the group-writable directory is an ancestor (it could be renamed).
        let why = check_dir(&shared.join("cache")).unwrap_err();
        assert!(why.contains("writable by its group"), "{why}");
    }

    #[test]
    fn files_must_be_private_regular_files() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("a.cwasm");
        std::fs::write(&file, b"x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(check_file(&file).is_ok());
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(check_file(&file).is_err());
        let link = root.path().join("b.cwasm");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(check_file(&link).is_err());
    }
}
