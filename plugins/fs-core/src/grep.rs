//! `grep`: search file contents for a regular expression.
//!
//! The walk is [`crate::walk`] (sequential: a wasm32-wasip2 component has no threads): it
//! honours `.gitignore`/`.ignore` (also outside a git repository), skips hidden entries,
//! `node_modules`, credential files and `forbid_read` roots.
//! Files are searched line by line with `grep-searcher`; a file with a NUL byte is binary and
//! contributes nothing.

use std::fmt::Write as _;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use reasonix_sdk::{CallContext, Error, Tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::paths::{self, io_error};
use crate::policy::Policy;
use crate::walk::{self, Entry, Fs, Kind, Options};

/// Tool name.
pub const NAME: &str = "grep";
/// Most matches shown before the output is cut.
pub const MAX_MATCHES: usize = 200;
/// Time budget when `timeout_seconds` is not given.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;
/// Largest accepted `timeout_seconds`; larger values are capped to it.
pub const MAX_TIMEOUT_SECS: u64 = 300;
/// Longest matched line shown in full, in bytes; longer lines are cut with a marker.
pub const MAX_LINE_BYTES: usize = 1000;
/// Largest file read whole before searching; larger ones are streamed.
pub const WHOLE_FILE_LIMIT: u64 = 16 * 1024 * 1024;
/// Files searched between two looks at the clock (the first file is always checked).
const CLOCK_EVERY_FILES: usize = 16;
/// Directory names never descended into (besides hidden ones).
pub const SKIPPED_DIRS: &[&str] = &[".git", "node_modules"];

// `timeout_seconds` is signed so that a negative value gets a message of its own.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Regular expression to search for (RE2/Rust regex syntax; one line at a time, so it never
    /// matches a newline).
    pattern: String,
    /// Directory or file to search, relative to the workspace root (or absolute inside the
    /// workspace). Default "." (the whole workspace).
    path: Option<String>,
    /// Time budget in seconds; when it runs out, the matches found so far are returned with a
    /// note. Default 30, at most 300.
    #[schemars(range(min = 1, max = MAX_TIMEOUT_SECS))]
    timeout_seconds: Option<i64>,
}

/// The `grep` tool.
pub struct Grep;

impl Tool for Grep {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = true;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/grep.json"));

    fn description() -> String {
        "Search file contents in the workspace for a regular expression (RE2/Rust syntax, e.g. \
         `fn\\s+main`, `(?i)todo`). Each match is one line `path:line:text`, paths relative to \
         the workspace root, lines numbered from 1; matched lines longer than 1000 bytes are cut \
         with a marker. Searches `path` (a directory, recursively, or a single file; default \
         the workspace root). Honours .gitignore and .ignore files and skips hidden files and \
         directories, .git, node_modules, binary files (a NUL byte) and credential files (.env, \
         .git-credentials, .netrc, *.pem, *.key, *.p12, *.pfx, .ssh/). Shows at most 200 \
         matches, then `... (truncated at 200 matches)` — narrow the pattern or path to see \
         more. Stops after `timeout_seconds` (default 30, at most 300) and returns the matches \
         found so far with a note. Use glob to find files by name."
            .into()
    }

    fn guidance() -> Option<String> {
        Some(
            "Find code by its content with `grep` rather than reading files in search of it."
                .into(),
        )
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let timeout = match args.timeout_seconds {
            None => DEFAULT_TIMEOUT_SECS,
            Some(n) if n >= 1 => n.unsigned_abs().min(MAX_TIMEOUT_SECS),
            Some(n) => {
                return Err(Error::InvalidInput(format!(
                    "{NAME}: `timeout_seconds` must be between 1 and {MAX_TIMEOUT_SECS} (got {n})"
                )));
            }
        };
        let path = args.path.as_deref().unwrap_or(".");
        let resolved = paths::resolve(&cx.workspace, path)?;
        let policy = Policy::current(&cx.workspace);
        let workspace = paths::normalize(Path::new(&cx.workspace));
        search(
            &Query {
                pattern: &args.pattern,
                root: &resolved.abs,
                display: &resolved.display,
                workspace: &workspace,
                timeout: Duration::from_secs(timeout),
            },
            &policy,
        )
    }
}

