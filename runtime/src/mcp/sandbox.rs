//! Project stdio MCP servers run in the OS sandbox (ADR 0026): whoever can change the
//! repository chose their command, and an approval covers what runs, not what it may reach.
//! Servers of the user's own files run as configured, or confined too when the user asks
//! (`[mcp.<server>] sandbox = true`). Only the user can let a project server run unconfined
//! (`[mcp.<server>] sandbox = false` in `<home>/config.toml`); an entry of a project file
//! asking for it is ignored with a warning.

use crate::term::errln;
use reasonix_config::Config;
use reasonix_config::Paths;
use reasonix_config::mcp::ServerSpec;
use reasonix_core::sandbox::{SandboxConfig, SandboxPolicy};
use reasonix_core::terminal::shown;
use reasonix_host::host::process::{OS_SANDBOX, ServerLaunch, confine_server};
use reasonix_mcp::{Confine, Confined, Confinement, Launch};
use std::path::{Path, PathBuf};
use std::sync::Arc;

struct ProjectSandbox {
    policy: SandboxPolicy,
    home: Option<PathBuf>,
    unconfined: Vec<String>,
    confined: Vec<String>,
    user_config: PathBuf,
}

/// How the session's stdio servers start, for `workspace`; warns about project entries that
/// ask to run unconfined.
pub fn confinement(paths: &Paths, config: &Config, workspace: &Path) -> Confinement {
    for spec in &config.mcp_servers {
        if spec.origin.kind.is_project() && spec.sandbox_off_requested {
            errln!(
                "warning: {}: MCP server `{}`: `\"sandbox\": false` is ignored: only your own {} can let a project server run outside the OS sandbox (`[mcp.{}] sandbox = false`)",
                shown(&spec.origin.file.display().to_string()),
                shown(&spec.name),
                shown(&paths.user_config().display().to_string()),
                shown(&spec.name)
            );
        }
    }
    let mut policy = SandboxConfig {
        settings: config.sandbox.clone(),
        tools: config.tools.clone(),
        always_forbidden: vec![paths.credentials_file()],
        hidden: paths.kernel_dirs(),
        executed_files: config.executed_files.clone(),
    }
    .resolve(workspace);
    // Servers exist to reach services (APIs, databases, registries).
    policy.network = true;
    Confinement(Arc::new(ProjectSandbox {
        policy,
        home: std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from),
        unconfined: config.mcp_unconfined.clone(),
        confined: config.mcp_confined.clone(),
        user_config: paths.user_config(),
    }))
}

impl Confine for ProjectSandbox {
    fn confine(&self, spec: &ServerSpec, launch: &Launch<'_>) -> Result<Option<Confined>, String> {
        let project = spec.origin.kind.is_project();
        let sandboxed = if project {
            !self.unconfined.contains(&spec.name)
        } else {
            self.confined.contains(&spec.name)
        };
        if !sandboxed {
            return Ok(None);
        }
        let confined = confine_server(&ServerLaunch {
            policy: &self.policy,
            home: self.home.as_deref(),
            cwd: launch.cwd,
            env: launch.env,
            program: launch.program,
            args: launch.args,
            extra_read: &[],
        })
        .map_err(|reason| {
            if !project {
                return format!(
                    "`[mcp.{}] sandbox = true` in {} asks for the OS sandbox ({}), but {reason}. To get it, {}",
                    spec.name,
                    self.user_config.display(),
                    OS_SANDBOX.0,
                    OS_SANDBOX.1
                );
            }
            format!(
                "project MCP servers run in the OS sandbox ({}), but {reason}. To get it, {}; or, if you trust this server with your user's rights, let it run unconfined with `[mcp.{}] sandbox = false` in {}",
                OS_SANDBOX.0,
                OS_SANDBOX.1,
                spec.name,
                self.user_config.display()
            )
        })?;
        Ok(Some(Confined {
            program: confined.launcher,
            args: confined.args,
            inherit: Some(confined.env_fd),
            keep: Box::new(confined.temp),
        }))
    }
}
