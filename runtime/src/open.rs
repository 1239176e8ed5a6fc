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

    /// The commands a user may type as `/name`: custom commands (the configuration's
    /// `commands_only` respected) and the skills a user may invoke, by name, first lines of
    /// their descriptions, for every front end's command menu.
    pub fn user_commands(&self) -> Vec<UserCommand> {
        let customs = reasonix_session::input::commands::load(&self.command_dirs());
        let only = self.cx.config.commands_only.as_ref();
        let mut out: Vec<UserCommand> = customs
            .commands
            .iter()
            .filter(|c| only.is_none_or(|o| o.contains(&c.name)))
            .map(|c| UserCommand {
                name: c.name.clone(),
                description: first_line(&c.description),
                hint: c.argument_hint.as_deref().map(first_line),
            })
            .collect();
        for s in self.skills.skills.iter().filter(|s| s.user_invocable) {
            if !out.iter().any(|c| c.name == s.name) {
                out.push(UserCommand {
                    name: s.name.clone(),
                    description: first_line(&s.description),
                    hint: None,
                });
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// The saved facts a turn's words match, appended to that turn (docs/MEMORY.md).
    pub fn recall(&self) -> reasonix_session::Recall {
        let memory = self.memory.clone();
        let workspace = self.workspace.clone();
        Box::new(move |words: &str| memory.recall(&workspace, words))
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

/// A `/name` a user may type: see [`Runtime::user_commands`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserCommand {
    pub name: String,
    pub description: String,
    /// What its arguments are, when it says.
    pub hint: Option<String>,
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_string()
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
        recall: Some(prepared.recall()),
    };
    Session::spawn(agent, store, prepared.expander(), options, emit)
}