/// One search.
pub struct Query<'a> {
    /// The regular expression.
    pub pattern: &'a str,
    /// Absolute directory or file to search.
    pub root: &'a Path,
    /// `root` as named in messages.
    pub display: &'a str,
    /// Absolute workspace; reported paths are relative to it.
    pub workspace: &'a Path,
    /// Time budget.
    pub timeout: Duration,
}

/// Run `query` under `policy`.
pub fn search(query: &Query<'_>, policy: &Policy) -> Result<String, Error> {
    let started = Instant::now();
    let matcher = build_matcher(query.pattern)?;
    policy.check(query.root, query.display)?;
    let meta = std::fs::metadata(query.root).map_err(|e| io_error("search", query.display, &e))?;
    let in_ssh = Path::new(query.display)
        .components()
        .any(|c| c.as_os_str() == ".ssh");
    if in_ssh || (!meta.is_dir() && is_sensitive_file(query.root)) {
        return Err(Error::Denied(format!(
            "{} looks like a credentials file; grep does not search .env, .git-credentials, \
             .netrc, *.pem, *.key, *.p12, *.pfx or .ssh/ files",
            query.display
        )));
    }

    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(b'\0'))
        .build();
    let mut out = Collector::new(query.workspace, started + query.timeout);
    let mut buffer = Vec::new();
    let fs = walk::host_fs();
    let policy = policy.below(query.root);
    let mut files = 0_usize;
    walk::walk(
        &fs,
        query.workspace,
        query.root,
        Options {
            standard_filters: true,
            max_depth: None,
        },
        &mut |entry| keep_entry(entry, &policy),
        &mut |entry| {
            if entry.kind != Kind::File {
                return ControlFlow::Continue(());
            }
            // Reading the clock is a host call in a component: look every few files.
            files += 1;
            if files % CLOCK_EVERY_FILES == 1 && Instant::now() >= out.deadline {
                out.stopped = Some(Stop::Timeout);
                return ControlFlow::Break(());
            }
            out.begin_file(&entry.path);
            // A file that cannot be read is skipped, as ripgrep does; its partial matches are
            // dropped.
            if search_file(
                &fs,
                &mut searcher,
                &matcher,
                &entry.path,
                &mut buffer,
                &mut out,
            )
            .is_err()
            {
                out.pending.clear();
            }
            out.end_file();
            if out.stopped.is_some() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );

    let mut text = if out.lines.is_empty() {
        format!("(no matches for {:?} in {})", query.pattern, query.display)
    } else {
        out.lines.join("\n")
    };
    match out.stopped {
        Some(Stop::Cap) => {
            let _ = write!(text, "\n... (truncated at {MAX_MATCHES} matches)");
        }
        Some(Stop::Timeout) => {
            let _ = write!(
                text,
                "\n... (search timed out after {}s; the matches above are partial — narrow \
                 `path` or the pattern, or raise `timeout_seconds` up to {MAX_TIMEOUT_SECS})",
                query.timeout.as_secs()
            );
        }
        None => {}
    }
    Ok(text)
}

/// Search one file. Files up to [`WHOLE_FILE_LIMIT`] are read whole into `buffer` (reused from
/// file to file) and searched as one slice: inside a component every read is a host call, so
/// few large reads beat the searcher's 64 KiB refills. Larger files are streamed.
fn search_file<F: Fs>(
    fs: &F,
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    path: &Path,
    buffer: &mut Vec<u8>,
    out: &mut Collector<'_>,
) -> std::io::Result<()> {
    let mut file = fs.open(path)?;
    buffer.clear();
    let limit = usize::try_from(WHOLE_FILE_LIMIT).unwrap_or(usize::MAX);
    if !walk::read_up_to(fs, &mut file, buffer, limit)? {
        let head = std::mem::take(buffer);
        return searcher.search_reader(matcher, walk::Reader::new(fs, file, head), out);
    }
    // The searcher only looks for NUL near the start of a slice; a binary file is skipped whole.
    // `memchr` is SIMD in wasm too, unlike `<[u8]>::contains`.
    if memchr::memchr(0, buffer).is_some() {
        out.binary = true;
        return Ok(());
    }
    searcher.search_slice(matcher, buffer, out)
}

/// Compile `pattern` for line-by-line search.
fn build_matcher(pattern: &str) -> Result<RegexMatcher, Error> {
    RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(pattern)
        .map_err(|e| {
            Error::InvalidInput(format!(
                "{NAME}: invalid regular expression {pattern:?}: {e}"
            ))
        })
}

