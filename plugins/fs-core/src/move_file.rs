//! `move_file`: move or rename one file inside the workspace, never overwriting.

use std::fs;
use std::io;
use std::path::Path;

use reasonix_sdk::{CallContext, ChangeKind, Error, FileChange, Tool, other_error};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::edit_file::parse_checked;
use crate::paths::{self, Resolved, io_error};
use crate::policy::Policy;
use crate::write_file;

/// Tool name.
pub const NAME: &str = "move_file";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to move, relative to the workspace root (or absolute inside the workspace).
    source_path: String,
    /// The new path of the file, including its file name; must not exist yet.
    destination_path: String,
}

/// The `move_file` tool.
pub struct MoveFile;

impl Tool for MoveFile {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = false;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/move_file.json"));

    fn description() -> String {
        "Move or rename one file inside the workspace. `source_path` must be an existing file \
         (directories are refused); `destination_path` is the file's new full path (not a \
         directory to move it into) and must not exist yet — move_file never overwrites. Missing \
         parent directories of the destination are created. The file's bytes, permissions and \
         encoding are untouched. Both paths must lie inside the workspace; relative paths are \
         resolved against the workspace root."
            .into()
    }

    fn parse(arguments: &str) -> Result<Args, Error> {
        parse_checked::<Self>(arguments)
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let (src, dst, case_alias) = match plan(args, cx)? {
            Plan::Same(p) => {
                return Ok(format!("unchanged: {} is already at that path", p.display));
            }
            Plan::Move {
                src,
                dst,
                case_alias,
            } => (src, dst, case_alias),
        };
        if let Some(parent) = dst.abs.parent()
            && !parent.is_dir()
        {
            fs::create_dir_all(parent).map_err(|e| {
                let shown = Path::new(&dst.display)
                    .parent()
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default();
                io_error("create directory", &shown, &e)
            })?;
        }
        let moved = if case_alias {
            rename_via_temp(&src.abs, &dst.abs, &cx.call_id)
        } else {
            match fs::rename(&src.abs, &dst.abs) {
                Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {
                    copy_then_remove(&src.abs, &dst.abs)
                }
                other => other,
            }
        };
        moved.map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                Error::NotFound(format!("no such file: {}", src.display))
            } else {
                io_error(&format!("move {} to", src.display), &dst.display, &e)
            }
        })?;
        Ok(format!("moved {} to {}", src.display, dst.display))
    }

    fn preview(args: Args, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
        let Plan::Move { src, dst, .. } = plan(args, cx)? else {
            return Ok(Vec::new());
        };
        let (_, current) = write_file::load_current(&src)?;
        let text = current.and_then(|c| c.text);
        Ok(vec![
            FileChange {
                path: src.abs.to_string_lossy().into_owned(),
                kind: ChangeKind::Delete,
                old_text: text.clone(),
                new_text: None,
            },
            FileChange {
                path: dst.abs.to_string_lossy().into_owned(),
                kind: ChangeKind::Create,
                old_text: None,
                new_text: text,
            },
        ])
    }
}

/// What a `move_file` call would do.
enum Plan {
    /// Source and destination are the same path.
    Same(Resolved),
    Move {
        src: Resolved,
        dst: Resolved,
        /// The destination exists only as another spelling of the source (a case-only rename
        /// on a case-insensitive filesystem).
        case_alias: bool,
    },
}

