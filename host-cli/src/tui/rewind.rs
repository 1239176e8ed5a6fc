//! `/rewind`, `/fork`, `/tree` and Esc Esc in the interactive session. Listing reads the
//! transcript and checkpoints from disk; rewinding, undoing and forking go to the agent's
//! thread, which holds the session.

use super::app::{App, Overlay};
use super::text::safe_line;
use super::turn_picker::{TurnPicker, TurnRow};
use ratatui::text::{Line, Span};
use reasonix_agent::agent_loop::Rewound;
use reasonix_agent::checkpoint::CheckpointStore;
use reasonix_agent::session::load;
use reasonix_protocol::Op;
use std::collections::BTreeMap;

/// The turn picker over this session's turns (their prompts, which ran shell commands).
pub fn list_turns(app: &mut App) {
    let transcript = app.actions.store.transcript(&app.status.session_id);
    let Ok(loaded) = load(&transcript) else {
        app.notice("nothing to rewind yet");
        return;
    };
    if loaded.timeline.turns.is_empty() {
        app.notice("nothing to rewind yet");
        return;
    }
    let shell: Vec<u32> = CheckpointStore::for_transcript(&transcript)
        .turns()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c.shell)
        .map(|c| c.turn)
        .collect();
    let rows = loaded
        .timeline
        .turns
        .iter()
        .map(|mark| TurnRow {
            turn: mark.turn,
            prompt: loaded
                .messages
                .get(mark.index)
                .map(|m| m.content.lines().next().unwrap_or_default().to_string())
                .unwrap_or_default(),
            ran_shell: shell.contains(&mark.turn),
        })
        .collect();
    app.overlay = Some(Overlay::Turns(TurnPicker::new(rows)));
}

/// `/rewind`, `/rewind N [scope]`, `/rewind undo`.
pub fn command(app: &mut App, args: &str) {
    if app.turn.is_some() {
        app.error("a turn is running: rewind when it has finished (Esc cancels it)");
        return;
    }
    let words: Vec<&str> = args.split_whitespace().collect();
    match words.as_slice() {
        [] => list_turns(app),
        ["undo"] => app.session.submit(Op::UndoRewind {}),
        [turn, rest @ ..] => {
            let Ok(turn) = turn.parse::<u32>() else {
                app.error("usage: /rewind N [code|conversation|both] | /rewind undo");
                return;
            };
            let (code, conversation) = match rest {
                [] | ["both"] => (true, true),
                ["code"] => (true, false),
                ["conversation"] => (false, true),
                _ => {
                    app.error("usage: /rewind N [code|conversation|both] | /rewind undo");
                    return;
                }
            };
            app.session.submit(Op::Rewind {
                turn,
                code,
                conversation,
            });
        }
    }
}

/// `/fork [N]`.
pub fn fork(app: &mut App, args: &str) {
    if app.turn.is_some() {
        app.error("a turn is running: fork when it has finished");
        return;
    }
    let turn = match args.trim() {
        "" => None,
        n => match n.parse::<u32>() {
            Ok(n) => Some(n),
            Err(_) => {
                app.error("usage: /fork [N]");
                return;
            }
        },
    };
    app.session.submit(Op::Fork { turn });
}

/// `/tree`: the sessions, forks under their parents.
pub fn tree(app: &mut App) {
    let sessions = match app.actions.store.list() {
        Ok(s) => s,
        Err(e) => return app.error(&format!("cannot list sessions: {e}")),
    };
    let ids: Vec<String> = sessions.iter().map(|s| s.id.clone()).collect();
    let mut children: BTreeMap<Option<String>, Vec<&reasonix_agent::session::Summary>> =
        BTreeMap::new();
    for s in &sessions {
        children
            .entry(s.parent.clone().filter(|p| ids.contains(p)))
            .or_default()
            .push(s);
    }
    let mut lines = Vec::new();
    tree_lines(&children, None, 0, &app.status.session_id, &mut lines);
    if lines.is_empty() {
        app.notice("no saved sessions in this workspace");
    } else {
        app.commit(lines);
    }
}

fn tree_lines(
    children: &BTreeMap<Option<String>, Vec<&reasonix_agent::session::Summary>>,
    parent: Option<String>,
    depth: usize,
    current: &str,
    out: &mut Vec<Line<'static>>,
) {
    for s in children.get(&parent).into_iter().flatten() {
        let marker = if s.id == current { "*" } else { " " };
        let mut line = format!("{marker} {}{}", "  ".repeat(depth), s.id);
        if let Some(turn) = s.parent_turn {
            line.push_str(&format!(" (before turn {turn})"));
        }
        line.push_str(&format!("  {}", safe_line(&s.title)));
        out.push(Line::from(line));
        // A session is its own ancestor only in a hand-edited store: the depth bound ends it.
        if depth < 64 {
            tree_lines(children, Some(s.id.clone()), depth + 1, current, out);
        }
    }
}

/// The worker did a rewind or its undo.
pub fn rewound(app: &mut App, done: Rewound) {
    let theme = app.theme;
    let mut lines = Vec::new();
    if let Some(files) = &done.files {
        let list = |paths: &[String]| {
            paths
                .iter()
                .map(|p| safe_line(p).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !files.restored.is_empty() {
            lines.push(format!("restored: {}", list(&files.restored)));
        }
        if !files.deleted.is_empty() {
            lines.push(format!("deleted: {}", list(&files.deleted)));
        }
        if files.restored.is_empty() && files.deleted.is_empty() {
            lines.push("no file needed restoring".to_string());
        }
        for failure in &files.failed {
            app.error(&format!("not restored: {}", safe_line(failure)));
        }
        if !files.shell_turns.is_empty() {
            let turns: Vec<String> = files.shell_turns.iter().map(u32::to_string).collect();
            app.notice(&format!(
                "turn {} ran shell commands: what they changed is not tracked and was not undone",
                turns.join(", ")
            ));
        }
    }
    lines.push(format!(
        "conversation: {} messages (/rewind undo takes this back)",
        done.history.len()
    ));
    app.commit(
        lines
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.dim()))),
    );
    app.has_messages = !done.history.is_empty();
    if let Some(prompt) = done.prompt {
        app.composer.set_text(&prompt);
    }
}