/// Whether the walk keeps `entry` (the root is always kept by the walker).
fn keep_entry(entry: &Entry, policy: &Policy) -> bool {
    if policy.forbids(&entry.path) {
        return false;
    }
    let name = entry.name.as_encoded_bytes();
    if entry.kind == Kind::Dir {
        !SKIPPED_DIRS.iter().any(|d| d.as_bytes() == name) && name != b".ssh"
    } else {
        !is_sensitive_bytes(name)
    }
}

/// Whether a file name is on the credentials denylist.
pub fn is_sensitive_name(name: &str) -> bool {
    is_sensitive_bytes(name.as_bytes())
}

/// [`is_sensitive_name`] on raw bytes, without allocating: it runs for every file walked.
fn is_sensitive_bytes(name: &[u8]) -> bool {
    [".env", ".git-credentials", ".netrc"]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
        || [".pem", ".key", ".p12", ".pfx"].iter().any(|ext| {
            name.len()
                .checked_sub(ext.len())
                .and_then(|start| name.get(start..))
                .is_some_and(|tail| tail.eq_ignore_ascii_case(ext.as_bytes()))
        })
}

/// Whether the file at `path` is on the credentials denylist (by name, or inside `.ssh/`).
pub fn is_sensitive_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| is_sensitive_name(&n.to_string_lossy()))
        || path.components().any(|c| c.as_os_str() == ".ssh")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// More than [`MAX_MATCHES`] matches.
    Cap,
    /// The time budget ran out.
    Timeout,
}

/// Gathers `path:line:text` lines; a file's lines are kept only once it proved to be text.
struct Collector<'a> {
    workspace: &'a Path,
    deadline: Instant,
    /// Lines of finished text files.
    lines: Vec<String>,
    /// The current file's path as shown, and its lines so far.
    current: String,
    pending: Vec<String>,
    binary: bool,
    stopped: Option<Stop>,
}

impl<'a> Collector<'a> {
    fn new(workspace: &'a Path, deadline: Instant) -> Self {
        Collector {
            workspace,
            deadline,
            lines: Vec::new(),
            current: String::new(),
            pending: Vec::new(),
            binary: false,
            stopped: None,
        }
    }

    fn begin_file(&mut self, path: &Path) {
        // The walk's paths are normalised: comparing bytes gives what `strip_prefix` gives
        // without parsing components for every file.
        let bytes = path.as_os_str().as_encoded_bytes();
        let ws = self.workspace.as_os_str().as_encoded_bytes();
        let ws = ws.strip_suffix(b"/").unwrap_or(ws);
        self.current = match bytes.strip_prefix(ws) {
            Some([]) => String::new(),
            Some([b'/', rel @ ..]) => String::from_utf8_lossy(rel).into_owned(),
            _ => path.strip_prefix(self.workspace).map_or_else(
                |_| path.to_string_lossy().into_owned(),
                |rel| rel.to_string_lossy().into_owned(),
            ),
        };
        if self.current.is_empty() {
            self.current = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        }
        self.pending.clear();
        self.binary = false;
    }

    fn end_file(&mut self) {
        if self.binary {
            self.pending.clear();
            // A binary file's matches never count, so a cap it caused is lifted.
            if self.stopped == Some(Stop::Cap) && self.lines.len() < MAX_MATCHES {
                self.stopped = None;
            }
            return;
        }
        self.lines.append(&mut self.pending);
    }
}

