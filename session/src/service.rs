//! The session loop on its own thread: a front end never waits for the model or a tool. What
//! runs between turns is handled in order, one at a time; answers and cancellation act at
//! once, from the caller's thread, because a turn waits on them.

use crate::approvals::Router;
use crate::events::{Emit, SessionEvent};
use crate::input::{Expander, Outgoing};
use crate::question::{Answer, AnswerError, Answered};
use crate::tokens::Tokens;
use reasonix_agent::agent_loop::{Agent, AgentEvent, RunOutcome, RunStatus, Spend};
use reasonix_agent::completion::ProviderClient;
use reasonix_agent::session::{Binding, SessionError, SessionStore, SessionWriter};
use reasonix_core::cancel::CancelToken;
use reasonix_core::types::Message;
use reasonix_protocol::{Op, Scope};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};
use std::thread::JoinHandle;

/// Resolves a model reference (`set_model`) to a client: the composition root knows how.
pub type ModelResolver = Box<dyn Fn(&str) -> Result<ProviderClient, String> + Send>;

/// What a turn whose user wrote these words gets appended (saved facts they match), if any.
/// It goes after the user's message, never into the system prompt: the cached prefix stays.
pub type Recall = Box<dyn Fn(&str) -> Option<String> + Send>;

/// How a session is set up beyond its agent.
#[derive(Default)]
pub struct SessionOptions {
    /// The user's own configuration file, where "always allow" writes its rule.
    pub user_config: Option<PathBuf>,
    /// For `set_model`; without it the operation fails saying so.
    pub models: Option<ModelResolver>,
    /// Questions go to the front end (`SessionEvent::Question`, answered by id). Without it
    /// the agent resolves an "ask" itself, as a headless run must: nobody could answer.
    pub asks: bool,
    /// The parent of every turn's token: cancelling it (Ctrl-C, a deadline) stops what runs
    /// and whatever is submitted after.
    pub parent: Option<CancelToken>,
    /// The agent composition this session runs with: a new or forked session records it, and
    /// a session started with another one is not resumed here.
    pub composition: Option<Binding>,
    /// Saved facts recalled into each user turn.
    pub recall: Option<Recall>,
}

enum Input {
    /// What the user typed: expanded on the session's thread (an MCP prompt is a request).
    Typed(String),
    /// What the user typed, with the images they attached: the text expanded as typed.
    TypedWithImages(String, Vec<reasonix_core::types::Image>),
    /// Expanded by the front end already.
    Expanded(Outgoing),
    /// Expanded and its references read, with its images (a stream of turns).
    Ready(crate::input::Turn),
}

enum Request {
    Prompt {
        input: Input,
        cancel: CancelToken,
    },
    Effort(Option<String>),
    Revoke(String),
    Compact {
        focus: String,
        cancel: CancelToken,
    },
    Client(Box<ProviderClient>),
    Model(String),
    NewSession,
    Resume(String),
    Rewind {
        turn: u32,
        code: bool,
        conversation: bool,
    },
    UndoRewind,
    Fork(Option<u32>),
    Quit,
}

/// A running session. Dropping it ends the session once the work already submitted is done.
pub struct Session {
    requests: Sender<Request>,
    /// The agent's running children, to stop one (`None`: it cannot delegate).
    sub_agents: Option<reasonix_agent::delegation::SubAgents>,
    /// The agent's receipts and how strictly its steps are judged (goal mode, run modes).
    evidence: reasonix_core::evidence::Evidence,
    router: Arc<Router>,
    tokens: Arc<Tokens>,
    parent: Option<CancelToken>,
    thread: Option<JoinHandle<()>>,
}

impl Session {
    /// Start the session's thread. With `options.asks`, the agent asks its questions through
    /// this session.
    pub fn spawn(
        agent: Agent,
        store: SessionStore,
        expander: Expander,
        options: SessionOptions,
        emit: impl Fn(SessionEvent) + Send + Sync + 'static,
    ) -> std::io::Result<Session> {
        let emit: Emit = Arc::new(emit);
        let tokens = Arc::new(Tokens::default());
        let router = Arc::new(Router::new(
            options.user_config,
            tokens.clone(),
            emit.clone(),
        ));
        let agent = if options.asks {
            agent.with_approver(router.approver())
        } else {
            agent
        };
        let (requests, inbox) = std::sync::mpsc::channel();
        let sub_agents = agent.sub_agents();
        let evidence = agent.evidence().clone();
        let worker = Worker {
            agent,
            store,
            expander,
            models: options.models,
            emit,
            tokens: tokens.clone(),
            composition: options.composition,
            recall: options.recall,
        };
        let thread = std::thread::Builder::new()
            .name("reasonix-session".into())
            .spawn(move || worker.serve(inbox))?;
        Ok(Session {
            requests,
            sub_agents,
            evidence,
            router,
            tokens,
            parent: options.parent,
            thread: Some(thread),
        })
    }

