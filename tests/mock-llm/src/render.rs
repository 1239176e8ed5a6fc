//! Turns a [`Reply`] into the SSE events of one wire protocol.

use serde_json::{Value, json};

use crate::script::{Finish, Reply, Step, Usage, Wire};

/// One unit of the response body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Out {
    /// A complete SSE event (ends with a blank line); sent as its own body chunk.
    Event(String),
    /// Hold the stream until the gate is released.
    Gate(String),
}

/// What [`crate::Fault::MalformedAfter`] sends: a `data:` line that is not JSON, under an event
/// name the wire's clients must parse (so ignoring unknown events cannot hide it).
pub(crate) fn malformed(wire: Wire) -> &'static str {
    match wire {
        Wire::OpenAi => "data: {\"choices\": [\n\n",
        Wire::Anthropic => "event: content_block_delta\ndata: {\"choices\": [\n\n",
        Wire::Responses => "event: response.output_text.delta\ndata: {\"choices\": [\n\n",
    }
}

/// What the renderer needs from the request.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    /// 1-based number of the request, used to make ids unique.
    pub seq: u64,
    /// The request's `model`, echoed back.
    pub model: String,
    /// OpenAI `stream_options.include_usage`.
    pub include_usage: bool,
    /// Responses: `reasoning.summary` was requested, so reasoning streams as a summary
    /// (`response.reasoning_summary_text.delta`) instead of `response.reasoning_text.delta`.
    pub reasoning_summary: bool,
    /// Size of the request body, for the usage estimate.
    pub request_bytes: usize,
}

impl Ctx {
    pub(crate) fn from_request(seq: u64, body: &str) -> Ctx {
        let json: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        Ctx {
            seq,
            model: json["model"].as_str().unwrap_or("mock-model").to_owned(),
            include_usage: json["stream_options"]["include_usage"].as_bool() == Some(true),
            reasoning_summary: json["reasoning"]["summary"].is_string(),
            request_bytes: body.len(),
        }
    }
}

pub(crate) fn render(wire: Wire, reply: &Reply, ctx: &Ctx) -> Vec<Out> {
    let steps = ordered_steps(&reply.steps);
    let usage = reply.usage.unwrap_or_else(|| estimate_usage(reply, ctx));
    let finish = reply.effective_finish();
    match wire {
        Wire::OpenAi => openai(&steps, usage, finish, ctx),
        Wire::Anthropic => anthropic(&steps, usage, finish, ctx),
        Wire::Responses => responses(&steps, usage, finish, ctx),
    }
}

