//! MCP in the interactive session (issue #15): one notice per server that becomes ready or
//! fails, `/mcp` (list, reconnect, approve), prompts as `/mcp__<server>__<prompt>` commands,
//! `@<server>:<uri>` completion, and the question for a project's unapproved servers.
//!
//! Nothing here waits for a server on the UI thread: states are read from [`Servers`]
//! (cheap, in memory) at most every [`POLL_EVERY`]; `prompts/get` runs on a short-lived thread
//! and reports back as [`Event`]; resources are read by the worker when the prompt is sent.

pub mod listing;
pub mod question;
pub mod resources;

use super::app::App;
use super::effect::{Effect, Effects};
use super::msg::Msg;
use super::slash::{CommandKind, CommandSpec};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use question::{ANSWERS, Answer, Question};
use reasonix_config::TrustStore;
use reasonix_i18n::t;
use reasonix_mcp::{PromptInfo, ServerState, ServerStatus, Servers};
use reasonix_session::input::mcp_prompt::{args as prompt_args, command as prompt_command};
use resources::ResourceIndex;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often server states are read at most.
pub const POLL_EVERY: Duration = Duration::from_millis(250);

/// What a background MCP request reports to the UI thread.
#[derive(Debug)]
pub enum Event {
    /// `prompts/get` for `/<command>` answered: the text to send, or why not.
    Prompt {
        command: String,
        result: Result<String, String>,
    },
}

/// A server's state as far as notices go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Starting,
    Ready,
    Failed,
    /// Disabled or not approved: nothing to announce.
    Stopped,
}

fn seen(state: &ServerState) -> Seen {
    match state {
        ServerState::Starting => Seen::Starting,
        ServerState::Ready { .. } => Seen::Ready,
        ServerState::Failed { .. } => Seen::Failed,
        ServerState::Disabled | ServerState::NotApproved => Seen::Stopped,
    }
}

/// A notice for one transition, error or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub error: bool,
    pub text: String,
}

/// The notices for what changed since `last` (which is brought up to date): one when a server
/// becomes ready, one (with the end of its stderr) when it fails.
fn transitions(last: &mut BTreeMap<String, Seen>, statuses: &[ServerStatus]) -> Vec<Note> {
    let mut notes = Vec::new();
    for status in statuses {
        let now = seen(&status.state);
        let before = last.insert(status.name.clone(), now);
        if before == Some(now) {
            continue;
        }
        match &status.state {
            ServerState::Ready { tools, .. } => notes.push(Note {
                error: false,
                text: t!("mcp-ready", name = status.name.as_str(), tools = *tools),
            }),
            ServerState::Failed { reason, stderr } => {
                notes.push(Note {
                    error: true,
                    text: t!(
                        "mcp-failed",
                        name = status.name.as_str(),
                        reason = reason.as_str()
                    ),
                });
                for line in listing::stderr_tail(stderr, listing::STDERR_LINES) {
                    notes.push(Note {
                        error: false,
                        text: format!("  │ {line}"),
                    });
                }
            }
            _ => {}
        }
    }
    notes
}

/// `MCP 2/3` for the status line: ready of those that should run.
fn status_field(statuses: &[ServerStatus]) -> Option<String> {
    let counted: Vec<&ServerStatus> = statuses
        .iter()
        .filter(|s| s.state != ServerState::Disabled)
        .collect();
    if counted.is_empty() {
        return None;
    }
    let ready = counted
        .iter()
        .filter(|s| matches!(s.state, ServerState::Ready { .. }))
        .count();
    Some(format!("MCP {ready}/{}", counted.len()))
}

/// The registry entries of the prompts of ready servers.
pub fn prompt_specs(prompts: &[PromptInfo]) -> Vec<CommandSpec> {
    prompts
        .iter()
        .filter_map(|p| {
            let name = prompt_command::command_name(p)?;
            let first = p.description.lines().next().unwrap_or_default().trim();
            let description = if first.is_empty() {
                t!("mcp-prompt-description", server = p.server.as_str())
            } else {
                super::text::truncate(first, 120).into_owned()
            };
            let usage = prompt_args::usage(&p.arguments);
            Some(CommandSpec {
                name,
                description,
                argument_hint: (!usage.is_empty()).then_some(usage),
                kind: CommandKind::McpPrompt {
                    server: p.server.clone(),
                },
            })
        })
        .collect()
}

/// The session's view of its MCP servers.
#[derive(Default)]
pub struct McpSession {
    servers: Servers,
    last: BTreeMap<String, Seen>,
    polled: Option<Instant>,
    prompts: Vec<PromptInfo>,
    resources: Vec<reasonix_mcp::ResourceInfo>,
    /// The approval question while it is open.
    pub question: Option<Question>,
    /// When keys may answer it (type-ahead must not start a project's programs).
    pub guard: crate::tui::guard::AnswerGuard,
}

