//! `write_file`: create or overwrite a file with given content.

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use reasonix_sdk::{CallContext, ChangeKind, Error, FileChange, Tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::encoding::{self, Sniff, TextEncoding};
use crate::paths::{self, Resolved, io_error};

/// Tool name.
pub const NAME: &str = "write_file";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to write, relative to the workspace root (or absolute inside the workspace).
    path: String,
    /// The complete new content of the file.
    content: String,
    /// Optional: the content you believe the file has now (empty string for a file that should
    /// not exist yet). The write is refused if the file differs.
    expected: Option<String>,
}

/// The `write_file` tool.
pub struct WriteFile;

impl Tool for WriteFile {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = false;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/write_file.json"));

    fn description() -> String {
        "Create a file or replace a file's entire content in the workspace. Missing parent \
         directories are created. `content` is written exactly as given (no line-ending \
         conversion), so pass the complete new file, never a fragment. To guard against \
         overwriting changes you have not seen, pass `expected` with the file's current content \
         as you last read it (without read_file's line-number prefixes); if the file now differs \
         the write is refused with a \"stale content\" error — read the file again and retry. An \
         existing file keeps its encoding (UTF-8 with BOM, UTF-16); otherwise UTF-8 is written. \
         Writing the content a file already has changes nothing. Relative paths are resolved \
         against the workspace root; absolute paths must lie inside the workspace."
            .into()
    }

    fn guidance() -> Option<String> {
        Some("Use `write_file` only for new files or complete rewrites.".into())
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let plan = plan(args, cx)?;
        let display = &plan.target.display;
        let Some(bytes) = &plan.bytes else {
            return Ok(format!("unchanged {display} (content identical)"));
        };
        let how = strategy(plan.current.is_some(), plan.symlink);
        write_bytes(&plan.target, how, bytes, &cx.call_id)?;
        let verb = if plan.current.is_some() {
            "wrote"
        } else {
            "created"
        };
        let lines = count_lines(&plan.content);
        let line_word = if lines == 1 { "line" } else { "lines" };
        let kept = match plan.current.as_ref().and_then(|c| c.encoding) {
            Some(
                enc @ (TextEncoding::Utf8Bom
                | TextEncoding::Utf16Le { .. }
                | TextEncoding::Utf16Be { .. }),
            ) => format!(", kept {}", enc.label()),
            _ => String::new(),
        };
        Ok(format!(
            "{verb} {display} ({} bytes, {lines} {line_word}{kept})",
            bytes.len()
        ))
    }

    fn preview(args: Args, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
        let plan = plan(args, cx)?;
        if plan.bytes.is_none() {
            return Ok(Vec::new());
        }
        let (kind, old_text) = match plan.current {
            None => (ChangeKind::Create, None),
            Some(c) => (ChangeKind::Modify, c.text),
        };
        Ok(vec![FileChange {
            path: plan.target.abs.to_string_lossy().into_owned(),
            kind,
            old_text,
            new_text: Some(plan.content),
        }])
    }
}

/// The file as it is now.
pub(crate) struct Current {
    pub(crate) bytes: Vec<u8>,
    /// `None` for a binary file.
    pub(crate) encoding: Option<TextEncoding>,
    /// Decoded text; `None` for a binary file.
    pub(crate) text: Option<String>,
}

/// What a `write_file` call would do.
struct Plan {
    target: Resolved,
    /// Whether the path is a symlink (written through, never replaced), even a dangling one.
    symlink: bool,
    current: Option<Current>,
    /// The bytes to write; `None` when they equal the current bytes.
    bytes: Option<Vec<u8>>,
    content: String,
}

fn plan(args: Args, cx: &CallContext) -> Result<Plan, Error> {
    let target = paths::resolve(&cx.workspace, &args.path)?;
    // Overwriting a `forbid_read` file would also reveal it (preview old text, `expected`).
    if crate::policy::Policy::current(&cx.workspace).forbids(&target.abs) {
        return Err(Error::Denied(format!(
            "{} is protected by [sandbox] forbid_read; it cannot be read or overwritten",
            target.display
        )));
    }
    let (symlink, current) = load_current(&target)?;
    check_expected(&target.display, current.as_ref(), args.expected.as_deref())?;
    let new_bytes = encoding::encode_for(&args.content, current.as_ref().and_then(|c| c.encoding));
    let unchanged = current.as_ref().is_some_and(|c| c.bytes == new_bytes);
    Ok(Plan {
        target,
        symlink,
        current,
        bytes: (!unchanged).then_some(new_bytes),
        content: args.content,
    })
}

