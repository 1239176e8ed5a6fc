//! The logic of Reasonix's built-in file tools: `read_file`, `ls`, `grep` and `glob` (read-only,
//! served by the `fs-read` component) and `write_file` (served by the `fs-write` component).
//!
//! Everything here is plain `std::fs`, so it runs natively in unit tests and inside a
//! wasm32-wasip2 component, where the workspace is preopened at its real absolute path; only
//! the walk of `grep` and `glob` talks to WASI directly in a component ([`walk`]).
//! Path handling is lexical (no `canonicalize`, which WASI lacks); the sandbox refuses
//! anything a symlink would reach outside the grant.
#![forbid(unsafe_code)]

pub mod delete_range;
pub mod edit_file;
pub mod encoding;
pub mod glob;
pub mod grep;
pub mod ls;
pub mod move_file;
pub mod multi_edit;
pub mod notebook_edit;
pub mod paths;
pub mod policy;
pub mod read_file;
pub mod walk;
pub mod write_file;

use reasonix_sdk::{CallContext, Error, FileChange, ToolSpec};

/// The read-only tools: `read_file`, `ls`, `grep` and `glob`.
pub fn read_tools() -> Vec<ToolSpec> {
    vec![read_file::spec(), ls::spec(), grep::spec(), glob::spec()]
}

/// The writing tools: `write_file`, `edit_file`, `multi_edit`, `move_file`, `delete_range` and
/// `notebook_edit`.
pub fn write_tools() -> Vec<ToolSpec> {
    vec![
        write_file::spec(),
        edit_file::spec(),
        multi_edit::spec(),
        move_file::spec(),
        delete_range::spec(),
        notebook_edit::spec(),
    ]
}

/// Whether `name` is one of the read-only tools.
pub fn is_read_tool(name: &str) -> bool {
    matches!(name, read_file::NAME | ls::NAME | grep::NAME | glob::NAME)
}

/// Whether `name` is one of the writing tools.
pub fn is_write_tool(name: &str) -> bool {
    matches!(
        name,
        write_file::NAME
            | edit_file::NAME
            | multi_edit::NAME
            | move_file::NAME
            | delete_range::NAME
            | notebook_edit::NAME
    )
}

/// Run the tool `name` with its JSON `arguments`.
/// Run any file tool. The components call [`invoke_read`] / [`invoke_write`] instead, so each
/// links only the code of the tools it serves (a smaller component loads faster).
pub fn invoke(name: &str, arguments: &str, cx: &CallContext) -> Result<String, Error> {
    if is_read_tool(name) {
        invoke_read(name, arguments, cx)
    } else {
        invoke_write(name, arguments, cx)
    }
}

/// Run one of the read-only tools.
pub fn invoke_read(name: &str, arguments: &str, cx: &CallContext) -> Result<String, Error> {
    match name {
        read_file::NAME => read_file::invoke(arguments, cx),
        ls::NAME => ls::invoke(arguments, cx),
        grep::NAME => grep::invoke(arguments, cx),
        glob::NAME => glob::invoke(arguments, cx),
        _ => Err(unknown_tool(name)),
    }
}

/// Run one of the writer tools.
pub fn invoke_write(name: &str, arguments: &str, cx: &CallContext) -> Result<String, Error> {
    match name {
        write_file::NAME => write_file::invoke(arguments, cx),
        edit_file::NAME => edit_file::invoke(arguments, cx),
        multi_edit::NAME => multi_edit::invoke(arguments, cx),
        move_file::NAME => move_file::invoke(arguments, cx),
        delete_range::NAME => delete_range::invoke(arguments, cx),
        notebook_edit::NAME => notebook_edit::invoke(arguments, cx),
        _ => Err(unknown_tool(name)),
    }
}

/// The file changes a tool would make; read-only tools make none.
pub fn preview(name: &str, arguments: &str, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
    if is_read_tool(name) {
        Ok(Vec::new())
    } else {
        preview_write(name, arguments, cx)
    }
}

