//! Resolving user paths against the workspace, and turning I/O failures into tool errors.
//!
//! Resolution is purely lexical: `std::fs::canonicalize` does not work under WASI, and the
//! sandbox itself refuses anything that escapes the preopened workspace through a symlink
//! (that surfaces as `PermissionDenied`, mapped by [`io_error`]).

use std::path::{Component, Path, PathBuf};

use reasonix_sdk::{Error, other_error};

/// A user path resolved against the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Absolute, lexically normalised path inside the workspace.
    pub abs: PathBuf,
    /// The path as shown in messages: relative to the workspace (`.` for its root).
    pub display: String,
}

/// Lexically normalise `path`: drop `.` components and resolve `..` against the preceding
/// component. `..` at the root stays at the root, as the OS does.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                // A relative path climbing above its start keeps the `..`.
                Some(Component::ParentDir) | None => out.push(component),
                Some(Component::CurDir) => {}
            },
            other => out.push(other),
        }
    }
    let mut result = PathBuf::new();
    for component in out {
        result.push(component.as_os_str());
    }
    result
}

/// Resolve `user_path` against the absolute `workspace`: a relative path is joined to it, an
/// absolute one is taken as is; both are normalised and must stay inside the workspace.
pub fn resolve(workspace: &str, user_path: &str) -> Result<Resolved, Error> {
    if user_path.is_empty() {
        return Err(Error::InvalidInput("path must not be empty".to_string()));
    }
    if user_path.contains('\0') {
        return Err(Error::InvalidInput(
            "path must not contain NUL characters".to_string(),
        ));
    }
    let ws = Path::new(workspace);
    if workspace.is_empty() || !ws.is_absolute() {
        return Err(Error::Denied(format!(
            "no usable workspace for this call (got {workspace:?}); file tools need an absolute workspace path"
        )));
    }
    let ws = normalize(ws);
    let candidate = Path::new(user_path);
    let joined = if candidate.is_absolute() {
        candidate.to_path_buf()
    } else {
        ws.join(candidate)
    };
    let abs = normalize(&joined);
    let Ok(rel) = abs.strip_prefix(&ws) else {
        return Err(Error::Denied(format!(
            "path {} is outside the workspace {}",
            abs.display(),
            ws.display()
        )));
    };
    let display = if rel.as_os_str().is_empty() {
        ".".to_string()
    } else {
        rel.to_string_lossy().into_owned()
    };
    Ok(Resolved { abs, display })
}

/// The error a failed filesystem operation `op` (e.g. `read`, `write`) on `path` becomes.
pub fn io_error(op: &str, path: &str, err: &std::io::Error) -> Error {
    use std::io::ErrorKind;
    match err.kind() {
        ErrorKind::NotFound => Error::NotFound(format!("no such file: {path}")),
        _ if is_denied(err) => denied(op, path),
        _ => other_error("io", format!("{op} {path}: {err}")),
    }
}

/// Whether `err` is the sandbox (or the OS) refusing access.
pub fn is_denied(err: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        err.kind(),
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem
    ) || is_not_capable(err)
}

fn denied(op: &str, path: &str) -> Error {
    Error::Denied(format!(
        "{op} {path}: permission denied — the path is outside what this plugin was granted \
         (a symlink leaving the workspace, or a read-only grant)"
    ))
}

