//! `reasonix acp`: Reasonix as an Agent Client Protocol agent on stdin/stdout, for editors
//! (Zed, JetBrains, Neovim plugins) that start an agent and talk ACP to it. An adapter over
//! the session service, not a second agent: each ACP session is a Reasonix session with its
//! own runtime, its events translated (`translate`), its approval questions asked through
//! `session/request_permission` (`permission`), the editor's MCP servers joined as the user's
//! own (`servers`). Stdout carries only the protocol; everything else goes to stderr.
#![forbid(unsafe_code)]

mod buffers;
mod content;
mod live;
mod permission;
mod servers;
mod translate;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AvailableCommandsUpdate, CancelNotification, CurrentModeUpdate,
    Implementation, InitializeRequest, InitializeResponse, LoadSessionRequest, LoadSessionResponse,
    McpCapabilities, NewSessionRequest, NewSessionResponse, PromptCapabilities, PromptRequest,
    PromptResponse, SessionId, SessionMode, SessionModeId, SessionModeState, SessionNotification,
    SessionUpdate, SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::{Agent, Client, Error, ErrorCode, Stdio, v1};
use buffers::EditorFs;
use live::{Live, Opening, Sessions};
use reasonix_agent::permissions::Posture;
use reasonix_protocol::Op;
use std::sync::{Arc, Mutex};

#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[from] std::io::Error),
    #[error("the ACP connection failed: {0}")]
    Connection(String),
}

/// The modes an editor can switch between: Reasonix's permission postures.
const MODES: [(&str, &str, &str, Posture); 4] = [
    (
        "ask",
        "Ask",
        "Readers run; writers and commands ask",
        Posture::Ask,
    ),
    (
        "acceptEdits",
        "Accept edits",
        "File edits run without asking; commands ask",
        Posture::AcceptEdits,
    ),
    (
        "auto",
        "Auto",
        "Edits and commands run unless a rule asks",
        Posture::Auto,
    ),
    (
        "plan",
        "Plan",
        "Research only; the plan is approved before anything changes",
        Posture::Plan,
    ),
];

fn modes(current: Posture) -> SessionModeState {
    let id = MODES.iter().find(|m| m.3 == current).map_or("ask", |m| m.0);
    SessionModeState::new(
        SessionModeId::new(id),
        MODES
            .iter()
            .map(|(id, name, about, _)| SessionMode::new(*id, *name).description(*about))
            .collect(),
    )
}

/// Serve ACP on stdin/stdout until the editor closes it.
pub fn serve() -> Result<(), AcpError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let tasks = runtime.handle().clone();
    runtime.block_on(connection(tasks))
}

fn lookup(sessions: &Sessions, id: &SessionId) -> Option<Arc<Live>> {
    sessions.lock().ok()?.get(&*id.0).cloned()
}

fn not_found(id: &SessionId) -> Error {
    Error::new(
        ErrorCode::INVALID_PARAMS,
        format!(
            "no session `{}` on this connection (session/new or session/load first)",
            id.0
        ),
    )
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, message.into())
}

