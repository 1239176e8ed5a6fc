//! A sidecar as a kernel `Provider`: the descriptors of `extension/provider/catalog` become
//! provider kinds named `plugin/<sidecar>/<ref>`, and a completion is
//! `extension/provider/stream/open` → `stream/chunk` notifications (reassembled by `seq`) →
//! `stream/end`; dropping the stream early sends `stream/cancel`. The endpoint's credential is
//! never handed over: a sidecar provider reaches its backend itself, from its sandbox. A
//! crashed provider fails the completion naming the sidecar; nothing falls back.

use crate::connection::{Connection, StreamMessage};
use crate::error::SidecarError;
use crate::interceptor::call_error;
use crate::stream::Reassembly;
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::provider::{CompletionStream, Endpoint, Provider};
use reasonix_core::types::{
    CompletionRequest, FinishReason, ModelProfile, ProfileRequest, ProviderKind, Role, StreamEvent,
    ToolCall, Usage,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Deadline of `stream/open` and `provider/catalog`.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);
/// Default silence limit inside a stream.
const STALL_MS: u32 = 120_000;

/// One entry of `extension/provider/catalog` (decoded strictly).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProviderDescriptor {
    #[serde(rename = "ref")]
    pub reference: String,
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub context_window: Option<u64>,
    #[serde(default)]
    pub input_per_million: Option<f64>,
    #[serde(default)]
    pub output_per_million: Option<f64>,
    #[serde(default)]
    pub cache_hit_per_million: Option<f64>,
    #[serde(default)]
    pub pricing_currency: Option<String>,
    #[serde(default)]
    pub reasoning: Option<bool>,
    #[serde(default)]
    pub reasoning_round_trip: Option<bool>,
    #[serde(default)]
    pub tool_call_reasoning: Option<bool>,
    #[serde(default)]
    pub warn_on_missing_tool_call_reasoning: Option<bool>,
    #[serde(default)]
    pub tools: Option<bool>,
    #[serde(default)]
    pub vision: Option<bool>,
    #[serde(default)]
    pub efforts: Vec<String>,
    #[serde(default)]
    pub default_effort: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Catalog {
    providers: Vec<ProviderDescriptor>,
}

/// Ask a started sidecar for its providers.
pub fn catalog(conn: &Connection) -> Result<Vec<ProviderDescriptor>, SidecarError> {
    let result = conn.call("extension/provider/catalog", json!({}), OPEN_TIMEOUT)?;
    let catalog: Catalog = serde_json::from_value(result).map_err(|e| SidecarError::Contract {
        name: conn.name().to_string(),
        reason: "schema_mismatch",
        message: format!("its `extension/provider/catalog` result: {e}"),
    })?;
    for p in &catalog.providers {
        let ok = !p.reference.is_empty()
            && p.reference.len() <= 64
            && p.reference
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !ok {
            return Err(SidecarError::Contract {
                name: conn.name().to_string(),
                reason: "invalid_params",
                message: format!(
                    "provider ref `{}` is not a name (letters, digits, `.`, `_`, `-`)",
                    reasonix_core::terminal::line(&p.reference)
                ),
            });
        }
    }
    Ok(catalog.providers)
}

pub struct SidecarProvider {
    conn: Arc<Connection>,
    descriptor: ProviderDescriptor,
    kind: ProviderKind,
    streams: AtomicU64,
}

impl SidecarProvider {
    pub fn new(conn: Arc<Connection>, descriptor: ProviderDescriptor) -> SidecarProvider {
        let kind = ProviderKind {
            // Lowercase: the config lowercases `kind`.
            name: format!("plugin/{}/{}", conn.name(), descriptor.reference).to_ascii_lowercase(),
            description: descriptor.display_name.clone().unwrap_or_else(|| {
                format!(
                    "provider `{}` of sidecar `{}`",
                    descriptor.reference,
                    conn.name()
                )
            }),
            credential_header: String::new(),
            credential_prefix: String::new(),
        };
        SidecarProvider {
            conn,
            descriptor,
            kind,
            streams: AtomicU64::new(1),
        }
    }
}

impl Provider for SidecarProvider {
    fn kind(&self) -> &ProviderKind {
        &self.kind
    }

