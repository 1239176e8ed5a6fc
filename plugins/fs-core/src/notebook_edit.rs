//! `notebook_edit`: replace, insert or delete one cell of a Jupyter notebook (`.ipynb`),
//! keeping the file valid notebook JSON.
//!
//! The notebook is re-serialised the way Jupyter writes it (nbformat: keys sorted, the file's
//! own indentation — one space by default — and a final newline), so a notebook saved by
//! Jupyter changes only where it was edited. Every key this tool does not touch, top-level or
//! per cell, is kept.

use reasonix_sdk::{CallContext, Error, FileChange, Tool, other_error};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::edit_file::{TextFile, parse_checked, to_crlf};

/// Tool name.
pub const NAME: &str = "notebook_edit";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Code,
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    #[default]
    Replace,
    Insert,
    Delete,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The .ipynb file, relative to the workspace root (or absolute inside the workspace).
    path: String,
    /// 0-based index of the cell to replace or delete; for insert, the new cell goes after this
    /// one (-1 inserts at the top).
    cell_number: Option<i64>,
    /// The cell's `id` (nbformat 4.5+), instead of cell_number.
    cell_id: Option<String>,
    /// The cell's complete new source text (required for replace and insert).
    new_source: Option<String>,
    /// Type of the new cell (required for insert); on replace, changes the cell's type.
    cell_type: Option<CellType>,
    /// replace (default), insert or delete.
    edit_mode: Option<EditMode>,
}

/// The `notebook_edit` tool.
pub struct NotebookEdit;

impl Tool for NotebookEdit {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = false;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/notebook_edit.json"));

    fn description() -> String {
        "Edit one cell of a Jupyter notebook (.ipynb) while keeping the file valid notebook \
         JSON — prefer this over edit_file for notebooks. Choose the cell by its 0-based \
         `cell_number` or by its `cell_id`. `edit_mode` \"replace\" (default) sets the cell's \
         source to `new_source` (and its type, if `cell_type` is given); \"insert\" adds a new \
         cell of `cell_type` with `new_source` after the chosen cell (cell_number -1, or neither \
         cell_number nor cell_id, inserts at the top); \"delete\" removes the cell. Replacing or \
         inserting a code cell clears its outputs and execution count. Other cells, outputs and \
         notebook metadata are kept."
            .into()
    }

    fn parse(arguments: &str) -> Result<Args, Error> {
        parse_checked::<Self>(arguments)
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let plan = plan(args, cx)?;
        plan.file.write(&plan.new_text, &cx.call_id)?;
        Ok(plan.summary)
    }

    fn preview(args: Args, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
        let plan = plan(args, cx)?;
        Ok(plan.file.changes(&plan.new_text))
    }
}

/// What a `notebook_edit` call would do.
struct Plan {
    file: TextFile,
    new_text: String,
    summary: String,
}

fn invalid(message: String) -> Error {
    Error::InvalidInput(format!("{NAME}: {message}"))
}

