//! The installed, enabled packages as the runtime loads them: each one's files checked against
//! the hashes recorded when the user agreed to it. A package with a file changed, added or
//! removed since is refused, with the file named.

use crate::index::Index;
use crate::{Package, PackageError};
use std::path::Path;

/// What loading found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub packages: Vec<Package>,
    /// One line per package not loaded, naming it and why.
    pub warnings: Vec<String>,
}

/// The enabled packages of `<home>`; `lookup` expands `${VAR}` in their MCP entries.
pub fn load(home: &Path, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Loaded, PackageError> {
    let index = Index::load(home)?;
    let mut loaded = Loaded::default();
    for entry in index.packages.iter().filter(|e| e.enabled) {
        let root = entry.root(home);
        if let Err(why) = crate::files::verify(&root, &entry.files) {
            loaded.warnings.push(format!(
                "package `{}` is not loaded: {why}; reinstall it (`reasonix plugin update {}`) to review and trust what it holds now",
                entry.name, entry.name
            ));
            continue;
        }
        match crate::read::read(&root, lookup) {
            Ok(package) => loaded.packages.push(package),
            Err(e) => loaded
                .warnings
                .push(format!("package `{}` is not loaded: {e}", entry.name)),
        }
    }
    Ok(loaded)
}