fn plan(args: Args, cx: &CallContext) -> Result<Plan, Error> {
    let src = paths::resolve(&cx.workspace, &args.source_path)?;
    let dst = paths::resolve(&cx.workspace, &args.destination_path)?;
    // A `forbid_read` source does not exist as far as the model can tell.
    Policy::current(&cx.workspace).check(&src.abs, &src.display)?;
    let meta = fs::symlink_metadata(&src.abs).map_err(|e| io_error("move", &src.display, &e))?;
    let is_dir = if meta.file_type().is_symlink() {
        fs::metadata(&src.abs).is_ok_and(|m| m.is_dir())
    } else {
        meta.is_dir()
    };
    if is_dir {
        return Err(Error::InvalidInput(format!(
            "{} is a directory; {NAME} moves single files only — move the files inside it one \
             by one",
            src.display
        )));
    }
    if dst.display == "." {
        return Err(Error::InvalidInput(format!(
            "{NAME}: `destination_path` must be the file's new path, not the workspace root"
        )));
    }
    if src.abs == dst.abs {
        return Ok(Plan::Same(src));
    }
    let mut case_alias = false;
    match fs::symlink_metadata(&dst.abs) {
        Ok(_) => {
            case_alias = is_case_alias(&src.abs, &dst.abs);
            if !case_alias {
                let what = if fs::metadata(&dst.abs).is_ok_and(|m| m.is_dir()) {
                    "a directory"
                } else {
                    "a file"
                };
                return Err(other_error(
                    "exists",
                    format!(
                        "destination {} already exists ({what}); {NAME} never overwrites. Give \
                         a destination_path that does not exist (the full new file path, not a \
                         directory to move into), or remove the existing one first.",
                        dst.display
                    ),
                ));
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error("move", &dst.display, &e)),
    }
    Ok(Plan::Move {
        src,
        dst,
        case_alias,
    })
}

/// Whether `dst`, which exists, is just `src` spelled with different letter case on a
/// case-insensitive filesystem: same directory, names equal ignoring case, and the directory
/// has no entry spelled exactly like `dst`.
fn is_case_alias(src: &Path, dst: &Path) -> bool {
    let (Some(dir), Some(src_name), Some(dst_name)) =
        (dst.parent(), src.file_name(), dst.file_name())
    else {
        return false;
    };
    if src.parent() != Some(dir) {
        return false;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    let names: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect();
    case_alias_among(&names, src_name, dst_name)
}

fn case_alias_among(
    names: &[std::ffi::OsString],
    src: &std::ffi::OsStr,
    dst: &std::ffi::OsStr,
) -> bool {
    let (Some(s), Some(d)) = (src.to_str(), dst.to_str()) else {
        return false;
    };
    s != d && s.to_lowercase() == d.to_lowercase() && !names.iter().any(|n| n == dst)
}

/// A case-only rename on a case-insensitive filesystem: through a temporary name, since some
/// systems treat renaming a file onto its other spelling as a no-op.
fn rename_via_temp(src: &Path, dst: &Path, call_id: &str) -> io::Result<()> {
    let tag: String = call_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(16)
        .collect();
    let tmp = src.with_file_name(format!(".reasonix-move-{tag}.tmp"));
    fs::rename(src, &tmp)?;
    if let Err(e) = fs::rename(&tmp, dst) {
        let _ = fs::rename(&tmp, src);
        return Err(e);
    }
    Ok(())
}

/// Cross-device fallback: copy to a new file, then remove the source (or the copy on failure).
fn copy_then_remove(src: &Path, dst: &Path) -> io::Result<()> {
    let mut input = fs::File::open(src)?;
    let mut output = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dst)?;
    let result = (|| {
        io::copy(&mut input, &mut output)?;
        output.sync_all()?;
        if let Ok(meta) = fs::metadata(src) {
            let _ = fs::set_permissions(dst, meta.permissions());
        }
        fs::remove_file(src)
    })();
    if result.is_err() {
        let _ = fs::remove_file(dst);
    }
    result
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn invoke(arguments: &str, cx: &CallContext) -> Result<String, Error> {
        reasonix_sdk::tool::invoke::<MoveFile>(arguments, cx)
    }

    fn preview(arguments: &str, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
        reasonix_sdk::tool::preview::<MoveFile>(arguments, cx)
    }
    use crate::edit_file::tests::Ws;
    use serde_json::json;
    use std::ffi::OsString;

    fn args(src: &str, dst: &str) -> String {
        json!({"source_path": src, "destination_path": dst}).to_string()
    }

    #[test]
    fn moves_a_file_creating_parents() {
        let ws = Ws::new();
        ws.put("a.txt", b"hello\r\n");
        let changes = preview(&args("a.txt", "x/y/b.txt"), &ws.cx()).unwrap();
        assert_eq!(changes.len(), 2);
        assert!(matches!(changes[0].kind, ChangeKind::Delete));
        assert_eq!(changes[0].path, ws.path("a.txt").to_string_lossy());
        assert_eq!(changes[0].old_text.as_deref(), Some("hello\r\n"));
        assert!(matches!(changes[1].kind, ChangeKind::Create));
        assert_eq!(changes[1].path, ws.path("x/y/b.txt").to_string_lossy());
        assert_eq!(changes[1].new_text.as_deref(), Some("hello\r\n"));
        assert!(!ws.path("x").exists(), "preview created directories");
        let out = invoke(&args("a.txt", "x/y/b.txt"), &ws.cx()).unwrap();
        assert_eq!(out, "moved a.txt to x/y/b.txt");
        assert!(!ws.path("a.txt").exists());
        assert_eq!(ws.get("x/y/b.txt"), b"hello\r\n");
    }

    #[test]
    fn binary_files_move_byte_for_byte() {
        let ws = Ws::new();
        let bytes = b"\0\x01\x02\xFF\xFE".to_vec();
        ws.put("b.bin", &bytes);
        let changes = preview(&args("b.bin", "c.bin"), &ws.cx()).unwrap();
        assert_eq!(changes[0].old_text, None);
        assert_eq!(changes[1].new_text, None);
        invoke(&args("b.bin", "c.bin"), &ws.cx()).unwrap();
        assert_eq!(ws.get("c.bin"), bytes);
    }

    #[test]
    fn existing_destination_is_refused() {
        let ws = Ws::new();
        ws.put("a.txt", b"a");
        ws.put("b.txt", b"b");
        for r in [
            invoke(&args("a.txt", "b.txt"), &ws.cx()).map(|_| ()),
            preview(&args("a.txt", "b.txt"), &ws.cx()).map(|_| ()),
        ] {
            match r {
                Err(Error::Other(d)) => {
                    assert_eq!(d.code, "exists");
                    assert!(
                        d.message
                            .contains("destination b.txt already exists (a file)"),
                        "{}",
                        d.message
                    );
                }
                other => panic!("{other:?}"),
            }
        }
        fs::create_dir(ws.path("d")).unwrap();
        match invoke(&args("a.txt", "d"), &ws.cx()) {
            Err(Error::Other(d)) => assert!(d.message.contains("(a directory)"), "{}", d.message),
            other => panic!("{other:?}"),
        }
        assert_eq!(ws.get("a.txt"), b"a");
        assert_eq!(ws.get("b.txt"), b"b");
    }

    #[test]
    fn directories_and_missing_sources_are_refused() {
        let ws = Ws::new();
        fs::create_dir(ws.path("dir")).unwrap();
        assert!(matches!(
            invoke(&args("dir", "dir2"), &ws.cx()),
            Err(Error::InvalidInput(m)) if m.contains("directory")
        ));
        assert!(matches!(
            invoke(&args("ghost.txt", "g.txt"), &ws.cx()),
            Err(Error::NotFound(m)) if m.contains("ghost.txt")
        ));
        ws.put("a.txt", b"a");
        assert!(matches!(
            invoke(&args("a.txt", "."), &ws.cx()),
            Err(Error::InvalidInput(_))
        ));
    }

    #[test]
    fn same_path_is_a_no_op() {
        let ws = Ws::new();
        ws.put("a.txt", b"a");
        assert!(
            preview(&args("a.txt", "./a.txt"), &ws.cx())
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            invoke(&args("a.txt", "./a.txt"), &ws.cx()).unwrap(),
            "unchanged: a.txt is already at that path"
        );
        assert_eq!(ws.get("a.txt"), b"a");
    }

    #[test]
    fn both_ends_are_confined() {
        let ws = Ws::new();
        ws.put("a.txt", b"a");
        for (s, d) in [
            ("a.txt", "../out.txt"),
            ("/etc/hostname", "h.txt"),
            ("a.txt", "/tmp/x.txt"),
        ] {
            assert!(matches!(
                invoke(&args(s, d), &ws.cx()),
                Err(Error::Denied(m)) if m.contains("outside the workspace")
            ));
            assert!(preview(&args(s, d), &ws.cx()).is_err());
        }
        assert_eq!(ws.get("a.txt"), b"a");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_moved_as_a_link() {
        use std::os::unix::fs::symlink;
        let ws = Ws::new();
        ws.put("real.txt", b"r");
        symlink("real.txt", ws.path("link.txt")).unwrap();
        invoke(&args("link.txt", "moved.txt"), &ws.cx()).unwrap();
        assert!(
            fs::symlink_metadata(ws.path("moved.txt"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(ws.get("real.txt"), b"r");
    }

    #[test]
    fn case_alias_detection() {
        let names = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        let os = |s: &str| OsString::from(s);
        // Case-insensitive filesystem: only the source spelling is listed.
        assert!(case_alias_among(
            &names(&["Readme.md"]),
            &os("Readme.md"),
            &os("README.md")
        ));
        // Case-sensitive filesystem: both exist, so the destination is a different file.
        assert!(!case_alias_among(
            &names(&["Readme.md", "README.md"]),
            &os("Readme.md"),
            &os("README.md")
        ));
        assert!(!case_alias_among(
            &names(&["a.md"]),
            &os("a.md"),
            &os("b.md")
        ));
    }

    #[test]
    fn bad_arguments_name_the_field() {
        let ws = Ws::new();
        match invoke(r#"{"source_path": "a"}"#, &ws.cx()) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("`destination_path`"), "{m}"),
            other => panic!("{other:?}"),
        }
        match invoke(r#"{"source_path": 1, "destination_path": "b"}"#, &ws.cx()) {
            Err(Error::InvalidInput(m)) => {
                assert!(m.contains("`source_path` must be a string"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
}