/// WASI's `ENOTCAPABLE` (76 in wasi-libc), which std reports as an uncategorised error.
fn is_not_capable(err: &std::io::Error) -> bool {
    cfg!(target_os = "wasi") && err.raw_os_error() == Some(76)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::io;

    fn ok(ws: &str, p: &str) -> Resolved {
        match resolve(ws, p) {
            Ok(r) => r,
            Err(e) => panic!("resolve({ws}, {p}) failed: {e:?}"),
        }
    }

    #[test]
    fn relative_path_is_joined_to_workspace() {
        let r = ok("/tmp/ws", "src/main.rs");
        assert_eq!(r.abs, PathBuf::from("/tmp/ws/src/main.rs"));
        assert_eq!(r.display, "src/main.rs");
    }

    #[test]
    fn dot_is_workspace_root() {
        let r = ok("/tmp/ws", ".");
        assert_eq!(r.abs, PathBuf::from("/tmp/ws"));
        assert_eq!(r.display, ".");
        assert_eq!(ok("/tmp/ws/", "./").display, ".");
    }

    #[test]
    fn dot_and_dotdot_are_normalised() {
        let r = ok("/tmp/ws", "./a/./b/../c.txt");
        assert_eq!(r.abs, PathBuf::from("/tmp/ws/a/c.txt"));
        assert_eq!(r.display, "a/c.txt");
        // Climbing out and back in stays inside.
        assert_eq!(ok("/tmp/ws", "../ws/x").display, "x");
    }

    #[test]
    fn absolute_path_inside_workspace_is_accepted() {
        let r = ok("/tmp/ws", "/tmp/ws/lib/x.rs");
        assert_eq!(r.abs, PathBuf::from("/tmp/ws/lib/x.rs"));
        assert_eq!(r.display, "lib/x.rs");
    }

    #[test]
    fn dotdot_leaving_workspace_is_denied() {
        match resolve("/tmp/ws", "../../etc/passwd") {
            Err(Error::Denied(m)) => {
                assert_eq!(m, "path /etc/passwd is outside the workspace /tmp/ws");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(resolve("/tmp/ws", ".."), Err(Error::Denied(_))));
        assert!(matches!(
            resolve("/tmp/ws", "a/../../b"),
            Err(Error::Denied(_))
        ));
    }

    #[test]
    fn absolute_path_outside_workspace_is_denied() {
        match resolve("/tmp/ws", "/etc/passwd") {
            Err(Error::Denied(m)) => {
                assert_eq!(m, "path /etc/passwd is outside the workspace /tmp/ws");
            }
            other => panic!("unexpected {other:?}"),
        }
        // A sibling sharing the prefix as a string is still outside.
        assert!(matches!(
            resolve("/tmp/ws", "/tmp/ws2/file"),
            Err(Error::Denied(_))
        ));
        // An absolute path sneaking out through `..` is normalised first.
        assert!(matches!(
            resolve("/tmp/ws", "/tmp/ws/../secret"),
            Err(Error::Denied(_))
        ));
    }

    #[test]
    fn empty_path_and_bad_workspace_are_refused() {
        assert!(matches!(
            resolve("/tmp/ws", ""),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            resolve("/tmp/ws", "a\0b"),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(resolve("", "a"), Err(Error::Denied(_))));
        assert!(matches!(resolve("relative/ws", "a"), Err(Error::Denied(_))));
    }

    #[test]
    fn normalize_keeps_root_and_leading_parents() {
        assert_eq!(normalize(Path::new("/../a")), PathBuf::from("/a"));
        assert_eq!(normalize(Path::new("../a/./b")), PathBuf::from("../a/b"));
        assert_eq!(normalize(Path::new("a/..")), PathBuf::from(""));
    }

    #[test]
    fn io_errors_are_mapped() {
        let nf = io::Error::new(io::ErrorKind::NotFound, "gone");
        match io_error("read", "a.txt", &nf) {
            Error::NotFound(m) => assert_eq!(m, "no such file: a.txt"),
            other => panic!("unexpected {other:?}"),
        }
        let pd = io::Error::new(io::ErrorKind::PermissionDenied, "nope");
        match io_error("write", "b.txt", &pd) {
            Error::Denied(m) => {
                assert!(m.starts_with("write b.txt: permission denied"), "{m}");
                assert!(m.contains("symlink leaving the workspace"), "{m}");
                assert!(m.contains("read-only grant"), "{m}");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(is_denied(&pd));
        assert!(!is_denied(&nf));
        let ro = io::Error::new(io::ErrorKind::ReadOnlyFilesystem, "ro");
        assert!(matches!(io_error("write", "c", &ro), Error::Denied(_)));
        let other = io::Error::other("disk on fire");
        match io_error("read", "c.txt", &other) {
            Error::Other(d) => {
                assert_eq!(d.code, "io");
                assert_eq!(d.message, "read c.txt: disk on fire");
            }
            e => panic!("unexpected {e:?}"),
        }
    }
}
