#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::tui::slash::registry::tests::registry;
use crate::tui::theme::ColorLevel;
use crossterm::event::{KeyEventState, KeyModifiers as M};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent {
        code,
        modifiers,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

fn press(c: &mut Composer, code: KeyCode, m: KeyModifiers) -> ComposerAction {
    c.handle_key(key(code, m))
}

fn typed(c: &mut Composer, s: &str) {
    for ch in s.chars() {
        let action = press(c, KeyCode::Char(ch), M::NONE);
        assert_eq!(action, ComposerAction::Changed, "typing {ch:?}");
    }
}

fn composer() -> Composer {
    Composer::new(History::in_memory())
}

/// The text with `|` at the cursor.
fn shown(c: &Composer) -> String {
    let at = c.cursor();
    let mut e = c.editor.clone();
    e.set_cursor(at);
    format!("{}|{}", e.text_of(0, at), e.text_of(at, e.cells().len()))
}

#[test]
fn enter_submits_and_newline_keys_insert_newlines() {
    let mut c = composer();
    assert_eq!(press(&mut c, KeyCode::Enter, M::NONE), ComposerAction::None);
    typed(&mut c, "a");
    press(&mut c, KeyCode::Enter, M::SHIFT);
    typed(&mut c, "b");
    press(&mut c, KeyCode::Char('j'), M::CONTROL);
    typed(&mut c, "c");
    press(&mut c, KeyCode::Enter, M::ALT);
    typed(&mut c, "d\\");
    press(&mut c, KeyCode::Enter, M::NONE);
    typed(&mut c, "e");
    assert_eq!(shown(&c), "a\nb\nc\nd\ne|");
    assert_eq!(
        press(&mut c, KeyCode::Enter, M::NONE),
        ComposerAction::Submit("a\nb\nc\nd\ne".into())
    );
    assert!(c.is_empty());
    assert_eq!(c.history().entries(), ["a\nb\nc\nd\ne"]);
    // Whitespace only is not sent.
    typed(&mut c, "  ");
    assert_eq!(press(&mut c, KeyCode::Enter, M::NONE), ComposerAction::None);
}

#[test]
fn horizontal_moves_by_grapheme_word_and_line() {
    let mut c = composer();
    c.set_text("héllo wörld\n日本 e\u{301}x");
    assert_eq!(shown(&c), "héllo wörld\n日本 e\u{301}x|");
    press(&mut c, KeyCode::Left, M::NONE);
    press(&mut c, KeyCode::Left, M::NONE);
    assert_eq!(shown(&c), "héllo wörld\n日本 |e\u{301}x");
    press(&mut c, KeyCode::Home, M::NONE);
    assert_eq!(shown(&c), "héllo wörld\n|日本 e\u{301}x");
    press(&mut c, KeyCode::Left, M::NONE);
    assert_eq!(shown(&c), "héllo wörld|\n日本 e\u{301}x");
    press(&mut c, KeyCode::Char('a'), M::CONTROL);
    assert_eq!(shown(&c), "|héllo wörld\n日本 e\u{301}x");
    press(&mut c, KeyCode::Right, M::ALT);
    assert_eq!(shown(&c), "héllo| wörld\n日本 e\u{301}x");
    press(&mut c, KeyCode::Char('f'), M::ALT);
    assert_eq!(shown(&c), "héllo wörld|\n日本 e\u{301}x");
    press(&mut c, KeyCode::Left, M::CONTROL);
    assert_eq!(shown(&c), "héllo |wörld\n日本 e\u{301}x");
    press(&mut c, KeyCode::Char('b'), M::ALT);
    assert_eq!(shown(&c), "|héllo wörld\n日本 e\u{301}x");
    press(&mut c, KeyCode::Char('e'), M::CONTROL);
    assert_eq!(shown(&c), "héllo wörld|\n日本 e\u{301}x");
    press(&mut c, KeyCode::Right, M::NONE);
    press(&mut c, KeyCode::End, M::NONE);
    assert_eq!(shown(&c), "héllo wörld\n日本 e\u{301}x|");
    assert_eq!(press(&mut c, KeyCode::Right, M::NONE), ComposerAction::None);
}

#[test]
fn deletions() {
    let mut c = composer();
    c.set_text("one two/three  four\nnext");
    press(&mut c, KeyCode::Up, M::NONE);
    press(&mut c, KeyCode::End, M::NONE);
    press(&mut c, KeyCode::Char('w'), M::CONTROL);
    assert_eq!(shown(&c), "one two/three  |\nnext");
    press(&mut c, KeyCode::Char('w'), M::CONTROL);
    assert_eq!(shown(&c), "one |\nnext");
    press(&mut c, KeyCode::Backspace, M::NONE);
    assert_eq!(shown(&c), "one|\nnext");
    press(&mut c, KeyCode::Left, M::NONE);
    press(&mut c, KeyCode::Delete, M::NONE);
    assert_eq!(shown(&c), "on|\nnext");
    press(&mut c, KeyCode::Char('k'), M::CONTROL);
    assert_eq!(shown(&c), "on|next", "Ctrl+K at a line end joins the lines");
    press(&mut c, KeyCode::Right, M::NONE);
    press(&mut c, KeyCode::Char('k'), M::CONTROL);
    assert_eq!(shown(&c), "onn|");
    press(&mut c, KeyCode::Left, M::NONE);
    press(&mut c, KeyCode::Char('u'), M::CONTROL);
    assert_eq!(shown(&c), "|n");
    c.set_text("a b日本");
    press(&mut c, KeyCode::Backspace, M::ALT);
    assert_eq!(shown(&c), "a |");
    press(&mut c, KeyCode::Char('d'), M::CONTROL);
    assert_eq!(shown(&c), "a |");
    press(&mut c, KeyCode::Home, M::NONE);
    press(&mut c, KeyCode::Char('d'), M::CONTROL);
    assert_eq!(shown(&c), "| ");
    assert_eq!(
        press(&mut c, KeyCode::Backspace, M::NONE),
        ComposerAction::None
    );
}

#[test]
fn up_down_move_between_rows_then_walk_history() {
    let mut h = History::in_memory();
    h.push("old").unwrap();
    h.push("new\nsecond line").unwrap();
    let mut c = Composer::new(h);
    typed(&mut c, "draft");
    press(&mut c, KeyCode::Enter, M::SHIFT);
    typed(&mut c, "x");
    press(&mut c, KeyCode::Up, M::NONE);
    assert_eq!(shown(&c), "d|raft\nx", "same column on the row above");
    press(&mut c, KeyCode::Up, M::NONE);
    assert_eq!(shown(&c), "|new\nsecond line");
    press(&mut c, KeyCode::Up, M::NONE);
    assert_eq!(shown(&c), "|old");
    assert_eq!(press(&mut c, KeyCode::Up, M::NONE), ComposerAction::None);
    press(&mut c, KeyCode::Down, M::NONE);
    assert_eq!(shown(&c), "new\nsecond line|");
    press(&mut c, KeyCode::Down, M::NONE);
    assert_eq!(shown(&c), "d|raft\nx", "the draft comes back as it was");
    assert_eq!(
        press(&mut c, KeyCode::Down, M::NONE),
        ComposerAction::Changed
    );
    assert_eq!(shown(&c), "draft\nx|");
    assert_eq!(press(&mut c, KeyCode::Down, M::NONE), ComposerAction::None);
    // Rows are screen rows once the width is known.
    let mut c = composer();
    c.set_text("abcdefghij");
    c.height(2 + 4);
    press(&mut c, KeyCode::Up, M::NONE);
    assert_eq!(shown(&c), "abcdef|ghij");
}

#[test]
fn large_pastes_fold_and_submit_intact() {
    let mut c = composer();
    let big = "line 1\r\nline 2\r\nline 3\r\nline 4\r\nline 5\r\nline 6\r\n";
    typed(&mut c, "see ");
    c.handle_paste(big);
    typed(&mut c, " and");
    c.handle_paste("small\r\npaste");
    assert_eq!(c.editor.cells().len(), 4 + 1 + 4 + 11);
    let expected = "see line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n andsmall\npaste";
    assert_eq!(c.text(), expected);
    assert_eq!(c.editor.atom_label(0), "[Pasted text #1 +6 lines]");
    // The atom is one cell: one Backspace removes it whole.
    c.set_cursor(5);
    press(&mut c, KeyCode::Backspace, M::NONE);
    assert_eq!(c.text(), "see  andsmall\npaste");
    c.set_cursor(4);
    c.handle_paste(&"y".repeat(1_001));
    assert_eq!(
        press(&mut c, KeyCode::Enter, M::NONE),
        ComposerAction::Submit(format!("see {} andsmall\npaste", "y".repeat(1_001)))
    );
    assert!(
        c.history().entries()[0].contains(&"y".repeat(1_001)),
        "stored expanded"
    );
}

#[test]
fn keys_for_the_app_and_releases_are_not_taken() {
    let mut c = composer();
    for (code, m) in [
        (KeyCode::Esc, M::NONE),
        (KeyCode::Char('c'), M::CONTROL),
        (KeyCode::Char('d'), M::CONTROL),
        (KeyCode::BackTab, M::SHIFT),
        (KeyCode::Tab, M::NONE),
        (KeyCode::Char('y'), M::CONTROL),
        (KeyCode::Char('o'), M::CONTROL),
        (KeyCode::Enter, M::CONTROL),
    ] {
        assert_eq!(
            press(&mut c, code, m),
            ComposerAction::Ignored,
            "{code:?} {m:?}"
        );
    }
    let mut release = key(KeyCode::Char('x'), M::NONE);
    release.kind = KeyEventKind::Release;
    assert_eq!(c.handle_key(release), ComposerAction::None);
    assert!(c.is_empty());
    // AltGr arrives as Ctrl+Alt on some platforms.
    press(&mut c, KeyCode::Char('@'), M::CONTROL | M::ALT);
    assert_eq!(c.text(), "@");
}

fn with_slash() -> Composer {
    let mut c = composer();
    c.set_slash_registry(Arc::new(registry()));
    c
}

#[test]
fn slash_menu_follows_the_first_word() {
    let mut c = with_slash();
    typed(&mut c, "/re");
    assert!(c.popup_open());
    // resume, remember, rewind, review …
    press(&mut c, KeyCode::Down, M::NONE);
    press(&mut c, KeyCode::Down, M::NONE);
    press(&mut c, KeyCode::Down, M::NONE);
    press(&mut c, KeyCode::Tab, M::NONE);
    assert_eq!(shown(&c), "/review |");
    assert!(!c.popup_open(), "closed once arguments start");
    c.clear();
    typed(&mut c, "/res");
    assert_eq!(
        press(&mut c, KeyCode::Enter, M::NONE),
        ComposerAction::Submit("/resume".into())
    );
    // A name typed in full runs itself, not the longer one it prefixes that was selected
    // while typing.
    typed(&mut c, "/agent");
    assert_eq!(
        press(&mut c, KeyCode::Enter, M::NONE),
        ComposerAction::Submit("/agent".into())
    );
    typed(&mut c, "/mo");
    assert_eq!(
        press(&mut c, KeyCode::Esc, M::NONE),
        ComposerAction::Changed
    );
    assert!(!c.popup_open());
    assert_eq!(
        press(&mut c, KeyCode::Esc, M::NONE),
        ComposerAction::Ignored
    );
    c.clear();
    typed(&mut c, "//x");
    assert!(!c.popup_open());
    c.clear();
    typed(&mut c, "hello /re");
    assert!(!c.popup_open());
    // Tab with arguments already typed keeps them.
    c.set_text("/mo gpt");
    c.set_cursor(3);
    c.refresh_popup();
    press(&mut c, KeyCode::Tab, M::NONE);
    assert_eq!(shown(&c), "/model |gpt");
}

#[test]
fn at_tab_completes_one_level_at_a_time() {
    let ws = crate::tui::mention::test_workspace();
    let mut c = composer();
    c.set_workspace(ws.path().to_path_buf());
    typed(&mut c, "look at @");
    assert_eq!(
        press(&mut c, KeyCode::Tab, M::NONE),
        ComposerAction::Changed
    );
    assert!(c.popup_open());
    typed(&mut c, "s");
    assert!(c.popup_open(), "the list follows the token");
    // `s` matches only src/: Tab takes it and lists its entries.
    press(&mut c, KeyCode::Tab, M::NONE);
    assert_eq!(shown(&c), "look at @src/|");
    assert!(c.popup_open());
    press(&mut c, KeyCode::Down, M::NONE);
    press(&mut c, KeyCode::Enter, M::NONE);
    assert_eq!(shown(&c), "look at @src/lib.rs |");
    assert!(!c.popup_open());
    typed(&mut c, "@");
    press(&mut c, KeyCode::Tab, M::NONE);
    assert_eq!(
        press(&mut c, KeyCode::Esc, M::NONE),
        ComposerAction::Changed
    );
    assert!(!c.popup_open());
    typed(&mut c, "../");
    assert_eq!(press(&mut c, KeyCode::Tab, M::NONE), ComposerAction::None);
    assert!(!c.popup_open());
}

#[test]
fn height_grows_to_the_cap_then_scrolls() {
    let mut c = composer();
    assert_eq!(c.height(40), 1);
    c.set_text("1\n2\n3");
    assert_eq!(c.height(40), 3);
    c.set_text(&"x\n".repeat(30));
    assert_eq!(c.height(40), DEFAULT_MAX_ROWS);
    let area = Rect::new(0, 10, 40, DEFAULT_MAX_ROWS);
    let mut buf = Buffer::empty(Rect::new(0, 0, 40, 20));
    c.render(area, &mut buf, &Theme::new(ColorLevel::None));
    assert_eq!(c.cursor_position(area), (2, 10 + DEFAULT_MAX_ROWS - 1));
    c.set_cursor(0);
    c.render(area, &mut buf, &Theme::new(ColorLevel::None));
    assert_eq!(c.cursor_position(area), (2, 10));
    c.set_text("日本語");
    assert_eq!(c.cursor_position(area), (2 + 6, 10));
}

#[derive(Debug, Clone)]
enum Input {
    Key(KeyCode, KeyModifiers),
    Paste(String),
    Render(u16, u16),
}

fn input() -> impl proptest::strategy::Strategy<Value = Input> {
    use proptest::prelude::*;
    let code = prop_oneof![
        prop::sample::select(vec![
            'a', ' ', '日', '\u{301}', '\\', '@', '/', '\t', 'j', 'w', 'u', 'k', 'd', 'e', 'b', 'f'
        ])
        .prop_map(KeyCode::Char),
        prop::sample::select(vec![
            KeyCode::Enter,
            KeyCode::Left,
            KeyCode::Right,
            KeyCode::Up,
            KeyCode::Down,
            KeyCode::Home,
            KeyCode::End,
            KeyCode::Backspace,
            KeyCode::Delete,
            KeyCode::Tab,
            KeyCode::Esc,
        ]),
    ];
    let mods = prop::sample::select(vec![M::NONE, M::SHIFT, M::CONTROL, M::ALT]);
    prop_oneof![
        6 => (code, mods).prop_map(|(c, m)| Input::Key(c, m)),
        1 => prop_oneof!["[a-z \r\n日]{0,12}", "(x\r\n){6,8}"].prop_map(Input::Paste),
        1 => (0u16..30, 0u16..6).prop_map(|(w, h)| Input::Render(w, h)),
    ]
}

proptest::proptest! {
    #[test]
    fn any_input_sequence_keeps_the_composer_consistent(
        inputs in proptest::collection::vec(input(), 0..60)
    ) {
        let ws = crate::tui::mention::test_workspace();
        let mut h = History::in_memory();
        h.push("earlier\nentry").unwrap();
        let mut c = Composer::new(h);
        c.set_workspace(ws.path().to_path_buf());
        c.set_slash_registry(Arc::new(registry()));
        let theme = Theme::new(ColorLevel::Ansi16);
        for i in inputs {
            match i {
                Input::Key(code, m) => {
                    c.handle_key(key(code, m));
                }
                Input::Paste(p) => {
                    c.handle_paste(&p);
                }
                Input::Render(w, h) => {
                    let area = Rect::new(1, 1, w, h);
                    let mut buf = Buffer::empty(Rect::new(0, 0, 40, 10));
                    c.height(w);
                    c.render(area, &mut buf, &theme);
                    c.render_popup(Rect::new(1, 1, w, c.popup_height().min(h)), &mut buf, &theme);
                    let _ = c.cursor_position(area);
                }
            }
            proptest::prop_assert!(c.cursor() <= c.editor.cells().len());
            proptest::prop_assert!(!c.text().contains('\r'));
        }
    }
}

// ---- snapshots (80x24 and 120x40) ----

/// The composer at the bottom of the screen, its popup just above.
fn screen(c: &Composer, w: u16, h: u16) -> String {
    let theme = Theme::new(ColorLevel::None);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| {
            let ch = c.height(w);
            let area = Rect::new(0, h - ch, w, ch);
            let ph = c.popup_height();
            c.render(area, f.buffer_mut(), &theme);
            c.render_popup(Rect::new(0, h - ch - ph, w, ph), f.buffer_mut(), &theme);
        })
        .unwrap();
    format!("{}", terminal.backend())
}

