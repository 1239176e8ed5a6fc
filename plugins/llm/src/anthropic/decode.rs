//! Decoding an Anthropic Messages event stream.
//!
//! `message_start` → content blocks (`content_block_start` / `_delta` / `_stop`, keyed by block
//! index) → `message_delta` (stop reason, cumulative usage) → `message_stop`. `ping` is a
//! keep-alive; `error` reports a failure inside a 200 response.
//!
//! The reasoning state (stored on the assistant message, handed back by the kernel) is
//! `{"blocks":[{"type":"thinking","thinking":"…","signature":"…"},
//! {"type":"redacted_thinking","data":"…"}]}` — the signed/redacted blocks in stream order.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::quote;
use crate::wire::{Decoder, Event, Failure, Finish, SseEvent, ToolCall, Usage};

/// One content block being received.
enum Block {
    Thinking {
        text: String,
        signature: String,
    },
    Redacted {
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
        start_input: Option<String>,
    },
    /// Text (streamed out as it comes) and block types we do not act on.
    Other,
}

/// The four usage counters Anthropic reports; the maximum seen wins (message_start carries the
/// input side, message_delta the cumulative output side; some gateways repeat both).
#[derive(Default)]
struct Counters {
    seen: bool,
    input: u64,
    cache_creation: u64,
    cache_read: u64,
    output: u64,
}

impl Counters {
    fn merge(&mut self, usage: Option<&Value>) {
        let Some(usage) = usage.filter(|u| u.is_object()) else {
            return;
        };
        self.seen = true;
        let get = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        self.input = self.input.max(get("input_tokens"));
        self.cache_creation = self.cache_creation.max(get("cache_creation_input_tokens"));
        self.cache_read = self.cache_read.max(get("cache_read_input_tokens"));
        self.output = self.output.max(get("output_tokens"));
    }

    fn normalised(&self) -> Usage {
        Usage {
            prompt: self.input + self.cache_creation + self.cache_read,
            completion: self.output,
            cache_hit: self.cache_read,
            cache_miss: self.input + self.cache_creation,
            reasoning: 0,
        }
    }
}

pub(super) struct AnthropicDecoder {
    provider: String,
    blocks: BTreeMap<u64, Block>,
    /// Completed signed thinking / redacted thinking blocks, in stream order.
    state: Vec<Value>,
    usage: Counters,
    stop_reason: Option<String>,
    tool_calls: usize,
    /// `message_stop` seen (or an error returned): everything after is ignored.
    done: bool,
}

impl AnthropicDecoder {
    pub(super) fn new(provider: &str) -> AnthropicDecoder {
        AnthropicDecoder {
            provider: provider.to_string(),
            blocks: BTreeMap::new(),
            state: Vec::new(),
            usage: Counters::default(),
            stop_reason: None,
            tool_calls: 0,
            done: false,
        }
    }

    fn bad(&self, what: &str, data: &str) -> Failure {
        Failure::BadResponse(format!(
            "{}: the Anthropic stream sent {what}: {}",
            self.provider,
            quote(data)
        ))
    }