/// The file changes one of the writer tools would make.
pub fn preview_write(
    name: &str,
    arguments: &str,
    cx: &CallContext,
) -> Result<Vec<FileChange>, Error> {
    match name {
        write_file::NAME => write_file::preview(arguments, cx),
        edit_file::NAME => edit_file::preview(arguments, cx),
        multi_edit::NAME => multi_edit::preview(arguments, cx),
        move_file::NAME => move_file::preview(arguments, cx),
        delete_range::NAME => delete_range::preview(arguments, cx),
        notebook_edit::NAME => notebook_edit::preview(arguments, cx),
        _ => Err(unknown_tool(name)),
    }
}

pub fn unknown_tool(name: &str) -> Error {
    Error::NotFound(format!("unknown tool: {name}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn cx(ws: &std::path::Path) -> CallContext {
        CallContext {
            call_id: "c1".to_string(),
            workspace: ws.to_string_lossy().into_owned(),
        }
    }

    #[test]
    fn tool_sets() {
        let read: Vec<String> = read_tools().into_iter().map(|t| t.name).collect();
        assert_eq!(read, ["read_file", "ls", "grep", "glob"]);
        let write: Vec<String> = write_tools().into_iter().map(|t| t.name).collect();
        assert_eq!(
            write,
            [
                "write_file",
                "edit_file",
                "multi_edit",
                "move_file",
                "delete_range",
                "notebook_edit"
            ]
        );
        assert!(write.iter().all(|n| is_write_tool(n) && !is_read_tool(n)));
        assert!(read_tools().iter().all(|t| t.read_only));
        assert!(write_tools().iter().all(|t| !t.read_only));
        assert!(is_read_tool("ls") && is_read_tool("read_file") && !is_read_tool("write_file"));
        assert!(is_write_tool("write_file") && !is_write_tool("ls"));
    }

    #[test]
    fn schemas_are_strict_objects() {
        for spec in read_tools().into_iter().chain(write_tools()) {
            let schema: Value = serde_json::from_str(&spec.parameters).unwrap();
            assert_eq!(schema["type"], "object", "{}", spec.name);
            assert_eq!(schema["additionalProperties"], false, "{}", spec.name);
            let props = schema["properties"].as_object().unwrap();
            for (key, prop) in props {
                assert!(
                    prop["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{}.{key} lacks a description",
                    spec.name
                );
            }
            for req in schema["required"].as_array().unwrap() {
                assert!(props.contains_key(req.as_str().unwrap()), "{}", spec.name);
            }
            assert!(spec.description.len() > 100, "{}", spec.name);
        }
    }

    #[test]
    fn dispatch_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let cx = cx(dir.path());
        let wrote = invoke("write_file", r#"{"path":"a.txt","content":"hi\n"}"#, &cx).unwrap();
        assert_eq!(wrote, "created a.txt (3 bytes, 1 line)");
        assert_eq!(
            invoke("read_file", r#"{"path":"a.txt"}"#, &cx).unwrap(),
            "1→hi\n"
        );
        assert_eq!(invoke("ls", "{}", &cx).unwrap(), "a.txt\t3");
        assert!(
            preview("read_file", r#"{"path":"a.txt"}"#, &cx)
                .unwrap()
                .is_empty()
        );
        assert!(preview("ls", "{}", &cx).unwrap().is_empty());
        let change = preview("write_file", r#"{"path":"a.txt","content":"yo\n"}"#, &cx).unwrap();
        assert_eq!(change.len(), 1);
    }

    #[test]
    fn unknown_tool_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let cx = cx(dir.path());
        assert!(matches!(
            invoke("rm_rf", "{}", &cx),
            Err(Error::NotFound(_))
        ));
        assert!(matches!(
            preview("rm_rf", "{}", &cx),
            Err(Error::NotFound(_))
        ));
    }
}
