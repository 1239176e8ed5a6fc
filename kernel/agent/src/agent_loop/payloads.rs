//! The JSON payloads of the interception points the agent dispatches (camelCase, as the
//! sidecar tier's protocol has them). Replacements decode strictly: an unknown field or a
//! wrong type is an invalid replacement, never silently dropped.

use crate::types::{Message, Role, ToolCall, Usage};
use serde::{Deserialize, Serialize};

/// `input.receive`: the user's task before it enters the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InputReceive {
    pub text: String,
    /// Set on the first input of a session in this process: `startup` (a new session) or
    /// `resume` (a continued one), so a stateless interceptor (the hooks component's
    /// `SessionStart`) can add context exactly once. Omitted when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_start: Option<String>,
    /// The session's id, when the run has a session file. Omitted when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Set when a sub-agent receives its task (ADR 0035): the hooks component fires
    /// `SubagentStart` for it instead of `SessionStart` / `UserPromptSubmit`. Omitted for the
    /// main agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<Subagent>,
}

/// Which sub-agent a payload is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Subagent {
    /// Its id in the session's events (`main/<call id>`).
    pub agent_id: String,
    /// The profile it runs as (`explore`, `general`, a custom one).
    pub profile: String,
    /// The parent's session, when it keeps one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
}

impl InputReceive {
    pub fn validate(&self) -> Result<(), String> {
        if self.text.trim().is_empty() {
            return Err("`text` is empty (to drop the input, block it)".into());
        }
        Ok(())
    }
}

/// `tool.before`: a call about to be checked and run. A replacement may change only the
/// arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolBefore {
    pub name: String,
    /// The arguments, a JSON object as text.
    pub arguments: String,
    pub call_id: String,
    /// The session's id, when the run has a session file (for hooks' `session_id`). Omitted
    /// when unset; a replacement may leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

impl ToolBefore {
    pub fn validate(&self, original: &ToolBefore) -> Result<(), String> {
        if self.name != original.name || self.call_id != original.call_id {
            return Err("only `arguments` may be replaced (the tool and call id stay)".into());
        }
        match serde_json::from_str::<serde_json::Value>(&self.arguments) {
            Ok(serde_json::Value::Object(_)) => Ok(()),
            _ => Err("`arguments` must be a JSON object as text".into()),
        }
    }
}

/// `tool.after`: a call's result before the model reads it. A replacement may change the
/// result and whether it is an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolAfter {
    pub name: String,
    pub arguments: String,
    pub result: String,
    pub is_error: bool,
    pub call_id: String,
    /// The session's id, when the run has a session file (for hooks' `session_id`). Omitted
    /// when unset; a replacement may leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

impl ToolAfter {
    pub fn validate(&self, original: &ToolAfter) -> Result<(), String> {
        if self.name != original.name
            || self.call_id != original.call_id
            || self.arguments != original.arguments
        {
            return Err("only `result` and `isError` may be replaced".into());
        }
        Ok(())
    }
}

/// `provider.request`: what is about to be sent to the model. A replacement changes this
/// request only (the conversation keeps its messages): its messages, a subset of the offered
/// tools, and the output budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderRequest {
    /// The provider (configuration name) the request goes to; cannot be replaced.
    pub provider: String,
    /// The model; cannot be replaced.
    pub model: String,
    pub request: RequestBody,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestBody {
    /// The system prompt first, then the conversation.
    pub messages: Vec<PayloadMessage>,
    pub tools: Vec<PayloadTool>,
    pub max_tokens: Option<u32>,
}

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PayloadTool {
    pub name: String,
    pub description: String,
    /// Its JSON schema.
    pub parameters: serde_json::Value,
}

