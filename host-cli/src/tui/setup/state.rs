//! The setup screen as a state machine: key presses and pastes in, [`Effect`]s out. Nothing
//! here touches the terminal, the network or the disk, so every transition is unit-tested.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use reasonix_config::providers::{self, resolve::parse_http_url};
use reasonix_i18n::t;
use std::path::PathBuf;

/// The provider name and key variable a custom endpoint is written with.
pub const CUSTOM_NAME: &str = "custom";
pub const CUSTOM_KEY_ENV: &str = "CUSTOM_API_KEY";

/// Where an already present key was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyFound {
    Environment,
    /// The `.env` file it is in.
    DotEnv(PathBuf),
}

/// One line of the provider list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The preset id, or [`CUSTOM_NAME`].
    pub id: String,
    pub description: String,
    pub api_key_env: Option<String>,
    /// Set when the preset's key is already in the environment or `<home>/.env`.
    pub found: Option<KeyFound>,
    pub custom: bool,
}

impl Entry {
    /// Whether the key step is shown: a custom endpoint always asks (an empty key = none), a
    /// preset only when it takes a key that is not already there.
    pub fn asks_key(&self) -> bool {
        self.custom || (self.api_key_env.is_some() && self.found.is_none())
    }
}

/// The list: DeepSeek first, the other presets in their file's order, then the custom
/// endpoint. `found` says where a key variable is already set.
pub fn entries(found: impl Fn(&str) -> Option<KeyFound>) -> Vec<Entry> {
    let mut presets: Vec<&providers::Preset> = providers::presets().iter().collect();
    presets.sort_by_key(|p| p.id != "deepseek");
    let mut out: Vec<Entry> = presets
        .into_iter()
        .map(|p| Entry {
            id: p.id.clone(),
            description: p.description.clone(),
            found: p.api_key_env.as_deref().and_then(&found),
            api_key_env: p.api_key_env.clone(),
            custom: false,
        })
        .collect();
    out.push(Entry {
        id: CUSTOM_NAME.to_string(),
        description: "Custom OpenAI-compatible endpoint (asks base URL and model)".to_string(),
        api_key_env: Some(CUSTOM_KEY_ENV.to_string()),
        found: None,
        custom: true,
    });
    out
}

/// What the user chose, complete: enough to test it and to write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub entry: Entry,
    /// Custom endpoint only.
    pub base_url: String,
    /// Custom endpoint only.
    pub model: String,
    /// The key typed or pasted; `None` = none typed (found elsewhere, or not needed).
    pub key: Option<String>,
}

impl Plan {
    /// The `default_model` written: the preset id, or the custom provider's name.
    pub fn default_model(&self) -> &str {
        &self.entry.id
    }

    /// The variable the key is stored under, when a key was typed.
    pub fn key_env(&self) -> Option<&str> {
        self.key.as_ref()?;
        self.entry.api_key_env.as_deref()
    }
}

/// The files setup wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub config: PathBuf,
    /// `<home>/.env` when a key was saved.
    pub key_file: Option<PathBuf>,
    pub key_env: Option<String>,
    pub default_model: String,
}

/// How the key test ended: a short reply, or the error text (unescaped; the renderer
/// escapes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestResult {
    Passed(String),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Pick,
    BaseUrl,
    Model,
    Key,
    Testing,
    Tested(TestResult),
    Done(Written),
    WriteFailed(String),
}

/// What the driver must do after a transition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    None,
    StartTest(Plan),
    CancelTest,
    Write(Plan),
    /// Leave the screen; `Some` when setup completed.
    Quit(Option<Written>),
}

#[derive(Debug, Clone)]
pub struct SetupState {
    pub entries: Vec<Entry>,
    pub selected: usize,
    pub step: Step,
    pub base_url: String,
    pub model: String,
    pub key: String,
    /// Why the last Enter was refused (an empty or malformed field).
    pub problem: Option<String>,
}

impl SetupState {
    pub fn new(entries: Vec<Entry>) -> SetupState {
        SetupState {
            entries,
            selected: 0,
            step: Step::Pick,
            base_url: String::new(),
            model: String::new(),
            key: String::new(),
            problem: None,
        }
    }

    /// The highlighted (or chosen) entry.
    pub fn entry(&self) -> Option<&Entry> {
        self.entries.get(self.selected)
    }

    pub fn plan(&self) -> Option<Plan> {
        let entry = self.entry()?.clone();
        let key = self.key.trim();
        Some(Plan {
            base_url: if entry.custom {
                self.base_url.trim().to_string()
            } else {
                String::new()
            },
            model: if entry.custom {
                self.model.trim().to_string()
            } else {
                String::new()
            },
            key: (entry.asks_key() && !key.is_empty()).then(|| key.to_string()),
            entry,
        })
    }

