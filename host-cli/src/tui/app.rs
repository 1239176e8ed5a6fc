//! The session's state and how each message changes it. Drawing is in [`super::draw`]; what
//! reaches the scrollback is queued in `commits` and written by the loop before the next frame.

use super::approval::{Choice, PersistTarget, Prompt, choices};
use super::effect::{Effect, Effects};
use super::msg::Msg;
use super::status::Status;
use super::theme::Theme;
use super::transcript::{self, CardStatus, LiveAnswer, Running, ToolCard};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::text::{Line, Span};
use reasonix_agent::agent_loop::{AgentEvent, RunStatus};
use reasonix_agent::permissions::{Posture, PostureSwitch};
use reasonix_core::cancel::CancelToken;
use reasonix_i18n::t;
use reasonix_protocol::Op;
use reasonix_session::input::Outgoing;
use reasonix_session::{Answered, Question, Session, SessionEvent};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How long a first Ctrl+C waits for the second.
const QUIT_WINDOW: Duration = Duration::from_secs(2);
/// Rows of a proposed change shown before its question (the rest is summarised).
const DIFF_LINES: usize = 400;
/// Rows of the diff under a write that ran without a question (Ctrl+E shows more).
const UNASKED_DIFF_LINES: usize = 60;
/// Rows of a tool call shown by Ctrl+E.
const EXPANDED_LINES: usize = 200;
/// Ctrl+T, Enter: the whole output (bounded already by what the model received).
const FULL_LINES: usize = 50_000;

/// The turn in progress.
pub struct Turn {
    pub cancel: CancelToken,
    pub started: Instant,
    pub cancelling: bool,
    /// When the agent last reported anything (a delta, a message, a tool): a long silence
    /// while no tool runs is the provider's, and the live line says so.
    pub heard_at: Instant,
    /// The request failed and is retried: shown on the live line until the next event, not
    /// committed (a persistent 500 left ten permanent lines).
    pub retrying: Option<String>,
    /// The final answer arrived: only saving is left (hooks at the end of a turn may take a
    /// moment). Esc and Ctrl+C no longer cancel it; they do what they do between turns.
    pub answered: bool,
}

impl Turn {
    /// Whether Esc or Ctrl+C would stop something.
    pub fn cancellable(&self) -> bool {
        !self.answered
    }
}

pub use super::overlay::Overlay;

pub struct App {
    pub theme: Theme,
    pub session: Session,
    /// Lines waiting to be written into the scrollback.
    pub commits: Vec<Line<'static>>,
    pub answer: LiveAnswer,
    /// Reasoning of the request in progress.
    pub reasoning: String,
    /// Show reasoning in full (Ctrl+O) instead of a one-line summary.
    pub verbose: bool,
    /// Reasoning of the latest turn that went into the scrollback folded: Ctrl+O shows it.
    folded: Vec<String>,
    /// Tool calls of this turn that have not finished.
    pub running: Vec<Running>,
    /// Sub-agents running in this turn, as cards.
    pub children: super::children::Children,
    /// Finished tool calls of the session, oldest first (at most `calls::KEPT`): Ctrl+E shows
    /// the last in full, Ctrl+T any of them.
    pub finished: std::collections::VecDeque<ToolCard>,
    /// The terminal width now (rendering of committed lines).
    pub width: u16,
    pub composer: super::composer::Composer,
    /// Messages typed while a turn runs, sent in order after it.
    pub queued: VecDeque<Outgoing>,
    pub approvals: VecDeque<Question>,
    pub prompt: Prompt,
    pub persist_target: PersistTarget,
    pub status: Status,
    pub posture: PostureSwitch,
    pub turn: Option<Turn>,
    pub overlay: Option<Overlay>,
    quit_armed: Option<Instant>,
    /// Esc was pressed on an empty composer (a second one opens the rewind list).
    esc_armed: bool,
    pub quit: bool,
    /// `/agent NAME`: after quitting, a new session under composition NAME.
    pub switch_composition: Option<String>,
    /// Diffs shown in approval prompts, by call id, for the card of that call.
    previews: Vec<(String, Vec<reasonix_core::types::FileChange>)>,
    /// Changes of writers that ran without a question: shown under their card.
    unshown: Vec<(String, Vec<reasonix_core::types::FileChange>)>,
    pub actions: super::actions::Context,
    /// A tick is due (spinner, elapsed time) while something runs.
    pub animating: bool,
    /// The session holds a message (sent or resumed): there is something to continue.
    pub has_messages: bool,
    pub mcp: super::mcp::McpSession,
    /// Rules answered "for this session" (`a`), in order: `/permissions` lists them.
    pub session_grants: Vec<String>,
    /// The goal being pursued (`/goal`).
    pub goal: Option<super::goal::Pursuit>,
}

