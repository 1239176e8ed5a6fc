//! Decoding an OpenAI Responses event stream.
//!
//! Every event's data is a JSON object whose `type` names it. Output items (`message`,
//! `reasoning`, `function_call`) open with `response.output_item.added` and close with
//! `response.output_item.done`; text and reasoning stream as `*.delta` events; function-call
//! arguments stream as `response.function_call_arguments.delta` keyed by item id / output index.
//! The stream ends with `response.completed`, `response.incomplete` or `response.failed` (no
//! `[DONE]`); `error` reports a failure.
//!
//! The reasoning state is `{"items":[<reasoning output item as received>, …]}`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::anthropic::quote;
use crate::wire::{Decoder, Event, Failure, Finish, SseEvent, ToolCall, Usage};

/// A function call being received.
#[derive(Default)]
struct Call {
    item_id: String,
    call_id: String,
    name: String,
    arguments: String,
}

pub(super) struct ResponsesDecoder {
    provider: String,
    /// Open function calls by output index.
    calls: BTreeMap<u64, Call>,
    /// Completed reasoning items, in stream order.
    reasoning: Vec<Value>,
    tool_calls: usize,
    /// Reasoning text was streamed (the next summary part gets a separator).
    reasoned: bool,
    refused: bool,
    done: bool,
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

impl ResponsesDecoder {
    pub(super) fn new(provider: &str) -> ResponsesDecoder {
        ResponsesDecoder {
            provider: provider.to_string(),
            calls: BTreeMap::new(),
            reasoning: Vec::new(),
            tool_calls: 0,
            reasoned: false,
            refused: false,
            done: false,
        }
    }

    fn bad(&self, what: &str, data: &str) -> Failure {
        Failure::BadResponse(format!(
            "{}: the Responses stream sent {what}: {}",
            self.provider,
            quote(data)
        ))
    }

    /// The open call an arguments event refers to: by item id, else by output index.
    fn call_for(&mut self, value: &Value) -> Option<&mut Call> {
        let item_id = str_of(value, "item_id");
        let index = value.get("output_index").and_then(Value::as_u64);
        let key = self
            .calls
            .iter()
            .find(|(_, c)| !item_id.is_empty() && c.item_id == item_id)
            .map(|(k, _)| *k)
            .or(index)?;
        Some(self.calls.entry(key).or_insert_with(|| Call {
            item_id: item_id.to_string(),
            ..Call::default()
        }))
    }

    fn item_added(&mut self, value: &Value) {
        let item = value.get("item").unwrap_or(&Value::Null);
        if str_of(item, "type") != "function_call" {
            return;
        }
        let index = value
            .get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or(self.calls.len() as u64);
        self.calls.insert(
            index,
            Call {
                item_id: str_of(item, "id").to_string(),
                call_id: str_of(item, "call_id").to_string(),
                name: str_of(item, "name").to_string(),
                arguments: str_of(item, "arguments").to_string(),
            },
        );
    }

    fn item_done(&mut self, value: &Value, out: &mut Vec<Event>) {
        let item = value.get("item").unwrap_or(&Value::Null);
        match str_of(item, "type") {
            "reasoning" => self.reasoning.push(item.clone()),
            "function_call" => {
                let item_id = str_of(item, "id");
                let key = self
                    .calls
                    .iter()
                    .find(|(_, c)| !item_id.is_empty() && c.item_id == item_id)
                    .map(|(k, _)| *k)
                    .or_else(|| value.get("output_index").and_then(Value::as_u64));
                let mut call = key.and_then(|k| self.calls.remove(&k)).unwrap_or_default();
                // The finished item is authoritative where it has the data.
                for (field, key) in [
                    (&mut call.call_id, "call_id"),
                    (&mut call.name, "name"),
                    (&mut call.arguments, "arguments"),
                    (&mut call.item_id, "id"),
                ] {
                    let v = str_of(item, key);
                    if !v.is_empty() {
                        *field = v.to_string();
                    }
                }
                self.emit(call, out);
            }
            _ => {}
        }
    }

    fn emit(&mut self, call: Call, out: &mut Vec<Event>) {
        let id = if call.call_id.is_empty() {
            call.item_id
        } else {
            call.call_id
        };
        let arguments = if call.arguments.trim().is_empty() {
            "{}".to_string()
        } else {
            call.arguments
        };
        self.tool_calls += 1;
        out.push(Event::ToolCall(ToolCall {
            id,
            name: call.name,
            arguments,
        }));
    }

