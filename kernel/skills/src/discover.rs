//! Finding skills: the convention roots (the user's, then `[skills] paths`, then the
//! workspace's), folders nested up to [`MAX_DEPTH`] levels below a root, bounded work per
//! root, symbolic links that lead out of their root ignored.

use crate::skill::{self, SKILL_FILE, Skill};
use crate::{Catalog, Scope};
use reasonix_core::terminal::shown;
use std::path::{Path, PathBuf};

/// Skills loaded in all; the rest are skipped with a warning.
pub const MAX_SKILLS: usize = 500;
/// Levels below a root a skill folder may be (`root/group/sub/skill/SKILL.md` is the deepest).
pub const MAX_DEPTH: usize = 3;
/// Folders looked at in one root.
const MAX_FOLDERS: usize = 2048;

/// One place skills are found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub path: PathBuf,
    pub scope: Scope,
    /// A package's name: its skills are `package:skill`.
    pub namespace: Option<String>,
    /// The root must resolve inside this folder (a `[skills] paths` entry from a project file
    /// stays in its workspace).
    pub within: Option<PathBuf>,
}

impl Root {
    pub fn new(path: PathBuf, scope: Scope) -> Root {
        Root {
            path,
            scope,
            namespace: None,
            within: None,
        }
    }
}

/// What the configuration says beyond the roots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Roots or skill folders left out (`[skills] excluded_paths`).
    pub excluded: Vec<PathBuf>,
    /// Names hidden everywhere (`[skills] disabled_skills`).
    pub disabled: Vec<String>,
    /// `[skills] disable_implicit_invocation`.
    pub no_index: bool,
    /// Whether the workspace is trusted; its skills are marked when it is not.
    pub workspace_trusted: bool,
}

/// The standard roots: `<home>/skills`, `~/.claude/skills`, `~/.agents/skills`, then the
/// workspace's `.reasonix/skills`, `.claude/skills`, `.agents/skills` and `.agent/skills`.
pub fn standard_roots(home: &Path, workspace: &Path, user_home: Option<&Path>) -> Vec<Root> {
    let mut roots = vec![Root::new(home.join("skills"), Scope::User)];
    if let Some(user) = user_home {
        roots.push(Root::new(
            user.join(".claude").join("skills"),
            Scope::UserClaude,
        ));
        roots.push(Root::new(
            user.join(".agents").join("skills"),
            Scope::UserAgents,
        ));
    }
    for (dir, scope) in [
        (".reasonix", Scope::Project),
        (".claude", Scope::ProjectClaude),
        (".agents", Scope::ProjectAgents),
        (".agent", Scope::ProjectAgents),
    ] {
        roots.push(Root::new(workspace.join(dir).join("skills"), scope));
    }
    roots
}

/// Every skill under `roots`. On a name clash the earlier scope wins (then the earlier
/// root), and the other is named in a warning.
pub fn discover(roots: &[Root], options: &Options) -> Catalog {
    let excluded: Vec<PathBuf> = options
        .excluded
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let mut ordered: Vec<&Root> = roots.iter().collect();
    ordered.sort_by_key(|r| r.scope);
    let mut catalog = Catalog {
        no_index: options.no_index,
        ..Catalog::default()
    };
    let mut seen_roots: Vec<PathBuf> = Vec::new();
    for root in ordered {
        let Ok(real) = root.path.canonicalize() else {
            continue;
        };
        if let Some(within) = &root.within
            && !within.canonicalize().is_ok_and(|w| real.starts_with(&w))
        {
            catalog.warnings.push(format!(
                "{}: a skills path from a project file must stay inside the workspace; skipped",
                root.path.display()
            ));
            continue;
        }
        // `.agents/skills` may be a link to `.claude/skills`: one root read once.
        if seen_roots.contains(&real) || excluded.iter().any(|e| real.starts_with(e)) {
            continue;
        }
        seen_roots.push(real.clone());
        let mut folders = Vec::new();
        collect(&real, &real, 0, &mut folders, &mut catalog.warnings);
        folders.sort();
        for dir in folders {
            if excluded.iter().any(|e| dir.starts_with(e)) {
                continue;
            }
            add(&mut catalog, root, &real, &dir, options);
            if catalog.skills.len() >= MAX_SKILLS {
                catalog.warnings.push(format!(
                    "{}: more than {MAX_SKILLS} skills; the rest are skipped",
                    dir.display()
                ));
                return finish(catalog);
            }
        }
    }
    finish(catalog)
}