    fn source(&self) -> &str {
        self.conn.name()
    }

    fn profile(&self, request: &ProfileRequest) -> Result<ModelProfile, CallError> {
        let mut levels = vec!["auto".to_string()];
        levels.extend(self.descriptor.efforts.iter().cloned());
        if let Some(effort) = &request.effort
            && effort != "auto"
            && !self.descriptor.efforts.contains(effort)
        {
            return Err(CallError::Plugin(PluginError::InvalidInput(format!(
                "provider `{}` offers no effort `{effort}` (it offers: {})",
                self.kind.name,
                levels.join(", ")
            ))));
        }
        Ok(ModelProfile {
            reasoning_protocol: if self.descriptor.reasoning == Some(true) {
                "sidecar".into()
            } else {
                "none".into()
            },
            effort_levels: levels,
            stall_timeout_ms: STALL_MS,
            images: self.descriptor.vision == Some(true),
        })
    }

    fn open(
        &self,
        request: &CompletionRequest,
        endpoint: Endpoint,
    ) -> Result<Box<dyn CompletionStream>, CallError> {
        let id = format!("s{}", self.streams.fetch_add(1, Ordering::Relaxed));
        let rx = self.conn.open_stream(&id);
        let messages: Vec<Value> = request.messages.iter().map(message).collect();
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "parameters": serde_json::from_str::<Value>(&t.parameters).unwrap_or(Value::Null),
                })
            })
            .collect();
        let params = json!({
            "streamId": id,
            "providerRef": self.descriptor.reference,
            "model": request.model,
            "effort": request.effort,
            "request": {
                "messages": messages,
                "tools": tools,
                "maxTokens": request.max_output_tokens,
                "temperature": null,
                "responseFormat": null,
            },
            "seqBase": 1,
            "generation": 1,
            "epoch": 1,
        });
        let opened = self
            .conn
            .call("extension/provider/stream/open", params, OPEN_TIMEOUT)
            .map_err(|e| {
                self.conn.close_stream(&id);
                call_error(e)
            })?;
        if opened.get("accepted").and_then(Value::as_bool) != Some(true) {
            self.conn.close_stream(&id);
            return Err(CallError::Plugin(PluginError::Other {
                code: "provider_failed".into(),
                message: format!("sidecar `{}` did not accept the stream", self.conn.name()),
                retryable: false,
                detail: None,
            }));
        }
        Ok(Box::new(SidecarStream {
            conn: self.conn.clone(),
            id,
            rx,
            order: Reassembly::default(),
            stall: endpoint.stall,
            cancel: endpoint.cancel,
            ended: false,
        }))
    }
}

/// A message in the protocol's `ProviderMessage` shape.
fn message(m: &reasonix_core::types::Message) -> Value {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut out = json!({
        "role": role,
        "content": m.content,
        "reasoning_content": m.reasoning,
        "reasoning_signature": m.reasoning_state,
        "tool_call_id": m.tool_call_id,
        "tool_calls": m.tool_calls.iter().map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments})).collect::<Vec<_>>(),
    });
    // Only a provider that declared `vision` is sent images (the host strips them otherwise).
    if !m.images.is_empty() {
        out["images"] = json!(m.images);
    }
    out
}

struct SidecarStream {
    conn: Arc<Connection>,
    id: String,
    rx: Receiver<StreamMessage>,
    order: Reassembly<Value>,
    stall: Duration,
    cancel: reasonix_core::cancel::CancelToken,
    ended: bool,
}

impl SidecarStream {
    fn failed(&self, code: &str, message: String) -> CallError {
        CallError::Plugin(PluginError::Other {
            code: code.into(),
            message: format!("sidecar `{}` provider stream: {message}", self.conn.name()),
            retryable: false,
            detail: None,
        })
    }
}

