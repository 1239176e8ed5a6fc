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

/// The setup screens in Simplified Chinese at 80x24: every row within the width, the labels of
/// the preset list aligned by display width, nothing English left from this screen.
#[test]
fn setup_in_chinese_at_80x24() {
    use reasonix_i18n::{Language, with_language};
    let found = |name: &str| (name == "DEEPSEEK_API_KEY").then_some(KeyFound::Environment);
    let zh = |state: &SetupState| with_language(Language::ZhCn, || screen(state, 80, 24));
    let pick = SetupState::new(entries(found));
    let list = zh(&pick);
    assert!(list.contains("Reasonix 设置  ·  1/3 选择提供方"), "{list}");
    assert!(
        list.contains("在环境变量中找到 DEEPSEEK_API_KEY，将直接使用"),
        "{list}"
    );
    // The descriptions start in one column whatever the label's script.
    let column = |row: &str| {
        let text = row.trim_matches('"');
        crate::tui::text::width(
            &text[..text
                .find(" DeepSeek")
                .or_else(|| text.find(" 自定义 OpenAI"))
                .unwrap()],
        )
    };
    let rows: Vec<&str> = list.lines().collect();
    let deepseek = rows.iter().find(|r| r.contains("deepseek ")).unwrap();
    let custom = rows.iter().find(|r| r.contains("自定义 OpenAI")).unwrap();
    assert_eq!(column(deepseek), column(custom), "{list}");
    let mut done = at_key_entry();
    done.on_written(Ok(Written {
        config: "/home/u/.reasonix/config.toml".into(),
        key_file: Some("/home/u/.reasonix/.env".into()),
        key_env: Some("DEEPSEEK_API_KEY".into()),
        default_model: "deepseek".into(),
    }));
    let mut passed = at_key_entry();
    key(&mut passed, KeyCode::Enter);
    passed.on_test_result(TestResult::Passed(
        "deepseek/deepseek-v4-flash answered: OK".into(),
    ));
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("setup_zh_cn_preset_list_80x24", list);
        insta::assert_snapshot!("setup_zh_cn_key_entry_80x24", zh(&at_key_entry()));
        insta::assert_snapshot!("setup_zh_cn_test_passed_80x24", zh(&passed));
        insta::assert_snapshot!("setup_zh_cn_done_80x24", zh(&done));
    });
}
