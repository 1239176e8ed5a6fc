//! The `openai` kind: OpenAI Chat Completions and the many endpoints compatible with it
//! (DeepSeek, Kimi, GLM, MiniMax, Ollama …). The reasoning protocol decides the reasoning fields
//! sent and replayed; see `/work/shared/reference/reasonix-inventory.md` §6.1 and §6.3.
//!
//! Request: `POST base_url/chat/completions` (or `request_url`) with
//! `{model, messages, tools?, stream: true, stream_options: {include_usage: true}, temperature?,
//! max_tokens | max_completion_tokens?, reasoning_effort?, thinking?}` followed by the
//! `extra_body` fields the protocol does not set itself. Tool schemas are embedded verbatim, so
//! the same tools give the same bytes (the backend's prefix cache depends on it).
//!
//! Stream: `data:` chunks until `data: [DONE]`. Text and reasoning deltas are passed on as they
//! arrive; tool calls are accumulated by index and emitted complete at `[DONE]`, followed by the
//! usage and `Done`.

use crate::wire::{
    Decoder, Event, Failure, Finish, HttpRequest, Image, Message, Protocol, ReasoningProtocol,
    Request, Role, SseEvent, ToolCall, Usage,
};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// OpenAI Chat Completions.
pub struct OpenAi;

impl Protocol for OpenAi {
    fn build(&self, request: &Request) -> Result<HttpRequest, String> {
        Ok(HttpRequest {
            url: url(request),
            headers: request.options.headers.clone(),
            body: body(request)?.into_bytes(),
        })
    }

    fn whole(&self, body: &serde_json::Value) -> Option<Vec<u8>> {
        crate::whole::openai(body)
    }

    fn decoder(&self, _request: &Request) -> Box<dyn Decoder> {
        Box::new(ChatDecoder::default())
    }
}

/// `request_url`, or `base_url` + `/chat/completions`.
fn url(request: &Request) -> String {
    match &request.options.request_url {
        Some(url) => url.clone(),
        None => format!(
            "{}/chat/completions",
            request.base_url.trim_end_matches('/')
        ),
    }
}

