//! OpenAI Responses (`kind = "responses"`): OpenAI and the stateless Responses endpoints of
//! other vendors (DeepSeek, MiMo, DashScope …).
//!
//! Request: `base_url + /responses`, `store: false` and the full conversation as `input` items
//! on every turn (no `previous_response_id`). System messages become `instructions`. Tools are
//! `{type: function, name, description, parameters, strict: false}` with the schema text
//! embedded as given (`strict` defaults to true on OpenAI, which rejects ordinary schemas).
//!
//! Reasoning replay: the reasoning output items captured in the message's `reasoning_state`
//! (see [`decode`]) go back before that assistant's other items. With `store: false` OpenAI can
//! only resolve a reasoning item through its `encrypted_content`, so for `reasoning_protocol =
//! "openai"` the body asks for it (`include`) whenever an effort is set, and items without it
//! are not replayed.

mod decode;
#[cfg(test)]
mod tests;

use serde_json::{Value, json};

use crate::anthropic::{headers, object, raw_schema, to_json};
use crate::wire::{
    Decoder, HttpRequest, Image, Message, Protocol, ReasoningProtocol, Request, Role,
};

/// The OpenAI Responses wire protocol.
pub struct Responses;

impl Protocol for Responses {
    fn build(&self, request: &Request) -> Result<HttpRequest, String> {
        let body = body(request)?;
        Ok(HttpRequest {
            url: url(request),
            headers: headers(
                &[
                    ("content-type", "application/json"),
                    ("accept", "text/event-stream"),
                ],
                &request.options.headers,
            ),
            body: body.into_bytes(),
        })
    }

    fn whole(&self, body: &serde_json::Value) -> Option<Vec<u8>> {
        crate::whole::responses(body)
    }

    fn decoder(&self, request: &Request) -> Box<dyn Decoder> {
        Box::new(decode::ResponsesDecoder::new(&request.provider))
    }
}

/// `request_url`, else `base_url + /responses`.
fn url(request: &Request) -> String {
    match request
        .options
        .request_url
        .as_deref()
        .filter(|u| !u.is_empty())
    {
        Some(url) => url.to_string(),
        None => format!("{}/responses", request.base_url.trim_end_matches('/')),
    }
}

/// The effort to send: `disabled` / `off` mean `none`.
fn effort(request: &Request) -> Option<&str> {
    match request.effort.as_deref()? {
        "" => None,
        "disabled" | "off" => Some("none"),
        other => Some(other),
    }
}

fn body(request: &Request) -> Result<String, String> {
    let protocol = request.options.reasoning_protocol;
    let mut fields: Vec<(&str, String)> =
        vec![("model", to_json(&Value::String(request.model.clone()))?)];
    let instructions: Vec<&str> = request
        .messages
        .iter()
        .filter(|m| m.role == Role::System && !m.content.is_empty())
        .map(|m| m.content.as_str())
        .collect();
    if !instructions.is_empty() {
        fields.push((
            "instructions",
            to_json(&Value::String(instructions.join("\n\n")))?,
        ));
    }
    if !request.tools.is_empty() {
        fields.push(("tools", tools_json(request)?));
    }
    fields.push(("input", to_json(&Value::Array(input(request)?))?));
    fields.push(("stream", "true".into()));
    fields.push(("store", "false".into()));
    let effort = effort(request);
    if protocol == ReasoningProtocol::Openai && effort.is_some_and(|e| e != "none") {
        fields.push(("include", r#"["reasoning.encrypted_content"]"#.into()));
    }
    if let Some(effort) = effort {
        fields.push(("reasoning", to_json(&json!({"effort": effort}))?));
    }
    if let Some(max) = request.max_output_tokens.filter(|&n| n > 0) {
        fields.push(("max_output_tokens", max.to_string()));
    }
    if let Some(t) = request.options.temperature {
        fields.push(("temperature", to_json(&json!(t))?));
    }
    object(&fields, &request.options.extra_body)
}

/// `[{type: function, name, description, parameters, strict: false}]`, schemas embedded as given.
fn tools_json(request: &Request) -> Result<String, String> {
    let mut out = String::from("[");
    for (i, tool) in request.tools.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "{{\"type\":\"function\",\"name\":{},\"description\":{},\"parameters\":{},\"strict\":false}}",
            to_json(&Value::String(tool.name.clone()))?,
            to_json(&Value::String(tool.description.clone()))?,
            raw_schema(&tool.name, &tool.parameters)?
        ));
    }
    out.push(']');
    Ok(out)
}

