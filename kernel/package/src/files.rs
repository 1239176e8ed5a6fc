//! A package's files: copied into Reasonix's home with a sha256 each, and checked against
//! those hashes at every load, so a file changed after the user agreed to the package (by a
//! tool, a script, another program) refuses the package instead of running changed code.

use crate::PackageError;
use std::collections::BTreeMap;
use std::path::Path;

/// Largest package.
pub const MAX_PACKAGE_BYTES: u64 = 100 * 1024 * 1024;
/// Most files in a package.
pub const MAX_PACKAGE_FILES: usize = 10_000;

/// `relative path` (`/`-separated) → sha256.
pub type Hashes = BTreeMap<String, String>;

/// Folders that are not part of a package (version control, caches).
fn skipped(name: &std::ffi::OsStr) -> bool {
    name == ".git" || name == "__pycache__"
}

/// Copy `from` to `to` (which must not exist), hashing each file. A symbolic link anywhere is
/// refused: it could lead out of the package. File modes are kept (scripts stay executable).
pub fn copy_hashed(from: &Path, to: &Path) -> Result<Hashes, PackageError> {
    let mut hashes = Hashes::new();
    let mut budget = (MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES);
    walk(from, Some(to), "", &mut hashes, &mut budget)?;
    Ok(hashes)
}

/// The hashes of the files under `root`, walked as [`copy_hashed`] walks.
pub fn hash_tree(root: &Path) -> Result<Hashes, PackageError> {
    let mut hashes = Hashes::new();
    let mut budget = (MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES);
    walk(root, None, "", &mut hashes, &mut budget)?;
    Ok(hashes)
}

/// Whether the files under `root` are exactly `expected`; the first difference, named.
pub fn verify(root: &Path, expected: &Hashes) -> Result<(), String> {
    let found = hash_tree(root).map_err(|e| e.to_string())?;
    for (file, sha) in expected {
        match found.get(file) {
            None => {
                return Err(format!(
                    "{}: missing since install",
                    root.join(file).display()
                ));
            }
            Some(now) if now != sha => {
                return Err(format!(
                    "{}: changed since install",
                    root.join(file).display()
                ));
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = found.keys().find(|f| !expected.contains_key(*f)) {
        return Err(format!(
            "{}: added since install",
            root.join(extra).display()
        ));
    }
    Ok(())
}

fn walk(
    from: &Path,
    to: Option<&Path>,
    prefix: &str,
    hashes: &mut Hashes,
    budget: &mut (u64, usize),
) -> Result<(), PackageError> {
    let io = |path: &Path, e: std::io::Error| PackageError::file(path, e.to_string());
    if let Some(to) = to {
        std::fs::create_dir_all(to).map_err(|e| io(to, e))?;
    }
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .map_err(|e| io(from, e))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if skipped(&name) {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| io(&path, e))?;
        let relative = format!("{prefix}{}", name.to_string_lossy());
        let target = to.map(|t| t.join(&name));
        if kind.is_symlink() {
            return Err(PackageError::file(
                path,
                "a symbolic link; packages are installed without links (one could lead out of the package)",
            ));
        } else if kind.is_dir() {
            walk(
                &path,
                target.as_deref(),
                &format!("{relative}/"),
                hashes,
                budget,
            )?;
        } else if kind.is_file() {
            let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
            let len = bytes.len() as u64;
            if len > budget.0 || budget.1 == 0 {
                return Err(PackageError::file(
                    path,
                    format!(
                        "the package is larger than {MAX_PACKAGE_BYTES} bytes or {MAX_PACKAGE_FILES} files"
                    ),
                ));
            }
            budget.0 -= len;
            budget.1 -= 1;
            if let Some(target) = &target {
                // `fs::copy` keeps the permission bits.
                std::fs::copy(&path, target).map_err(|e| io(&path, e))?;
            }
            hashes.insert(relative, reasonix_core::sha256_hex(&bytes));
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn copies_hashes_and_names_every_kind_of_change() {
        let src = tempfile::tempdir().unwrap();
        let dst = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(src.path().join("a/.git")).unwrap();
        std::fs::write(src.path().join("a/x.sh"), "echo x").unwrap();
        std::fs::write(src.path().join("a/.git/HEAD"), "ref").unwrap();
        std::fs::write(src.path().join("top.md"), "t").unwrap();
        let to = dst.path().join("pkg");
        let hashes = copy_hashed(src.path(), &to).unwrap();
        assert_eq!(hashes.keys().collect::<Vec<_>>(), ["a/x.sh", "top.md"]);
        assert!(verify(&to, &hashes).is_ok());
        std::fs::write(to.join("a/x.sh"), "echo evil").unwrap();
        assert!(
            verify(&to, &hashes)
                .unwrap_err()
                .contains("a/x.sh: changed since install")
        );
        std::fs::write(to.join("a/x.sh"), "echo x").unwrap();
        std::fs::write(to.join("new.sh"), "n").unwrap();
        assert!(verify(&to, &hashes).unwrap_err().contains("new.sh: added"));
        std::fs::remove_file(to.join("new.sh")).unwrap();
        std::fs::remove_file(to.join("top.md")).unwrap();
        assert!(
            verify(&to, &hashes)
                .unwrap_err()
                .contains("top.md: missing")
        );
    }

    #[test]
    fn links_are_refused() {
        let src = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/etc/passwd", src.path().join("leak")).unwrap();
        let dst = tempfile::tempdir().unwrap();
        let e = copy_hashed(src.path(), &dst.path().join("p"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("leak") && e.contains("symbolic link"), "{e}");
    }
}
