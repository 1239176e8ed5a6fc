//! A reader's result the model already has: said in a line instead of sent again.
//!
//! Models re-read files they read a few turns earlier (to check them before an edit, or out of
//! habit). When the same reader, called with the same arguments, returns exactly the text of an
//! earlier result that is still in the conversation, as it will be sent, that text is already in
//! the model's context: sending it again doubles its cost in every later request and brings
//! the next compaction closer. Claude Code answers such a re-read the same way. An earlier
//! result that compaction shortened or summarised away no longer matches, so the model is never
//! pointed at something it cannot see.

use crate::types::{Message, Role, ToolCall};
use serde_json::Value;

/// Results shorter than this are sent again: the note would save next to nothing.
const MIN_BYTES: usize = 512;

/// The id of an earlier call of the same tool with the same arguments whose result, as it
/// stands in `history`, is exactly `output`; `None` when there is none (or `output` is short).
/// Positions, not ids, tell calls apart: some servers number calls afresh every turn
/// (`call_0` each time), so an earlier call may share the current one's id.
pub(super) fn earlier_identical_result(
    history: &[Message],
    call: &ToolCall,
    output: &str,
) -> Option<String> {
    if output.len() < MIN_BYTES {
        return None;
    }
    let arguments = parse(&call.arguments);
    // The step that asked for this call: the last assistant message holding its id.
    let current = history
        .iter()
        .rposition(|m| m.role == Role::Assistant && m.tool_calls.iter().any(|c| c.id == call.id))
        .unwrap_or(history.len());
    for (at, message) in history[..current].iter().enumerate().rev() {
        if message.role != Role::Assistant {
            continue;
        }
        for earlier in message.tool_calls.iter().rev() {
            if earlier.name != call.name || parse(&earlier.arguments) != arguments {
                continue;
            }
            // Its result: the first tool message after it that answers its id.
            let result = history[at + 1..].iter().find(|m| {
                m.role == Role::Tool && m.tool_call_id.as_deref() == Some(earlier.id.as_str())
            });
            if result.is_some_and(|m| m.content == output) {
                return Some(earlier.id.clone());
            }
        }
    }
    None
}

/// What the model reads instead of the repeated text.
pub(super) fn note(tool: &str, earlier: &str, bytes: usize) -> String {
    format!(
        "Unchanged: `{tool}` with these arguments returned exactly what it returned for call `{earlier}`, which is still above ({bytes} bytes); use that result."
    )
}

fn parse(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn call(id: &str, args: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments: args.into(),
        }
    }

    fn asked(calls: Vec<ToolCall>) -> Message {
        Message {
            tool_calls: calls,
            ..Message::text(Role::Assistant, "")
        }
    }

    #[test]
    fn only_an_identical_result_still_in_the_conversation_counts() {
        let text = "x".repeat(600);
        let mut history = vec![
            asked(vec![call("a", r#"{"path":"f.txt"}"#)]),
            Message::tool_result("a", text.clone()),
            asked(vec![call("b", r#"{ "path": "f.txt" }"#)]),
        ];
        let again = call("b", r#"{ "path": "f.txt" }"#);
        assert_eq!(
            earlier_identical_result(&history, &again, &text),
            Some("a".to_string())
        );
        // A different result, different arguments, a short result: sent again.
        assert_eq!(
            earlier_identical_result(&history, &again, &"y".repeat(600)),
            None
        );
        let other = call("b", r#"{"path":"f.txt","offset":2}"#);
        assert_eq!(earlier_identical_result(&history, &other, &text), None);
        assert_eq!(earlier_identical_result(&history, &again, "short"), None);
        // Compaction shortened the earlier result: it is not what the model sees any more.
        history[1].content = "[result snipped]".into();
        assert_eq!(earlier_identical_result(&history, &again, &text), None);
    }

    #[test]
    fn calls_that_reuse_an_id_every_turn_are_told_apart_by_position() {
        let text = "x".repeat(600);
        let history = vec![
            asked(vec![call("call_0", r#"{"path":"f.txt"}"#)]),
            Message::tool_result("call_0", text.clone()),
            asked(vec![call("call_0", r#"{"path":"f.txt"}"#)]),
        ];
        let again = call("call_0", r#"{"path":"f.txt"}"#);
        assert_eq!(
            earlier_identical_result(&history, &again, &text),
            Some("call_0".to_string())
        );
        // The first call of all has nothing before it.
        assert_eq!(earlier_identical_result(&history[..1], &again, &text), None);
    }
}
