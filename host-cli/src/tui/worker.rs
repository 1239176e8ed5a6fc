//! The agent on its own thread: the UI never waits for the model or a tool. The UI sends
//! [`Command`]s; everything the agent reports comes back as [`Msg`]s on the UI's one channel.

use super::msg::Msg;
use reasonix_agent::agent_loop::{Agent, AgentEvent, RunOutcome};
use reasonix_agent::completion::ProviderClient;
use reasonix_agent::session::{SessionError, SessionStore};
use reasonix_core::cancel::CancelToken;
use reasonix_core::types::Message;
use std::sync::mpsc::{Receiver, Sender};
use std::thread::JoinHandle;

/// A message for the model.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub text: String,
    /// The user's own words, whose `@server:uri` references are read and appended to `text`:
    /// what they typed. `None` for a text none of whose `@` words may be read (an MCP server's
    /// prompt), and a custom command's template gives only its arguments: neither a server
    /// nor a repository's command file can make Reasonix read the user's resources.
    pub references: Option<String>,
}

/// What the UI asks of the agent. Handled in order, one at a time, between turns.
pub enum Command {
    /// Run one user turn; `cancel` is the UI's handle for Esc.
    Prompt {
        prompt: Outgoing,
        cancel: CancelToken,
    },
    /// `/effort`.
    Effort(Option<String>),
    /// `/permissions revoke`: take back a session grant.
    Revoke(String),
    /// `/compact [focus]`: compact the history now (a notice or a `Compacted` event says how
    /// it went).
    Compact { focus: String, cancel: CancelToken },
    /// `/model`: go on with this client from the next turn.
    Model(Box<ProviderClient>),
    /// `/new` and `/clear`: go on in a new session file.
    NewSession,
    /// `/resume`: switch to a saved session (its id).
    Resume(String),
    /// `/rewind N [code|conversation|both]`.
    Rewind {
        turn: u32,
        code: bool,
        conversation: bool,
    },
    /// `/rewind undo`.
    UndoRewind,
    /// `/fork [N]`: fork this session (before turn N) and go on in the fork.
    Fork(Option<u32>),
    /// Leave: end the session and stop the thread.
    Quit,
}

/// What the worker reports besides the agent's events.
#[derive(Debug)]
pub enum Report {
    Event(AgentEvent),
    TurnDone(Box<RunOutcome>),
    /// What the session has spent so far, by model (after each turn and session change).
    Spend(reasonix_agent::agent_loop::Spend),
    /// The session changed (`/new`, `/resume`): its id and the messages it holds.
    Session {
        id: String,
        messages: Vec<Message>,
    },
    ModelChanged {
        provider: String,
        model: String,
    },
    /// A rewind or its undo was done.
    Rewound(Box<reasonix_agent::agent_loop::Rewound>),
    /// A command failed; nothing changed.
    Failed(String),
    /// The agent thread has ended the session and stopped.
    Stopped,
}

pub struct Worker {
    pub commands: Sender<Command>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    pub fn spawn(
        agent: Agent,
        store: SessionStore,
        to_ui: Sender<Msg>,
        mcp: reasonix_mcp::Servers,
    ) -> std::io::Result<Worker> {
        let (commands, inbox) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("reasonix-agent".into())
            .spawn(move || serve(agent, store, inbox, to_ui, mcp))?;
        Ok(Worker {
            commands,
            thread: Some(thread),
        })
    }

    pub fn send(&self, command: Command) {
        // The thread only ends after `Quit`; a send after that has nobody to act on it.
        let _ = self.commands.send(command);
    }

