//! `/mcp`: every configured server with its transport, state, origin file and restarts.

use crate::tui::text::safe_line;
use crate::tui::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_config::mcp::SourceKind;
use reasonix_i18n::t;
use reasonix_mcp::{ServerState, ServerStatus};

/// Lines of a failed server's stderr shown at most.
pub const STDERR_LINES: usize = 5;

pub fn origin_label(kind: SourceKind) -> String {
    match kind {
        SourceKind::LocalMcpJson => t!("mcp-origin-local"),
        SourceKind::ProjectToml => t!("mcp-origin-project-toml"),
        SourceKind::ProjectMcpJson => t!("mcp-origin-project-mcp-json"),
        SourceKind::UserToml => t!("mcp-origin-user-toml"),
        SourceKind::UserMcpJson => t!("mcp-origin-user-mcp-json"),
        SourceKind::Package => t!("mcp-origin-package"),
    }
}

/// The last non-empty lines of a stderr tail.
pub fn stderr_tail(stderr: &str, lines: usize) -> Vec<&str> {
    let all: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].to_vec()
}

/// What state a server is in, in a few words.
pub fn state_text(status: &ServerStatus) -> String {
    match &status.state {
        ServerState::Disabled => t!("mcp-state-disabled"),
        // A project `reasonix.toml` follows workspace trust; only `.mcp.json` is approved here.
        ServerState::NotApproved if status.origin.kind == SourceKind::ProjectToml => {
            t!("mcp-state-untrusted")
        }
        ServerState::NotApproved => t!("mcp-state-not-approved"),
        ServerState::Starting => t!("mcp-state-starting"),
        ServerState::Ready {
            tools,
            prompts,
            resources,
        } => t!(
            "mcp-state-ready",
            tools = *tools,
            prompts = *prompts,
            resources = *resources
        ),
        ServerState::Failed { reason, .. } => t!("mcp-state-failed", reason = reason.as_str()),
    }
}

pub fn lines(statuses: &[ServerStatus], theme: Theme) -> Vec<Line<'static>> {
    if statuses.is_empty() {
        return vec![Line::from(Span::styled(
            t!("mcp-none-configured"),
            theme.dim(),
        ))];
    }
    let ready = statuses
        .iter()
        .filter(|s| matches!(s.state, ServerState::Ready { .. }))
        .count();
    let mut out = vec![Line::from(Span::styled(
        t!("mcp-heading", ready = ready, total = statuses.len()),
        theme.heading(),
    ))];
    for status in statuses {
        let state_style = match status.state {
            ServerState::Ready { .. } => theme.success(),
            ServerState::Failed { .. } => theme.error(),
            ServerState::NotApproved => theme.warning(),
            ServerState::Starting | ServerState::Disabled => theme.dim(),
        };
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(safe_line(&status.name).into_owned(), theme.accent()),
            Span::raw("  "),
            Span::styled(safe_line(&state_text(status)).into_owned(), state_style),
        ]));
        out.push(Line::from(Span::styled(
            format!("      {}", safe_line(&status.transport)),
            theme.plain(),
        )));
        let restarts = match status.restarts {
            0 => String::new(),
            n => t!("mcp-restarted", count = n),
        };
        out.push(Line::from(Span::styled(
            format!(
                "      {}{restarts}",
                t!(
                    "mcp-from",
                    file = safe_line(&status.origin.file.display().to_string()).into_owned(),
                    origin = origin_label(status.origin.kind)
                )
            ),
            theme.dim(),
        )));
        if let ServerState::Failed { stderr, .. } = &status.state {
            for line in stderr_tail(stderr, STDERR_LINES) {
                out.push(Line::from(Span::styled(
                    format!("      │ {}", safe_line(line)),
                    theme.dim(),
                )));
            }
        }
    }
    out.push(Line::from(Span::styled(
        t!("mcp-reconnect-hint"),
        theme.dim(),
    )));
    out
}
