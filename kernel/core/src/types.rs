//! The kernel's own data types. They mirror the WIT records but belong to the kernel, so
//! tools from other tiers (MCP, sidecars) fit the same shapes.

use serde::{Deserialize, Serialize};

/// A tool as the model sees it. `parameters` is canonical JSON (sorted keys, no whitespace):
/// the provider-visible prefix must be byte-stable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: String,
    pub read_only: bool,
    /// Bullet text for the system prompt's "How to work" list, offered with the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guidance: Option<String>,
}

/// What a tool is told about the call in progress, and what it may use while it runs: its
/// cancellation and where it reports what it is doing (ADR 0033).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolContext {
    pub call_id: String,
    /// Absolute, symlink-free workspace root.
    pub workspace: std::path::PathBuf,
    /// The user explicitly approved this call's write to a configuration file of the workspace
    /// (`sandbox::PROTECTED_CONFIG`), or ran it directly. Without it the host's filesystem guard
    /// keeps those files read-only for this call, built-in editors included; third-party
    /// plugins never write them.
    pub may_write_protected: bool,
    /// The local origin (loopback or private address, `localhost`) the user approved this
    /// call to fetch; the host lets the call's requests to exactly it through (ADR 0007).
    pub approved_local: Option<crate::origin::Origin>,
    /// This call's cancellation, a child of its turn's: when it fires the host stops the
    /// processes and MCP requests this call started, and only those.
    pub cancel: crate::cancel::CancelToken,
    /// Where the call reports what happens while it runs; the agent tags each event with this
    /// call's id. `None` where nobody listens (`tools call`, a preview).
    pub events: Option<ToolEvents>,
    /// Where a delegating host tool starts its sub-agents (ADR 0035); `None` for every other
    /// tool, and where the call cannot delegate (`tools call`, a preview).
    pub agents: Option<crate::delegation::Delegation>,
    /// The calling agent's receipts, for the host tools that judge evidence against them;
    /// `None` where no agent calls (`tools call`, a preview).
    pub evidence: Option<crate::evidence::Evidence>,
}

/// Something a running call reports.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolEvent {
    /// How far it got (a fraction from 0 to 1, when it knows).
    Progress {
        message: String,
        fraction: Option<f32>,
    },
}

/// Where a running call reports progress (message, fraction done).
pub type ProgressSink = std::sync::Arc<dyn Fn(&str, Option<f32>) + Send + Sync>;

/// The sink of one call's [`ToolEvent`]s.
#[derive(Clone)]
pub struct ToolEvents(std::sync::Arc<dyn Fn(ToolEvent) + Send + Sync>);

impl ToolEvents {
    pub fn new(sink: impl Fn(ToolEvent) + Send + Sync + 'static) -> ToolEvents {
        ToolEvents(std::sync::Arc::new(sink))
    }

    pub fn emit(&self, event: ToolEvent) {
        (self.0)(event);
    }

    /// The sink as a plain progress callback (what a component's `progress` host call and an
    /// MCP server's progress notifications feed).
    pub fn progress_sink(&self) -> ProgressSink {
        let events = self.clone();
        std::sync::Arc::new(move |message: &str, fraction: Option<f32>| {
            events.emit(ToolEvent::Progress {
                message: message.to_string(),
                fraction,
            });
        })
    }
}

impl std::fmt::Debug for ToolEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolEvents")
    }
}

/// Two sinks are equal when they are the same sink.
impl PartialEq for ToolEvents {
    fn eq(&self, other: &ToolEvents) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ToolEvents {}

/// Create, modify or delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Create,
    Modify,
    Delete,
}

/// The exact change a mutating call would make to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: String,
    pub kind: ChangeKind,
    pub old_text: Option<String>,
    pub new_text: Option<String>,
}

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A complete tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// An image given to the model with a message (WIT `image`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// Base64 (standard alphabet, padded).
    pub data: String,
}

/// What a tool call returned: the text the model reads and, from tools that return them (MCP
/// servers), images. The text describes every image too, for models that do not read them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOutput {
    pub text: String,
    pub images: Vec<Image>,
    /// The tool ran and says it failed, in `text` (an MCP result with `isError`): the model
    /// reads it as an error, and the images stay with it (a screenshot of what went wrong).
    /// A call that could not run at all is an `Err` instead.
    pub is_error: bool,
}

