//! `delete_range`: delete a block of whole lines between two anchor lines.

use reasonix_sdk::{CallContext, Error, FileChange, Tool, other_error};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::edit_file::{TextFile, parse_checked};

/// Tool name.
pub const NAME: &str = "delete_range";

/// Context lines around a change in the unified diff.
const CONTEXT: usize = 3;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to edit, relative to the workspace root (or absolute inside the workspace).
    path: String,
    /// The full text of the first line of the block (must match exactly one line).
    start_anchor: String,
    /// The full text of the last line of the block (must match exactly one line).
    end_anchor: String,
    /// Whether the anchor lines themselves are deleted (default true).
    #[serde(default = "default_inclusive")]
    inclusive: bool,
}

/// The `delete_range` tool.
pub struct DeleteRange;

impl Tool for DeleteRange {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = false;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/delete_range.json"));

    fn description() -> String {
        "Delete a block of whole lines from an existing file, located by two anchor lines, and \
         return a unified diff of the change. `start_anchor` and `end_anchor` must each be the \
         complete text of exactly one line of the file (copied verbatim, without read_file's \
         line-number prefix, including indentation); the start line must come before the end \
         line (or be the same line). With `inclusive` (default true) the anchor lines are \
         deleted too; with false only the lines strictly between them are. Line endings and the \
         presence or absence of a final newline are kept. Cheaper than edit_file for removing a \
         large block."
            .into()
    }

    fn parse(arguments: &str) -> Result<Args, Error> {
        parse_checked::<Self>(arguments)
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let plan = plan(args, cx)?;
        plan.file.write(&plan.new_text, &cx.call_id)?;
        let display = &plan.file.target.display;
        let count = plan.last - plan.first + 1;
        let span = if count == 1 {
            format!("line {}", plan.first)
        } else {
            format!("lines {}-{} ({count} lines)", plan.first, plan.last)
        };
        Ok(format!(
            "deleted {span} from {display}\n{}",
            unified_diff(display, plan.file.text(), &plan.new_text)
        ))
    }

    fn preview(args: Args, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
        let plan = plan(args, cx)?;
        Ok(plan.file.changes(&plan.new_text))
    }
}

fn default_inclusive() -> bool {
    true
}

/// One line of the file, as byte offsets: `start..content_end` is its text (without `\r\n` or
/// `\n`), `start..end` includes the line break.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    content_end: usize,
    end: usize,
}

fn split_lines(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let (content_end, end) = match text[start..].find('\n') {
            Some(i) => {
                let nl = start + i;
                let content_end = if nl > start && text.as_bytes()[nl - 1] == b'\r' {
                    nl - 1
                } else {
                    nl
                };
                (content_end, nl + 1)
            }
            None => (text.len(), text.len()),
        };
        lines.push(Line {
            start,
            content_end,
            end,
        });
        start = end;
    }
    lines
}

/// What a `delete_range` call would do.
struct Plan {
    file: TextFile,
    new_text: String,
    /// 1-based, inclusive.
    first: usize,
    last: usize,
}

fn anchor_text<'a>(field: &str, anchor: &'a str) -> Result<&'a str, Error> {
    let line = anchor
        .strip_suffix("\r\n")
        .or_else(|| anchor.strip_suffix('\n'))
        .unwrap_or(anchor);
    if line.is_empty() || line.trim().is_empty() {
        return Err(Error::InvalidInput(format!(
            "{NAME}: `{field}` must be the text of one non-blank line of the file"
        )));
    }
    if line.contains('\n') {
        return Err(Error::InvalidInput(format!(
            "{NAME}: `{field}` must be a single line (it contains a line break); give the \
             complete text of one line"
        )));
    }
    Ok(line)
}

/// The index of the one line equal to `anchor`.
fn find_anchor(
    field: &str,
    anchor: &str,
    text: &str,
    lines: &[Line],
    display: &str,
) -> Result<usize, Error> {
    let content = |l: &Line| &text[l.start..l.content_end];
    let hits: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| content(l) == anchor)
        .map(|(i, _)| i)
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => {
            let near: Vec<String> = lines
                .iter()
                .enumerate()
                .filter(|(_, l)| content(l).trim() == anchor.trim())
                .map(|(i, _)| (i + 1).to_string())
                .take(5)
                .collect();
            let hint = if near.is_empty() {
                " Anchors must be a whole line copied exactly (with its indentation) from \
                 read_file output, without the line-number prefix."
                    .to_string()
            } else {
                format!(
                    " Line(s) {} match when leading/trailing whitespace is ignored — copy the \
                     line exactly, indentation included.",
                    near.join(", ")
                )
            };
            Err(other_error(
                "no-match",
                format!("{field} not found in {display}: no line is exactly {anchor:?}.{hint}"),
            ))
        }
        many => {
            let shown: Vec<String> = many.iter().take(10).map(|i| (i + 1).to_string()).collect();
            Err(other_error(
                "not-unique",
                format!(
                    "{field} is not unique in {display}: {} lines are exactly {anchor:?} (lines \
                     {}). Pick a line that occurs once near the block, set inclusive=false if \
                     needed, or use edit_file.",
                    many.len(),
                    shown.join(", ")
                ),
            ))
        }
    }
}