    pub fn on_key(&mut self, key: KeyEvent) -> Effect {
        if key.kind == KeyEventKind::Release {
            return Effect::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return match &self.step {
                Step::Done(written) => Effect::Quit(Some(written.clone())),
                Step::Testing => {
                    self.step = Step::Pick;
                    Effect::Quit(None)
                }
                _ => Effect::Quit(None),
            };
        }
        match self.step.clone() {
            Step::Pick => self.on_pick(key.code),
            Step::BaseUrl | Step::Model | Step::Key => self.on_input(key.code, ctrl),
            Step::Testing => {
                if key.code == KeyCode::Esc {
                    self.back_to_input();
                    Effect::CancelTest
                } else {
                    Effect::None
                }
            }
            Step::Tested(result) => self.on_tested(key.code, &result),
            Step::Done(written) => match key.code {
                KeyCode::Enter | KeyCode::Esc | KeyCode::Char('q') => Effect::Quit(Some(written)),
                _ => Effect::None,
            },
            Step::WriteFailed(_) => match key.code {
                KeyCode::Char('r') | KeyCode::Enter => {
                    self.plan().map_or(Effect::None, Effect::Write)
                }
                KeyCode::Esc | KeyCode::Char('q') => Effect::Quit(None),
                _ => Effect::None,
            },
        }
    }

    /// Bracketed paste: into the field being edited, line breaks dropped (a key copied with
    /// its newline must still work).
    pub fn on_paste(&mut self, text: &str) {
        let clean: String = text.chars().filter(|c| !c.is_control()).collect();
        if let Some(field) = self.field_mut() {
            field.push_str(clean.trim());
        }
    }

    pub fn on_test_result(&mut self, result: TestResult) {
        if self.step == Step::Testing {
            self.step = Step::Tested(result);
        }
    }

    pub fn on_written(&mut self, result: Result<Written, String>) {
        self.step = match result {
            Ok(written) => Step::Done(written),
            Err(message) => Step::WriteFailed(message),
        };
    }

    fn field_mut(&mut self) -> Option<&mut String> {
        match self.step {
            Step::BaseUrl => Some(&mut self.base_url),
            Step::Model => Some(&mut self.model),
            Step::Key => Some(&mut self.key),
            _ => None,
        }
    }

    fn on_pick(&mut self, code: KeyCode) -> Effect {
        let last = self.entries.len().saturating_sub(1);
        match code {
            KeyCode::Up | KeyCode::Char('k') => {
                self.selected = if self.selected == 0 {
                    last
                } else {
                    self.selected - 1
                };
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.selected = if self.selected >= last {
                    0
                } else {
                    self.selected + 1
                };
            }
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter => {
                let Some(entry) = self.entry().cloned() else {
                    return Effect::None;
                };
                self.problem = None;
                self.key.clear();
                if entry.custom {
                    self.step = Step::BaseUrl;
                } else if entry.asks_key() {
                    self.step = Step::Key;
                } else {
                    return self.start_test();
                }
            }
            KeyCode::Esc | KeyCode::Char('q') => return Effect::Quit(None),
            _ => {}
        }
        Effect::None
    }

    fn on_input(&mut self, code: KeyCode, ctrl: bool) -> Effect {
        match code {
            KeyCode::Char('u') if ctrl => {
                if let Some(field) = self.field_mut() {
                    field.clear();
                }
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                if let Some(field) = self.field_mut() {
                    field.push(c);
                }
            }
            KeyCode::Backspace => {
                if let Some(field) = self.field_mut() {
                    field.pop();
                }
            }
            KeyCode::Esc => {
                self.problem = None;
                self.step = match self.step {
                    Step::Model => Step::BaseUrl,
                    Step::Key if self.entry().is_some_and(|e| e.custom) => Step::Model,
                    _ => Step::Pick,
                };
            }
            KeyCode::Enter => return self.submit(),
            _ => {}
        }
        Effect::None
    }

