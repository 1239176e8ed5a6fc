//! Approvals of `ask` decisions: the [`ChannelApprover`] the agent thread blocks on, and the
//! prompt the user answers (y once, a for the session, p always, n deny with a note).

use super::msg::Msg;
use super::text::{safe, safe_line};
use super::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_agent::permissions::{
    Approval, ApprovalRequest, Approver, Preview,
    policy::{Decision, Source},
};
use reasonix_core::cancel::CancelToken;
use std::sync::mpsc::{Sender, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One question waiting for the user.
#[derive(Debug)]
pub struct Pending {
    pub call_id: String,
    pub tool: String,
    /// The call's arguments, pretty-printed.
    pub arguments: String,
    /// Why the rules ask (an `ask` rule, a protected file, the fallback).
    pub reason: String,
    /// Rules the answer could be saved as, narrowest first.
    pub scopes: Vec<String>,
    pub preview: Preview,
    reply: SyncSender<Approval>,
}

impl Pending {
    /// Answer; the agent thread goes on. An answer to a question that was withdrawn (the
    /// turn was cancelled) goes nowhere.
    pub fn answer(self, approval: Approval) {
        let _ = self.reply.send(approval);
    }
}

/// Asks the UI thread and waits for the answer, or for the turn to be cancelled (then the
/// call is refused).
pub struct ChannelApprover {
    to_ui: Mutex<Sender<Msg>>,
    /// The running turn's cancel token.
    turn: Arc<Mutex<CancelToken>>,
}

impl ChannelApprover {
    pub fn new(to_ui: Sender<Msg>, turn: Arc<Mutex<CancelToken>>) -> ChannelApprover {
        ChannelApprover {
            to_ui: Mutex::new(to_ui),
            turn,
        }
    }
}

impl Approver for ChannelApprover {
    fn approve(&self, request: &ApprovalRequest<'_>) -> Approval {
        let (reply, answer) = sync_channel(1);
        let pending = Pending {
            call_id: request.call_id.to_string(),
            tool: request.call.tool.to_string(),
            arguments: serde_json::to_string_pretty(request.call.args)
                .unwrap_or_else(|_| request.call.args.to_string()),
            reason: reason(request),
            scopes: request.scopes.to_vec(),
            preview: request.preview.clone(),
            reply,
        };
        let sent = self
            .to_ui
            .lock()
            .map(|tx| tx.send(Msg::Approval(pending)).is_ok())
            .unwrap_or(false);
        if !sent {
            return Approval::Deny(Some("the user interface is gone".into()));
        }
        let cancel = self
            .turn
            .lock()
            .map(|t| t.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        loop {
            match answer.recv_timeout(Duration::from_millis(50)) {
                Ok(approval) => return approval,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Approval::Deny(None);
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) if cancel.is_cancelled() => {
                    return Approval::Deny(Some("the user cancelled the turn".into()));
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    }
}

fn reason(request: &ApprovalRequest<'_>) -> String {
    match (&request.verdict.source, request.verdict.decision) {
        (Source::Rule { list, rule }, _) => format!("the `{list}` rule {rule} asks"),
        (Source::Protected { path }, _) => {
            format!("{path} is a configuration file: changes to it always ask")
        }
        (Source::LocalNetwork { origin }, _) => {
            format!("{origin} is on this machine or a private network: local fetches ask")
        }
        (Source::Fallback, Decision::Ask) => "writers and commands ask in this posture".into(),
        (Source::Fallback, _) => "no rule allows this call".into(),
    }
}

/// The choices, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Once,
    Session,
    Always,
    Deny,
}

pub const CHOICES: [Choice; 4] = [Choice::Once, Choice::Session, Choice::Always, Choice::Deny];

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
        pending: &Pending,
        target: &PersistTarget,
        theme: Theme,
        width: u16,
    ) -> Vec<Line<'static>> {
        let scope = pending
            .scopes
            .first()
            .map(|s| safe_line(s).into_owned())
            .unwrap_or_else(|| safe_line(&pending.tool).into_owned());
        let mut lines = vec![Line::from(vec![
            Span::styled("Allow ", theme.warning()),
            Span::styled(safe_line(&pending.tool).into_owned(), theme.heading()),
            Span::styled("?  ", theme.warning()),
            Span::styled(safe_line(&pending.reason).into_owned(), theme.dim()),
        ])];
        // A change already shown as a diff is not dumped again as JSON.
        if !matches!(pending.preview, Preview::Changes(_)) {
            lines.extend(argument_rows(&pending.arguments, theme, width));
        }
        let labels = [
            "y  Yes, once".to_string(),
            format!("a  Yes, for this session: {scope}"),
            format!(
                "p  Always allow {scope} (adds it to [permissions] allow in {})",
                target.file.display()
            ),
            "n  No, and tell the model why (type a note, Enter)".to_string(),
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
                format!(
                    "  press p again to add {scope} to {} for good; any other key goes back",
                    target.file.display()
                ),
                theme.warning(),
            )));
        } else if self.note.is_none() {
            lines.push(Line::from(Span::styled(
                "  typed before this question: kept in the composer; answers count after a pause",
                theme.dim(),
            )));
        }
        if let Some(note) = &self.note {
            lines.push(Line::from(vec![
                Span::styled("  note to the model: ", theme.accent()),
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
            format!("  … {more} more rows of arguments"),
            theme.dim(),
        )));
    }
    rows
}

