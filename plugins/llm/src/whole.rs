//! A 2xx answer that is not an event stream (docs/PROVIDERS.md, "Failures"): a proxy or
//! gateway that ignored `"stream": true` and sent the whole completion as one JSON object, or a
//! captive portal's HTML page.
//!
//! A JSON completion is turned into the events its stream would have had (the same decoder then
//! reads it, so reasoning, tool calls, usage and finish reasons mean what they mean in a
//! stream). HTML is an error naming it. Neither is worth repeating: the JSON one is the answer,
//! and the page would come again.

use serde_json::{Map, Value, json};

use crate::Response;

/// What a successful response head says its body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// `text/event-stream`, no `content-type`, or anything not recognised below: read as SSE.
    Stream,
    /// `application/json` or `…+json`: one JSON object, maybe a whole completion.
    Json,
    /// `text/html` or `application/xhtml+xml`.
    Html,
}

/// The media type of `content-type`, lowercased, without parameters.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

pub fn classify(content_type: Option<&str>) -> Body {
    let Some(media) = content_type.map(media_type) else {
        return Body::Stream;
    };
    match media.as_str() {
        "text/html" | "application/xhtml+xml" => Body::Html,
        "application/json" => Body::Json,
        m if m.ends_with("+json") => Body::Json,
        _ => Body::Stream,
    }
}

/// A whole JSON completion larger than this is refused (a stream has no such bound).
pub const JSON_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// Bytes of an HTML page read for the error message.
pub const HTML_PEEK: usize = 2048;

/// Why the body could not be read whole.
#[derive(Debug)]
pub enum ReadFailure {
    /// Longer than the limit.
    TooLong,
    Http(reasonix_sdk::http::HttpError),
}

/// The body, at most `limit` bytes; `stop_at_limit` reads only up to it and keeps what came.
pub fn read_body(
    response: &mut dyn Response,
    limit: usize,
    stop_at_limit: bool,
) -> Result<Vec<u8>, ReadFailure> {
    let mut data = Vec::new();
    loop {
        match response.read_chunk() {
            Ok(Some(bytes)) => {
                data.extend_from_slice(&bytes);
                if data.len() > limit {
                    if stop_at_limit {
                        data.truncate(limit);
                        return Ok(data);
                    }
                    return Err(ReadFailure::TooLong);
                }
            }
            Ok(None) => return Ok(data),
            Err(_) if stop_at_limit && !data.is_empty() => return Ok(data),
            Err(e) => return Err(ReadFailure::Http(e)),
        }
    }
}

/// The start of a body from outside, on one line, for an error message: whitespace runs
/// become one space, other control characters are escaped (`\u{1b}`), at most `max`
/// characters, `…` when cut. The terminal layer escapes what it prints again.
pub fn excerpt(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    let mut count = 0;
    let mut space = false;
    for c in text.trim().chars() {
        if count >= max {
            out.push('…');
            break;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            count += 1;
            space = false;
        }
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
        count += 1;
    }
    out
}

/// The SSE body a stream of these `data` values would have been.
pub fn as_sse(events: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for event in events {
        out.push_str("data: ");
        // `Value::to_string` escapes newlines inside strings: one line per event.
        out.push_str(&event.to_string());
        out.push_str("\n\n");
    }
    out.into_bytes()
}

/// Chat Completions: `choices[0].message` becomes the `delta` of one chunk (with its
/// `finish_reason` and the `usage`), then `[DONE]`. An `error` object is passed on as the
/// stream's error chunk. `None` when the object is neither.
pub fn openai(body: &Value) -> Option<Vec<u8>> {
    let is_completion = body
        .get("choices")
        .and_then(Value::as_array)
        .is_some_and(|c| !c.is_empty());
    if !is_completion && body.get("error").is_none_or(Value::is_null) {
        return None;
    }
    let mut chunk = body.clone();
    if let Some(choices) = chunk.get_mut("choices").and_then(Value::as_array_mut) {
        for choice in choices.iter_mut() {
            if let Some(choice) = choice.as_object_mut()
                && let Some(message) = choice.remove("message")
            {
                choice.insert("delta".into(), message);
            }
        }
    }
    let mut sse = as_sse(&[chunk]);
    sse.extend_from_slice(b"data: [DONE]\n\n");
    Some(sse)
}

