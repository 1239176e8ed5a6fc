//! MCP results as the text a model reads, and the images a model that reads images is given.
//! Server output is untrusted: text is kept as text (the agent bounds and redacts it like any
//! tool result), binary content is described in the text, assembly stops at
//! [`MAX_RESULT_BYTES`], and an image is passed on only when [`reasonix_core::image::checked`]
//! takes it (a common type, well-formed base64, bounded), at most [`MAX_IMAGES`] per result.

use crate::limits::{MAX_IMAGES, MAX_RESULT_BYTES};
use reasonix_core::types::{Image, ToolOutput};
use serde_json::Value;

/// The text and images of a `CallToolResult` content list or a `ReadResourceResult` contents
/// list, given as JSON. Every image is described in the text whether or not it is passed on.
pub fn blocks_output(blocks: &[Value]) -> ToolOutput {
    let mut images = Vec::new();
    let mut left_out = 0;
    for block in blocks {
        let Some(image) = image_of(block) else {
            continue;
        };
        if images.len() < MAX_IMAGES {
            images.push(image);
        } else {
            left_out += 1;
        }
    }
    let mut text = blocks_text(blocks);
    if left_out > 0 {
        text.push_str(&format!(
            "\n[{left_out} more image(s) not shown to the model: at most {MAX_IMAGES} per result]"
        ));
    }
    ToolOutput {
        text,
        images,
        is_error: false,
    }
}

/// The image a content block carries (`image` content, or an embedded or read resource with an
/// image `blob`), if it is one a model can be given.
fn image_of(block: &Value) -> Option<Image> {
    let (holder, key) = match block.get("type").and_then(Value::as_str) {
        Some("image") => (block, "data"),
        Some("resource") => (block.get("resource")?, "blob"),
        Some(_) => return None,
        // A `ReadResourceResult` content has no `type`.
        None => (block, "blob"),
    };
    let media_type = holder.get("mimeType").and_then(Value::as_str)?;
    let data = holder.get(key).and_then(Value::as_str)?;
    reasonix_core::image::checked(media_type, data).ok()
}

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
pub fn tool_result(result: &Value) -> ToolOutput {
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let output = if blocks.is_empty() {
        ToolOutput::from(
            result
                .get("structuredContent")
                .map(Value::to_string)
                .unwrap_or_default(),
        )
    } else {
        blocks_output(&blocks)
    };
    ToolOutput { is_error, ..output }
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
        let output = tool_result(&result);
        assert!(!output.is_error);
        assert_eq!(
            output.text,
            "hello\n[image: image/png, about 3 bytes]\ninside"
        );
        assert_eq!(
            output.images,
            vec![Image {
                media_type: "image/png".into(),
                data: "AAAA".into()
            }]
        );
    }

    #[test]
    fn only_well_formed_images_of_common_types_are_passed_on() {
        let image =
            |mime: &str, data: &str| json!({"type": "image", "mimeType": mime, "data": data});
        let passed = |block: Value| blocks_output(&[block]).images.len();
        assert_eq!(passed(image("image/png", "iVBORw0KGgo=")), 1);
        assert_eq!(passed(image("IMAGE/JPEG", "/9j/4A==")), 1);
        assert_eq!(passed(image("image/svg+xml", "PHN2Zz4=")), 0, "svg");
        assert_eq!(passed(image("image/png", "not base64!")), 0);
        assert_eq!(passed(image("image/png", "AAA")), 0, "unpadded");
        assert_eq!(passed(image("image/png", "A===")), 0, "three pads");
        assert_eq!(passed(image("image/png", "AA\"}AA")), 0, "a quote");
        assert_eq!(passed(image("image/png", "")), 0);
        let huge = "A".repeat(reasonix_core::image::MAX_BASE64 + 4);
        assert_eq!(passed(image("image/png", &huge)), 0, "over the limit");
        // Embedded and read resources with an image blob count; other blobs do not.
        let embedded = json!({"type": "resource", "resource": {"uri": "x://i", "mimeType": "image/webp", "blob": "UklGRg=="}});
        assert_eq!(passed(embedded), 1);
        assert_eq!(
            passed(json!({"uri": "x://i", "mimeType": "image/gif", "blob": "R0lGOA=="})),
            1
        );
        assert_eq!(
            passed(json!({"uri": "x://p", "mimeType": "application/pdf", "blob": "JVBERg=="})),
            0
        );
    }

    #[test]
    fn images_beyond_the_limit_are_described_but_not_passed() {
        let blocks: Vec<Value> = (0..MAX_IMAGES + 3)
            .map(|_| json!({"type": "image", "mimeType": "image/png", "data": "AAAA"}))
            .collect();
        let output = blocks_output(&blocks);
        assert_eq!(output.images.len(), MAX_IMAGES);
        assert_eq!(
            output.text.matches("[image: image/png").count(),
            MAX_IMAGES + 3
        );
        assert!(
            output
                .text
                .ends_with("[3 more image(s) not shown to the model: at most 8 per result]"),
            "{}",
            output.text
        );
    }

    #[test]
    fn a_huge_result_is_bounded() {
        let big = "x".repeat(3 * MAX_RESULT_BYTES);
        let result =
            json!({"content": [{"type": "text", "text": big}, {"type": "text", "text": "more"}]});
        let output = tool_result(&result);
        let text = output.text;
        assert!(text.len() < MAX_RESULT_BYTES + 200, "{}", text.len());
        assert!(text.ends_with("over 1 MiB]"));
    }

    #[test]
    fn structured_content_when_no_blocks() {
        let output = tool_result(&json!({"structuredContent": {"a": 1}, "isError": true}));
        assert_eq!(output.text, r#"{"a":1}"#);
        assert!(output.is_error);
    }

    /// An error result keeps its images: a screenshot of what went wrong reaches the model.
    #[test]
    fn an_error_result_keeps_its_text_and_images() {
        let output = tool_result(&json!({"content": [
            {"type": "text", "text": "the page did not load"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        ], "isError": true}));
        assert!(output.is_error);
        assert!(output.text.starts_with("the page did not load"));
        assert_eq!(output.images.len(), 1);
    }
}