impl From<String> for ToolOutput {
    fn from(text: String) -> ToolOutput {
        ToolOutput {
            text,
            images: Vec::new(),
            is_error: false,
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_state: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// A tool result's full original text when a `tool.after` interceptor replaced what the
    /// model reads (bounded, redacted): kept in the session transcript for the user, never
    /// sent to a provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_content: Option<String>,
    /// Images of a user or tool message; sent only to a model that reads them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
}

impl Message {
    /// A plain message: `content` from `role`, nothing else.
    pub fn text(role: Role, content: impl Into<String>) -> Message {
        Message {
            role,
            content: content.into(),
            reasoning: None,
            reasoning_state: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            raw_content: None,
            images: Vec::new(),
        }
    }

    /// The reply to tool call `call_id`: `content` from the tool role.
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Message {
        Message {
            tool_call_id: Some(call_id.into()),
            ..Message::text(Role::Tool, content)
        }
    }
}

/// Token usage, normalised across backends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cache_hit_tokens: u64,
    pub cache_miss_tokens: u64,
    pub reasoning_tokens: u64,
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    Other,
}

/// One event of a streaming completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    Text(String),
    Reasoning(String),
    ReasoningState(String),
    ToolCall(ToolCall),
    Usage(Usage),
    Done(FinishReason),
}

/// A provider kind served by a plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderKind {
    pub name: String,
    pub description: String,
    pub credential_header: String,
    pub credential_prefix: String,
}

/// A fully resolved completion request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionRequest {
    pub kind: String,
    pub provider: String,
    pub base_url: String,
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub effort: Option<String>,
    pub max_output_tokens: Option<u32>,
    /// JSON object text.
    pub options: String,
}

/// What the host asks a provider kind about one model before any completion (WIT
/// `profile-request`): the same endpoint, model, effort and options a completion will carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileRequest {
    pub kind: String,
    pub provider: String,
    pub base_url: String,
    pub model: String,
    /// The user's level after the config's precedence; `None` = auto.
    pub effort: Option<String>,
    /// JSON object text.
    pub options: String,
}

/// What a provider kind knows about one model on one endpoint (WIT `model-profile`). The agent
/// shows it and uses the stall timeout; it does not interpret the protocol or the levels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelProfile {
    /// The reasoning protocol the component speaks with this model.
    pub reasoning_protocol: String,
    /// The effort levels a UI offers, `auto` first.
    pub effort_levels: Vec<String>,
    /// Default silence limit, used unless the provider sets `stall_timeout_seconds`.
    pub stall_timeout_ms: u32,
    /// Whether the model reads images, as the component knows it (the user's `vision`
    /// setting overrides it).
    pub images: bool,
}

/// One interception point an interceptor subscribes to. Lower `priority` runs first; equal
/// priorities run in the order of the plugins' names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subscription {
    pub point: String,
    pub priority: i32,
}

/// What an interceptor decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Proceed,
    Block(String),
    Replace(String),
    /// Only legal at `permission.decision`.
    Allow,
    /// Only legal at `permission.decision`.
    Deny(String),
}

/// Re-serialise JSON text with sorted keys and no whitespace, so equal schemas are equal bytes.
pub fn canonical_json(text: &str) -> Result<String, serde_json::Error> {
    let value: serde_json::Value = serde_json::from_str(text)?;
    serde_json::to_string(&sorted(value))
}

/// `value` with every object's keys in order. Explicitly: whether `serde_json::Map` keeps
/// keys sorted depends on a cargo feature any crate in the build may switch on
/// (`preserve_order`), and the cached prefix must not depend on that.
fn sorted(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<(String, serde_json::Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.into_iter().map(sorted).collect())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_and_strips_space() {
        let a = canonical_json(r#"{ "b": 1, "a": {"z": [1, 2], "y": null} }"#).unwrap();
        assert_eq!(a, r#"{"a":{"y":null,"z":[1,2]},"b":1}"#);
    }

    #[test]
    fn canonical_json_rejects_garbage() {
        assert!(canonical_json("{not json").is_err());
    }
}