    /// A terminal event: leftover calls, state, usage, done.
    fn terminal(&mut self, value: &Value, incomplete: bool, out: &mut Vec<Event>) {
        for (_, call) in std::mem::take(&mut self.calls) {
            self.emit(call, out);
        }
        if !self.reasoning.is_empty() {
            let state = json!({"items": std::mem::take(&mut self.reasoning)});
            out.push(Event::ReasoningState(state.to_string()));
        }
        let response = value.get("response").unwrap_or(&Value::Null);
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            let get = |outer: &str, inner: Option<&str>| {
                let v = usage.get(outer);
                let v = match inner {
                    Some(inner) => v.and_then(|v| v.get(inner)),
                    None => v,
                };
                v.and_then(Value::as_u64).unwrap_or(0)
            };
            let prompt = get("input_tokens", None);
            let hit = get("input_tokens_details", Some("cached_tokens")).min(prompt);
            out.push(Event::Usage(Usage {
                prompt,
                completion: get("output_tokens", None),
                cache_hit: hit,
                cache_miss: prompt - hit,
                reasoning: get("output_tokens_details", Some("reasoning_tokens")),
            }));
        }
        let finish = if incomplete {
            match response
                .get("incomplete_details")
                .map(|d| str_of(d, "reason"))
                .unwrap_or("")
            {
                "max_output_tokens" => Finish::Length,
                "content_filter" => Finish::ContentFilter,
                _ => Finish::Other,
            }
        } else if self.tool_calls > 0 {
            Finish::ToolCalls
        } else if self.refused {
            Finish::ContentFilter
        } else {
            Finish::Stop
        };
        out.push(Event::Done(finish));
        self.done = true;
    }

    /// `response.failed` (error under `response.error`) or `error` (fields at the top level, or
    /// under `error` on some gateways).
    fn upstream(&mut self, error: &Value) -> Failure {
        self.done = true;
        let code = str_of(error, "code");
        let kind = str_of(error, "type");
        let message = match str_of(error, "message") {
            "" => "no message",
            m => m,
        };
        let label = [code, kind]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or("error");
        let (retryable, status) = if label.contains("rate_limit") {
            (true, Some(429))
        } else if matches!(
            label,
            "server_error" | "internal_error" | "overloaded" | "server_is_overloaded"
        ) {
            (true, Some(500))
        } else {
            (false, None)
        };
        Failure::Upstream {
            message: format!("{}: {label}: {message}", self.provider),
            retryable,
            status,
        }
    }
}

impl Decoder for ResponsesDecoder {
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
        let delta = || str_of(&value, "delta").to_string();
        match kind {
            "response.output_text.delta" => push(&mut out, delta(), Event::Text),
            "response.refusal.delta" => {
                self.refused = true;
                push(&mut out, delta(), Event::Text);
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let piece = delta();
                self.reasoned |= !piece.is_empty();
                push(&mut out, piece, Event::Reasoning);
            }
            // Separate summary paragraphs (and reasoning items) by a blank line.
            "response.reasoning_summary_part.added" if self.reasoned => {
                out.push(Event::Reasoning("\n\n".into()));
            }
            "response.output_item.added" => self.item_added(&value),
            "response.function_call_arguments.delta" => {
                let piece = delta();
                if let Some(call) = self.call_for(&value) {
                    call.arguments.push_str(&piece);
                }
            }
            "response.function_call_arguments.done" => {
                let full = str_of(&value, "arguments").to_string();
                if let Some(call) = self.call_for(&value)
                    && !full.is_empty()
                {
                    call.arguments = full;
                }
            }
            "response.output_item.done" => self.item_done(&value, &mut out),
            "response.completed" => self.terminal(&value, false, &mut out),
            "response.incomplete" => self.terminal(&value, true, &mut out),
            "response.failed" => {
                let error = value
                    .get("response")
                    .and_then(|r| r.get("error"))
                    .filter(|e| e.is_object())
                    .cloned()
                    .unwrap_or_else(|| json!({"code": "failed", "message": "the response failed"}));
                return Err(self.upstream(&error));
            }
            "error" => {
                let error = value
                    .get("error")
                    .filter(|e| e.is_object())
                    .cloned()
                    .unwrap_or_else(|| value.clone());
                return Err(self.upstream(&error));
            }
            // response.created / in_progress, content_part.*, *.done text events, …
            _ => {}
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<Event>, Failure> {
        if self.done {
            Ok(Vec::new())
        } else {
            Err(Failure::Interrupted)
        }
    }
}

fn push(out: &mut Vec<Event>, text: String, make: fn(String) -> Event) {
    if !text.is_empty() {
        out.push(make(text));
    }
}
