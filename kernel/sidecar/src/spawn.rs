//! How a sidecar's process is started: exec form only (no shell), `${REASONIX_PLUGIN_ROOT}`
//! expanded, the workspace as working directory, and an environment built from an allow-list,
//! so provider credentials and other secrets of the user's shell never reach it.

use crate::manifest::Runtime;
use crate::sandbox::{Confinement, bwrap_args};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Variables passed through from Reasonix's own environment, when set. Nothing else is:
/// `*_API_KEY` variables, tokens and the like stay behind.
pub const PASSED_THROUGH: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SHELL",
];

pub use crate::manifest::ROOT_PLACEHOLDER;

/// What a sidecar's process is started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    /// The package directory (bound read-only into the sandbox).
    pub root: PathBuf,
}

impl Launch {
    /// The launch of `runtime` for package `name` installed at `root`, run in `workspace`.
    pub fn new(
        name: &str,
        version: &str,
        root: &Path,
        runtime: &Runtime,
        workspace: &Path,
    ) -> Launch {
        let root_text = root.display().to_string();
        let expand = |s: &str| s.replace(ROOT_PLACEHOLDER, &root_text);
        let mut env: Vec<(String, String)> = PASSED_THROUGH
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_string(), v)))
            .collect();
        env.push(("REASONIX_PLUGIN_ROOT".into(), root_text.clone()));
        env.push(("REASONIX_PLUGIN_NAME".into(), name.into()));
        env.push(("REASONIX_PLUGIN_VERSION".into(), version.into()));
        env.push((
            "REASONIX_WORKSPACE_ROOT".into(),
            workspace.display().to_string(),
        ));
        for (k, v) in &runtime.env {
            env.push((k.clone(), expand(v)));
        }
        Launch {
            program: expand(&runtime.command),
            args: runtime.args.iter().map(|a| expand(a)).collect(),
            env,
            cwd: workspace.to_path_buf(),
            root: root.to_path_buf(),
        }
    }

    /// The command line, for the install preview and errors.
    pub fn command_line(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| {
                if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"')
                {
                    format!("'{}'", a.replace('\'', "'\\''"))
                } else {
                    a.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The `Command` under `confinement`, with piped stdio, in a process group of its own (so
    /// the whole tree can be killed). `Err` when sidecars may not start here.
    pub fn command(&self, confinement: &Confinement) -> Result<Command, String> {
        let mut command = match confinement {
            Confinement::Sandbox { bwrap, policy } => {
                let mut command = Command::new(bwrap);
                command.args(bwrap_args(
                    policy,
                    &self.root,
                    &self.cwd,
                    &self.program,
                    &self.args,
                ));
                command
            }
            Confinement::Unconfined => {
                let mut command = Command::new(&self.program);
                command.args(&self.args);
                command
            }
            Confinement::Unavailable(reason) => return Err(reason.clone()),
        };
        // bubblewrap hands its own environment to the program: the filtered one.
        command
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        Ok(command)
    }
}

/// SIGKILL the process group of `pid` (a group that is already gone is fine).
pub fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn credentials_of_the_parent_never_pass_and_the_root_expands() {
        let runtime: Runtime = serde_json::from_value(serde_json::json!({
            "command": "${REASONIX_PLUGIN_ROOT}/bin/x",
            "args": ["--config", "${REASONIX_PLUGIN_ROOT}/c.json", "two words"],
            "env": {"MODE": "${REASONIX_PLUGIN_ROOT}"}
        }))
        .unwrap();
        let launch = Launch::new("p", "1.0.0", Path::new("/pk"), &runtime, Path::new("/ws"));
        assert_eq!(launch.program, "/pk/bin/x");
        assert_eq!(launch.args[1], "/pk/c.json");
        assert!(launch.env.contains(&("MODE".into(), "/pk".into())));
        assert!(launch.env.iter().all(|(k, _)| !k.contains("API_KEY")));
        assert_eq!(
            launch.command_line(),
            "/pk/bin/x --config /pk/c.json 'two words'"
        );
    }
}