/// The whole completion as one JSON object, as each API answers a request without
/// `"stream": true` (for [`crate::Fault::NonStreamed`]). Gates are ignored.
pub(crate) fn whole(wire: Wire, reply: &Reply, ctx: &Ctx) -> String {
    let steps = ordered_steps(&reply.steps);
    let usage = reply.usage.unwrap_or_else(|| estimate_usage(reply, ctx));
    let finish = reply.effective_finish();
    let text: String = steps
        .iter()
        .filter_map(|s| match s {
            Step::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    let reasoning: Vec<(&str, Option<&str>)> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Reasoning { text, signature } => Some((text.as_str(), signature.as_deref())),
            _ => None,
        })
        .collect();
    let calls: Vec<(&str, &str, &str)> = steps
        .iter()
        .filter_map(|s| match s {
            Step::ToolCall {
                id,
                name,
                arguments,
                ..
            } => Some((id.as_str(), name.as_str(), arguments.as_str())),
            _ => None,
        })
        .collect();
    let body = match wire {
        Wire::OpenAi => {
            let mut message = json!({"role": "assistant", "content": text});
            if !reasoning.is_empty() {
                let joined: String = reasoning.iter().map(|(t, _)| *t).collect();
                message["reasoning_content"] = json!(joined);
            }
            if !calls.is_empty() {
                message["tool_calls"] = calls
                    .iter()
                    .map(|(id, name, arguments)| {
                        json!({"id": id, "type": "function",
                               "function": {"name": name, "arguments": arguments}})
                    })
                    .collect();
            }
            let reason = match finish {
                Finish::Stop => "stop",
                Finish::ToolCalls => "tool_calls",
                Finish::Length => "length",
                Finish::ContentFilter => "content_filter",
            };
            json!({
                "id": format!("chatcmpl-mock{}", ctx.seq),
                "object": "chat.completion",
                "created": now_secs(),
                "model": ctx.model,
                "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": reason}],
                "usage": {
                    "prompt_tokens": usage.prompt,
                    "completion_tokens": usage.completion,
                    "total_tokens": usage.prompt + usage.completion,
                    "prompt_tokens_details": {"cached_tokens": usage.cache_hit},
                    "completion_tokens_details": {"reasoning_tokens": usage.reasoning},
                },
            })
        }
        Wire::Anthropic => {
            let mut content: Vec<Value> = reasoning
                .iter()
                .map(|(t, sig)| json!({"type": "thinking", "thinking": t, "signature": sig.unwrap_or("")}))
                .collect();
            if !text.is_empty() {
                content.push(json!({"type": "text", "text": text}));
            }
            for (id, name, arguments) in &calls {
                let input: Value = serde_json::from_str(arguments).unwrap_or_else(|_| json!({}));
                content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
            }
            let reason = match finish {
                Finish::Stop => "end_turn",
                Finish::ToolCalls => "tool_use",
                Finish::Length => "max_tokens",
                Finish::ContentFilter => "refusal",
            };
            json!({
                "id": format!("msg_mock{}", ctx.seq),
                "type": "message",
                "role": "assistant",
                "model": ctx.model,
                "content": content,
                "stop_reason": reason,
                "stop_sequence": null,
                "usage": {
                    "input_tokens": usage.cache_miss,
                    "cache_read_input_tokens": usage.cache_hit,
                    "cache_creation_input_tokens": 0,
                    "output_tokens": usage.completion,
                },
            })
        }
        Wire::Responses => {
            let mut output: Vec<Value> = reasoning
                .iter()
                .enumerate()
                .map(|(i, (t, sig))| {
                    let mut item = json!({"type": "reasoning", "id": format!("rs_mock{}_{i}", ctx.seq),
                                          "summary": [{"type": "summary_text", "text": t}]});
                    if let Some(sig) = sig {
                        item["encrypted_content"] = json!(sig);
                    }
                    item
                })
                .collect();
            if !text.is_empty() {
                let part = match finish {
                    Finish::ContentFilter => json!({"type": "refusal", "refusal": text}),
                    _ => json!({"type": "output_text", "text": text, "annotations": []}),
                };
                output.push(
                    json!({"type": "message", "id": format!("msg_mock{}", ctx.seq),
                                   "status": "completed", "role": "assistant", "content": [part]}),
                );
            }
            for (id, name, arguments) in &calls {
                output.push(
                    json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": id,
                                   "name": name, "arguments": arguments, "status": "completed"}),
                );
            }
            let (status, incomplete) = match finish {
                Finish::Length => ("incomplete", json!({"reason": "max_output_tokens"})),
                Finish::ContentFilter => ("incomplete", json!({"reason": "content_filter"})),
                _ => ("completed", Value::Null),
            };
            json!({
                "id": format!("resp_mock{}", ctx.seq),
                "object": "response",
                "created_at": now_secs(),
                "status": status,
                "error": null,
                "incomplete_details": incomplete,
                "model": ctx.model,
                "output": output,
                "usage": {
                    "input_tokens": usage.prompt,
                    "input_tokens_details": {"cached_tokens": usage.cache_hit},
                    "output_tokens": usage.completion,
                    "output_tokens_details": {"reasoning_tokens": usage.reasoning},
                    "total_tokens": usage.prompt + usage.completion,
                },
            })
        }
    };
    body.to_string()
}

/// The JSON error body each API answers with for an HTTP error.
pub(crate) fn error_body(wire: Option<Wire>, status: u16, message: &str) -> String {
    let (kind, code) = error_kind(wire, status);
    let body = match wire {
        Some(Wire::Anthropic) => json!({
            "type": "error",
            "error": {"type": kind, "message": message},
        }),
        _ => json!({
            "error": {"message": message, "type": kind, "param": null, "code": code},
        }),
    };
    body.to_string()
}

