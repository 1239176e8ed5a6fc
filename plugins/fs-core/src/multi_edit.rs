//! `multi_edit`: several exact replacements in one file, all or nothing.

use reasonix_sdk::{CallContext, Error, FileChange, Tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::edit_file::{
    Search, TextFile, adapt_new, find_exact, not_found, not_unique, parse_checked, spellings,
};

/// Tool name.
pub const NAME: &str = "multi_edit";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to edit, relative to the workspace root (or absolute inside the workspace).
    path: String,
    /// The edits, applied in order; each sees the text left by the previous one.
    #[schemars(length(min = 1))]
    edits: Vec<Step>,
}

/// The `multi_edit` tool.
pub struct MultiEdit;

impl Tool for MultiEdit {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = false;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/multi_edit.json"));

    fn description() -> String {
        "Apply several text replacements to one existing file in a single, all-or-nothing call. \
         The edits run in order, in memory, each on the result of the previous one; the file is \
         written only if every edit succeeds, so a failing edit leaves the file exactly as it \
         was. Each `old_string` must be copied verbatim from the file (no read_file line-number \
         prefixes) and must occur exactly once, unless that edit sets `replace_all` to replace \
         every occurrence. Line endings are adapted to the file (CRLF files stay CRLF) and the \
         file keeps its encoding. Prefer this over several edit_file calls on the same file."
            .into()
    }

    fn guidance() -> Option<String> {
        Some("Use `multi_edit` for several changes to one file.".into())
    }

    fn parse(arguments: &str) -> Result<Args, Error> {
        parse_checked::<Self>(arguments)
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let plan = plan(args, cx)?;
        plan.file.write(&plan.new_text, &cx.call_id)?;
        let display = &plan.file.target.display;
        let edits = plural(plan.edits, "edit", "edits");
        let replacements = plural(plan.replacements, "replacement", "replacements");
        let unchanged =
            if crate::encoding::same_bytes(plan.new_text.as_bytes(), plan.file.text().as_bytes()) {
                "; the content is unchanged"
            } else {
                ""
            };
        Ok(format!(
            "edited {display}: {edits} applied ({replacements}){unchanged}"
        ))
    }

