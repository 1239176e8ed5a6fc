//! `ls`: list a directory, optionally recursively.

use std::fs;
use std::path::Path;

use reasonix_sdk::{CallContext, Error, Tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::paths::{self, io_error};
use crate::policy::Policy;

/// Tool name.
pub const NAME: &str = "ls";
/// Most entries listed before the output is cut.
pub const MAX_ENTRIES: usize = 5000;
/// Deepest level a recursive listing descends to (the listed directory's children are level 1).
pub const MAX_DEPTH: usize = 50;
/// Names a recursive listing leaves out entirely.
pub const SKIPPED: &[&str] = &[
    ".git",
    "node_modules",
    ".DS_Store",
    "__pycache__",
    ".idea",
    ".vscode",
];

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("required" = []))]
pub struct Args {
    /// Directory to list, relative to the workspace root (or absolute inside the workspace).
    /// Default "." (the workspace root).
    path: Option<String>,
    /// List subdirectories too, depth-first. Default false.
    recursive: Option<bool>,
}

/// The `ls` tool.
pub struct Ls;

impl Tool for Ls {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = true;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/ls.json"));

    fn description() -> String {
        "List a directory in the workspace, sorted by name. Subdirectories end with `/`; files \
         are shown as `name<TAB>size in bytes`. With `recursive: true` the whole tree is listed \
         depth-first, each entry shown with its path relative to the listed directory, leaving \
         out .git, node_modules, __pycache__, .idea, .vscode and .DS_Store; recursion stops 50 \
         levels deep, symlinked directories are shown but not entered, and the output stops \
         after 5000 entries. Listing a file shows just that file. Use read_file to see a file's \
         content."
            .into()
    }

    fn guidance() -> Option<String> {
        Some(
            "List directories with `ls` to find your way, rather than opening files one by one."
                .into(),
        )
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let path = args.path.as_deref().unwrap_or(".");
        let resolved = paths::resolve(&cx.workspace, path)?;
        list(
            &resolved.abs,
            &resolved.display,
            args.recursive.unwrap_or(false),
            &Policy::current(&cx.workspace),
        )
    }
}

/// List `path` (named `display` in messages); `forbid_read` roots of `policy` are invisible.
pub fn list(path: &Path, display: &str, recursive: bool, policy: &Policy) -> Result<String, Error> {
    policy.check(path, display)?;
    let meta = fs::metadata(path).map_err(|e| io_error("list", display, &e))?;
    if !meta.is_dir() {
        let name = path
            .file_name()
            .map_or_else(|| display.to_string(), |n| n.to_string_lossy().into_owned());
        return Ok(format!("{name}\t{}", meta.len()));
    }
    let entries = read_sorted(path, policy).map_err(|e| io_error("list", display, &e))?;
    let mut out = Listing {
        policy,
        lines: Vec::new(),
        truncated: false,
    };
    out.add_level(path, "", entries, recursive, 1);
    if out.lines.is_empty() {
        return Ok("(empty directory)".to_string());
    }
    if out.truncated {
        out.lines
            .push(format!("... (truncated at {MAX_ENTRIES} entries)"));
    }
    Ok(out.lines.join("\n"))
}

/// One directory entry.
struct Entry {
    name: String,
    kind: Kind,
}

enum Kind {
    /// A real directory (recursed into).
    Dir,
    /// A symlink to a directory (shown as a directory, never followed).
    DirLink,
    /// A file (or a link to one), with its size.
    File(u64),
    /// A symlink whose target does not exist.
    BrokenLink,
    /// A symlink pointing outside what this plugin may see.
    OutsideLink,
}

fn read_sorted(dir: &Path, policy: &Policy) -> std::io::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir)? {
        // One unreadable entry does not spoil the listing.
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        // Forbidden entries (or links into a forbidden root) do not exist for the listing.
        if !policy.is_empty()
            && (policy.forbids(&entry.path())
                || (file_type.is_symlink() && policy.hides(&entry.path())))
        {
            continue;
        }
        let kind = if file_type.is_dir() {
            Kind::Dir
        } else if file_type.is_symlink() {
            match fs::metadata(entry.path()) {
                Ok(m) if m.is_dir() => Kind::DirLink,
                Ok(m) => Kind::File(m.len()),
                Err(e) if paths::is_denied(&e) => Kind::OutsideLink,
                Err(_) => Kind::BrokenLink,
            }
        } else {
            Kind::File(entry.metadata().map(|m| m.len()).unwrap_or(0))
        };
        entries.push(Entry { name, kind });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

struct Listing<'p> {
    policy: &'p Policy,
    lines: Vec<String>,
    truncated: bool,
}