fn plan(args: Args, cx: &CallContext) -> Result<Plan, Error> {
    let mode = args.edit_mode.unwrap_or_default();
    let file = TextFile::load(NAME, cx, &args.path)?;
    let display = file.target.display.clone();
    let mut notebook: Value = serde_json::from_str(file.text()).map_err(|e| {
        other_error(
            "invalid-notebook",
            format!(
                "{display} is not valid notebook JSON ({e}); repair it with edit_file or \
                 write_file first"
            ),
        )
    })?;
    let with_ids = wants_ids(&notebook);
    let cells = cells_of(&mut notebook, &display)?;
    let count = cells.len();
    let summary = match mode {
        EditMode::Insert => {
            let cell_type = args.cell_type.ok_or_else(|| {
                invalid("`cell_type` (\"code\" or \"markdown\") is required for insert".into())
            })?;
            let source = args.new_source.as_deref().ok_or_else(|| {
                invalid("`new_source` is required for insert (use \"\" for an empty cell)".into())
            })?;
            let at = match (&args.cell_id, args.cell_number) {
                (Some(id), number) => {
                    let found = index_of_id(cells, id, &display)?;
                    check_agree(found, number)?;
                    found + 1
                }
                (None, Some(-1) | None) => 0,
                (None, Some(n)) => {
                    if n < -1 || n >= count as i64 {
                        return Err(invalid(format!(
                            "cell_number {n} is out of range for insert: {display} has {count} \
                             cell(s), so use -1 (top) to {}",
                            count as i64 - 1
                        )));
                    }
                    n as usize + 1
                }
            };
            let mut cell = Map::new();
            cell.insert("cell_type".into(), Value::from(cell_type.as_str()));
            cell.insert("metadata".into(), Value::Object(Map::new()));
            cell.insert("source".into(), source_lines(source));
            if cell_type == CellType::Code {
                cell.insert("outputs".into(), Value::Array(Vec::new()));
                cell.insert("execution_count".into(), Value::Null);
            }
            if with_ids {
                let id = new_id(cells, source, at);
                cell.insert("id".into(), Value::from(id));
            }
            cells.insert(at, Value::Object(cell));
            format!(
                "inserted {} cell {at} in {display} ({} cells now)",
                cell_type.as_str(),
                count + 1
            )
        }
        EditMode::Delete => {
            let at = target(cells, &args, &display, "delete")?;
            cells.remove(at);
            format!(
                "deleted cell {at} from {display} ({} cells left)",
                count - 1
            )
        }
        EditMode::Replace => {
            let source = args.new_source.as_deref().ok_or_else(|| {
                invalid("`new_source` is required for replace (use \"\" to empty the cell)".into())
            })?;
            let at = target(cells, &args, &display, "replace")?;
            let Some(cell) = cells[at].as_object_mut() else {
                return Err(not_a_notebook(&display, "a cell is not a JSON object"));
            };
            cell.insert("source".into(), source_lines(source));
            if let Some(t) = args.cell_type {
                cell.insert("cell_type".into(), Value::from(t.as_str()));
            }
            let kind = cell
                .get("cell_type")
                .and_then(Value::as_str)
                .unwrap_or("code")
                .to_string();
            let note = if kind == "code" {
                cell.insert("outputs".into(), Value::Array(Vec::new()));
                cell.insert("execution_count".into(), Value::Null);
                "; outputs cleared"
            } else {
                cell.remove("outputs");
                cell.remove("execution_count");
                ""
            };
            format!("replaced cell {at} of {display} ({kind}{note})")
        }
    };
    let new_text = serialize(&notebook, file.text())?;
    Ok(Plan {
        file,
        new_text,
        summary,
    })
}

fn not_a_notebook(display: &str, why: &str) -> Error {
    other_error(
        "invalid-notebook",
        format!("{display} is not a Jupyter notebook: {why}"),
    )
}

/// The `cells` array, checked to hold only objects.
fn cells_of<'a>(notebook: &'a mut Value, display: &str) -> Result<&'a mut Vec<Value>, Error> {
    let Some(top) = notebook.as_object_mut() else {
        return Err(not_a_notebook(
            display,
            "the top level is not a JSON object",
        ));
    };
    let Some(Value::Array(cells)) = top.get_mut("cells") else {
        return Err(not_a_notebook(display, "it has no \"cells\" array"));
    };
    if !cells.iter().all(Value::is_object) {
        return Err(not_a_notebook(display, "a cell is not a JSON object"));
    }
    Ok(cells)
}

/// Whether new cells need an `id`: nbformat 4.5 and later require one, and a notebook whose
/// cells already carry ids keeps them uniform.
fn wants_ids(notebook: &Value) -> bool {
    let major = notebook
        .get("nbformat")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let minor = notebook
        .get("nbformat_minor")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let any_id = notebook
        .get("cells")
        .and_then(Value::as_array)
        .is_some_and(|cells| cells.iter().any(|c| c.get("id").is_some()));
    major > 4 || (major == 4 && minor >= 5) || any_id
}

fn index_of_id(cells: &[Value], id: &str, display: &str) -> Result<usize, Error> {
    cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
        .ok_or_else(|| {
            let ids: Vec<String> = cells
                .iter()
                .filter_map(|c| c.get("id").and_then(Value::as_str))
                .take(20)
                .map(|s| format!("{s:?}"))
                .collect();
            let known = if ids.is_empty() {
                "its cells have no ids — use cell_number".to_string()
            } else {
                format!("its cell ids are {}", ids.join(", "))
            };
            Error::NotFound(format!("no cell with id {id:?} in {display}; {known}"))
        })
}

