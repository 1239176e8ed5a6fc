//! A sidecar tool as a kernel `Tool`: `extension/tool/call {name, arguments, timeoutMillis}` →
//! `{content, isError}`. A sidecar runs with the user's rights, so its tools are treated as able
//! to do anything: the permission class is always the conservative one.

use crate::connection::Connection;
use crate::interceptor::call_error;
use crate::limits::TOOL_CALL;
use crate::manifest::ToolDecl;
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::tool::{Effects, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolSpec, canonical_json};
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// What a sidecar answers to `extension/tool/call` (decoded strictly).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolCallResult {
    pub content: String,
    #[serde(default)]
    pub is_error: bool,
}

pub struct SidecarTool {
    conn: Arc<Connection>,
    spec: ToolSpec,
}

impl SidecarTool {
    pub fn new(conn: Arc<Connection>, decl: &ToolDecl) -> SidecarTool {
        let parameters = canonical_json(&decl.input_schema.to_string())
            .unwrap_or_else(|_| decl.input_schema.to_string());
        SidecarTool {
            conn,
            spec: ToolSpec {
                name: decl.name.clone(),
                description: decl.description.clone(),
                parameters,
                read_only: decl.read_only,
                guidance: None,
            },
        }
    }
}

impl Tool for SidecarTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        self.conn.name()
    }

    /// Everything: the process is not confined, so no `read_only` claim can be backed.
    fn effects(&self) -> Effects {
        Effects {
            runs_commands: true,
            writes_workspace: true,
            fetches: true,
            external: false,
        }
    }

    fn invoke(&self, arguments: &str, _context: &ToolContext) -> Result<String, CallError> {
        let arguments: Value = if arguments.trim().is_empty() {
            Value::Object(serde_json::Map::new())
        } else {
            serde_json::from_str(arguments).map_err(|e| {
                CallError::Plugin(PluginError::InvalidInput(format!(
                    "arguments are not JSON: {e}"
                )))
            })?
        };
        let params = serde_json::json!({
            "name": self.spec.name,
            "arguments": arguments,
            "timeoutMillis": u64::try_from(TOOL_CALL.as_millis()).unwrap_or(u64::MAX),
        });
        let result = self
            .conn
            .call("extension/tool/call", params, TOOL_CALL)
            .map_err(call_error)?;
        let result: ToolCallResult = serde_json::from_value(result).map_err(|e| {
            CallError::Plugin(PluginError::Other {
                code: "schema_mismatch".into(),
                message: format!(
                    "sidecar `{}` answered `extension/tool/call` with a bad result: {e}",
                    self.conn.name()
                ),
                retryable: false,
                detail: None,
            })
        })?;
        if result.is_error {
            return Err(CallError::Plugin(PluginError::Other {
                code: "tool_error".into(),
                message: result.content,
                retryable: false,
                detail: None,
            }));
        }
        Ok(result.content)
    }

    /// A sidecar cannot say what it would change.
    fn preview(
        &self,
        _arguments: &str,
        _context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}
