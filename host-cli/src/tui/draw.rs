//! The live area: what is in progress (the open part of the answer, reasoning, running
//! tools), the approval prompt, the composer and the status line — or the picker.

use super::app::{App, Overlay};
use super::text::{safe_line, truncate};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use reasonix_i18n::t;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Rows of the open answer or reasoning shown live (the rest is in the scrollback already
/// or will be when it is complete).
const LIVE_TAIL: usize = 6;
/// Rows of the open answer shown live at most: a long paragraph shows its tail (the whole of
/// it reaches the scrollback when it is complete).
const LIVE_ROWS: usize = 12;
/// After this long without a word from the agent while no tool runs, the live line says the
/// provider is silent (a stalled stream is otherwise only a spinner for minutes).
const PROVIDER_SILENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Everything above the composer, top to bottom.
fn upper_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let theme = app.theme;
    let mut lines = Vec::new();
    match &app.overlay {
        Some(Overlay::Picker(picker)) => {
            return picker.lines(theme, width, crate::clock::now_ms());
        }
        Some(Overlay::Calls(calls)) => {
            return calls.lines(&app.finished, theme, width);
        }
        Some(Overlay::Turns(turns)) => return turns.lines(theme, width),
        None => {}
    }
    if !app.reasoning.is_empty() {
        let text = super::text::safe(&app.reasoning).into_owned();
        let all: Vec<&str> = text.lines().collect();
        if app.verbose {
            for l in &all[all.len().saturating_sub(LIVE_TAIL)..] {
                lines.push(Line::from(Span::styled(format!("  {l}"), theme.dim())));
            }
        } else {
            lines.push(Line::from(Span::styled(
                t!("turn-thinking", lines = all.len()),
                theme.dim(),
            )));
        }
    }
    lines.extend(app.answer.live_rows(width, LIVE_TAIL, LIVE_ROWS));
    for running in &app.running {
        let mut card = running.card.clone();
        card.duration_ms =
            Some(u64::try_from(running.started.elapsed().as_millis()).unwrap_or(u64::MAX));
        lines.extend(card.render_collapsed(theme, width));
    }
    lines.extend(app.children.lines(theme, width));
    if let Some(pending) = app.approvals.front() {
        if app.approvals.len() > 1 {
            lines.push(Line::from(Span::styled(
                t!("turn-more-questions", count = app.approvals.len() - 1),
                theme.dim(),
            )));
        }
        lines.extend(app.prompt.lines(pending, &app.persist_target, theme, width));
    } else if let Some(question) = &app.mcp.question {
        lines.extend(question.lines(theme));
    }
    if let Some(turn) = &app.turn {
        let frame = (turn.started.elapsed().as_millis() / 100) as usize % SPINNER.len();
        let silent = turn.heard_at.elapsed();
        let what = if turn.cancelling {
            t!("turn-cancelling")
        } else if turn.answered {
            t!("turn-saving")
        } else if let Some(retrying) = &turn.retrying {
            safe_line(retrying).into_owned()
        } else if app.status.running_tool.is_none() && silent >= PROVIDER_SILENCE {
            t!("turn-waiting-provider", seconds = silent.as_secs())
        } else {
            t!("turn-working")
        };
        let hint = if turn.cancellable() {
            t!("turn-esc-cancels")
        } else {
            String::new()
        };
        let line = format!(
            "{} {what} {}{hint}",
            SPINNER[frame],
            super::transcript::duration(
                u64::try_from(turn.started.elapsed().as_millis()).unwrap_or(u64::MAX)
            )
        );
        lines.push(Line::from(Span::styled(
            truncate(&line, usize::from(width)).into_owned(),
            theme.accent(),
        )));
    }
    if app.quit_pending() {
        lines.push(Line::from(Span::styled(
            t!("turn-ctrl-c-again"),
            theme.dim(),
        )));
    }
    for queued in &app.queued {
        lines.push(Line::from(Span::styled(
            t!(
                "turn-queued",
                text =
                    super::text::truncate(&super::text::safe_line(&queued.text), 70).into_owned()
            ),
            theme.dim(),
        )));
    }
    lines
}

/// What a frame shows above the composer, wrapped once and used both to size the live area
/// and to draw it.
pub struct View {
    upper: Vec<Line<'static>>,
    width: u16,
}

impl View {
    pub fn new(app: &App, width: u16) -> View {
        View {
            upper: super::wrap::wrap_lines(upper_lines(app, width), usize::from(width.max(1))),
            width,
        }
    }

    /// Rows the live area needs.
    pub fn height(&self, app: &App) -> u16 {
        let composer = if app.overlay.is_some() {
            0
        } else {
            usize::from(app.composer.height(self.width)) + usize::from(app.composer.popup_height())
        };
        u16::try_from(self.upper.len() + composer + 1).unwrap_or(u16::MAX)
    }
}

pub fn draw(frame: &mut Frame<'_>, app: &App, view: View) {
    let area = frame.area();
    let upper = view.upper;
    let (composer_h, popup_h) = if app.overlay.is_some() {
        (0, 0)
    } else {
        (app.composer.height(area.width), app.composer.popup_height())
    };
    let status_y = area.bottom().saturating_sub(1);
    let composer_y = status_y.saturating_sub(composer_h);
    let popup_y = composer_y.saturating_sub(popup_h);
    let upper_h = popup_y.saturating_sub(area.y);
    // When space is short the newest upper lines win.
    let skip = upper.len().saturating_sub(usize::from(upper_h));
    let upper: Vec<Line<'static>> = upper.into_iter().skip(skip).collect();
    // Bottom-aligned: rows the live area keeps until the next commit stay above it, so the
    // open answer and the question sit right over the composer.
    let shown = u16::try_from(upper.len()).unwrap_or(u16::MAX).min(upper_h);
    frame.render_widget(
        Paragraph::new(upper),
        Rect {
            y: popup_y.saturating_sub(shown),
            height: shown,
            ..area
        },
    );
    if composer_h > 0 {
        let composer_area = Rect {
            y: composer_y,
            height: composer_h,
            ..area
        };
        app.composer
            .render(composer_area, frame.buffer_mut(), &app.theme);
        if popup_h > 0 {
            let popup_area = Rect {
                y: popup_y,
                height: popup_h,
                ..area
            };
            app.composer
                .render_popup(popup_area, frame.buffer_mut(), &app.theme);
        }
        if app.approvals.is_empty() {
            let (x, y) = app.composer.cursor_position(composer_area);
            frame.set_cursor_position((x, y));
        }
    }
    let spinner = app
        .turn
        .as_ref()
        .map(|t| SPINNER[(t.started.elapsed().as_millis() / 100) as usize % SPINNER.len()]);
    frame.render_widget(
        Paragraph::new(app.status.line(app.theme, area.width, spinner)),
        Rect {
            y: status_y,
            height: 1,
            ..area
        },
    );
}
