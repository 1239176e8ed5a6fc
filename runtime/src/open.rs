//! A session opened on a launched agent: the one way a front end gets a
//! [`reasonix_session::Session`], with the workspace's input expansion, the user's own config
//! file for "always allow", and `set_model` resolved against the configured providers.

use crate::launch::{Runtime, client_for};
use reasonix_agent::agent_loop::Agent;
use reasonix_agent::session::SessionStore;
use reasonix_config::providers::ResolvedProvider;
use reasonix_session::input::Expander;
use reasonix_session::input::commands::CommandDir;
use reasonix_session::{Session, SessionEvent, SessionOptions};
use std::path::PathBuf;
use std::sync::Arc;

impl Runtime {
    /// What the workspace's typed lines expand with: its custom command directories, its
    /// skills and its MCP servers.
    pub fn expander(&self) -> Expander {
        Expander::new(self.command_dirs(), self.mcp.clone())
            .with_skills(self.skills.clone())
            .with_commands_only(self.cx.config.commands_only.clone())
    }

    /// The custom command folders: the project's, the user's, then the installed packages'
    /// (whose commands are `/<package>:<command>`).
    pub fn command_dirs(&self) -> Vec<CommandDir> {
        let mut dirs = CommandDir::standard(
            &self.workspace,
            &self.cx.paths.home,
            std::env::var_os("HOME").map(PathBuf::from).as_deref(),
        );
        for (dir, name) in crate::packages::folders(&self.cx.packages, |p| &p.commands) {
            dirs.push(CommandDir::package(dir, name));
        }
        dirs
    }

    /// The composition this runtime runs with, as a session records it.
    pub fn binding(&self) -> Option<reasonix_agent::session::Binding> {
        self.composition
            .as_ref()
            .map(|c| reasonix_agent::session::Binding {
                name: c.name.clone(),
                sha256: c.sha256(),
            })
    }

    /// Start a session on `agent` (built by [`Runtime::launch`]). Its events go to `emit`, in
    /// order.
    pub fn session(
        self: &Arc<Self>,
        agent: Agent,
        store: SessionStore,
        resolved: Vec<ResolvedProvider>,
        effort: Option<String>,
        emit: impl Fn(SessionEvent) + Send + Sync + 'static,
    ) -> std::io::Result<Session> {
        session(self.clone(), agent, store, resolved, effort, emit)
    }
}

fn session(
    prepared: Arc<Runtime>,
    agent: Agent,
    store: SessionStore,
    resolved: Vec<ResolvedProvider>,
    effort: Option<String>,
    emit: impl Fn(SessionEvent) + Send + Sync + 'static,
) -> std::io::Result<Session> {
    let options = SessionOptions {
        user_config: Some(prepared.cx.paths.user_config()),
        models: Some(Box::new({
            let prepared = prepared.clone();
            move |reference: &str| {
                client_for(
                    &prepared,
                    &resolved,
                    Some(reference),
                    None,
                    effort.as_deref(),
                )
                .map_err(|e| e.to_string())
            }
        })),
        asks: true,
        parent: None,
        composition: prepared.binding(),
    };
    Session::spawn(agent, store, prepared.expander(), options, emit)
}