impl CompletionStream for SidecarStream {
    fn next(&mut self) -> Result<Vec<StreamEvent>, CallError> {
        if self.ended {
            return Ok(Vec::new());
        }
        let silent_since = Instant::now();
        loop {
            if self.cancel.is_cancelled() {
                return Err(CallError::Plugin(PluginError::Cancelled));
            }
            let message = match self.rx.recv_timeout(Duration::from_millis(100)) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => {
                    if silent_since.elapsed() >= self.stall {
                        return Err(self.failed(
                            "provider_interrupted",
                            format!("no chunk for {} ms", self.stall.as_millis()),
                        ));
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.ended = true;
                    return Err(match self.conn.dead() {
                        Some(dead) => call_error(dead),
                        None => self.failed(
                            "provider_interrupted",
                            "cut off: it sent chunks faster than they were read".into(),
                        ),
                    });
                }
            };
            match message {
                StreamMessage::Chunk { seq, chunk } => {
                    let ready = self
                        .order
                        .push(seq, chunk)
                        .map_err(|e| self.failed("stream_gap", e.to_string()))?;
                    let mut events = Vec::new();
                    for chunk in ready {
                        events.extend(
                            events_of(&chunk).map_err(|m| self.failed("provider_failed", m))?,
                        );
                    }
                    if !events.is_empty() {
                        return Ok(events);
                    }
                }
                StreamMessage::End {
                    last_seq,
                    interrupted,
                    error,
                } => {
                    self.ended = true;
                    self.conn.close_stream(&self.id);
                    if let Some(error) = error {
                        return Err(self.failed(
                            "provider_failed",
                            reasonix_core::terminal::line(&error).into_owned(),
                        ));
                    }
                    self.order
                        .end(last_seq)
                        .map_err(|e| self.failed("stream_gap", e.to_string()))?;
                    if interrupted {
                        return Err(self
                            .failed("provider_interrupted", "the stream was interrupted".into()));
                    }
                    return Ok(Vec::new());
                }
                StreamMessage::Overflow => {
                    self.ended = true;
                    return Err(self.failed(
                        "provider_interrupted",
                        "cut off: it sent chunks faster than they were read".into(),
                    ));
                }
            }
        }
    }
}

impl Drop for SidecarStream {
    fn drop(&mut self) {
        self.conn.close_stream(&self.id);
        if !self.ended && self.conn.dead().is_none() {
            let _ = self.conn.call(
                "extension/provider/stream/cancel",
                json!({"streamId": self.id}),
                Duration::from_secs(2),
            );
        }
    }
}

/// The kernel's events for one chunk `{type, …}`.
fn events_of(chunk: &Value) -> Result<Vec<StreamEvent>, String> {
    let text = |key: &str| {
        chunk
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let kind = chunk
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(match kind {
        "text" => vec![StreamEvent::Text(text("text"))],
        "reasoning" => {
            let mut events = vec![StreamEvent::Reasoning(text("text"))];
            if let Some(signature) = chunk.get("signature").and_then(Value::as_str) {
                events.push(StreamEvent::ReasoningState(signature.to_string()));
            }
            events
        }
        // Progress only: the complete call follows as `tool_call`.
        "tool_call_start" | "tool_call_args_delta" => Vec::new(),
        "tool_call" => {
            let arguments = match chunk.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => "{}".into(),
            };
            let (id, name) = (text("id"), text("name"));
            if id.is_empty() || name.is_empty() {
                return Err("a `tool_call` chunk needs an `id` and a `name`".into());
            }
            vec![StreamEvent::ToolCall(ToolCall {
                id,
                name,
                arguments,
            })]
        }
        "usage" => {
            let n = |key: &str| chunk.get(key).and_then(Value::as_u64).unwrap_or(0);
            vec![StreamEvent::Usage(Usage {
                prompt_tokens: n("promptTokens"),
                completion_tokens: n("completionTokens"),
                cache_hit_tokens: n("cacheHitTokens"),
                cache_miss_tokens: n("cacheMissTokens"),
                reasoning_tokens: n("reasoningTokens"),
            })]
        }
        "done" => vec![StreamEvent::Done(
            match chunk.get("finishReason").and_then(Value::as_str) {
                Some("tool_calls") => FinishReason::ToolCalls,
                Some("length") => FinishReason::Length,
                Some("content_filter") => FinishReason::ContentFilter,
                Some("stop") | None => FinishReason::Stop,
                Some(_) => FinishReason::Other,
            },
        )],
        "error" => return Err(format!("{}: {}", text("code"), text("message"))),
        other => {
            return Err(format!(
                "`{}` is not a chunk type",
                reasonix_core::terminal::line(other)
            ));
        }
    })
}