/// The in-stream error event each API sends when generation fails mid-stream.
/// `sequence_number` is used by the Responses wire.
pub(crate) fn stream_error(
    wire: Wire,
    status: u16,
    message: &str,
    sequence_number: usize,
    ctx: &Ctx,
) -> String {
    let message = if message.is_empty() {
        default_message(status)
    } else {
        message.to_owned()
    };
    let (kind, code) = error_kind(Some(wire), status);
    match wire {
        Wire::OpenAi => {
            let body =
                json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
            format!("data: {body}\n\n")
        }
        Wire::Anthropic => {
            let body = json!({"type": "error", "error": {"type": kind, "message": message}});
            format!("event: error\ndata: {body}\n\n")
        }
        Wire::Responses => {
            let body = json!({
                "type": "response.failed",
                "sequence_number": sequence_number,
                "response": {
                    "id": format!("resp_mock{}", ctx.seq),
                    "object": "response",
                    "created_at": now_secs(),
                    "status": "failed",
                    "error": {"code": code, "message": message},
                    "incomplete_details": null,
                    "model": ctx.model,
                    "output": [],
                    "usage": null,
                },
            });
            format!("event: response.failed\ndata: {body}\n\n")
        }
    }
}

/// `(type, code)` of an error for this status. OpenAI calls a 5xx `server_error`, Anthropic
/// `api_error` (`overloaded_error` for 529).
fn error_kind(wire: Option<Wire>, status: u16) -> (&'static str, &'static str) {
    match status {
        500..=599 if wire != Some(Wire::Anthropic) => ("server_error", "server_error"),
        400 => ("invalid_request_error", "invalid_request"),
        401 => ("authentication_error", "invalid_api_key"),
        403 => ("permission_error", "permission_denied"),
        404 => ("not_found_error", "not_found"),
        429 => ("rate_limit_error", "rate_limit_exceeded"),
        529 => ("overloaded_error", "overloaded"),
        500..=599 => ("api_error", "server_error"),
        _ => ("invalid_request_error", "error"),
    }
}

pub(crate) fn default_message(status: u16) -> String {
    match status {
        429 => "mock-llm: rate limit reached, retry later".to_owned(),
        401 => "mock-llm: invalid API key".to_owned(),
        529 => "mock-llm: overloaded".to_owned(),
        s => format!("mock-llm: scripted HTTP {s}"),
    }
}

/// Reasoning first (as the APIs emit it); a gate travels with the step after it.
fn ordered_steps(steps: &[Step]) -> Vec<&Step> {
    let mut keyed: Vec<(u8, &Step)> = Vec::with_capacity(steps.len());
    let mut next_key = 1;
    for step in steps.iter().rev() {
        let key = match step {
            Step::Reasoning { .. } => 0,
            Step::Gate(_) => next_key,
            _ => 1,
        };
        next_key = key;
        keyed.push((key, step));
    }
    keyed.reverse();
    keyed.sort_by_key(|(k, _)| *k); // stable
    keyed.into_iter().map(|(_, s)| s).collect()
}

fn estimate_usage(reply: &Reply, ctx: &Ctx) -> Usage {
    let tokens = |chars: usize| (chars as u64).div_ceil(4);
    let mut out_chars = 0;
    let mut reasoning_chars = 0;
    for step in &reply.steps {
        match step {
            Step::Text(t) => out_chars += t.chars().count(),
            Step::Reasoning { text, .. } => reasoning_chars += text.chars().count(),
            Step::ToolCall {
                name, arguments, ..
            } => out_chars += name.len() + arguments.chars().count(),
            Step::Gate(_) => {}
        }
    }
    let prompt = tokens(ctx.request_bytes).max(1);
    let reasoning = tokens(reasoning_chars);
    Usage {
        prompt,
        completion: (tokens(out_chars) + reasoning).max(1),
        cache_hit: 0,
        cache_miss: prompt,
        reasoning,
    }
}