/// The JSON body, with fields in a fixed order.
fn body(request: &Request) -> Result<String, String> {
    let protocol = request.options.reasoning_protocol;
    let mut fields: Vec<(&str, String)> = vec![
        ("model", to_json(&Value::String(request.model.clone()))?),
        ("messages", messages(request)?),
    ];
    if !request.tools.is_empty() {
        fields.push(("tools", tools(request)?));
    }
    fields.push(("stream", "true".to_string()));
    fields.push(("stream_options", r#"{"include_usage":true}"#.to_string()));
    if let Some(temperature) = request.options.temperature
        && protocol != ReasoningProtocol::KimiK3
    {
        let number = serde_json::Number::from_f64(temperature)
            .ok_or_else(|| format!("options.temperature: {temperature} is not a finite number"))?;
        fields.push(("temperature", number.to_string()));
    }
    if let Some(max) = request.max_output_tokens {
        let key = match protocol {
            ReasoningProtocol::Openai | ReasoningProtocol::KimiK3 => "max_completion_tokens",
            _ => "max_tokens",
        };
        fields.push((key, max.to_string()));
    }
    if let Some(effort) = &request.effort {
        fields.push(("reasoning_effort", to_json(&Value::String(effort.clone()))?));
    }
    if let Some(thinking) = &request.options.thinking {
        fields.push(("thinking", to_json(&json!({ "type": thinking }))?));
    }
    object(&fields, &request.options.extra_body)
}

/// `[{type: "function", function: {name, description, parameters}}]`, schemas verbatim.
fn tools(request: &Request) -> Result<String, String> {
    let mut out = String::from("[");
    for (i, tool) in request.tools.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let function = object(
            &[
                ("name", to_json(&Value::String(tool.name.clone()))?),
                (
                    "description",
                    to_json(&Value::String(tool.description.clone()))?,
                ),
                (
                    "parameters",
                    raw_schema(&tool.name, &tool.parameters)?.to_string(),
                ),
            ],
            &Map::new(),
        )?;
        out.push_str(&format!(r#"{{"type":"function","function":{function}}}"#));
    }
    out.push(']');
    Ok(out)
}

/// The conversation as Chat Completions messages. A tool message's content is text only, so
/// the images of a run of tool results follow it in one user message, each labelled with the
/// call that returned it.
fn messages(request: &Request) -> Result<String, String> {
    let mut out = Vec::with_capacity(request.messages.len());
    let mut tool_images: Vec<(&str, &[Image])> = Vec::new();
    for (i, message) in request.messages.iter().enumerate() {
        if message.role != Role::Tool {
            flush_tool_images(request, &mut tool_images, &mut out);
        }
        out.push(wire_message(request, i, message)?);
        if message.role == Role::Tool
            && !message.images.is_empty()
            && let Some(id) = message.tool_call_id.as_deref()
        {
            tool_images.push((id, &message.images));
        }
    }
    flush_tool_images(request, &mut tool_images, &mut out);
    to_json(&Value::Array(out))
}

fn flush_tool_images(request: &Request, pending: &mut Vec<(&str, &[Image])>, out: &mut Vec<Value>) {
    if pending.is_empty() {
        return;
    }
    let mut parts = Vec::new();
    for (id, images) in pending.drain(..) {
        parts.push(
            json!({"type": "text", "text": format!("The image(s) returned by tool call {id}:")}),
        );
        parts.extend(images.iter().map(|image| image_part(request, image)));
    }
    out.push(json!({"role": "user", "content": parts}));
}

/// An `image_url` content part with the image inline.
fn image_part(request: &Request, image: &Image) -> Value {
    let mut url = json!({"url": image.data_url()});
    if let Some(detail) = &request.options.vision_detail {
        url["detail"] = Value::String(detail.clone());
    }
    json!({"type": "image_url", "image_url": url})
}

fn wire_message(request: &Request, index: usize, message: &Message) -> Result<Value, String> {
    Ok(match message.role {
        Role::System => json!({"role": "system", "content": message.content}),
        Role::User if message.images.is_empty() => {
            json!({"role": "user", "content": message.content})
        }
        Role::User => {
            let mut parts = vec![json!({"type": "text", "text": message.content})];
            parts.extend(
                message
                    .images
                    .iter()
                    .map(|image| image_part(request, image)),
            );
            json!({"role": "user", "content": parts})
        }
        Role::Tool => {
            let id = message.tool_call_id.as_deref().ok_or_else(|| {
                format!(
                    "messages[{index}]: a tool message needs tool_call_id (the id of the call it answers)"
                )
            })?;
            json!({"role": "tool", "tool_call_id": id, "content": message.content})
        }
        Role::Assistant => {
            let mut out = Map::new();
            out.insert("role".into(), json!("assistant"));
            let content = if message.content.is_empty() && !message.tool_calls.is_empty() {
                Value::Null
            } else {
                Value::String(message.content.clone())
            };
            out.insert("content".into(), content);
            if !message.tool_calls.is_empty() {
                let calls = message
                    .tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        })
                    })
                    .collect();
                out.insert("tool_calls".into(), Value::Array(calls));
            }
            if let Some(reasoning) = replayed_reasoning(request, message) {
                out.insert("reasoning_content".into(), Value::String(reasoning));
            }
            Value::Object(out)
        }
    })
}

/// The `reasoning_content` to send back with an assistant message, if the protocol wants it.
fn replayed_reasoning(request: &Request, message: &Message) -> Option<String> {
    let strip = request.options.strip_chain_of_thought;
    let kept = || {
        if strip {
            String::new()
        } else {
            message.reasoning.clone().unwrap_or_default()
        }
    };
    match request.options.reasoning_protocol {
        // DeepSeek thinking mode rejects an assistant turn with tool calls that lacks the key.
        ReasoningProtocol::Deepseek
            if !message.tool_calls.is_empty() || message.reasoning.is_some() =>
        {
            Some(kept())
        }
        ReasoningProtocol::KimiK3 | ReasoningProtocol::Glm if message.reasoning.is_some() => {
            Some(kept())
        }
        _ => None,
    }
}