/// Whether the path is a symlink, and the file's current state (`None` when missing).
pub(crate) fn load_current(target: &Resolved) -> Result<(bool, Option<Current>), Error> {
    let display = &target.display;
    let link_meta = match fs::symlink_metadata(&target.abs) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((false, None)),
        Err(e) => return Err(io_error("write", display, &e)),
    };
    let symlink = link_meta.file_type().is_symlink();
    let meta = if symlink {
        match fs::metadata(&target.abs) {
            Ok(m) => m,
            // A dangling link: writing through it creates its target.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((true, None)),
            Err(e) => return Err(io_error("write", display, &e)),
        }
    } else {
        link_meta
    };
    if meta.is_dir() {
        return Err(Error::InvalidInput(format!(
            "{display} is a directory; write_file writes files — give a file path"
        )));
    }
    let bytes = fs::read(&target.abs).map_err(|e| io_error("read", display, &e))?;
    let (encoding, text) = match encoding::sniff(&bytes, true) {
        Sniff::Binary => (None, None),
        Sniff::Text(enc) => (Some(enc), Some(encoding::decode_all(&bytes, enc))),
    };
    Ok((
        symlink,
        Some(Current {
            bytes,
            encoding,
            text,
        }),
    ))
}

/// Optimistic concurrency: refuse when the caller's idea of the file is out of date. CRLF and
/// LF are treated as equal, since `read_file` shows CRLF files with LF endings.
pub(crate) fn check_expected(
    display: &str,
    current: Option<&Current>,
    expected: Option<&str>,
) -> Result<(), Error> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let stale = match current {
        None => !expected.is_empty(),
        Some(Current { text: None, .. }) => true,
        Some(Current {
            text: Some(text), ..
        }) => text != expected && text.replace("\r\n", "\n") != expected.replace("\r\n", "\n"),
    };
    if !stale {
        return Ok(());
    }
    let what = match current {
        None => "it does not exist".to_string(),
        Some(Current { text: None, .. }) => "it is now a binary file".to_string(),
        Some(c) => format!("it has changed ({} bytes now)", c.bytes.len()),
    };
    Err(reasonix_sdk::other_error(
        "stale-content",
        format!(
            "stale content: {display} is not what `expected` says — {what}. Read it again \
             with read_file and retry with its current content."
        ),
    ))
}

/// Lines as `read_file` counts them: a final line without `\n` counts too.
pub fn count_lines(text: &str) -> usize {
    let newlines = text.bytes().filter(|&b| b == b'\n').count();
    if text.is_empty() || text.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}

/// How the bytes reach the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// Temp file in the same directory, then rename over the target.
    Atomic,
    /// Truncate and write the target in place.
    InPlace,
}

/// Atomic replacement whenever it loses nothing. A symlink is written through (renaming would
/// replace the link itself). Under WASI an existing file is rewritten in place, because WASI
/// cannot read or set Unix modes, so a renamed temp file would drop e.g. an executable bit.
pub(crate) fn strategy(exists: bool, symlink: bool) -> Strategy {
    if symlink || (exists && cfg!(target_os = "wasi")) {
        Strategy::InPlace
    } else {
        Strategy::Atomic
    }
}

pub(crate) fn write_bytes(
    target: &Resolved,
    how: Strategy,
    bytes: &[u8],
    call_id: &str,
) -> Result<(), Error> {
    let display = &target.display;
    let path = &target.abs;
    if let Some(parent) = path.parent()
        && !parent.is_dir()
    {
        fs::create_dir_all(parent).map_err(|e| {
            let parent_display = Path::new(display)
                .parent()
                .map(|p| p.to_string_lossy().into_owned())
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| ".".to_string());
            io_error("create directory", &parent_display, &e)
        })?;
    }
    if how == Strategy::Atomic && write_atomic(path, bytes, call_id).is_ok() {
        return Ok(());
    }
    overwrite(path, bytes).map_err(|e| io_error("write", display, &e))
}

