//! An MCP server's tool as a kernel `Tool`: `mcp__<server>__<tool>`, with a canonical schema so
//! the prompt prefix is the same bytes on every start.

use crate::client::ToolInfo;
use crate::{McpError, names};
use reasonix_core::cancel::CancelToken;
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::tool::{Effects, ProgressSink, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolOutput, ToolSpec, canonical_json};
use serde_json::{Map, Value};
use std::sync::Arc;

/// What runs a tool's `tools/call` on its server (the server manager).
pub trait CallTool: Send + Sync {
    /// `tools/call` of `tool` (the server's own name) on `server`: the raw result as JSON.
    /// When `cancel` fires the server is told (`notifications/cancelled`) and the call ends.
    fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        progress: Option<ProgressSink>,
        cancel: &CancelToken,
    ) -> Result<Value, McpError>;
}

pub struct McpTool {
    servers: Arc<dyn CallTool>,
    server: String,
    /// The server's own name for the tool.
    raw_name: String,
    spec: ToolSpec,
    read_only: bool,
}

impl McpTool {
    pub fn new(
        servers: Arc<dyn CallTool>,
        server: String,
        info: ToolInfo,
        trust_hints: bool,
    ) -> McpTool {
        let read_only = trust_hints && info.read_only_hint;
        let schema = info.input_schema.to_string();
        let parameters = canonical_json(&schema).unwrap_or(schema);
        McpTool {
            spec: ToolSpec {
                name: names::tool_name(&server, &info.name),
                description: info.description.clone(),
                parameters,
                read_only,
                guidance: None,
            },
            raw_name: info.name,
            servers,
            server,
            read_only,
        }
    }
}

impl McpTool {
    /// The server's own name for the tool.
    pub fn raw_name(&self) -> &str {
        &self.raw_name
    }
}

fn failed(code: &str, message: String, retryable: bool) -> CallError {
    CallError::Plugin(PluginError::Other {
        code: code.into(),
        message,
        retryable,
        detail: None,
    })
}

impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        &self.server
    }

    /// A server runs with the user's rights: everything, unless the user trusts its
    /// read-only hints and this tool has one.
    fn effects(&self) -> Effects {
        if self.read_only {
            return Effects {
                external: true,
                ..Effects::default()
            };
        }
        Effects {
            runs_commands: true,
            writes_workspace: true,
            fetches: true,
            external: true,
        }
    }

    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        self.invoke_output(arguments, context)
            .map(|output| output.text)
    }

    fn invoke_output(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<ToolOutput, CallError> {
        let arguments: Map<String, Value> = if arguments.trim().is_empty() {
            Map::new()
        } else {
            serde_json::from_str(arguments).map_err(|e| {
                CallError::Plugin(PluginError::InvalidInput(format!(
                    "arguments are not a JSON object: {e}"
                )))
            })?
        };
        let result = self
            .servers
            .call_tool(
                &self.server,
                &self.raw_name,
                arguments,
                context.events.as_ref().map(|events| events.progress_sink()),
                &context.cancel,
            )
            .map_err(|e| {
                let retryable = matches!(e, McpError::Died { .. } | McpError::Timeout { .. });
                let code = match e {
                    McpError::Timeout { .. } => "timeout",
                    McpError::Cancelled { .. } => "cancelled",
                    McpError::Died { .. } => "server_died",
                    _ => "mcp_error",
                };
                failed(code, e.to_string(), retryable)
            })?;
        // A result with `isError` is the tool's own failure: its text and images go to the
        // model as an error result.
        Ok(crate::content::tool_result(&result))
    }

    /// A server cannot say what it would change.
    fn preview(
        &self,
        _arguments: &str,
        _context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn tool(schema: &str, hint: bool, trusted: bool) -> McpTool {
        McpTool::new(
            Arc::new(crate::manager::Servers::default()),
            "srv".into(),
            ToolInfo {
                name: "do.it".into(),
                description: "Does it.".into(),
                input_schema: serde_json::from_str(schema).unwrap(),
                read_only_hint: hint,
            },
            trusted,
        )
    }

    #[test]
    fn the_schema_is_canonical_whatever_order_the_server_sends() {
        let a = tool(
            r#"{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"number"}},"required":["a"]}"#,
            false,
            false,
        );
        let b = tool(
            r#"{"required":["a"],"properties":{"a":{"type":"number"},"b":{"type":"string"}},"type":"object"}"#,
            false,
            false,
        );
        assert_eq!(a.spec().parameters, b.spec().parameters);
        assert_eq!(a.spec().name, "mcp__srv__do_it");
    }

    #[test]
    fn a_read_only_hint_counts_only_when_the_user_trusts_the_server() {
        let schema = r#"{"type":"object"}"#;
        assert!(!tool(schema, true, false).spec().read_only);
        assert!(tool(schema, true, false).effects().writes_workspace);
        assert!(tool(schema, true, true).spec().read_only);
        assert!(tool(schema, true, true).effects().backs_read_only());
        assert!(!tool(schema, false, true).spec().read_only);
    }
}
