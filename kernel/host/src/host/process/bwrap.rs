//! The bubblewrap command line for one job, and the one-time check that bubblewrap works here.
//!
//! The mount layout, in order (later mounts win):
//! 1. the whole filesystem read-only, fresh `/dev` and `/proc`;
//! 2. the writable directories, outermost first: the workspace and the existing `allow_write`
//!    roots (only for a plugin granted `workspace = read-write`), the job's temp dir, and the
//!    *guards* (see below);
//! 3. every existing protected configuration path ([`SandboxPolicy::protected`]) bound
//!    read-only onto itself;
//! 4. the masks: Reasonix's own directories ([`SandboxPolicy::hidden`]) and the `forbid_read`
//!    paths, an empty read-only tmpfs over a directory, `/dev/null` over a file.
//!
//! A mount point cannot be renamed or removed (`EBUSY`), but the directory *above* one can, and
//! the mount moves with it: `mv .claude x; mkdir .claude` would leave a fresh, writable
//! `.claude/settings.json` where Reasonix reads it. So every writable directory between a
//! writable root and a protected or hidden path is bound onto itself (a guard): it stays
//! writable inside, but cannot be moved away.

use super::JobEnv;
use crate::sandbox::SandboxPolicy;
use std::ffi::OsString;
use std::os::fd::{OwnedFd, RawFd};
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
        // bwrap dies with the host (PR_SET_PDEATHSIG), and its PID namespace with it: nothing
        // a job starts outlives Reasonix, even when Reasonix is killed with SIGKILL.
        "--die-with-parent",
        // No controlling terminal: a command cannot push input into the user's terminal.
        "--new-session",
        // The job's environment is built from `--setenv` alone (bwrap ≥ 0.5); checked once by
        // `self_check`, so an older bwrap is refused there rather than leaking the host's.
        "--clearenv",
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    if !network {
        args.push("--unshare-net".into());
    }
    args
}

/// What one job may touch, resolved against the filesystem when it starts.
#[derive(Debug, Default, PartialEq, Eq)]
struct Layout {
    /// Bound read-write, outermost first.
    writable: Vec<PathBuf>,
    /// Protected paths that exist, resolved: bound read-only onto themselves.
    read_only: Vec<PathBuf>,
    /// Hidden and forbidden paths that exist, resolved: masked.
    masked: Vec<PathBuf>,
    /// Directories inside a masked hidden one bound back read-only, resolved.
    revealed: Vec<PathBuf>,
}