impl App {
    pub fn new(
        theme: Theme,
        session: Session,
        status: Status,
        posture: PostureSwitch,
        composer: super::composer::Composer,
        actions: super::actions::Context,
    ) -> App {
        let persist_target = PersistTarget {
            file: actions.user_config.clone(),
        };
        App {
            theme,
            session,
            commits: Vec::new(),
            answer: LiveAnswer::new(theme, 80),
            reasoning: String::new(),
            verbose: false,
            folded: Vec::new(),
            running: Vec::new(),
            children: super::children::Children::default(),
            finished: std::collections::VecDeque::new(),
            width: 80,
            composer,
            queued: VecDeque::new(),
            approvals: VecDeque::new(),
            prompt: Prompt::default(),
            persist_target,
            status,
            posture,
            turn: None,
            overlay: None,
            quit_armed: None,
            esc_armed: false,
            quit: false,
            switch_composition: None,
            previews: Vec::new(),
            unshown: Vec::new(),
            actions,
            animating: false,
            has_messages: false,
            mcp: super::mcp::McpSession::default(),
            session_grants: Vec::new(),
            goal: None,
        }
    }

    pub fn commit(&mut self, lines: impl IntoIterator<Item = Line<'static>>) {
        self.commits.extend(lines);
    }

    pub fn notice(&mut self, text: &str) {
        let line = Line::from(Span::styled(
            format!("· {}", super::text::safe_line(text)),
            self.theme.dim(),
        ));
        self.commits.push(line);
    }

    pub fn error(&mut self, text: &str) {
        let line = Line::from(Span::styled(
            format!("✗ {}", super::text::safe_line(text)),
            self.theme.error(),
        ));
        self.commits.push(line);
    }

    /// What a command asked for, in order: the one place commands change the app.
    pub fn apply(&mut self, effects: Effects) {
        for effect in effects {
            match effect {
                Effect::Commit(lines) => self.commit(lines),
                Effect::Notice(text) => self.notice(&text),
                Effect::Error(text) => self.error(&text),
                Effect::Open(overlay) => self.overlay = Some(overlay),
                Effect::Submit(op) => self.session.submit(op),
                Effect::Compact(focus) => {
                    self.session.compact(focus);
                }
                Effect::SwitchClient(client) => self.session.switch_client(*client),
                Effect::Prompt(text) => self.send_prompt(text),
                Effect::CommandPrompt { prompt, args } => self.send_command_prompt(prompt, &args),
                Effect::ServerPrompt(text) => self.send_server_prompt(text),
                Effect::SetEffort(effort) => {
                    self.actions.effort = effort.clone();
                    self.session.submit(Op::SetEffort { effort });
                }
                Effect::Goal(control) => self.goal_control(control),
                Effect::SetMode(mode) => self.set_mode(mode),
                Effect::RevokeGrant(rule) => {
                    self.session_grants.retain(|granted| *granted != rule);
                    self.session.submit(Op::Revoke { rule });
                }
                Effect::Compose(text) => self.composer.set_text(&text),
                Effect::HasMessages(has) => self.has_messages = has,
                Effect::McpQuestion(question) => {
                    self.mcp.question = question;
                    self.mcp.guard.rearm();
                }
                Effect::ExpectMcp(names) => self.mcp.expect_change(&names),
                Effect::McpStatus(field) => self.status.mcp = field,
                Effect::Commands(registry) => {
                    self.actions.slash = registry.clone();
                    self.composer.set_slash_registry(registry);
                }
                Effect::McpResources(index) => self.composer.set_mcp_resources(index),
                Effect::Quit => self.quit = true,
                Effect::SwitchComposition(name) => {
                    self.switch_composition = Some(name);
                    self.quit = true;
                }
            }
        }
        self.status.goal = self.goal.as_ref().map(super::goal::status_piece);
    }

