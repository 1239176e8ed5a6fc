//! The interactive session: `reasonix` with no subcommand (docs/TUI.md, ADR 0020).
//!
//! Rendering model: an inline viewport at the bottom of the terminal (live answer, composer,
//! status line); finished transcript lines are inserted above it into the terminal's own
//! scrollback, so native selection, copying and scrolling keep working. Every string that
//! comes from outside (the model, tools, plugins, files) passes through [`text::safe`] before it
//! becomes a `Span`.

pub mod actions;
pub mod app;
pub mod approval;
pub mod bang;
#[cfg(test)]
mod bench;
pub mod calls;
pub mod capture;
pub mod card;
pub mod children;
pub mod composer;
pub mod diff;
pub mod draw;
pub mod effect;
pub mod goal;
pub mod guard;
pub mod highlight;
pub mod markdown;
pub mod mcp;
pub use reasonix_session::input::mention;
pub mod mode;
pub mod msg;
pub mod overlay;
pub mod picker;
pub mod popup;
pub mod rewind;
pub mod screen;
pub mod setup;
pub mod slash;
pub mod status;
pub mod text;
pub mod theme;
pub mod transcript;
pub mod turn_picker;
pub mod wrap;

use crate::exit::{Code, Failure, Outcome};
use crate::flags::{mode_name, parse_rule_values, rule_values};
use crate::launch::{self, Options, Resume};
use crate::term::outln;
use anyhow::anyhow;
use app::{App, Overlay};
use msg::Msg;
use ratatui::text::{Line, Span};
use reasonix_agent::permissions::Posture;
use reasonix_agent::session::{SessionError, SessionStore};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;
use theme::{ColorLevel, Theme};

/// Flags of the interactive session (`reasonix [flags]`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SessionArgs {
    /// Model reference: a provider name, `provider/model`, or a bare model name.
    #[arg(long, short)]
    pub model: Option<String>,
    /// Reasoning effort (e.g. low, high, max).
    #[arg(long, value_name = "LEVEL")]
    pub effort: Option<String>,
    /// Run mode: economy, balanced or delivery (over `[agent] mode`; `/mode` switches).
    #[arg(long, value_name = "MODE", value_parser = crate::commands::run::parse_mode)]
    pub mode: Option<reasonix_config::run_mode::RunMode>,
    /// Workspace root (default: `[sandbox] workspace_root`, else the current directory).
    #[arg(long, value_name = "PATH")]
    pub dir: Option<PathBuf>,
    /// An extra writable directory, like `[sandbox] allow_write`. Repeatable.
    #[arg(long, value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
    /// Continue the latest session of this workspace.
    #[arg(long = "continue", short = 'c', conflicts_with = "resume")]
    pub continue_latest: bool,
    /// Resume a session: its id, an id prefix, or text from its title; without a value, pick
    /// one from a list.
    #[arg(long, short = 'r', value_name = "QUERY", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,
    /// ask (default), acceptEdits, auto, dontAsk or bypassPermissions.
    #[arg(long, value_name = "MODE", conflicts_with = "yolo")]
    pub permission_mode: Option<String>,
    /// Start in yolo: everything runs except what `[permissions] deny` blocks.
    #[arg(long, alias = "dangerously-skip-permissions")]
    pub yolo: bool,
    /// Allow rules for this session, comma- or space-separated (e.g. `Edit,Bash(cargo test:*)`).
    #[arg(long, value_name = "RULES", alias = "allowedTools", num_args = 1..)]
    pub allowed_tools: Vec<String>,
    /// Model requests per turn at most (default: `[agent] max_steps`, else 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: Option<u32>,
    /// Run as the agent composition NAME (`[compositions.NAME]`); `-c` keeps a session's own.
    #[arg(long, value_name = "NAME")]
    pub agent_composition: Option<String>,
}

/// Rows of the live area when nothing runs: composer and status line.
const IDLE_HEIGHT: u16 = 2;
/// Frames at most this often while only the agent speaks: a streamed answer's lines are
/// committed in batches instead of one clear-and-repaint of the live area each. A key is
/// drawn at once.
const FRAME: Duration = Duration::from_millis(16);

