//! `--output-format stream-json`: Claude Code's line shapes (schema 2), projected from the
//! session protocol's events. Messages become `assistant` / `user` lines with content blocks;
//! a tool's result is a `user` line with a `tool_result` block. Reasonix-only events keep
//! their schema-1 `type`s (`turn`, `text`, `reasoning`, `tool_use`, `usage`, `retry`,
//! `notice`), which a Claude Code consumer ignores.

use super::input;
use super::v1::Line;
use reasonix_protocol::{Event, EventKind};
use serde_json::{Value, json};

/// The version of the `stream-json` schema (Claude Code's shapes), on its first line.
pub const SCHEMA_VERSION: u32 = 2;

/// The line for a protocol event; `None` for events it does not carry. `model` names the
/// model in `assistant` lines.
pub fn line(event: &Event, model: &str) -> Option<Value> {
    match &event.kind {
        EventKind::SessionStarted {
            permission_mode, ..
        } => {
            let mut value = json!({
                "type": "system",
                "subtype": "init",
                "schema_version": SCHEMA_VERSION,
                "permissionMode": permission_mode,
            });
            // The schema-1 init fields, under the same names.
            if let (Some(map), Some(Line::System { init, .. })) =
                (value.as_object_mut(), Line::of(event))
                && let Ok(Value::Object(fields)) = serde_json::to_value(&init)
            {
                map.extend(fields);
            }
            Some(value)
        }
        EventKind::UserMessage { text, .. } => Some(json!({
            "type": "user",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": null,
        })),
        EventKind::AssistantMessage {
            text,
            reasoning,
            tool_calls,
        } => {
            let mut content = Vec::new();
            if let Some(thinking) = reasoning.as_deref().filter(|t| !t.is_empty()) {
                content.push(json!({"type": "thinking", "thinking": thinking}));
            }
            if !text.is_empty() {
                content.push(json!({"type": "text", "text": text}));
            }
            for call in tool_calls {
                content.push(json!({
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": input(&call.arguments),
                }));
            }
            Some(json!({
                "type": "assistant",
                "message": {
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": content,
                },
                "parent_tool_use_id": null,
            }))
        }
        EventKind::ToolFinished {
            call_id,
            name,
            is_error,
            output,
            duration_ms,
        } => Some(json!({
            "type": "user",
            "message": {
                "role": "user",
                "content": [{
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": output,
                    "is_error": is_error,
                    "name": name,
                    "duration_ms": duration_ms,
                }],
            },
            "parent_tool_use_id": null,
        })),
        _ => Line::of(event).and_then(|line| serde_json::to_value(line).ok()),
    }
}

/// A sub-agent's line: its messages only, as Claude Code writes them, marked with the `task`
/// call that started it (`parent_tool_use_id`); the rest of its events are not carried (a
/// consumer joining `text` lines into the answer must not read a child's text as the
/// parent's).
pub fn child_line(event: &Event, model: &str, parent_tool_use_id: &str) -> Option<Value> {
    if !matches!(
        event.kind,
        EventKind::UserMessage { .. }
            | EventKind::AssistantMessage { .. }
            | EventKind::ToolFinished { .. }
    ) {
        return None;
    }
    let mut value = line(event, model)?;
    if let Some(map) = value.as_object_mut() {
        map.insert("parent_tool_use_id".into(), json!(parent_tool_use_id));
    }
    Some(value)
}