    pub fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Input(Event::Key(key), at) if key.kind != KeyEventKind::Release => {
                self.key(key, at)
            }
            Msg::Input(Event::Paste(text), _) => {
                if let Some(Overlay::Picker(picker)) = &mut self.overlay {
                    picker.paste(&text);
                } else if let Some(note) = &mut self.prompt.note {
                    note.push_str(&super::text::safe_line(&text));
                } else {
                    self.composer.handle_paste(&text);
                }
            }
            Msg::Input(..) => {}
            Msg::Session(event) => self.session_event(event),
            Msg::Stderr(line) => self.notice(&line),
            Msg::Shell(finished) => self.shell_card(finished.card),
            Msg::Mcp(event) => self.apply(super::mcp::handle(event)),
            Msg::GoalChecked(receipts) => self.goal_checked(receipts),
            Msg::InputClosed => self.quit = true,
        }
        self.status.goal = self.goal.as_ref().map(super::goal::status_piece);
    }

    /// A question of the session: shown after the ones before it.
    fn question(&mut self, pending: Question) {
        {
            // The proposed change goes into the scrollback, whole, before the question:
            // it is final, and the user can scroll and select it however long it is.
            match &pending.preview {
                reasonix_agent::permissions::Preview::Changes(changes) => {
                    let lines = super::diff::render(changes, self.theme, self.width, DIFF_LINES);
                    self.commits.extend(lines);
                    self.previews
                        .push((pending.call_id.clone(), changes.clone()));
                }
                reasonix_agent::permissions::Preview::Unavailable(why) => {
                    self.notice(&t!("app-no-preview", reason = why.as_str()));
                }
                reasonix_agent::permissions::Preview::None => {}
            }
        }
        self.approvals.push_back(pending);
    }

    /// A frame was drawn: an open question is on screen from now.
    pub fn drawn(&mut self, now: Instant) {
        if !self.approvals.is_empty() && self.overlay.is_none() {
            self.prompt.guard.drawn(now);
        }
        // Drawn only when no tool approval is in front of it.
        if self.approvals.is_empty() && self.mcp.question.is_some() && self.overlay.is_none() {
            self.mcp.guard.drawn(now);
        }
    }

    /// A key the input thread read at `at`.
    fn key(&mut self, key: KeyEvent, at: Instant) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if self.overlay.is_some() {
            return self.overlay_key(key);
        }
        // A key typed ahead of the question (before it was drawn, or while the user is still
        // typing) is not an answer: it goes where it was going, and the question waits.
        if !self.approvals.is_empty()
            && (self.prompt.note.is_some() || self.prompt.guard.admits(at))
        {
            return self.approval_key(key);
        }
        // The same for the question that starts a project's MCP servers (programs that run
        // with the user's rights): type-ahead stays in the composer.
        if self.mcp.question.is_some() && self.mcp.guard.admits(at) {
            let effects = super::mcp::question_key(&mut self.mcp, &self.actions, key);
            return self.apply(effects);
        }
        match key.code {
            KeyCode::Char('c') if ctrl => return self.ctrl_c(),
            KeyCode::Char('d') if ctrl => {
                if self.composer.is_empty() {
                    self.quit = true;
                }
                return;
            }
            KeyCode::Down
                if self.composer.is_empty()
                    && !self.composer.popup_open()
                    && self.children.select_next() =>
            {
                return;
            }
            KeyCode::Up
                if self.composer.is_empty()
                    && !self.composer.popup_open()
                    && self.children.select_previous() =>
            {
                return;
            }
            KeyCode::Enter if self.composer.is_empty() && self.children.selected().is_some() => {
                return self.show_child();
            }
            KeyCode::Esc if !self.composer.popup_open() && self.children.selected().is_some() => {
                return self.stop_child();
            }
            KeyCode::Esc if !self.composer.popup_open() => {
                if self.turn.as_ref().is_some_and(Turn::cancellable) {
                    self.cancel_turn();
                } else if self.composer.is_empty() {
                    // Esc Esc on an empty composer: the turns to rewind to.
                    if std::mem::take(&mut self.esc_armed) {
                        let effects = super::rewind::list_turns(self);
                        self.apply(effects);
                    } else {
                        self.esc_armed = true;
                    }
                }
                return;
            }
            KeyCode::BackTab => return self.cycle_posture(),
            KeyCode::Char('y') if ctrl => return self.toggle_yolo(),
            KeyCode::Char('e') if ctrl && self.composer.is_empty() => {
                match self.finished.back().cloned() {
                    Some(card) => {
                        let lines = card.render_expanded(self.theme, self.width, EXPANDED_LINES);
                        self.commit(lines);
                    }
                    None => self.notice(&t!("app-no-tool-call")),
                }
                return;
            }
            KeyCode::Char('t') if ctrl => {
                self.overlay = Some(Overlay::Calls(super::calls::CallPicker::new()));
                return;
            }
            KeyCode::Char('o') if ctrl => return self.toggle_reasoning(),
            _ => {}
        }
        self.quit_armed = None;
        self.esc_armed = false;
        if let super::composer::ComposerAction::Submit(text) = self.composer.handle_key(key) {
            self.submit(text);
        }
        if let Some(warning) = self.composer.take_warning() {
            self.notice(&warning);
        }
    }

    fn ctrl_c(&mut self) {
        if self.turn.as_ref().is_some_and(Turn::cancellable) {
            self.cancel_turn();
            return;
        }
        if !self.composer.is_empty() {
            self.composer.clear();
            return;
        }
        match self.quit_armed {
            Some(at) if at.elapsed() < QUIT_WINDOW => self.quit = true,
            _ => {
                // Shown in the live area while it holds, never left in the scrollback.
                self.quit_armed = Some(Instant::now());
            }
        }
    }

    /// A first Ctrl+C is waiting for the second.
    pub fn quit_pending(&self) -> bool {
        self.quit_armed.is_some_and(|at| at.elapsed() < QUIT_WINDOW)
    }

    /// Esc on a selected card: that child stops; the turn goes on.
    fn stop_child(&mut self) {
        let Some(card) = self.children.selected().cloned() else {
            return;
        };
        self.children.selected = None;
        if self.session.cancel_agent(&card.agent_id) {
            self.notice(&t!("app-child-stopping", label = card.label.as_str()));
        } else {
            self.notice(&t!(
                "app-child-finished-already",
                label = card.label.as_str()
            ));
        }
    }

    /// Enter on a selected card: what the child did so far, into the scrollback.
    fn show_child(&mut self) {
        let Some(card) = self.children.selected().cloned() else {
            return;
        };
        self.notice(&t!("app-child-so-far", label = card.label.as_str()));
        if card.log.is_empty() {
            self.notice(&t!("app-child-nothing-yet"));
        }
        for line in &card.log {
            for part in line.lines() {
                self.notice(&format!("  {part}"));
            }
        }
    }

    pub fn cancel_turn(&mut self) {
        if let Some(turn) = &mut self.turn {
            turn.cancel.cancel();
            turn.cancelling = true;
        }
        // Questions of the cancelled turn are withdrawn; the approver refuses them itself.
        self.approvals.clear();
        self.prompt = Prompt::default();
    }

    /// Shift+Tab: ask → acceptEdits (writes run, commands still ask) → auto (commands run
    /// too) → plan (nothing changes until a plan is approved) → ask. Leaving yolo or dontAsk
    /// goes back to ask; yolo is reached only by Ctrl+Y.
    fn cycle_posture(&mut self) {
        let next = match self.posture.get() {
            Posture::Ask => Posture::AcceptEdits,
            Posture::AcceptEdits => Posture::Auto,
            Posture::Auto => Posture::Plan,
            Posture::Plan | Posture::Yolo | Posture::DontAsk => Posture::Ask,
        };
        self.posture.set(next);
        self.status.posture = next;
    }

    fn toggle_yolo(&mut self) {
        let next = if self.posture.get() == Posture::Yolo {
            Posture::Ask
        } else {
            Posture::Yolo
        };
        self.posture.set(next);
        self.status.posture = next;
        if next == Posture::Yolo {
            self.notice(&t!("app-yolo"));
        }
    }

    fn approval_key(&mut self, key: KeyEvent) {
        if let Some(note) = &mut self.prompt.note {
            match key.code {
                KeyCode::Enter => {
                    let note = note.clone();
                    self.answer(Choice::Deny, Some(note));
                }
                KeyCode::Esc => self.prompt.note = None,
                KeyCode::Backspace => {
                    note.pop();
                }
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    note.push(c);
                }
                _ => {}
            }
            return;
        }
        if self.prompt.confirm_always && !matches!(key.code, KeyCode::Char('p') | KeyCode::Enter) {
            // Anything but the confirmation goes back to the question, without answering.
            self.prompt.confirm_always = false;
            return;
        }
        let offered = self.approvals.front().map_or(&[][..], choices);
        match key.code {
            KeyCode::Char('y') => self.answer(Choice::Once, None),
            KeyCode::Char('a') => self.answer(Choice::Session, None),
            KeyCode::Char('p') if offered.contains(&Choice::Always) => self.always(),
            KeyCode::Char('n') => self.prompt.note = Some(String::new()),
            KeyCode::Up => self.prompt.selected = self.prompt.selected.saturating_sub(1),
            KeyCode::Down => {
                self.prompt.selected =
                    (self.prompt.selected + 1).min(offered.len().saturating_sub(1));
            }
            KeyCode::Enter if self.prompt.confirm_always => self.always(),
            KeyCode::Enter => match offered
                .get(self.prompt.selected)
                .copied()
                .unwrap_or(Choice::Once)
            {
                Choice::Deny => self.prompt.note = Some(String::new()),
                Choice::Always => self.always(),
                choice => self.answer(choice, None),
            },
            KeyCode::Esc => self.cancel_turn(),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.cancel_turn();
            }
            _ => {}
        }
    }

    /// "Always" writes a rule into the user's config: it takes a second, deliberate `p` (or
    /// Enter), itself only after the confirmation was on screen for the guard's pause.
    fn always(&mut self) {
        if self.prompt.confirm_always {
            self.answer(Choice::Always, None);
        } else {
            self.prompt.confirm_always = true;
            self.prompt.selected = 2;
            self.prompt.guard.rearm();
        }
    }

    fn answer(&mut self, choice: Choice, note: Option<String>) {
        let Some(pending) = self.approvals.pop_front() else {
            return;
        };
        self.prompt = Prompt::default();
        let answer = Prompt::answer(choice, &pending, note);
        let summary = match self.session.answer(&pending.id, answer) {
            Ok(answered) => {
                match &answered {
                    Answered::Session(rule) | Answered::SessionOnly { rule, .. } => {
                        self.session_grants.push(rule.clone());
                    }
                    Answered::Persisted { rule, .. } => {
                        // The rules' lines stay (`allow`, `ask`, `deny`, as in the config);
                        // the line saying there are none goes, in whatever language it is.
                        self.actions.policy_text.retain(|l| {
                            ["allow ", "ask ", "deny "]
                                .iter()
                                .any(|list| l.starts_with(list))
                        });
                        self.actions.policy_text.push(format!("allow {rule}"));
                    }
                    _ => {}
                }
                answered.summary()
            }
            // Withdrawn meanwhile (the turn ended): nothing waits for this answer.
            Err(e) => e.to_string(),
        };
        let tool = super::text::safe_line(&pending.tool).into_owned();
        self.notice(&format!("{tool}: {}", super::text::safe_line(&summary)));
    }

    fn overlay_key(&mut self, key: KeyEvent) {
        if let Some(Overlay::Turns(turns)) = &mut self.overlay {
            match turns.key(key) {
                super::turn_picker::Outcome::Open => {}
                super::turn_picker::Outcome::Cancelled => self.overlay = None,
                super::turn_picker::Outcome::Rewind {
                    turn,
                    code,
                    conversation,
                } => {
                    self.overlay = None;
                    self.session.submit(Op::Rewind {
                        turn,
                        code,
                        conversation,
                    });
                }
                super::turn_picker::Outcome::Undo => {
                    self.overlay = None;
                    self.session.submit(Op::UndoRewind {});
                }
            }
            return;
        }
        if let Some(Overlay::Calls(calls)) = &mut self.overlay {
            match calls.key(key, self.finished.len()) {
                super::calls::Outcome::Open => {}
                super::calls::Outcome::Cancelled => self.overlay = None,
                super::calls::Outcome::Chosen(newest_first) => {
                    self.overlay = None;
                    let index = self.finished.len() - 1 - newest_first;
                    if let Some(card) = self.finished.get(index).cloned() {
                        // In full, as the list promises: the output is already bounded by
                        // what the model received.
                        let lines = card.render_expanded(self.theme, self.width, FULL_LINES);
                        self.commit(lines);
                    }
                }
            }
            return;
        }
        let Some(Overlay::Picker(picker)) = &mut self.overlay else {
            return;
        };
        match picker.key(key) {
            super::picker::Outcome::Open => {}
            super::picker::Outcome::Cancelled => self.overlay = None,
            super::picker::Outcome::Chosen(id) => {
                self.overlay = None;
                self.session.submit(Op::Resume { session_id: id });
            }
        }
    }

    /// Enter in the composer.
    pub fn submit(&mut self, text: String) {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        if let Some(command) = trimmed.strip_prefix('!') {
            let command = command.trim().to_string();
            if !command.is_empty() {
                let effects = super::bang::run(self, command);
                self.apply(effects);
            }
            return;
        }
        // `# fact` on one line is `/remember fact` (see `actions::dispatch`).
        if trimmed.starts_with('/') || (trimmed.starts_with("# ") && !trimmed.contains('\n')) {
            let effects = super::actions::dispatch(self, trimmed);
            self.apply(effects);
            return;
        }
        self.send_prompt(trimmed.to_string());
    }

    /// A prompt for the model: now, or after the running turn.
    pub fn send_prompt(&mut self, text: String) {
        self.send(Outgoing::typed(text));
    }

    /// A custom command's expanded template: the `@` references of the user's `args` are
    /// read, never those the template (a file of the repository) names.
    pub fn send_command_prompt(&mut self, text: String, args: &str) {
        self.send(Outgoing {
            text,
            references: Some(args.to_string()),
        });
    }

    /// The text an MCP server returned for a prompt command: sent as it is, its `@` words
    /// never read as resource references.
    pub fn send_server_prompt(&mut self, text: String) {
        self.send(Outgoing {
            text,
            references: None,
        });
    }

    fn send(&mut self, prompt: Outgoing) {
        if self.turn.is_some() {
            self.notice(&t!(
                "app-queued",
                waiting = (self.queued.len() + 1).to_string()
            ));
            self.queued.push_back(prompt);
            return;
        }
        self.commit(transcript::user_lines(&prompt.text, self.theme));
        self.has_messages = true;
        self.folded.clear();
        let cancel = self.session.prompt(prompt);
        self.turn = Some(Turn {
            cancel: cancel.clone(),
            started: Instant::now(),
            cancelling: false,
            heard_at: Instant::now(),
            retrying: None,
            answered: false,
        });
    }

    fn session_event(&mut self, event: SessionEvent) {
        match event {
            SessionEvent::Agent(event) => self.event(event),
            SessionEvent::Question(question) => self.question(question),
            // A withdrawn question is gone from the session; an answered one left this queue
            // when it was answered.
            SessionEvent::QuestionClosed { id, .. } => {
                if self.approvals.front().is_some_and(|q| q.id == id) {
                    self.prompt = Prompt::default();
                }
                self.approvals.retain(|q| q.id != id);
            }
            SessionEvent::TurnDone(outcome) => {
                self.flush_answer();
                // Children never outlive their turn.
                self.children.clear();
                for mut running in std::mem::take(&mut self.running) {
                    if running.card.status == CardStatus::Running {
                        running.card.status = CardStatus::Cancelled;
                    }
                    self.finished_card(running.card);
                }
                let elapsed = self
                    .turn
                    .take()
                    .map(|t| t.started.elapsed())
                    .unwrap_or_default();
                match outcome.status {
                    RunStatus::Success => {}
                    RunStatus::Cancelled => self.notice(&t!("app-cancelled")),
                    RunStatus::MaxSteps => {
                        self.error(&t!("app-max-steps", steps = outcome.steps.to_string()))
                    }
                    RunStatus::Error | RunStatus::TimedOut | RunStatus::BudgetExceeded => {
                        self.error(&outcome.result)
                    }
                }
                self.status.last_turn = Some(elapsed);
                self.approvals.clear();
                self.goal_turn_done(&outcome);
                if let Some(next) = self.queued.pop_front() {
                    self.send(next);
                }
            }
            SessionEvent::Spend(spend) => self.status.spend = spend,
            SessionEvent::Session { id, messages } => {
                self.flush_answer();
                self.status.session_id = id.clone();
                self.status.reset_usage();
                self.has_messages = !messages.is_empty();
                if messages.is_empty() {
                    self.notice(&t!("app-new-session", id = id.as_str()));
                } else {
                    let lines = transcript::history_lines(&messages, self.theme, self.width);
                    self.commit(lines);
                    self.notice(&t!(
                        "app-resumed-session",
                        id = id.as_str(),
                        count = messages.len().to_string()
                    ));
                }
            }
            SessionEvent::ModelChanged { provider, model } => {
                self.notice(&t!(
                    "app-model-changed",
                    model = format!("{provider}/{model}")
                ));
                self.status.model = format!("{provider}/{model}");
            }
            SessionEvent::Rewound(done) => {
                let effects = super::rewind::rewound(self.theme, *done);
                self.apply(effects);
            }
            SessionEvent::Failed(text) => self.error(&text),
            SessionEvent::Stopped => self.quit = true,
        }
    }

    fn event(&mut self, event: AgentEvent) {
        // The agent changes the posture itself when a plan is approved.
        self.status.posture = self.posture.get();
        if let Some(turn) = &mut self.turn {
            turn.heard_at = Instant::now();
            if !matches!(event, AgentEvent::Retry(_)) {
                turn.retrying = None;
            }
        }
        match event {
            AgentEvent::RequestStarted { .. } => {
                self.reasoning.clear();
            }
            AgentEvent::Retry(notice) => {
                let line = t!(
                    "app-retrying",
                    delay = format!("{:.1}", notice.delay.as_secs_f64()),
                    attempt = notice.attempt.to_string(),
                    max = notice.max_retries.to_string(),
                    reason = notice.reason.as_str()
                );
                match &mut self.turn {
                    Some(turn) => turn.retrying = Some(line),
                    None => self.notice(&line),
                }
            }
            AgentEvent::TextDelta(delta) => {
                self.fold_reasoning();
                let lines = self.answer.push(&delta);
                self.commit(lines);
            }
            AgentEvent::ReasoningDelta(delta) => {
                self.reasoning.push_str(&delta);
            }
            AgentEvent::StreamRestarted { reasoning } => {
                if reasoning {
                    self.reasoning.clear();
                } else {
                    // Committed lines stay in the scrollback: end them and say what follows.
                    self.flush_answer();
                    self.notice(&crate::wording::restarted_text(false));
                }
            }
            AgentEvent::Message(message) => {
                if message.role == reasonix_core::types::Role::Assistant {
                    self.fold_reasoning();
                    self.flush_answer();
                    // A message without calls is the turn's last: the agent ends it.
                    if message.tool_calls.is_empty()
                        && let Some(turn) = &mut self.turn
                    {
                        turn.answered = true;
                    }
                }
            }
            AgentEvent::ToolProgress {
                id,
                message,
                fraction,
            } => {
                if let Some(running) = self.running.iter().find(|r| r.card.id == id) {
                    let done = fraction
                        .map(|f| format!("{:.0}% ", f * 100.0))
                        .unwrap_or_default();
                    self.status.running_tool =
                        Some(format!("{} · {done}{message}", running.card.name));
                }
            }
            AgentEvent::ToolsChanged { added, removed } => {
                self.notice(&crate::wording::tools_changed(&added, &removed));
            }
            AgentEvent::Compacted {
                tier,
                number,
                tokens_before,
                tokens_after,
                manual,
            } => {
                self.notice(&crate::wording::compacted(
                    tier.as_str(),
                    number,
                    tokens_before,
                    tokens_after,
                    manual,
                ));
                // The status line shows what the context holds now (the next request's
                // provider count replaces this estimate), as the notice does.
                self.status.context_used = tokens_after;
            }
            AgentEvent::ToolPreview { id, changes } => {
                // Already shown with its question: only the card keeps it.
                if !self.previews.iter().any(|(call, _)| *call == id) {
                    self.unshown.push((id, changes));
                }
            }
            AgentEvent::ToolStarted {
                id,
                name,
                arguments,
            } => {
                self.fold_reasoning();
                self.flush_answer();
                let changes = self
                    .previews
                    .iter()
                    .position(|(call, _)| *call == id)
                    .map(|i| self.previews.swap_remove(i).1)
                    .or_else(|| {
                        self.unshown
                            .iter()
                            .find(|(call, _)| *call == id)
                            .map(|(_, changes)| changes.clone())
                    });
                self.status.running_tool = Some(name.clone());
                let mut card = ToolCard::new(id, name, arguments);
                card.changes = changes;
                self.running.push(Running {
                    card,
                    started: Instant::now(),
                });
            }
            AgentEvent::ToolFinished {
                id,
                is_error,
                output,
                duration_ms,
                ..
            } => {
                if let Some(i) = self.running.iter().position(|r| r.card.id == id) {
                    let mut card = self.running.remove(i).card;
                    let cancelling = self.turn.as_ref().is_some_and(|t| t.cancelling);
                    card.status = finished_status(is_error, &output, cancelling);
                    card.duration_ms = Some(duration_ms);
                    card.output = Some(output);
                    self.finished_card(card);
                }
                self.status.running_tool = self.running.last().map(|r| r.card.name.clone());
            }
            AgentEvent::Usage(usage) => self.status.add_usage(&usage),
            AgentEvent::Notice(text) => self.notice(&text),
            AgentEvent::PermissionDenied {
                id,
                name,
                arguments,
                reason,
            } => {
                let mut card = ToolCard::new(id, name, arguments);
                card.status = CardStatus::Denied(reason);
                self.finished_card(card);
            }
            AgentEvent::Child { .. } => self.child_event(&event),
            // Only ever inside a `Child`.
            AgentEvent::SubagentStarted { .. } | AgentEvent::SubagentFinished { .. } => {}
        }
    }

    /// A sub-agent's activity, as it happens: when it starts and ends, its tool calls (dimmed,
    /// labelled, and in the status line while they run), its notices and refusals. Its answer
    /// reaches the conversation as the result of the call that started it.
    fn child_event(&mut self, event: &AgentEvent) {
        self.children.observe(event);
        let (path, inner) = event.lineage();
        let label = path
            .iter()
            .map(|c| c.label.as_str())
            .collect::<Vec<_>>()
            .join(" › ");
        let line = match inner {
            AgentEvent::SubagentStarted { model, .. } => {
                t!(
                    "app-subagent-started",
                    label = label.as_str(),
                    model = model.as_str()
                )
            }
            AgentEvent::SubagentFinished { status, steps } => t!(
                "app-subagent-finished",
                label = label.as_str(),
                status = status.to_string(),
                steps = *steps
            ),
            AgentEvent::ToolStarted {
                name, arguments, ..
            } => {
                self.status.running_tool = Some(format!("{label} · {name}"));
                let args: String = arguments.chars().take(100).collect();
                format!("  ↳ [{label}] {name} {args}")
            }
            AgentEvent::ToolFinished {
                name,
                is_error: true,
                output,
                ..
            } => {
                let first: String = output
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(160)
                    .collect();
                t!(
                    "app-child-tool-failed",
                    label = label.as_str(),
                    name = name.as_str(),
                    first = first
                )
            }
            AgentEvent::Notice(text) => format!("[{label}] {text}"),
            AgentEvent::PermissionDenied { name, reason, .. } => {
                format!("[{label}] {}", crate::wording::not_run(name, reason))
            }
            _ => return,
        };
        self.notice(&line);
    }

    /// The reasoning of a request, once its answer or tool calls start: in full when
    /// verbose, else one dimmed line.
    fn fold_reasoning(&mut self) {
        if self.reasoning.trim().is_empty() {
            self.reasoning.clear();
            return;
        }
        let reasoning = std::mem::take(&mut self.reasoning);
        let lines = transcript::reasoning_lines(&reasoning, self.verbose, self.theme);
        self.commit(lines);
        if !self.verbose {
            self.folded.push(reasoning);
        }
    }

    /// Ctrl+O: reasoning in full from now on, and the latest turn's folded reasoning shown
    /// now (what the folded line promised); pressed again, folded from now on.
    fn toggle_reasoning(&mut self) {
        self.verbose = !self.verbose;
        if !self.verbose {
            return self.notice(&t!("app-reasoning-folded-from-now"));
        }
        let folded = std::mem::take(&mut self.folded);
        if !folded.is_empty() {
            let mut lines = vec![Line::from(Span::styled(
                t!("app-reasoning-latest"),
                self.theme.dim(),
            ))];
            for text in &folded {
                lines.extend(transcript::reasoning_lines(text, true, self.theme));
            }
            self.commit(lines);
        }
        self.notice(&t!("app-reasoning-shown-from-now"));
    }

    /// A `!cmd` the user typed to see its output: shown in full (up to the rows Ctrl+E shows),
    /// not folded to its first line.
    fn shell_card(&mut self, mut card: ToolCard) {
        let output = card.output.clone().unwrap_or_default();
        card.status = finished_status(card.status == CardStatus::Failed, &output, false);
        let lines = card.render_expanded(self.theme, self.width, EXPANDED_LINES);
        self.commit(lines);
        if self.finished.len() == super::calls::KEPT {
            self.finished.pop_front();
        }
        self.finished.push_back(card);
    }

    fn finished_card(&mut self, card: ToolCard) {
        let lines = transcript::card_lines(&card, self.theme, self.width);
        self.commit(lines);
        // A write nobody was asked about: what it changed, under its card.
        if let Some(i) = self.unshown.iter().position(|(call, _)| *call == card.id) {
            let (_, changes) = self.unshown.swap_remove(i);
            if card.status == CardStatus::Done {
                let lines =
                    super::diff::render(&changes, self.theme, self.width, UNASKED_DIFF_LINES);
                self.commit(lines);
            }
        }
        if self.finished.len() == super::calls::KEPT {
            self.finished.pop_front();
        }
        self.finished.push_back(card);
    }

    /// The terminal's width changed: what is committed from now on uses it.
    pub fn set_width(&mut self, width: u16) {
        if width != self.width {
            self.width = width;
            self.answer.set_width(width);
        }
    }

    fn flush_answer(&mut self) {
        let lines = self.answer.finish();
        self.commit(lines);
    }

    /// Called every tick while something runs.
    pub fn tick(&mut self) {
        self.animating = self.turn.is_some() || !self.running.is_empty();
    }
}

/// A finished call's card status: a command that exited non-zero failed (✗) even when the tool
/// call itself succeeded; one killed, or failed, because the user cancelled the turn was
/// cancelled (■).
fn finished_status(is_error: bool, output: &str, cancelling: bool) -> CardStatus {
    use super::card::outcome::{Ended, split};
    match (split(output).1, is_error, cancelling) {
        (Some(Ended::Killed(_)), _, true) | (_, true, true) => CardStatus::Cancelled,
        (Some(Ended::Killed(_)), _, false) | (_, true, false) => CardStatus::Failed,
        (Some(Ended::Exit(code)), false, _) if code != 0 => CardStatus::Failed,
        _ => CardStatus::Done,
    }
}
