//! No import cycle between the top-level modules of any crate of the workspace (non-test code).
//! A cycle means two parts of a crate that cannot be understood, tested or moved apart; the
//! session-runtime split (issue #27) needs every crate layered. Plugins (components with one
//! job each), fuzz targets and test crates are not checked.
//!
//! Each source file is read as text: comments and string literals blanked, `#[cfg(test)]`
//! modules cut off, then every `use` path and every qualified path (`crate::a::b`,
//! `super::x`, `self::y`, `child::z`) resolved to the module file it names and folded to its
//! top-level module. A strongly connected set of top-level modules is a failure that names,
//! for every edge inside it, a file and the line that makes it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path inside a crate (`["agent_loop", "tools"]`); the crate root is empty.
type ModPath = Vec<String>;

/// Why a top-level module depends on another: the first file and line seen.
#[derive(Debug, Clone)]
struct Because {
    file: PathBuf,
    line: usize,
    text: String,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `src` directories of the checked crates.
fn crate_sources(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for group in ["kernel", "."] {
        let dir = root.join(group);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let src = path.join("src");
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if ["plugins", "tests", "fuzz", "target", "kernel"].contains(&name.as_str()) {
                continue;
            }
            if path.join("Cargo.toml").is_file()
                && (src.join("lib.rs").is_file() || src.join("main.rs").is_file())
            {
                out.push(src);
            }
        }
    }
    out.sort();
    out
}

/// Every non-test module file of a crate, by module path.
fn module_files(src: &Path) -> BTreeMap<ModPath, PathBuf> {
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

fn walk(src: &Path, dir: &Path, out: &mut BTreeMap<ModPath, PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(src, &path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(src).unwrap().with_extension("");
        let mut parts: ModPath = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        if parts.iter().any(|p| p == "tests" || p.ends_with("_tests")) {
            continue;
        }
        out.insert(parts, path);
    }
}

/// `text` with comments and string/char literals blanked (newlines kept, so offsets keep their
/// line numbers).
fn blank_comments_and_strings(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let blank = |b: u8| if b == b'\n' { b'\n' } else { b' ' };
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend([b' ', b' ']);
                    i += 2;
                } else if bytes[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend([b' ', b' ']);
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(bytes[i]));
                    i += 1;
                }
            }
        } else if rest.starts_with(b"r#\"")
            || rest.starts_with(b"r\"")
            || rest.starts_with(b"r##\"")
        {
            let hashes = rest[1..].iter().take_while(|b| **b == b'#').count();
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let open = 2 + hashes;
            out.extend(std::iter::repeat_n(b' ', open));
            i += open;
            while i < bytes.len() && !bytes[i..].starts_with(&close) {
                out.push(blank(bytes[i]));
                i += 1;
            }
            let end = close.len().min(bytes.len() - i);
            out.extend(std::iter::repeat_n(b' ', end));
            i += end;
        } else if bytes[i] == b'"' {
            out.push(b' ');
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                if bytes[i] == b'\\' && i + 1 < bytes.len() {
                    out.push(b' ');
                    i += 1;
                }
                out.push(blank(bytes[i]));
                i += 1;
            }
            out.push(b' ');
            i += 1;
        } else if bytes[i] == b'\''
            && (rest.get(2) == Some(&b'\'') || (rest.get(1) == Some(&b'\\')))
        {
            // A char literal ('x', '\n', '\u{1F600}'), not a lifetime.
            let end = rest[1..]
                .iter()
                .position(|b| *b == b'\'')
                .map_or(1, |p| p + 2);
            out.extend(std::iter::repeat_n(b' ', end));
            i += end;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` up to its first `#[cfg(test)]` module (a crate's tests sit at the end of a file).
fn without_test_module(text: &str) -> &str {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut offset = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]")
            && lines[i + 1..].iter().take(3).any(|next| {
                let t = next.trim_start();
                let t = t
                    .strip_prefix("pub(crate) ")
                    .or_else(|| t.strip_prefix("pub "))
                    .unwrap_or(t);
                t.starts_with("mod ")
            })
        {
            return &text[..offset];
        }
        offset += line.len();
    }
    text
}