    fn block_start(&mut self, value: &Value, out: &mut Vec<Event>) {
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
        let block = value.get("content_block").unwrap_or(&Value::Null);
        let text = |key: &str| {
            block
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let entry = match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                push_text(out, text("text"), Event::Text);
                Block::Other
            }
            Some("thinking") => {
                let thinking = text("thinking");
                push_text(out, thinking.clone(), Event::Reasoning);
                Block::Thinking {
                    text: thinking,
                    signature: text("signature"),
                }
            }
            Some("redacted_thinking") => Block::Redacted { data: text("data") },
            Some("tool_use") => {
                // The start carries `input: {}`; a gateway may put the whole input here instead.
                let start_input = block
                    .get("input")
                    .filter(|v| v.as_object().is_some_and(|o| !o.is_empty()))
                    .map(Value::to_string);
                Block::ToolUse {
                    id: text("id"),
                    name: text("name"),
                    json: String::new(),
                    start_input,
                }
            }
            _ => Block::Other,
        };
        self.blocks.insert(index, entry);
    }

    fn block_delta(&mut self, value: &Value, out: &mut Vec<Event>) {
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
        let delta = value.get("delta").unwrap_or(&Value::Null);
        let field = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or("");
        let block = self.blocks.get_mut(&index);
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => push_text(out, field("text").to_string(), Event::Text),
            Some("thinking_delta") => {
                let piece = field("thinking");
                if let Some(Block::Thinking { text, .. }) = block {
                    text.push_str(piece);
                }
                push_text(out, piece.to_string(), Event::Reasoning);
            }
            Some("signature_delta") => match block {
                Some(Block::Thinking { signature, .. }) => signature.push_str(field("signature")),
                // A signature for a block whose start we missed: keep it with empty text.
                _ => {
                    self.blocks.insert(
                        index,
                        Block::Thinking {
                            text: String::new(),
                            signature: field("signature").to_string(),
                        },
                    );
                }
            },
            Some("input_json_delta") => {
                if let Some(Block::ToolUse { json, .. }) = block {
                    json.push_str(field("partial_json"));
                }
            }
            // citations_delta and future delta types carry nothing we forward.
            _ => {}
        }
    }

    /// Close the block at `index`: tool calls are emitted, signed thinking is remembered.
    fn block_stop(&mut self, index: u64, out: &mut Vec<Event>) {
        let Some(block) = self.blocks.remove(&index) else {
            return;
        };
        match block {
            Block::Thinking { text, signature } if !signature.is_empty() => self
                .state
                .push(json!({"type": "thinking", "thinking": text, "signature": signature})),
            Block::Redacted { data } => {
                self.state
                    .push(json!({"type": "redacted_thinking", "data": data}));
            }
            Block::ToolUse {
                id,
                name,
                json,
                start_input,
            } => {
                let arguments = if !json.trim().is_empty() {
                    json
                } else {
                    start_input.unwrap_or_else(|| "{}".to_string())
                };
                self.tool_calls += 1;
                out.push(Event::ToolCall(ToolCall {
                    id,
                    name,
                    arguments,
                }));
            }
            Block::Thinking { .. } | Block::Other => {}
        }
    }

    fn finish_reason(&self) -> Finish {
        match self.stop_reason.as_deref() {
            Some("end_turn" | "stop_sequence") => Finish::Stop,
            Some("tool_use") => Finish::ToolCalls,
            Some("max_tokens" | "model_context_window_exceeded") => Finish::Length,
            Some("refusal") => Finish::ContentFilter,
            Some(_) => Finish::Other,
            None if self.tool_calls > 0 => Finish::ToolCalls,
            None => Finish::Stop,
        }
    }

    /// `message_stop`: close any block left open, then state, usage, done.
    fn stop(&mut self, out: &mut Vec<Event>) {
        let open: Vec<u64> = self.blocks.keys().copied().collect();
        for index in open {
            self.block_stop(index, out);
        }
        if !self.state.is_empty() {
            let state = json!({"blocks": std::mem::take(&mut self.state)});
            out.push(Event::ReasoningState(state.to_string()));
        }
        if self.usage.seen {
            out.push(Event::Usage(self.usage.normalised()));
        }
        out.push(Event::Done(self.finish_reason()));
        self.done = true;
    }

    fn upstream(&mut self, value: &Value) -> Failure {
        self.done = true;
        let error = value.get("error").unwrap_or(value);
        let kind = error.get("type").and_then(Value::as_str).unwrap_or("error");
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        let (retryable, status) = match kind {
            "overloaded_error" => (true, Some(529)),
            "api_error" => (true, Some(500)),
            "rate_limit_error" => (true, Some(429)),
            "timeout_error" => (true, Some(504)),
            "invalid_request_error" => (false, Some(400)),
            "authentication_error" => (false, Some(401)),
            "permission_error" => (false, Some(403)),
            "not_found_error" => (false, Some(404)),
            "request_too_large" => (false, Some(413)),
            _ => (false, None),
        };
        Failure::Upstream {
            message: format!("{}: {kind}: {message}", self.provider),
            retryable,
            status,
        }
    }
}

fn push_text(out: &mut Vec<Event>, text: String, make: fn(String) -> Event) {
    if !text.is_empty() {
        out.push(make(text));
    }
}

impl Decoder for AnthropicDecoder {
    fn feed(&mut self, event: &SseEvent) -> Result<Vec<Event>, Failure> {
        if self.done {
            return Ok(Vec::new());
        }
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let value: Value = serde_json::from_str(data)
            .map_err(|e| self.bad(&format!("data that is not JSON ({e})"), data))?;
        if !value.is_object() {
            return Err(self.bad("data that is not a JSON object", data));
        }
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .or(event.event.as_deref())
            .unwrap_or("");
        let mut out = Vec::new();
        match kind {
            "message_start" => self
                .usage
                .merge(value.get("message").and_then(|m| m.get("usage"))),
            "content_block_start" => self.block_start(&value, &mut out),
            "content_block_delta" => self.block_delta(&value, &mut out),
            "content_block_stop" => {
                let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
                self.block_stop(index, &mut out);
            }
            "message_delta" => {
                if let Some(reason) = value
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    self.stop_reason = Some(reason.to_string());
                }
                self.usage.merge(value.get("usage"));
            }
            "message_stop" => self.stop(&mut out),
            "error" => return Err(self.upstream(&value)),
            // ping and unknown event types (forward compatibility).
            _ => {}
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<Event>, Failure> {
        if self.done {
            Ok(Vec::new())
        } else if self.stop_reason.is_some() {
            // `message_delta` carried the stop reason and the body ended cleanly: the message
            // is finished even without `message_stop`.
            let mut out = Vec::new();
            self.stop(&mut out);
            Ok(out)
        } else {
            Err(Failure::Interrupted)
        }
    }
}
