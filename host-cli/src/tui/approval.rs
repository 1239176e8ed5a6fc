//! The prompt of an approval question (y once, a for the session, p always, n deny with a
//! note). The questions themselves, keyed by id, and what an answer does are the session's
//! ([`reasonix_session::approvals`]).

use super::text::{safe, safe_line};
use super::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_agent::permissions::Preview;
use reasonix_i18n::t;
use reasonix_session::{Answer, Question};

/// The choices, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Once,
    Session,
    Always,
    Deny,
}

pub const CHOICES: [Choice; 4] = [Choice::Once, Choice::Session, Choice::Always, Choice::Deny];

/// A plan's choices: approve and go on asking, approve in `auto`, keep planning with a note.
/// "Always" has no meaning for a plan.
pub const PLAN_CHOICES: [Choice; 3] = [Choice::Once, Choice::Session, Choice::Deny];

/// The choices `question` offers, in the order shown.
pub fn choices(question: &Question) -> &'static [Choice] {
    if question.plan.is_some() {
        &PLAN_CHOICES
    } else {
        &CHOICES
    }
}

/// Rows of a plan shown in its question (wrapped); the rest is said to be there.
const PLAN_ROWS: usize = 16;

/// Rows of a call's arguments shown in its question, after wrapping (a write's `content` is
/// one JSON line that wraps to dozens): the question must fit on the screen.
const ARGUMENT_ROWS: usize = 6;

/// The prompt's state: the selected choice, the note being typed after `n`, whether `p` waits
/// for its confirmation, and when keys may answer.
#[derive(Debug, Default)]
pub struct Prompt {
    pub selected: usize,
    /// `Some` while the user types the note for a deny.
    pub note: Option<String>,
    /// `p` was pressed once: a second `p` (or Enter) writes the rule.
    pub confirm_always: bool,
    pub guard: super::guard::AnswerGuard,
}

/// Where "always" writes its rule, shown before it is written.
#[derive(Debug, Clone)]
pub struct PersistTarget {
    pub file: std::path::PathBuf,
}

impl Prompt {
    /// The lines of the prompt for `pending`, diff excluded (the caller renders the preview
    /// above it with the diff renderer).
    pub fn lines(
        &self,
        pending: &Question,
        target: &PersistTarget,
        theme: Theme,
        width: u16,
    ) -> Vec<Line<'static>> {
        let scope = pending
            .scopes
            .first()
            .map(|s| safe_line(s).into_owned())
            .unwrap_or_else(|| safe_line(&pending.tool).into_owned());
        if let Some(plan) = &pending.plan {
            return self.plan_lines(plan, theme, width);
        }
        let mut lines = Vec::new();
        if let Some(agent) = &pending.agent {
            lines.push(Line::from(vec![
                Span::styled(t!("approval-subagent-before"), theme.dim()),
                Span::styled(safe_line(agent).into_owned(), theme.heading()),
                Span::styled(t!("approval-subagent-after"), theme.dim()),
            ]));
        }
        lines.push(Line::from(vec![
            Span::styled(t!("approval-allow-before"), theme.warning()),
            Span::styled(safe_line(&pending.tool).into_owned(), theme.heading()),
            Span::styled(t!("approval-allow-after"), theme.warning()),
            Span::styled(safe_line(&pending.reason).into_owned(), theme.dim()),
        ]));
        // A change already shown as a diff is not dumped again as JSON.
        if !matches!(pending.preview, Preview::Changes(_)) {
            lines.extend(argument_rows(&pending.arguments, theme, width));
        }
        let file = target.file.display().to_string();
        let labels = [
            t!("approval-once"),
            t!("approval-session", scope = scope.as_str()),
            t!(
                "approval-always",
                scope = scope.as_str(),
                file = file.as_str()
            ),
            t!("approval-deny"),
        ];
        for (i, label) in labels.into_iter().enumerate() {
            let style = if i == self.selected {
                theme.selected()
            } else {
                theme.plain()
            };
            let marker = if i == self.selected { "› " } else { "  " };
            lines.push(Line::from(Span::styled(format!("{marker}{label}"), style)));
        }
        if self.confirm_always {
            lines.push(Line::from(Span::styled(
                t!(
                    "approval-confirm-always",
                    scope = scope.as_str(),
                    file = file.as_str()
                ),
                theme.warning(),
            )));
        } else if self.note.is_none() {
            lines.push(Line::from(Span::styled(
                t!("approval-typeahead"),
                theme.dim(),
            )));
        }
        if let Some(note) = &self.note {
            lines.push(Line::from(vec![
                Span::styled(t!("approval-note"), theme.accent()),
                Span::raw(note.clone()),
                Span::styled("▏", theme.dim()),
            ]));
        }
        lines
    }
}

impl Prompt {
    /// A plan to approve: the plan, then approve (asking / auto) or keep planning.
    fn plan_lines(&self, plan: &str, theme: Theme, width: u16) -> Vec<Line<'static>> {
        let mut lines = vec![Line::from(Span::styled(
            t!("approval-plan-title"),
            theme.warning(),
        ))];
        let source: Vec<Line<'static>> = safe(plan)
            .lines()
            .map(|line| Line::from(Span::styled(format!("  {line}"), theme.plain())))
            .collect();
        let mut rows = super::wrap::wrap_lines(source, usize::from(width.max(1)));
        if rows.len() > PLAN_ROWS {
            let more = rows.len() - (PLAN_ROWS - 1);
            rows.truncate(PLAN_ROWS - 1);
            rows.push(Line::from(Span::styled(
                t!("approval-plan-more", more = more),
                theme.dim(),
            )));
        }
        lines.extend(rows);
        let labels = [
            t!("approval-plan-ask"),
            t!("approval-plan-auto"),
            t!("approval-plan-keep"),
        ];
        for (i, label) in labels.into_iter().enumerate() {
            let style = if i == self.selected {
                theme.selected()
            } else {
                theme.plain()
            };
            let marker = if i == self.selected { "› " } else { "  " };
            lines.push(Line::from(Span::styled(format!("{marker}{label}"), style)));
        }
        if let Some(note) = &self.note {
            lines.push(Line::from(vec![
                Span::styled(t!("approval-note"), theme.accent()),
                Span::raw(note.clone()),
                Span::styled("▏", theme.dim()),
            ]));
        }
        lines
    }
}