    fn preview(args: Args, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
        let plan = plan(args, cx)?;
        Ok(plan.file.changes(&plan.new_text))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Exact text to find. Without replace_all it must occur exactly once. Not empty.
    old_string: String,
    /// Replacement text (empty string deletes old_string).
    new_string: String,
    /// Replace every occurrence instead of requiring exactly one (default false).
    #[serde(default)]
    replace_all: bool,
}

/// What a `multi_edit` call would do.
struct Plan {
    file: TextFile,
    new_text: String,
    edits: usize,
    replacements: usize,
}

fn plan(args: Args, cx: &CallContext) -> Result<Plan, Error> {
    let total = args.edits.len();
    if total == 0 {
        return Err(Error::InvalidInput(format!(
            "{NAME}: `edits` must contain at least one edit"
        )));
    }
    for (i, step) in args.edits.iter().enumerate() {
        if step.old_string.is_empty() {
            return Err(Error::InvalidInput(format!(
                "{NAME}: `edits[{i}].old_string` must not be empty (edit {} of {total})",
                i + 1
            )));
        }
    }
    let file = TextFile::load(NAME, cx, &args.path)?;
    let display = file.target.display.clone();
    let original = file.text().to_string();
    let mut text = original.clone();
    let mut replacements = 0;
    for (i, step) in args.edits.iter().enumerate() {
        let label = format!("edit {} of {total} failed, nothing was written: ", i + 1);
        let count = if step.replace_all {
            replace_all(&mut text, step)
        } else {
            match find_exact(&text, &step.old_string) {
                Search::Unique { start, end } => {
                    let new = adapt_new(&step.new_string, &text[start..end], &text);
                    text.replace_range(start..end, &new);
                    1
                }
                Search::Many(positions) => {
                    return Err(not_unique(&display, &text, &positions, false, &label));
                }
                Search::None => 0,
            }
        };
        if count == 0 {
            let mut err = not_found(&display, &text, &step.old_string, &label);
            if !matches!(find_exact(&original, &step.old_string), Search::None)
                && let Error::Other(detail) = &mut err
            {
                detail.message.push_str(
                    " Note: the text is in the original file — an earlier edit in this call \
                     changed it; each edit sees the result of the previous ones.",
                );
            }
            return Err(err);
        }
        replacements += count;
    }
    Ok(Plan {
        file,
        new_text: text,
        edits: total,
        replacements,
    })
}

/// Replace every occurrence of the step's old string (in the first line-ending spelling that
/// occurs); returns how many were replaced.
fn replace_all(text: &mut String, step: &Step) -> usize {
    for spelling in spellings(text, &step.old_string) {
        // Non-overlapping, left to right, as `str::replace` does.
        let count = text.matches(spelling.as_str()).count();
        if count == 0 {
            continue;
        }
        let new = adapt_new(&step.new_string, &spelling, text);
        *text = text.replace(spelling.as_str(), &new);
        return count;
    }
    0
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::edit_file::tests::{Ws, preview_then_invoke};
    use serde_json::json;

    fn run(ws: &Ws, args: serde_json::Value) -> Result<String, Error> {
        preview_then_invoke(ws, NAME, &args, args["path"].as_str().unwrap_or("x"))
    }

    fn err_message(r: Result<String, Error>) -> String {
        match r {
            Err(Error::Other(d)) => d.message,
            Err(Error::InvalidInput(m)) => m,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn applies_edits_in_order() {
        let ws = Ws::new();
        ws.put("m.rs", b"let a = 1;\nlet b = a + a;\nprint(b);\n");
        let out = run(
            &ws,
            json!({"path": "m.rs", "edits": [
                {"old_string": "let a = 1;", "new_string": "let x = 1;"},
                {"old_string": "a + a", "new_string": "x + x"},
                // Sees the result of the first edit.
                {"old_string": "let x = 1;\n", "new_string": "let x = 2;\n"},
            ]}),
        )
        .unwrap();
        assert_eq!(out, "edited m.rs: 3 edits applied (3 replacements)");
        assert_eq!(
            ws.get_text("m.rs"),
            "let x = 2;\nlet b = x + x;\nprint(b);\n"
        );
    }

    #[test]
    fn replace_all_per_step() {
        let ws = Ws::new();
        ws.put("r.txt", b"foo foo\nbar\nfoo\n");
        let out = run(
            &ws,
            json!({"path": "r.txt", "edits": [
                {"old_string": "foo", "new_string": "baz", "replace_all": true},
                {"old_string": "bar", "new_string": "qux"},
            ]}),
        )
        .unwrap();
        assert_eq!(out, "edited r.txt: 2 edits applied (4 replacements)");
        assert_eq!(ws.get_text("r.txt"), "baz baz\nqux\nbaz\n");
    }

    #[test]
    fn failure_on_step_three_leaves_the_file_byte_identical() {
        let ws = Ws::new();
        let original = b"alpha\r\nbeta\r\ngamma\r\n\xE2\x82\xAC\r\n".to_vec();
        ws.put("f.txt", &original);
        let message = err_message(run(
            &ws,
            json!({"path": "f.txt", "edits": [
                {"old_string": "alpha", "new_string": "ALPHA"},
                {"old_string": "beta\n", "new_string": "BETA\n"},
                {"old_string": "delta", "new_string": "DELTA"},
            ]}),
        ));
        assert!(
            message.starts_with(
                "edit 3 of 3 failed, nothing was written: old_string not found in f.txt"
            ),
            "{message}"
        );
        assert_eq!(ws.get("f.txt"), original);
    }

    #[test]
    fn non_unique_without_replace_all_fails() {
        let ws = Ws::new();
        ws.put("n.txt", b"x\nx\n");
        let message = err_message(run(
            &ws,
            json!({"path": "n.txt", "edits": [{"old_string": "x", "new_string": "y"}]}),
        ));
        assert!(message.contains("edit 1 of 1 failed"), "{message}");
        assert!(message.contains("not unique"), "{message}");
        assert_eq!(ws.get("n.txt"), b"x\nx\n");
        let message = err_message(run(
            &ws,
            json!({"path": "n.txt", "edits": [{"old_string": "zz", "new_string": "y", "replace_all": true}]}),
        ));
        assert!(message.contains("not found"), "{message}");
    }

    #[test]
    fn text_consumed_by_an_earlier_edit_is_explained() {
        let ws = Ws::new();
        ws.put("c.txt", b"one two\n");
        let message = err_message(run(
            &ws,
            json!({"path": "c.txt", "edits": [
                {"old_string": "one two", "new_string": "three"},
                {"old_string": "two", "new_string": "2"},
            ]}),
        ));
        assert!(
            message.contains("an earlier edit in this call"),
            "{message}"
        );
        assert_eq!(ws.get("c.txt"), b"one two\n");
    }

    #[test]
    fn crlf_is_kept_and_no_op_writes_nothing() {
        let ws = Ws::new();
        ws.put("w.txt", b"a\r\nb\r\n");
        run(
            &ws,
            json!({"path": "w.txt", "edits": [
                {"old_string": "a\nb", "new_string": "a\nx\nb", "replace_all": true},
            ]}),
        )
        .unwrap();
        assert_eq!(ws.get("w.txt"), b"a\r\nx\r\nb\r\n");
        let out = run(
            &ws,
            json!({"path": "w.txt", "edits": [
                {"old_string": "x", "new_string": "y"},
                {"old_string": "y", "new_string": "x"},
            ]}),
        )
        .unwrap();
        assert!(out.ends_with("the content is unchanged"), "{out}");
        assert_eq!(ws.get("w.txt"), b"a\r\nx\r\nb\r\n");
    }

    #[test]
    fn bad_arguments_name_the_field() {
        let ws = Ws::new();
        ws.put("a.txt", b"abc\n");
        for (args, field) in [
            (
                json!({"path": "a.txt", "edits": []}),
                "`edits` must have at least 1",
            ),
            (json!({"path": "a.txt"}), "missing field `edits`"),
            (
                json!({"path": "a.txt", "edits": [{"old_string": "a", "new_string": 1}]}),
                "`edits[0].new_string` must be a string",
            ),
            (
                json!({"path": "a.txt", "edits": [{"old_string": "a", "new_string": "b", "replace_all": "yes"}]}),
                "`edits[0].replace_all` must be a boolean",
            ),
            (
                json!({"path": "a.txt", "edits": [{"old_string": "", "new_string": "b"}]}),
                "`edits[0].old_string` must not be empty",
            ),
            (
                json!({"path": "a.txt", "edits": "x"}),
                "`edits` must be an array",
            ),
        ] {
            match run(&ws, args) {
                Err(Error::InvalidInput(m)) => assert!(m.contains(field), "{m}"),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(ws.get("a.txt"), b"abc\n");
    }
}
