//! Drawing the setup screen from its state. Every string that did not come from this file
//! (error text from a provider, typed URLs, paths) goes through `safe_line`.

use super::state::{Entry, KeyFound, SetupState, Step, TestResult, masked};
use crate::tui::text::{safe_line, truncate};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
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
        Span::styled("Reasonix setup", theme.heading()),
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

fn step_title(state: &SetupState) -> &'static str {
    match state.step {
        Step::Pick => "1/3 choose a provider",
        Step::BaseUrl | Step::Model => "1/3 custom endpoint",
        Step::Key => "2/3 API key",
        Step::Testing | Step::Tested(_) => "3/3 test",
        Step::Done(_) => "done",
        Step::WriteFailed(_) => "could not save",
    }
}

fn keys_hint(state: &SetupState) -> &'static str {
    match &state.step {
        Step::Pick => "↑/↓ choose · Enter select · Esc quit",
        Step::BaseUrl | Step::Model => "type or paste · Enter next · Ctrl-U clear · Esc back",
        Step::Key => "paste or type · Enter test · Ctrl-U clear · Esc back",
        Step::Testing => "Esc stop",
        Step::Tested(TestResult::Passed(_)) => "Enter save · r test again · e edit · Esc back",
        Step::Tested(TestResult::Failed(_)) => "r retry · e edit · s save anyway · Esc back",
        Step::Done(_) => "Enter continue",
        Step::WriteFailed(_) => "r try again · Esc quit",
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
            out.push(Line::from("Base URL of the OpenAI-compatible API (…/v1):"));
            out.push(field(&state.base_url, theme));
        }
        Step::Model => {
            out.push(chosen(entry, theme));
            out.push(Line::styled(
                format!("base URL: {}", safe_line(state.base_url.trim())),
                theme.dim(),
            ));
            out.push(Line::default());
            out.push(Line::from("Model id:"));
            out.push(field(&state.model, theme));
        }
        Step::Key => {
            out.push(chosen(entry, theme));
            out.push(Line::default());
            let env = entry.api_key_env.as_deref().unwrap_or("");
            if entry.custom {
                out.push(Line::from(format!(
                    "API key (saved as {env}; leave empty if the endpoint needs none):"
                )));
            } else {
                out.push(Line::from(format!("Paste your API key (saved as {env}):")));
            }
            out.push(field(&masked(&state.key), theme));
        }
        Step::Testing => {
            out.push(chosen(entry, theme));
            out.push(Line::default());
            out.push(Line::styled(
                "Testing with one short request…",
                theme.accent(),
            ));
        }
        Step::Tested(TestResult::Passed(reply)) => {
            out.push(chosen(entry, theme));
            out.push(Line::default());
            out.push(Line::styled("✓ The provider answered.", theme.success()));
            out.push(Line::styled(
                truncate(&safe_line(reply), width.max(1)).into_owned(),
                theme.dim(),
            ));
            out.push(Line::default());
            out.push(Line::from("Enter saves the settings."));
        }
        Step::Tested(TestResult::Failed(message)) => {
            out.push(chosen(entry, theme));
            out.push(Line::default());
            out.push(Line::styled("✗ The test failed:", theme.error()));
            out.push(Line::from(safe_line(message).into_owned()));
            out.push(Line::default());
            out.push(Line::from("r tries again, e edits, s saves it untested."));
        }
        Step::Done(written) => {
            out.push(Line::styled("✓ Setup is complete.", theme.success()));
            out.push(Line::default());
            out.push(path_line("config:", &written.config, theme));
            if let (Some(file), Some(env)) = (&written.key_file, &written.key_env) {
                out.push(path_line(&format!("key {env}:"), file, theme));
            }
            out.push(Line::from(format!(
                "default model: {}",
                safe_line(&written.default_model)
            )));
            out.push(Line::default());
            out.push(Line::styled(
                "Run `reasonix setup` again to change this.",
                theme.dim(),
            ));
        }
        Step::WriteFailed(message) => {
            out.push(Line::styled("✗ Could not save:", theme.error()));
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
    out.push(Line::from("Which LLM provider should Reasonix use?"));
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
            "custom"
        } else {
            entry.id.as_str()
        };
        let mut spans = vec![Span::styled(format!("{marker}{label:<11}"), style)];
        let used = 13;
        let note = found_note(entry);
        let room =
            width.saturating_sub(used + 1 + note.as_ref().map_or(0, |n| n.chars().count() + 2));
        spans.push(Span::styled(
            format!(" {}", truncate(&entry.description, room)),
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
            KeyFound::Environment => "the environment".to_string(),
            KeyFound::DotEnv(path) => safe_line(&path.display().to_string()).into_owned(),
        };
        out.push(Line::styled(
            format!("found {env} in {place}; it will be used"),
            theme.success(),
        ));
    }
}

fn found_note(entry: &Entry) -> Option<String> {
    entry.found.as_ref().map(|_| "key found".to_string())
}

fn chosen(entry: &Entry, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled("Provider: ", theme.dim()),
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
    Line::from(vec![
        Span::styled(format!("{label:<9} "), theme.dim()),
        Span::raw(safe_line(&path.display().to_string()).into_owned()),
    ])
}