/// Splits `s` into at most `n` (at least one) non-empty pieces on char boundaries.
pub(crate) fn split_fragments(s: &str, n: usize) -> Vec<&str> {
    let chars: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
    let count = chars.len();
    let n = n.max(1).min(count.max(1));
    if count == 0 {
        return vec![s];
    }
    let mut pieces = Vec::with_capacity(n);
    let mut start_char = 0;
    for k in 0..n {
        let end_char = (count * (k + 1)) / n;
        let start = chars[start_char];
        let end = if end_char >= count {
            s.len()
        } else {
            chars[end_char]
        };
        pieces.push(&s[start..end]);
        start_char = end_char;
    }
    pieces
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

// ---------------------------------------------------------------- OpenAI Chat Completions

fn openai(steps: &[&Step], usage: Usage, finish: Finish, ctx: &Ctx) -> Vec<Out> {
    let id = format!("chatcmpl-mock{}", ctx.seq);
    let created = now_secs();
    let chunk = |delta: Value, finish_reason: Value| -> Out {
        let mut body = json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": ctx.model,
            "system_fingerprint": "fp_mock",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
        });
        if ctx.include_usage {
            body["usage"] = Value::Null;
        }
        Out::Event(format!("data: {body}\n\n"))
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    let mut tool_index = 0usize;
    let mut i = 0;
    while i < steps.len() {
        match steps[i] {
            Step::Text(t) => out.push(chunk(json!({"content": t}), Value::Null)),
            Step::Reasoning { text, .. } => out.push(chunk(
                json!({"content": null, "reasoning_content": text}),
                Value::Null,
            )),
            Step::Gate(g) => out.push(Out::Gate(g.clone())),
            Step::ToolCall { .. } => {
                // A run of consecutive calls: interleave their fragments by index.
                let mut calls = Vec::new();
                while let Some(Step::ToolCall {
                    id,
                    name,
                    arguments,
                    fragments,
                }) = steps.get(i)
                {
                    calls.push((tool_index, id, name, split_fragments(arguments, *fragments)));
                    tool_index += 1;
                    i += 1;
                }
                let rounds = calls.iter().map(|c| c.3.len()).max().unwrap_or(0);
                for round in 0..rounds {
                    for (index, id, name, pieces) in &calls {
                        let Some(piece) = pieces.get(round) else {
                            continue;
                        };
                        let call = if round == 0 {
                            json!({"index": index, "id": id, "type": "function",
                                   "function": {"name": name, "arguments": piece}})
                        } else {
                            json!({"index": index, "function": {"arguments": piece}})
                        };
                        out.push(chunk(json!({"tool_calls": [call]}), Value::Null));
                    }
                }
                continue;
            }
        }
        i += 1;
    }
    let reason = match finish {
        Finish::Stop => "stop",
        Finish::ToolCalls => "tool_calls",
        Finish::Length => "length",
        Finish::ContentFilter => "content_filter",
    };
    out.push(chunk(json!({}), json!(reason)));
    if ctx.include_usage {
        let body = json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": ctx.model,
            "system_fingerprint": "fp_mock",
            "choices": [],
            "usage": {
                "prompt_tokens": usage.prompt,
                "completion_tokens": usage.completion,
                "total_tokens": usage.prompt + usage.completion,
                "prompt_tokens_details": {"cached_tokens": usage.cache_hit},
                "completion_tokens_details": {"reasoning_tokens": usage.reasoning},
                "prompt_cache_hit_tokens": usage.cache_hit,
                "prompt_cache_miss_tokens": usage.cache_miss,
            },
        });
        out.push(Out::Event(format!("data: {body}\n\n")));
    }
    out.push(Out::Event("data: [DONE]\n\n".to_owned()));
    out
}

// ---------------------------------------------------------------- Anthropic Messages

