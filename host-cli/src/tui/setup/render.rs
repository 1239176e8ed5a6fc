//! Drawing the setup screen from its state. Every string that did not come from this file
//! (error text from a provider, typed URLs, paths) goes through `safe_line`.

use super::state::{Entry, KeyFound, SetupState, Step, TestResult, masked};
use crate::tui::text::{safe_line, truncate, width as text_width};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use reasonix_i18n::t;
use std::path::Path;

/// Draw the whole screen into `area`.
pub fn render(frame: &mut Frame, area: Rect, state: &SetupState, theme: &Theme) {
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let title = Line::from(vec![
        Span::styled(t!("setup-title"), theme.heading()),
        Span::styled(format!("  ·  {}", step_title(state)), theme.dim()),
    ]);
    frame.render_widget(Paragraph::new(title), header);
    let lines = body_lines(state, theme, body.width as usize);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
    frame.render_widget(
        Paragraph::new(Line::styled(keys_hint(state), theme.dim())),
        footer,
    );
}

fn step_title(state: &SetupState) -> String {
    match state.step {
        Step::Pick => t!("setup-step-pick"),
        Step::BaseUrl | Step::Model => t!("setup-step-custom"),
        Step::Key => t!("setup-step-key"),
        Step::Testing | Step::Tested(_) => t!("setup-step-test"),
        Step::Done(_) => t!("setup-step-done"),
        Step::WriteFailed(_) => t!("setup-step-write-failed"),
    }
}

fn keys_hint(state: &SetupState) -> String {
    match &state.step {
        Step::Pick => t!("setup-keys-pick"),
        Step::BaseUrl | Step::Model => t!("setup-keys-field"),
        Step::Key => t!("setup-keys-key"),
        Step::Testing => t!("setup-keys-testing"),
        Step::Tested(TestResult::Passed(_)) => t!("setup-keys-passed"),
        Step::Tested(TestResult::Failed(_)) => t!("setup-keys-failed"),
        Step::Done(_) => t!("setup-keys-done"),
        Step::WriteFailed(_) => t!("setup-keys-write-failed"),
    }
}

fn body_lines(state: &SetupState, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let Some(entry) = state.entry() else {
        return out;
    };
    match &state.step {
        Step::Pick => pick_lines(state, theme, width, &mut out),
        Step::BaseUrl => {
            out.push(Line::from(t!("setup-base-url-prompt")));
            out.push(field(&state.base_url, theme));
        }
        Step::Model => {
            out.push(chosen(entry, theme));
            out.push(Line::styled(
                t!(
                    "setup-base-url",
                    url = safe_line(state.base_url.trim()).into_owned()
                ),
                theme.dim(),
            ));
            out.push(Line::default());
            out.push(Line::from(t!("setup-model-prompt")));
            out.push(field(&state.model, theme));
        }
        Step::Key => {
            out.push(chosen(entry, theme));
            out.push(Line::default());
            let env = entry.api_key_env.as_deref().unwrap_or("");
            if entry.custom {
                out.push(Line::from(t!("setup-key-prompt-custom", env = env)));
            } else {
                out.push(Line::from(t!("setup-key-prompt", env = env)));
            }
            out.push(field(&masked(&state.key), theme));
        }
        Step::Testing => {
            out.push(chosen(entry, theme));
            out.push(Line::default());
            out.push(Line::styled(t!("setup-testing"), theme.accent()));
        }
        Step::Tested(TestResult::Passed(reply)) => {
            out.push(chosen(entry, theme));
            out.push(Line::default());
            out.push(Line::styled(t!("setup-test-passed"), theme.success()));
            out.push(Line::styled(
                truncate(&safe_line(reply), width.max(1)).into_owned(),
                theme.dim(),
            ));
            out.push(Line::default());
            out.push(Line::from(t!("setup-enter-saves")));
        }
        Step::Tested(TestResult::Failed(message)) => {
            out.push(chosen(entry, theme));
            out.push(Line::default());
            out.push(Line::styled(t!("setup-test-failed"), theme.error()));
            out.push(Line::from(safe_line(message).into_owned()));
            out.push(Line::default());
            out.push(Line::from(t!("setup-failed-choices")));
        }
        Step::Done(written) => {
            out.push(Line::styled(t!("setup-done"), theme.success()));
            out.push(Line::default());
            out.push(path_line(&t!("setup-done-config"), &written.config, theme));
            if let (Some(file), Some(env)) = (&written.key_file, &written.key_env) {
                out.push(path_line(
                    &t!("setup-done-key", env = env.as_str()),
                    file,
                    theme,
                ));
            }
            out.push(Line::from(t!(
                "setup-done-model",
                model = safe_line(&written.default_model).into_owned()
            )));
            out.push(Line::default());
            out.push(Line::styled(t!("setup-done-again"), theme.dim()));
        }
        Step::WriteFailed(message) => {
            out.push(Line::styled(t!("setup-write-failed"), theme.error()));
            out.push(Line::from(safe_line(message).into_owned()));
        }
    }
    if let Some(problem) = &state.problem {
        out.push(Line::default());
        out.push(Line::styled(
            safe_line(problem).into_owned(),
            theme.warning(),
        ));
    }
    out
}