fn check_agree(found: usize, number: Option<i64>) -> Result<(), Error> {
    match number {
        Some(n) if n != found as i64 => Err(invalid(format!(
            "cell_id names cell {found} but cell_number is {n}; give only one of them"
        ))),
        _ => Ok(()),
    }
}

/// The existing cell a replace or delete acts on.
fn target(cells: &[Value], args: &Args, display: &str, mode: &str) -> Result<usize, Error> {
    let count = cells.len();
    if let Some(id) = &args.cell_id {
        let found = index_of_id(cells, id, display)?;
        check_agree(found, args.cell_number)?;
        return Ok(found);
    }
    match args.cell_number {
        Some(n) if n >= 0 && (n as u64) < count as u64 => Ok(n as usize),
        Some(n) => Err(invalid(format!(
            "cell_number {n} is out of range: {display} has {count} cell(s){}",
            if count > 0 {
                format!(", numbered 0 to {}", count - 1)
            } else {
                String::new()
            }
        ))),
        // A one-cell notebook is unambiguous.
        None if count == 1 => Ok(0),
        None => Err(invalid(format!(
            "`cell_number` or `cell_id` is required to {mode} a cell ({display} has {count} cells)"
        ))),
    }
}

/// A source string in nbformat's list form: one string per line, each keeping its `\n`.
fn source_lines(source: &str) -> Value {
    Value::Array(
        source
            .split_inclusive('\n')
            .map(|l| Value::from(l.to_string()))
            .collect(),
    )
}

/// A cell id that no other cell has, derived from the inserted content (so `preview` and
/// `invoke` agree) — 8 hex digits, like Jupyter's.
fn new_id(cells: &[Value], source: &str, at: usize) -> String {
    let taken = |id: &str| {
        cells
            .iter()
            .any(|c| c.get("id").and_then(Value::as_str) == Some(id))
    };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(source.as_bytes());
    feed(&at.to_le_bytes());
    feed(&cells.len().to_le_bytes());
    let mut n = 0u64;
    loop {
        let id = format!(
            "{:08x}",
            (hash.wrapping_add(n.wrapping_mul(0x9e37_79b9_7f4a_7c15))) >> 32
        );
        if !taken(&id) {
            return id;
        }
        n += 1;
    }
}

/// The indentation unit the original file uses (Jupyter writes one space).
fn indent_of(original: &str) -> Vec<u8> {
    for line in original.lines().skip(1) {
        let width = line.len() - line.trim_start_matches([' ', '\t']).len();
        if width > 0 {
            return line.as_bytes()[..width].to_vec();
        }
    }
    b" ".to_vec()
}

