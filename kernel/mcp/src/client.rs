//! Reasonix's own view of one live MCP connection ([`McpClient`]), implemented on the SDK's
//! running client service. Nothing outside this module sees `rmcp` request types: results
//! cross as JSON and our structs.

use crate::handler::{Handler, ProgressRoutes, token_key};
use crate::limits::MAX_DESCRIPTION_BYTES;
use futures::future::BoxFuture;
use reasonix_core::tool::ProgressSink;
use reasonix_core::types::ToolOutput;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, GetPromptRequestParams,
    ReadResourceRequestParams, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService, ServiceError};
use serde_json::{Map, Value};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A tool as the server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// `annotations.readOnlyHint`: believed only for a server the user trusts as read-only.
    pub read_only_hint: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgumentInfo {
    pub name: String,
    pub description: String,
    pub required: bool,
}

/// A prompt of a server, offered as the slash command `/mcp__<server>__<name>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptInfo {
    pub server: String,
    pub name: String,
    pub description: String,
    pub arguments: Vec<PromptArgumentInfo>,
}

/// A resource of a server, referenced as `@<server>:<uri>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceInfo {
    pub server: String,
    pub uri: String,
    pub name: String,
    pub description: String,
    pub mime_type: Option<String>,
}

/// Why a request did not give a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestFailure {
    /// The connection ended (the manager knows why).
    Closed,
    Timeout(Duration),
    Cancelled,
    /// The server answered with an error.
    Server(String),
}

impl From<ServiceError> for RequestFailure {
    fn from(e: ServiceError) -> RequestFailure {
        match e {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                RequestFailure::Closed
            }
            ServiceError::Timeout { timeout } => RequestFailure::Timeout(timeout),
            ServiceError::Cancelled { .. } => RequestFailure::Cancelled,
            ServiceError::McpError(data) => RequestFailure::Server(data.message.to_string()),
            other => RequestFailure::Server(other.to_string()),
        }
    }
}

/// One live connection to a server, whatever its transport.
pub trait McpClient: Send + Sync {
    fn list_tools(&self) -> BoxFuture<'_, Result<Vec<ToolInfo>, RequestFailure>>;
    /// `tools/call`; the raw `CallToolResult` as JSON. `cancel` sends `notifications/cancelled`.
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
        timeout: Duration,
        progress: Option<ProgressSink>,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<Value, RequestFailure>>;
    fn list_prompts(&self) -> BoxFuture<'_, Result<Vec<PromptInfo>, RequestFailure>>;
    /// `prompts/get`: the messages' text, one paragraph per message.
    fn get_prompt<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Result<String, RequestFailure>>;
    fn list_resources(&self) -> BoxFuture<'_, Result<Vec<ResourceInfo>, RequestFailure>>;
    fn read_resource<'a>(
        &'a self,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<ToolOutput, RequestFailure>>;
    fn is_closed(&self) -> bool;
    fn close(&self) -> BoxFuture<'_, ()>;
}

/// [`McpClient`] on the SDK's client service.
pub struct RmcpClient {
    server: String,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    peer: rmcp::Peer<RoleClient>,
    progress: ProgressRoutes,
}

impl RmcpClient {
    pub fn new(server: &str, service: RunningService<RoleClient, Handler>) -> RmcpClient {
        let peer = service.peer().clone();
        let progress = service.service().progress.clone();
        RmcpClient {
            server: server.to_string(),
            service: tokio::sync::Mutex::new(Some(service)),
            peer,
            progress,
        }
    }