/// The schema text of a tool, checked to be a JSON object; empty means "no arguments".
fn raw_schema<'a>(tool: &str, parameters: &'a str) -> Result<&'a str, String> {
    let text = parameters.trim();
    if text.is_empty() {
        return Ok(r#"{"type":"object","properties":{}}"#);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(_)) => Ok(text),
        Ok(_) => Err(format!(
            "tools: `{tool}`: parameters must be a JSON Schema object, got another JSON value"
        )),
        Err(e) => Err(format!(
            "tools: `{tool}`: parameters is not valid JSON ({e}); fix the tool's schema"
        )),
    }
}

fn to_json(value: &Value) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| format!("cannot serialise the request body: {e}"))
}

/// `{"k":v,…}` from pre-serialised fields in order, then the `extra` fields not set already.
fn object(fields: &[(&str, String)], extra: &Map<String, Value>) -> Result<String, String> {
    let mut parts = Vec::with_capacity(fields.len() + extra.len());
    for (key, value) in fields {
        parts.push(format!(
            "{}:{value}",
            to_json(&Value::String((*key).into()))?
        ));
    }
    for (key, value) in extra {
        if !fields.iter().any(|(k, _)| k == key) {
            parts.push(format!(
                "{}:{}",
                to_json(&Value::String(key.clone()))?,
                to_json(value)?
            ));
        }
    }
    Ok(format!("{{{}}}", parts.join(",")))
}

/// At most 200 characters of `text`, for error messages.
fn quote(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// Usage in the normalised shape, from any of the shapes OpenAI-compatible backends send
/// (inventory §6.1, "Usage normalisation").
pub fn normalise_usage(usage: &Value) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64);
    let field = |key: &str| n(usage.get(key));
    let input = field("input_tokens").unwrap_or(0);
    let cache_write = field("cache_creation_input_tokens").unwrap_or(0);
    let cache_read = field("cache_read_input_tokens");
    let prompt_tokens = field("prompt_tokens");
    let prompt = prompt_tokens.unwrap_or_else(|| input + cache_write + cache_read.unwrap_or(0));
    let hit = field("prompt_cache_hit_tokens")
        .or_else(|| n(usage.pointer("/prompt_tokens_details/cached_tokens")))
        .or(cache_read)
        .unwrap_or(0);
    let miss = field("prompt_cache_miss_tokens").unwrap_or_else(|| match prompt_tokens {
        Some(prompt) => prompt.saturating_sub(hit),
        None => input + cache_write,
    });
    Usage {
        prompt,
        completion: field("completion_tokens")
            .or_else(|| field("output_tokens"))
            .unwrap_or(0),
        cache_hit: hit,
        cache_miss: miss,
        reasoning: n(usage.pointer("/completion_tokens_details/reasoning_tokens")).unwrap_or(0),
    }
}

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";

/// Where the content stream is with respect to an inline `<think>…</think>` block.
#[derive(Debug, Default, PartialEq, Eq)]
enum ThinkState {
    /// Nothing but whitespace yet: the content may still open with `<think>`.
    #[default]
    Start,
    /// Inside `<think>…`: content is reasoning.
    Inside,
    /// Right after `</think>`: leading newlines are dropped.
    After,
    /// Plain answer text.
    Text,
}

/// Splits an inline `<think>` block at the start of the content into reasoning.
#[derive(Debug, Default)]
struct ThinkSplitter {
    state: ThinkState,
    /// Text held back until it can be classified (a possible tag prefix).
    held: String,
}