/// Write `bytes` over the file at `path` from its start, then cut it to their length (created
/// when missing). Unlike truncating first, the file never passes through empty, and the
/// filesystem keeps the blocks it reuses.
fn overwrite(path: &Path, bytes: &[u8]) -> io::Result<()> {
    #[cfg(target_os = "wasi")]
    {
        crate::walk::host_fs().overwrite(path, bytes)
    }
    #[cfg(not(target_os = "wasi"))]
    {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        file.write_all(bytes)?;
        file.set_len(bytes.len() as u64)
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Write to a fresh temp file beside `path` and rename it over `path`. On any failure the temp
/// file is removed and the error returned, so the caller can fall back to a direct write.
fn write_atomic(path: &Path, bytes: &[u8], call_id: &str) -> io::Result<()> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::other("no parent directory"));
    };
    let tag: String = call_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(32)
        .collect();
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(
        ".{}.{tag}-{n}.reasonix-tmp",
        name.to_string_lossy()
    ));
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        let _ = file.sync_all();
        drop(file);
        copy_permissions(path, &tmp);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Give the temp file the target's permissions (native Unix; a no-op elsewhere).
fn copy_permissions(from: &Path, to: &Path) {
    #[cfg(unix)]
    if let Ok(meta) = fs::metadata(from) {
        let _ = fs::set_permissions(to, meta.permissions());
    }
    #[cfg(not(unix))]
    let _ = (from, to);
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn invoke(arguments: &str, cx: &CallContext) -> Result<String, Error> {
        reasonix_sdk::tool::invoke::<WriteFile>(arguments, cx)
    }

    fn preview(arguments: &str, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
        reasonix_sdk::tool::preview::<WriteFile>(arguments, cx)
    }
    use crate::encoding::encode_for;
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
                call_id: "call/1".to_string(),
                workspace: self.dir.path().to_string_lossy().into_owned(),
            }
        }
        fn path(&self, name: &str) -> std::path::PathBuf {
            self.dir.path().join(name)
        }
        fn put(&self, name: &str, bytes: &[u8]) {
            fs::write(self.path(name), bytes).unwrap();
        }
        fn get(&self, name: &str) -> Vec<u8> {
            fs::read(self.path(name)).unwrap()
        }
        fn write(&self, args: serde_json::Value) -> Result<String, Error> {
            invoke(&args.to_string(), &self.cx())
        }
        fn ok(&self, args: serde_json::Value) -> String {
            match self.write(args) {
                Ok(s) => s,
                Err(e) => panic!("write failed: {e:?}"),
            }
        }
        fn preview(&self, args: serde_json::Value) -> Vec<FileChange> {
            match preview(&args.to_string(), &self.cx()) {
                Ok(v) => v,
                Err(e) => panic!("preview failed: {e:?}"),
            }
        }
        fn no_temp_files_left(&self) {
            for entry in walk(self.dir.path()) {
                assert!(
                    !entry.to_string_lossy().ends_with(".reasonix-tmp"),
                    "leftover {entry:?}"
                );
            }
        }
    }

    fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(walk(&p));
            }
            out.push(p);
        }
        out
    }

    fn assert_stale(r: Result<String, Error>) {
        match r {
            Err(Error::Other(d)) => assert!(d.message.contains("stale content"), "{}", d.message),
            other => panic!("expected stale, got {other:?}"),
        }
    }

    #[test]
    fn creates_new_file_with_parents() {
        let ws = Ws::new();
        let out = ws.ok(json!({"path": "a/b/new.txt", "content": "one\ntwo\n"}));
        assert_eq!(out, "created a/b/new.txt (8 bytes, 2 lines)");
        assert_eq!(ws.get("a/b/new.txt"), b"one\ntwo\n");
        ws.no_temp_files_left();
    }

    #[test]
    fn overwrites_existing_file() {
        let ws = Ws::new();
        ws.put("f.txt", b"old\n");
        let out = ws.ok(json!({"path": "f.txt", "content": "new content"}));
        assert_eq!(out, "wrote f.txt (11 bytes, 1 line)");
        assert_eq!(ws.get("f.txt"), b"new content");
        ws.no_temp_files_left();
    }

    #[test]
    fn empty_content_is_allowed() {
        let ws = Ws::new();
        assert_eq!(
            ws.ok(json!({"path": "e.txt", "content": ""})),
            "created e.txt (0 bytes, 0 lines)"
        );
        assert_eq!(ws.get("e.txt"), b"");
    }

    #[test]
    fn identical_content_is_a_no_op() {
        let ws = Ws::new();
        ws.put("same.txt", b"keep\n");
        let before = fs::metadata(ws.path("same.txt"))
            .unwrap()
            .modified()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let out = ws.ok(json!({"path": "same.txt", "content": "keep\n"}));
        assert_eq!(out, "unchanged same.txt (content identical)");
        let after = fs::metadata(ws.path("same.txt"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(before, after);
        assert!(
            ws.preview(json!({"path": "same.txt", "content": "keep\n"}))
                .is_empty()
        );
    }

    #[test]
    fn stale_expected_is_refused() {
        let ws = Ws::new();
        ws.put("s.txt", b"actual\n");
        assert_stale(
            ws.write(json!({"path": "s.txt", "content": "x", "expected": "what I saw\n"})),
        );
        assert_eq!(ws.get("s.txt"), b"actual\n");
        // An empty `expected` means "I think it is empty / absent".
        assert_stale(ws.write(json!({"path": "s.txt", "content": "x", "expected": ""})));
        // Preview agrees with invoke.
        assert!(
            preview(
                &json!({"path": "s.txt", "content": "x", "expected": "nope"}).to_string(),
                &ws.cx()
            )
            .is_err()
        );
    }

    #[test]
    fn matching_expected_allows_write() {
        let ws = Ws::new();
        ws.put("m.txt", b"v1\n");
        let out = ws.ok(json!({"path": "m.txt", "content": "v2\n", "expected": "v1\n"}));
        assert_eq!(out, "wrote m.txt (3 bytes, 1 line)");
        assert_eq!(ws.get("m.txt"), b"v2\n");
    }

    #[test]
    fn expected_ignores_crlf_versus_lf() {
        let ws = Ws::new();
        ws.put("w.txt", b"a\r\nb\r\n");
        ws.ok(json!({"path": "w.txt", "content": "c\r\n", "expected": "a\nb\n"}));
        assert_eq!(ws.get("w.txt"), b"c\r\n");
    }

    #[test]
    fn expected_for_missing_file() {
        let ws = Ws::new();
        assert_stale(ws.write(json!({"path": "ghost.txt", "content": "x", "expected": "boo"})));
        assert!(!ws.path("ghost.txt").exists());
        // Empty expected for a missing file is consistent.
        assert_eq!(
            ws.ok(json!({"path": "ghost.txt", "content": "x", "expected": ""})),
            "created ghost.txt (1 bytes, 1 line)"
        );
    }

    #[test]
    fn keeps_utf16_and_bom_encodings() {
        let ws = Ws::new();
        for (name, enc) in [
            ("le.txt", TextEncoding::Utf16Le { bom: true }),
            ("be.txt", TextEncoding::Utf16Be { bom: true }),
            ("le_nobom.txt", TextEncoding::Utf16Le { bom: false }),
            ("bom8.txt", TextEncoding::Utf8Bom),
        ] {
            ws.put(name, &encode_for("old text here\r\n", Some(enc)));
            let new = "new text — ünïcode 😀\r\n";
            let out = ws.ok(json!({"path": name, "content": new, "expected": "old text here\n"}));
            assert!(out.contains(&format!("kept {}", enc.label())), "{out}");
            assert_eq!(ws.get(name), encode_for(new, Some(enc)), "{name}");
            // Identical content (as text) in the same encoding is a no-op.
            assert_eq!(
                ws.ok(json!({"path": name, "content": new})),
                format!("unchanged {name} (content identical)")
            );
        }
    }

    #[test]
    fn gb18030_and_binary_files_become_utf8() {
        let ws = Ws::new();
        let (gb, _, _) = encoding_rs::GB18030.encode("旧内容\n");
        ws.put("gb.txt", &gb);
        ws.ok(json!({"path": "gb.txt", "content": "新内容\n", "expected": "旧内容\n"}));
        assert_eq!(ws.get("gb.txt"), "新内容\n".as_bytes());

        ws.put("bin.dat", b"\0\x01\x02\x03");
        let changes = ws.preview(json!({"path": "bin.dat", "content": "text"}));
        assert_eq!(changes.len(), 1);
        assert!(changes[0].old_text.is_none());
        assert_stale(ws.write(json!({"path": "bin.dat", "content": "text", "expected": ""})));
        ws.ok(json!({"path": "bin.dat", "content": "text"}));
        assert_eq!(ws.get("bin.dat"), b"text");
    }

    #[test]
    fn preview_describes_create_and_modify() {
        let ws = Ws::new();
        let created = ws.preview(json!({"path": "dir/n.txt", "content": "hello"}));
        assert_eq!(created.len(), 1);
        assert!(matches!(created[0].kind, ChangeKind::Create));
        assert_eq!(created[0].path, ws.path("dir/n.txt").to_string_lossy());
        assert_eq!(created[0].old_text, None);
        assert_eq!(created[0].new_text.as_deref(), Some("hello"));
        // Preview writes nothing.
        assert!(!ws.path("dir").exists());

        ws.put("m.txt", b"\xEF\xBB\xBFbefore\n");
        let modified = ws.preview(json!({"path": "m.txt", "content": "after\n"}));
        assert!(matches!(modified[0].kind, ChangeKind::Modify));
        assert_eq!(modified[0].old_text.as_deref(), Some("before\n"));
        assert_eq!(modified[0].new_text.as_deref(), Some("after\n"));
        assert_eq!(ws.get("m.txt"), b"\xEF\xBB\xBFbefore\n");
    }

    #[test]
    fn directory_target_is_refused() {
        let ws = Ws::new();
        fs::create_dir(ws.path("d")).unwrap();
        assert!(matches!(
            ws.write(json!({"path": "d", "content": "x"})),
            Err(Error::InvalidInput(_))
        ));
    }

    #[test]
    fn outside_workspace_is_denied() {
        let ws = Ws::new();
        for path in ["../escape.txt", "/etc/passwd", "/tmp/elsewhere.txt"] {
            match ws.write(json!({"path": path, "content": "x"})) {
                Err(Error::Denied(m)) => assert!(m.contains("outside the workspace"), "{m}"),
                other => panic!("{path}: unexpected {other:?}"),
            }
            assert!(preview(&json!({"path": path, "content": "x"}).to_string(), &ws.cx()).is_err());
        }
    }

    #[test]
    fn bad_arguments_are_invalid_input() {
        let ws = Ws::new();
        match ws.write(json!({"path": "a"})) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("`content`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
        match ws.write(json!({"path": "a", "content": "x", "expcted": ""})) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("`expcted`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            ws.write(json!({"path": "", "content": "x"})),
            Err(Error::InvalidInput(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn keeps_unix_mode_and_writes_through_symlinks() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let ws = Ws::new();
        ws.put("run.sh", b"#!/bin/sh\necho a\n");
        fs::set_permissions(ws.path("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        ws.ok(json!({"path": "run.sh", "content": "#!/bin/sh\necho b\n"}));
        let mode = fs::metadata(ws.path("run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);

        ws.put("real.txt", b"r\n");
        symlink(ws.path("real.txt"), ws.path("link.txt")).unwrap();
        ws.ok(json!({"path": "link.txt", "content": "via link\n", "expected": "r\n"}));
        assert!(
            fs::symlink_metadata(ws.path("link.txt"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(ws.get("real.txt"), b"via link\n");
    }

    #[test]
    fn atomic_write_falls_back_when_rename_fails() {
        let ws = Ws::new();
        // Renaming a file over a non-empty directory fails; the atomic path reports it and
        // leaves no temp file.
        fs::create_dir(ws.path("busy")).unwrap();
        ws.put("busy/x", b"");
        assert!(write_atomic(&ws.path("busy"), b"data", "c").is_err());
        ws.no_temp_files_left();
    }

    #[test]
    fn strategy_choice() {
        assert_eq!(strategy(false, false), Strategy::Atomic);
        assert_eq!(strategy(true, true), Strategy::InPlace);
        assert_eq!(strategy(false, true), Strategy::InPlace);
        let existing = if cfg!(target_os = "wasi") {
            Strategy::InPlace
        } else {
            Strategy::Atomic
        };
        assert_eq!(strategy(true, false), existing);
    }

    #[test]
    fn line_counting() {
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a"), 1);
        assert_eq!(count_lines("a\n"), 1);
        assert_eq!(count_lines("a\nb"), 2);
        assert_eq!(count_lines("\n\n"), 2);
    }
}