/// Anthropic Messages: `message_start` (usage), each `content` block whole as a
/// `content_block_start` + `content_block_stop`, `message_delta` (stop reason), `message_stop`.
/// A `{"type": "error"}` body is the stream's error event. `None` when the object is neither.
pub fn anthropic(body: &Value) -> Option<Vec<u8>> {
    if body.get("type").and_then(Value::as_str) == Some("error") {
        return Some(as_sse(std::slice::from_ref(body)));
    }
    if !body.get("content").is_some_and(Value::is_array) {
        return None;
    }
    let usage = body.get("usage").cloned().unwrap_or(Value::Null);
    let mut start = body.clone();
    if let Some(message) = start.as_object_mut() {
        message.insert("content".into(), Value::Array(Vec::new()));
        message.insert("stop_reason".into(), Value::Null);
    }
    let mut events = vec![json!({"type": "message_start", "message": start})];
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (index, block) in blocks.into_iter().enumerate() {
        events.push(json!({"type": "content_block_start", "index": index, "content_block": block}));
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    let stop_reason = body.get("stop_reason").cloned().unwrap_or(Value::Null);
    events.push(json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": body.get("stop_sequence").cloned().unwrap_or(Value::Null)},
        "usage": usage,
    }));
    events.push(json!({"type": "message_stop"}));
    Some(as_sse(&events))
}

/// OpenAI Responses: each `output` item as the events that carry its content (text,
/// refusal, reasoning summary or text) and its `response.output_item.done`, then
/// `response.completed` / `response.incomplete` / `response.failed` by `status`. A body with
/// an `error` object and no `status` is the stream's `error` event. `None` when the object is
/// neither.
pub fn responses(body: &Value) -> Option<Vec<u8>> {
    if body.get("status").is_none() && body.get("error").is_some_and(Value::is_object) {
        let mut error = Map::new();
        error.insert("type".into(), json!("error"));
        error.insert(
            "error".into(),
            body.get("error").cloned().unwrap_or(Value::Null),
        );
        return Some(as_sse(&[Value::Object(error)]));
    }
    if !body.get("output").is_some_and(Value::is_array) {
        return None;
    }
    let mut events = Vec::new();
    let items = body
        .get("output")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (index, item) in items.into_iter().enumerate() {
        let parts = |key: &str| {
            item.get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in parts("content") {
                    let (kind, key) = match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => ("response.output_text.delta", "text"),
                        Some("refusal") => ("response.refusal.delta", "refusal"),
                        _ => continue,
                    };
                    let delta = part.get(key).cloned().unwrap_or(json!(""));
                    events.push(json!({"type": kind, "output_index": index, "delta": delta}));
                }
            }
            Some("reasoning") => {
                for part in parts("summary") {
                    let delta = part.get("text").cloned().unwrap_or(json!(""));
                    events.push(
                        json!({"type": "response.reasoning_summary_part.added", "output_index": index}),
                    );
                    events.push(json!({"type": "response.reasoning_summary_text.delta", "output_index": index, "delta": delta}));
                }
                for part in parts("content") {
                    if part.get("type").and_then(Value::as_str) == Some("reasoning_text") {
                        let delta = part.get("text").cloned().unwrap_or(json!(""));
                        events.push(json!({"type": "response.reasoning_text.delta", "output_index": index, "delta": delta}));
                    }
                }
            }
            _ => {}
        }
        events.push(
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }
    let terminal = match body.get("status").and_then(Value::as_str) {
        Some("incomplete") => "response.incomplete",
        Some("failed") => "response.failed",
        _ => "response.completed",
    };
    events.push(json!({"type": terminal, "response": body}));
    Some(as_sse(&events))
}

/// A [`Response`] whose body is already here.
pub struct Buffered {
    pub status: u16,
    pub body: Option<Vec<u8>>,
}

impl Response for Buffered {
    fn status(&self) -> u16 {
        self.status
    }
    fn header(&self, _name: &str) -> Option<String> {
        None
    }
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, reasonix_sdk::http::HttpError> {
        Ok(self.body.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        assert_eq!(classify(None), Body::Stream);
        assert_eq!(
            classify(Some("text/event-stream; charset=utf-8")),
            Body::Stream
        );
        assert_eq!(
            classify(Some("Application/JSON; charset=utf-8")),
            Body::Json
        );
        assert_eq!(classify(Some("application/problem+json")), Body::Json);
        assert_eq!(classify(Some("text/html;charset=UTF-8")), Body::Html);
        assert_eq!(classify(Some("text/plain")), Body::Stream);
    }

    #[test]
    fn excerpt_is_one_bounded_escaped_line() {
        assert_eq!(
            excerpt(b"  <html>\n  <title>Log in</title>\x1b[31m", 200),
            "<html> <title>Log in</title>\\u{1b}[31m"
        );
        assert_eq!(excerpt("ééééé".as_bytes(), 3), "ééé…");
    }
}