    /// Submit an operation. Answers and `cancel` act now; the rest in order between turns.
    /// A wrong answer (an unknown question, a rule it did not offer) is reported as
    /// [`SessionEvent::Failed`].
    pub fn submit(&self, op: Op) {
        match op {
            Op::Prompt { text } => {
                self.start(|cancel| Request::Prompt {
                    input: Input::Typed(text),
                    cancel,
                });
            }
            Op::Approve {
                question_id,
                scope,
                rule,
            } => {
                let answer = match scope {
                    Scope::Once => Answer::Once,
                    Scope::Session => Answer::Session(rule),
                    Scope::Always => Answer::Always(rule),
                };
                self.answer_reported(&question_id, answer);
            }
            Op::Deny { question_id, note } => {
                self.answer_reported(&question_id, Answer::Deny(note));
            }
            Op::Cancel {} => self.cancel(),
            Op::CancelAgent { agent_id } => {
                if !self.cancel_agent(&agent_id) {
                    (self.router.emit())(SessionEvent::Failed(format!(
                        "no sub-agent `{agent_id}` is running"
                    )));
                }
            }
            Op::Compact { focus } => {
                self.start(|cancel| Request::Compact { focus, cancel });
            }
            Op::SetModel { model } => self.send(Request::Model(model)),
            Op::SetEffort { effort } => self.send(Request::Effort(effort)),
            Op::Revoke { rule } => self.send(Request::Revoke(rule)),
            Op::NewSession {} => self.send(Request::NewSession),
            Op::Resume { session_id } => self.send(Request::Resume(session_id)),
            Op::Rewind {
                turn,
                code,
                conversation,
            } => self.send(Request::Rewind {
                turn,
                code,
                conversation,
            }),
            Op::UndoRewind {} => self.send(Request::UndoRewind),
            Op::Fork { turn } => self.send(Request::Fork(turn)),
            Op::Quit {} => self.send(Request::Quit),
        }
    }

    /// A turn the front end expanded itself; returns the turn's token (cancelling it is
    /// [`Session::cancel`] for this turn).
    pub fn prompt(&self, outgoing: Outgoing) -> CancelToken {
        self.start(|cancel| Request::Prompt {
            input: Input::Expanded(outgoing),
            cancel,
        })
    }

    /// What the user typed with images they attached (an editor's image blocks): the text is
    /// expanded like a typed line, the images go to the model with it. Returns its token.
    pub fn prompt_with_images(
        &self,
        text: String,
        images: Vec<reasonix_core::types::Image>,
    ) -> CancelToken {
        self.start(|cancel| Request::Prompt {
            input: Input::TypedWithImages(text, images),
            cancel,
        })
    }

    /// A turn the front end expanded and resolved itself (text and images); returns its
    /// token.
    pub fn prompt_turn(&self, turn: crate::input::Turn) -> CancelToken {
        self.start(|cancel| Request::Prompt {
            input: Input::Ready(turn),
            cancel,
        })
    }

    /// `/compact [focus]`; returns its token.
    pub fn compact(&self, focus: String) -> CancelToken {
        self.start(|cancel| Request::Compact { focus, cancel })
    }

    /// Go on with `client` from the next turn (a front end that built it).
    pub fn switch_client(&self, client: ProviderClient) {
        self.send(Request::Client(Box::new(client)));
    }

    /// Answer question `id`.
    pub fn answer(&self, id: &str, answer: Answer) -> Result<Answered, AnswerError> {
        self.router.answer(id, answer)
    }

    /// Stop the turn (or compaction) in progress, and those submitted and not started; their
    /// open questions are withdrawn.
    pub fn cancel(&self) {
        self.tokens.cancel_all();
    }

    /// Stop the running sub-agent `agent_id` and its children; whether one was running.
    pub fn cancel_agent(&self, agent_id: &str) -> bool {
        self.sub_agents
            .as_ref()
            .is_some_and(|agents| agents.cancel(agent_id))
    }

    /// The running sub-agents' limits (`None`: the agent cannot delegate).
    pub fn sub_agents(&self) -> Option<&reasonix_agent::delegation::SubAgents> {
        self.sub_agents.as_ref()
    }

    /// The agent's receipts (kept across `/model` and `/reload`).
    pub fn evidence(&self) -> &reasonix_core::evidence::Evidence {
        &self.evidence
    }