/// The conversation as input items.
fn input(request: &Request) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    for (index, message) in request.messages.iter().enumerate() {
        match message.role {
            Role::System => {}
            Role::User => {
                let mut content = vec![json!({"type": "input_text", "text": message.content})];
                content.extend(
                    message
                        .images
                        .iter()
                        .map(|image| input_image(request, image)),
                );
                items.push(json!({"type": "message", "role": "user", "content": content}));
            }
            Role::Assistant => {
                items.extend(reasoning_items(request, message));
                if !message.content.is_empty() {
                    items.push(json!({
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": message.content}],
                    }));
                }
                for call in &message.tool_calls {
                    let arguments = if call.arguments.trim().is_empty() {
                        "{}"
                    } else {
                        call.arguments.as_str()
                    };
                    items.push(json!({
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": arguments,
                    }));
                }
            }
            Role::Tool => {
                let Some(id) = message.tool_call_id.as_deref().filter(|id| !id.is_empty()) else {
                    return Err(format!(
                        "message {index} (tool result) has no tool_call_id; every tool result \
                         must answer a function call of the previous assistant message"
                    ));
                };
                let output = if message.images.is_empty() {
                    Value::String(message.content.clone())
                } else {
                    let mut parts = vec![json!({"type": "input_text", "text": message.content})];
                    parts.extend(
                        message
                            .images
                            .iter()
                            .map(|image| input_image(request, image)),
                    );
                    Value::Array(parts)
                };
                items.push(json!({
                    "type": "function_call_output",
                    "call_id": id,
                    "output": output,
                }));
            }
        }
    }
    Ok(items)
}

/// An `input_image` part with the image inline.
fn input_image(request: &Request, image: &Image) -> Value {
    let detail = request.options.vision_detail.as_deref().unwrap_or("auto");
    json!({"type": "input_image", "image_url": image.data_url(), "detail": detail})
}

/// The reasoning items to replay before an assistant message's output.
fn reasoning_items(request: &Request, message: &Message) -> Vec<Value> {
    let protocol = request.options.reasoning_protocol;
    let strip = request.options.strip_chain_of_thought;
    if protocol == ReasoningProtocol::None {
        return Vec::new();
    }
    let stored = message
        .reasoning_state
        .as_deref()
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .and_then(|state| state.get("items").and_then(Value::as_array).cloned())
        .unwrap_or_default();
    let mut out = Vec::new();
    for item in stored
        .iter()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("reasoning"))
    {
        let encrypted = item
            .get("encrypted_content")
            .filter(|v| v.as_str().is_some_and(|s| !s.is_empty()));
        // Without store, OpenAI resolves a reasoning item only through its encrypted content.
        if protocol == ReasoningProtocol::Openai && encrypted.is_none() {
            continue;
        }
        let mut replay = serde_json::Map::new();
        replay.insert("type".into(), json!("reasoning"));
        if let Some(id) = item.get("id").filter(|v| v.is_string()) {
            replay.insert("id".into(), id.clone());
        }
        let summary = match item.get("summary") {
            Some(summary @ Value::Array(_)) if !strip => summary.clone(),
            _ => json!([]),
        };
        replay.insert("summary".into(), summary);
        if !strip && let Some(content @ Value::Array(_)) = item.get("content") {
            replay.insert("content".into(), content.clone());
        }
        if let Some(encrypted) = encrypted {
            replay.insert("encrypted_content".into(), encrypted.clone());
        }
        out.push(Value::Object(replay));
    }
    // Stateless DeepSeek wants the chain of thought back even when no item was captured.
    if out.is_empty()
        && protocol == ReasoningProtocol::Deepseek
        && let Some(text) = message.reasoning.as_deref()
    {
        let text = if strip { "" } else { text };
        out.push(json!({
            "type": "reasoning",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": text}],
        }));
    }
    out
}
