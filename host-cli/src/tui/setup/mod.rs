//! First run and `reasonix setup`: choose a provider, paste its key, test it with one tiny
//! request, save the key to `<home>/.env` (0600) and the choice to `<home>/config.toml`
//! (docs/tui/setup.md).
//!
//! [`state`] is the screen as a state machine, [`render`] draws it, [`tester`] runs the key
//! test on a worker thread, [`keystore`] and [`write`] write the files. This module drives
//! them on a real terminal.

pub mod keystore;
pub mod render;
pub mod state;
pub mod tester;
pub mod write;

#[cfg(test)]
mod snapshots;

use crate::tui::theme::{ColorLevel, Theme};
use crossterm::event::{self, Event, KeyEventKind};
use reasonix_config::providers::{self, ModelRefError, dotenv};
use reasonix_config::{Config, Paths};
use state::{Effect, KeyFound, Plan, SetupState, Written};
use std::time::Duration;
use thiserror::Error;

/// How the setup screen ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupOutcome {
    /// Settings saved: where, and the `default_model` now configured.
    Configured(Written),
    /// The user left without saving.
    Cancelled,
}

#[derive(Debug, Error)]
pub enum SetupError {
    #[error(
        "setup is interactive: run `reasonix setup` in a terminal (stdin and stdout must be a terminal), or write {config} and {env} by hand (docs/CONFIG.md)"
    )]
    NoTerminal { config: String, env: String },
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// Where the key variable `name` is already set: the process environment, else `.env`.
pub fn key_found(name: &str, paths: &Paths) -> Option<KeyFound> {
    match dotenv::secret_with_source(name, &paths.home)?.1 {
        dotenv::SecretSource::Environment => Some(KeyFound::Environment),
        dotenv::SecretSource::DotEnv => Some(KeyFound::DotEnv(paths.credentials_file())),
    }
}

pub use crate::launch::fallback_model;

/// Whether `reasonix` should open the setup screen instead of failing: nothing is
/// configured (no `[[providers]]`, no `default_model` naming a preset or alias, i.e.
/// `resolve_model` fails with `NoProviders`) and no preset's key is in the environment or
/// `<home>/.env`. A config with errors is not a first run: its error is shown instead.
pub fn needs_setup(config: &Config, paths: &Paths) -> bool {
    let Ok(resolved) = providers::resolve_providers(config) else {
        return false;
    };
    matches!(
        providers::resolve_model(None, config.default_model.as_deref(), &resolved),
        Err(ModelRefError::NoProviders)
    ) && fallback_model(paths).is_none()
}

/// Open the setup screen on the terminal (alternate screen, raw mode, bracketed paste; all
/// restored on return) and run it to the end.
pub fn run_setup_screen(paths: &Paths) -> Result<SetupOutcome, SetupError> {
    if !terminal_attached() {
        return Err(SetupError::NoTerminal {
            config: paths.user_config().display().to_string(),
            env: paths.credentials_file().display().to_string(),
        });
    }
    let theme = Theme::new(ColorLevel::detect());
    let mut screen = Screen::enter()?;
    run_setup_in(&mut screen.terminal, paths, &theme)
}

/// The setup screen on a terminal the caller has already put in raw mode (with bracketed
/// paste, and the alternate screen or a viewport as it likes); nothing about its modes is
/// changed here.
pub fn run_setup_in(
    terminal: &mut Term,
    paths: &Paths,
    theme: &Theme,
) -> Result<SetupOutcome, SetupError> {
    let state = SetupState::new(state::entries(|name| key_found(name, paths)));
    drive(terminal, paths, theme, state)
}

fn terminal_attached() -> bool {
    crate::term::terminal_attached()
}

pub type Term = ratatui::Terminal<ratatui::backend::CrosstermBackend<std::io::Stdout>>;

/// The terminal in the screen's modes; restored when dropped (also on an error or a panic
/// unwinding through).
struct Screen {
    terminal: Term,
}

impl Screen {
    // ratatui draws through stdout; every outside string is escaped before it is a Span.
    #[allow(clippy::disallowed_methods)]
    fn enter() -> std::io::Result<Screen> {
        use crossterm::{event::EnableBracketedPaste, execute, terminal};
        terminal::enable_raw_mode()?;
        let mut out = std::io::stdout();
        if let Err(e) = execute!(out, terminal::EnterAlternateScreen, EnableBracketedPaste) {
            let _ = terminal::disable_raw_mode();
            return Err(e);
        }
        let terminal = ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(out))?;
        Ok(Screen { terminal })
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        use crossterm::{event::DisableBracketedPaste, execute, terminal};
        let _ = execute!(
            self.terminal.backend_mut(),
            DisableBracketedPaste,
            terminal::LeaveAlternateScreen
        );
        let _ = terminal::disable_raw_mode();
        let _ = self.terminal.show_cursor();
    }
}

