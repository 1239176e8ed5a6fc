//! `glob`: find files and directories in the workspace by path pattern.
//!
//! Patterns are matched with `globset` against paths relative to the workspace root, `/`
//! separated: `*` and `?` stay within one path component, `**` spans any number of them, `[...]`
//! is a character class and `{a,b}` an alternation. The walk ([`crate::walk`] with its filters
//! off) starts at the pattern's literal leading directories, skips the noise directories `ls`
//! skips and every `forbid_read` root.

use std::ops::ControlFlow;
use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use reasonix_sdk::{CallContext, Error, Tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::ls::SKIPPED;
use crate::paths;
use crate::policy::Policy;
use crate::walk::{self, Kind, Options};

/// Tool name.
pub const NAME: &str = "glob";
/// Most results shown before the output is cut.
pub const MAX_RESULTS: usize = 1000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Glob pattern relative to the workspace root, e.g. "src/**/*.rs" or "*.md".
    pattern: String,
}

/// The `glob` tool.
pub struct Glob;

impl Tool for Glob {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = true;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/glob.json"));

    fn description() -> String {
        "Find files and directories in the workspace whose path matches a glob pattern, e.g. \
         `src/**/*.rs`, `*.toml`, `tests/test_?.py`, `docs/[A-Z]*.md`. Patterns are relative to \
         the workspace root and use `/`: `*` and `?` match within one path component, `**` \
         matches any number of directories, `[...]` is a character class and `{a,b}` an \
         alternation. A bare file name pattern (no `/`) that matches nothing at the root is \
         retried as `**/<pattern>`, so `Cargo.toml` finds every Cargo.toml. Results are sorted \
         paths relative to the workspace root, directories ending with `/`; at most 1000 are \
         shown, then `... (truncated at 1000 results)` — use a more specific pattern to see the \
         rest. .git, node_modules, __pycache__, .idea, .vscode and .DS_Store are not searched. \
         Use grep to search file contents."
            .into()
    }

    fn guidance() -> Option<String> {
        Some("Find files by name with `glob` (e.g. `src/**/*.rs`).".into())
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let workspace = paths::normalize(Path::new(&cx.workspace));
        // Refuses an unusable workspace the same way the other readers do.
        paths::resolve(&cx.workspace, ".")?;
        let policy = Policy::current(&cx.workspace);
        find(&args.pattern, &workspace, &policy)
    }
}

/// Find the paths under `workspace` matching `pattern`, formatted for the model.
pub fn find(pattern: &str, workspace: &Path, policy: &Policy) -> Result<String, Error> {
    let relative = relative_pattern(pattern, workspace)?;
    let mut found = matches(&relative, workspace, policy)?;
    if found.is_empty() && is_bare(&relative) {
        found = matches(&format!("**/{relative}"), workspace, policy)?;
    }
    if found.is_empty() {
        return Ok(format!("(no paths match {pattern:?})"));
    }
    found.sort();
    let truncated = found.len() > MAX_RESULTS;
    found.truncate(MAX_RESULTS);
    let mut out = found.join("\n");
    if truncated {
        out.push_str(&format!("\n... (truncated at {MAX_RESULTS} results)"));
    }
    Ok(out)
}

/// `pattern` made relative to the workspace: `./` dropped, an absolute pattern inside the
/// workspace stripped of it; `..` and patterns outside the workspace are refused.
fn relative_pattern(pattern: &str, workspace: &Path) -> Result<String, Error> {
    if pattern.is_empty() {
        return Err(Error::InvalidInput(format!(
            "{NAME}: `pattern` must not be empty; use e.g. \"**/*.rs\""
        )));
    }
    let mut rel = pattern.to_string();
    if Path::new(pattern).is_absolute() {
        let ws = workspace.to_string_lossy();
        let ws = ws.trim_end_matches('/');
        rel = match pattern.strip_prefix(ws) {
            Some("") => String::new(),
            Some(rest) if rest.starts_with('/') => rest.trim_start_matches('/').to_string(),
            _ => {
                return Err(Error::Denied(format!(
                    "pattern {pattern} is outside the workspace {}; glob patterns are relative \
                     to the workspace root",
                    workspace.display()
                )));
            }
        };
    }
    while let Some(rest) = rel.strip_prefix("./") {
        rel = rest.to_string();
    }
    // `src/` means the directory `src`; matches are compared without a trailing slash.
    while rel.len() > 1 && rel.ends_with('/') {
        rel.pop();
    }
    if rel.split('/').any(|part| part == "..") {
        return Err(Error::Denied(format!(
            "pattern {pattern} climbs out of the workspace with `..`; glob patterns are relative \
             to the workspace root"
        )));
    }
    if rel.is_empty() || rel == "." {
        return Err(Error::InvalidInput(format!(
            "{NAME}: pattern {pattern:?} names only the workspace root; use e.g. \"*\" or \"**/*\""
        )));
    }
    Ok(rel)
}