impl ThinkSplitter {
    fn push(&mut self, delta: &str, out: &mut Vec<Event>) {
        self.held.push_str(delta);
        loop {
            match self.state {
                ThinkState::Start => {
                    let trimmed = self.held.trim_start();
                    if let Some(rest) = trimmed.strip_prefix(THINK_OPEN) {
                        self.held = rest.to_string();
                        self.state = ThinkState::Inside;
                    } else if THINK_OPEN.starts_with(trimmed) {
                        return; // empty, whitespace or a prefix of the tag: wait for more
                    } else {
                        self.state = ThinkState::Text;
                    }
                }
                ThinkState::Inside => match self.held.find(THINK_CLOSE) {
                    Some(at) => {
                        let rest = self.held.split_off(at);
                        emit_reasoning(std::mem::take(&mut self.held), out);
                        self.held = rest[THINK_CLOSE.len()..].to_string();
                        self.state = ThinkState::After;
                    }
                    None => {
                        let keep = partial_suffix(&self.held, THINK_CLOSE);
                        let tail = self.held.split_off(self.held.len() - keep);
                        emit_reasoning(std::mem::replace(&mut self.held, tail), out);
                        return;
                    }
                },
                ThinkState::After => {
                    let rest = self.held.trim_start_matches(['\r', '\n']);
                    if rest.is_empty() {
                        self.held.clear();
                        return;
                    }
                    self.held = rest.to_string();
                    self.state = ThinkState::Text;
                }
                ThinkState::Text => {
                    emit_text(std::mem::take(&mut self.held), out);
                    return;
                }
            }
        }
    }

    /// The content ended: whatever is held back is what it looked like.
    fn flush(&mut self, out: &mut Vec<Event>) {
        let held = std::mem::take(&mut self.held);
        match self.state {
            ThinkState::Inside => emit_reasoning(held, out),
            ThinkState::After => {}
            ThinkState::Start | ThinkState::Text => emit_text(held, out),
        }
    }
}

/// Length of the longest suffix of `text` that is a proper prefix of `tag`.
fn partial_suffix(text: &str, tag: &str) -> usize {
    (1..tag.len())
        .rev()
        .find(|&n| text.is_char_boundary(text.len().saturating_sub(n)) && text.ends_with(&tag[..n]))
        .unwrap_or(0)
}

fn emit_text(text: String, out: &mut Vec<Event>) {
    if !text.is_empty() {
        out.push(Event::Text(text));
    }
}

fn emit_reasoning(text: String, out: &mut Vec<Event>) {
    if !text.is_empty() {
        out.push(Event::Reasoning(text));
    }
}

/// A tool call being assembled from deltas.
#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Decodes a Chat Completions stream.
#[derive(Debug, Default)]
pub struct ChatDecoder {
    think: ThinkSplitter,
    calls: BTreeMap<u64, PartialCall>,
    finish: Option<Finish>,
    usage: Option<Usage>,
    done: bool,
}