fn snapshots(name: &str, c: &Composer) {
    for (w, h) in [(80, 24), (120, 40)] {
        let shot = screen(c, w, h);
        insta::with_settings!({ snapshot_path => "../snapshots" }, {
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), shot);
        });
    }
}

#[test]
fn snapshot_multiline() {
    let mut c = composer();
    c.set_text(
        "Refactor the parser:\n  1. split tokens\n  2. keep spans — 日本語 too\n\nThis last line is long enough to wrap at eighty columns, so the composer shows it on two rows.",
    );
    snapshots("composer_multiline", &c);
}

#[test]
fn snapshot_folded_paste() {
    let mut c = composer();
    c.set_text("Why does this fail? ");
    let log: String = (1..=40)
        .map(|i| format!("error[E0{i:03}]: something\n"))
        .collect();
    c.handle_paste(&log);
    c.handle_paste(" and the escape \u{1b}[2J stays visible");
    snapshots("composer_folded_paste", &c);
}

#[test]
fn snapshot_slash_menu() {
    let mut c = with_slash();
    typed(&mut c, "/re");
    snapshots("slash_menu", &c);
}

#[test]
fn snapshot_mentions() {
    let ws = crate::tui::mention::test_workspace();
    let mut c = composer();
    c.set_workspace(ws.path().to_path_buf());
    typed(&mut c, "explain @");
    press(&mut c, KeyCode::Tab, M::NONE);
    press(&mut c, KeyCode::Down, M::NONE);
    snapshots("mentions", &c);
}