fn plan(args: Args, cx: &CallContext) -> Result<Plan, Error> {
    let start_anchor = anchor_text("start_anchor", &args.start_anchor)?;
    let end_anchor = anchor_text("end_anchor", &args.end_anchor)?;
    let file = TextFile::load(NAME, cx, &args.path)?;
    let display = file.target.display.clone();
    let text = file.text();
    let lines = split_lines(text);
    let s = find_anchor("start_anchor", start_anchor, text, &lines, &display)?;
    let e = find_anchor("end_anchor", end_anchor, text, &lines, &display)?;
    if s > e {
        return Err(Error::InvalidInput(format!(
            "{NAME}: start_anchor (line {}) comes after end_anchor (line {}) in {display}; swap \
             them",
            s + 1,
            e + 1
        )));
    }
    let (first, last) = if args.inclusive {
        (s, e)
    } else {
        if e == s {
            return Err(Error::InvalidInput(format!(
                "{NAME}: start_anchor and end_anchor are the same line ({}) of {display}; with \
                 inclusive=false there is nothing between them to delete",
                s + 1
            )));
        }
        if e == s + 1 {
            return Err(Error::InvalidInput(format!(
                "{NAME}: the anchors are adjacent lines ({} and {}) of {display}; with \
                 inclusive=false there is nothing between them to delete",
                s + 1,
                e + 1
            )));
        }
        (s + 1, e - 1)
    };
    let mut from = lines[first].start;
    let to = lines[last].end;
    // Deleting through a last line that has no line break: drop the break before the block
    // instead, so the file still ends without one.
    if lines[last].end == lines[last].content_end && first > 0 {
        from = lines[first - 1].content_end;
    }
    let mut new_text = String::with_capacity(text.len() - (to - from));
    new_text.push_str(&text[..from]);
    new_text.push_str(&text[to..]);
    Ok(Plan {
        file,
        new_text,
        first: first + 1,
        last: last + 1,
    })
}