    fn submit(&mut self) -> Effect {
        self.problem = None;
        match self.step {
            Step::BaseUrl => {
                let url = self.base_url.trim();
                if url.is_empty() {
                    self.problem = Some(t!("setup-problem-base-url"));
                } else if let Err(e) = parse_http_url(url) {
                    self.problem = Some(t!("setup-problem-bad-url", error = e.to_string()));
                } else {
                    self.step = Step::Model;
                }
                Effect::None
            }
            Step::Model => {
                let model = self.model.trim();
                if model.is_empty() {
                    self.problem = Some(t!("setup-problem-model"));
                } else if model.chars().any(char::is_whitespace) {
                    self.problem = Some(t!("setup-problem-model-spaces"));
                } else {
                    self.step = Step::Key;
                }
                Effect::None
            }
            Step::Key => {
                let custom = self.entry().is_some_and(|e| e.custom);
                if self.key.trim().is_empty() && !custom {
                    self.problem = Some(t!("setup-problem-key"));
                    return Effect::None;
                }
                self.start_test()
            }
            _ => Effect::None,
        }
    }

    fn start_test(&mut self) -> Effect {
        match self.plan() {
            Some(plan) => {
                self.step = Step::Testing;
                Effect::StartTest(plan)
            }
            None => Effect::None,
        }
    }

    fn back_to_input(&mut self) {
        self.step = match self.entry() {
            Some(e) if e.asks_key() => Step::Key,
            Some(e) if e.custom => Step::Model,
            _ => Step::Pick,
        };
    }

    fn on_tested(&mut self, code: KeyCode, result: &TestResult) -> Effect {
        let passed = matches!(result, TestResult::Passed(_));
        match code {
            KeyCode::Enter if passed => self.plan().map_or(Effect::None, Effect::Write),
            KeyCode::Char('s') if !passed => self.plan().map_or(Effect::None, Effect::Write),
            KeyCode::Char('r') => self.start_test(),
            KeyCode::Char('e') | KeyCode::Esc => {
                self.back_to_input();
                Effect::None
            }
            _ => Effect::None,
        }
    }
}