impl ProviderRequest {
    pub fn validate(&self, original: &ProviderRequest) -> Result<(), String> {
        if self.provider != original.provider || self.model != original.model {
            return Err("`provider` and `model` cannot be replaced".into());
        }
        if self.request.messages.first().map(|m| m.role) != Some(Role::System) {
            return Err("the first message must stay the system prompt".into());
        }
        for tool in &self.request.tools {
            if !original.request.tools.iter().any(|t| t.name == tool.name) {
                return Err(format!(
                    "tool `{}` was not offered; a replacement may only drop or reword offered tools",
                    tool.name
                ));
            }
            if !tool.parameters.is_object() {
                return Err(format!(
                    "the parameters of tool `{}` must be a JSON schema object",
                    tool.name
                ));
            }
        }
        check_pairing(&self.request.messages)
    }
}

/// A message in a payload: the conversation's own shape, decoded strictly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PayloadMessage {
    #[cfg_attr(test, schemars(with = "schema::Role"))]
    pub role: Role,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_state: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ResponseCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl From<&Message> for PayloadMessage {
    fn from(m: &Message) -> PayloadMessage {
        PayloadMessage {
            role: m.role,
            content: m.content.clone(),
            reasoning: m.reasoning.clone(),
            reasoning_state: m.reasoning_state.clone(),
            tool_calls: m
                .tool_calls
                .iter()
                .map(|c| ResponseCall {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    arguments: c.arguments.clone(),
                })
                .collect(),
            tool_call_id: m.tool_call_id.clone(),
        }
    }
}

impl From<PayloadMessage> for Message {
    fn from(m: PayloadMessage) -> Message {
        Message {
            role: m.role,
            content: m.content,
            reasoning: m.reasoning,
            reasoning_state: m.reasoning_state,
            tool_calls: m
                .tool_calls
                .into_iter()
                .map(|c| ToolCall {
                    id: c.id,
                    name: c.name,
                    arguments: c.arguments,
                })
                .collect(),
            tool_call_id: m.tool_call_id,
            raw_content: None,
            images: Vec::new(),
        }
    }
}

/// The messages an interceptor returned, each tool result with the images it had in
/// `original`: payloads carry text only (it describes each image), so a result keeps its
/// images by the id of the call it answers.
pub fn with_images(messages: Vec<PayloadMessage>, original: &[Message]) -> Vec<Message> {
    messages
        .into_iter()
        .map(|m| {
            let images = match (&m.role, &m.tool_call_id) {
                (Role::Tool, Some(id)) => original
                    .iter()
                    .find(|o| o.role == Role::Tool && o.tool_call_id.as_ref() == Some(id))
                    .map(|o| o.images.clone())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            Message {
                images,
                ..Message::from(m)
            }
        })
        .collect()
}

/// Every tool result answers a call of an earlier assistant message, and a tool result is
/// never the first message after the system prompt: providers refuse orphans.
fn check_pairing(messages: &[PayloadMessage]) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        match m.role {
            Role::Assistant => {
                open = m.tool_calls.iter().map(|c| c.id.as_str()).collect();
            }
            Role::Tool => {
                let id = m.tool_call_id.as_deref().unwrap_or_default();
                if !open.contains(&id) {
                    return Err(format!(
                        "message {i} is a tool result for call `{id}`, which no earlier assistant message made"
                    ));
                }
            }
            Role::System if i > 0 => {
                return Err(format!(
                    "message {i}: only the first message may be a system message"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `context.prepare`: the conversation about to be sent (without the system prompt). A
/// replacement changes what this request carries; the session keeps every message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextPrepare {
    pub messages: Vec<PayloadMessage>,
}

impl ContextPrepare {
    pub fn validate(&self) -> Result<(), String> {
        if self.messages.iter().any(|m| m.role == Role::System) {
            return Err(
                "the context holds no system message (the system prompt is separate)".into(),
            );
        }
        check_pairing(&self.messages)
    }
}

/// `agent.before_start`: a run is about to start. Observed and blockable; a replacement may
/// not change anything.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentBeforeStart {
    pub model: String,
    pub tool_count: usize,
    pub session_id: String,
}

/// `system_prompt.build`: the system prompt, built once per session (it is the start of the
/// cached prefix). A replacement may change only `prompt`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SystemPromptBuild {
    pub prompt: String,
    pub workspace_root: String,
    /// The host's operating system (`linux`, `macos` …): a component cannot see it.
    pub os: String,
    /// The host's CPU architecture (`x86_64`, `aarch64` …).
    pub arch: String,
    /// Basename of the user's `$SHELL`, when set.
    pub shell: Option<String>,
}

impl SystemPromptBuild {
    pub fn validate(&self, original: &SystemPromptBuild) -> Result<(), String> {
        if self.workspace_root.is_empty()
            || self.workspace_root != original.workspace_root
            || self.os != original.os
            || self.arch != original.arch
            || self.shell != original.shell
        {
            return Err("only `prompt` may be replaced".into());
        }
        Ok(())
    }
}

/// `permission.decision`: the host's decision on a call, before it stands. Interceptors answer
/// allow or deny (or continue to keep it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PermissionDecision {
    pub name: String,
    pub arguments: String,
    pub read_only: bool,
    pub host_decision: HostDecision,
    pub call_id: String,
    /// The session's id, when the run has a session file (for hooks' `session_id`). Omitted
    /// when unset; a replacement may leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum HostDecision {
    Allow,
    Deny,
}

/// `compaction.prepare`: the messages about to be summarised and the guidance for the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompactionPrepare {
    pub messages: Vec<PayloadMessage>,
    pub guidance: String,
}

