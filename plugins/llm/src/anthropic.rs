//! Anthropic Messages (`kind = "anthropic"`): native Claude, the DeepSeek Anthropic endpoint and
//! Anthropic-compatible gateways.
//!
//! Request: `root + /v1/messages` with `anthropic-version: 2023-06-01`; a mandatory `max_tokens`;
//! system text as a block array; tools with their raw schemas (bytes preserved); prompt-cache
//! breakpoints (`cache_control: {type: ephemeral}`) on the last system block (or the last tool)
//! and on the last block of the last message, except for DeepSeek (automatic prefix cache).
//! Everything before `messages` depends only on the system text and tools, never on the
//! conversation, so the cached prefix stays byte-identical from turn to turn.
//!
//! Reasoning replay: signed `thinking` / `redacted_thinking` blocks captured in the message's
//! `reasoning_state` (see [`decode`]) go back verbatim while thinking is on; DeepSeek gets an
//! unsigned thinking block rebuilt from the message's `reasoning` text before its tool calls.

mod decode;
#[cfg(test)]
pub(crate) mod tests;

use serde_json::{Map, Value, json};

use crate::wire::{
    Decoder, HttpRequest, Image, Message, Protocol, ReasoningProtocol, Request, Role, ToolCall,
};

/// The Anthropic Messages wire protocol.
pub struct Anthropic;

/// The API version header every request carries.
pub const API_VERSION: &str = "2023-06-01";
/// Used when the provider has no `base_url`.
const DEFAULT_ROOT: &str = "https://api.anthropic.com";
/// `max_tokens` when none is configured: DeepSeek's server maximum.
const DEEPSEEK_MAX_TOKENS: u32 = 384_000;
/// `max_tokens` for native Claude with thinking on, leaving room for the thinking budget.
const THINKING_MAX_TOKENS: u32 = 32_000;
/// `max_tokens` otherwise.
const DEFAULT_MAX_TOKENS: u32 = 16_384;

impl Protocol for Anthropic {
    fn build(&self, request: &Request) -> Result<HttpRequest, String> {
        let body = body(request)?;
        Ok(HttpRequest {
            url: url(request),
            headers: headers(
                &[
                    ("content-type", "application/json"),
                    ("accept", "text/event-stream"),
                    ("anthropic-version", API_VERSION),
                ],
                &request.options.headers,
            ),
            body: body.into_bytes(),
        })
    }

    fn whole(&self, body: &serde_json::Value) -> Option<Vec<u8>> {
        crate::whole::anthropic(body)
    }

    fn decoder(&self, request: &Request) -> Box<dyn Decoder> {
        Box::new(decode::AnthropicDecoder::new(&request.provider))
    }
}

/// `request_url`, else `root + /v1/messages` where root is `base_url` without a trailing `/v1`.
fn url(request: &Request) -> String {
    if let Some(url) = request
        .options
        .request_url
        .as_deref()
        .filter(|u| !u.is_empty())
    {
        return url.to_string();
    }
    let base = request.base_url.trim_end_matches('/');
    let root = base.strip_suffix("/v1").unwrap_or(base);
    let root = if root.is_empty() { DEFAULT_ROOT } else { root };
    format!("{root}/v1/messages")
}

