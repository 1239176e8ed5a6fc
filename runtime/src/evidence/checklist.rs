//! The gate around the task-list tool (`todo_write`): when the host requires receipts, an
//! item becomes completed only after `complete_step` accepted a step of that name, and an
//! item once accepted as completed stays so, in its place (an empty list starts over). The
//! list itself is still checked and rendered by the tool that serves it.

use super::complete_step::NAME as COMPLETE_STEP;
use super::invalid;
use reasonix_core::error::CallError;
use reasonix_core::evidence::Ledger;
use reasonix_core::tool::{Effects, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolOutput, ToolSpec};
use std::sync::Arc;

/// The task-list tool of the built-in `todo` component.
pub const TOOL: &str = "todo_write";

pub struct Checklist {
    inner: Arc<dyn Tool>,
}

impl Checklist {
    pub fn new(inner: Arc<dyn Tool>) -> Checklist {
        Checklist { inner }
    }
}

impl Tool for Checklist {
    fn spec(&self) -> &ToolSpec {
        self.inner.spec()
    }
    fn source(&self) -> &str {
        self.inner.source()
    }
    fn effects(&self) -> Effects {
        self.inner.effects()
    }
    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        self.invoke_output(arguments, context).map(|o| o.text)
    }
    fn invoke_output(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<ToolOutput, CallError> {
        let Some(ledger) = context.evidence.as_ref().map(|e| &e.0) else {
            return self.inner.invoke_output(arguments, context);
        };
        // A list that does not parse is the tool's to explain.
        let list = read_list(arguments);
        if let Some(list) = &list {
            check(ledger, list).map_err(invalid)?;
        }
        let output = self.inner.invoke_output(arguments, context)?;
        if let (false, Some(list)) = (output.is_error, list) {
            ledger.set_checklist(list.total, list.completed);
        }
        Ok(output)
    }
    fn preview(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        self.inner.preview(arguments, context)
    }
}

/// What the gate reads of a list.
#[derive(Debug, PartialEq, Eq)]
struct List {
    /// No items at all: the list starts over.
    cleared: bool,
    total: usize,
    /// The items marked completed, in order.
    completed: Vec<String>,
}

/// `None`: not a list this gate can read (the tool explains).
fn read_list(arguments: &str) -> Option<List> {
    let value: serde_json::Value = serde_json::from_str(arguments).ok()?;
    let todos = value.get("todos")?.as_array()?;
    let completed = todos
        .iter()
        .filter(|t| t.get("status").and_then(|s| s.as_str()) == Some("completed"))
        .map(|t| t.get("content")?.as_str().map(|c| c.trim().to_string()))
        .collect::<Option<Vec<String>>>()?;
    Some(List {
        cleared: todos.is_empty(),
        total: todos.len(),
        completed,
    })
}

fn check(ledger: &Ledger, list: &List) -> Result<(), String> {
    if !ledger.strictness().steps_need_receipts {
        return Ok(());
    }
    let completed = &list.completed;
    let before = ledger.done_items();
    let mut rest = completed.iter();
    // Once accepted, an item stays completed and in order; an empty list starts over.
    if !list.cleared {
        for item in &before {
            if !rest.any(|c| c == item) {
                return Err(format!(
                    "{TOOL}: `{item}` was completed with evidence; keep it completed and in its place"
                ));
            }
        }
    }
    let new: Vec<&String> = completed
        .iter()
        .filter(|c| !before.contains(c) && !ledger.has_step(c))
        .collect();
    if let Some(first) = new.first() {
        let names: Vec<String> = new.iter().map(|c| format!("`{c}`")).collect();
        return Err(format!(
            "{TOOL}: {} cannot be marked completed yet: call `{COMPLETE_STEP}` with `step` set to `{first}` and the evidence (a command that exited 0, the files you changed) first",
            names.join(", ")
        ));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use reasonix_core::evidence::Strictness;

    fn strict() -> Ledger {
        let ledger = Ledger::default();
        ledger.set_strictness(Strictness {
            steps_need_receipts: true,
            fresh_verification: false,
        });
        ledger
    }

    fn items(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn done(list: &[&str]) -> List {
        List {
            cleared: false,
            total: list.len(),
            completed: items(list),
        }
    }

    #[test]
    fn an_item_is_completed_only_after_its_step() {
        let ledger = strict();
        let err = check(&ledger, &done(&["Write the parser"])).unwrap_err();
        assert!(
            err.contains("`Write the parser` cannot be marked completed yet"),
            "{err}"
        );
        ledger.complete_step("write the parser");
        assert!(check(&ledger, &done(&["Write the parser"])).is_ok());
    }

    #[test]
    fn accepted_items_stay_completed_and_in_order_until_the_list_is_cleared() {
        let ledger = strict();
        ledger.complete_step("a");
        ledger.complete_step("b");
        ledger.set_checklist(2, items(&["a", "b"]));
        assert!(check(&ledger, &done(&["a", "b"])).is_ok());
        let err = check(&ledger, &done(&["b", "a"])).unwrap_err();
        assert!(err.contains("keep it completed"), "{err}");
        assert!(check(&ledger, &done(&["a"])).is_err());
        // Reopening everything is not starting over; an empty list is.
        assert!(check(&ledger, &done(&[])).is_err());
        let cleared = List {
            cleared: true,
            total: 0,
            completed: Vec::new(),
        };
        assert!(check(&ledger, &cleared).is_ok());
    }

    #[test]
    fn without_strictness_nothing_is_gated() {
        let ledger = Ledger::default();
        assert!(check(&ledger, &done(&["anything"])).is_ok());
    }

    #[test]
    fn the_completed_items_are_read_from_the_list() {
        let args = r#"{"todos":[{"content":" a ","status":"completed"},{"content":"b","status":"pending"}]}"#;
        let list = List {
            cleared: false,
            total: 2,
            completed: items(&["a"]),
        };
        assert_eq!(read_list(args), Some(list));
        assert_eq!(read_list("{}"), None);
    }
}
