//! The workspace's skills: the catalogue built once when the runtime opens (the convention
//! roots, `[skills]`, the installed packages' skills as `package:skill`, the workspace's trust), and the `skill` host tool that offers its index
//! to the model and loads a skill on use (docs/SKILLS.md).

mod tool;

pub use tool::{NAME, SkillTool};

use reasonix_config::Config;
use reasonix_core::settings::Paths;
use reasonix_skills::{Catalog, Options, Root, Scope};
use std::path::{Path, PathBuf};

/// The skills of `workspace`: the user's own roots, the `[skills] paths`, the workspace's
/// roots. A `[skills] paths` entry from any file but the user's own must stay inside the
/// workspace; the workspace's skills are marked unless it is trusted.
pub fn catalog(
    paths: &Paths,
    config: &Config,
    workspace: &Path,
    packages: &[reasonix_package::Package],
) -> Catalog {
    let user_home = std::env::var_os("HOME").map(PathBuf::from);
    let mut roots = reasonix_skills::standard_roots(&paths.home, workspace, user_home.as_deref());
    let user_config = paths.user_config();
    for entry in &config.skills.paths {
        roots.push(Root {
            within: (entry.source != user_config).then(|| workspace.to_path_buf()),
            ..Root::new(entry.path.clone(), Scope::Custom)
        });
    }
    for (dir, name) in crate::packages::folders(packages, |p| &p.skills) {
        roots.push(Root {
            namespace: Some(name),
            ..Root::new(dir, Scope::Package)
        });
    }
    let options = Options {
        excluded: config
            .skills
            .excluded_paths
            .iter()
            .map(|p| p.path.clone())
            .collect(),
        disabled: config.skills.disabled_skills.clone(),
        no_index: config.skills.disable_implicit_invocation,
        workspace_trusted: crate::context::workspace_trusted(config, paths, workspace),
    };
    let mut catalog = reasonix_skills::discover(&roots, &options);
    if let Some(only) = &config.skills.only {
        // A composition chose these.
        catalog.skills.retain(|s| only.contains(&s.name));
    }
    catalog
}
