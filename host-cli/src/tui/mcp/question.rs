//! The question asked when the project's files name MCP servers the user has not approved:
//! start them for this session (y), always for this `.mcp.json` as it is now (a), or leave
//! them stopped (n). Same look as the tool approval prompt.

use super::listing::origin_label;
use crate::tui::text::safe_line;
use crate::tui::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_config::mcp::SourceKind;
use reasonix_i18n::t;
use reasonix_mcp::{ServerState, ServerStatus};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Session,
    Always,
    No,
}

pub const ANSWERS: [Answer; 3] = [Answer::Session, Answer::Always, Answer::No];

/// A server waiting for approval, as the question shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    pub name: String,
    /// The full command line or URL.
    pub transport: String,
    pub file: String,
    /// Where the file is, in words ([`origin_label`]).
    pub origin: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub servers: Vec<Waiting>,
    pub selected: usize,
    /// `a` was pressed once: a permanent approval takes a second deliberate key.
    pub confirm_always: bool,
}

impl Question {
    /// The question for the servers that wait for approval; `None` when none does.
    pub fn for_statuses(statuses: &[ServerStatus]) -> Option<Question> {
        let servers: Vec<Waiting> = statuses
            .iter()
            // A project `reasonix.toml`'s servers follow workspace trust, not this question.
            .filter(|s| {
                s.state == ServerState::NotApproved && s.origin.kind == SourceKind::ProjectMcpJson
            })
            .map(|s| Waiting {
                name: s.name.clone(),
                transport: s.transport.clone(),
                file: s.origin.file.display().to_string(),
                origin: origin_label(s.origin.kind),
            })
            .collect();
        (!servers.is_empty()).then_some(Question {
            servers,
            selected: 0,
            confirm_always: false,
        })
    }

    pub fn lines(&self, theme: Theme) -> Vec<Line<'static>> {
        let count = self.servers.len();
        let mut lines = vec![Line::from(vec![
            Span::styled(
                format!("{}  ", t!("mcp-question-title", count = count)),
                theme.warning(),
            ),
            Span::styled(t!("mcp-question-warning"), theme.dim()),
        ])];
        let mut files: Vec<(&str, &str)> = Vec::new();
        for server in &self.servers {
            lines.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(safe_line(&server.name).into_owned(), theme.heading()),
                Span::raw("  "),
                Span::styled(safe_line(&server.transport).into_owned(), theme.plain()),
            ]));
            let file = (server.file.as_str(), server.origin.as_str());
            if !files.contains(&file) {
                files.push(file);
            }
        }
        for (file, origin) in files {
            lines.push(Line::from(Span::styled(
                format!(
                    "  {}",
                    t!(
                        "mcp-from",
                        file = safe_line(file).into_owned(),
                        origin = origin
                    )
                ),
                theme.dim(),
            )));
        }
        let labels = [
            t!("mcp-question-session"),
            t!("mcp-question-always"),
            t!("mcp-question-no"),
        ];
        for (i, label) in labels.into_iter().enumerate() {
            let (style, marker) = if i == self.selected {
                (theme.selected(), "› ")
            } else {
                (theme.plain(), "  ")
            };
            lines.push(Line::from(Span::styled(format!("{marker}{label}"), style)));
        }
        if self.confirm_always {
            lines.push(Line::from(Span::styled(
                t!("mcp-question-confirm-always"),
                theme.warning(),
            )));
        }
        lines
    }
}
