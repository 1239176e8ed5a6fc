//! The built-in `bound` interceptor: at `tool.after` it cuts what the model reads of a large
//! result to `max_bytes` (`[plugin.bound.config] max_bytes`, default [`DEFAULT_MAX_BYTES`]),
//! note included, and tells the model how to get the rest with that tool. The kernel keeps
//! the full original in the session transcript (never sent to the provider).
#![forbid(unsafe_code)]

use reasonix_sdk::{Decision, Error, Plugin, PluginInfo, Subscription};
use serde_json::Value;

pub const POINT: &str = "tool.after";
/// After redaction (`redact`, -100): a secret cut in half would no longer be recognised.
pub const PRIORITY: i32 = 100;
pub const DEFAULT_MAX_BYTES: usize = 32 * 1024;
/// The smallest `max_bytes` honoured: room for the note and some of the result.
pub const MIN_MAX_BYTES: usize = 1024;

/// The bounding plugin.
pub struct Bound;

impl Plugin for Bound {
    fn info() -> PluginInfo {
        reasonix_sdk::plugin_info(
            "bound",
            "0.1.0",
            "Built-in interceptor: bounds what the model reads of a tool result",
        )
    }

    fn subscriptions() -> Vec<Subscription> {
        vec![Subscription::new(POINT).priority(PRIORITY)]
    }

    fn intercept(point: &str, payload: &str) -> Result<Decision, Error> {
        let max = max_bytes();
        // A payload within the bound holds a result within it: no parse needed.
        if point != POINT || payload.len() <= max {
            return Ok(Decision::Proceed);
        }
        let mut value: Value = serde_json::from_str(payload)
            .map_err(|e| Error::InvalidInput(format!("bound: the `{POINT}` payload: {e}")))?;
        let tool = value
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(result) = value.get("result").and_then(Value::as_str) else {
            return Err(Error::InvalidInput(format!(
                "bound: the `{POINT}` payload has no `result` text"
            )));
        };
        let Some(bounded) = bound(result, tool, max) else {
            return Ok(Decision::Proceed);
        };
        value["result"] = Value::String(bounded);
        Ok(Decision::Replace(value.to_string()))
    }
}

/// `[plugin.bound.config] max_bytes`, else the default; never below [`MIN_MAX_BYTES`].
fn max_bytes() -> usize {
    reasonix_sdk::host::config_value("max_bytes")
        .and_then(|v| v.as_u64())
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(DEFAULT_MAX_BYTES)
        .max(MIN_MAX_BYTES)
}

/// `result` cut to at most `max` bytes with the note, or `None` when it fits.
pub fn bound(result: &str, tool: &str, max: usize) -> Option<String> {
    if result.len() <= max {
        return None;
    }
    let total = result.len();
    // The note's length hardly depends on the numbers: measure it with the largest.
    let room = max.saturating_sub(note(tool, total, total).len());
    let head = cut(result, room);
    let mut out = head.to_string();
    out.push_str(&note(tool, head.len(), total));
    Some(out)
}

/// At most `limit` bytes of `text`, at a line end when there is one in the second half.
fn cut(text: &str, limit: usize) -> &str {
    let mut end = limit.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    match head.rfind('\n') {
        Some(i) if i >= limit / 2 => &head[..i],
        _ => head,
    }
}

/// What follows the cut: how much was shown and how to get the rest with this tool.
fn note(tool: &str, shown: usize, total: usize) -> String {
    let how = match tool {
        "read_file" => {
            "Read the rest with `read_file` and a later `offset` (and a `limit`), or `grep` the file for what you need."
        }
        "grep" => "Narrow the pattern, the path or the `glob` to get fewer matches.",
        "glob" | "ls" => "Narrow the pattern or the directory.",
        "bash" => {
            "Run the command again with its output narrowed: `| head -n`, `| tail -n`, `| grep …`, or redirect it to a file and read parts of that."
        }
        _ => "Ask for less at a time (a narrower range, pattern or path).",
    };
    format!("\n\n[Reasonix showed the first {shown} of {total} bytes of this result. {how}]")
}

reasonix_sdk::export!(Bound);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn a_large_result_is_cut_with_a_note_for_its_tool() {
        let result = "line of text\n".repeat(10_000);
        let out = bound(&result, "read_file", DEFAULT_MAX_BYTES).unwrap();
        assert!(out.len() <= DEFAULT_MAX_BYTES, "{}", out.len());
        assert!(out.contains(&format!("of {} bytes", result.len())));
        assert!(out.contains("`read_file` and a later `offset`"));
        assert!(out.starts_with("line of text\nline"));
        assert!(bound(&result, "bash", 2048).unwrap().contains("| head -n"));
        assert!(bound("small", "bash", 2048).is_none());
    }

    #[test]
    fn cuts_at_character_boundaries() {
        let result = "é".repeat(5000);
        let out = bound(&result, "x", 1024).unwrap();
        assert!(out.len() <= 1024);
        assert!(out.starts_with("éé"));
    }

    #[test]
    fn the_interceptor_replaces_only_large_results() {
        let payload = |result: &str| {
            serde_json::json!({"name": "bash", "arguments": "{}", "result": result,
                "isError": false, "callId": "c"})
            .to_string()
        };
        assert_eq!(
            Bound::intercept(POINT, &payload("ok")).unwrap(),
            Decision::Proceed
        );
        match Bound::intercept(POINT, &payload(&"x".repeat(100_000))).unwrap() {
            Decision::Replace(json) => {
                let v: Value = serde_json::from_str(&json).unwrap();
                assert!(v["result"].as_str().unwrap().len() <= DEFAULT_MAX_BYTES);
                assert_eq!(v["callId"], "c");
            }
            other => panic!("{other:?}"),
        }
    }
}
