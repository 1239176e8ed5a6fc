//! Snapshots of the setup screen at 80x24 and 120x40 (host-cli/src/tui/snapshots/).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::render::render;
use super::state::{Effect, KeyFound, SetupState, TestResult, Written, entries};
use crate::tui::theme::{ColorLevel, Theme};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn screen(state: &SetupState, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let theme = Theme::new(ColorLevel::None);
    terminal
        .draw(|frame| render(frame, frame.area(), state, &theme))
        .unwrap();
    format!("{}", terminal.backend())
}

fn snap(name: &str, state: &SetupState) {
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("setup_{name}_80x24"), screen(state, 80, 24));
        insta::assert_snapshot!(format!("setup_{name}_120x40"), screen(state, 120, 40));
    });
}

fn key(state: &mut SetupState, code: KeyCode) -> Effect {
    state.on_key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn at_key_entry() -> SetupState {
    let mut state = SetupState::new(entries(|_| None));
    key(&mut state, KeyCode::Enter);
    state.on_paste("sk-abcdefghijklmnop9f3e");
    state
}

#[test]
fn preset_list() {
    let found = |name: &str| (name == "DEEPSEEK_API_KEY").then_some(KeyFound::Environment);
    let state = SetupState::new(entries(found));
    let text = screen(&state, 80, 24);
    assert!(text.contains("found DEEPSEEK_API_KEY in the environment; it will be used"));
    snap("preset_list", &state);
}

#[test]
fn key_entry_is_masked() {
    let state = at_key_entry();
    let text = screen(&state, 120, 40);
    assert!(!text.contains("abcdefghijklmnop"), "{text}");
    assert!(text.contains("9f3e"), "{text}");
    snap("key_entry", &state);
}

#[test]
fn test_passed() {
    let mut state = at_key_entry();
    key(&mut state, KeyCode::Enter);
    state.on_test_result(TestResult::Passed(
        "deepseek/deepseek-v4-flash answered: OK".into(),
    ));
    snap("test_passed", &state);
}

#[test]
fn test_failed_shows_the_error_escaped() {
    let mut state = at_key_entry();
    key(&mut state, KeyCode::Enter);
    state.on_test_result(TestResult::Failed(
        "provider `deepseek` rejected the credentials: \u{1b}[31mAuthentication Fails\u{7}".into(),
    ));
    let text = screen(&state, 80, 24);
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains("Authentication Fails"), "{text}");
    snap("test_failed", &state);
}

#[test]
fn done_shows_the_paths() {
    let mut state = at_key_entry();
    state.on_written(Ok(Written {
        config: "/home/u/.reasonix/config.toml".into(),
        key_file: Some("/home/u/.reasonix/.env".into()),
        key_env: Some("DEEPSEEK_API_KEY".into()),
        default_model: "deepseek".into(),
    }));
    let text = screen(&state, 80, 24);
    assert!(text.contains("/home/u/.reasonix/config.toml"), "{text}");
    assert!(text.contains("/home/u/.reasonix/.env"), "{text}");
    snap("done", &state);
}
