//! `/rewind`, `/fork`, `/tree` and Esc Esc in the interactive session. Listing reads the
//! transcript and checkpoints from disk; rewinding, undoing and forking go to the agent's
//! thread, which holds the session.

use super::app::{App, Overlay};
use super::effect::{Effect, Effects};
use super::text::safe_line;
use super::theme::Theme;
use super::turn_picker::{TurnPicker, TurnRow};
use ratatui::text::{Line, Span};
use reasonix_agent::agent_loop::Rewound;
use reasonix_agent::checkpoint::CheckpointStore;
use reasonix_agent::session::load;
use reasonix_i18n::t;
use reasonix_protocol::Op;
use std::collections::BTreeMap;

/// The turn picker over this session's turns (their prompts, which ran shell commands).
pub fn list_turns(app: &App) -> Effects {
    let transcript = app.actions.store.transcript(&app.status.session_id);
    let nothing = || Effect::Notice(t!("rewind-nothing")).into();
    let Ok(loaded) = load(&transcript) else {
        return nothing();
    };
    if loaded.timeline.turns.is_empty() {
        return nothing();
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
    Effect::Open(Overlay::Turns(TurnPicker::new(rows))).into()
}

/// `/rewind`, `/rewind N [scope]`, `/rewind undo`.
pub fn command(app: &App, args: &str) -> Effects {
    if app.turn.is_some() {
        return Effect::Error(t!("rewind-busy")).into();
    }
    let usage = || Effect::Error(t!("rewind-usage"));
    let words: Vec<&str> = args.split_whitespace().collect();
    match words.as_slice() {
        [] => list_turns(app),
        ["undo"] => Effect::Submit(Op::UndoRewind {}).into(),
        [turn, rest @ ..] => {
            let Ok(turn) = turn.parse::<u32>() else {
                return usage().into();
            };
            let (code, conversation) = match rest {
                [] | ["both"] => (true, true),
                ["code"] => (true, false),
                ["conversation"] => (false, true),
                _ => return usage().into(),
            };
            Effect::Submit(Op::Rewind {
                turn,
                code,
                conversation,
            })
            .into()
        }
    }
}

/// `/fork [N]`.
pub fn fork(app: &App, args: &str) -> Effects {
    if app.turn.is_some() {
        return Effect::Error(t!("rewind-fork-busy")).into();
    }
    let turn = match args.trim() {
        "" => None,
        n => match n.parse::<u32>() {
            Ok(n) => Some(n),
            Err(_) => return Effect::Error(t!("rewind-fork-usage")).into(),
        },
    };
    Effect::Submit(Op::Fork { turn }).into()
}

/// `/tree`: the sessions, forks under their parents.
pub fn tree(app: &App) -> Effects {
    let sessions = match app.actions.store.list() {
        Ok(s) => s,
        Err(e) => {
            return Effect::Error(t!("rewind-tree-error", error = e.to_string())).into();
        }
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
        Effect::Notice(t!("rewind-tree-empty")).into()
    } else {
        Effect::Commit(lines).into()
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
            line.push_str(&t!("rewind-tree-before-turn", turn = turn));
        }
        line.push_str(&format!("  {}", safe_line(&s.title)));
        out.push(Line::from(line));
        // A session is its own ancestor only in a hand-edited store: the depth bound ends it.
        if depth < 64 {
            tree_lines(children, Some(s.id.clone()), depth + 1, current, out);
        }
    }
}

/// What the screen shows of a rewind or its undo the session did.
pub fn rewound(theme: Theme, done: Rewound) -> Effects {
    let mut out = Effects::default();
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
            lines.push(t!("rewind-restored", files = list(&files.restored)));
        }
        if !files.deleted.is_empty() {
            lines.push(t!("rewind-deleted", files = list(&files.deleted)));
        }
        if files.restored.is_empty() && files.deleted.is_empty() {
            lines.push(t!("rewind-nothing-restored"));
        }
        for failure in &files.failed {
            out.error(t!(
                "rewind-not-restored",
                file = safe_line(failure).into_owned()
            ));
        }
        if !files.shell_turns.is_empty() {
            let turns: Vec<String> = files.shell_turns.iter().map(u32::to_string).collect();
            out.notice(t!("rewind-shell-turns", turns = turns.join(", ")));
        }
    }
    lines.push(t!("rewind-conversation", count = done.history.len()));
    out.commit(
        lines
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.dim()))),
    );
    out.push(Effect::HasMessages(!done.history.is_empty()));
    if let Some(prompt) = done.prompt {
        out.push(Effect::Compose(prompt));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorLevel;
    use reasonix_agent::rewind::RestoreReport;
    use reasonix_core::types::{Message, Role};

    fn text(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    /// What the screen makes of a rewind is a list a test reads: what failed first, what was
    /// restored, the conversation's size, and the prompt back in the composer.
    #[test]
    fn a_rewind_says_what_it_restored_and_gives_the_prompt_back() {
        let done = Rewound {
            files: Some(RestoreReport {
                restored: vec!["src/a.rs".into()],
                deleted: vec!["new.txt".into()],
                failed: vec!["locked.txt: permission denied".into()],
                shell_turns: vec![2],
                untracked: Vec::new(),
            }),
            prompt: Some("fix the \u{1b}[31mbug".into()),
            history: vec![Message::text(Role::User, "hi")],
        };
        let effects = rewound(Theme::new(ColorLevel::None), done);
        let list = effects.list();
        assert!(
            matches!(&list[0], Effect::Error(e) if e == "not restored: locked.txt: permission denied")
        );
        assert!(
            matches!(&list[1], Effect::Notice(n) if n.starts_with("turn 2 ran shell commands"))
        );
        let Effect::Commit(lines) = &list[2] else {
            panic!("the third effect commits the report");
        };
        let lines: Vec<String> = lines.iter().map(text).collect();
        assert_eq!(
            lines,
            [
                "restored: src/a.rs",
                "deleted: new.txt",
                "conversation: 1 messages (/rewind undo takes this back)"
            ]
        );
        assert!(matches!(list[3], Effect::HasMessages(true)));
        // The composer gets the prompt as it was; it is drawn escaped like any typed text.
        assert!(matches!(&list[4], Effect::Compose(p) if p == "fix the \u{1b}[31mbug"));
        assert_eq!(list.len(), 5);
    }

    #[test]
    fn an_undone_conversation_leaves_the_composer_alone() {
        let done = Rewound {
            files: None,
            prompt: None,
            history: Vec::new(),
        };
        let effects = rewound(Theme::new(ColorLevel::None), done);
        let list = effects.list();
        assert!(matches!(list[1], Effect::HasMessages(false)));
        assert_eq!(list.len(), 2);
    }
}