/// The paths a `use` tree names: `a::{b, c::{d, e}}` is `a::b`, `a::c::d`, `a::c::e`.
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    fn go(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if tree.is_empty() {
            return;
        }
        let Some(open) = tree.find('{') else {
            let path = tree.split(" as ").next().unwrap_or(tree);
            let mut full = prefix.to_vec();
            full.extend(
                path.split("::")
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(String::from),
            );
            out.push(full);
            return;
        };
        let mut head = prefix.to_vec();
        head.extend(
            tree[..open]
                .trim_end_matches(':')
                .split("::")
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(String::from),
        );
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    go(&head, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        go(&head, &inner[start..], out);
    }
    let mut out = Vec::new();
    go(&[], tree, &mut out);
    out
}

/// Every path the code names, with its byte offset: `use` trees and qualified paths.
fn named_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) || (i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        let word = &code[start..i];
        if word == "use" {
            if let Some(end) = code[i..].find(';') {
                for path in expand_use(&code[i..i + end]) {
                    out.push((start, path));
                }
                i += end;
            }
            continue;
        }
        // A qualified path: word(::word)+
        let mut path = vec![word.to_string()];
        let mut j = i;
        while code[j..].starts_with("::") {
            let seg_start = j + 2;
            let mut k = seg_start;
            while k < bytes.len() && is_ident(bytes[k]) {
                k += 1;
            }
            if k == seg_start {
                break;
            }
            path.push(code[seg_start..k].to_string());
            j = k;
        }
        if path.len() > 1 {
            out.push((start, path));
            i = j;
        }
    }
    out
}

/// The module a path from module `current` names, if it is one of this crate's.
fn resolve(
    modules: &BTreeMap<ModPath, PathBuf>,
    current: &ModPath,
    path: &[String],
) -> Option<ModPath> {
    let first = path.first()?;
    let mut child = current.clone();
    child.push(first.clone());
    let full: Vec<String> = if first == "crate" {
        path[1..].to_vec()
    } else if modules.contains_key(&child) {
        current.iter().chain(path).cloned().collect()
    } else if first == "super" {
        let mut base = current.clone();
        let mut rest = path;
        while rest.first().is_some_and(|p| p == "super") {
            base.pop();
            rest = &rest[1..];
        }
        base.into_iter().chain(rest.iter().cloned()).collect()
    } else if first == "self" {
        current.iter().chain(&path[1..]).cloned().collect()
    } else {
        return None;
    };
    (1..=full.len())
        .rev()
        .map(|k| full[..k].to_vec())
        .find(|candidate| modules.contains_key(candidate))
}

/// Edges between top-level modules of one crate, each with why.
fn top_level_edges(src: &Path) -> BTreeMap<String, BTreeMap<String, Because>> {
    let modules = module_files(src);
    let mut edges: BTreeMap<String, BTreeMap<String, Because>> = BTreeMap::new();
    for (module, file) in &modules {
        let Some(top) = module.first() else { continue };
        let text = std::fs::read_to_string(file).unwrap();
        let code = blank_comments_and_strings(without_test_module(&text));
        for (offset, path) in named_paths(&code) {
            let Some(target) = resolve(&modules, module, &path) else {
                continue;
            };
            let Some(target_top) = target.first() else {
                continue;
            };
            if target_top == top {
                continue;
            }
            let line = code[..offset].matches('\n').count();
            edges
                .entry(top.clone())
                .or_default()
                .entry(target_top.clone())
                .or_insert_with(|| Because {
                    file: file.clone(),
                    line: line + 1,
                    text: text.lines().nth(line).unwrap_or("").trim().to_string(),
                });
        }
    }
    edges
}