fn sse(event: &str, data: &Value) -> Out {
    Out::Event(format!("event: {event}\ndata: {data}\n\n"))
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Block {
    Thinking,
    Text,
}

fn anthropic(steps: &[&Step], usage: Usage, finish: Finish, ctx: &Ctx) -> Vec<Out> {
    let mut out = Vec::new();
    out.push(sse(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": format!("msg_mock{}", ctx.seq),
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": ctx.model,
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {
                "input_tokens": usage.cache_miss,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": usage.cache_hit,
                "output_tokens": usage.completion.min(1),
            },
        }}),
    ));
    let ping = || sse("ping", &json!({"type": "ping"}));
    out.push(ping());

    let mut index = 0usize;
    let mut open: Option<Block> = None;
    let mut signature: Option<&str> = None;
    let close = |out: &mut Vec<Out>,
                 open: &mut Option<Block>,
                 index: &mut usize,
                 signature: &mut Option<&str>| {
        if let Some(block) = open.take() {
            if block == Block::Thinking
                && let Some(sig) = signature.take()
            {
                out.push(sse(
                    "content_block_delta",
                    &json!({"type": "content_block_delta", "index": *index,
                            "delta": {"type": "signature_delta", "signature": sig}}),
                ));
            }
            out.push(sse(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": *index}),
            ));
            out.push(ping());
            *index += 1;
        }
    };
    for step in steps {
        match step {
            Step::Gate(g) => out.push(Out::Gate(g.clone())),
            Step::Reasoning {
                text,
                signature: sig,
            } => {
                if open != Some(Block::Thinking) {
                    close(&mut out, &mut open, &mut index, &mut signature);
                    out.push(sse(
                        "content_block_start",
                        &json!({"type": "content_block_start", "index": index,
                                "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
                    ));
                    open = Some(Block::Thinking);
                }
                out.push(sse(
                    "content_block_delta",
                    &json!({"type": "content_block_delta", "index": index,
                            "delta": {"type": "thinking_delta", "thinking": text}}),
                ));
                if let Some(sig) = sig {
                    signature = Some(sig);
                }
            }
            Step::Text(t) => {
                if open != Some(Block::Text) {
                    close(&mut out, &mut open, &mut index, &mut signature);
                    out.push(sse(
                        "content_block_start",
                        &json!({"type": "content_block_start", "index": index,
                                "content_block": {"type": "text", "text": ""}}),
                    ));
                    open = Some(Block::Text);
                }
                out.push(sse(
                    "content_block_delta",
                    &json!({"type": "content_block_delta", "index": index,
                            "delta": {"type": "text_delta", "text": t}}),
                ));
            }
            Step::ToolCall {
                id,
                name,
                arguments,
                fragments,
            } => {
                close(&mut out, &mut open, &mut index, &mut signature);
                out.push(sse(
                    "content_block_start",
                    &json!({"type": "content_block_start", "index": index,
                            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
                ));
                for piece in split_fragments(arguments, *fragments) {
                    out.push(sse(
                        "content_block_delta",
                        &json!({"type": "content_block_delta", "index": index,
                                "delta": {"type": "input_json_delta", "partial_json": piece}}),
                    ));
                }
                out.push(sse(
                    "content_block_stop",
                    &json!({"type": "content_block_stop", "index": index}),
                ));
                out.push(ping());
                index += 1;
            }
        }
    }
    close(&mut out, &mut open, &mut index, &mut signature);
    let stop_reason = match finish {
        Finish::Stop => "end_turn",
        Finish::ToolCalls => "tool_use",
        Finish::Length => "max_tokens",
        Finish::ContentFilter => "refusal",
    };
    out.push(sse(
        "message_delta",
        &json!({"type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {
            "input_tokens": usage.cache_miss,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": usage.cache_hit,
            "output_tokens": usage.completion,
        }}),
    ));
    out.push(sse("message_stop", &json!({"type": "message_stop"})));
    out
}

// ---------------------------------------------------------------- OpenAI Responses

struct Responses<'a> {
    ctx: &'a Ctx,
    out: Vec<Out>,
    seq: u64,
    /// Finished output items, for `response.completed`.
    items: Vec<Value>,
    open: Option<OpenItem>,
}

struct OpenItem {
    kind: Block,
    id: String,
    text: String,
    signature: Option<String>,
}

impl Responses<'_> {
    fn event(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.seq);
        self.seq += 1;
        self.out.push(sse(kind, &data));
    }

    fn response(&self, status: &str, usage: Option<Value>, finish: Option<Finish>) -> Value {
        let incomplete = match finish {
            Some(Finish::Length) => json!({"reason": "max_output_tokens"}),
            Some(Finish::ContentFilter) => json!({"reason": "content_filter"}),
            _ => Value::Null,
        };
        json!({
            "id": format!("resp_mock{}", self.ctx.seq),
            "object": "response",
            "created_at": now_secs(),
            "status": status,
            "error": null,
            "incomplete_details": incomplete,
            "model": self.ctx.model,
            "output": self.items,
            "parallel_tool_calls": true,
            "usage": usage.unwrap_or(Value::Null),
        })
    }

    fn item_id(&self, prefix: &str) -> String {
        format!("{prefix}_mock{}_{}", self.ctx.seq, self.items.len())
    }

    fn output_index(&self) -> usize {
        self.items.len()
    }

    fn open(&mut self, kind: Block) {
        if self.open.as_ref().map(|o| o.kind) == Some(kind) {
            return;
        }
        self.close();
        let output_index = self.output_index();
        let (id, item, part_event, part) = match kind {
            Block::Thinking => {
                let id = self.item_id("rs");
                let item = json!({"id": id, "type": "reasoning", "summary": []});
                if self.ctx.reasoning_summary {
                    let part = json!({"type": "summary_text", "text": ""});
                    (id, item, "response.reasoning_summary_part.added", part)
                } else {
                    let part = json!({"type": "reasoning_text", "text": ""});
                    (id, item, "response.content_part.added", part)
                }
            }
            Block::Text => {
                let id = self.item_id("msg");
                let item = json!({"id": id, "type": "message", "status": "in_progress",
                                  "role": "assistant", "content": []});
                let part = json!({"type": "output_text", "text": "", "annotations": []});
                (id, item, "response.content_part.added", part)
            }
        };
        self.event(
            "response.output_item.added",
            json!({"output_index": output_index, "item": item}),
        );
        let index_key = if part_event == "response.reasoning_summary_part.added" {
            "summary_index"
        } else {
            "content_index"
        };
        let mut data = json!({"item_id": id, "output_index": output_index, "part": part});
        data[index_key] = json!(0);
        self.event(part_event, data);
        self.open = Some(OpenItem {
            kind,
            id,
            text: String::new(),
            signature: None,
        });
    }

    fn delta(&mut self, kind: Block, delta: &str) {
        self.open(kind);
        let output_index = self.output_index();
        let Some(open) = self.open.as_mut() else {
            return;
        };
        open.text.push_str(delta);
        let id = open.id.clone();
        match kind {
            Block::Thinking if self.ctx.reasoning_summary => self.event(
                "response.reasoning_summary_text.delta",
                json!({"item_id": id, "output_index": output_index, "summary_index": 0, "delta": delta}),
            ),
            Block::Thinking => self.event(
                "response.reasoning_text.delta",
                json!({"item_id": id, "output_index": output_index, "content_index": 0, "delta": delta}),
            ),
            Block::Text => self.event(
                "response.output_text.delta",
                json!({"item_id": id, "output_index": output_index, "content_index": 0,
                       "delta": delta, "logprobs": []}),
            ),
        }
    }

    fn close(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let output_index = self.output_index();
        let id = open.id;
        let text = open.text;
        let item = match open.kind {
            Block::Thinking if self.ctx.reasoning_summary => {
                let part = json!({"type": "summary_text", "text": text});
                self.event(
                    "response.reasoning_summary_text.done",
                    json!({"item_id": id, "output_index": output_index, "summary_index": 0, "text": text}),
                );
                self.event(
                    "response.reasoning_summary_part.done",
                    json!({"item_id": id, "output_index": output_index, "summary_index": 0, "part": part}),
                );
                json!({"id": id, "type": "reasoning", "summary": [part],
                       "encrypted_content": open.signature})
            }
            Block::Thinking => {
                let part = json!({"type": "reasoning_text", "text": text});
                self.event(
                    "response.reasoning_text.done",
                    json!({"item_id": id, "output_index": output_index, "content_index": 0, "text": text}),
                );
                self.event(
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": output_index, "content_index": 0, "part": part}),
                );
                json!({"id": id, "type": "reasoning", "summary": [], "content": [part],
                       "encrypted_content": open.signature})
            }
            Block::Text => {
                let part = json!({"type": "output_text", "text": text, "annotations": []});
                self.event(
                    "response.output_text.done",
                    json!({"item_id": id, "output_index": output_index, "content_index": 0,
                           "text": text, "logprobs": []}),
                );
                self.event(
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": output_index, "content_index": 0, "part": part}),
                );
                json!({"id": id, "type": "message", "status": "completed", "role": "assistant",
                       "content": [part]})
            }
        };
        self.event(
            "response.output_item.done",
            json!({"output_index": output_index, "item": item}),
        );
        self.items.push(item);
    }

    fn tool_call(&mut self, call_id: &str, name: &str, arguments: &str, fragments: usize) {
        self.close();
        let output_index = self.output_index();
        let id = self.item_id("fc");
        self.event(
            "response.output_item.added",
            json!({"output_index": output_index, "item": {
                "id": id, "type": "function_call", "status": "in_progress",
                "arguments": "", "call_id": call_id, "name": name}}),
        );
        for piece in split_fragments(arguments, fragments) {
            self.event(
                "response.function_call_arguments.delta",
                json!({"item_id": id, "output_index": output_index, "delta": piece}),
            );
        }
        self.event(
            "response.function_call_arguments.done",
            json!({"item_id": id, "output_index": output_index, "name": name, "arguments": arguments}),
        );
        let item = json!({"id": id, "type": "function_call", "status": "completed",
                          "arguments": arguments, "call_id": call_id, "name": name});
        self.event(
            "response.output_item.done",
            json!({"output_index": output_index, "item": item}),
        );
        self.items.push(item);
    }
}