    /// What the server said it offers in `initialize`.
    fn offers(&self, what: &str) -> bool {
        let Some(info) = self.peer.peer_info() else {
            return false;
        };
        serde_json::to_value(&info.capabilities)
            .ok()
            .and_then(|c| c.get(what).cloned())
            .is_some_and(|v| !v.is_null())
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn text_field(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// Cut at a character boundary, saying so.
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

impl McpClient for RmcpClient {
    fn list_tools(&self) -> BoxFuture<'_, Result<Vec<ToolInfo>, RequestFailure>> {
        Box::pin(async move {
            let tools = self.peer.list_all_tools().await?;
            Ok(tools
                .iter()
                .map(|tool| {
                    let json = to_json(tool);
                    ToolInfo {
                        name: text_field(&json, "name"),
                        description: clip(&text_field(&json, "description"), MAX_DESCRIPTION_BYTES),
                        input_schema: json
                            .get("inputSchema")
                            .cloned()
                            .unwrap_or_else(|| serde_json::json!({"type": "object"})),
                        read_only_hint: json
                            .pointer("/annotations/readOnlyHint")
                            .and_then(Value::as_bool)
                            .unwrap_or(false),
                    }
                })
                .collect())
        })
    }

    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
        timeout: Duration,
        progress: Option<ProgressSink>,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<Value, RequestFailure>> {
        Box::pin(async move {
            let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            let handle = self
                .peer
                .send_cancellable_request(request, PeerRequestOptions::no_options())
                .await?;
            let key = token_key(&handle.progress_token);
            if let (Some(sink), Ok(mut routes)) = (progress, self.progress.lock()) {
                routes.insert(key.clone(), sink);
            }
            let id = handle.id.clone();
            let peer = self.peer.clone();
            let outcome = tokio::select! {
                response = handle.await_response() => response.map_err(RequestFailure::from),
                () = tokio::time::sleep(timeout) => Err(RequestFailure::Timeout(timeout)),
                () = cancel.cancelled() => Err(RequestFailure::Cancelled),
            };
            if matches!(
                outcome,
                Err(RequestFailure::Timeout(_) | RequestFailure::Cancelled)
            ) {
                let reason = match outcome {
                    Err(RequestFailure::Cancelled) => "cancelled by the user",
                    _ => "timed out",
                };
                let notification = rmcp::model::CancelledNotification::new(
                    rmcp::model::CancelledNotificationParam::new(Some(id), Some(reason.into())),
                );
                let _ = peer.send_notification(notification.into()).await;
            }
            if let Ok(mut routes) = self.progress.lock() {
                routes.remove(&key);
            }
            match outcome? {
                ServerResult::CallToolResult(result) => Ok(to_json(&result)),
                other => Err(RequestFailure::Server(format!(
                    "unexpected answer to tools/call: {}",
                    clip(&to_json(&other).to_string(), 200)
                ))),
            }
        })
    }

    fn list_prompts(&self) -> BoxFuture<'_, Result<Vec<PromptInfo>, RequestFailure>> {
        Box::pin(async move {
            if !self.offers("prompts") {
                return Ok(Vec::new());
            }
            let prompts = self.peer.list_all_prompts().await?;
            Ok(prompts
                .iter()
                .map(|p| {
                    let json = to_json(p);
                    PromptInfo {
                        server: self.server.clone(),
                        name: text_field(&json, "name"),
                        description: clip(&text_field(&json, "description"), MAX_DESCRIPTION_BYTES),
                        arguments: json
                            .get("arguments")
                            .and_then(Value::as_array)
                            .map(|args| {
                                args.iter()
                                    .map(|a| PromptArgumentInfo {
                                        name: text_field(a, "name"),
                                        description: text_field(a, "description"),
                                        required: a
                                            .get("required")
                                            .and_then(Value::as_bool)
                                            .unwrap_or(false),
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                    }
                })
                .collect())
        })
    }

    fn get_prompt<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Result<String, RequestFailure>> {
        Box::pin(async move {
            let mut params = GetPromptRequestParams::new(name.to_string());
            if !arguments.is_empty() {
                params = params.with_arguments(arguments);
            }
            let result = to_json(&self.peer.get_prompt(params).await?);
            let blocks: Vec<Value> = result
                .get("messages")
                .and_then(Value::as_array)
                .map(|m| m.iter().filter_map(|m| m.get("content").cloned()).collect())
                .unwrap_or_default();
            Ok(crate::content::blocks_text(&blocks))
        })
    }

    fn list_resources(&self) -> BoxFuture<'_, Result<Vec<ResourceInfo>, RequestFailure>> {
        Box::pin(async move {
            if !self.offers("resources") {
                return Ok(Vec::new());
            }
            let resources = self.peer.list_all_resources().await?;
            Ok(resources
                .iter()
                .map(|r| {
                    let json = to_json(r);
                    ResourceInfo {
                        server: self.server.clone(),
                        uri: text_field(&json, "uri"),
                        name: text_field(&json, "name"),
                        description: clip(&text_field(&json, "description"), MAX_DESCRIPTION_BYTES),
                        mime_type: json
                            .get("mimeType")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    }
                })
                .collect())
        })
    }

    fn read_resource<'a>(
        &'a self,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<ToolOutput, RequestFailure>> {
        Box::pin(async move {
            let result = to_json(
                &self
                    .peer
                    .read_resource(ReadResourceRequestParams::new(uri.to_string()))
                    .await?,
            );
            let contents = result
                .get("contents")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            Ok(crate::content::blocks_output(&contents))
        })
    }

    fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(mut service) = self.service.lock().await.take() {
                let _ = service.close_with_timeout(Duration::from_secs(2)).await;
            }
        })
    }
}