    /// Ask the thread to end the session and wait for it.
    pub fn quit(mut self) {
        self.send(Command::Quit);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    mut agent: Agent,
    store: SessionStore,
    inbox: Receiver<Command>,
    to_ui: Sender<Msg>,
    mcp: reasonix_mcp::Servers,
) {
    let report = |r: Report| {
        let _ = to_ui.send(Msg::Worker(r));
    };
    let mut on_event = |event: AgentEvent| {
        let _ = to_ui.send(Msg::Worker(Report::Event(event)));
    };
    // A resumed session (`-c`, `-r`) starts with what it spent before.
    report(Report::Spend(agent.session_spend().clone()));
    while let Ok(command) = inbox.recv() {
        match command {
            Command::Prompt { prompt, cancel } => {
                // `@server:uri` references are read here, off the UI thread; one that cannot
                // be read stops the prompt before anything is sent.
                let resolved = match &prompt.references {
                    Some(words) => crate::mcp::with_resources(&prompt.text, words, &mcp),
                    None => Ok(crate::turn::Turn::text(prompt.text)),
                };
                let outcome = match resolved {
                    Ok(turn) => {
                        agent.run_with_images(&turn.text, turn.images, &cancel, &mut on_event)
                    }
                    Err(e) => RunOutcome {
                        status: reasonix_agent::agent_loop::RunStatus::Error,
                        result: format!("not sent: {e}"),
                        steps: 0,
                        usage: Default::default(),
                        cost: None,
                        spend: Default::default(),
                        session_id: None,
                        stop_reason: None,
                    },
                };
                report(Report::TurnDone(Box::new(outcome)));
                report(Report::Spend(agent.session_spend().clone()));
            }
            Command::Effort(effort) => agent.set_effort(effort),
            Command::Revoke(rule) => {
                agent.revoke_session_grant(&rule);
            }
            Command::Compact { focus, cancel } => {
                agent.compact(&focus, &cancel, &mut on_event);
                report(Report::Spend(agent.session_spend().clone()));
            }
            Command::Model(client) => {
                let (provider, model) =
                    (client.provider().name.clone(), client.model().to_string());
                let config = agent.config().clone();
                let catalog = agent.catalog();
                match agent.reload(catalog, *client, config) {
                    Ok(_) => report(Report::ModelChanged { provider, model }),
                    Err(e) => report(Report::Failed(format!("model not switched: {e}"))),
                }
            }
            Command::NewSession => {
                let client = agent.client();
                match store.create(&client.provider().name, client.model()) {
                    Ok(writer) => {
                        let id = writer.id().to_string();
                        agent.rotate_session(writer, &mut on_event);
                        report(Report::Session {
                            id,
                            messages: Vec::new(),
                        });
                    }
                    Err(e) => report(Report::Failed(format!("no new session: {e}"))),
                }
            }
            Command::Resume(id) => match open(&store, &id) {
                Ok((writer, messages, spend)) => {
                    let id = writer.id().to_string();
                    agent.switch_session(writer, messages.clone(), &mut on_event);
                    agent.set_spend(spend);
                    report(Report::Session { id, messages });
                    report(Report::Spend(agent.session_spend().clone()));
                }
                Err(e) => report(Report::Failed(format!("session {id} not resumed: {e}"))),
            },
            Command::Rewind {
                turn,
                code,
                conversation,
            } => match agent.rewind(turn, code, conversation) {
                Ok(done) => report(Report::Rewound(Box::new(done))),
                Err(e) => report(Report::Failed(format!("not rewound: {e}"))),
            },
            Command::UndoRewind => match agent.undo_rewind() {
                Ok(done) => report(Report::Rewound(Box::new(done))),
                Err(e) => report(Report::Failed(format!("not undone: {e}"))),
            },
            Command::Fork(turn) => {
                let forked = agent
                    .session_id()
                    .ok_or_else(|| "this session is not saved".to_string())
                    .and_then(|id| {
                        reasonix_agent::fork::fork(&store, id, turn).map_err(|e| e.to_string())
                    });
                match forked.and_then(|id| open(&store, &id).map_err(|e| e.to_string())) {
                    Ok((writer, messages, spend)) => {
                        let id = writer.id().to_string();
                        agent.switch_session(writer, messages.clone(), &mut on_event);
                        agent.set_spend(spend);
                        report(Report::Session { id, messages });
                        report(Report::Spend(agent.session_spend().clone()));
                    }
                    Err(e) => report(Report::Failed(format!("not forked: {e}"))),
                }
            }
            Command::Quit => break,
        }
    }
    agent.end_session(&mut on_event);
    report(Report::Stopped);
}

#[allow(clippy::type_complexity)]
fn open(
    store: &SessionStore,
    id: &str,
) -> Result<
    (
        reasonix_agent::session::SessionWriter,
        Vec<Message>,
        reasonix_agent::agent_loop::Spend,
    ),
    SessionError,
> {
    let (writer, loaded) = store.open(id)?;
    Ok((writer, loaded.messages, loaded.spend))
}