impl McpSession {
    /// The servers of the session; the question opens at once when some wait for approval.
    pub fn new(servers: Servers) -> McpSession {
        let question = Question::for_statuses(&servers.statuses());
        McpSession {
            servers,
            question,
            ..McpSession::default()
        }
    }

    /// Something may change soon (a server is starting): the loop should wake often enough
    /// to say so when it does.
    pub fn watching(&self) -> bool {
        !self.servers.is_empty()
            && (self.polled.is_none() || self.last.values().any(|s| *s == Seen::Starting))
    }

    /// A change was asked for: read the states at the next chance.
    pub fn expect_change(&mut self, names: &[String]) {
        for name in names {
            self.last.insert(name.clone(), Seen::Starting);
        }
        self.polled = None;
    }
}

/// Read the servers' states (at most every [`POLL_EVERY`]): notices for transitions, the
/// status-line field, prompt commands and resource completion brought up to date.
pub fn poll(mcp: &mut McpSession, slash: &super::slash::SlashRegistry) -> Effects {
    let mut out = Effects::default();
    if mcp.servers.is_empty() {
        return out;
    }
    let now = Instant::now();
    if mcp
        .polled
        .is_some_and(|at| now.duration_since(at) < POLL_EVERY)
    {
        return out;
    }
    mcp.polled = Some(now);
    let statuses = mcp.servers.statuses();
    for note in transitions(&mut mcp.last, &statuses) {
        if note.error {
            out.error(note.text);
        } else {
            out.notice(note.text);
        }
    }
    out.push(Effect::McpStatus(status_field(&statuses)));
    let prompts = mcp.servers.prompts();
    if prompts != mcp.prompts {
        out.push(Effect::Commands(Arc::new(
            slash.with_mcp_prompts(prompt_specs(&prompts)),
        )));
        mcp.prompts = prompts;
    }
    let resources = mcp.servers.resources();
    if resources != mcp.resources {
        out.push(Effect::McpResources(ResourceIndex::new(resources.clone())));
        mcp.resources = resources;
    }
    out
}

/// What a background MCP request's report asks for.
pub fn handle(event: Event) -> Effects {
    match event {
        Event::Prompt { command, result } => match result {
            Ok(text) if !text.trim().is_empty() => Effect::ServerPrompt(text),
            Ok(_) => Effect::Error(t!("mcp-empty-prompt", command = command)),
            Err(e) => Effect::Error(format!("/{command}: {e}")),
        }
        .into(),
    }
}

/// `/mcp [list | reconnect <name> | approve]`.
pub fn command(app: &App, args: &str) -> Effects {
    let mut words = args.split_whitespace();
    match (words.next(), words.next()) {
        (None | Some("list"), _) => {
            Effect::Commit(listing::lines(&app.mcp.servers.statuses(), app.theme)).into()
        }
        (Some("reconnect"), Some(name)) => reconnect(app, name),
        (Some("reconnect"), None) => {
            let names = names(&app.mcp.servers.statuses());
            Effect::Error(t!("mcp-reconnect-usage", names = names)).into()
        }
        (Some("approve"), _) => {
            let question = Question::for_statuses(&app.mcp.servers.statuses());
            let mut out = Effects::default();
            if question.is_none() {
                out.notice(t!("mcp-none-waiting"));
            }
            out.push(Effect::McpQuestion(question));
            out
        }
        (Some(other), _) => Effect::Error(t!("mcp-unknown-subcommand", word = other)).into(),
    }
}