impl CompactionPrepare {
    pub fn validate(&self) -> Result<(), String> {
        check_pairing(&self.messages)
    }
}

/// `compaction.complete`: the summary that replaces the compacted messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompactionComplete {
    pub summary: String,
}

impl CompactionComplete {
    pub fn validate(&self) -> Result<(), String> {
        if self.summary.trim().is_empty() {
            return Err("`summary` is empty".into());
        }
        Ok(())
    }
}

/// `frontend.event`: something about to be shown to the user. A replacement changes what is
/// shown (never what the model reads; of what is saved only the original of a replaced tool
/// result, which is kept for the user); a block hides it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FrontendEvent {
    /// `message` (an assistant answer), `message_text` / `reasoning_text` (whole lines of
    /// the answer / reasoning as it streams), `reasoning` (an answer's reasoning), `result`
    /// (the run's final answer or error, as printed), `tool_output` (a finished call's result;
    /// the tool message carrying the same text is shown as it was, not dispatched again),
    /// `tool_result` (a tool message no call's output preceded: a refused or cut-off call's
    /// answer), `raw_result` (the original of a replaced result, kept in the transcript;
    /// hidden, it is not kept), `notice` or `permission_denied`.
    pub kind: String,
    pub text: String,
    /// The tool name (`tool_output`, `permission_denied`), the call id (`tool_result`,
    /// `raw_result`), else empty.
    pub detail: String,
}

impl FrontendEvent {
    pub fn validate(&self, original: &FrontendEvent) -> Result<(), String> {
        if self.kind != original.kind || self.detail != original.detail {
            return Err("only `text` may be replaced".into());
        }
        Ok(())
    }
}

/// `provider.response`: a complete answer before it enters the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderResponse {
    pub text: String,
    pub reasoning: Option<String>,
    pub calls: Vec<ResponseCall>,
    #[cfg_attr(test, schemars(with = "Option<schema::Usage>"))]
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResponseCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

impl ProviderResponse {
    pub fn validate(&self, original: &ProviderResponse) -> Result<(), String> {
        if self.usage != original.usage {
            return Err("`usage` is what the provider billed and cannot be replaced".into());
        }
        if let Some(call) = self
            .calls
            .iter()
            .find(|c| c.id.is_empty() || c.name.is_empty())
        {
            return Err(format!(
                "every call needs an id and a name (got id `{}`, name `{}`)",
                call.id, call.name
            ));
        }
        Ok(())
    }
}

