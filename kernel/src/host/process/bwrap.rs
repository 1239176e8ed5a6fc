//! The bubblewrap command line for one job, and the one-time check that bubblewrap works here.

use crate::sandbox::SandboxPolicy;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The namespace and session options every sandboxed job runs with.
fn base_args(network: bool) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        // A PID namespace: when the job's bwrap is killed, everything inside dies with it,
        // including children that left the process group.
        "--unshare-pid",
        "--unshare-ipc",
        "--die-with-parent",
        // No controlling terminal: a command cannot push input into the user's terminal.
        "--new-session",
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    if !network {
        args.push("--unshare-net".into());
    }
    args
}

/// Arguments for `bwrap` running `program args` in `cwd`: the whole filesystem read-only, the
/// workspace, the extra writable roots and `temp` writable, `forbid_read` paths masked.
pub fn args(
    policy: &SandboxPolicy,
    temp: &Path,
    cwd: &Path,
    program: &str,
    program_args: &[String],
) -> Vec<OsString> {
    let mut args = base_args(policy.network);
    let mut bind = |path: &Path| {
        args.push("--bind".into());
        args.push(path.into());
        args.push(path.into());
    };
    bind(&policy.workspace);
    for root in policy.allow_write.iter().filter(|r| r.is_dir()) {
        bind(root);
    }
    bind(temp);
    // Masks come after the binds so that a forbidden path inside a writable root stays hidden.
    for path in policy.forbid_read.iter().flat_map(|p| masked_paths(p)) {
        if path.is_dir() {
            args.extend(["--tmpfs".into(), path.clone().into_os_string()]);
            args.extend(["--remount-ro".into(), path.into_os_string()]);
        } else if path.exists() {
            args.extend([
                "--ro-bind".into(),
                "/dev/null".into(),
                path.into_os_string(),
            ]);
        }
    }
    args.extend(["--chdir".into(), cwd.into(), "--".into(), program.into()]);
    args.extend(program_args.iter().map(OsString::from));
    args
}

/// A forbidden path as written and, when it is a symlink, where it leads (the mount lands on
/// the target either way; masking the target also hides it under every other name).
fn masked_paths(path: &Path) -> Vec<PathBuf> {
    match std::fs::canonicalize(path) {
        Ok(real) => vec![real],
        Err(_) => Vec::new(),
    }
}

/// Run `bwrap` once with the options jobs use. `Err` says why it cannot be used here.
pub fn self_check() -> Result<(), String> {
    let mut args = base_args(false);
    args.extend(["--".into(), "true".into()]);
    let out = Command::new("bwrap")
        .args(&args)
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            Err(format!(
                "bubblewrap (`bwrap`) does not work here ({}: {})",
                out.status,
                stderr.trim()
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err("bubblewrap (`bwrap`) is not installed".to_string())
        }
        Err(e) => Err(format!("bubblewrap (`bwrap`) cannot be started: {e}")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::config::ShellSandbox;

    fn policy(dir: &Path, network: bool) -> SandboxPolicy {
        std::fs::create_dir_all(dir.join("secret-dir")).unwrap();
        std::fs::write(dir.join("secret.txt"), "x").unwrap();
        SandboxPolicy {
            workspace: dir.to_path_buf(),
            allow_write: vec![dir.join("missing")],
            forbid_read: vec![
                dir.join("secret-dir"),
                dir.join("secret.txt"),
                dir.join("gone"),
            ],
            shell: ShellSandbox::Enforce,
            network,
            bash_timeout_secs: 1,
            hidden: vec![],
            protected: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn command_line_binds_masks_and_isolates() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let p = policy(&dir, false);
        let args = args(
            &p,
            Path::new("/tmp/t"),
            &dir,
            "bash",
            &["-c".into(), "x".into()],
        );
        let text: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let joined = text.join(" ");
        let ws = dir.display();
        assert!(joined.starts_with("--ro-bind / / --dev /dev --proc /proc"));
        assert!(joined.contains("--unshare-net"));
        assert!(joined.contains(&format!("--bind {ws} {ws} --bind /tmp/t /tmp/t")));
        assert!(joined.contains(&format!(
            "--tmpfs {ws}/secret-dir --remount-ro {ws}/secret-dir"
        )));
        assert!(joined.contains(&format!("--ro-bind /dev/null {ws}/secret.txt")));
        assert!(!joined.contains("missing") && !joined.contains("gone"));
        assert!(joined.ends_with(&format!("--chdir {ws} -- bash -c x")));
        let with_net = super::args(&policy(&dir, true), Path::new("/t"), &dir, "sh", &[]);
        assert!(!with_net.iter().any(|a| a == "--unshare-net"));
    }
}