impl Prompt {
    /// The approval `choice` stands for. Session and always grant the narrowest scope shown.
    pub fn approval(choice: Choice, pending: &Pending, note: Option<String>) -> Approval {
        let scope = || pending.scopes.first().cloned();
        match choice {
            Choice::Once => Approval::Once,
            Choice::Session => scope().map_or(Approval::Once, Approval::Session),
            Choice::Always => scope().map_or(Approval::Once, Approval::Persist),
            Choice::Deny => Approval::Deny(note.filter(|n| !n.trim().is_empty())),
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

    fn pending(note_for: &str) -> (Pending, std::sync::mpsc::Receiver<Approval>) {
        let (reply, answers) = sync_channel(1);
        let pending = Pending {
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
            reply,
        };
        (pending, answers)
    }

    /// The live area as the session lays it out for a question: the proposed change, the
    /// prompt, and the status line at the bottom.
    fn draw(w: u16, h: u16, prompt: &Prompt) -> String {
        let theme = Theme::new(ColorLevel::Ansi16);
        let (pending, _answers) = pending("");
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
        let (p, _answers) = pending("");
        assert_eq!(
            Prompt::approval(Choice::Session, &p, None),
            Approval::Session("Edit(src/lib.rs)".into())
        );
        assert_eq!(
            Prompt::approval(Choice::Always, &p, None),
            Approval::Persist("Edit(src/lib.rs)".into())
        );
        assert_eq!(
            Prompt::approval(Choice::Deny, &p, Some("  ".into())),
            Approval::Deny(None)
        );
        assert_eq!(
            Prompt::approval(Choice::Deny, &p, Some("no".into())),
            Approval::Deny(Some("no".into()))
        );
    }

    #[test]
    fn the_approver_refuses_when_the_turn_is_cancelled() {
        let (to_ui, inbox) = std::sync::mpsc::channel();
        let turn = Arc::new(Mutex::new(CancelToken::new()));
        let approver = ChannelApprover::new(to_ui, turn.clone());
        let token = turn.lock().unwrap().clone();
        let asker = std::thread::spawn(move || {
            let call = reasonix_agent::permissions::Call {
                tool: "write_file",
                kind: reasonix_agent::permissions::ToolKind::FileWriter,
                read_only: false,
                args: &serde_json::json!({"path": "a"}),
                workspace: std::path::Path::new("/w"),
                reach: None,
                own_rules: false,
            };
            let verdict = reasonix_agent::permissions::Verdict {
                decision: Decision::Ask,
                source: Source::Fallback,
                exact_literal: false,
            };
            approver.approve(&ApprovalRequest {
                call_id: "c",
                call: &call,
                verdict: &verdict,
                scopes: &[],
                preview: &Preview::None,
            })
        });
        // The question arrives; nobody answers; the turn is cancelled.
        let Msg::Approval(question) = inbox.recv().unwrap() else {
            panic!("expected a question");
        };
        assert_eq!(question.tool, "write_file");
        token.cancel();
        assert!(matches!(asker.join().unwrap(), Approval::Deny(Some(_))));
    }
}
