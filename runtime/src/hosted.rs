//! A session for a front end that holds several at once, each in a folder a client names — an
//! editor over ACP, `reasonix serve` — opened one way for both: the folder's configuration
//! read there, the permission posture `ask` (switchable), write previews on, a transcript
//! required (a client resumes by its id), and the resumed conversation handed back for the
//! client to show.

use crate::launch::{Options, Overrides, Resume, Runtime};
use reasonix_agent::agent_loop::Agent;
use reasonix_agent::permissions::{Posture, PostureSwitch};
use reasonix_agent::session::SessionStore;
use reasonix_config::mcp::ServerSpec;
use reasonix_config::providers::ResolvedProvider;
use reasonix_core::types::Message;
use reasonix_session::{Session, SessionEvent};
use std::path::Path;
use std::sync::Arc;

/// What the client asked to open.
pub struct Request<'a> {
    /// An absolute folder.
    pub cwd: &'a Path,
    /// Servers the client brings (an editor's), joined as the user's own.
    pub mcp_servers: Vec<ServerSpec>,
    /// A saved session to continue.
    pub resume: Option<String>,
}

/// A session opened, not yet started: its id is known, so a front end can set up what needs it
/// before [`Hosted::start`].
pub struct Hosted {
    pub runtime: Runtime,
    pub agent: Agent,
    store: SessionStore,
    resolved: Vec<ResolvedProvider>,
    pub id: String,
    /// The resumed session's messages (empty for a new one).
    pub history: Vec<Message>,
    pub resumed_messages: usize,
    pub posture: PostureSwitch,
}

/// Open the session (blocking: configuration, registry, MCP servers). `adjust` changes the
/// runtime before the agent takes its tools (an editor's buffers wrap the file tools).
pub fn open(request: Request<'_>, adjust: impl FnOnce(&mut Runtime)) -> Result<Hosted, String> {
    let overrides = Overrides {
        mcp_servers: request.mcp_servers,
        resume: request.resume.clone().map(Resume::Query),
        project_dir: Some(request.cwd.to_path_buf()),
        ..Overrides::default()
    };
    let mut runtime =
        Runtime::open_with(Some(request.cwd), Vec::new(), &overrides).map_err(|e| e.to_string())?;
    adjust(&mut runtime);
    let launched = runtime
        .launch(&Options {
            posture: Posture::Ask,
            resume: request.resume.map(Resume::Query),
            ..Options::default()
        })
        .map_err(|e| e.to_string())?;
    let history = launched.agent.history().to_vec();
    let agent = launched.agent.with_write_previews();
    let posture = agent.posture_switch();
    let id = agent
        .session_id()
        .map(str::to_string)
        .ok_or("this session keeps no transcript; a session another program drives needs one")?;
    Ok(Hosted {
        runtime,
        agent,
        store: launched.store,
        resolved: launched.resolved,
        id,
        history,
        resumed_messages: launched.resumed_messages,
        posture,
    })
}

impl Hosted {
    /// Start the session's thread; its events go to `emit`. The runtime lives as long as the
    /// caller keeps it (its MCP servers and sidecars with it).
    pub fn start(
        self,
        emit: impl Fn(SessionEvent) + Send + Sync + 'static,
    ) -> Result<(Session, Arc<Runtime>), String> {
        let runtime = Arc::new(self.runtime);
        let session = runtime
            .session(self.agent, self.store, self.resolved, None, emit)
            .map_err(|e| format!("cannot start the session's thread: {e}"))?;
        Ok((session, runtime))
    }
}
