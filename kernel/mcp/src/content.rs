//! MCP results as the text a model reads. Server output is untrusted: text is kept as text
//! (the agent bounds and redacts it like any tool result), binary content is described, not
//! inlined, and assembly stops at [`MAX_RESULT_BYTES`].

use crate::limits::MAX_RESULT_BYTES;
use serde_json::Value;

/// The text of a `CallToolResult` / `GetPromptResult` message content / `ReadResourceResult`
/// contents list, given as JSON.
pub fn blocks_text(blocks: &[Value]) -> String {
    let mut out = String::new();
    for block in blocks {
        if out.len() >= MAX_RESULT_BYTES {
            out.push_str("\n[… further content left out: the result is over 1 MiB]");
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&block_text(block));
    }
    if out.len() > MAX_RESULT_BYTES {
        let mut end = MAX_RESULT_BYTES;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push_str("\n[… cut: the result is over 1 MiB]");
    }
    out
}

fn block_text(block: &Value) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    let mime = block
        .get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or("unknown type");
    let size = |key: &str| {
        block
            .get(key)
            .and_then(Value::as_str)
            .map_or(0, |b| b.len() / 4 * 3)
    };
    if let Some(text) = block.get("text").and_then(Value::as_str) {
        return text.to_string();
    }
    match kind {
        "image" | "audio" => format!("[{kind}: {mime}, about {} bytes]", size("data")),
        "resource" => block.get("resource").map(block_text).unwrap_or_default(),
        "resource_link" => format!(
            "[resource: {}]",
            block.get("uri").and_then(Value::as_str).unwrap_or("")
        ),
        _ if block.get("blob").is_some() => format!(
            "[{}: {mime}, about {} bytes]",
            block.get("uri").and_then(Value::as_str).unwrap_or("binary"),
            size("blob")
        ),
        _ => block.to_string(),
    }
}

/// A tool result: its content blocks, or its structured content when it has no blocks.
pub fn tool_result_text(result: &Value) -> (String, bool) {
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let text = if blocks.is_empty() {
        result
            .get("structuredContent")
            .map(Value::to_string)
            .unwrap_or_default()
    } else {
        blocks_text(&blocks)
    };
    (text, is_error)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_images_and_resources_read_as_text() {
        let result = json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "x://a", "text": "inside"}},
        ]});
        let (text, error) = tool_result_text(&result);
        assert!(!error);
        assert_eq!(text, "hello\n[image: image/png, about 3 bytes]\ninside");
    }

    #[test]
    fn a_huge_result_is_bounded() {
        let big = "x".repeat(3 * MAX_RESULT_BYTES);
        let result =
            json!({"content": [{"type": "text", "text": big}, {"type": "text", "text": "more"}]});
        let (text, _) = tool_result_text(&result);
        assert!(text.len() < MAX_RESULT_BYTES + 200, "{}", text.len());
        assert!(text.ends_with("over 1 MiB]"));
    }

    #[test]
    fn structured_content_when_no_blocks() {
        let (text, error) =
            tool_result_text(&json!({"structuredContent": {"a": 1}, "isError": true}));
        assert_eq!(text, r#"{"a":1}"#);
        assert!(error);
    }
}