impl Listing<'_> {
    /// Add the entries of one directory (at `depth`, whose entries are shown prefixed with
    /// `prefix`), descending into subdirectories when `recursive`.
    fn add_level(
        &mut self,
        dir: &Path,
        prefix: &str,
        entries: Vec<Entry>,
        recursive: bool,
        depth: usize,
    ) {
        for entry in entries {
            if self.truncated {
                return;
            }
            if recursive && SKIPPED.contains(&entry.name.as_str()) {
                continue;
            }
            if self.lines.len() >= MAX_ENTRIES {
                self.truncated = true;
                return;
            }
            let rel = format!("{prefix}{}", entry.name);
            match entry.kind {
                Kind::Dir => {
                    self.lines.push(format!("{rel}/"));
                    if recursive && depth < MAX_DEPTH {
                        let child = dir.join(&entry.name);
                        // An unreadable subdirectory is shown but not expanded.
                        if let Ok(children) = read_sorted(&child, self.policy) {
                            self.add_level(&child, &format!("{rel}/"), children, true, depth + 1);
                        }
                    }
                }
                Kind::DirLink => self.lines.push(format!("{rel}/")),
                Kind::File(size) => self.lines.push(format!("{rel}\t{size}")),
                Kind::BrokenLink => self.lines.push(format!("{rel}\t(broken symlink)")),
                Kind::OutsideLink => self
                    .lines
                    .push(format!("{rel}\t(symlink leaving the workspace)")),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Ws {
        dir: tempfile::TempDir,
    }

    impl Ws {
        fn new() -> Self {
            Ws {
                dir: tempfile::tempdir().unwrap(),
            }
        }
        fn cx(&self) -> CallContext {
            CallContext {
                call_id: "t".to_string(),
                workspace: self.dir.path().to_string_lossy().into_owned(),
            }
        }
        fn put(&self, name: &str, bytes: &[u8]) {
            let p = self.dir.path().join(name);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, bytes).unwrap();
        }
        fn mkdir(&self, name: &str) {
            fs::create_dir_all(self.dir.path().join(name)).unwrap();
        }
        fn ls(&self, args: serde_json::Value) -> Result<String, Error> {
            reasonix_sdk::tool::invoke::<Ls>(&args.to_string(), &self.cx())
        }
        fn ok(&self, args: serde_json::Value) -> String {
            match self.ls(args) {
                Ok(s) => s,
                Err(e) => panic!("ls failed: {e:?}"),
            }
        }
    }

    #[test]
    fn lists_root_sorted_with_sizes_and_slashes() {
        let ws = Ws::new();
        ws.put("b.txt", b"12345");
        ws.put("a.rs", b"");
        ws.mkdir("src");
        ws.put("Z_upper", b"x");
        let out = ws.ok(json!({}));
        assert_eq!(out, "Z_upper\t1\na.rs\t0\nb.txt\t5\nsrc/");
        assert_eq!(ws.ok(json!({"path": "."})), out);
        assert_eq!(ws.ok(json!({"path": null, "recursive": null})), out);
    }

    #[test]
    fn non_recursive_shows_noise_names_but_not_their_content() {
        let ws = Ws::new();
        ws.put(".git/HEAD", b"ref");
        ws.put("node_modules/x/index.js", b"1");
        ws.put(".DS_Store", b"junk");
        assert_eq!(ws.ok(json!({})), ".DS_Store\t4\n.git/\nnode_modules/");
    }

    #[test]
    fn recursive_is_depth_first_with_relative_paths() {
        let ws = Ws::new();
        ws.put("src/main.rs", b"fn main(){}");
        ws.put("src/util/mod.rs", b"");
        ws.put("README.md", b"hi");
        ws.put("a/z.txt", b"zz");
        ws.mkdir("empty");
        let out = ws.ok(json!({"recursive": true}));
        assert_eq!(
            out,
            "README.md\t2\na/\na/z.txt\t2\nempty/\nsrc/\nsrc/main.rs\t11\nsrc/util/\nsrc/util/mod.rs\t0"
        );
        // Listing a subdirectory shows paths relative to it.
        assert_eq!(
            ws.ok(json!({"path": "src", "recursive": true})),
            "main.rs\t11\nutil/\nutil/mod.rs\t0"
        );
    }

    #[test]
    fn recursive_skips_noise() {
        let ws = Ws::new();
        for noise in [
            ".git/config",
            "node_modules/pkg/index.js",
            "sub/node_modules/deep.js",
            "__pycache__/m.pyc",
            ".idea/workspace.xml",
            ".vscode/settings.json",
            ".DS_Store",
            "sub/.DS_Store",
        ] {
            ws.put(noise, b"x");
        }
        ws.put("keep.py", b"k");
        let out = ws.ok(json!({"recursive": true}));
        assert_eq!(out, "keep.py\t1\nsub/");
    }

    #[test]
    fn empty_directory() {
        let ws = Ws::new();
        assert_eq!(ws.ok(json!({})), "(empty directory)");
        ws.mkdir("e");
        assert_eq!(
            ws.ok(json!({"path": "e", "recursive": true})),
            "(empty directory)"
        );
        // Only noise inside: empty for a recursive listing.
        ws.put("n/.git/x", b"");
        assert_eq!(
            ws.ok(json!({"path": "n", "recursive": true})),
            "(empty directory)"
        );
    }

    #[test]
    fn listing_a_file_shows_that_file() {
        let ws = Ws::new();
        ws.put("dir/notes.md", b"abc");
        assert_eq!(ws.ok(json!({"path": "dir/notes.md"})), "notes.md\t3");
    }

    #[test]
    fn truncates_at_5000_entries() {
        let ws = Ws::new();
        ws.mkdir("many");
        for i in 0..5003 {
            fs::write(ws.dir.path().join(format!("many/f{i:05}")), b"").unwrap();
        }
        let out = ws.ok(json!({"path": "many"}));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), MAX_ENTRIES + 1);
        assert_eq!(lines[0], "f00000\t0");
        assert_eq!(lines[MAX_ENTRIES - 1], "f04999\t0");
        assert_eq!(lines[MAX_ENTRIES], "... (truncated at 5000 entries)");
        // Recursive listings count every level.
        let rec = ws.ok(json!({"recursive": true}));
        let lines: Vec<&str> = rec.lines().collect();
        assert_eq!(lines.len(), MAX_ENTRIES + 1);
        assert_eq!(lines[0], "many/");
        assert_eq!(lines[MAX_ENTRIES - 1], "many/f04998\t0");
        assert_eq!(lines[MAX_ENTRIES], "... (truncated at 5000 entries)");
    }

    #[test]
    fn exactly_5000_entries_is_not_truncated() {
        let ws = Ws::new();
        for i in 0..MAX_ENTRIES {
            fs::write(ws.dir.path().join(format!("f{i:05}")), b"").unwrap();
        }
        let out = ws.ok(json!({}));
        assert_eq!(out.lines().count(), MAX_ENTRIES);
        assert!(!out.contains("truncated"));
    }

    #[test]
    fn recursion_stops_at_depth_50() {
        let ws = Ws::new();
        let deep: Vec<String> = (1..=55).map(|i| format!("d{i}")).collect();
        ws.mkdir(&deep.join("/"));
        let out = ws.ok(json!({"recursive": true}));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), MAX_DEPTH);
        assert_eq!(
            lines[MAX_DEPTH - 1],
            format!("{}/", deep[..MAX_DEPTH].join("/"))
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_listed_but_not_followed() {
        use std::os::unix::fs::symlink;
        let ws = Ws::new();
        ws.put("real/f.txt", b"abc");
        symlink(ws.dir.path().join("real"), ws.dir.path().join("loop")).unwrap();
        symlink(
            ws.dir.path().join("real/f.txt"),
            ws.dir.path().join("flink"),
        )
        .unwrap();
        symlink(ws.dir.path().join("missing"), ws.dir.path().join("broken")).unwrap();
        let out = ws.ok(json!({"recursive": true}));
        assert_eq!(
            out,
            "broken\t(broken symlink)\nflink\t3\nloop/\nreal/\nreal/f.txt\t3"
        );
    }

    #[test]
    fn errors() {
        let ws = Ws::new();
        match ws.ls(json!({"path": "missing"})) {
            Err(Error::NotFound(m)) => assert_eq!(m, "no such file: missing"),
            other => panic!("unexpected {other:?}"),
        }
        for path in ["..", "/etc", "../../"] {
            match ws.ls(json!({"path": path})) {
                Err(Error::Denied(m)) => assert!(m.contains("outside the workspace"), "{m}"),
                other => panic!("{path}: unexpected {other:?}"),
            }
        }
        match ws.ls(json!({"recursive": "yes"})) {
            Err(Error::InvalidInput(_)) => {}
            other => panic!("unexpected {other:?}"),
        }
        match ws.ls(json!({"depth": 2})) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("`depth`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
    }
}