fn drive(
    terminal: &mut Term,
    paths: &Paths,
    theme: &Theme,
    mut state: SetupState,
) -> Result<SetupOutcome, SetupError> {
    let mut test: Option<tester::TestRun> = None;
    loop {
        if let Some(run) = &test
            && let Some(result) = run.poll()
        {
            state.on_test_result(result);
            test = None;
        }
        terminal.draw(|frame| render::render(frame, frame.area(), &state, theme))?;
        // Short polls while a test runs, so its result shows promptly.
        if !event::poll(Duration::from_millis(if test.is_some() { 50 } else { 250 }))? {
            continue;
        }
        let effect = match event::read()? {
            Event::Key(key) if key.kind != KeyEventKind::Release => state.on_key(key),
            Event::Paste(text) => {
                state.on_paste(&text);
                Effect::None
            }
            _ => Effect::None,
        };
        match effect {
            Effect::None => {}
            Effect::StartTest(plan) => {
                if let Some(old) = test.take() {
                    old.cancel();
                }
                test = Some(tester::start(paths.clone(), plan));
            }
            Effect::CancelTest => {
                if let Some(old) = test.take() {
                    old.cancel();
                }
            }
            Effect::Write(plan) => state.on_written(save(paths, &plan)),
            Effect::Quit(written) => {
                if let Some(old) = test.take() {
                    old.cancel();
                }
                return Ok(written.map_or(SetupOutcome::Cancelled, SetupOutcome::Configured));
            }
        }
    }
}

/// Write the key (if one was typed) and the config. The config text is checked first, so a
/// config that cannot be edited leaves both files as they were.
pub fn save(paths: &Paths, plan: &Plan) -> Result<Written, String> {
    let config = paths.user_config();
    let existing = match std::fs::read_to_string(&config) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{}: cannot read: {e}", config.display())),
    };
    write::config_text(&config, existing.as_deref(), plan).map_err(|e| e.to_string())?;
    let key_file = match (plan.key_env(), &plan.key) {
        (Some(env), Some(key)) => {
            Some(keystore::save_key(&paths.home, env, key).map_err(|e| e.to_string())?)
        }
        _ => None,
    };
    write::write_config(&config, plan).map_err(|e| e.to_string())?;
    Ok(Written {
        config,
        key_env: key_file.as_ref().and(plan.key_env().map(str::to_string)),
        key_file,
        default_model: plan.default_model().to_string(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        Config::parse(std::path::Path::new("/h/config.toml"), text).unwrap()
    }

    // Only names no developer or CI machine sets: the process environment is shared.
    #[test]
    fn needs_setup_exactly_when_nothing_is_configured_and_no_key_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::under(dir.path());
        // Whether a preset key is set in this process's environment decides the empty case.
        let env_key = fallback_model(&paths);
        assert_eq!(needs_setup(&config(""), &paths), env_key.is_none());
        // A preset as default model, a configured provider, or a broken config: no setup.
        assert!(!needs_setup(
            &config("default_model = \"deepseek\"\n"),
            &paths
        ));
        assert!(!needs_setup(
            &config(
                "[[providers]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"http://h\"\nmodel = \"m\"\n"
            ),
            &paths
        ));
        assert!(!needs_setup(
            &config(
                "[[providers]]\nname = \"a b\"\nkind = \"openai\"\nbase_url = \"http://h\"\nmodel = \"m\"\n"
            ),
            &paths
        ));
        if env_key.is_none() {
            // A preset key in <home>/.env is a working setup.
            std::fs::write(dir.path().join(".env"), "KIMI_API_KEY=k\n").unwrap();
            assert_eq!(fallback_model(&paths).as_deref(), Some("kimi"));
            assert!(!needs_setup(&config(""), &paths));
            assert_eq!(
                key_found("KIMI_API_KEY", &paths),
                Some(KeyFound::DotEnv(dir.path().join(".env")))
            );
        }
    }

    #[test]
    fn save_writes_key_and_config_and_reports_paths() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::under(dir.path().join("home"));
        let mut entries = state::entries(|_| None);
        let plan = Plan {
            entry: entries.pop().unwrap(),
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            key: Some("sk-123".into()),
        };
        let written = save(&paths, &plan).unwrap();
        assert_eq!(written.config, paths.user_config());
        assert_eq!(written.key_file, Some(paths.credentials_file()));
        assert_eq!(written.key_env.as_deref(), Some("CUSTOM_API_KEY"));
        assert_eq!(
            dotenv::load(&paths.home).unwrap().get("CUSTOM_API_KEY"),
            Some("sk-123")
        );
        // A broken config: neither file changes.
        std::fs::write(paths.user_config(), "[broken\n").unwrap();
        let plan = Plan {
            key: Some("sk-456".into()),
            ..plan
        };
        let e = save(&paths, &plan).unwrap_err();
        assert!(
            e.contains(&paths.user_config().display().to_string()),
            "{e}"
        );
        assert_eq!(
            dotenv::load(&paths.home).unwrap().get("CUSTOM_API_KEY"),
            Some("sk-123")
        );
    }
}