/// The call's arguments, wrapped to `width` and cut to [`ARGUMENT_ROWS`] rows.
fn argument_rows(arguments: &str, theme: Theme, width: u16) -> Vec<Line<'static>> {
    let source: Vec<Line<'static>> = safe(arguments)
        .lines()
        .map(|line| Line::from(Span::styled(format!("  {line}"), theme.dim())))
        .collect();
    let mut rows = super::wrap::wrap_lines(source, usize::from(width.max(1)));
    if rows.len() > ARGUMENT_ROWS {
        let more = rows.len() - (ARGUMENT_ROWS - 1);
        rows.truncate(ARGUMENT_ROWS - 1);
        rows.push(Line::from(Span::styled(
            t!("approval-arguments-more", more = more),
            theme.dim(),
        )));
    }
    rows
}

impl Prompt {
    /// The answer `choice` stands for. Session and always grant the narrowest scope shown;
    /// a question that offered none is answered once.
    pub fn answer(choice: Choice, question: &Question, note: Option<String>) -> Answer {
        let scope = || question.scopes.first().cloned();
        match choice {
            Choice::Once => Answer::Once,
            Choice::Session => scope().map_or(Answer::Once, |s| Answer::Session(Some(s))),
            Choice::Always => scope().map_or(Answer::Once, |s| Answer::Always(Some(s))),
            Choice::Deny => Answer::Deny(note.filter(|n| !n.trim().is_empty())),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tui::status::Status;
    use crate::tui::theme::ColorLevel;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::layout::Rect;
    use ratatui::widgets::Paragraph;
    use reasonix_core::types::{ChangeKind, FileChange};

    fn pending(note_for: &str) -> Question {
        Question {
            id: "q1".into(),
            call_id: "call_1".into(),
            tool: "edit_file".into(),
            arguments:
                "{\n  \"path\": \"src/lib.rs\",\n  \"old\": \"fn a()\",\n  \"new\": \"fn b()\"\n}"
                    .into(),
            reason: format!("writers and commands ask in this posture{note_for}"),
            scopes: vec!["Edit(src/lib.rs)".into(), "Edit".into()],
            preview: Preview::Changes(vec![FileChange {
                path: "src/lib.rs".into(),
                kind: ChangeKind::Modify,
                old_text: Some("fn a() {}\nfn keep() {}\n".into()),
                new_text: Some("fn b() {}\nfn keep() {}\n".into()),
            }]),
            agent: None,
            plan: None,
        }
    }

    /// The live area as the session lays it out for a question: the proposed change, the
    /// prompt, and the status line at the bottom.
    fn draw(w: u16, h: u16, prompt: &Prompt) -> String {
        let theme = Theme::new(ColorLevel::Ansi16);
        let pending = pending("");
        let target = PersistTarget {
            file: "/home/me/.reasonix/config.toml".into(),
        };
        let mut lines = match &pending.preview {
            Preview::Changes(changes) => crate::tui::diff::render(changes, theme, w, 20),
            _ => Vec::new(),
        };
        lines.extend(prompt.lines(&pending, &target, theme, w));
        let status = Status {
            model: "deepseek/deepseek-v4-flash".into(),
            ..Status::default()
        };
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| {
                let area = f.area();
                f.render_widget(
                    Paragraph::new(crate::tui::wrap::wrap_lines(lines, usize::from(w))),
                    Rect {
                        height: area.height - 1,
                        ..area
                    },
                );
                f.render_widget(
                    Paragraph::new(status.line(theme, w, None)),
                    Rect {
                        y: area.height - 1,
                        height: 1,
                        ..area
                    },
                );
            })
            .unwrap();
        format!("{}", terminal.backend())
    }

    #[test]
    fn approval_prompt_80x24() {
        insta::assert_snapshot!(draw(80, 24, &Prompt::default()));
    }

    #[test]
    fn approval_prompt_zh_cn_80x24() {
        let screen = reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || {
            draw(80, 24, &Prompt::default())
        });
        assert!(screen.contains("允许 edit_file？"), "{screen}");
        assert!(
            screen.contains("允许，本会话内：Edit(src/lib.rs)"),
            "{screen}"
        );
        insta::assert_snapshot!(screen);
    }

    #[test]
    fn approval_prompt_120x40() {
        let prompt = Prompt {
            selected: 3,
            note: Some("use the other helper".into()),
            ..Prompt::default()
        };
        insta::assert_snapshot!(draw(120, 40, &prompt));
    }

    #[test]
    fn answers_are_never_wider_than_the_narrowest_scope_shown() {
        let p = pending("");
        assert_eq!(
            Prompt::answer(Choice::Session, &p, None),
            Answer::Session(Some("Edit(src/lib.rs)".into()))
        );
        assert_eq!(
            Prompt::answer(Choice::Always, &p, None),
            Answer::Always(Some("Edit(src/lib.rs)".into()))
        );
        assert_eq!(
            Prompt::answer(Choice::Deny, &p, Some("  ".into())),
            Answer::Deny(None)
        );
        assert_eq!(
            Prompt::answer(Choice::Deny, &p, Some("no".into())),
            Answer::Deny(Some("no".into()))
        );
    }
}