/// A pattern with no directory part.
fn is_bare(pattern: &str) -> bool {
    !pattern.contains('/')
}

/// Whether one `/`-separated part of a pattern contains glob syntax.
fn has_meta(part: &str) -> bool {
    part.contains(['*', '?', '[', ']', '{', '}', '\\'])
}

/// Every path under `workspace` matching the relative `pattern` (unsorted).
fn matches(pattern: &str, workspace: &Path, policy: &Policy) -> Result<Vec<String>, Error> {
    let matcher = compile(pattern)?;
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    // Walk from the literal leading directories; the last part is always matched.
    let literal = parts
        .iter()
        .take(parts.len().saturating_sub(1))
        .take_while(|p| !has_meta(p))
        .count();
    let mut root = workspace.to_path_buf();
    for part in parts.iter().take(literal) {
        root.push(part);
    }
    let max_depth = if parts.iter().any(|p| p.contains("**")) {
        None
    } else {
        Some(parts.len() - literal)
    };
    if policy.hides(&root) || !root.is_dir() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    let walk_policy = policy.below(&root);
    walk::walk(
        &walk::host_fs(),
        workspace,
        &root,
        Options {
            standard_filters: false,
            max_depth,
        },
        &mut |entry| {
            let name = entry.name.to_string_lossy();
            !SKIPPED.contains(&name.as_ref()) && !walk_policy.forbids(&entry.path)
        },
        &mut |entry| {
            if entry.depth == 0 {
                return ControlFlow::Continue(());
            }
            let Some(rel) = relative(&entry.path, workspace) else {
                return ControlFlow::Continue(());
            };
            // A link into a forbidden root is as invisible as the root itself.
            if matcher.is_match(&rel) && !(entry.kind == Kind::Symlink && policy.hides(&entry.path))
            {
                found.push(if entry.kind == Kind::Dir {
                    format!("{rel}/")
                } else {
                    rel
                });
            }
            ControlFlow::Continue(())
        },
    );
    Ok(found)
}

fn compile(pattern: &str) -> Result<GlobMatcher, Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| Error::InvalidInput(format!("{NAME}: invalid pattern {pattern:?}: {e}")))
}