fn serialize(notebook: &Value, original: &str) -> Result<String, Error> {
    let indent = indent_of(original);
    let mut out = Vec::with_capacity(original.len() + 256);
    let formatter = serde_json::ser::PrettyFormatter::with_indent(&indent);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    notebook
        .serialize(&mut serializer)
        .map_err(|e| other_error("io", format!("serialise notebook: {e}")))?;
    out.push(b'\n');
    let text = String::from_utf8(out)
        .map_err(|e| other_error("io", format!("serialise notebook: {e}")))?;
    let crlf = original.contains("\r\n");
    Ok(if crlf { to_crlf(&text) } else { text })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::edit_file::tests::{Ws, preview_then_invoke};
    use serde_json::json;

    fn notebook(minor: u64) -> Value {
        json!({
            "cells": [
                {"cell_type": "markdown", "id": "md1", "metadata": {}, "source": ["# Title\n", "text"]},
                {"cell_type": "code", "id": "c1", "metadata": {"tags": ["x"]}, "execution_count": 3,
                 "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]}],
                 "source": ["print(1)"]},
                {"cell_type": "code", "id": "c2", "metadata": {}, "execution_count": 4,
                 "outputs": [], "source": "x = 2"}
            ],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4,
            "nbformat_minor": minor
        })
    }

    fn put_nb(ws: &Ws, name: &str, nb: &Value) {
        let mut text = serde_json::to_string_pretty(nb).unwrap();
        text.push('\n');
        ws.put(name, text.as_bytes());
    }

    fn read_nb(ws: &Ws, name: &str) -> Value {
        serde_json::from_slice(&ws.get(name)).unwrap()
    }

    fn run(ws: &Ws, args: Value) -> Result<String, Error> {
        preview_then_invoke(ws, NAME, &args, args["path"].as_str().unwrap_or("x"))
    }

    fn message(r: Result<String, Error>) -> String {
        match r {
            Err(Error::Other(d)) => d.message,
            Err(Error::InvalidInput(m) | Error::NotFound(m)) => m,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn replacing_a_code_cell_clears_outputs() {
        let ws = Ws::new();
        put_nb(&ws, "n.ipynb", &notebook(5));
        let out = run(
            &ws,
            json!({"path": "n.ipynb", "cell_number": 1, "new_source": "print(2)\nprint(3)\n"}),
        )
        .unwrap();
        assert_eq!(out, "replaced cell 1 of n.ipynb (code; outputs cleared)");
        let nb = read_nb(&ws, "n.ipynb");
        let cell = &nb["cells"][1];
        assert_eq!(cell["source"], json!(["print(2)\n", "print(3)\n"]));
        assert_eq!(cell["outputs"], json!([]));
        assert_eq!(cell["execution_count"], Value::Null);
        // Everything else is kept.
        assert_eq!(cell["metadata"], json!({"tags": ["x"]}));
        assert_eq!(cell["id"], "c1");
        assert_eq!(nb["metadata"], notebook(5)["metadata"]);
        assert_eq!(nb["cells"][0], notebook(5)["cells"][0]);
    }

    #[test]
    fn output_is_jupyter_formatted() {
        let ws = Ws::new();
        // One-space indent, sorted keys, final newline: what nbformat writes.
        let text = "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": [\n    \"a\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 2\n}\n";
        ws.put("j.ipynb", text.as_bytes());
        run(&ws, json!({"path": "j.ipynb", "new_source": "b"})).unwrap();
        assert_eq!(ws.get_text("j.ipynb"), text.replace("\"a\"", "\"b\""));
    }

    #[test]
    fn replace_by_id_and_retype() {
        let ws = Ws::new();
        put_nb(&ws, "n.ipynb", &notebook(5));
        let out = run(&ws, json!({"path": "n.ipynb", "cell_id": "c2", "new_source": "# now prose", "cell_type": "markdown"})).unwrap();
        assert_eq!(out, "replaced cell 2 of n.ipynb (markdown)");
        let cell = &read_nb(&ws, "n.ipynb")["cells"][2];
        assert_eq!(cell["cell_type"], "markdown");
        assert!(cell.get("outputs").is_none() && cell.get("execution_count").is_none());
        assert_eq!(cell["source"], json!(["# now prose"]));
    }

    #[test]
    fn insert_after_prepend_and_ids() {
        let ws = Ws::new();
        put_nb(&ws, "n.ipynb", &notebook(5));
        let out = run(&ws, json!({"path": "n.ipynb", "edit_mode": "insert", "cell_number": 0, "cell_type": "code", "new_source": "import os"})).unwrap();
        assert_eq!(out, "inserted code cell 1 in n.ipynb (4 cells now)");
        let nb = read_nb(&ws, "n.ipynb");
        let cell = &nb["cells"][1];
        assert_eq!(cell["source"], json!(["import os"]));
        assert_eq!(cell["outputs"], json!([]));
        let id = cell["id"].as_str().unwrap();
        assert_eq!(id.len(), 8);
        assert!(!["md1", "c1", "c2"].contains(&id));
        run(&ws, json!({"path": "n.ipynb", "edit_mode": "insert", "cell_number": -1, "cell_type": "markdown", "new_source": "top"})).unwrap();
        assert_eq!(
            read_nb(&ws, "n.ipynb")["cells"][0]["source"],
            json!(["top"])
        );
        run(&ws, json!({"path": "n.ipynb", "edit_mode": "insert", "cell_id": "c2", "cell_type": "markdown", "new_source": "end"})).unwrap();
        let nb = read_nb(&ws, "n.ipynb");
        assert_eq!(nb["cells"].as_array().unwrap().len(), 6);
        assert_eq!(nb["cells"][5]["source"], json!(["end"]));
        assert!(nb["cells"][5].get("outputs").is_none());
        // An older notebook without ids gets none.
        let mut old = notebook(4);
        for c in old["cells"].as_array_mut().unwrap() {
            c.as_object_mut().unwrap().remove("id");
        }
        put_nb(&ws, "o.ipynb", &old);
        run(&ws, json!({"path": "o.ipynb", "edit_mode": "insert", "cell_type": "code", "new_source": ""})).unwrap();
        let nb = read_nb(&ws, "o.ipynb");
        assert!(nb["cells"][0].get("id").is_none());
        assert_eq!(nb["cells"][0]["source"], json!([]));
    }

    #[test]
    fn delete_a_cell() {
        let ws = Ws::new();
        put_nb(&ws, "n.ipynb", &notebook(5));
        let out = run(
            &ws,
            json!({"path": "n.ipynb", "edit_mode": "delete", "cell_number": 0}),
        )
        .unwrap();
        assert_eq!(out, "deleted cell 0 from n.ipynb (2 cells left)");
        let nb = read_nb(&ws, "n.ipynb");
        assert_eq!(nb["cells"][0]["id"], "c1");
    }

    #[test]
    fn targeting_errors() {
        let ws = Ws::new();
        put_nb(&ws, "n.ipynb", &notebook(5));
        let before = ws.get("n.ipynb");
        for (args, want) in [
            (
                json!({"path": "n.ipynb", "cell_number": 3, "new_source": "x"}),
                "out of range: n.ipynb has 3 cell(s), numbered 0 to 2",
            ),
            (
                json!({"path": "n.ipynb", "new_source": "x"}),
                "`cell_number` or `cell_id` is required",
            ),
            (
                json!({"path": "n.ipynb", "cell_id": "zz", "new_source": "x"}),
                "no cell with id \"zz\"",
            ),
            (
                json!({"path": "n.ipynb", "cell_id": "c1", "cell_number": 2, "new_source": "x"}),
                "cell_id names cell 1",
            ),
            (
                json!({"path": "n.ipynb", "cell_number": 0}),
                "`new_source` is required for replace",
            ),
            (
                json!({"path": "n.ipynb", "edit_mode": "insert", "new_source": "x"}),
                "`cell_type`",
            ),
            (
                json!({"path": "n.ipynb", "edit_mode": "insert", "cell_type": "code", "new_source": "x", "cell_number": 3}),
                "out of range for insert",
            ),
            (
                json!({"path": "n.ipynb", "edit_mode": "move"}),
                "`edit_mode` must be one of",
            ),
            (
                json!({"path": "n.ipynb", "cell_type": "raw", "new_source": "x", "cell_number": 0}),
                "`cell_type` must be one of",
            ),
            (
                json!({"path": "n.ipynb", "cell_number": "1", "new_source": "x"}),
                "`cell_number` must be an integer, got a string",
            ),
        ] {
            let m = message(run(&ws, args));
            assert!(m.contains(want), "{m}");
        }
        assert_eq!(ws.get("n.ipynb"), before);
    }

    #[test]
    fn non_notebooks_are_refused() {
        let ws = Ws::new();
        ws.put("bad.ipynb", b"{\"cells\": [");
        assert!(
            message(run(&ws, json!({"path": "bad.ipynb", "new_source": "x"})))
                .contains("not valid notebook JSON")
        );
        ws.put("arr.ipynb", b"[1, 2]");
        assert!(
            message(run(&ws, json!({"path": "arr.ipynb", "new_source": "x"})))
                .contains("top level")
        );
        ws.put("none.ipynb", b"{\"metadata\": {}}");
        assert!(
            message(run(&ws, json!({"path": "none.ipynb", "new_source": "x"})))
                .contains("\"cells\"")
        );
    }

    #[test]
    fn crlf_notebook_stays_crlf() {
        let ws = Ws::new();
        let text = serde_json::to_string_pretty(&notebook(5))
            .unwrap()
            .replace('\n', "\r\n");
        ws.put("w.ipynb", text.as_bytes());
        run(
            &ws,
            json!({"path": "w.ipynb", "cell_number": 0, "new_source": "hi"}),
        )
        .unwrap();
        let after = ws.get_text("w.ipynb");
        assert!(after.ends_with("}\r\n"));
        assert!(!after.replace("\r\n", "").contains('\n'));
        assert_eq!(
            serde_json::from_str::<Value>(&after).unwrap()["cells"][0]["source"],
            json!(["hi"])
        );
    }
}