impl Decoder for ChatDecoder {
    fn feed(&mut self, event: &SseEvent) -> Result<Vec<Event>, Failure> {
        if self.done {
            return Ok(Vec::new());
        }
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Vec::new());
        }
        if data == "[DONE]" {
            return Ok(self.complete());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            Failure::BadResponse(format!(
                "the stream sent a chunk that is not JSON ({e}): {}",
                quote(data)
            ))
        })?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(upstream(error));
        }
        let mut out = Vec::new();
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(normalise_usage(usage));
        }
        let choices = match chunk.get("choices") {
            None | Some(Value::Null) => return Ok(out),
            Some(Value::Array(choices)) => choices,
            Some(_) => {
                return Err(Failure::BadResponse(format!(
                    "`choices` is not a list in chunk: {}",
                    quote(data)
                )));
            }
        };
        // One completion is requested (n = 1), so only the first choice matters.
        let Some(choice) = choices.first() else {
            return Ok(out);
        };
        if let Some(delta) = choice.get("delta") {
            for key in ["reasoning_content", "reasoning"] {
                if let Some(text) = delta.get(key).and_then(Value::as_str) {
                    emit_reasoning(text.to_string(), &mut out);
                }
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.think.push(text, &mut out);
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for (position, call) in calls.iter().enumerate() {
                    self.call_delta(position, call);
                }
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(match reason {
                "stop" => Finish::Stop,
                "tool_calls" | "function_call" => Finish::ToolCalls,
                "length" => Finish::Length,
                "content_filter" => Finish::ContentFilter,
                _ => Finish::Other,
            });
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<Event>, Failure> {
        if self.done {
            Ok(Vec::new())
        } else if self.finish.is_some() {
            // A `finish_reason` and a clean end of body is a finished answer; some servers and
            // proxies leave out `[DONE]`, and re-sending it would bill the answer again.
            Ok(self.complete())
        } else {
            Err(Failure::Interrupted)
        }
    }
}

impl ChatDecoder {
    fn call_delta(&mut self, position: usize, delta: &Value) {
        let id = delta
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let index = match delta.get("index").and_then(Value::as_u64) {
            Some(index) => index,
            // Some gateways leave out `index`: a known id continues its call, a new id starts
            // the next one, and a delta with neither continues the latest call.
            None => self.index_without_index(id, position),
        };
        let call = self.calls.entry(index).or_default();
        if let Some(id) = id {
            call.id = Some(id.to_string());
        }
        if let Some(function) = delta.get("function") {
            if let Some(name) = function
                .get("name")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                call.name = name.to_string();
            }
            if let Some(arguments) = function.get("arguments").and_then(Value::as_str) {
                call.arguments.push_str(arguments);
            }
        }
    }

    fn index_without_index(&self, id: Option<&str>, position: usize) -> u64 {
        let known = id.and_then(|id| {
            self.calls
                .iter()
                .find(|(_, call)| call.id.as_deref() == Some(id))
                .map(|(index, _)| *index)
        });
        let last = self.calls.keys().next_back().copied();
        match (known, id, last) {
            (Some(index), _, _) => index,
            (None, Some(_), Some(last)) => last + 1,
            (None, None, Some(last)) => last,
            (None, _, None) => position as u64,
        }
    }

    /// `[DONE]`: held text, the complete calls in index order, usage, then `Done`.
    fn complete(&mut self) -> Vec<Event> {
        self.done = true;
        let mut out = Vec::new();
        self.think.flush(&mut out);
        let calls = std::mem::take(&mut self.calls);
        let had_calls = !calls.is_empty();
        for (index, call) in calls {
            out.push(Event::ToolCall(ToolCall {
                id: call.id.unwrap_or_else(|| format!("call_{index}")),
                name: call.name,
                arguments: if call.arguments.trim().is_empty() {
                    "{}".to_string()
                } else {
                    call.arguments
                },
            }));
        }
        if let Some(usage) = self.usage {
            out.push(Event::Usage(usage));
        }
        // A cut (length, content filter) stays a cut with calls too: the host must not run
        // calls whose arguments may end mid-value.
        let finish = match self.finish {
            Some(cut @ (Finish::Length | Finish::ContentFilter)) => cut,
            _ if had_calls => Finish::ToolCalls,
            other => other.unwrap_or(Finish::Stop),
        };
        out.push(Event::Done(finish));
        out
    }
}

/// An `error` object inside the stream.
fn upstream(error: &Value) -> Failure {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| quote(&error.to_string()));
    let status = ["status", "code", "status_code"]
        .iter()
        .filter_map(|key| error.get(*key))
        .find_map(|v| {
            v.as_u64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        })
        .and_then(|n| u16::try_from(n).ok())
        .filter(|n| (100..600).contains(n));
    let kind = [error.get("type"), error.get("code")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    let retryable = matches!(status, Some(408 | 429 | 500..=599))
        || [
            "overloaded",
            "rate_limit",
            "server_error",
            "timeout",
            "unavailable",
        ]
        .iter()
        .any(|word| kind.contains(word));
    Failure::Upstream {
        message,
        retryable,
        status,
    }
}

#[cfg(test)]
mod tests;