impl Layout {
    fn resolve(policy: &SandboxPolicy, temp: &Path, workspace_writable: bool) -> Layout {
        let mut roots: Vec<PathBuf> = Vec::new();
        let add_root = |roots: &mut Vec<PathBuf>, path: &Path| {
            if let Ok(real) = std::fs::canonicalize(path)
                && real.is_dir()
                && !roots.contains(&real)
            {
                roots.push(real);
            }
        };
        if workspace_writable {
            add_root(&mut roots, &policy.workspace);
            for root in &policy.allow_write {
                add_root(&mut roots, root);
            }
        }
        add_root(&mut roots, temp);
        let inside_writable =
            |path: &Path, roots: &[PathBuf]| roots.iter().any(|r| path.starts_with(r));

        let mut guards: Vec<PathBuf> = Vec::new();
        let guard = |guards: &mut Vec<PathBuf>, roots: &[PathBuf], path: &Path| {
            for dir in path.ancestors().skip(1) {
                if roots.iter().any(|r| dir.starts_with(r) && dir != r)
                    && !guards.iter().any(|g| g == dir)
                {
                    guards.push(dir.to_path_buf());
                }
            }
        };

        let mut read_only = Vec::new();
        for path in &policy.protected {
            // Cheap in the common layout: a protected path under no writable root (a read-only
            // plugin's job) is read-only already. A symlink is followed: the mount lands on
            // its target, and the link itself (in the workspace) can still be replaced.
            if let Ok(real) = std::fs::canonicalize(path)
                && inside_writable(&real, &roots)
                && !read_only.contains(&real)
            {
                guard(&mut guards, &roots, &real);
                read_only.push(real);
            }
        }

        let mut masked: Vec<PathBuf> = Vec::new();
        for path in &policy.hidden {
            // Reasonix's own directory inside a writable root but not created yet: create it
            // now (the kernel would), or a job could plant a home, an index or a cache there.
            if !path.exists() && inside_writable(&crate::sandbox::real_path(path), &roots) {
                let _ = create_private_dir(path);
            }
            if let Ok(real) = std::fs::canonicalize(path) {
                if inside_writable(&real, &roots) {
                    guard(&mut guards, &roots, &real);
                }
                if !masked.contains(&real) {
                    masked.push(real);
                }
            }
        }
        for path in &policy.forbid_read {
            // The mount lands on the target of a symlink either way; masking the target also
            // hides it under every other name.
            if let Ok(real) = std::fs::canonicalize(path)
                && !masked.contains(&real)
            {
                masked.push(real);
            }
        }

        // A path under a masked directory is hidden already (and its mount point would not
        // exist in the empty tmpfs).
        let nested: Vec<bool> = masked
            .iter()
            .map(|p| masked.iter().any(|m| p != m && p.starts_with(m)))
            .collect();
        let mut nested = nested.into_iter();
        masked.retain(|_| !nested.next().unwrap_or(false));

        // Only inside Reasonix's own directories, never inside a `forbid_read` path of the user.
        let hidden: Vec<PathBuf> = policy
            .hidden
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        let forbidden: Vec<PathBuf> = policy
            .forbid_read
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| !hidden.contains(p))
            .collect();
        let revealed: Vec<PathBuf> = policy
            .revealed
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| p.is_dir())
            .filter(|p| hidden.iter().any(|h| p.starts_with(h)))
            .filter(|p| !forbidden.iter().any(|f| p.starts_with(f)))
            .collect();

        roots.extend(guards);
        // Outermost first, so that a bind inside another one stays a mount point of its own.
        roots.sort_by_key(|p| p.components().count());
        Layout {
            writable: roots,
            read_only,
            masked,
            revealed,
        }
    }

    fn args(&self, network: bool) -> Vec<OsString> {
        let mut args = base_args(network);
        for path in &self.writable {
            args.extend(["--bind".into(), path.into(), path.into()]);
        }
        for path in &self.read_only {
            args.extend(["--ro-bind".into(), path.into(), path.into()]);
        }
        // Masks come last so that a hidden path inside a writable root or a protected
        // directory stays hidden.
        for path in &self.masked {
            if path.is_dir() {
                args.extend(["--tmpfs".into(), path.into()]);
            } else {
                args.extend(["--ro-bind".into(), "/dev/null".into(), path.into()]);
            }
        }
        // Bound into the empty tmpfs before it turns read-only (bwrap makes the mount points).
        for path in &self.revealed {
            args.extend(["--ro-bind".into(), path.into(), path.into()]);
        }
        for path in self.masked.iter().filter(|p| p.is_dir()) {
            args.extend(["--remount-ro".into(), path.into()]);
        }
        args
    }
}

#[cfg(unix)]
fn create_private_dir(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
}

/// Arguments for `bwrap` running `program args` in `cwd` (resolved), its environment read from
/// descriptor `env_fd` ([`env_file`]): see the module documentation for the mounts. The
/// workspace and the `allow_write` roots are writable only when `workspace_writable` (the
/// plugin was granted read-write).
pub fn args(
    policy: &SandboxPolicy,
    temp: &Path,
    workspace_writable: bool,
    cwd: &Path,
    env_fd: RawFd,
    program: &str,
    program_args: &[String],
) -> Vec<OsString> {
    let mut args = Layout::resolve(policy, temp, workspace_writable).args(policy.network);
    // `--setenv NAME VALUE…` from a descriptor, not on the command line, which every user of
    // the machine can read in /proc (bwrap reads it to the end and closes it; stdin stays
    // /dev/null).
    args.extend(["--args".into(), env_fd.to_string().into()]);
    // The program is looked up by bwrap's execvp inside the sandbox, on the job's `PATH`:
    // whatever it finds there runs confined.
    args.extend(["--chdir".into(), cwd.into(), "--".into(), program.into()]);
    args.extend(program_args.iter().map(OsString::from));
    args
}

