//! A project's stdio MCP server in the OS sandbox (ADR 0026): the same bubblewrap, self-check
//! and environment hand-over as commands, with the layout of [`bwrap::server_args`].
//!
//! A project server is code the repository chose; the approval of its `.mcp.json` says which
//! command runs, not what that command may reach. Confined, it reads the workspace but cannot
//! change it (not even its own script), cannot see the user's home (keys, tokens, shell
//! history) nor Reasonix's own directories, and whatever it starts dies with its PID namespace
//! when the session ends (a `setsid` child included). The network stays open: servers exist to
//! reach services.

use super::JobEnv;
use crate::sandbox::SandboxPolicy;
use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The launcher command line for one server.
pub struct ConfinedServer {
    pub launcher: PathBuf,
    pub args: Vec<OsString>,
    /// The server's environment for `bwrap --args`: the launcher must inherit it.
    pub env_fd: OwnedFd,
    /// The server's private, writable temp directory (its `HOME` and `TMPDIR`); removed when
    /// dropped.
    pub temp: tempfile::TempDir,
}

/// What one server is started with.
pub struct ServerLaunch<'a> {
    /// The workspace (read-only inside), Reasonix's hidden directories, `forbid_read`.
    pub policy: &'a SandboxPolicy,
    /// The user's home directory, hidden.
    pub home: Option<&'a Path>,
    pub cwd: &'a Path,
    pub env: &'a [(String, OsString)],
    pub program: &'a str,
    pub args: &'a [String],
    /// Further directories inside the home the program needs to read (a language server's
    /// toolchain, a package cache), bound read-only; never the home itself.
    pub extra_read: &'a [PathBuf],
}

/// Where bubblewrap is and that it works, checked once per process.
fn launcher() -> Result<PathBuf, String> {
    static CHECKED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    #[cfg(target_os = "linux")]
    let check = super::bwrap::self_check;
    #[cfg(not(target_os = "linux"))]
    let check = || -> Result<PathBuf, String> {
        Err("the OS sandbox for MCP servers is bubblewrap, which runs on Linux only".to_string())
    };
    CHECKED.get_or_init(check).clone()
}

/// The command line that starts `launch` confined, or why it cannot be.
pub fn confine_server(launch: &ServerLaunch<'_>) -> Result<ConfinedServer, String> {
    let launcher = launcher()?;
    // The launcher runs unconfined: one the workspace holds (a `PATH` entry inside it) could
    // have been written by anyone who can write the workspace.
    let workspace = crate::sandbox::real_path(&launch.policy.workspace);
    if launcher.starts_with(&workspace) {
        return Err(format!(
            "the sandbox launcher found on Reasonix's PATH, {}, lies inside the workspace; refusing to start it. Install it system-wide and remove that directory from PATH",
            launcher.display()
        ));
    }
    let temp = tempfile::Builder::new()
        .prefix("reasonix-mcp-")
        .tempdir()
        .map_err(|e| format!("cannot create the server's temp directory: {e}"))?;
    let mut env = JobEnv::default();
    for (name, value) in launch.env {
        env.set(name, value.clone());
    }
    // The real home is hidden: tools that keep caches or settings there get a private one.
    for name in ["HOME", "TMPDIR", "TMP", "TEMP"] {
        env.set(name, temp.path());
    }
    let mut toolchains = launch
        .home
        .map(|home| toolchain_dirs(home, &workspace, launch))
        .unwrap_or_default();
    let home_real = launch.home.and_then(|h| std::fs::canonicalize(h).ok());
    for dir in launch.extra_read {
        if let Ok(real) = std::fs::canonicalize(dir)
            && home_real.as_ref().is_none_or(|h| &real != h)
            && !toolchains.iter().any(|t| real.starts_with(t))
        {
            toolchains.push(real);
        }
    }
    let env_fd = super::bwrap::env_file(&env)
        .map_err(|e| format!("cannot hand over the server's environment: {e}"))?;
    let args = super::bwrap::server_args(
        launch.policy,
        temp.path(),
        launch.home,
        &toolchains,
        launch.cwd,
        std::os::fd::AsRawFd::as_raw_fd(&env_fd),
        launch.program,
        launch.args,
    );
    Ok(ConfinedServer {
        launcher,
        args,
        env_fd,
        temp,
    })
}