/// The strongly connected sets of more than one module (Tarjan).
fn cycles(edges: &BTreeMap<String, BTreeMap<String, Because>>) -> Vec<BTreeSet<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, Because>>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on_stack: BTreeSet<String>,
        found: Vec<BTreeSet<String>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: &str) {
            let n = self.index.len();
            self.index.insert(v.to_string(), n);
            self.low.insert(v.to_string(), n);
            self.stack.push(v.to_string());
            self.on_stack.insert(v.to_string());
            let targets: Vec<String> = self
                .edges
                .get(v)
                .map(|t| t.keys().cloned().collect())
                .unwrap_or_default();
            for w in targets {
                if !self.index.contains_key(&w) {
                    self.visit(&w);
                    let low = self.low[v].min(self.low[&w]);
                    self.low.insert(v.to_string(), low);
                } else if self.on_stack.contains(&w) {
                    let low = self.low[v].min(self.index[&w]);
                    self.low.insert(v.to_string(), low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut set = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(&w);
                    let done = w == v;
                    set.insert(w);
                    if done {
                        break;
                    }
                }
                if set.len() > 1 {
                    self.found.push(set);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    let nodes: BTreeSet<&String> = edges
        .iter()
        .flat_map(|(a, targets)| std::iter::once(a).chain(targets.keys()))
        .collect();
    for node in nodes {
        if !t.index.contains_key(node) {
            t.visit(node);
        }
    }
    t.found
}

/// One report per cycle of the crate at `src`, naming each closing edge's file and line.
fn reports(src: &Path) -> Vec<String> {
    let edges = top_level_edges(src);
    cycles(&edges)
        .into_iter()
        .map(|set| {
            let mut text = format!(
                "{}: modules {{{}}} form a cycle:",
                src.display(),
                set.iter().cloned().collect::<Vec<_>>().join(", ")
            );
            for a in &set {
                for (b, because) in &edges[a] {
                    if set.contains(b) {
                        text.push_str(&format!(
                            "\n    {a} -> {b}: {}:{}: {}",
                            because.file.display(),
                            because.line,
                            because.text
                        ));
                    }
                }
            }
            text
        })
        .collect()
}

#[test]
fn no_crate_has_a_cycle_between_its_top_level_modules() {
    let sources = crate_sources(&workspace_root());
    assert!(
        sources.len() >= 6,
        "found the workspace's crates: {sources:?}"
    );
    let found: Vec<String> = sources.iter().flat_map(|src| reports(src)).collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn a_planted_cycle_is_found_and_named() {
    let dir = tempfile_dir();
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("b")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    // a -> b through a `use` tree, b -> c through a qualified path in a submodule, c -> a
    // through `super`; a comment, a string and a test module naming `crate::c` do not count.
    std::fs::write(
        src.join("a.rs"),
        "use crate::{b::{inner::Thing}, other};\n// crate::c::x\nconst S: &str = \"crate::c::y\";\n#[cfg(test)]\nmod tests {\n    use crate::c::Z;\n}\n",
    )
    .unwrap();
    std::fs::write(src.join("b/mod.rs"), "pub mod inner;\n").unwrap();
    std::fs::write(src.join("b/inner.rs"), "pub struct Thing(crate::c::Z);\n").unwrap();
    std::fs::write(
        src.join("c.rs"),
        "pub struct Z;\nfn f() { super::a::g(); }\n",
    )
    .unwrap();
    let found = reports(&src);
    assert_eq!(found.len(), 1, "{found:?}");
    let report = &found[0];
    assert!(report.contains("modules {a, b, c}"), "{report}");
    assert!(
        report.contains("a -> b: ")
            && report.contains("a.rs:1: use crate::{b::{inner::Thing}, other};"),
        "{report}"
    );
    assert!(
        report.contains("b -> c: ")
            && report.contains("inner.rs:1: pub struct Thing(crate::c::Z);"),
        "{report}"
    );
    assert!(
        report.contains("c -> a: ") && report.contains("c.rs:2:"),
        "{report}"
    );
    assert!(
        !report.contains("a -> c"),
        "comments, strings and tests count: {report}"
    );
    // Break it: without b's dependency there is no cycle.
    std::fs::write(src.join("b/inner.rs"), "pub struct Thing;\n").unwrap();
    assert!(reports(&src).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory under the target's temp area.
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "reasonix-module-cycles-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
