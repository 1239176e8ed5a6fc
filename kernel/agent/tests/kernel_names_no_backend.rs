//! The kernel names no provider: what is particular to a backend (its kind, its vendor, its
//! hosts) lives in the provider component that serves it (ADR 0014). This test reads the
//! kernel's non-test Rust sources (`kernel/core/src`, `kernel/host/src`, `kernel/agent/src`, `kernel/config/src`;
//! `#[cfg(test)]` items, test-module files and `tests.rs` files are skipped) and fails naming
//! file:line for every word of [`BACKEND_WORDS`], a quoted `responses` kind, or a `.com` host.
//! Comments count: documentation that names a backend is backend knowledge too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Provider kinds and backend vendors, matched case-insensitively as whole words (`OpenAI-…`
/// matches, `openairline` would not).
const BACKEND_WORDS: &[&str] = &[
    "openai",
    "anthropic",
    "deepseek",
    "moonshot",
    "kimi",
    "ollama",
    "minimax",
    "glm",
];

/// Source roots of the kernel, relative to this crate (`kernel/agent`).
const ROOTS: &[&str] = &["../core/src", "src", "../config/src", "../host/src"];

#[test]
fn kernel_sources_name_no_backend() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = crate_dir.join("../..").canonicalize().unwrap();
    let mut files = Vec::new();
    for root in ROOTS {
        let root = crate_dir.join(root);
        assert!(root.is_dir(), "{} is missing", root.display());
        rust_files(&root.canonicalize().unwrap(), &mut files);
    }
    let skipped = test_module_files(&files);
    let mut hits = Vec::new();
    let mut scanned = 0;
    for file in &files {
        if skipped.contains(file) || file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        scanned += 1;
        let text = std::fs::read_to_string(file).unwrap();
        for (line_no, line) in non_test_lines(&text) {
            for word in backend_words(line) {
                hits.push(format!(
                    "{}:{line_no}: `{word}` in: {}",
                    file.strip_prefix(&repo).unwrap_or(file).display(),
                    line.trim()
                ));
            }
        }
    }
    assert!(scanned > 50, "only {scanned} kernel files were scanned");
    assert!(
        hits.is_empty(),
        "the kernel names a backend; move that knowledge into the provider component \
         (plugins/llm/src/backend.rs) or word it without the name:\n{}",
        hits.join("\n")
    );
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Files that are modules declared `#[cfg(test)] mod name;` (and everything below them).
fn test_module_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut dirs = Vec::new();
    let mut skipped = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.windows(2) {
            let next = pair[1].trim();
            if is_test_attribute(pair[0])
                && let Some(name) = next
                    .strip_prefix("mod ")
                    .or_else(|| next.strip_prefix("pub mod "))
                    .or_else(|| next.strip_prefix("pub(crate) mod "))
                    .and_then(|rest| rest.strip_suffix(';'))
            {
                let dir = module_dir(file);
                skipped.insert(dir.join(format!("{name}.rs")));
                dirs.push(dir.join(name));
            }
        }
    }
    for file in files {
        if dirs.iter().any(|d| file.starts_with(d)) {
            skipped.insert(file.clone());
        }
    }
    skipped
}

/// Where the child modules of `file` live.
fn module_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap().to_path_buf();
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("mod" | "lib" | "main") => parent,
        Some(stem) => parent.join(stem),
        None => parent,
    }
}

fn is_test_attribute(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("#[cfg(test)]") || line.starts_with("#[cfg(all(test")
}