/// The directories inside the hidden home that the server's program needs: the `PATH`
/// entries that lie there (`~/.local/bin`, `~/.nvm/versions/node/v22/bin`), and the install
/// prefix of each such `bin` and of the program itself (the directory above its `bin`), but
/// only when that prefix lies at least two levels below the home: `~/.nvm/versions/node/v22`
/// holds a toolchain, while `~/.cargo` or `~/.local` hold credentials and keyrings besides.
/// Nothing inside the workspace (it is visible already) and never the home itself.
fn toolchain_dirs(home: &Path, workspace: &Path, launch: &ServerLaunch<'_>) -> Vec<PathBuf> {
    let Ok(home) = std::fs::canonicalize(home) else {
        return Vec::new();
    };
    let deep_enough = |dir: &Path| {
        dir.strip_prefix(&home)
            .is_ok_and(|rest| rest.components().count() >= 2)
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut add = |dir: PathBuf| {
        if dir.starts_with(&home) && dir != home && !dir.starts_with(workspace) {
            dirs.push(dir);
        }
    };
    let path_var = launch
        .env
        .iter()
        .rev()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| value.clone())
        .unwrap_or_default();
    let entries: Vec<PathBuf> = std::env::split_paths(&path_var)
        .filter(|p| p.is_absolute())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    for entry in &entries {
        add(entry.clone());
        if let Some(prefix) = entry.parent()
            && entry.file_name().is_some_and(|n| n == "bin")
            && deep_enough(prefix)
        {
            add(prefix.to_path_buf());
        }
    }
    let program = if launch.program.contains('/') {
        Some(launch.cwd.join(launch.program))
    } else {
        entries
            .iter()
            .map(|dir| dir.join(launch.program))
            .find(|candidate| candidate.is_file())
    };
    // The program as found (a venv's `bin/python`) and what it really is (the base Python
    // that link leads to): the venv's packages and the interpreter's library both count.
    let found = program.as_ref().and_then(|p| {
        let dir = std::fs::canonicalize(p.parent()?).ok()?;
        Some(dir.join(p.file_name()?))
    });
    let real = program.and_then(|p| std::fs::canonicalize(p).ok());
    for file in found.into_iter().chain(real) {
        if let Some(dir) = file.parent() {
            match dir.parent() {
                Some(prefix) if deep_enough(prefix) => add(prefix.to_path_buf()),
                _ => add(dir.to_path_buf()),
            }
        }
    }
    dirs.sort();
    dirs.dedup();
    // A directory inside another one is bound with it.
    let all = dirs.clone();
    dirs.retain(|dir| {
        !all.iter()
            .any(|other| other != dir && dir.starts_with(other))
    });
    dirs
}

/// Spawn `cmd` (the launcher of a [`ConfinedServer`]), the child inheriting `env_fd` under its
/// own number. Serialised with every other spawn that hands over a descriptor
/// ([`reasonix_core::spawn::inheriting_spawn`]), and the descriptor is closed right after, so
/// no other child inherits it.
pub fn spawn_with_env_fd(
    cmd: &mut std::process::Command,
    env_fd: OwnedFd,
) -> std::io::Result<std::process::Child> {
    let _one = reasonix_core::spawn::inheriting_spawn();
    rustix::io::fcntl_setfd(&env_fd, rustix::io::FdFlags::empty())?;
    let child = cmd.spawn();
    drop(env_fd);
    child
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_toolchain_in_the_home_is_visible_but_not_what_lies_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let home = std::fs::canonicalize(dir.path()).unwrap();
        let node = home.join(".nvm/versions/node/v22");
        for sub in ["bin", "lib/node_modules/npm/bin"] {
            std::fs::create_dir_all(node.join(sub)).unwrap();
        }
        std::fs::write(node.join("lib/node_modules/npm/bin/npx-cli.js"), "").unwrap();
        std::os::unix::fs::symlink(
            node.join("lib/node_modules/npm/bin/npx-cli.js"),
            node.join("bin/npx"),
        )
        .unwrap();
        let pipx = home.join(".local/share/pipx/venvs/srv/bin");
        std::fs::create_dir_all(&pipx).unwrap();
        std::fs::write(pipx.join("srv"), "").unwrap();
        std::fs::create_dir_all(home.join(".local/bin")).unwrap();
        std::os::unix::fs::symlink(pipx.join("srv"), home.join(".local/bin/srv")).unwrap();
        std::fs::create_dir_all(home.join(".cargo/bin")).unwrap();
        let workspace = home.join("project");
        std::fs::create_dir_all(&workspace).unwrap();
        let path = std::env::join_paths([
            node.join("bin"),
            home.join(".local/bin"),
            home.join(".cargo/bin"),
            PathBuf::from("/usr/bin"),
        ])
        .unwrap();
        let policy = reasonix_core::sandbox::SandboxConfig::default().resolve(&workspace);
        let env = vec![("PATH".to_string(), path)];
        let dirs = |program: &str| {
            toolchain_dirs(
                &home,
                &workspace,
                &ServerLaunch {
                    policy: &policy,
                    home: Some(&home),
                    cwd: &workspace,
                    env: &env,
                    program,
                    args: &[],
                    extra_read: &[],
                },
            )
        };
        let common = [
            home.join(".cargo/bin"),
            home.join(".local/bin"),
            node.clone(),
        ];
        assert_eq!(dirs("npx"), common.to_vec());
        let mut with_venv = common.to_vec();
        with_venv.push(home.join(".local/share/pipx/venvs/srv"));
        with_venv.sort();
        assert_eq!(dirs("srv"), with_venv);
        assert!(!dirs("srv").contains(&home.join(".local")));
        assert!(!dirs("srv").contains(&home.join(".cargo")));
    }
}
