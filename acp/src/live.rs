//! One ACP session: a Reasonix session (its own runtime, in the editor's working directory,
//! with the servers the editor passed) whose events become `session/update`s, whose
//! questions become `session/request_permission`s, and whose turn end answers the open
//! `session/prompt`.

use crate::buffers::{Editor, EditorFiles, EditorFs};
use crate::{permission, translate};
use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, ContentBlock, ContentChunk, PromptResponse, SessionId,
    SessionNotification, SessionUpdate, StopReason, UnstructuredCommandInput,
};
use agent_client_protocol::{Client, Error, ErrorCode, v1};
use reasonix_agent::agent_loop::{AgentEvent, RunOutcome, RunStatus};
use reasonix_agent::permissions::PostureSwitch;
use reasonix_core::types::{Message, Role};
use reasonix_runtime::hosted;
use reasonix_runtime::launch::Runtime;
use reasonix_session::{Session, SessionEvent};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};

/// The session's open `session/prompt`, answered when its turn ends.
type Turn = Arc<Mutex<Option<v1::Responder<PromptResponse>>>>;

pub struct Live {
    pub id: String,
    pub cwd: PathBuf,
    pub session: Session,
    pub posture: PostureSwitch,
    pub turn: Turn,
    /// The slash commands the editor can offer: custom commands and skills.
    pub commands: Vec<AvailableCommand>,
    /// Its runtime: the MCP servers and sidecars live as long as the session.
    _runtime: Arc<Runtime>,
}

/// What a session is opened with.
pub struct Opening {
    pub cwd: PathBuf,
    pub mcp_servers: Vec<reasonix_config::mcp::ServerSpec>,
    /// `session/load`: the saved session to go on with.
    pub resume: Option<String>,
    /// What the editor offers of its buffers.
    pub editor_fs: EditorFs,
}

/// The sessions of this connection, by id.
pub type Sessions = Arc<Mutex<HashMap<String, Arc<Live>>>>;

/// Open a session (blocking: configuration, registry, MCP servers). The history of a resumed
/// session comes back with it, for the editor to be shown again.
pub fn open(
    opening: Opening,
    cx: v1::ConnectionTo<Client>,
    sessions: Sessions,
    tasks: tokio::runtime::Handle,
) -> Result<(Arc<Live>, Vec<Message>), String> {
    let mut editor = None;
    let hosted = hosted::open(
        hosted::Request {
            cwd: &opening.cwd,
            mcp_servers: opening.mcp_servers,
            resume: opening.resume,
        },
        |runtime| {
            // The editor's buffers, when it offers them: the file tools are wrapped before the
            // agent takes its tools (docs/ACP.md, `buffers.rs`).
            if opening.editor_fs.any() {
                let made = Editor::new(
                    cx.clone(),
                    tasks.clone(),
                    opening.editor_fs,
                    runtime.workspace.clone(),
                );
                runtime.catalog = Arc::new(EditorFiles::new(runtime.catalog.clone(), made.clone()));
                editor = Some(made);
            }
        },
    )?;
    let id = hosted.id.clone();
    if let Some(editor) = &editor {
        editor.set_session(&id);
    }
    let history = hosted.history.clone();
    let posture = hosted.posture.clone();
    let commands = available_commands(&hosted.runtime);
    let turn: Turn = Arc::default();
    let cwd = hosted.runtime.workspace.clone();
    let emit = Emitter {
        id: id.clone(),
        cwd: cwd.clone(),
        cx,
        turn: turn.clone(),
        sessions: Arc::downgrade(&sessions),
        tasks,
    };
    let (session, prepared) = hosted.start(move |event| emit.event(event))?;
    let live = Arc::new(Live {
        id: id.clone(),
        cwd,
        session,
        posture,
        turn,
        commands,
        _runtime: prepared,
    });
    if let Ok(mut all) = sessions.lock() {
        all.insert(id, live.clone());
    }
    Ok((live, history))
}