/// The lines outside `#[cfg(test)]` items, numbered from 1. An item runs from its attribute to
/// the `}` that closes its first `{` (or to a `;` before any `{`); braces inside strings,
/// characters and comments do not count.
fn non_test_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut lexer = Lexer::default();
    // Some(depth) while inside a test item: the brace depth at which it ends; None before its
    // first `{`.
    let mut skipping: Option<Option<i64>> = None;
    for (index, line) in text.lines().enumerate() {
        if skipping.is_none() && is_test_attribute(line) && !lexer.in_literal() {
            skipping = Some(None);
        }
        let depth_before = lexer.depth;
        let events = lexer.feed(line);
        match skipping {
            None => out.push((index + 1, line)),
            Some(end) => {
                let mut end = end;
                let mut done = false;
                for event in events {
                    match (event, end) {
                        (Event::Open(depth), None) => end = Some(depth - 1),
                        (Event::Close(depth), Some(stop)) if depth == stop => done = true,
                        (Event::Semicolon(depth), None) if depth == depth_before => done = true,
                        _ => {}
                    }
                    if done {
                        break;
                    }
                }
                skipping = if done { None } else { Some(end) };
            }
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    /// A `{`; the depth after it.
    Open(i64),
    /// A `}`; the depth after it.
    Close(i64),
    /// A `;` at this depth.
    Semicolon(i64),
}

/// Just enough of Rust's lexical structure to count braces: comments, strings (also raw and
/// byte strings) and character literals are skipped.
#[derive(Default)]
struct Lexer {
    depth: i64,
    block_comments: u32,
    /// Inside a string literal, and which kind.
    string: Option<StringKind>,
}

#[derive(Clone, Copy)]
enum StringKind {
    Plain,
    Raw(usize),
}

impl Lexer {
    fn in_literal(&self) -> bool {
        self.block_comments > 0 || self.string.is_some()
    }

    fn feed(&mut self, line: &str) -> Vec<Event> {
        let chars: Vec<char> = line.chars().collect();
        let mut events = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            if self.block_comments > 0 {
                if c == '*' && next == Some('/') {
                    self.block_comments -= 1;
                    i += 2;
                } else if c == '/' && next == Some('*') {
                    self.block_comments += 1;
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            match self.string {
                Some(StringKind::Plain) => {
                    if c == '\\' {
                        i += 2;
                    } else {
                        if c == '"' {
                            self.string = None;
                        }
                        i += 1;
                    }
                    continue;
                }
                Some(StringKind::Raw(hashes)) => {
                    if c == '"'
                        && chars[i + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|h| **h == '#')
                            .count()
                            == hashes
                    {
                        self.string = None;
                        i += 1 + hashes;
                    } else {
                        i += 1;
                    }
                    continue;
                }
                None => {}
            }
            match c {
                '/' if next == Some('/') => break,
                '/' if next == Some('*') => {
                    self.block_comments += 1;
                    i += 2;
                }
                '"' => {
                    self.string = Some(StringKind::Plain);
                    i += 1;
                }
                'r' | 'b'
                    if !chars[..i]
                        .last()
                        .is_some_and(|p| p.is_alphanumeric() || *p == '_') =>
                {
                    // r"…", r#"…"#, br"…", b"…"
                    let mut j = i + 1;
                    if c == 'b' && chars.get(j) == Some(&'r') {
                        j += 1;
                    }
                    let raw = c == 'r' || j > i + 1;
                    let hashes = chars[j..].iter().take_while(|h| **h == '#').count();
                    if chars.get(j + hashes) == Some(&'"') && (raw || hashes == 0) {
                        self.string = Some(if raw {
                            StringKind::Raw(hashes)
                        } else {
                            StringKind::Plain
                        });
                        i = j + hashes + 1;
                    } else {
                        i += 1;
                    }
                }
                '\'' => {
                    // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
                    if next == Some('\\') {
                        let close = chars[i + 2..].iter().position(|c| *c == '\'');
                        i = close.map_or(chars.len(), |p| i + 2 + p + 1);
                    } else if chars.get(i + 2) == Some(&'\'') {
                        i += 3;
                    } else {
                        i += 1;
                    }
                }
                '{' => {
                    self.depth += 1;
                    events.push(Event::Open(self.depth));
                    i += 1;
                }
                '}' => {
                    self.depth -= 1;
                    events.push(Event::Close(self.depth));
                    i += 1;
                }
                ';' => {
                    events.push(Event::Semicolon(self.depth));
                    i += 1;
                }
                _ => i += 1,
            }
        }
        events
    }
}

/// The backend names in one line.
fn backend_words(line: &str) -> Vec<String> {
    let lower = line.to_ascii_lowercase();
    let mut found = Vec::new();
    let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_ascii_alphanumeric());
    for word in BACKEND_WORDS {
        for (at, _) in lower.match_indices(word) {
            let before = lower[..at].chars().next_back();
            let after = lower[at + word.len()..].chars().next();
            if boundary(before) && boundary(after) {
                found.push(word.to_string());
                break;
            }
        }
    }
    // `responses` as a kind: quoted, or as the end of a kind name (`x-responses`).
    for quoted in ["\"responses\"", "`responses`", "-responses"] {
        if lower.contains(quoted) {
            found.push(quoted.to_string());
        }
    }
    // A `.com` host (not `.components()`, `.command`, …).
    for (at, _) in lower.match_indices(".com") {
        let before = lower[..at].chars().next_back();
        let after = lower[at + 4..].chars().next();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
            && boundary(after)
            && after != Some('_')
        {
            found.push(".com".to_string());
            break;
        }
    }
    found
}

// ---- the scanner itself ---------------------------------------------------------------------

#[test]
fn the_scanner_finds_names_outside_tests_only() {
    let source = r##"//! Talks to OpenAI-compatible endpoints.
fn kind() -> &'static str { "generic" }
const URL: &str = "https://api.vendor.com/v1";
let c = '{';
let s = r#"{ "a": "}" }"#;
fn components() { path.components().count(); }
#[cfg(test)]
mod tests {
    fn t() { let s = "deepseek {"; let c = '}'; /* { */ assert_eq!(x, "kimi"); }
}
fn after() { let kind = "responses"; }
#[cfg(test)]
fn helper() -> &'static str { "ollama" }
#[cfg(test)]
use something::Glm;
const LAST: &str = "glm-5";
"##;
    let lines = non_test_lines(source);
    let hits: Vec<(usize, Vec<String>)> = lines
        .iter()
        .map(|(n, l)| (*n, backend_words(l)))
        .filter(|(_, w)| !w.is_empty())
        .collect();
    assert_eq!(
        hits,
        vec![
            (1, vec!["openai".to_string()]),
            (3, vec![".com".to_string()]),
            (11, vec!["\"responses\"".to_string()]),
            (16, vec!["glm".to_string()]),
        ]
    );
    // Nothing is lost around the skipped items.
    let numbers: Vec<usize> = lines.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 11, 16]);
    assert!(backend_words("let x = api.example.org;").is_empty());
    assert!(backend_words("openairline").is_empty());
    assert_eq!(backend_words("Anthropic Messages"), ["anthropic"]);
}

#[test]
fn test_module_files_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a/tests")).unwrap();
    std::fs::write(src.join("lib.rs"), "#[cfg(test)]\nmod checks;\nmod a;\n").unwrap();
    std::fs::write(src.join("a.rs"), "#[cfg(test)]\nmod tests;\n").unwrap();
    std::fs::write(src.join("checks.rs"), "").unwrap();
    std::fs::write(src.join("a/tests/deep.rs"), "").unwrap();
    let files = [
        src.join("lib.rs"),
        src.join("a.rs"),
        src.join("checks.rs"),
        src.join("a/tests/deep.rs"),
    ];
    let skipped = test_module_files(&files);
    assert!(skipped.contains(&src.join("checks.rs")));
    assert!(skipped.contains(&src.join("a/tests/deep.rs")));
    assert!(!skipped.contains(&src.join("a.rs")));
}