    /// End the session and wait for its thread.
    pub fn quit(mut self) {
        self.send(Request::Quit);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    fn answer_reported(&self, id: &str, answer: Answer) {
        if let Err(e) = self.router.answer(id, answer) {
            (self.router.emit())(SessionEvent::Failed(e.to_string()));
        }
    }

    fn start(&self, request: impl FnOnce(CancelToken) -> Request) -> CancelToken {
        let cancel = match &self.parent {
            Some(parent) => parent.child(),
            None => CancelToken::new(),
        };
        self.tokens.submitted(&cancel);
        self.send(request(cancel.clone()));
        cancel
    }

    fn send(&self, request: Request) {
        // The thread only ends after `Quit`; a request after that has nobody to act on it.
        let _ = self.requests.send(request);
    }
}

struct Worker {
    agent: Agent,
    store: SessionStore,
    expander: Expander,
    models: Option<ModelResolver>,
    emit: Emit,
    tokens: Arc<Tokens>,
    composition: Option<Binding>,
    recall: Option<Recall>,
}

impl Worker {
    fn serve(mut self, inbox: Receiver<Request>) {
        let emit = self.emit.clone();
        let mut on_event = |event: AgentEvent| emit(SessionEvent::Agent(event));
        // A resumed session (`-c`, `-r`) starts with what it spent before.
        emit(SessionEvent::Spend(self.agent.session_spend().clone()));
        while let Ok(request) = inbox.recv() {
            match request {
                Request::Prompt { input, cancel } => {
                    self.tokens.begin(&cancel);
                    // Expanded here, off the front end's thread: an MCP prompt and `@`
                    // references are requests. One that fails stops the turn before anything
                    // is sent.
                    // The planner's route reads only the user's own words.
                    let words = match &input {
                        Input::Typed(line) | Input::TypedWithImages(line, _) => Some(line.clone()),
                        Input::Expanded(outgoing) => {
                            Some(outgoing.references.clone().unwrap_or_default())
                        }
                        Input::Ready(turn) => turn.words.clone(),
                    };
                    let recalled = match (&self.recall, &words) {
                        (Some(recall), Some(words)) if !words.trim().is_empty() => recall(words),
                        _ => None,
                    };
                    self.agent.set_user_words(words);
                    let turn = match input {
                        Input::Typed(line) => self.expander.expand(&line),
                        Input::TypedWithImages(line, images) => {
                            self.expander.expand(&line).map(|mut turn| {
                                turn.images.extend(images);
                                turn
                            })
                        }
                        Input::Expanded(outgoing) => outgoing.resolve(self.expander.servers()),
                        Input::Ready(turn) => Ok(turn),
                    };
                    let turn = turn.map(|mut turn| {
                        if let Some(recalled) = recalled {
                            turn.text.push_str(&recalled);
                        }
                        turn
                    });
                    let outcome = match turn {
                        Ok(turn) => self.agent.run_with_images(
                            &turn.text,
                            turn.images,
                            &cancel,
                            &mut on_event,
                        ),
                        Err(e) => not_sent(e),
                    };
                    self.tokens.done(&cancel);
                    emit(SessionEvent::TurnDone(Box::new(outcome)));
                    emit(SessionEvent::Spend(self.agent.session_spend().clone()));
                }
                Request::Effort(effort) => self.agent.set_effort(effort),
                Request::Revoke(rule) => {
                    if !self.agent.revoke_session_grant(&rule) {
                        emit(SessionEvent::Failed(format!(
                            "`{rule}` is not a rule granted in this session"
                        )));
                    }
                }
                Request::Compact { focus, cancel } => {
                    self.tokens.begin(&cancel);
                    self.agent.compact(&focus, &cancel, &mut on_event);
                    self.tokens.done(&cancel);
                    emit(SessionEvent::Spend(self.agent.session_spend().clone()));
                }
                Request::Client(client) => self.switch_client(*client),
                Request::Model(reference) => match &self.models {
                    Some(resolve) => match resolve(&reference) {
                        Ok(client) => self.switch_client(client),
                        Err(e) => emit(SessionEvent::Failed(format!("model not switched: {e}"))),
                    },
                    None => emit(SessionEvent::Failed(
                        "model not switched: this session was started without a model resolver"
                            .into(),
                    )),
                },
                Request::NewSession => {
                    let client = self.agent.client();
                    let created = self
                        .store
                        .create(&client.provider().name, client.model())
                        .and_then(|mut writer| {
                            bind(&mut writer, self.composition.as_ref(), None)?;
                            Ok(writer)
                        });
                    match created {
                        Ok(writer) => {
                            let id = writer.id().to_string();
                            self.agent.evidence().0.reset();
                            self.agent.rotate_session(writer, &mut on_event);
                            emit(SessionEvent::Session {
                                id,
                                messages: Vec::new(),
                            });
                        }
                        Err(e) => emit(SessionEvent::Failed(format!("no new session: {e}"))),
                    }
                }
                Request::Resume(id) => match open(&self.store, &id) {
                    Ok(opened) if !same_composition(&opened.4, self.composition.as_ref()) => {
                        emit(SessionEvent::Failed(format!(
                            "session {id} not resumed: it was started with {}, and this one runs {}; continue it with `reasonix -r {id}`, which restores its composition",
                            composition_name(opened.4.as_ref()),
                            composition_name(self.composition.as_ref())
                        )))
                    }
                    Ok(opened) => self.switch_to(opened, &mut on_event),
                    Err(e) => emit(SessionEvent::Failed(format!(
                        "session {id} not resumed: {e}"
                    ))),
                },
                Request::Rewind {
                    turn,
                    code,
                    conversation,
                } => match self.agent.rewind(turn, code, conversation) {
                    Ok(done) => emit(SessionEvent::Rewound(Box::new(done))),
                    Err(e) => emit(SessionEvent::Failed(format!("not rewound: {e}"))),
                },
                Request::UndoRewind => match self.agent.undo_rewind() {
                    Ok(done) => emit(SessionEvent::Rewound(Box::new(done))),
                    Err(e) => emit(SessionEvent::Failed(format!("not undone: {e}"))),
                },
                Request::Fork(turn) => {
                    let forked = self
                        .agent
                        .session_id()
                        .ok_or_else(|| "this session is not saved".to_string())
                        .and_then(|id| {
                            reasonix_agent::fork::fork(&self.store, id, turn)
                                .map_err(|e| e.to_string())
                        });
                    let forked =
                        forked.and_then(|id| open(&self.store, &id).map_err(|e| e.to_string()));
                    let forked = forked.and_then(|mut opened| {
                        bind(&mut opened.0, self.composition.as_ref(), opened.4.as_ref())
                            .map_err(|e| e.to_string())?;
                        Ok(opened)
                    });
                    match forked {
                        Ok(opened) => self.switch_to(opened, &mut on_event),
                        Err(e) => emit(SessionEvent::Failed(format!("not forked: {e}"))),
                    }
                }
                Request::Quit => break,
            }
        }
        self.agent.end_session(&mut on_event);
        emit(SessionEvent::Stopped);
    }