/// A unified diff (one hunk, [`CONTEXT`] lines of context) between two texts that differ in one
/// contiguous run of lines. Empty when they are equal.
pub fn unified_diff(display: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_end, b_end) = (a.len() - suffix, b.len() - suffix);
    if prefix == a_end && prefix == b_end {
        return String::new();
    }
    let ctx_start = prefix.saturating_sub(CONTEXT);
    let after = suffix.min(CONTEXT);
    let old_count = a_end + after - ctx_start;
    let new_count = b_end + after - ctx_start;
    let range = |count: usize| {
        let start = if count == 0 { ctx_start } else { ctx_start + 1 };
        if count == 1 {
            start.to_string()
        } else {
            format!("{start},{count}")
        }
    };
    let mut out = format!(
        "--- a/{display}\n+++ b/{display}\n@@ -{} +{} @@\n",
        range(old_count),
        range(new_count)
    );
    let mut push = |sign: char, line: &str| {
        out.push(sign);
        match line.strip_suffix('\n') {
            Some(body) => {
                out.push_str(body.strip_suffix('\r').unwrap_or(body));
                out.push('\n');
            }
            None => {
                out.push_str(line);
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    };
    for line in &a[ctx_start..prefix] {
        push(' ', line);
    }
    for line in &a[prefix..a_end] {
        push('-', line);
    }
    for line in &b[prefix..b_end] {
        push('+', line);
    }
    for line in &a[a_end..a_end + after] {
        push(' ', line);
    }
    out
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

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    fn message(r: Result<String, Error>) -> String {
        match r {
            Err(Error::Other(d)) => d.message,
            Err(Error::InvalidInput(m)) => m,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn inclusive_delete_returns_a_unified_diff() {
        let ws = Ws::new();
        ws.put("f.txt", numbered(12).as_bytes());
        let out = run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "line 5", "end_anchor": "line 7"}),
        )
        .unwrap();
        assert_eq!(
            out,
            "deleted lines 5-7 (3 lines) from f.txt\n\
             --- a/f.txt\n+++ b/f.txt\n@@ -2,9 +2,6 @@\n line 2\n line 3\n line 4\n\
             -line 5\n-line 6\n-line 7\n line 8\n line 9\n line 10\n"
        );
        let want: String = numbered(12)
            .lines()
            .filter(|l| !["line 5", "line 6", "line 7"].contains(l))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(ws.get_text("f.txt"), want);
    }

    #[test]
    fn exclusive_keeps_the_anchors() {
        let ws = Ws::new();
        ws.put("f.txt", b"fn a() {\n    x();\n    y();\n}\n");
        let out = run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "fn a() {", "end_anchor": "}", "inclusive": false}),
        )
        .unwrap();
        assert!(
            out.starts_with("deleted lines 2-3 (2 lines) from f.txt\n"),
            "{out}"
        );
        assert_eq!(ws.get_text("f.txt"), "fn a() {\n}\n");
    }

    #[test]
    fn same_line_inclusive_deletes_one_line_exclusive_is_an_error() {
        let ws = Ws::new();
        ws.put("f.txt", b"a\nb\nc\n");
        let m = message(run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "b", "end_anchor": "b", "inclusive": false}),
        ));
        assert!(m.contains("same line (2)"), "{m}");
        let m = message(run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "a", "end_anchor": "b", "inclusive": false}),
        ));
        assert!(m.contains("adjacent"), "{m}");
        let out = run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "b", "end_anchor": "b"}),
        )
        .unwrap();
        assert!(out.starts_with("deleted line 2 from f.txt\n"), "{out}");
        assert_eq!(ws.get_text("f.txt"), "a\nc\n");
    }

    #[test]
    fn start_must_precede_end() {
        let ws = Ws::new();
        ws.put("f.txt", b"a\nb\nc\n");
        let m = message(run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "c", "end_anchor": "a"}),
        ));
        assert!(
            m.contains("line 3") && m.contains("line 1") && m.contains("swap"),
            "{m}"
        );
        assert_eq!(ws.get_text("f.txt"), "a\nb\nc\n");
    }

    #[test]
    fn anchors_must_match_exactly_one_full_line() {
        let ws = Ws::new();
        ws.put("f.txt", b"  x = 1\ny\n}\n}\n");
        // A partial line is not a match.
        let m = message(run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "x = 1", "end_anchor": "y"}),
        ));
        assert!(m.starts_with("start_anchor not found in f.txt"), "{m}");
        assert!(
            m.contains("Line(s) 1 match when leading/trailing whitespace"),
            "{m}"
        );
        let m = message(run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "y", "end_anchor": "}"}),
        ));
        assert!(
            m.contains("end_anchor is not unique") && m.contains("lines 3, 4"),
            "{m}"
        );
        let m = message(run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "y\n}", "end_anchor": "}"}),
        ));
        assert!(m.contains("single line"), "{m}");
        let m = message(run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "  ", "end_anchor": "}"}),
        ));
        assert!(m.contains("non-blank"), "{m}");
        // A trailing line break on an anchor is tolerated.
        run(
            &ws,
            json!({"path": "f.txt", "start_anchor": "  x = 1\n", "end_anchor": "y\n"}),
        )
        .unwrap();
        assert_eq!(ws.get_text("f.txt"), "}\n}\n");
    }

    #[test]
    fn crlf_and_missing_final_newline_are_kept() {
        let ws = Ws::new();
        ws.put("w.txt", b"a\r\nb\r\nc\r\nd");
        let out = run(
            &ws,
            json!({"path": "w.txt", "start_anchor": "c", "end_anchor": "d"}),
        )
        .unwrap();
        assert_eq!(ws.get("w.txt"), b"a\r\nb");
        assert!(out.ends_with(
                "@@ -1,4 +1,2 @@\n a\n-b\n-c\n-d\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"
            ), "{out}");
        ws.put("w.txt", b"a\r\nb\r\nc\r\n");
        run(
            &ws,
            json!({"path": "w.txt", "start_anchor": "b", "end_anchor": "b"}),
        )
        .unwrap();
        assert_eq!(ws.get("w.txt"), b"a\r\nc\r\n");
        // Deleting everything leaves an empty file.
        run(
            &ws,
            json!({"path": "w.txt", "start_anchor": "a", "end_anchor": "c"}),
        )
        .unwrap();
        assert_eq!(ws.get("w.txt"), b"");
    }

    #[test]
    fn diff_edge_cases() {
        assert_eq!(unified_diff("x", "a\n", "a\n"), "");
        assert_eq!(
            unified_diff("x", "a\n", ""),
            "--- a/x\n+++ b/x\n@@ -1 +0,0 @@\n-a\n"
        );
        assert_eq!(
            unified_diff("x", "a\nb\n", "b\n"),
            "--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n b\n"
        );
    }

    #[test]
    fn bad_arguments_name_the_field() {
        let ws = Ws::new();
        ws.put("f.txt", b"a\nb\n");
        for (args, field) in [
            (
                json!({"path": "f.txt", "start_anchor": "a"}),
                "missing field `end_anchor`",
            ),
            (
                json!({"path": "f.txt", "start_anchor": "a", "end_anchor": "b", "inclusive": "no"}),
                "`inclusive` must be a boolean",
            ),
        ] {
            match run(&ws, args) {
                Err(Error::InvalidInput(m)) => assert!(m.contains(field), "{m}"),
                other => panic!("{other:?}"),
            }
        }
    }
}