impl Sink for Collector<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        if self.lines.len() + self.pending.len() >= MAX_MATCHES {
            // One match too many: the output is cut. The file is still read to its end (without
            // keeping anything) so a NUL byte further on can still mark it binary.
            self.stopped = Some(Stop::Cap);
            return Ok(Instant::now() < self.deadline);
        }
        let line_no = mat.line_number().unwrap_or(0);
        let line = render_line(mat.bytes());
        self.pending
            .push(format!("{}:{line_no}:{line}", self.current));
        if Instant::now() >= self.deadline {
            self.stopped = Some(Stop::Timeout);
            return Ok(false);
        }
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// A matched line as text: line ending removed, invalid UTF-8 replaced, cut past
/// [`MAX_LINE_BYTES`].
fn render_line(bytes: &[u8]) -> String {
    let mut bytes = bytes;
    if let Some(rest) = bytes.strip_suffix(b"\n") {
        bytes = rest;
    }
    if let Some(rest) = bytes.strip_suffix(b"\r") {
        bytes = rest;
    }
    if bytes.len() <= MAX_LINE_BYTES {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut cut = MAX_LINE_BYTES;
    while cut > 0 && bytes.get(cut).is_some_and(|b| b & 0xC0 == 0x80) {
        cut -= 1;
    }
    let head = bytes.get(..cut).unwrap_or(bytes);
    format!(
        "{} [… line truncated: {} bytes long]",
        String::from_utf8_lossy(head),
        bytes.len()
    )
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
        fn put(&self, name: &str, bytes: &[u8]) {
            let p = self.root().join(name);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, bytes).unwrap();
        }
        fn cx(&self) -> CallContext {
            CallContext {
                call_id: "t".to_string(),
                workspace: self.root().to_string_lossy().into_owned(),
            }
        }
        fn grep(&self, args: serde_json::Value) -> Result<String, Error> {
            reasonix_sdk::tool::invoke::<Grep>(&args.to_string(), &self.cx())
        }
        fn ok(&self, args: serde_json::Value) -> String {
            match self.grep(args) {
                Ok(s) => s,
                Err(e) => panic!("grep failed: {e:?}"),
            }
        }
        fn with_policy(&self, pattern: &str, path: &str, policy: &Policy) -> String {
            let resolved = paths::resolve(&self.cx().workspace, path).unwrap();
            search(
                &Query {
                    pattern,
                    root: &resolved.abs,
                    display: &resolved.display,
                    workspace: self.root(),
                    timeout: Duration::from_secs(30),
                },
                policy,
            )
            .unwrap()
        }
    }

    #[test]
    fn finds_matches_with_relative_paths_and_line_numbers() {
        let ws = Ws::new();
        ws.put(
            "src/main.rs",
            b"fn main() {\n    helper();\n}\nfn helper() {}\n",
        );
        ws.put("README.md", b"no code here\r\nhelper docs\r\n");
        let out = ws.ok(json!({"pattern": "helper"}));
        assert_eq!(
            out,
            "README.md:2:helper docs\nsrc/main.rs:2:    helper();\nsrc/main.rs:4:fn helper() {}"
        );
        assert_eq!(
            ws.ok(json!({"pattern": "fn \\w+\\(\\)", "path": "src"})),
            "src/main.rs:1:fn main() {\nsrc/main.rs:4:fn helper() {}"
        );
        assert_eq!(
            ws.ok(json!({"pattern": "^fn", "path": "src/main.rs"})),
            "src/main.rs:1:fn main() {\nsrc/main.rs:4:fn helper() {}"
        );
        assert_eq!(
            ws.ok(json!({"pattern": "zebra"})),
            "(no matches for \"zebra\" in .)"
        );
    }

    #[test]
    fn caps_at_200_matches() {
        let ws = Ws::new();
        let body: String = (0..150).map(|i| format!("hit {i}\n")).collect();
        ws.put("a.txt", body.as_bytes());
        ws.put("b.txt", body.as_bytes());
        let out = ws.ok(json!({"pattern": "hit"}));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), MAX_MATCHES + 1);
        assert_eq!(lines[0], "a.txt:1:hit 0");
        assert_eq!(lines[MAX_MATCHES - 1], "b.txt:50:hit 49");
        assert_eq!(lines[MAX_MATCHES], "... (truncated at 200 matches)");
        // Exactly 200 is not truncated.
        let ws = Ws::new();
        let body: String = (0..200).map(|i| format!("hit {i}\n")).collect();
        ws.put("a.txt", body.as_bytes());
        let out = ws.ok(json!({"pattern": "hit"}));
        assert_eq!(out.lines().count(), MAX_MATCHES);
        assert!(!out.contains("truncated"));
    }

    #[test]
    fn honours_gitignore_and_skips_hidden_noise_and_binary() {
        let ws = Ws::new();
        ws.put(".gitignore", b"target/\n*.log\n");
        ws.put("target/out.txt", b"needle\n");
        ws.put("debug.log", b"needle\n");
        ws.put(".hidden/x.txt", b"needle\n");
        ws.put(".dotfile", b"needle\n");
        ws.put("node_modules/p/i.js", b"needle\n");
        ws.put("bin.dat", b"needle\n\0\x01\x02");
        ws.put(
            "late_binary.dat",
            &[b"needle\n".repeat(20_000), b"\0".to_vec()].concat(),
        );
        ws.put("keep.txt", b"needle\n");
        assert_eq!(ws.ok(json!({"pattern": "needle"})), "keep.txt:1:needle");
    }

    #[test]
    fn skips_credential_files() {
        let ws = Ws::new();
        for name in [
            ".env",
            "sub/.env",
            ".git-credentials",
            ".netrc",
            "cert.pem",
            "id.key",
            "store.p12",
            "store.PFX",
            ".ssh/config",
        ] {
            ws.put(name, b"token=hunter2\n");
        }
        ws.put("notes.txt", b"token=hunter2\n");
        assert_eq!(
            ws.ok(json!({"pattern": "hunter2"})),
            "notes.txt:1:token=hunter2"
        );
        for path in ["cert.pem", ".ssh", "./.ssh/config"] {
            match ws.grep(json!({"pattern": "hunter2", "path": path})) {
                Err(Error::Denied(m)) => assert!(m.contains("credentials"), "{path}: {m}"),
                other => panic!("{path}: unexpected {other:?}"),
            }
        }
        assert!(is_sensitive_name("prod.key") && !is_sensitive_name("keys.rs"));
        assert!(!is_sensitive_name(".envrc"));
    }

    #[test]
    fn forbidden_roots_are_skipped_or_not_found() {
        let ws = Ws::new();
        ws.put("secret/k.txt", b"needle\n");
        ws.put("open/k.txt", b"needle\n");
        let policy = Policy::forbidding(&[&ws.root().join("secret")]);
        assert_eq!(
            ws.with_policy("needle", ".", &policy),
            "open/k.txt:1:needle"
        );
        let resolved = paths::resolve(&ws.cx().workspace, "secret/k.txt").unwrap();
        let err = search(
            &Query {
                pattern: "needle",
                root: &resolved.abs,
                display: &resolved.display,
                workspace: ws.root(),
                timeout: Duration::from_secs(5),
            },
            &policy,
        );
        match err {
            Err(Error::NotFound(m)) => assert_eq!(m, "no such file: secret/k.txt"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn long_lines_are_cut() {
        let ws = Ws::new();
        let line = format!("needle{}\n", "é".repeat(2000));
        ws.put("wide.txt", line.as_bytes());
        let out = ws.ok(json!({"pattern": "needle"}));
        assert!(out.starts_with("wide.txt:1:needle"), "{out}");
        assert!(
            out.ends_with("[… line truncated: 4006 bytes long]"),
            "{out}"
        );
        assert!(out.len() < MAX_LINE_BYTES + 100);
    }

    #[test]
    fn timeout_returns_partial_results_with_a_note() {
        let ws = Ws::new();
        for i in 0..50 {
            ws.put(&format!("f{i:02}.txt"), b"needle\n");
        }
        let resolved = paths::resolve(&ws.cx().workspace, ".").unwrap();
        let out = search(
            &Query {
                pattern: "needle",
                root: &resolved.abs,
                display: &resolved.display,
                workspace: ws.root(),
                timeout: Duration::ZERO,
            },
            &Policy::default(),
        )
        .unwrap();
        assert!(out.contains("search timed out after 0s"), "{out}");
    }

    #[test]
    fn errors() {
        let ws = Ws::new();
        match ws.grep(json!({"pattern": "fn ("})) {
            Err(Error::InvalidInput(m)) => {
                assert!(
                    m.starts_with("grep: invalid regular expression \"fn (\""),
                    "{m}"
                );
            }
            other => panic!("unexpected {other:?}"),
        }
        match ws.grep(json!({"pattern": "x", "path": "missing"})) {
            Err(Error::NotFound(m)) => assert_eq!(m, "no such file: missing"),
            other => panic!("unexpected {other:?}"),
        }
        for path in ["..", "/etc", "../x"] {
            match ws.grep(json!({"pattern": "root", "path": path})) {
                Err(Error::Denied(m)) => assert!(m.contains("outside the workspace"), "{m}"),
                other => panic!("{path}: unexpected {other:?}"),
            }
        }
        match ws.grep(json!({"pattern": "x", "timeout_seconds": 0})) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("timeout_seconds"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
        match ws.grep(json!({})) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("pattern"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
        // Above the maximum is capped, not refused.
        assert!(
            ws.ok(json!({"pattern": "x", "timeout_seconds": 9999}))
                .starts_with("(no matches")
        );
    }
}