/// `path` relative to `workspace`, `/`-separated.
fn relative(path: &Path, workspace: &Path) -> Option<String> {
    let rel: PathBuf = path.strip_prefix(workspace).ok()?.to_path_buf();
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    Some(parts.join("/"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::fs;

    struct Ws {
        dir: tempfile::TempDir,
    }

    impl Ws {
        fn new() -> Self {
            Ws {
                dir: tempfile::tempdir().unwrap(),
            }
        }
        fn root(&self) -> &Path {
            self.dir.path()
        }
        fn put(&self, name: &str) {
            let p = self.root().join(name);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, b"x").unwrap();
        }
        fn glob(&self, pattern: &str) -> Result<String, Error> {
            let cx = CallContext {
                call_id: "t".to_string(),
                workspace: self.root().to_string_lossy().into_owned(),
            };
            reasonix_sdk::tool::invoke::<Glob>(&json!({ "pattern": pattern }).to_string(), &cx)
        }
        fn ok(&self, pattern: &str) -> String {
            match self.glob(pattern) {
                Ok(s) => s,
                Err(e) => panic!("glob {pattern} failed: {e:?}"),
            }
        }
    }

    fn tree() -> Ws {
        let ws = Ws::new();
        for f in [
            "Cargo.toml",
            "src/main.rs",
            "src/lib.rs",
            "src/util/mod.rs",
            "src/util/io.rs",
            "tests/test_a.py",
            "tests/test_b.py",
            "tests/test_10.py",
            "docs/Guide.md",
            "docs/api.md",
            "crates/x/Cargo.toml",
            ".github/workflows/ci.yml",
            ".git/config",
            "node_modules/m/Cargo.toml",
        ] {
            ws.put(f);
        }
        ws
    }

    #[test]
    fn star_question_class_and_double_star() {
        let ws = tree();
        assert_eq!(ws.ok("src/*.rs"), "src/lib.rs\nsrc/main.rs");
        assert_eq!(
            ws.ok("src/**/*.rs"),
            "src/lib.rs\nsrc/main.rs\nsrc/util/io.rs\nsrc/util/mod.rs"
        );
        assert_eq!(ws.ok("tests/test_?.py"), "tests/test_a.py\ntests/test_b.py");
        assert_eq!(ws.ok("docs/[A-Z]*.md"), "docs/Guide.md");
        assert_eq!(ws.ok("src/*"), "src/lib.rs\nsrc/main.rs\nsrc/util/");
        assert_eq!(ws.ok("**/*.yml"), ".github/workflows/ci.yml");
        assert_eq!(ws.ok("./src/util/mod.rs"), "src/util/mod.rs");
        assert_eq!(ws.ok("src/util/"), "src/util/");
        let abs = format!("{}/docs/*.md", ws.root().display());
        assert_eq!(ws.ok(&abs), "docs/Guide.md\ndocs/api.md");
    }

    #[test]
    fn bare_name_is_retried_recursively_and_noise_is_skipped() {
        let ws = tree();
        // Matches at the root: no retry.
        assert_eq!(ws.ok("Cargo.toml"), "Cargo.toml");
        assert_eq!(ws.ok("mod.rs"), "src/util/mod.rs");
        assert_eq!(ws.ok("*.md"), "docs/Guide.md\ndocs/api.md");
        assert_eq!(ws.ok("config"), "(no paths match \"config\")");
        assert_eq!(ws.ok("nothing/*.rs"), "(no paths match \"nothing/*.rs\")");
    }

    #[test]
    fn caps_at_1000_results() {
        let ws = Ws::new();
        fs::create_dir_all(ws.root().join("many")).unwrap();
        for i in 0..1005 {
            fs::write(ws.root().join(format!("many/f{i:04}.txt")), b"").unwrap();
        }
        let out = ws.ok("many/*.txt");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), MAX_RESULTS + 1);
        assert_eq!(lines[0], "many/f0000.txt");
        assert_eq!(lines[MAX_RESULTS - 1], "many/f0999.txt");
        assert_eq!(lines[MAX_RESULTS], "... (truncated at 1000 results)");
        fs::remove_file(ws.root().join("many/f1004.txt")).unwrap();
        fs::remove_file(ws.root().join("many/f1003.txt")).unwrap();
        fs::remove_file(ws.root().join("many/f1002.txt")).unwrap();
        fs::remove_file(ws.root().join("many/f1001.txt")).unwrap();
        fs::remove_file(ws.root().join("many/f1000.txt")).unwrap();
        let out = ws.ok("many/*.txt");
        assert_eq!(out.lines().count(), MAX_RESULTS);
        assert!(!out.contains("truncated"));
    }

    #[test]
    fn forbidden_roots_are_invisible() {
        let ws = tree();
        ws.put("secret/key.txt");
        let policy = Policy::forbidding(&[&ws.root().join("secret")]);
        let root = ws.root();
        assert_eq!(
            find("**/key.txt", root, &policy).unwrap(),
            "(no paths match \"**/key.txt\")"
        );
        assert_eq!(
            find("secret/*", root, &policy).unwrap(),
            "(no paths match \"secret/*\")"
        );
        assert!(!find("*", root, &policy).unwrap().contains("secret"));
        assert_eq!(ws.ok("secret/*"), "secret/key.txt");
    }

    #[test]
    fn errors() {
        let ws = tree();
        match ws.glob("src/[a-") {
            Err(Error::InvalidInput(m)) => {
                assert!(m.starts_with("glob: invalid pattern \"src/[a-\":"), "{m}");
            }
            other => panic!("unexpected {other:?}"),
        }
        for p in ["../*", "/etc/*", "src/../../x"] {
            match ws.glob(p) {
                Err(Error::Denied(m)) => assert!(m.contains("workspace"), "{m}"),
                other => panic!("{p}: unexpected {other:?}"),
            }
        }
        assert!(matches!(ws.glob(""), Err(Error::InvalidInput(_))));
        assert!(matches!(ws.glob("."), Err(Error::InvalidInput(_))));
    }
}
