//! Installing: fetch the source, copy it into a staging folder in `<home>/packages/` (hashing
//! every file), read the package from that copy, and compute its review — so what the user
//! is asked about is exactly what would be installed. Only [`commit`] writes anything the
//! runtime reads; dropping a [`Plan`] leaves no trace.

use crate::files::{self, Hashes};
use crate::index::{Entry, Index, Origin, PACKAGES_DIR};
use crate::marketplace::{self, Resolved};
use crate::review::{self, Review};
use crate::source::{self, Source};
use crate::{Package, PackageError};
use std::path::{Path, PathBuf};

/// A package fetched and read, not installed yet.
pub struct Plan {
    pub package: Package,
    pub review: Review,
    pub origin: Origin,
    files: Hashes,
    staged: tempfile::TempDir,
}

impl Plan {
    /// Where the package will be.
    pub fn target(&self, home: &Path) -> PathBuf {
        home.join(PACKAGES_DIR).join(&self.package.name)
    }

    /// The staged copy the package was read from (what [`commit`] puts in place).
    pub fn staged_root(&self) -> PathBuf {
        self.staged.path().join("package")
    }
}

/// The variables of a package's MCP entries as the review shows them: by name, not value.
pub fn by_name(name: &str) -> Option<String> {
    Some(format!("${{{name}}}"))
}

/// Fetch and read what `source` names (`reference`: the commit, branch or tag of a git
/// source; `subdir`: a folder inside the source); `describe` tells what its components ask.
pub fn plan(
    home: &Path,
    source: &Source,
    reference: Option<&str>,
    subdir: Option<&str>,
    describe: review::DescribeComponent,
) -> Result<Plan, PackageError> {
    let mut _checkout = None;
    let (root, origin) = match source {
        Source::Dir(dir) => {
            let root = source::subfolder(dir, subdir)?;
            if reference.is_some() {
                return Err(PackageError::Source(format!(
                    "{}: `--ref` is for git sources; a folder is installed as it is",
                    dir.display()
                )));
            }
            let origin = Origin {
                kind: "dir".into(),
                location: dir
                    .canonicalize()
                    .unwrap_or(dir.clone())
                    .display()
                    .to_string(),
                subdir: subdir.map(str::to_string),
                commit: None,
                entry: None,
            };
            (root, origin)
        }
        Source::Git(url) => {
            let (temp, repo, commit) = source::checkout(url, reference)?;
            let root = source::subfolder(&repo, subdir)?;
            _checkout = Some(temp);
            (root, source::git_origin(url, subdir, &commit))
        }
        Source::Marketplace { entry, market } => match marketplace::resolve(home, entry, market)? {
            Resolved::Folder(dir, origin) => (dir, origin),
            Resolved::Repository {
                url,
                commit,
                path,
                origin,
            } => {
                let (temp, repo, _) = source::checkout(&url, Some(&commit))?;
                let root = source::subfolder(&repo, path.as_deref())?;
                _checkout = Some(temp);
                (root, origin)
            }
        },
    };
    let packages = home.join(PACKAGES_DIR);
    std::fs::create_dir_all(&packages).map_err(|e| PackageError::file(&packages, e.to_string()))?;
    let staged = tempfile::Builder::new()
        .prefix(".staging-")
        .tempdir_in(&packages)
        .map_err(|e| PackageError::file(&packages, e.to_string()))?;
    let copy = staged.path().join("package");
    let files = files::copy_hashed(&root, &copy)?;
    let mut package = crate::read::read(&copy, &by_name)?;
    let final_root = packages.join(&package.name);
    let mut review = review::review(&package, describe)?;
    let staged_text = package.root.display().to_string();
    let final_text = final_root.display().to_string();
    for line in review.runs.iter_mut().chain(review.brings.iter_mut()) {
        *line = line.replace(&staged_text, &final_text);
    }
    package.root = final_root;
    Ok(Plan {
        package,
        review,
        origin,
        files,
        staged,
    })
}

/// Put the planned package in place and record it (enabled). A package of the same name is
/// replaced; if anything fails, the previous package and index stay as they were.
pub fn commit(home: &Path, plan: Plan) -> Result<Entry, PackageError> {
    let target = plan.target(home);
    let old = home
        .join(PACKAGES_DIR)
        .join(format!(".{}.old", plan.package.name));
    let _ = std::fs::remove_dir_all(&old);
    let had_old = target.exists();
    let io = |p: &Path, e: std::io::Error| PackageError::file(p, e.to_string());
    if had_old {
        std::fs::rename(&target, &old).map_err(|e| io(&target, e))?;
    }
    if let Err(e) = std::fs::rename(plan.staged.path().join("package"), &target) {
        if had_old {
            let _ = std::fs::rename(&old, &target);
        }
        return Err(io(&target, e));
    }
    let entry = Entry {
        name: plan.package.name.clone(),
        version: plan.package.version.clone(),
        description: plan.package.description.clone(),
        manifest_kind: plan.package.kind,
        enabled: true,
        origin: plan.origin.clone(),
        review: plan.review.clone(),
        files: plan.files.clone(),
    };
    let saved = Index::load(home).and_then(|mut index| {
        index.upsert(entry.clone());
        index.save(home)
    });
    if let Err(e) = saved {
        let _ = std::fs::remove_dir_all(&target);
        if had_old {
            let _ = std::fs::rename(&old, &target);
        }
        return Err(e.into());
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(entry)
}

/// Remove package `name`: its index entry, then its folder. `Ok(None)` when none has that name.
pub fn remove(home: &Path, name: &str) -> Result<Option<Entry>, PackageError> {
    let mut index = Index::load(home)?;
    let Some(entry) = index.remove(name) else {
        return Ok(None);
    };
    index.save(home)?;
    let root = entry.root(home);
    std::fs::remove_dir_all(&root).map_err(|e| PackageError::file(&root, e.to_string()))?;
    Ok(Some(entry))
}

/// Enable or disable package `name`; `Ok(false)` when none has that name.
pub fn set_enabled(home: &Path, name: &str, enabled: bool) -> Result<bool, PackageError> {
    let mut index = Index::load(home)?;
    let Some(mut entry) = index.get(name).cloned() else {
        return Ok(false);
    };
    entry.enabled = enabled;
    index.upsert(entry);
    index.save(home)?;
    Ok(true)
}
