//! The JSON payloads of the interception points the agent dispatches (camelCase, as the
//! sidecar tier's protocol has them). Replacements decode strictly: an unknown field or a
//! wrong type is an invalid replacement, never silently dropped.

use crate::types::{Message, Usage};
use serde::{Deserialize, Serialize};

/// `input.receive`: the user's task before it enters the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InputReceive {
    pub text: String,
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
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolBefore {
    pub name: String,
    /// The arguments, a JSON object as text.
    pub arguments: String,
    pub call_id: String,
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
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolAfter {
    pub name: String,
    pub arguments: String,
    pub result: String,
    pub is_error: bool,
    pub call_id: String,
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

/// `provider.request`: what is about to be sent to the model. Observed (and blockable); a
/// replacement is refused until the request gets a slot owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderRequest {
    pub model: String,
    pub messages: Vec<Message>,
    /// Names of the tools offered (their schemas are in the stable prefix and do not change).
    pub tools: Vec<String>,
    pub max_tokens: Option<u32>,
}

/// `provider.response`: a complete answer before it enters the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderResponse {
    pub text: String,
    pub reasoning: Option<String>,
    pub calls: Vec<ResponseCall>,
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// `session.start` / `session.end`: observed only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionPhase {
    pub session_path: String,
    pub phase: String,
}

/// The validator of points that cannot be replaced (yet).
pub fn observe_only<T>(_: &T) -> Result<(), String> {
    Err("this point cannot be replaced, only observed or blocked".into())
}