pub fn run(args: SessionArgs) -> Outcome {
    if !crate::term::terminal_attached() {
        return Err(Failure::usage(anyhow!(
            "the interactive session needs a terminal; for scripts and pipes use `reasonix run \"task\"`"
        )));
    }
    let posture = match (&args.permission_mode, args.yolo) {
        (_, true) => Posture::Yolo,
        (Some(mode), false) => {
            Posture::parse(mode).map_err(|e| Failure::usage(anyhow!("--permission-mode: {e}")))?
        }
        (None, false) => Posture::Ask,
    };
    let add_dirs = launch::add_dirs(&args.add_dir)?;
    let mut args = args;
    let (to_ui, inbox) = channel::<Msg>();
    let mut input = Input::default();
    loop {
        match one_session(&args, posture, &add_dirs, &to_ui, &inbox, &mut input)? {
            Ended::Quit => return Ok(Code::Success),
            Ended::Switch(name) => {
                outln!(
                    "starting a new session as the agent composition {}",
                    reasonix_core::terminal::shown(&name)
                );
                // A new session under the other composition; the one left stays as it was.
                args.agent_composition = Some(name);
                args.resume = None;
                args.continue_latest = false;
                // What the old session's threads sent last is not for the new one.
                while inbox.try_recv().is_ok() {}
            }
        }
    }
}

/// How a session in the terminal ended.
enum Ended {
    Quit,
    /// `/agent NAME`: leave this one and start a new session under composition NAME.
    Switch(String),
}

/// The process-wide input: the key reader and the signal handler start with the first session
/// and serve the next ones.
#[derive(Default)]
struct Input {
    started: bool,
}