fn responses(steps: &[&Step], usage: Usage, finish: Finish, ctx: &Ctx) -> Vec<Out> {
    let mut r = Responses {
        ctx,
        out: Vec::new(),
        seq: 0,
        items: Vec::new(),
        open: None,
    };
    let created = r.response("in_progress", None, None);
    r.event("response.created", json!({"response": created}));
    r.event("response.in_progress", json!({"response": created}));
    for step in steps {
        match step {
            Step::Gate(g) => r.out.push(Out::Gate(g.clone())),
            Step::Reasoning { text, signature } => {
                r.delta(Block::Thinking, text);
                if let (Some(sig), Some(open)) = (signature, r.open.as_mut()) {
                    open.signature = Some(sig.clone());
                }
            }
            Step::Text(t) => r.delta(Block::Text, t),
            Step::ToolCall {
                id,
                name,
                arguments,
                fragments,
            } => r.tool_call(id, name, arguments, *fragments),
        }
    }
    r.close();
    let usage = json!({
        "input_tokens": usage.prompt,
        "input_tokens_details": {"cached_tokens": usage.cache_hit},
        "output_tokens": usage.completion,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning},
        "total_tokens": usage.prompt + usage.completion,
    });
    let (kind, status) = match finish {
        Finish::Length | Finish::ContentFilter => ("response.incomplete", "incomplete"),
        _ => ("response.completed", "completed"),
    };
    let done = r.response(status, Some(usage), Some(finish));
    r.event(kind, json!({"response": done}));
    r.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_fragments_covers_the_string() {
        assert_eq!(split_fragments("abcdef", 3), vec!["ab", "cd", "ef"]);
        assert_eq!(split_fragments("abc", 10), vec!["a", "b", "c"]);
        assert_eq!(split_fragments("", 4), vec![""]);
        assert_eq!(split_fragments("abc", 0), vec!["abc"]);
        let s = "{\"p\":\"é✓中\"}";
        for n in 1..12 {
            let parts = split_fragments(s, n);
            assert_eq!(parts.concat(), s);
            assert!(parts.iter().all(|p| !p.is_empty()));
        }
    }

    #[test]
    fn reasoning_moves_first_and_gates_travel_with_the_next_step() {
        let steps = vec![
            Step::Text("a".into()),
            Step::Gate("g1".into()),
            Step::Reasoning {
                text: "r".into(),
                signature: None,
            },
            Step::Gate("g2".into()),
            Step::Text("b".into()),
        ];
        let got: Vec<&Step> = ordered_steps(&steps);
        assert_eq!(
            got,
            vec![&steps[1], &steps[2], &steps[0], &steps[3], &steps[4]]
        );
    }
}
