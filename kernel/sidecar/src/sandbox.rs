//! Where a sidecar runs: inside bubblewrap, with the same policy the host's `process` service
//! applies to commands (`[sandbox]`): the filesystem read-only except the workspace and the
//! `allow_write` roots, the workspace's configuration files read-only, Reasonix's own
//! directories (keys, sessions, the plugin index) and `forbid_read` masked, a private `/tmp`,
//! no network when `[sandbox] network = false`, its own PID namespace so nothing outlives it.
//! Its package directory is bound back read-only so it can read its own files.
//!
//! With `[sandbox] bash = "off"` the user runs commands unconfined, and sidecars too.

use reasonix_core::sandbox::SandboxPolicy;
use reasonix_core::settings::ShellSandbox;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How sidecars are started in this run.
#[derive(Debug, Clone)]
pub enum Confinement {
    /// Inside bubblewrap at this path, with this policy.
    Sandbox {
        bwrap: PathBuf,
        policy: SandboxPolicy,
    },
    /// Unconfined, because the user said so (`[sandbox] bash = "off"`).
    Unconfined,
    /// Sandboxing is required but unavailable: no sidecar may start, for this reason.
    Unavailable(String),
}

impl Confinement {
    /// The confinement `policy` asks for, checking once that bubblewrap works here.
    pub fn for_policy(policy: SandboxPolicy) -> Confinement {
        if policy.shell == ShellSandbox::Off {
            return Confinement::Unconfined;
        }
        match find_bwrap().and_then(|bwrap| self_check(&bwrap).map(|()| bwrap)) {
            Ok(bwrap) => Confinement::Sandbox { bwrap, policy },
            Err(reason) => Confinement::Unavailable(format!(
                "sidecars run in the OS sandbox (`[sandbox] bash = \"enforce\"`), but {reason}; \
                 install bubblewrap (`apt-get install bubblewrap`), or set `[sandbox] bash = \"off\"` \
                 to run commands and sidecars unconfined"
            )),
        }
    }

    /// One line for messages.
    pub fn describe(&self) -> String {
        match self {
            Confinement::Sandbox { policy, .. } => format!(
                "in the OS sandbox (bubblewrap): writes only to the workspace{}, Reasonix's own directories hidden, network {}",
                if policy.allow_write.is_empty() {
                    ""
                } else {
                    " and `allow_write`"
                },
                if policy.network { "allowed" } else { "off" }
            ),
            Confinement::Unconfined => "unconfined (`[sandbox] bash = \"off\"`)".into(),
            Confinement::Unavailable(reason) => reason.clone(),
        }
    }
}

/// `bwrap` on Reasonix's own PATH (absolute entries only).
fn find_bwrap() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| candidate.is_file())
        .and_then(|found| std::fs::canonicalize(found).ok())
        .ok_or_else(|| {
            "bubblewrap (`bwrap`) is not installed (not found on Reasonix's PATH)".into()
        })
}

fn self_check(bwrap: &Path) -> Result<(), String> {
    let out = Command::new(bwrap)
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--unshare-pid",
            "--die-with-parent",
            "--",
            "true",
        ])
        .env_clear()
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "bubblewrap ({}) does not work here: {}",
            bwrap.display(),
            reasonix_core::terminal::line(String::from_utf8_lossy(&out.stderr).trim())
        )),
        Err(e) => Err(format!(
            "bubblewrap ({}) cannot be started: {e}",
            bwrap.display()
        )),
    }
}

/// The bubblewrap arguments that run `program args` in `cwd` under `policy`, with `root` (the
/// package) readable. Later mounts win, so the order is: everything read-only, the writable
/// roots, the protected files read-only again, the masks, then the package.
pub fn bwrap_args(
    policy: &SandboxPolicy,
    root: &Path,
    cwd: &Path,
    program: &str,
    args: &[String],
) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    let mut push = |items: &[&std::ffi::OsStr]| out.extend(items.iter().map(|s| s.to_os_string()));
    push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
    push(&[
        "--dev".as_ref(),
        "/dev".as_ref(),
        "--proc".as_ref(),
        "/proc".as_ref(),
    ]);
    push(&["--tmpfs".as_ref(), "/tmp".as_ref()]);
    push(&[
        "--unshare-pid".as_ref(),
        "--unshare-ipc".as_ref(),
        "--die-with-parent".as_ref(),
        "--new-session".as_ref(),
    ]);
    if !policy.network {
        push(&["--unshare-net".as_ref()]);
    }
    for dir in std::iter::once(&policy.workspace).chain(&policy.allow_write) {
        if dir.exists() {
            push(&["--bind".as_ref(), dir.as_os_str(), dir.as_os_str()]);
        }
    }
    for path in &policy.protected {
        if path.exists() {
            push(&["--ro-bind".as_ref(), path.as_os_str(), path.as_os_str()]);
        }
    }
    // Masks: an empty tmpfs over a directory, /dev/null over a file. Nothing under a masked
    // directory needs (or could get) a mask of its own: the tmpfs is empty.
    let mut masked: Vec<&PathBuf> = Vec::new();
    for path in policy.hidden.iter().chain(&policy.forbid_read) {
        if masked.iter().any(|dir| path.starts_with(dir)) {
            continue;
        }
        if path.is_dir() {
            masked.push(path);
            push(&["--tmpfs".as_ref(), path.as_os_str()]);
        } else if path.exists() {
            push(&["--ro-bind".as_ref(), "/dev/null".as_ref(), path.as_os_str()]);
        }
    }
    // The package, readable even inside a masked home; then the masks become read-only (the
    // mount point for the package had to be created in them first).
    push(&["--ro-bind".as_ref(), root.as_os_str(), root.as_os_str()]);
    for dir in &masked {
        push(&["--remount-ro".as_ref(), dir.as_os_str()]);
    }
    push(&[
        "--chdir".as_ref(),
        cwd.as_os_str(),
        "--".as_ref(),
        program.as_ref(),
    ]);
    out.extend(args.iter().map(OsString::from));
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn the_package_is_bound_after_the_masks_and_the_program_comes_last() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = home.path().join("plugins/p");
        std::fs::create_dir_all(&root).unwrap();
        let mut policy = SandboxPolicy::for_test(ws.path(), vec![], vec![]);
        policy.hidden = vec![home.path().to_path_buf()];
        policy.network = false;
        let args: Vec<String> = bwrap_args(&policy, &root, ws.path(), "python3", &["x.py".into()])
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let pos = |needle: &str| args.iter().position(|a| a == needle).unwrap();
        let home_text = home.path().to_str().unwrap();
        let root_text = root.to_str().unwrap();
        assert!(pos(home_text) < args.iter().rposition(|a| a == root_text).unwrap());
        assert!(args.contains(&"--unshare-net".to_string()));
        assert_eq!(&args[args.len() - 2..], ["python3", "x.py"]);
    }
}