fn one_session(
    args: &SessionArgs,
    posture: Posture,
    add_dirs: &[String],
    to_ui: &std::sync::mpsc::Sender<Msg>,
    inbox: &std::sync::mpsc::Receiver<Msg>,
    input: &mut Input,
) -> Result<Ended, Failure> {
    let add_dirs = add_dirs.to_vec();
    let overrides = launch::Overrides {
        composition: args.agent_composition.clone(),
        resume: match (&args.resume, args.continue_latest) {
            (Some(query), _) if !query.is_empty() => Some(Resume::Query(query.clone())),
            (None, true) => Some(Resume::Latest),
            _ => None,
        },
        ..launch::Overrides::default()
    };
    let mut prepared =
        launch::Runtime::open_with(args.dir.as_deref(), add_dirs.clone(), &overrides)?;
    // First run: nothing configured and no key found. The setup screen instead of an error.
    if setup::needs_setup(&prepared.cx.config, &prepared.cx.paths) {
        match setup::run_setup_screen(&prepared.cx.paths) {
            Ok(setup::SetupOutcome::Configured(_)) => {
                drop(prepared);
                prepared = launch::Runtime::open_with(args.dir.as_deref(), add_dirs, &overrides)?;
            }
            Ok(setup::SetupOutcome::Cancelled) => {
                return Err(Failure::usage(anyhow!(
                    "no model is configured; run `reasonix setup` when you have an API key"
                )));
            }
            Err(e) => return Err(Failure::usage(anyhow!("{e}"))),
        }
    }
    let prepared = Arc::new(prepared);
    let known: Vec<String> = prepared
        .catalog
        .tools()
        .iter()
        .map(|t| t.spec().name.clone())
        .collect();
    let mut rest = Vec::new();
    let allow = rule_values(&args.allowed_tools, &known, &mut rest);
    if let Some(extra) = rest.first() {
        return Err(Failure::usage(anyhow!(
            "--allowed-tools: `{extra}` is not a rule naming a known tool"
        )));
    }
    let extra_allow = parse_rule_values("--allowed-tools", &allow)?;
    for warning in prepared.cx.config.warnings_once(&prepared.cx.paths.state) {
        crate::term::errln!("warning: {warning}");
    }
    // `-r` without a value, or with one that names no single session: the picker, filtered
    // by what was typed.
    let store = SessionStore::new(&prepared.cx.paths.state, &prepared.workspace);
    let (resume, pick_at_start) = match (&args.resume, args.continue_latest) {
        (Some(query), _) if query.is_empty() => (None, Some(String::new())),
        (Some(query), _) => match store.find(query) {
            Ok(_) => (Some(Resume::Query(query.clone())), None),
            Err(SessionError::NotFound(_) | SessionError::Ambiguous { .. }) => {
                (None, Some(query.clone()))
            }
            Err(e) => return Err(launch::session_failure(e).into()),
        },
        (None, true) => (Some(Resume::Latest), None),
        (None, false) => (None, None),
    };
    let launched = prepared.launch(&Options {
        model: args.model.clone(),
        effort: args.effort.clone(),
        posture,
        extra_allow,
        max_steps: args.max_steps,
        resume,
        mode: args.mode,
        ..Options::default()
    })?;

    let to_ui = to_ui.clone();
    // Questions are asked through the session (`reasonix_session::Session::spawn`).
    let agent = launched.agent.with_write_previews();
    let client = agent.client();
    let provider = client.provider();
    let status = status::Status {
        mode: launched.mode,
        model: format!("{}/{}", provider.name, client.model()),
        posture,
        session_id: agent.session_id().unwrap_or_default().to_string(),
        context_window: provider.context_window_for(client.model()),
        ..status::Status::default()
    };
    let past = agent.history().to_vec();
    let posture_switch = agent.posture_switch();
    let policy = &launched.config.policy;
    let mut policy_text = Vec::new();
    for (list, rules) in [
        ("allow", &policy.allow),
        ("ask", &policy.ask),
        ("deny", &policy.deny),
    ] {
        for rule in rules {
            policy_text.push(format!("{list:<5} {rule}"));
        }
    }
    if policy_text.is_empty() {
        policy_text.push(reasonix_i18n::t!("policy-no-rules"));
    }
    let tools = agent.tool_specs().to_vec();
    let paths = &prepared.cx.paths;
    let slash_registry = Arc::new(
        slash::SlashRegistry::new(slash::builtin_specs(), {
            let mut customs = slash::custom::load(&prepared.command_dirs());
            if let Some(only) = &prepared.cx.config.commands_only {
                // A composition chose these.
                customs.commands.retain(|c| only.contains(&c.name));
            }
            customs
        })
        .with_skills(&prepared.skills),
    );
    let (history, history_warning) = match composer::History::load(composer::History::path_for(
        &paths.state,
        &prepared.workspace,
    )) {
        Ok(history) => (history, None),
        Err(e) => (
            composer::History::in_memory(),
            Some(format!("prompt history not loaded: {e}")),
        ),
    };
    let mut composer = composer::Composer::new(history);
    composer.set_workspace(prepared.workspace.clone());
    // A third of the terminal for the message being written, then it scrolls.
    if let Ok((_, rows)) = crossterm::terminal::size() {
        composer.set_max_rows((rows / 3).clamp(3, 12));
    }
    composer.set_slash_registry(slash_registry.clone());
    composer.set_placeholder("Ask anything · / commands · @ files · ! shell");
    let to_session = to_ui.clone();
    let session = prepared
        .session(
            agent,
            launched.store.clone(),
            launched.resolved.clone(),
            args.effort.clone(),
            move |event| {
                let _ = to_session.send(Msg::Session(event));
            },
        )
        .map_err(|e| Failure::runtime(anyhow!("cannot start the agent thread: {e}")))?;
    let actions = actions::Context {
        catalog: prepared.catalog.clone(),
        prepared: prepared.clone(),
        resolved: launched.resolved,
        store: launched.store,
        workspace: prepared.workspace.clone(),
        user_config: prepared.cx.paths.user_config(),
        to_ui: to_ui.clone(),
        tools,
        policy_text,
        effort: args.effort.clone(),
        mode: launched.mode,
        slash: slash_registry.clone(),
    };
    let theme = Theme::new(ColorLevel::detect());
    let mut app = App::new(theme, session, status, posture_switch, composer, actions);
    app.mcp = mcp::McpSession::new(prepared.mcp.clone());
    for warning in slash_registry.warnings() {
        app.notice(warning);
    }
    if let Some(warning) = history_warning {
        app.notice(&warning);
    }
    app.commit(banner(&app, theme));
    if !past.is_empty() {
        app.has_messages = true;
        app.commit(transcript::history_lines(&past, theme, app.width));
        app.notice(&format!("resumed ({} messages)", past.len()));
    }
    if let Some(query) = pick_at_start {
        match app.actions.store.list() {
            Ok(sessions) => {
                app.overlay = Some(Overlay::Picker(picker::Picker::new(sessions, &query)));
            }
            Err(e) => app.error(&format!("cannot list sessions: {e}")),
        }
    }

    let mut screen = screen::Screen::enter(IDLE_HEIGHT)
        .map_err(|e| Failure::runtime(anyhow!("cannot set up the terminal: {e}")))?;
    let capture = capture::start(to_ui.clone());
    if !input.started {
        input.started = true;
        // SIGTERM (and SIGINT from outside: raw mode keeps Ctrl+C a key): leave the way
        // Ctrl+D does, so the turn is cancelled, the session ended and the terminal restored.
        let on_signal = to_ui.clone();
        let _ = ctrlc::set_handler(move || {
            let _ = on_signal.send(Msg::InputClosed);
        });
        spawn_input(to_ui);
        // Syntax highlighting loads off the UI thread; code blocks stay plain until it has.
        highlight::warm_up();
    }
    let result = event_loop(&mut screen, &mut app, inbox);
    // Stop the turn in progress before waiting for the agent thread.
    app.cancel_turn();
    let session_id = app.status.session_id.clone();
    let has_messages = app.has_messages;
    let switch = app.switch_composition.take();
    let App { session, .. } = app;
    session.quit();
    drop(capture);
    let _ = screen.leave();
    result.map_err(|e| Failure::runtime(anyhow!("terminal: {e}")))?;
    if has_messages {
        match &switch {
            None => outln!("session {session_id} saved; continue it with `reasonix -c`"),
            Some(_) => {
                outln!("session {session_id} saved; continue it with `reasonix -r {session_id}`")
            }
        }
    }
    let _ = mode_name;
    Ok(match switch {
        Some(name) => Ended::Switch(name),
        None => Ended::Quit,
    })
}