/// The key as shown: bullets, and the last 4 characters only for a key long enough that
/// they give little away.
pub fn masked(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() < 12 {
        return "•".repeat(chars.len());
    }
    let hidden = (chars.len() - 4).min(24);
    let mut out = "•".repeat(hidden);
    out.extend(&chars[chars.len() - 4..]);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crossterm::event::KeyEvent;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(state: &mut SetupState, text: &str) {
        for c in text.chars() {
            assert_eq!(state.on_key(key(KeyCode::Char(c))), Effect::None);
        }
    }

    fn none_found(_: &str) -> Option<KeyFound> {
        None
    }

    fn select(state: &mut SetupState, id: &str) {
        while state.entry().unwrap().id != id {
            state.on_key(key(KeyCode::Down));
        }
    }

    #[test]
    fn deepseek_first_custom_last() {
        let list = entries(none_found);
        assert_eq!(list[0].id, "deepseek");
        assert!(list.last().unwrap().custom);
        assert_eq!(list.len(), providers::presets().len() + 1);
        assert!(list.iter().filter(|e| e.custom).count() == 1);
    }

    #[test]
    fn preset_with_a_pasted_key_is_tested_then_written() {
        let mut s = SetupState::new(entries(none_found));
        assert_eq!(s.on_key(key(KeyCode::Enter)), Effect::None);
        assert_eq!(s.step, Step::Key);
        // Empty key refused.
        assert_eq!(s.on_key(key(KeyCode::Enter)), Effect::None);
        assert!(s.problem.is_some());
        s.on_paste("sk-abcdef123456\r\n");
        assert_eq!(s.key, "sk-abcdef123456");
        let Effect::StartTest(plan) = s.on_key(key(KeyCode::Enter)) else {
            panic!("expected a test")
        };
        assert_eq!(plan.key.as_deref(), Some("sk-abcdef123456"));
        assert_eq!(plan.key_env(), Some("DEEPSEEK_API_KEY"));
        assert_eq!(plan.default_model(), "deepseek");
        assert_eq!(s.step, Step::Testing);
        s.on_test_result(TestResult::Passed("OK".into()));
        // "Save anyway" is for a failed test only.
        assert_eq!(s.on_key(key(KeyCode::Char('s'))), Effect::None);
        assert_eq!(s.on_key(key(KeyCode::Enter)), Effect::Write(plan));
    }

    #[test]
    fn a_found_key_skips_the_key_step() {
        let found = |name: &str| (name == "DEEPSEEK_API_KEY").then_some(KeyFound::Environment);
        let mut s = SetupState::new(entries(found));
        let Effect::StartTest(plan) = s.on_key(key(KeyCode::Enter)) else {
            panic!("expected a test")
        };
        assert_eq!(plan.key, None);
        assert_eq!(plan.key_env(), None);
        // Editing goes back to the list: there is no key to edit.
        s.on_test_result(TestResult::Failed("401".into()));
        assert_eq!(s.on_key(key(KeyCode::Char('e'))), Effect::None);
        assert_eq!(s.step, Step::Pick);
    }

    #[test]
    fn custom_endpoint_asks_url_model_and_optional_key() {
        let mut s = SetupState::new(entries(none_found));
        select(&mut s, CUSTOM_NAME);
        s.on_key(key(KeyCode::Enter));
        assert_eq!(s.step, Step::BaseUrl);
        typed(&mut s, "ftp://x");
        s.on_key(key(KeyCode::Enter));
        assert_eq!(s.step, Step::BaseUrl);
        assert!(s.problem.as_deref().unwrap().contains("http"));
        s.on_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        s.on_paste("http://127.0.0.1:9/v1");
        s.on_key(key(KeyCode::Enter));
        assert_eq!(s.step, Step::Model);
        s.on_key(key(KeyCode::Enter));
        assert_eq!(s.step, Step::Model, "empty model refused");
        typed(&mut s, "m-1");
        s.on_key(key(KeyCode::Enter));
        assert_eq!(s.step, Step::Key);
        // No key is fine for a custom endpoint (a local server).
        let Effect::StartTest(plan) = s.on_key(key(KeyCode::Enter)) else {
            panic!("expected a test")
        };
        assert_eq!(plan.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(plan.model, "m-1");
        assert_eq!(plan.key, None);
        // Esc walks back field by field.
        assert_eq!(s.on_key(key(KeyCode::Esc)), Effect::CancelTest);
        assert_eq!(s.step, Step::Key);
        s.on_key(key(KeyCode::Esc));
        assert_eq!(s.step, Step::Model);
        s.on_key(key(KeyCode::Esc));
        assert_eq!(s.step, Step::BaseUrl);
        s.on_key(key(KeyCode::Esc));
        assert_eq!(s.step, Step::Pick);
    }

    #[test]
    fn failed_test_offers_retry_edit_and_save_anyway() {
        let mut s = SetupState::new(entries(none_found));
        s.on_key(key(KeyCode::Enter));
        typed(&mut s, "sk-0123456789abcd");
        let Effect::StartTest(plan) = s.on_key(key(KeyCode::Enter)) else {
            panic!()
        };
        s.on_test_result(TestResult::Failed("HTTP 401".into()));
        // Enter does not save a failing key.
        assert_eq!(s.on_key(key(KeyCode::Enter)), Effect::None);
        assert_eq!(
            s.on_key(key(KeyCode::Char('r'))),
            Effect::StartTest(plan.clone())
        );
        s.on_test_result(TestResult::Failed("HTTP 401".into()));
        assert_eq!(s.on_key(key(KeyCode::Char('s'))), Effect::Write(plan));
        s.on_test_result(TestResult::Failed("late".into()));
        assert!(
            matches!(s.step, Step::Tested(_)),
            "a result only lands while testing"
        );
        s.on_key(key(KeyCode::Char('e')));
        assert_eq!(s.step, Step::Key);
        assert_eq!(s.key, "sk-0123456789abcd", "editing keeps the key");
    }

    #[test]
    fn quit_and_done() {
        let mut s = SetupState::new(entries(none_found));
        assert_eq!(s.on_key(key(KeyCode::Esc)), Effect::Quit(None));
        let written = Written {
            config: "/h/config.toml".into(),
            key_file: None,
            key_env: None,
            default_model: "deepseek".into(),
        };
        s.on_written(Ok(written.clone()));
        assert_eq!(s.on_key(key(KeyCode::Enter)), Effect::Quit(Some(written)));
        s.on_written(Err("disk full".into()));
        assert_eq!(s.step, Step::WriteFailed("disk full".into()));
        assert_eq!(
            s.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Effect::Quit(None)
        );
    }

    #[test]
    fn typing_q_in_a_field_is_text() {
        let mut s = SetupState::new(entries(none_found));
        s.on_key(key(KeyCode::Enter));
        typed(&mut s, "qjk");
        assert_eq!(s.key, "qjk");
        s.on_key(key(KeyCode::Backspace));
        assert_eq!(s.key, "qj");
    }

    #[test]
    fn masking_shows_only_the_last_four() {
        assert_eq!(masked("sk-abcdefgh1234"), "•••••••••••1234");
        assert_eq!(masked("short"), "•••••");
        assert!(!masked("sk-abcdefgh1234").contains("abc"));
        assert_eq!(masked(&"x".repeat(100)).chars().count(), 28);
    }
}
