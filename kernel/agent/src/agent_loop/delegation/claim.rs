//! Write claims: the parts of the workspace a writer child may change. Writers that run at
//! the same time hold claims that do not overlap, so two children never edit one file; a
//! write outside the writer's own claim is refused before it runs.

use reasonix_core::lexical_path::normalize;
use std::path::{Path, PathBuf};

/// Absolute, lexically normal paths (directories or files) a writer may change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    roots: Vec<PathBuf>,
    /// As the model wrote them, for messages.
    shown: Vec<String>,
}

impl Claim {
    /// The whole workspace (a writer that named no `write_paths`).
    pub fn workspace(workspace: &Path) -> Claim {
        Claim {
            roots: vec![normalize(workspace)],
            shown: vec!["the whole workspace".to_string()],
        }
    }

    /// `paths`, relative to `workspace` (or absolute inside it), inside `within` when the
    /// claimant is itself a claimed child. Paths outside either are refused, naming them.
    pub fn of(paths: &[String], workspace: &Path, within: Option<&Claim>) -> Result<Claim, String> {
        if paths.is_empty() {
            return Err(
                "`write_paths` is empty; name the files or directories the task may change, or leave it out to claim the whole workspace".into(),
            );
        }
        let workspace = normalize(workspace);
        let mut roots = Vec::new();
        for text in paths {
            let trimmed = text.trim();
            if trimmed.is_empty() {
                return Err("`write_paths` has an empty entry".into());
            }
            let path = normalize(&workspace.join(trimmed));
            if !path.starts_with(&workspace) {
                return Err(format!(
                    "`write_paths` entry `{trimmed}` is outside the workspace"
                ));
            }
            if let Some(parent) = within
                && !parent.covers(&path)
            {
                return Err(format!(
                    "`write_paths` entry `{trimmed}` is outside this agent's own claim ({}); a sub-agent can only claim part of it",
                    parent.describe()
                ));
            }
            roots.push(path);
        }
        Ok(Claim {
            roots,
            shown: paths.iter().map(|p| p.trim().to_string()).collect(),
        })
    }

    /// Whether `path` (absolute, normal) is inside the claim.
    pub fn covers(&self, path: &Path) -> bool {
        self.roots.iter().any(|root| path.starts_with(root))
    }

    /// Whether the two claims share a path: one holds a path inside (or equal to) the other's.
    pub fn overlaps(&self, other: &Claim) -> bool {
        self.roots.iter().any(|a| {
            other
                .roots
                .iter()
                .any(|b| a.starts_with(b) || b.starts_with(a))
        })
    }

    /// The claim as the model wrote it.
    pub fn describe(&self) -> String {
        self.shown
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
            .replace("`the whole workspace`", "the whole workspace")
    }

    /// The first path among a writer's path arguments (`path`, `*_path`) that lies outside the
    /// claim, as the model wrote it. A path is judged where it really leads: a symlink inside
    /// the claim that points outside it is outside.
    pub fn outside(&self, args: &serde_json::Value, workspace: &Path) -> Option<String> {
        let object = args.as_object()?;
        object
            .iter()
            .filter(|(key, _)| *key == "path" || key.ends_with("_path"))
            .filter_map(|(_, value)| value.as_str())
            .find(|text| {
                let lexical = normalize(&workspace.join(text));
                !self.covers(&lexical) || !self.covers_really(&lexical, workspace)
            })
            .map(str::to_string)
    }

    /// `path` with its longest existing ancestor resolved through symlinks is still inside.
    fn covers_really(&self, path: &Path, workspace: &Path) -> bool {
        let real_workspace = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.into());
        let mut existing = path.to_path_buf();
        let mut rest = Vec::new();
        while !existing.exists() && std::fs::symlink_metadata(&existing).is_err() {
            match (existing.file_name(), existing.parent()) {
                (Some(name), Some(parent)) => {
                    rest.push(name.to_os_string());
                    existing = parent.to_path_buf();
                }
                _ => return true,
            }
        }
        let Ok(mut real) = std::fs::canonicalize(&existing) else {
            // A dangling link: where it points is unknown, so it is not inside.
            return false;
        };
        for part in rest.iter().rev() {
            real.push(part);
        }
        // Claims are lexical paths under the workspace as given; compare against the same
        // roots moved onto the real workspace.
        let relative = match real.strip_prefix(&real_workspace) {
            Ok(relative) => relative.to_path_buf(),
            Err(_) => return false,
        };
        self.covers(&normalize(&workspace.join(relative)))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ws() -> PathBuf {
        PathBuf::from("/w")
    }

    #[test]
    fn claims_overlap_when_one_holds_the_other() {
        let src = Claim::of(&["src/".into()], &ws(), None).unwrap();
        let lib = Claim::of(&["src/lib.rs".into()], &ws(), None).unwrap();
        let docs = Claim::of(&["docs".into()], &ws(), None).unwrap();
        let srcx = Claim::of(&["srcx".into()], &ws(), None).unwrap();
        assert!(src.overlaps(&lib) && lib.overlaps(&src));
        assert!(!src.overlaps(&docs));
        // `srcx` is not inside `src`: components, not string prefixes.
        assert!(!src.overlaps(&srcx));
        assert!(Claim::workspace(&ws()).overlaps(&docs));
    }

    #[test]
    fn a_claim_outside_the_workspace_or_the_parents_is_refused() {
        assert!(
            Claim::of(&["../etc".into()], &ws(), None)
                .unwrap_err()
                .contains("outside the workspace")
        );
        let parent = Claim::of(&["src".into()], &ws(), None).unwrap();
        assert!(Claim::of(&["src/a".into()], &ws(), Some(&parent)).is_ok());
        let err = Claim::of(&["docs".into()], &ws(), Some(&parent)).unwrap_err();
        assert!(
            err.contains("outside this agent's own claim (`src`)"),
            "{err}"
        );
        assert!(Claim::of(&[], &ws(), None).is_err());
    }

    #[test]
    fn a_write_outside_the_claim_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(workspace.join("src")).unwrap();
        let claim = Claim::of(&["src/".into()], &workspace, None).unwrap();
        let inside = serde_json::json!({"path": "src/new/a.rs"});
        assert_eq!(claim.outside(&inside, &workspace), None);
        let outside = serde_json::json!({"path": "README.md"});
        assert_eq!(
            claim.outside(&outside, &workspace).as_deref(),
            Some("README.md")
        );
        let sneaky = serde_json::json!({"path": "src/../README.md"});
        assert!(claim.outside(&sneaky, &workspace).is_some());
        let moved = serde_json::json!({"source_path": "src/a.rs", "destination_path": "b.rs"});
        assert_eq!(claim.outside(&moved, &workspace).as_deref(), Some("b.rs"));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_inside_the_claim_that_leads_out_is_outside() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(workspace.join("src")).unwrap();
        std::fs::create_dir_all(workspace.join("docs")).unwrap();
        std::os::unix::fs::symlink(workspace.join("docs"), workspace.join("src/docs")).unwrap();
        let claim = Claim::of(&["src".into()], &workspace, None).unwrap();
        let through = serde_json::json!({"path": "src/docs/x.md"});
        assert_eq!(
            claim.outside(&through, &workspace).as_deref(),
            Some("src/docs/x.md")
        );
    }
}
