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

use reasonix_sdk::ToolSet;

/// The read-only tools: `read_file`, `ls`, `grep` and `glob`.
pub fn read_tools() -> ToolSet {
    ToolSet::new()
        .with::<read_file::ReadFile>()
        .with::<ls::Ls>()
        .with::<grep::Grep>()
        .with::<glob::Glob>()
}

/// The writing tools: `write_file`, `edit_file`, `multi_edit`, `move_file`, `delete_range` and
/// `notebook_edit`.
pub fn write_tools() -> ToolSet {
    ToolSet::new()
        .with::<write_file::WriteFile>()
        .with::<edit_file::EditFile>()
        .with::<multi_edit::MultiEdit>()
        .with::<move_file::MoveFile>()
        .with::<delete_range::DeleteRange>()
        .with::<notebook_edit::NotebookEdit>()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use reasonix_sdk::{CallContext, Error};
    use serde_json::Value;

    #[test]
    fn pinned_schemas_match_the_argument_types() {
        for set in [read_tools(), write_tools()] {
            set.check_pinned_schemas(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas"))
                .unwrap();
        }
    }

    fn cx(ws: &std::path::Path) -> CallContext {
        CallContext {
            call_id: "c1".to_string(),
            workspace: ws.to_string_lossy().into_owned(),
        }
    }

    #[test]
    fn tool_sets() {
        let read = read_tools();
        let names: Vec<&str> = read.names().collect();
        assert_eq!(names, ["read_file", "ls", "grep", "glob"]);
        let write: Vec<String> = write_tools().specs().into_iter().map(|t| t.name).collect();
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
        assert!(read_tools().specs().iter().all(|t| t.read_only));
        assert!(write_tools().specs().iter().all(|t| !t.read_only));
        assert!(read_tools().contains("ls") && !read_tools().contains("write_file"));
        assert!(write_tools().contains("write_file") && !write_tools().contains("ls"));
    }

    #[test]
    fn schemas_are_strict_objects() {
        for spec in read_tools()
            .specs()
            .into_iter()
            .chain(write_tools().specs())
        {
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
    fn guidance_names_only_its_own_tool() {
        let specs: Vec<_> = read_tools()
            .specs()
            .into_iter()
            .chain(write_tools().specs())
            .collect();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        for spec in &specs {
            let Some(guidance) = &spec.guidance else {
                continue;
            };
            assert!(guidance.contains(&format!("`{}`", spec.name)), "{guidance}");
            for other in names.iter().filter(|n| **n != spec.name) {
                assert!(
                    !guidance.contains(&format!("`{other}`")),
                    "{}: {guidance} names `{other}`",
                    spec.name
                );
            }
            assert!(
                !guidance.starts_with("- ") && guidance.ends_with('.'),
                "{guidance}"
            );
        }
        let guided: Vec<&str> = specs
            .iter()
            .filter(|s| s.guidance.is_some())
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(
            guided,
            [
                "read_file",
                "ls",
                "grep",
                "glob",
                "write_file",
                "edit_file",
                "multi_edit"
            ]
        );
    }

    #[test]
    fn dispatch_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let cx = cx(dir.path());
        let (read, write) = (read_tools(), write_tools());
        let wrote = write
            .invoke("write_file", r#"{"path":"a.txt","content":"hi\n"}"#, &cx)
            .unwrap();
        assert_eq!(wrote, "created a.txt (3 bytes, 1 line)");
        assert_eq!(
            read.invoke("read_file", r#"{"path":"a.txt"}"#, &cx)
                .unwrap(),
            "1→hi\n"
        );
        assert_eq!(read.invoke("ls", "{}", &cx).unwrap(), "a.txt\t3");
        assert!(
            read.preview("read_file", r#"{"path":"a.txt"}"#, &cx)
                .unwrap()
                .is_empty()
        );
        assert!(read.preview("ls", "{}", &cx).unwrap().is_empty());
        let change = write
            .preview("write_file", r#"{"path":"a.txt","content":"yo\n"}"#, &cx)
            .unwrap();
        assert_eq!(change.len(), 1);
    }

    #[test]
    fn unknown_tool_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let cx = cx(dir.path());
        for set in [read_tools(), write_tools()] {
            assert!(matches!(
                set.invoke("rm_rf", "{}", &cx),
                Err(Error::NotFound(_))
            ));
            assert!(matches!(
                set.preview("rm_rf", "{}", &cx),
                Err(Error::NotFound(_))
            ));
        }
        // Each set serves only its own tools.
        assert!(matches!(
            read_tools().invoke("write_file", r#"{"path":"x","content":"x"}"#, &cx),
            Err(Error::NotFound(_))
        ));
        assert!(!dir.path().join("x").exists());
    }
}