/// The history of a resumed session as the editor replays it: the user's and the agent's
/// messages, in order.
pub fn replay(history: &[Message]) -> Vec<SessionUpdate> {
    history
        .iter()
        .filter(|m| !m.content.trim().is_empty())
        .filter_map(|m| {
            let chunk = ContentChunk::new(ContentBlock::from(m.content.clone()));
            match m.role {
                Role::User => Some(SessionUpdate::UserMessageChunk(chunk)),
                Role::Assistant => Some(SessionUpdate::AgentMessageChunk(chunk)),
                _ => None,
            }
        })
        .collect()
}

fn available_commands(prepared: &Runtime) -> Vec<AvailableCommand> {
    prepared
        .user_commands()
        .into_iter()
        .map(|c| {
            let command = AvailableCommand::new(c.name, c.description);
            match c.hint {
                Some(hint) => command.input(AvailableCommandInput::Unstructured(
                    UnstructuredCommandInput::new(hint),
                )),
                None => command,
            }
        })
        .collect()
}

/// The session's events, on its thread, to the editor.
struct Emitter {
    id: String,
    cwd: PathBuf,
    cx: v1::ConnectionTo<Client>,
    turn: Turn,
    sessions: Weak<Mutex<HashMap<String, Arc<Live>>>>,
    tasks: tokio::runtime::Handle,
}

impl Emitter {
    fn event(&self, event: SessionEvent) {
        match &event {
            SessionEvent::TurnDone(outcome) => self.turn_done(outcome),
            SessionEvent::Question(q) => self.ask(q.clone()),
            // A sub-agent's stream is its own; the editor sees the parent's call.
            SessionEvent::Agent(AgentEvent::Child { .. }) => {}
            _ => {
                if let Some(kind) = reasonix_session::project(&event) {
                    for update in translate::updates(&kind, &self.cwd) {
                        self.send(update);
                    }
                }
            }
        }
    }

    fn send(&self, update: SessionUpdate) {
        // The connection is gone when this fails: nobody is left to tell.
        let _ = self.cx.send_notification(SessionNotification::new(
            SessionId::new(self.id.clone()),
            update,
        ));
    }

    fn turn_done(&self, outcome: &RunOutcome) {
        let Some(responder) = self.turn.lock().ok().and_then(|mut t| t.take()) else {
            return;
        };
        let reply = match outcome.status {
            RunStatus::Success => Ok(StopReason::EndTurn),
            RunStatus::MaxSteps => Ok(StopReason::MaxTurnRequests),
            RunStatus::Cancelled => Ok(StopReason::Cancelled),
            RunStatus::TimedOut | RunStatus::BudgetExceeded | RunStatus::Error => Err(Error::new(
                ErrorCode::INTERNAL_ERROR,
                outcome.result.clone(),
            )),
        };
        let _ = responder.respond_with_result(reply.map(PromptResponse::new));
    }

    /// Ask the editor, off the session's thread; its choice answers the question.
    fn ask(&self, q: reasonix_session::Question) {
        let changes: Option<Vec<reasonix_protocol::FileChange>> = match &q.preview {
            reasonix_agent::permissions::Preview::Changes(changes) => Some(
                changes
                    .iter()
                    .map(reasonix_agent::agent_loop::public::change)
                    .collect(),
            ),
            _ => None,
        };
        let asked = permission::Asked {
            call_id: &q.call_id,
            tool: &q.tool,
            arguments: &q.arguments,
            reason: &q.reason,
            scopes: &q.scopes,
            changes: changes.as_deref(),
            plan: q.plan.as_deref(),
        };
        let request = permission::request(&self.id, &asked, &self.cwd);
        let cx = self.cx.clone();
        let sessions = self.sessions.clone();
        let id = self.id.clone();
        self.tasks.spawn(async move {
            let answer = match cx.send_request(request).block_task().await {
                Ok(reply) => permission::answer(&reply.outcome, &q.scopes),
                Err(e) => reasonix_session::Answer::Deny(Some(format!(
                    "The editor did not answer the question: {}",
                    e.message
                ))),
            };
            let live = sessions
                .upgrade()
                .and_then(|all| all.lock().ok().and_then(|all| all.get(&id).cloned()));
            if let Some(live) = live {
                // Withdrawn meanwhile (the turn was cancelled): nothing is left to answer.
                let _ = live.session.answer(&q.id, answer);
            }
        });
    }
}