/// The protocol's headers followed by the configured ones; a configured header replaces a
/// protocol header of the same name (case-insensitive), e.g. a gateway's own API version.
pub(crate) fn headers(base: &[(&str, &str)], extra: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = base
        .iter()
        .filter(|(name, _)| !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    out.extend(extra.iter().cloned());
    out
}

/// Whether the kernel asked for thinking (`enabled` or `adaptive`).
fn thinking_on(request: &Request) -> bool {
    matches!(
        request.options.thinking.as_deref(),
        Some("enabled" | "adaptive")
    )
}

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// The request body, fields in a fixed order so that the cached prefix is byte-stable.
fn body(request: &Request) -> Result<String, String> {
    let protocol = request.options.reasoning_protocol;
    let native = protocol == ReasoningProtocol::Anthropic;
    let deepseek = protocol == ReasoningProtocol::Deepseek;
    let cache = !deepseek;

    let max_tokens = match request.max_output_tokens.filter(|&n| n > 0) {
        Some(n) => n,
        None if deepseek => DEEPSEEK_MAX_TOKENS,
        None if native && thinking_on(request) => THINKING_MAX_TOKENS,
        None => DEFAULT_MAX_TOKENS,
    };

    let mut system: Vec<Value> = request
        .messages
        .iter()
        .filter(|m| m.role == Role::System && !m.content.is_empty())
        .map(|m| json!({"type": "text", "text": m.content}))
        .collect();
    if cache && let Some(Value::Object(last)) = system.last_mut() {
        last.insert("cache_control".into(), ephemeral());
    }
    let tools = tools_json(request, cache && system.is_empty())?;

    let mut messages = messages(request)?;
    if cache {
        mark_last_block(&mut messages);
    }

    let mut fields: Vec<(&str, String)> = vec![
        ("model", to_json(&Value::String(request.model.clone()))?),
        ("max_tokens", max_tokens.to_string()),
    ];
    if !system.is_empty() {
        fields.push(("system", to_json(&Value::Array(system))?));
    }
    if let Some(tools) = tools {
        fields.push(("tools", tools));
    }
    fields.push(("messages", to_json(&Value::Array(messages))?));
    fields.push(("stream", "true".into()));
    if !native && let Some(t) = request.options.temperature {
        fields.push(("temperature", to_json(&json!(t))?));
    }
    if protocol != ReasoningProtocol::None
        && let Some(thinking) = request.options.thinking.as_deref()
    {
        let value = match thinking {
            "enabled" | "adaptive" if native => {
                json!({"type": "adaptive", "display": "summarized"})
            }
            other => json!({"type": other}),
        };
        fields.push(("thinking", to_json(&value)?));
    }
    if let Some(effort) = request.effort.as_deref().filter(|e| !e.is_empty()) {
        fields.push(("output_config", to_json(&json!({"effort": effort}))?));
    }
    object(&fields, &request.options.extra_body)
}

/// `[{name, description, input_schema}]` with each schema's text embedded as given, or `None`
/// when there are no tools. `cache_last` marks the last tool as a cache breakpoint.
fn tools_json(request: &Request, cache_last: bool) -> Result<Option<String>, String> {
    if request.tools.is_empty() {
        return Ok(None);
    }
    let mut out = String::from("[");
    for (i, tool) in request.tools.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let schema = raw_schema(&tool.name, &tool.parameters)?;
        out.push_str(&format!(
            "{{\"name\":{},\"description\":{},\"input_schema\":{}",
            to_json(&Value::String(tool.name.clone()))?,
            to_json(&Value::String(tool.description.clone()))?,
            schema
        ));
        if cache_last && i + 1 == request.tools.len() {
            out.push_str(",\"cache_control\":{\"type\":\"ephemeral\"}");
        }
        out.push('}');
    }
    out.push(']');
    Ok(Some(out))
}

/// The schema text of a tool, checked to be a JSON object; an empty schema means "no arguments".
pub(crate) fn raw_schema<'a>(tool: &str, parameters: &'a str) -> Result<&'a str, String> {
    let text = parameters.trim();
    if text.is_empty() {
        return Ok("{\"type\":\"object\",\"properties\":{}}");
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(_)) => Ok(text),
        Ok(_) => Err(format!(
            "tool `{tool}`: parameters must be a JSON Schema object, got another JSON value"
        )),
        Err(e) => Err(format!(
            "tool `{tool}`: parameters is not valid JSON ({e}); fix the tool's schema"
        )),
    }
}

/// Serialise a value (cannot fail for `Value`, but stay total).
pub(crate) fn to_json(value: &Value) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| format!("cannot serialise the request body: {e}"))
}

/// `{"k":v,…}` from pre-serialised fields in the given order, followed by the `extra_body`
/// fields the protocol does not set itself (protocol fields win).
pub(crate) fn object(
    fields: &[(&str, String)],
    extra: &Map<String, Value>,
) -> Result<String, String> {
    let mut out = String::from("{");
    let mut first = true;
    let mut push = |out: &mut String, key: &str, value: &str| -> Result<(), String> {
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(&to_json(&Value::String(key.to_string()))?);
        out.push(':');
        out.push_str(value);
        Ok(())
    };
    for (key, value) in fields {
        push(&mut out, key, value)?;
    }
    for (key, value) in extra {
        if !fields.iter().any(|(k, _)| k == key) {
            push(&mut out, key, &to_json(value)?)?;
        }
    }
    out.push('}');
    Ok(out)
}

/// Put a cache breakpoint on the last block of the last message that can carry one (thinking
/// blocks cannot).
fn mark_last_block(messages: &mut [Value]) {
    let Some(blocks) = messages
        .last_mut()
        .and_then(|m| m.get_mut("content"))
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    let target = blocks.iter_mut().rev().find(|b| {
        !matches!(
            b.get("type").and_then(Value::as_str),
            Some("thinking" | "redacted_thinking")
        )
    });
    if let Some(Value::Object(block)) = target {
        block.insert("cache_control".into(), ephemeral());
    }
}