/// Arguments for `bwrap` running a project's stdio MCP server (ADR 0026): the layout of a
/// read-only plugin's job (the workspace and everything else read-only, Reasonix's own
/// directories and the `forbid_read` paths masked, `temp` writable), and besides the user's
/// home directory `home` hidden under an empty tmpfs (no `~/.ssh`, no `~/.aws`, no
/// `<home>/.env`) with the workspace and the `toolchains` inside it bound back read-only.
#[allow(clippy::too_many_arguments)]
pub fn server_args(
    policy: &SandboxPolicy,
    temp: &Path,
    home: Option<&Path>,
    toolchains: &[PathBuf],
    cwd: &Path,
    env_fd: RawFd,
    program: &str,
    program_args: &[String],
) -> Vec<OsString> {
    let layout = Layout::resolve(policy, temp, false);
    let home = home
        .and_then(|h| std::fs::canonicalize(h).ok())
        .filter(|h| h.is_dir() && h.parent().is_some());
    let workspace = std::fs::canonicalize(&policy.workspace).ok();
    let mut args = base_args(policy.network);
    if let Some(home) = &home {
        args.extend(["--tmpfs".into(), home.into()]);
        for dir in toolchains.iter().filter(|d| d.starts_with(home)) {
            args.extend(["--ro-bind".into(), dir.into(), dir.into()]);
        }
    }
    for path in &layout.writable {
        args.extend(["--bind".into(), path.into(), path.into()]);
    }
    if let (Some(home), Some(workspace)) = (&home, &workspace)
        && workspace.starts_with(home)
    {
        args.extend(["--ro-bind".into(), workspace.into(), workspace.into()]);
    }
    for path in &layout.read_only {
        args.extend(["--ro-bind".into(), path.into(), path.into()]);
    }
    let visible = |path: &Path| {
        home.as_ref().is_none_or(|h| !path.starts_with(h))
            || workspace.as_ref().is_some_and(|w| path.starts_with(w))
            || toolchains.iter().any(|t| path.starts_with(t))
            || layout.writable.iter().any(|w| path.starts_with(w))
    };
    for path in layout.masked.iter().filter(|p| visible(p)) {
        if path.is_dir() {
            args.extend(["--tmpfs".into(), path.into()]);
            args.extend(["--remount-ro".into(), path.into()]);
        } else {
            args.extend(["--ro-bind".into(), "/dev/null".into(), path.into()]);
        }
    }
    args.extend(["--args".into(), env_fd.to_string().into()]);
    args.extend(["--chdir".into(), cwd.into(), "--".into(), program.into()]);
    args.extend(program_args.iter().map(OsString::from));
    args
}

/// An unnamed file holding `--setenv NAME VALUE` for every variable of `env`, NUL-separated
/// (what `bwrap --args FD` reads), positioned at its start; close-on-exec.
pub fn env_file(env: &JobEnv) -> std::io::Result<OwnedFd> {
    use std::io::{Seek, Write};
    use std::os::unix::ffi::OsStrExt;
    let mut data: Vec<u8> = Vec::new();
    for (name, value) in env.vars() {
        for part in [b"--setenv".as_slice(), name.as_bytes(), value.as_bytes()] {
            data.extend_from_slice(part);
            data.push(0);
        }
    }
    let mut file = tempfile::tempfile()?;
    file.write_all(&data)?;
    file.rewind()?;
    Ok(file.into())
}

/// Find `bwrap` on the host's own `PATH` (absolute entries only, never the job's), resolved
/// to its real path. `Err` says why there is none.
pub fn find() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    super::find_on_path("bwrap", &path).ok_or_else(|| {
        "bubblewrap (`bwrap`) is not installed (not found on Reasonix's PATH)".to_string()
    })
}

