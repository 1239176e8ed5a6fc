use super::*;
use crate::tui::theme::ColorLevel;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::widgets::Paragraph;
use reasonix_core::types::ChangeKind;

fn texts(lines: &[Line<'_>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

fn card(name: &str, args: &str) -> ToolCard {
    ToolCard::new("call_1", name, args)
}

fn samples() -> Vec<ToolCard> {
    let mut shell = card(
        "shell",
        r#"{"command":"cargo test --workspace","timeout":120}"#,
    );
    shell.status = CardStatus::Done;
    shell.duration_ms = Some(12_400);
    shell.output = Some(
        (1..=40)
            .map(|i| format!("test case_{i} ... ok\n"))
            .collect::<String>(),
    );
    let mut failed = card("fetch", r#"{"url":"https://example.com/a\u001b[2J"}"#);
    failed.status = CardStatus::Failed;
    failed.duration_ms = Some(830);
    failed.output = Some("connection refused\nretries exhausted\n".to_string());
    let mut write = card(
        "write_file",
        r#"{"path":"src/greet.rs","content":"fn greet() {\n    println!(\"hello\");\n}\n"}"#,
    );
    write.status = CardStatus::Done;
    write.duration_ms = Some(3);
    write.output = Some("wrote 42 bytes".to_string());
    write.changes = Some(vec![FileChange {
        path: "src/greet.rs".to_string(),
        kind: ChangeKind::Modify,
        old_text: Some("fn greet() {\n    println!(\"hi\");\n}\n".to_string()),
        new_text: Some("fn greet() {\n    println!(\"hello\");\n}\n".to_string()),
    }]);
    let running = card("grep", r#"{"pattern":"TODO","path":"src"}"#);
    let mut denied = card("shell", r#"{"command":"rm -rf target"}"#);
    denied.status = CardStatus::Denied("not now".to_string());
    let mut cancelled = card(
        "plugin_tool",
        r#"{"a":{"nested":true},"label":"short one"}"#,
    );
    cancelled.status = CardStatus::Cancelled;
    cancelled.duration_ms = Some(61_000);
    vec![shell, failed, write, running, denied, cancelled]
}

fn draw(lines: Vec<Line<'static>>, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| f.render_widget(Paragraph::new(lines), f.area()))
        .unwrap();
    format!("{}", terminal.backend())
}

fn collapsed(w: u16, h: u16) -> String {
    let theme = Theme::new(ColorLevel::Ansi16);
    let lines = samples()
        .iter()
        .flat_map(|c| c.render_collapsed(theme, w))
        .collect();
    draw(lines, w, h)
}

fn expanded(w: u16, h: u16) -> String {
    let theme = Theme::new(ColorLevel::Ansi16);
    let cards = samples();
    let per = usize::from(h) / 3;
    let lines = [&cards[0], &cards[1], &cards[2]]
        .iter()
        .flat_map(|c| c.render_expanded(theme, w, per))
        .collect();
    draw(lines, w, h)
}

#[test]
fn card_collapsed_80x24() {
    shared_snapshot(|| insta::assert_snapshot!(collapsed(80, 24)));
}

#[test]
fn card_collapsed_120x40() {
    shared_snapshot(|| insta::assert_snapshot!(collapsed(120, 40)));
}

#[test]
fn card_expanded_80x24() {
    shared_snapshot(|| insta::assert_snapshot!(expanded(80, 24)));
}

#[test]
fn card_expanded_120x40() {
    shared_snapshot(|| insta::assert_snapshot!(expanded(120, 40)));
}

#[test]
fn card_collapsed_zh_cn_80x24() {
    let screen = reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || collapsed(80, 24));
    assert!(screen.contains("（+39 行）"), "{screen}");
    assert!(screen.contains("运行中…"), "{screen}");
    assert!(screen.contains("已拒绝：not now"), "{screen}");
    shared_snapshot(|| insta::assert_snapshot!(screen));
}

/// The cards whose expanded form is all this module's words (the diff has its own).
fn expanded_without_diff(w: u16, h: u16) -> String {
    let theme = Theme::new(ColorLevel::Ansi16);
    let cards = samples();
    let per = usize::from(h) / 3;
    let lines = [&cards[0], &cards[1], &cards[4], &cards[5]]
        .iter()
        .flat_map(|c| c.render_expanded(theme, w, per))
        .collect();
    draw(lines, w, h)
}

#[test]
fn card_expanded_zh_cn_80x24() {
    let screen = reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || {
        expanded_without_diff(80, 24)
    });
    assert!(
        screen.contains("… 还有 36 行（Ctrl+T 查看完整记录）"),
        "{screen}"
    );
    assert!(screen.contains("已取消"), "{screen}");
    shared_snapshot(|| insta::assert_snapshot!(screen));
}

#[test]
fn summaries_fit_the_width_in_chinese() {
    let theme = Theme::new(ColorLevel::None);
    reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || {
        for width in [40u16, 80] {
            for card in samples() {
                let collapsed = card.render_collapsed(theme, width);
                let expanded = card.render_expanded(theme, width, 8);
                for (line, t) in collapsed
                    .iter()
                    .chain(&expanded)
                    .zip(texts(&collapsed).into_iter().chain(texts(&expanded)))
                {
                    assert!(line.width() <= usize::from(width), "{width}: {t}");
                }
            }
        }
    });
}

#[test]
fn key_argument_by_common_names_then_first_short_string() {
    let arg = |a: &str| card("any_tool", a).key_argument();
    assert_eq!(
        arg(r#"{"path":"a.rs","command":"ls"}"#).as_deref(),
        Some("ls")
    );
    assert_eq!(
        arg(r#"{"file_path":"b.rs","x":1}"#).as_deref(),
        Some("b.rs")
    );
    assert_eq!(
        arg(r#"{"command":["git","status"]}"#).as_deref(),
        Some("git status")
    );
    assert_eq!(
        arg(r#"{"body":"long\ntext","title":"Fix it"}"#).as_deref(),
        Some("Fix it")
    );
    assert_eq!(arg(r#"{"n":3}"#), None);
    assert_eq!(arg("not json"), None);
    assert_eq!(arg(r#"["path"]"#), None);
}

#[test]
fn collapsed_is_two_lines_within_width_and_escaped() {
    let theme = Theme::new(ColorLevel::Ansi16);
    for c in samples() {
        let lines = c.render_collapsed(theme, 80);
        assert!(lines.len() <= 2);
        for (line, t) in lines.iter().zip(texts(&lines)) {
            assert!(line.width() <= 80, "{t}");
            assert!(!t.chars().any(char::is_control), "{t:?}");
        }
    }
    let t = texts(&samples()[1].render_collapsed(theme, 80));
    assert!(t[0].contains("https://example.com/a\\x1b[2J"), "{t:?}");
    let failed = samples()[1].render_collapsed(theme, 80);
    assert_eq!(failed[1].spans[1].style, theme.error());
    assert_eq!(
        texts(&samples()[0].render_collapsed(theme, 80))[1],
        "  └ test case_1 ... ok (+39 lines)"
    );
}

#[test]
fn huge_outputs_stay_bounded() {
    let theme = Theme::new(ColorLevel::Ansi16);
    let mut many = card("shell", r#"{"command":"seq 10000"}"#);
    many.status = CardStatus::Done;
    many.output = Some((1..=10_000).map(|i| format!("{i}\n")).collect());
    let lines = many.render_expanded(theme, 80, 20);
    let t = texts(&lines);
    assert_eq!(lines.len(), 20);
    // Header, one argument, 17 output lines, the note.
    assert_eq!(t[2], "  1");
    assert_eq!(
        t[19],
        "  … 9983 more lines (Ctrl+T for the whole transcript)"
    );
    assert_eq!(
        texts(&many.render_collapsed(theme, 80))[1],
        "  └ 1 (+9999 lines)"
    );

    let mut wide = card("shell", r#"{"command":"cat min.js"}"#);
    wide.status = CardStatus::Done;
    wide.output = Some("x".repeat(5 * 1024));
    let collapsed = wide.render_collapsed(theme, 80);
    assert!(collapsed.iter().all(|l| l.width() <= 80));
    let expanded = wide.render_expanded(theme, 80, 10);
    assert_eq!(expanded.len(), 10);
    assert!(expanded.iter().all(|l| l.width() <= 80));
    assert!(texts(&expanded)[9].starts_with("  … 1 more line ("));
}

#[test]
fn no_color_means_no_colours() {
    let theme = Theme::new(ColorLevel::None);
    for c in samples() {
        let mut lines = c.render_collapsed(theme, 80);
        lines.extend(c.render_expanded(theme, 80, 30));
        for span in lines.iter().flat_map(|l| l.spans.iter()) {
            assert!(
                span.style.fg.is_none() && span.style.bg.is_none(),
                "{span:?}"
            );
        }
    }
}

/// Snapshots live with the other TUI snapshots in `tui/snapshots/`.
fn shared_snapshot(check: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.bind(check);
}