fn event_loop(
    screen: &mut screen::Screen,
    app: &mut App,
    inbox: &std::sync::mpsc::Receiver<Msg>,
) -> std::io::Result<()> {
    // Messages from the agent side, held until their paced frame is due.
    let mut held: Vec<Msg> = Vec::new();
    // The last frame that showed what the agent side had sent.
    let mut last_paced = std::time::Instant::now();
    loop {
        let effects = mcp::poll(&mut app.mcp, &app.actions.slash);
        app.apply(effects);
        let size = screen.size()?;
        // A terminal that reports no size (some pseudo-terminals until they are resized) gets
        // nothing drawn: lines wait in `commits` until it has one.
        let drawable = size.width > 0 && size.height > 0;
        if drawable {
            app.set_width(size.width);
            screen.begin_frame()?;
            screen.follow_resize(size)?;
            let commits =
                wrap::wrap_lines(std::mem::take(&mut app.commits), usize::from(size.width));
            let view = draw::View::new(app, size.width);
            screen.fit(view.height(app), commits.len())?;
            screen.commit(commits)?;
            screen.draw(|frame| draw::draw(frame, app, view))?;
            screen.end_frame()?;
            app.drawn(std::time::Instant::now());
        }
        if app.quit {
            return Ok(());
        }
        let typed = wait_for_frame(app, inbox, &mut held, last_paced);
        // A key is drawn at once, with only what keys changed: the agent's news since the last
        // paced frame waits for the next one (at most FRAME away), so a keystroke's frame is
        // a few cells, not a repaint of the streamed answer.
        let due = std::time::Instant::now() >= last_paced + FRAME;
        if !typed || due {
            for msg in held.drain(..) {
                app.handle(msg);
            }
            last_paced = std::time::Instant::now();
        }
    }
}