fn finish(mut catalog: Catalog) -> Catalog {
    catalog.skills.sort_by(|a, b| a.name.cmp(&b.name));
    catalog
}

fn add(catalog: &mut Catalog, root: &Root, real_root: &Path, dir: &Path, options: &Options) {
    let file = dir.join(SKILL_FILE);
    let parsed = skill::read_skill_file(real_root, &file).and_then(|text| {
        skill::parse(&text, dir, root.scope, root.namespace.as_deref())
            .map_err(|why| format!("{}: {why}", file.display()))
    });
    let mut skill: Skill = match parsed {
        Ok(skill) => skill,
        Err(why) => {
            catalog.warnings.push(format!("{why}; skipped"));
            return;
        }
    };
    if options.disabled.contains(&skill.name) {
        return;
    }
    skill.trusted = !root.scope.is_workspace() || options.workspace_trusted;
    if let Some(existing) = catalog.skills.iter().find(|s| s.name == skill.name) {
        catalog.warnings.push(format!(
            "{}: the skill `{}` is also in {} ({}), which wins",
            file.display(),
            shown(&skill.name),
            existing.dir.display(),
            existing.scope.label()
        ));
        return;
    }
    catalog.skills.push(skill);
}

/// The skill folders under `dir` (a real path inside `root`): a folder holding `SKILL.md` is
/// a skill and is not searched further; hidden folders are skipped.
fn collect(
    root: &Path,
    dir: &Path,
    depth: usize,
    out: &mut Vec<PathBuf>,
    warnings: &mut Vec<String>,
) {
    if out.len() >= MAX_FOLDERS {
        return;
    }
    if dir.join(SKILL_FILE).is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut subdirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .take(MAX_FOLDERS)
        .collect();
    subdirs.sort();
    for sub in subdirs {
        let Ok(real) = sub.canonicalize() else {
            continue;
        };
        if !real.starts_with(root) {
            warnings.push(format!(
                "{}: a link out of {}; skipped",
                sub.display(),
                root.display()
            ));
            continue;
        }
        collect(root, &real, depth + 1, out, warnings);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn skill(dir: &Path, rel: &str, frontmatter: &str) {
        let d = dir.join(rel);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join(SKILL_FILE),
            format!("---\n{frontmatter}\n---\nBody of {rel}\n"),
        )
        .unwrap();
    }

    fn options(trusted: bool) -> Options {
        Options {
            workspace_trusted: trusted,
            ..Options::default()
        }
    }

    #[test]
    fn finds_nested_skills_in_every_root_and_the_users_own_win() {
        let home = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        skill(
            &ws.path().join(".claude/skills"),
            "pdf-notes",
            "description: Notes from PDFs",
        );
        skill(
            &ws.path().join(".claude/skills"),
            "docs/writing/style",
            "description: Style",
        );
        skill(
            &ws.path().join(".reasonix/skills"),
            "deploy",
            "description: The repository's deploy",
        );
        skill(
            &user.path().join(".claude/skills"),
            "deploy",
            "description: My deploy",
        );
        skill(
            &home.path().join("skills"),
            "too/deep/a/b/c",
            "description: x",
        );
        let roots = standard_roots(home.path(), ws.path(), Some(user.path()));
        let catalog = discover(&roots, &options(true));
        let names: Vec<&str> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["deploy", "pdf-notes", "style"]);
        let deploy = catalog.get("deploy").unwrap();
        assert_eq!(deploy.description, "My deploy");
        assert_eq!(deploy.scope, Scope::UserClaude);
        assert!(
            catalog
                .warnings
                .iter()
                .any(|w| w.contains("`deploy` is also in")),
            "{:?}",
            catalog.warnings
        );
        assert!(catalog.get("c").is_none(), "deeper than {MAX_DEPTH} levels");
    }

    #[test]
    fn untrusted_workspace_skills_are_marked_and_config_narrows() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        skill(&ws.path().join(".claude/skills"), "a", "description: A");
        skill(&ws.path().join(".claude/skills"), "b", "description: B");
        skill(&ws.path().join(".agents/skills"), "c", "description: C");
        skill(&home.path().join("skills"), "mine", "description: M");
        let roots = standard_roots(home.path(), ws.path(), None);
        let catalog = discover(&roots, &options(false));
        assert!(!catalog.get("a").unwrap().trusted);
        assert!(catalog.get("mine").unwrap().trusted);
        let narrowed = discover(
            &roots,
            &Options {
                excluded: vec![ws.path().join(".agents/skills")],
                disabled: vec!["b".into()],
                ..options(true)
            },
        );
        let names: Vec<&str> = narrowed.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "mine"]);
    }

    #[test]
    fn bad_files_and_escaping_links_are_warnings() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        skill(outside.path(), "stolen", "description: S");
        let root = ws.path().join(".claude/skills");
        skill(&root, "bad", "name: no spaces allowed\ndescription: x");
        std::os::unix::fs::symlink(outside.path().join("stolen"), root.join("stolen")).unwrap();
        let catalog = discover(
            &standard_roots(home.path(), ws.path(), None),
            &options(true),
        );
        assert!(catalog.skills.is_empty(), "{:?}", catalog.skills);
        assert_eq!(catalog.warnings.len(), 2, "{:?}", catalog.warnings);
        assert!(catalog.warnings.iter().any(|w| w.contains("bad/SKILL.md")));
        assert!(catalog.warnings.iter().any(|w| w.contains("a link out of")));
    }

    #[test]
    fn a_skill_file_linking_out_of_its_root_never_reaches_the_index() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(
            outside.path().join(".env"),
            "OPENAI_API_KEY=sk-live-secret\n",
        )
        .unwrap();
        let dir = ws.path().join(".claude/skills/leak");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(outside.path().join(".env"), dir.join(SKILL_FILE)).unwrap();
        let catalog = discover(
            &standard_roots(home.path(), ws.path(), None),
            &options(true),
        );
        assert!(catalog.skills.is_empty(), "{:?}", catalog.skills);
        assert!(
            catalog.warnings[0].contains("leads out of"),
            "{:?}",
            catalog.warnings
        );
        assert!(!format!("{catalog:?}").contains("sk-live-secret"));
        // A folder swapped for a link after discovery is not read either.
        skill(
            &ws.path().join(".reasonix/skills"),
            "ok",
            "description: fine",
        );
        let found = discover(
            &standard_roots(home.path(), ws.path(), None),
            &options(true),
        );
        let ok = found.get("ok").unwrap().clone();
        std::fs::remove_dir_all(&ok.dir).unwrap();
        std::os::unix::fs::symlink(outside.path(), &ok.dir).unwrap();
        assert!(ok.body().unwrap_err().contains("now leads to"));
    }

    #[test]
    fn a_project_path_outside_the_workspace_is_refused() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        skill(outside.path(), "x", "description: X");
        let root = Root {
            within: Some(ws.path().to_path_buf()),
            ..Root::new(outside.path().to_path_buf(), Scope::Custom)
        };
        let catalog = discover(&[root], &options(true));
        assert!(catalog.skills.is_empty());
        assert!(catalog.warnings[0].contains("must stay inside the workspace"));
    }

    #[test]
    fn a_package_root_namespaces_its_skills() {
        let pkg = tempfile::tempdir().unwrap();
        skill(&pkg.path().join("skills"), "lint", "description: L");
        let root = Root {
            namespace: Some("tools".into()),
            ..Root::new(pkg.path().join("skills"), Scope::Package)
        };
        let catalog = discover(&[root], &options(true));
        assert!(catalog.get("tools:lint").is_some());
        assert!(
            catalog
                .invoked("/tools:lint now")
                .is_some_and(|(_, a)| a == "now")
        );
    }
}