/// Find `bwrap` and run it once with the options jobs use; the path to start it by, or why it
/// cannot be used here.
pub fn self_check() -> Result<PathBuf, String> {
    let bwrap = find()?;
    let mut args = base_args(false);
    args.extend(["--".into(), "true".into()]);
    let out = Command::new(&bwrap)
        .args(&args)
        .env_clear()
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => Ok(bwrap),
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            Err(format!(
                "bubblewrap ({}) does not work here ({}: {})",
                bwrap.display(),
                out.status,
                stderr.trim()
            ))
        }
        Err(e) => Err(format!(
            "bubblewrap ({}) cannot be started: {e}",
            bwrap.display()
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::settings::ShellSandbox;

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
            protected: crate::sandbox::protected_paths(dir),
            revealed: vec![],
            warnings: vec![],
        }
    }

    fn text(args: &[OsString]) -> String {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn env() -> JobEnv {
        let mut env = JobEnv::default();
        env.set("PATH", "/usr/bin");
        env.set("A", "b c");
        env
    }

    #[test]
    fn command_line_binds_masks_and_isolates() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let temp = dir.join("t");
        std::fs::create_dir_all(&temp).unwrap();
        let p = policy(&dir, false);
        let args = args(&p, &temp, true, &dir, 7, "bash", &["-c".into(), "x".into()]);
        let joined = text(&args);
        let ws = dir.display();
        assert!(joined.starts_with("--ro-bind / / --dev /dev --proc /proc"));
        assert!(joined.contains("--unshare-net"));
        assert!(joined.contains("--die-with-parent"));
        assert!(joined.contains(&format!("--bind {ws} {ws} --bind {ws}/t {ws}/t")));
        let tmpfs = joined.find(&format!("--tmpfs {ws}/secret-dir ")).unwrap();
        let sealed = joined
            .find(&format!("--remount-ro {ws}/secret-dir"))
            .unwrap();
        assert!(tmpfs < sealed, "{joined}");
        assert!(joined.contains(&format!("--ro-bind /dev/null {ws}/secret.txt")));
        assert!(!joined.contains("missing") && !joined.contains("gone"));
        // The environment goes to the sandbox, after `--clearenv`, read from stdin.
        assert!(joined.find("--clearenv").unwrap() < joined.find("--args 7").unwrap());
        let mut file = std::fs::File::from(env_file(&env()).unwrap());
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut data).unwrap();
        assert_eq!(data, b"--setenv\0PATH\0/usr/bin\0--setenv\0A\0b c\0");
        assert!(joined.ends_with(&format!("--chdir {ws} -- bash -c x")));
        let with_net = super::args(&policy(&dir, true), &temp, true, &dir, 7, "sh", &[]);
        assert!(!with_net.iter().any(|a| a == "--unshare-net"));
    }

    #[test]
    fn a_read_only_plugin_gets_no_writable_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let temp = tempfile::tempdir().unwrap();
        let temp = std::fs::canonicalize(temp.path()).unwrap();
        let mut p = policy(&dir, false);
        let out = dir.join("out");
        std::fs::create_dir_all(&out).unwrap();
        p.allow_write = vec![out.clone()];
        std::fs::write(dir.join("reasonix.toml"), "").unwrap();
        let joined = text(&args(&p, &temp, false, &dir, 7, "sh", &[]));
        let binds: Vec<&str> = joined.matches("--bind ").collect();
        assert_eq!(binds.len(), 1, "{joined}");
        assert!(joined.contains(&format!("--bind {0} {0}", temp.display())));
        // Read-only already: no protected bind needed.
        assert!(!joined.contains("reasonix.toml"), "{joined}");
        let joined = text(&args(&p, &temp, true, &dir, 7, "sh", &[]));
        assert!(joined.contains(&format!("--bind {0} {0}", out.display())));
    }

    #[test]
    fn protected_paths_are_read_only_and_their_parents_guarded() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let temp = dir.join("t");
        std::fs::create_dir_all(dir.join(".claude")).unwrap();
        std::fs::create_dir_all(&temp).unwrap();
        std::fs::write(dir.join(".claude/settings.json"), "{}").unwrap();
        std::fs::write(dir.join("reasonix.toml"), "").unwrap();
        let home = dir.join("deep/home");
        let mut p = policy(&dir, false);
        p.hidden = vec![home.clone()];
        p.forbid_read.push(home.join(".env"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join(".env"), "K=v").unwrap();
        let joined = text(&args(&p, &temp, true, &dir, 7, "sh", &[]));
        let ws = dir.display();
        let at = |needle: &str| {
            joined
                .find(needle)
                .unwrap_or_else(|| panic!("{needle} not in {joined}"))
        };
        // The workspace first, then the guards, then the read-only binds, then the masks.
        let root = at(&format!("--bind {ws} {ws}"));
        let claude = at(&format!("--bind {ws}/.claude {ws}/.claude"));
        let deep = at(&format!("--bind {ws}/deep {ws}/deep"));
        let settings = at(&format!(
            "--ro-bind {ws}/.claude/settings.json {ws}/.claude/settings.json"
        ));
        let toml = at(&format!("--ro-bind {ws}/reasonix.toml {ws}/reasonix.toml"));
        let mask = at(&format!("--tmpfs {ws}/deep/home "));
        assert!(mask < at(&format!("--remount-ro {ws}/deep/home")));
        assert!(root < claude && root < deep);
        assert!(claude < settings && deep < settings && settings < mask && toml < mask);
        // Inside a masked directory, nothing more is masked.
        assert!(!joined.contains(".env"), "{joined}");
        // Missing protected paths cannot be bound.
        assert!(!joined.contains(".mcp.json"), "{joined}");
    }

    #[test]
    fn a_revealed_package_is_bound_read_only_into_its_masked_home_before_it_is_sealed() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let temp = dir.join("t");
        let home = dir.join("home");
        let package = home.join("packages/kit");
        let forbidden = home.join("packages/secret");
        for d in [&temp, &package, &forbidden] {
            std::fs::create_dir_all(d).unwrap();
        }
        let mut p = policy(&dir, false);
        p.hidden = vec![home.clone()];
        p.forbid_read.extend([home.clone(), forbidden.clone()]);
        p.revealed = vec![package.clone(), forbidden.clone(), dir.join("not-hidden")];
        let joined = text(&args(&p, &temp, true, &dir, 7, "sh", &[]));
        let at = |needle: &str| {
            joined
                .find(needle)
                .unwrap_or_else(|| panic!("{needle} not in {joined}"))
        };
        let (h, k) = (home.display(), package.display());
        let mask = at(&format!("--tmpfs {h} "));
        let bound = at(&format!("--ro-bind {k} {k}"));
        let sealed = at(&format!("--remount-ro {h}"));
        assert!(mask < bound && bound < sealed, "{joined}");
        assert!(
            !joined.contains(&format!("--ro-bind {0} {0}", forbidden.display())),
            "the user's forbid_read wins: {joined}"
        );
        assert!(!joined.contains("not-hidden"), "{joined}");
    }

    #[test]
    fn a_missing_home_inside_a_writable_root_is_created_and_masked() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let (ws, temp, elsewhere) = (dir.join("ws"), dir.join("t"), dir.join("elsewhere"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&temp).unwrap();
        let mut p = policy(&ws, false);
        p.hidden = vec![ws.join("sub/state"), elsewhere.join("cache")];
        let joined = text(&args(&p, &temp, true, &ws, 7, "sh", &[]));
        assert!(ws.join("sub/state").is_dir());
        assert!(joined.contains(&format!("--bind {0}/sub {0}/sub", ws.display())));
        assert!(joined.contains(&format!("--tmpfs {}/sub/state", ws.display())));
        // Outside every writable root: a job cannot create it, so it is left alone.
        assert!(!elsewhere.exists());
        // A read-only plugin's jobs cannot create it either.
        p.hidden = vec![ws.join("other")];
        args(&p, &temp, false, &ws, 7, "sh", &[]);
        assert!(!ws.join("other").exists());
    }
}
