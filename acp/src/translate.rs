//! The session protocol's events ([`reasonix_protocol::EventKind`]) as ACP `session/update`s:
//! streamed text and reasoning as message and thought chunks, tool calls with their kind,
//! locations and diffs, and `todo_write`'s list as the plan. Pure: the same event always gives
//! the same updates, so this is tested without a connection.

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Diff, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    SessionUpdate, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind,
};
use reasonix_protocol::{EventKind, FileChange};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A tool's output is cut to this many bytes in the editor (the model gets all of it).
pub const MAX_SHOWN_OUTPUT: usize = 16 * 1024;

/// The updates `event` makes, for a session whose workspace is `cwd`.
pub fn updates(event: &EventKind, cwd: &Path) -> Vec<SessionUpdate> {
    match event {
        EventKind::TextDelta { text } => vec![SessionUpdate::AgentMessageChunk(chunk(text))],
        EventKind::ReasoningDelta { text } => vec![SessionUpdate::AgentThoughtChunk(chunk(text))],
        EventKind::AssistantMessage { tool_calls, .. } => tool_calls
            .iter()
            .map(|call| {
                SessionUpdate::ToolCall(tool_call(&call.id, &call.name, &call.arguments, cwd))
            })
            .collect(),
        EventKind::ToolPreview { call_id, changes } => vec![update(
            call_id,
            ToolCallUpdateFields::new().content(diffs(changes, cwd)),
        )],
        EventKind::ToolStarted {
            call_id,
            name,
            arguments,
        } => {
            let mut out = vec![update(
                call_id,
                ToolCallUpdateFields::new().status(ToolCallStatus::InProgress),
            )];
            if name == "todo_write"
                && let Some(plan) = plan(arguments)
            {
                out.push(SessionUpdate::Plan(plan));
            }
            out
        }
        EventKind::ToolFinished {
            call_id,
            is_error,
            output,
            ..
        } => vec![update(
            call_id,
            ToolCallUpdateFields::new()
                .status(if *is_error {
                    ToolCallStatus::Failed
                } else {
                    ToolCallStatus::Completed
                })
                .content(vec![ToolCallContent::from(shown_output(output))]),
        )],
        EventKind::PermissionDenied {
            call_id, reason, ..
        } => vec![update(
            call_id,
            ToolCallUpdateFields::new()
                .status(ToolCallStatus::Failed)
                .content(vec![ToolCallContent::from(reason.clone())]),
        )],
        EventKind::Retry {
            provider,
            attempt,
            max_retries,
            delay_ms,
            reason,
        } => vec![SessionUpdate::AgentThoughtChunk(chunk(&format!(
            "\n[{provider}: {reason}; retry {attempt} of {max_retries} in {:.1} s]\n",
            *delay_ms as f64 / 1000.0
        )))],
        EventKind::Notice { text } => {
            vec![SessionUpdate::AgentThoughtChunk(chunk(&format!(
                "\n[{text}]\n"
            )))]
        }
        _ => Vec::new(),
    }
}

fn chunk(text: &str) -> ContentChunk {
    ContentChunk::new(ContentBlock::from(text.to_string()))
}

fn update(call_id: &str, fields: ToolCallUpdateFields) -> SessionUpdate {
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(call_id.to_string(), fields))
}

/// A tool call as the editor first shows it: pending, with its kind, a title, the files it
/// touches and its arguments.
pub fn tool_call(id: &str, name: &str, arguments: &str, cwd: &Path) -> ToolCall {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let mut call = ToolCall::new(id.to_string(), title(name, &args))
        .kind(kind(name))
        .status(ToolCallStatus::Pending)
        .raw_input(args.clone());
    let locations: Vec<ToolCallLocation> = paths(&args)
        .into_iter()
        .map(|p| ToolCallLocation::new(absolute(&p, cwd)))
        .collect();
    if !locations.is_empty() {
        call = call.locations(locations);
    }
    call
}

/// What the editor groups a tool under (its icon, its permission wording).
pub fn kind(name: &str) -> ToolKind {
    match name {
        "read_file" | "ls" | "bash_output" => ToolKind::Read,
        "write_file" | "edit_file" | "multi_edit" | "notebook_edit" | "delete_range" => {
            ToolKind::Edit
        }
        "move_file" => ToolKind::Move,
        "bash" | "kill_shell" => ToolKind::Execute,
        "grep" | "glob" | "history" | "web_search" => ToolKind::Search,
        "web_fetch" => ToolKind::Fetch,
        "exit_plan_mode" => ToolKind::SwitchMode,
        "todo_write" | "wait" => ToolKind::Think,
        _ => ToolKind::Other,
    }
}

/// `name` and what it acts on: `bash: cargo test`, `read_file src/main.rs`.
fn title(name: &str, args: &Value) -> String {
    const SUBJECTS: [&str; 6] = ["command", "path", "file_path", "pattern", "url", "query"];
    let subject = SUBJECTS
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .map(|s| one_line(s, 120));
    match (name, subject) {
        ("bash", Some(command)) => format!("bash: {command}"),
        (_, Some(subject)) => format!("{name} {subject}"),
        (_, None) => name.to_string(),
    }
}

fn one_line(text: &str, max_chars: usize) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if line.chars().count() > max_chars {
        let cut: String = line.chars().take(max_chars).collect();
        format!("{cut}…")
    } else {
        line
    }
}

