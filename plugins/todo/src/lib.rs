//! The built-in `todo` component: `todo_write`, the task list the model keeps visible to the
//! user. The full list replaces the previous one on every call; this component validates it
//! and renders it. Rules that need the previous list (a completed prefix may not be reordered
//! or removed; completion needs a receipt) belong to the agent session, which owns that state.
#![forbid(unsafe_code)]

use reasonix_sdk::{CallContext, Error, Plugin, PluginInfo, Tool, ToolSet};
use schemars::JsonSchema;
use serde::Deserialize;

pub const TOOL: &str = "todo_write";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Todo {
    /// What needs doing, imperative ("Run the tests").
    pub content: String,
    /// Where the item stands.
    pub status: Status,
    /// Present continuous form shown while in progress ("Running the tests").
    #[serde(default, rename = "activeForm")]
    pub active_form: Option<String>,
    /// 0 = phase (default), 1 = sub-step of the preceding phase.
    // The schema offers the two valid levels rather than u8's 0..=255; `validate` explains
    // any other.
    #[serde(default)]
    #[schemars(with = "Option<i64>", extend("enum" = [0, 1]))]
    pub level: Option<u8>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The complete task list, in order.
    todos: Vec<Todo>,
}

/// The `todo_write` tool: validates the list and renders it.
pub struct TodoWrite;

impl Tool for TodoWrite {
    const NAME: &'static str = TOOL;
    const READ_ONLY: bool = true;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/todo_write.json"));

    fn description() -> String {
        "Replace the task list shown to the user with `todos` (the full list, every call). Use it for work with several steps: mark exactly one item `in_progress` while you work on it and `completed` as soon as it is done. `level` 0 is a phase, 1 a sub-step of the phase above it. Returns the rendered list.".into()
    }

    fn guidance() -> Option<String> {
        Some(
            "For a task with several steps, keep a short plan with `todo_write` and update it as \
             you go."
                .into(),
        )
    }

    fn run(args: Args, _cx: &CallContext) -> Result<String, Error> {
        validate(&args.todos)?;
        Ok(render(&args.todos))
    }
}

fn validate(todos: &[Todo]) -> Result<(), Error> {
    let invalid = |m: String| Err(Error::InvalidInput(format!("{TOOL}: {m}")));
    let current = todos
        .iter()
        .filter(|t| t.status == Status::InProgress)
        .count();
    if current > 1 {
        return invalid(format!(
            "{current} items are in_progress; keep exactly one item in progress at a time"
        ));
    }
    for (i, todo) in todos.iter().enumerate() {
        if todo.content.trim().is_empty() {
            return invalid(format!("todos[{i}].content is empty"));
        }
        match todo.level.unwrap_or(0) {
            0 => {}
            1 if i > 0 => {}
            1 => return invalid("todos[0] is a sub-step (level 1) with no phase before it".into()),
            other => {
                return invalid(format!(
                    "todos[{i}].level is {other}; use 0 (phase) or 1 (sub-step)"
                ));
            }
        }
    }
    Ok(())
}

fn render(todos: &[Todo]) -> String {
    if todos.is_empty() {
        return "Todo list cleared.".to_string();
    }
    let done = todos
        .iter()
        .filter(|t| t.status == Status::Completed)
        .count();
    let mut out = format!("Todo list ({done}/{} done):", todos.len());
    for todo in todos {
        let indent = if todo.level == Some(1) { "  " } else { "" };
        let (mark, text) = match todo.status {
            Status::Completed => ("[x]", todo.content.as_str()),
            Status::Pending => ("[ ]", todo.content.as_str()),
            Status::InProgress => ("[>]", todo.active_form.as_deref().unwrap_or(&todo.content)),
        };
        out.push_str(&format!("\n{indent}{mark} {text}"));
    }
    out
}

/// The component.
pub struct Todos;

impl Plugin for Todos {
    fn info() -> PluginInfo {
        reasonix_sdk::plugin_info("todo", "0.1.0", "Built-in task list tool: todo_write")
    }

    fn tools() -> ToolSet {
        ToolSet::new().with::<TodoWrite>()
    }
}

reasonix_sdk::export!(Todos);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_schemas_match_the_argument_types() {
        Todos::tools()
            .check_pinned_schemas(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas"))
            .unwrap();
    }

    fn todo_write(arguments: &str) -> Result<String, Error> {
        let cx = CallContext {
            call_id: "c".into(),
            workspace: "/".into(),
        };
        Todos::tools().invoke(TOOL, arguments, &cx)
    }

    fn err(args: &str) -> String {
        match todo_write(args) {
            Err(Error::InvalidInput(m)) => m,
            other => panic!("expected invalid input, got {other:?}"),
        }
    }

    #[test]
    fn renders_phases_and_steps() {
        let out = todo_write(
            r#"{"todos":[
            {"content":"Plan","status":"completed"},
            {"content":"Build","status":"in_progress","activeForm":"Building"},
            {"content":"compile","status":"pending","level":1}]}"#,
        )
        .unwrap();
        assert_eq!(
            out,
            "Todo list (1/3 done):\n[x] Plan\n[>] Building\n  [ ] compile"
        );
        assert_eq!(todo_write(r#"{"todos":[]}"#).unwrap(), "Todo list cleared.");
    }

    #[test]
    fn the_schema_offers_only_the_valid_levels() {
        let schema = reasonix_sdk::schema_for::<Args>();
        assert_eq!(
            schema["properties"]["todos"]["items"]["properties"]["level"],
            serde_json::json!({
                "description": "0 = phase (default), 1 = sub-step of the preceding phase.",
                "enum": [0, 1],
                "type": "integer"
            })
        );
    }

    #[test]
    fn refuses_bad_lists() {
        assert!(err(r#"{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}"#).contains("2 items are in_progress"));
        assert!(
            err(r#"{"todos":[{"content":"a","status":"pending","level":1}]}"#)
                .contains("no phase before it")
        );
        assert!(
            err(r#"{"todos":[{"content":"a","status":"pending","level":2}]}"#)
                .contains("level is 2")
        );
        assert!(
            err(r#"{"todos":[{"content":" ","status":"pending"}]}"#).contains("content is empty")
        );
        assert!(
            err(r#"{"todos":[{"content":"a","status":"doing"}]}"#)
                .contains("unknown variant `doing`")
        );
        assert!(err(r#"{}"#).contains("`todos`"));
    }
}