fn pick_lines(state: &SetupState, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    out.push(Line::from(t!("setup-pick-question")));
    out.push(Line::default());
    for (i, entry) in state.entries.iter().enumerate() {
        let selected = i == state.selected;
        let marker = if selected { "▸ " } else { "  " };
        let style = if selected {
            theme.selected()
        } else {
            theme.plain()
        };
        let label = if entry.custom {
            t!("setup-custom")
        } else {
            entry.id.clone()
        };
        // Padded by display width: a CJK label is two columns a character.
        let pad = " ".repeat(11usize.saturating_sub(text_width(&label)));
        let mut spans = vec![Span::styled(format!("{marker}{label}{pad}"), style)];
        let used = 13;
        let note = found_note(entry);
        let room = width.saturating_sub(used + 1 + note.as_ref().map_or(0, |n| text_width(n) + 2));
        let description = preset_description(entry);
        spans.push(Span::styled(
            format!(" {}", truncate(&description, room)),
            theme.dim(),
        ));
        if let Some(note) = note {
            spans.push(Span::styled(format!("  {note}"), theme.success()));
        }
        out.push(Line::from(spans));
    }
    if let Some(entry) = state.entry()
        && let (Some(env), Some(found)) = (&entry.api_key_env, &entry.found)
    {
        out.push(Line::default());
        let place = match found {
            KeyFound::Environment => t!("setup-found-environment"),
            KeyFound::DotEnv(path) => safe_line(&path.display().to_string()).into_owned(),
        };
        out.push(Line::styled(
            t!("setup-found-key", env = env.as_str(), place = place),
            theme.success(),
        ));
    }
}

fn found_note(entry: &Entry) -> Option<String> {
    entry.found.as_ref().map(|_| t!("setup-key-found"))
}

/// A preset's description in the user's language: the catalogue's `setup-preset-<id>` when it
/// has one (the built-in presets), else the preset's own words.
fn preset_description(entry: &Entry) -> String {
    let key = format!("setup-preset-{}", entry.id);
    if entry.custom {
        return t!("setup-preset-custom");
    }
    if reasonix_i18n::has(reasonix_i18n::language(), &key) {
        reasonix_i18n::tr(&key)
    } else {
        entry.description.clone()
    }
}

fn chosen(entry: &Entry, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(t!("setup-provider"), theme.dim()),
        Span::styled(entry.id.clone(), theme.accent()),
    ])
}

fn field(text: &str, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled("> ", theme.accent()),
        Span::raw(safe_line(text).into_owned()),
        Span::styled("▏", theme.accent()),
    ])
}

fn path_line(label: &str, path: &Path, theme: &Theme) -> Line<'static> {
    let pad = " ".repeat(9usize.saturating_sub(text_width(label)));
    Line::from(vec![
        Span::styled(format!("{label}{pad} "), theme.dim()),
        Span::raw(safe_line(&path.display().to_string()).into_owned()),
    ])
}
