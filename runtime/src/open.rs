//! A session opened on a launched agent: the one way a front end gets a
//! [`reasonix_session::Session`], with the workspace's input expansion, the user's own config
//! file for "always allow", and `set_model` resolved against the configured providers.

use crate::launch::{Prepared, client_for};
use reasonix_agent::agent_loop::Agent;
use reasonix_agent::session::SessionStore;
use reasonix_config::providers::ResolvedProvider;
use reasonix_session::input::Expander;
use reasonix_session::input::commands::CommandDir;
use reasonix_session::{Session, SessionEvent, SessionOptions};
use std::path::PathBuf;
use std::sync::Arc;

/// What a workspace's typed lines expand with: its custom command directories (the project's,
/// then the user's) and its MCP servers.
pub fn expander(prepared: &Prepared) -> Expander {
    Expander::new(
        CommandDir::standard(
            &prepared.workspace,
            &prepared.cx.paths.home,
            std::env::var_os("HOME").map(PathBuf::from).as_deref(),
        ),
        prepared.mcp.clone(),
    )
}

/// Start a session on `agent`. Its events go to `emit`, in order.
pub fn session(
    prepared: Arc<Prepared>,
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
    };
    Session::spawn(agent, store, expander(&prepared), options, emit)
}