/// The file paths a call's arguments name.
fn paths(args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["path", "file_path", "source", "destination"] {
        if let Some(p) = args.get(key).and_then(Value::as_str)
            && !p.is_empty()
        {
            out.push(p.to_string());
        }
    }
    out
}

fn absolute(path: &str, cwd: &Path) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

fn diffs(changes: &[FileChange], cwd: &Path) -> Vec<ToolCallContent> {
    changes
        .iter()
        .map(|c| {
            let new_text = c.new_text.clone().unwrap_or_default();
            let mut diff = Diff::new(absolute(&c.path, cwd), new_text);
            if let Some(old) = &c.old_text {
                diff = diff.old_text(old.clone());
            }
            ToolCallContent::Diff(diff)
        })
        .collect()
}

/// The diffs of a question's preview, for the permission request.
pub fn question_diffs(changes: Option<&[FileChange]>, cwd: &Path) -> Vec<ToolCallContent> {
    changes.map(|c| diffs(c, cwd)).unwrap_or_default()
}

fn shown_output(output: &str) -> String {
    if output.len() <= MAX_SHOWN_OUTPUT {
        return output.to_string();
    }
    let mut end = MAX_SHOWN_OUTPUT;
    while !output.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n… ({} more bytes the model received)",
        &output[..end],
        output.len() - end
    )
}

/// `todo_write`'s list as the plan: every item, in order, with its status.
fn plan(arguments: &str) -> Option<Plan> {
    let args: Value = serde_json::from_str(arguments).ok()?;
    let entries = args
        .get("todos")?
        .as_array()?
        .iter()
        .filter_map(|todo| {
            let content = todo.get("content")?.as_str()?.to_string();
            let status = match todo.get("status").and_then(Value::as_str) {
                Some("completed") => PlanEntryStatus::Completed,
                Some("in_progress") => PlanEntryStatus::InProgress,
                _ => PlanEntryStatus::Pending,
            };
            Some(PlanEntry::new(content, PlanEntryPriority::Medium, status))
        })
        .collect();
    Some(Plan::new(entries))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn wire(update: &SessionUpdate) -> Value {
        serde_json::to_value(update).unwrap()
    }

    #[test]
    fn text_and_reasoning_stream_as_chunks() {
        let cwd = Path::new("/ws");
        let text = updates(&EventKind::TextDelta { text: "Hi".into() }, cwd);
        assert_eq!(wire(&text[0])["sessionUpdate"], "agent_message_chunk");
        assert_eq!(wire(&text[0])["content"]["text"], "Hi");
        let thought = updates(&EventKind::ReasoningDelta { text: "hm".into() }, cwd);
        assert_eq!(wire(&thought[0])["sessionUpdate"], "agent_thought_chunk");
    }

    #[test]
    fn a_call_has_its_kind_title_and_absolute_location_then_a_diff_then_its_end() {
        let cwd = Path::new("/ws");
        let message = EventKind::AssistantMessage {
            text: String::new(),
            reasoning: None,
            tool_calls: vec![reasonix_protocol::ToolCall {
                id: "c1".into(),
                name: "write_file".into(),
                arguments: r#"{"path":"src/a.rs","content":"x"}"#.into(),
            }],
        };
        let call = wire(&updates(&message, cwd)[0]);
        assert_eq!(call["sessionUpdate"], "tool_call");
        assert_eq!(call["toolCallId"], "c1");
        assert_eq!(call["kind"], "edit");
        assert_eq!(call["title"], "write_file src/a.rs");
        assert_eq!(call["locations"][0]["path"], "/ws/src/a.rs");
        let preview = EventKind::ToolPreview {
            call_id: "c1".into(),
            changes: vec![FileChange {
                path: "src/a.rs".into(),
                kind: "modify".into(),
                old_text: Some("a".into()),
                new_text: Some("x".into()),
            }],
        };
        let diff = wire(&updates(&preview, cwd)[0]);
        assert_eq!(diff["content"][0]["type"], "diff");
        assert_eq!(diff["content"][0]["oldText"], "a");
        assert_eq!(diff["content"][0]["newText"], "x");
        let done = EventKind::ToolFinished {
            call_id: "c1".into(),
            name: "write_file".into(),
            is_error: true,
            output: "y".repeat(MAX_SHOWN_OUTPUT + 10),
            duration_ms: 1,
        };
        let done = wire(&updates(&done, cwd)[0]);
        assert_eq!(done["status"], "failed");
        let text = done["content"][0]["content"]["text"].as_str().unwrap();
        assert!(
            text.ends_with("(10 more bytes the model received)"),
            "{text}"
        );
    }

    #[test]
    fn todo_write_is_the_plan_and_titles_stay_on_one_line() {
        let started = EventKind::ToolStarted {
            call_id: "t".into(),
            name: "todo_write".into(),
            arguments: r#"{"todos":[{"content":"Plan","status":"completed"},{"content":"Build","status":"in_progress"},{"content":"Ship","status":"pending"}]}"#.into(),
        };
        let out = updates(&started, Path::new("/ws"));
        let plan = wire(&out[1]);
        assert_eq!(plan["sessionUpdate"], "plan");
        let statuses: Vec<&str> = plan["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["completed", "in_progress", "pending"]);
        let call = tool_call(
            "b",
            "bash",
            r#"{"command":"echo a\nrm -rf x"}"#,
            Path::new("/ws"),
        );
        let call = serde_json::to_value(&call).unwrap();
        assert_eq!(call["title"], "bash: echo a rm -rf x");
        assert_eq!(call["kind"], "execute");
    }
}
