//! `/mcp`: every configured server with its transport, state, origin file and restarts.

use crate::tui::text::safe_line;
use crate::tui::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_config::mcp::SourceKind;
use reasonix_mcp::{ServerState, ServerStatus};

/// Lines of a failed server's stderr shown at most.
pub const STDERR_LINES: usize = 5;

pub fn origin_label(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::LocalMcpJson => "local (user mcp.json, this workspace)",
        SourceKind::ProjectToml => "project reasonix.toml",
        SourceKind::ProjectMcpJson => "project .mcp.json",
        SourceKind::UserToml => "user config.toml",
        SourceKind::UserMcpJson => "user mcp.json",
        SourceKind::Package => "installed package",
    }
}

/// The last non-empty lines of a stderr tail.
pub fn stderr_tail(stderr: &str, lines: usize) -> Vec<&str> {
    let all: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].to_vec()
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// What state a server is in, in a few words.
pub fn state_text(status: &ServerStatus) -> String {
    match &status.state {
        ServerState::Disabled => "disabled".into(),
        // A project `reasonix.toml` follows workspace trust; only `.mcp.json` is approved here.
        ServerState::NotApproved if status.origin.kind == SourceKind::ProjectToml => {
            "not started: the workspace is not trusted (`reasonix trust`)".into()
        }
        ServerState::NotApproved => "not approved (/mcp approve)".into(),
        ServerState::Starting => "starting…".into(),
        ServerState::Ready {
            tools,
            prompts,
            resources,
        } => format!(
            "ready · {} · {} · {}",
            plural(*tools, "tool"),
            plural(*prompts, "prompt"),
            plural(*resources, "resource")
        ),
        ServerState::Failed { reason, .. } => format!("failed: {reason}"),
    }
}

pub fn lines(statuses: &[ServerStatus], theme: Theme) -> Vec<Line<'static>> {
    if statuses.is_empty() {
        return vec![Line::from(Span::styled(
            "no MCP servers configured (add one with `reasonix mcp add`, or in .mcp.json)",
            theme.dim(),
        ))];
    }
    let ready = statuses
        .iter()
        .filter(|s| matches!(s.state, ServerState::Ready { .. }))
        .count();
    let mut out = vec![Line::from(Span::styled(
        format!("MCP servers: {ready} of {} ready", statuses.len()),
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
            n => format!(" · restarted {}", plural(n as usize, "time")),
        };
        out.push(Line::from(Span::styled(
            format!(
                "      from {} ({}){restarts}",
                safe_line(&status.origin.file.display().to_string()),
                origin_label(status.origin.kind)
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
        "/mcp reconnect <name> starts a server again",
        theme.dim(),
    )));
    out
}