async fn connection(tasks: tokio::runtime::Handle) -> Result<(), AcpError> {
    let sessions: Sessions = Arc::default();
    // What the editor offers of its buffers, said once in `initialize`.
    let editor_fs: Arc<Mutex<EditorFs>> = Arc::default();
    let said = editor_fs.clone();
    Agent
        .v1()
        .name("reasonix")
        .on_receive_request(
            async move |req: InitializeRequest, responder: v1::Responder<InitializeResponse>, _cx| {
                if let Ok(mut can) = said.lock() {
                    *can = EditorFs {
                        read: req.client_capabilities.fs.read_text_file,
                        write: req.client_capabilities.fs.write_text_file,
                    };
                }
                responder.respond(
                    InitializeResponse::new(ProtocolVersion::V1)
                        .agent_capabilities(
                            AgentCapabilities::new()
                                .load_session(true)
                                .prompt_capabilities(
                                    PromptCapabilities::new()
                                        .image(true)
                                        .audio(false)
                                        .embedded_context(true),
                                )
                                .mcp_capabilities(McpCapabilities::new().http(true).sse(true)),
                        )
                        .agent_info(Implementation::new("reasonix", env!("CARGO_PKG_VERSION"))),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let sessions = sessions.clone();
                let tasks = tasks.clone();
                let editor_fs = editor_fs.clone();
                async move |req: NewSessionRequest,
                            responder: v1::Responder<NewSessionResponse>,
                            cx: v1::ConnectionTo<Client>| {
                    let can = editor_fs.lock().map(|c| *c).unwrap_or_default();
                    let opening = match opening(&req.cwd, &req.mcp_servers, None, can) {
                        Ok(o) => o,
                        Err(e) => return responder.respond_with_error(e),
                    };
                    open_then(cx, sessions.clone(), tasks.clone(), opening, responder, |live, _, _| {
                        Ok(NewSessionResponse::new(SessionId::new(live.id.clone()))
                            .modes(modes(live.posture.get())))
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let sessions = sessions.clone();
                let tasks = tasks.clone();
                let editor_fs = editor_fs.clone();
                async move |req: LoadSessionRequest,
                            responder: v1::Responder<LoadSessionResponse>,
                            cx: v1::ConnectionTo<Client>| {
                    if lookup(&sessions, &req.session_id).is_some() {
                        return responder.respond_with_error(invalid(format!(
                            "session `{}` is open on this connection already",
                            req.session_id.0
                        )));
                    }
                    let can = editor_fs.lock().map(|c| *c).unwrap_or_default();
                    let opening = match opening(
                        &req.cwd,
                        &req.mcp_servers,
                        Some(req.session_id.0.to_string()),
                        can,
                    ) {
                        Ok(o) => o,
                        Err(e) => return responder.respond_with_error(e),
                    };
                    open_then(cx, sessions.clone(), tasks.clone(), opening, responder, |live, history, cx| {
                        // The history first, then the answer (the protocol's order).
                        for update in live::replay(history) {
                            cx.send_notification(SessionNotification::new(
                                SessionId::new(live.id.clone()),
                                update,
                            ))?;
                        }
                        Ok(LoadSessionResponse::new().modes(modes(live.posture.get())))
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let sessions = sessions.clone();
                async move |req: SetSessionModeRequest,
                            responder: v1::Responder<SetSessionModeResponse>,
                            cx: v1::ConnectionTo<Client>| {
                    let Some(live) = lookup(&sessions, &req.session_id) else {
                        return responder.respond_with_error(not_found(&req.session_id));
                    };
                    let Some(mode) = MODES.iter().find(|m| *m.0 == *req.mode_id.0) else {
                        return responder.respond_with_error(invalid(format!(
                            "no mode `{}`; the modes are {}",
                            req.mode_id.0,
                            MODES.iter().map(|m| m.0).collect::<Vec<_>>().join(", ")
                        )));
                    };
                    live.posture.set(mode.3);
                    cx.send_notification(SessionNotification::new(
                        req.session_id.clone(),
                        SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(req.mode_id.clone())),
                    ))?;
                    responder.respond(SetSessionModeResponse::new())
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let sessions = sessions.clone();
                async move |req: PromptRequest, responder: v1::Responder<PromptResponse>, _cx| {
                    let Some(live) = lookup(&sessions, &req.session_id) else {
                        return responder.respond_with_error(not_found(&req.session_id));
                    };
                    let prompt = match content::prompt(&req.prompt, &live.cwd) {
                        Ok(prompt) => prompt,
                        Err(e) => return responder.respond_with_error(invalid(e.to_string())),
                    };
                    {
                        let Ok(mut turn) = live.turn.lock() else {
                            return responder.respond_with_internal_error("the session's state is poisoned");
                        };
                        if turn.is_some() {
                            drop(turn);
                            return responder.respond_with_error(Error::new(
                                ErrorCode::INVALID_REQUEST,
                                "a prompt is running in this session; cancel it or wait for its answer".to_string(),
                            ));
                        }
                        // Answered when the turn ends (`live::Emitter::turn_done`).
                        *turn = Some(responder);
                    }
                    if prompt.images.is_empty() {
                        live.session.submit(Op::Prompt { text: prompt.text });
                    } else {
                        live.session.prompt_with_images(prompt.text, prompt.images);
                    }
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let sessions = sessions.clone();
                async move |n: CancelNotification, _cx| {
                    if let Some(live) = lookup(&sessions, &n.session_id) {
                        live.session.cancel();
                    }
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await
        .map_err(|e| AcpError::Connection(e.message))?;
    // The editor closed the connection: end every session (their transcripts are saved).
    if let Ok(mut all) = sessions.lock() {
        all.clear();
    }
    Ok(())
}

fn opening(
    cwd: &std::path::Path,
    servers: &[agent_client_protocol::v1::schema::McpServer],
    resume: Option<String>,
    editor_fs: EditorFs,
) -> Result<Opening, Error> {
    if !cwd.is_absolute() {
        return Err(invalid(format!(
            "cwd `{}` is not an absolute path",
            cwd.display()
        )));
    }
    if !cwd.is_dir() {
        return Err(invalid(format!(
            "cwd `{}` is not a directory",
            cwd.display()
        )));
    }
    let wire: Vec<serde_json::Value> = servers
        .iter()
        .map(|s| serde_json::to_value(s).unwrap_or_default())
        .collect();
    let mcp_servers = servers::specs(&wire).map_err(invalid)?;
    Ok(Opening {
        cwd: cwd.to_path_buf(),
        mcp_servers,
        resume,
        editor_fs,
    })
}

/// Open the session off the connection's loop (loading a configuration and starting servers
/// takes a while), then answer `responder` with what `then` makes of it, or with the failure.
fn open_then<R>(
    cx: v1::ConnectionTo<Client>,
    sessions: Sessions,
    tasks: tokio::runtime::Handle,
    opening: Opening,
    responder: v1::Responder<R>,
    then: impl FnOnce(
        &Live,
        &[reasonix_core::types::Message],
        &v1::ConnectionTo<Client>,
    ) -> Result<R, Error>
    + Send
    + 'static,
) -> Result<(), Error>
where
    R: agent_client_protocol::JsonRpcResponse + Send + 'static,
{
    let task_cx = cx.clone();
    cx.spawn(async move {
        let opened = {
            let cx = task_cx.clone();
            let tasks_for_session = tasks.clone();
            tasks
                .spawn_blocking(move || live::open(opening, cx, sessions, tasks_for_session))
                .await
        };
        let made = match opened {
            Ok(Ok((live, history))) => then(&live, &history, &task_cx).map(|reply| (reply, live)),
            Ok(Err(message)) => Err(Error::new(ErrorCode::INTERNAL_ERROR, message)),
            Err(e) => Err(Error::new(ErrorCode::INTERNAL_ERROR, e.to_string())),
        };
        // Never an error out of this task: it would close the connection.
        match made {
            Ok((reply, live)) => {
                let _ = responder.respond(reply);
                announce_commands(&task_cx, &live);
            }
            Err(e) => {
                let _ = responder.respond_with_error(e);
            }
        }
        Ok(())
    })
}

fn announce_commands(cx: &v1::ConnectionTo<Client>, live: &Live) {
    let _ = cx.send_notification(SessionNotification::new(
        SessionId::new(live.id.clone()),
        SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(live.commands.clone())),
    ));
}