    fn switch_client(&mut self, client: ProviderClient) {
        let (provider, model) = (client.provider().name.clone(), client.model().to_string());
        let config = self.agent.config().clone();
        let catalog = self.agent.catalog();
        match self.agent.reload(catalog, client, config) {
            Ok(_) => (self.emit)(SessionEvent::ModelChanged { provider, model }),
            Err(e) => (self.emit)(SessionEvent::Failed(format!("model not switched: {e}"))),
        }
    }

    fn switch_to(&mut self, opened: Opened, on_event: &mut dyn FnMut(AgentEvent)) {
        let (writer, messages, spend, evidence, _) = opened;
        let id = writer.id().to_string();
        self.agent.evidence().0.reset();
        self.agent.evidence().0.replay(&evidence);
        self.agent
            .switch_session(writer, messages.clone(), on_event);
        self.agent.set_spend(spend);
        (self.emit)(SessionEvent::Session { id, messages });
        (self.emit)(SessionEvent::Spend(self.agent.session_spend().clone()));
    }
}

/// The outcome of a turn whose input could not be expanded: nothing was sent.
pub fn not_sent(why: String) -> RunOutcome {
    RunOutcome {
        status: RunStatus::Error,
        result: format!("not sent: {why}"),
        steps: 0,
        usage: Default::default(),
        cost: None,
        spend: Default::default(),
        session_id: None,
        stop_reason: None,
    }
}

type Opened = (
    SessionWriter,
    Vec<Message>,
    Spend,
    Vec<reasonix_core::evidence::Entry>,
    Option<Binding>,
);

fn open(store: &SessionStore, id: &str) -> Result<Opened, SessionError> {
    let (writer, loaded) = store.open(id)?;
    Ok((
        writer,
        loaded.messages,
        loaded.spend,
        loaded.evidence,
        loaded.composition,
    ))
}

/// Record `composition` in a session that has none yet (`had`).
fn bind(
    writer: &mut SessionWriter,
    composition: Option<&Binding>,
    had: Option<&Binding>,
) -> Result<(), SessionError> {
    match (composition, had) {
        (Some(c), None) => writer.append(&reasonix_agent::session::Record::Composition {
            name: c.name.clone(),
            sha256: c.sha256.clone(),
            at_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                .unwrap_or(0),
        }),
        _ => Ok(()),
    }
}

fn same_composition(session: &Option<Binding>, running: Option<&Binding>) -> bool {
    session.as_ref().map(|b| &b.name) == running.map(|b| &b.name)
}

fn composition_name(binding: Option<&Binding>) -> String {
    match binding {
        Some(b) => format!(
            "the composition `{}`",
            reasonix_core::terminal::shown(&b.name)
        ),
        None => "no composition".to_string(),
    }
}