/// The conversation as Anthropic messages: system messages left out (they go to `system`),
/// consecutive tool results merged into one user message (a user message right after them
/// joins it), assistant turns as thinking / text / tool_use blocks.
fn messages(request: &Request) -> Result<Vec<Value>, String> {
    let mut out: Vec<(&str, Vec<Value>)> = Vec::new();
    // Whether the last entry of `out` is a user message opened by tool results.
    let mut open_results = false;
    for (index, message) in request.messages.iter().enumerate() {
        match message.role {
            Role::System => {}
            Role::Tool => {
                let Some(id) = message.tool_call_id.as_deref().filter(|id| !id.is_empty()) else {
                    return Err(format!(
                        "message {index} (tool result) has no tool_call_id; every tool result \
                         must answer a tool call of the previous assistant message"
                    ));
                };
                let mut block = json!({"type": "tool_result", "tool_use_id": id});
                // `content` is optional; an empty one is left out rather than risk a rejection.
                if !message.images.is_empty() {
                    let mut content = Vec::new();
                    if !message.content.is_empty() {
                        content.push(json!({"type": "text", "text": message.content}));
                    }
                    content.extend(message.images.iter().map(image_block));
                    block["content"] = Value::Array(content);
                } else if !message.content.is_empty() {
                    block["content"] = Value::String(message.content.clone());
                }
                match out.last_mut() {
                    Some((_, blocks)) if open_results => blocks.push(block),
                    _ => out.push(("user", vec![block])),
                }
                open_results = true;
            }
            Role::User => {
                let text = if message.content.trim().is_empty() {
                    // Anthropic rejects empty and whitespace-only text blocks.
                    "(empty message)"
                } else {
                    message.content.as_str()
                };
                let mut blocks = vec![json!({"type": "text", "text": text})];
                blocks.extend(message.images.iter().map(image_block));
                match out.last_mut() {
                    Some((_, open)) if open_results => open.extend(blocks),
                    _ => out.push(("user", blocks)),
                }
                open_results = false;
            }
            Role::Assistant => {
                let blocks = assistant_blocks(request, message);
                if !blocks.is_empty() {
                    out.push(("assistant", blocks));
                }
                open_results = false;
            }
        }
    }
    Ok(out
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect())
}

/// An `image` block with the image inline.
fn image_block(image: &Image) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": image.media_type, "data": image.data},
    })
}

/// Thinking replay, text and tool_use blocks of one assistant message.
fn assistant_blocks(request: &Request, message: &Message) -> Vec<Value> {
    let protocol = request.options.reasoning_protocol;
    let mut blocks = Vec::new();
    match protocol {
        ReasoningProtocol::None => {}
        ReasoningProtocol::Deepseek => {
            // DeepSeek's endpoint wants the (unsigned) chain of thought before tool calls.
            let thinking = match message.reasoning.as_deref() {
                _ if message.tool_calls.is_empty() => None,
                _ if request.options.strip_chain_of_thought => Some(""),
                Some(text) => Some(text),
                None if thinking_on(request) => Some(""),
                None => None,
            };
            if let Some(text) = thinking {
                blocks.push(json!({"type": "thinking", "thinking": text}));
            }
        }
        // Signed blocks go back verbatim: the signature binds the text, so they are replayed
        // even with `strip_chain_of_thought` (they only ever return to the model that wrote
        // them; altering them is rejected by the API).
        _ if thinking_on(request) => blocks.extend(signed_blocks(message)),
        _ => {}
    }
    if !message.content.trim().is_empty() {
        blocks.push(json!({"type": "text", "text": message.content}));
    }
    for call in &message.tool_calls {
        blocks.push(json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": tool_input(call),
        }));
    }
    blocks
}

/// The thinking blocks captured in `reasoning_state` that can be replayed: signed thinking and
/// redacted thinking. Anything unreadable is skipped (the state is opaque, possibly from an
/// older format).
fn signed_blocks(message: &Message) -> Vec<Value> {
    let Some(state) = message.reasoning_state.as_deref() else {
        return Vec::new();
    };
    let Ok(state) = serde_json::from_str::<Value>(state) else {
        return Vec::new();
    };
    let Some(blocks) = state.get("blocks").and_then(Value::as_array) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter_map(|block| match block.get("type").and_then(Value::as_str) {
            Some("thinking") => {
                let signature = block.get("signature").and_then(Value::as_str)?;
                if signature.is_empty() {
                    return None;
                }
                let thinking = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                Some(json!({"type": "thinking", "thinking": thinking, "signature": signature}))
            }
            Some("redacted_thinking") => {
                let data = block.get("data").and_then(Value::as_str)?;
                Some(json!({"type": "redacted_thinking", "data": data}))
            }
            _ => None,
        })
        .collect()
}

/// A tool call's arguments as the `input` object; unparsable or non-object arguments become
/// `{}` so that one bad call from the model never makes the whole history unsendable.
fn tool_input(call: &ToolCall) -> Value {
    match serde_json::from_str::<Value>(&call.arguments) {
        Ok(value @ Value::Object(_)) => value,
        _ => Value::Object(Map::new()),
    }
}

/// At most 200 characters of `text`, for error messages.
pub(crate) fn quote(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}
