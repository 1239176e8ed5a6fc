//! Repairs a stored history before it is sent again: every tool call of an assistant message
//! must be answered by a tool message right after it, and every tool message must answer a call
//! of the assistant message before it. A run killed between a call and its result leaves an
//! unanswered call, which providers reject; it gets a placeholder result saying so.

use crate::types::{Message, Role};

/// Text of the placeholder result for a call whose result was never recorded.
pub const INTERRUPTED: &str = "Interrupted: the run stopped before this call finished; its effect, if any, is unknown. Check before repeating it.";

/// Repair `history` in place; returns the placeholder messages it inserted (to record them).
pub fn repair_history(history: &mut Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(history.len());
    let mut inserted = Vec::new();
    let mut open: Vec<String> = Vec::new();
    for message in history.drain(..) {
        match message.role {
            Role::Tool => {
                let answers = message.tool_call_id.as_deref();
                // An orphan result (its call is gone) is dropped: providers reject it.
                if let Some(i) = answers.and_then(|id| open.iter().position(|o| o == id)) {
                    open.remove(i);
                    out.push(message);
                }
            }
            _ => {
                close(&mut open, &mut out, &mut inserted);
                if message.role == Role::Assistant {
                    open = message.tool_calls.iter().map(|c| c.id.clone()).collect();
                }
                out.push(message);
            }
        }
    }
    close(&mut open, &mut out, &mut inserted);
    *history = out;
    inserted
}

fn close(open: &mut Vec<String>, out: &mut Vec<Message>, inserted: &mut Vec<Message>) {
    for id in open.drain(..) {
        let placeholder = Message::tool_result(id, INTERRUPTED);
        inserted.push(placeholder.clone());
        out.push(placeholder);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ToolCall;

    fn msg(role: Role, content: &str) -> Message {
        Message {
            role,
            content: content.into(),
            reasoning: None,
            reasoning_state: None,
            tool_calls: vec![],
            tool_call_id: None,
            raw_content: None,
            images: Vec::new(),
        }
    }

    fn calls(ids: &[&str]) -> Message {
        Message {
            tool_calls: ids
                .iter()
                .map(|id| ToolCall {
                    id: (*id).into(),
                    name: "bash".into(),
                    arguments: "{}".into(),
                })
                .collect(),
            ..msg(Role::Assistant, "")
        }
    }

    fn result(id: &str) -> Message {
        Message {
            tool_call_id: Some(id.into()),
            ..msg(Role::Tool, "ok")
        }
    }

    #[test]
    fn a_complete_history_is_unchanged() {
        let mut h = vec![
            msg(Role::User, "go"),
            calls(&["a", "b"]),
            result("a"),
            result("b"),
            msg(Role::Assistant, "done"),
        ];
        let before = h.clone();
        assert!(repair_history(&mut h).is_empty());
        assert_eq!(h, before);
    }

    #[test]
    fn unanswered_calls_get_placeholders_and_orphans_go() {
        let mut h = vec![
            msg(Role::User, "go"),
            calls(&["a", "b"]),
            result("a"),
            result("zzz"),
            msg(Role::User, "again"),
            calls(&["c"]),
        ];
        let inserted = repair_history(&mut h);
        assert_eq!(inserted.len(), 2);
        let shape: Vec<(Role, Option<&str>)> = h
            .iter()
            .map(|m| (m.role, m.tool_call_id.as_deref()))
            .collect();
        assert_eq!(
            shape,
            [
                (Role::User, None),
                (Role::Assistant, None),
                (Role::Tool, Some("a")),
                (Role::Tool, Some("b")),
                (Role::User, None),
                (Role::Assistant, None),
                (Role::Tool, Some("c")),
            ]
        );
        assert_eq!(h[3].content, INTERRUPTED);
    }
}
