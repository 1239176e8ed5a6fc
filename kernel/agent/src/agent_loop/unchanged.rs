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
pub(super) fn earlier_identical_result(
    history: &[Message],
    call: &ToolCall,
    output: &str,
) -> Option<String> {
    if output.len() < MIN_BYTES {
        return None;
    }
    let arguments = parse(&call.arguments);
    history
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.tool_calls.iter().rev())
        .filter(|earlier| {
            earlier.id != call.id
                && earlier.name == call.name
                && parse(&earlier.arguments) == arguments
        })
        .find(|earlier| {
            history.iter().any(|m| {
                m.role == Role::Tool
                    && m.tool_call_id.as_deref() == Some(earlier.id.as_str())
                    && m.content == output
            })
        })
        .map(|earlier| earlier.id.clone())
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
}