/// Messages held at most before a frame takes them, whatever the pace.
const HELD_AT_MOST: usize = 4096;

/// Wait for a reason to draw: a key (at once), the agent side (its messages are held in
/// `held` until `last_paced + FRAME`), or a tick. True when a key arrived. A closed inbox
/// quits.
fn wait_for_frame(
    app: &mut App,
    inbox: &std::sync::mpsc::Receiver<Msg>,
    held: &mut Vec<Msg>,
    last_paced: std::time::Instant,
) -> bool {
    let due = last_paced + FRAME;
    let mut typed = false;
    // Keys are handled at once; the rest is held. True for a key.
    let take = |app: &mut App, held: &mut Vec<Msg>, msg: Msg| match msg {
        Msg::Input(..) | Msg::InputClosed => {
            app.handle(msg);
            true
        }
        other => {
            held.push(other);
            false
        }
    };
    loop {
        let timeout = if held.is_empty() {
            let busy = app.turn.is_some() || !app.running.is_empty() || app.mcp.watching();
            if busy {
                Duration::from_millis(100)
            } else {
                Duration::from_secs(1)
            }
        } else {
            due.saturating_duration_since(std::time::Instant::now())
        };
        match inbox.recv_timeout(timeout) {
            Ok(msg) => {
                typed |= take(app, held, msg);
                // Take what else has arrived (a burst of deltas), but not unboundedly, so a
                // keystroke is never stuck behind a flood.
                for _ in 0..256 {
                    match inbox.try_recv() {
                        Ok(msg) => typed |= take(app, held, msg),
                        Err(_) => break,
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if held.is_empty() {
                    app.tick();
                }
                break;
            }
            Err(RecvTimeoutError::Disconnected) => {
                for msg in held.drain(..) {
                    app.handle(msg);
                }
                app.quit = true;
                break;
            }
        }
        if typed || app.quit || held.len() >= HELD_AT_MOST {
            break;
        }
        if std::time::Instant::now() >= due {
            break;
        }
    }
    typed
}

/// Terminal input on its own thread, into the one inbox. It polls rather than blocking in
/// `read`: crossterm's reader is shared, and a blocked `read` would hold it while the viewport
/// asks the terminal for the cursor position (when the live area changes height).
fn spawn_input(to_ui: std::sync::mpsc::Sender<Msg>) {
    let _ = std::thread::Builder::new()
        .name("reasonix-input".into())
        .spawn(move || {
            loop {
                match crossterm::event::poll(Duration::from_millis(25)) {
                    Ok(false) => continue,
                    Ok(true) => {}
                    Err(_) => {
                        let _ = to_ui.send(Msg::InputClosed);
                        break;
                    }
                }
                match crossterm::event::read() {
                    Ok(event) => {
                        if to_ui
                            .send(Msg::Input(event, std::time::Instant::now()))
                            .is_err()
                        {
                            break;
                        }
                    }
                    Err(_) => {
                        let _ = to_ui.send(Msg::InputClosed);
                        break;
                    }
                }
            }
        });
}

fn banner(app: &App, theme: Theme) -> Vec<Line<'static>> {
    let mut first = vec![
        Span::styled("Reasonix ", theme.heading()),
        Span::styled(env!("CARGO_PKG_VERSION"), theme.dim()),
        Span::raw("  "),
        Span::styled(
            text::safe_line(&app.status.model).into_owned(),
            theme.accent(),
        ),
    ];
    if let Some(c) = &app.actions.prepared.composition {
        first.push(Span::styled(
            reasonix_i18n::t!("banner-as", name = text::safe_line(&c.name).into_owned()),
            theme.dim(),
        ));
    }
    vec![
        Line::from(first),
        Line::from(Span::styled(
            reasonix_i18n::t!(
                "banner-keys",
                workspace = app.actions.workspace.display().to_string()
            ),
            theme.dim(),
        )),
    ]
}
