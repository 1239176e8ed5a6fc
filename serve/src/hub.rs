//! The sessions a server holds: each a Reasonix session with its own runtime, opened in a
//! folder, whose events go to its [`Stream`] and whose questions are answered by the
//! `approve` and `deny` operations clients post.

use crate::stream::Stream;
use reasonix_agent::permissions::PostureSwitch;
use reasonix_core::types::Role;
use reasonix_protocol::{EventKind, Op};
use reasonix_runtime::hosted;
use reasonix_runtime::launch::Runtime;
use reasonix_runtime::open::UserCommand;
use reasonix_session::Session;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Sessions one server holds at most.
pub const MAX_SESSIONS: usize = 32;

pub struct Live {
    pub id: String,
    pub cwd: PathBuf,
    /// `provider/model`.
    pub model: String,
    /// The model's context window in tokens, when configured or known.
    pub context_window: Option<u64>,
    /// The `/name` commands the session expands (custom commands and skills).
    pub commands: Vec<UserCommand>,
    /// The permission posture, switched live by clients.
    pub posture: PostureSwitch,
    pub stream: Arc<Stream>,
    session: Session,
    _runtime: Arc<Runtime>,
}

impl Live {
    pub fn submit(&self, op: Op) {
        self.session.submit(op);
    }
}

#[derive(Default)]
pub struct Hub {
    sessions: Mutex<BTreeMap<String, Arc<Live>>>,
}

impl Hub {
    pub fn get(&self, id: &str) -> Option<Arc<Live>> {
        self.sessions.lock().ok()?.get(id).cloned()
    }

    pub fn list(&self) -> Vec<Arc<Live>> {
        self.sessions
            .lock()
            .map(|s| s.values().cloned().collect())
            .unwrap_or_default()
    }

    /// End session `id`; whether there was one.
    pub fn close(&self, id: &str) -> bool {
        let removed = self.sessions.lock().ok().and_then(|mut s| s.remove(id));
        match removed {
            Some(live) => {
                live.submit(Op::Quit {});
                true
            }
            None => false,
        }
    }

    /// Open a session in `cwd` (blocking: configuration, registry, servers), or continue
    /// saved session `resume`.
    pub fn open(&self, cwd: &Path, resume: Option<String>) -> Result<Arc<Live>, String> {
        if self.sessions.lock().map(|s| s.len()).unwrap_or(0) >= MAX_SESSIONS {
            return Err(format!(
                "this server holds {MAX_SESSIONS} sessions already; close one first"
            ));
        }
        let hosted = hosted::open(
            hosted::Request {
                cwd,
                mcp_servers: Vec::new(),
                resume,
            },
            |_| {},
        )?;
        let id = hosted.id.clone();
        let client = hosted.agent.client();
        let provider = client.provider().name.clone();
        let model = client.model().to_string();
        let context_window = client.provider().context_window_for(&model);
        let stream = Arc::new(Stream::new(&id));
        stream.push(EventKind::SessionStarted {
            provider: provider.clone(),
            model: model.clone(),
            cwd: hosted.runtime.workspace.display().to_string(),
            tools: hosted
                .agent
                .tool_specs()
                .iter()
                .map(|t| t.name.clone())
                .collect(),
            permission_mode: "ask".into(),
            resumed_messages: hosted.resumed_messages as u64,
            mcp_servers: Vec::new(),
        });
        // A resumed session's conversation, so a client shows it before what comes next.
        for message in hosted
            .history
            .iter()
            .filter(|m| !m.content.trim().is_empty())
        {
            match message.role {
                Role::User => stream.push(EventKind::UserMessage {
                    text: message.content.clone(),
                    images: 0,
                }),
                Role::Assistant => stream.push(EventKind::AssistantMessage {
                    text: message.content.clone(),
                    reasoning: None,
                    tool_calls: Vec::new(),
                }),
                _ => {}
            }
        }
        let posture = hosted.posture.clone();
        let to_stream = stream.clone();
        let (session, prepared) = hosted.start(move |event| to_stream.session_event(&event))?;
        let live = Arc::new(Live {
            id: id.clone(),
            cwd: prepared.workspace.clone(),
            model: format!("{provider}/{model}"),
            context_window,
            commands: prepared.user_commands(),
            posture,
            stream,
            session,
            _runtime: prepared,
        });
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.insert(id, live.clone());
        }
        Ok(live)
    }
}