fn names(statuses: &[ServerStatus]) -> String {
    if statuses.is_empty() {
        return t!("mcp-no-server-configured");
    }
    statuses
        .iter()
        .map(|s| format!("`{}`", s.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn reconnect(app: &App, name: &str) -> Effects {
    let statuses = app.mcp.servers.statuses();
    let Some(status) = statuses.iter().find(|s| s.name == name) else {
        return Effect::Error(t!(
            "mcp-no-such-server",
            name = name,
            names = names(&statuses)
        ))
        .into();
    };
    // Reconnecting must not start what the user has not allowed to run.
    match status.state {
        ServerState::Disabled => {
            return Effect::Error(t!("mcp-server-disabled", name = name)).into();
        }
        ServerState::NotApproved => {
            return Effect::Error(t!(
                "mcp-server-state",
                name = name,
                state = listing::state_text(status)
            ))
            .into();
        }
        _ => {}
    }
    let mut out = Effects::default();
    match app.mcp.servers.reconnect(name) {
        Ok(()) => {
            out.notice(t!("mcp-reconnecting", name = name));
            out.push(Effect::ExpectMcp(vec![name.to_string()]));
        }
        Err(e) => out.error(format!("/mcp reconnect {name}: {e}")),
    }
    out
}

/// `/mcp__<server>__<prompt> args…`: bind the arguments, then ask the server for the text on
/// a thread of its own, with the resources the user's arguments name (as `reasonix run` does;
/// never those the server's text names); [`handle`] sends it.
pub fn run_prompt(app: &App, command: &str, args: &str) -> Effects {
    let Some(prompt) = prompt_command::find(&app.mcp.prompts, command).cloned() else {
        return Effect::Error(t!("mcp-unknown-prompt", command = command)).into();
    };
    let bound = match prompt_args::bind(command, &prompt.arguments, args) {
        Ok(bound) => bound,
        Err(e) => return Effect::Error(e).into(),
    };
    let servers = app.mcp.servers.clone();
    let to_ui = app.actions.to_ui.clone();
    let command = command.to_string();
    let args = args.to_string();
    let spawned = std::thread::Builder::new()
        .name("reasonix-mcp-prompt".into())
        .spawn(move || {
            let result = servers
                .get_prompt(&prompt.server, &prompt.name, bound)
                .map_err(|e| e.to_string())
                .and_then(|text| {
                    // The prompt becomes the input line's text, so the resources' images are
                    // described there, not attached.
                    let blocks = reasonix_session::input::resource_blocks(&args, &servers)?;
                    Ok(format!("{text}{}", blocks.text))
                });
            let _ = to_ui.send(Msg::Mcp(Event::Prompt { command, result }));
        });
    match spawned {
        Ok(_) => Effects::default(),
        Err(e) => Effect::Error(t!("mcp-prompt-thread-failed", error = e.to_string())).into(),
    }
}

/// A key while the approval question is open.
pub fn question_key(
    mcp: &mut McpSession,
    actions: &super::actions::Context,
    key: KeyEvent,
) -> Effects {
    let Some(question) = &mut mcp.question else {
        return Effects::default();
    };
    if question.confirm_always {
        question.confirm_always = false;
        if matches!(key.code, KeyCode::Char('a') | KeyCode::Enter) {
            return answer_question(mcp, actions, Answer::Always);
        }
        return Effects::default();
    }
    let answer = match key.code {
        KeyCode::Char('y') => Answer::Session,
        KeyCode::Char('a') => {
            // Always is permanent: one more deliberate key, after its own pause.
            question.confirm_always = true;
            question.selected = 1;
            mcp.guard.rearm();
            return Effects::default();
        }
        KeyCode::Char('n') | KeyCode::Esc => Answer::No,
        KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => Answer::No,
        KeyCode::Up => {
            question.selected = question.selected.saturating_sub(1);
            return Effects::default();
        }
        KeyCode::Down => {
            question.selected = (question.selected + 1).min(ANSWERS.len() - 1);
            return Effects::default();
        }
        KeyCode::Enter if ANSWERS[question.selected] == Answer::Always => {
            question.confirm_always = true;
            mcp.guard.rearm();
            return Effects::default();
        }
        KeyCode::Enter => ANSWERS[question.selected],
        _ => return Effects::default(),
    };
    answer_question(mcp, actions, answer)
}

fn answer_question(
    mcp: &mut McpSession,
    actions: &super::actions::Context,
    answer: Answer,
) -> Effects {
    let mut out = Effects::default();
    let Some(question) = mcp.question.take() else {
        return out;
    };
    let listed: Vec<String> = question.servers.iter().map(|s| s.name.clone()).collect();
    if answer == Answer::No {
        out.notice(t!("mcp-left-stopped", names = listed.join(", ")));
        return out;
    }
    if answer == Answer::Always {
        let cx = &actions.prepared.cx;
        let (home, sha, pinned) = (
            cx.paths.home.clone(),
            cx.config.project_mcp_json_sha256.clone(),
            cx.config.project_mcp_json_pins.clone(),
        );
        match remember_approval(&home, &actions.workspace, sha, pinned) {
            Ok(text) => out.notice(text),
            Err(e) => out.error(t!("mcp-approved-session-only", error = e)),
        }
    }
    let started = mcp.servers.approve_project();
    if started.is_empty() {
        out.notice(t!("mcp-none-waiting-any-more"));
    } else {
        out.notice(t!("mcp-starting", names = started.join(", ")));
    }
    mcp.expect_change(&started);
    out
}

/// Record the approval of `<workspace>/.mcp.json` in the trust store: the bytes read when the
/// session started (the servers the user was shown) and the files they execute as pinned
/// then, not whatever the files hold now.
fn remember_approval(
    home: &std::path::Path,
    workspace: &std::path::Path,
    sha: Option<String>,
    pinned: Vec<reasonix_config::PinnedFile>,
) -> Result<String, String> {
    let Some(sha) = sha else {
        return Err(t!("mcp-no-project-file"));
    };
    let mut store = TrustStore::load(home).map_err(|e| e.to_string())?;
    store.approve_mcp_content(workspace, sha, pinned);
    store.save(home).map_err(|e| e.to_string())?;
    Ok(t!(
        "mcp-approved-later",
        file = workspace.join(".mcp.json").display().to_string()
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