/// `session.start` / `end` / `load` / `save` / `rotate`: the session file and the phase
/// (which matches the point). Observed and blockable: a block at `start` or `load` stops the
/// run; elsewhere it is reported. A replacement may not change anything.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionPhase {
    pub session_path: String,
    pub phase: String,
    /// Set for a sub-agent's session (its `save` is `SubagentStop` to the hooks component, not
    /// `Stop`). Omitted for the main agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<Subagent>,
}

/// The validator of points whose payload may be "replaced" only by itself.
pub fn unchanged<T: PartialEq>(original: &T) -> impl Fn(&T) -> Result<(), String> + '_ {
    move |replaced| {
        if replaced == original {
            Ok(())
        } else {
            Err("this point's payload cannot be changed, only observed or blocked".into())
        }
    }
}

/// The published JSON Schemas (`docs/schemas/points/<point>.json`), one per point, generated
/// from the types above so the documentation cannot drift from what the host accepts.
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, dead_code)]
mod schema {
    use super::*;
    use schemars::JsonSchema;

    /// Mirror of the core `Role` for the schema.
    #[derive(JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Role {
        System,
        User,
        Assistant,
        Tool,
    }

    /// Mirror of the core `Usage` for the schema.
    #[derive(JsonSchema)]
    pub struct Usage {
        pub prompt_tokens: u64,
        pub completion_tokens: u64,
        pub cache_hit_tokens: u64,
        pub cache_miss_tokens: u64,
        pub reasoning_tokens: u64,
    }

    fn all() -> Vec<(&'static str, schemars::Schema)> {
        use schemars::schema_for;
        vec![
            ("input.receive", schema_for!(InputReceive)),
            ("agent.before_start", schema_for!(AgentBeforeStart)),
            ("system_prompt.build", schema_for!(SystemPromptBuild)),
            ("context.prepare", schema_for!(ContextPrepare)),
            ("provider.request", schema_for!(ProviderRequest)),
            ("provider.response", schema_for!(ProviderResponse)),
            ("tool.before", schema_for!(ToolBefore)),
            ("tool.after", schema_for!(ToolAfter)),
            ("permission.decision", schema_for!(PermissionDecision)),
            ("compaction.prepare", schema_for!(CompactionPrepare)),
            ("compaction.complete", schema_for!(CompactionComplete)),
            ("session.start", schema_for!(SessionPhase)),
            ("session.end", schema_for!(SessionPhase)),
            ("session.load", schema_for!(SessionPhase)),
            ("session.save", schema_for!(SessionPhase)),
            ("session.rotate", schema_for!(SessionPhase)),
            ("frontend.event", schema_for!(FrontendEvent)),
        ]
    }

    fn dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas/points")
    }

    /// `REASONIX_BLESS=1 cargo test -p reasonix-agent published_schemas` rewrites them.
    #[test]
    fn published_schemas_match_the_payload_types() {
        let schemas = all();
        let names: Vec<&str> = schemas.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            names,
            reasonix_core::slots::POINTS,
            "one schema per point, in order"
        );
        let bless = std::env::var_os("REASONIX_BLESS").is_some();
        for (point, schema) in schemas {
            let mut value = schema.to_value();
            value["title"] = serde_json::json!(format!("`{point}` payload"));
            let text = serde_json::to_string_pretty(&value).unwrap() + "\n";
            let path = dir().join(format!("{point}.json"));
            if bless {
                std::fs::create_dir_all(dir()).unwrap();
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            let published = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                published == text,
                "{} is out of date with the `{point}` payload type; run `REASONIX_BLESS=1 cargo test -p reasonix-agent published_schemas`",
                path.display()
            );
        }
    }

    #[test]
    fn strict_payloads_refuse_unknown_fields_in_the_schema_too() {
        for (point, schema) in all() {
            let value = schema.to_value();
            assert_eq!(
                value["additionalProperties"],
                serde_json::json!(false),
                "`{point}`"
            );
        }
    }
}
