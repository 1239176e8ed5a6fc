//! `extension/initialize` and `extension/initialized`: the sidecar declares what it serves,
//! and everything it declares must be in its manifest's `runtime` block.

use crate::connection::Connection;
use crate::error::SidecarError;
use crate::limits::{PROTOCOL_ID, PROTOCOL_VERSION};
use crate::manifest::{Manifest, Runtime};
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// What a sidecar answers to `extension/initialize` (decoded strictly).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InitializeResult {
    pub name: String,
    pub version: String,
    pub protocol_version: String,
    pub state_schema_version: Value,
    #[serde(default)]
    pub protocol_id: Option<String>,
    #[serde(default)]
    pub subscriptions: Vec<String>,
    #[serde(default)]
    pub replaces: Vec<String>,
    #[serde(default)]
    pub providers: Vec<Value>,
    #[serde(default)]
    pub ui_actions: Vec<Value>,
    #[serde(default)]
    pub provides: Vec<Value>,
    #[serde(default)]
    pub requires: Vec<Value>,
    #[serde(default)]
    pub component_id: Option<String>,
    #[serde(default)]
    pub tools: Vec<DeclaredTool>,
}

/// A tool named in the declaration: by name, or with its full descriptor.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum DeclaredTool {
    Name(String),
    Descriptor {
        name: String,
        #[serde(flatten)]
        rest: serde_json::Map<String, Value>,
    },
}

impl DeclaredTool {
    pub fn name(&self) -> &str {
        match self {
            DeclaredTool::Name(name) | DeclaredTool::Descriptor { name, .. } => name,
        }
    }
}

/// Run the handshake within `timeout`; on success the sidecar may speak first.
pub fn handshake(
    conn: &Connection,
    manifest: &Manifest,
    runtime: &Runtime,
    workspace: &Path,
    timeout: Duration,
) -> Result<InitializeResult, SidecarError> {
    let capabilities: Vec<Value> = runtime
        .capabilities
        .iter()
        .map(|c| serde_json::to_value(format!("{c:?}").to_lowercase()).unwrap_or(Value::Null))
        .collect();
    let params = serde_json::json!({
        "protocolId": PROTOCOL_ID,
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {
            "contentRefs": false,
            "protocolVersion": PROTOCOL_VERSION,
            "uiHost": "headless",
        },
        "manifest": {
            "intercepts": runtime.intercepts,
            "replaces": runtime.replaces,
            "providers": [],
            "uiActions": [],
            "capabilities": capabilities,
            "provides": [],
            "requires": [],
            "tools": runtime.tools.iter().map(|t| &t.name).collect::<Vec<_>>(),
        },
        "session": {
            "sessionId": "",
            "workspaceRoot": workspace.display().to_string(),
            "generation": 1,
            "epoch": 1,
        },
    });
    let result = conn.call("extension/initialize", params, timeout)?;
    let contract = |reason: &'static str, message: String| SidecarError::Contract {
        name: manifest.name.clone(),
        reason,
        message,
    };
    let result: InitializeResult = serde_json::from_value(result).map_err(|e| {
        contract(
            "schema_mismatch",
            format!("its `extension/initialize` result: {e}"),
        )
    })?;
    if let Some(id) = &result.protocol_id
        && id != PROTOCOL_ID
    {
        return Err(contract(
            "unsupported_version",
            format!("it speaks `{id}`, not `{PROTOCOL_ID}`"),
        ));
    }
    if result.protocol_version.split('.').next() != Some(PROTOCOL_VERSION) {
        return Err(contract(
            "unsupported_version",
            format!(
                "it speaks protocol version `{}`, not `{PROTOCOL_VERSION}`",
                result.protocol_version
            ),
        ));
    }
    check_declared(&result, runtime).map_err(|m| contract("capability_not_declared", m))?;
    conn.mark_initialized();
    conn.notify("extension/initialized", serde_json::json!({}))?;
    Ok(result)
}

/// Every subscription, slot, provider, UI action and tool the sidecar declares must be in the
/// manifest (providers and UI actions are not served, so none may be declared).
pub fn check_declared(result: &InitializeResult, runtime: &Runtime) -> Result<(), String> {
    let manifest = crate::manifest::MANIFEST_FILE;
    if let Some(point) = result
        .subscriptions
        .iter()
        .find(|p| !runtime.intercepts.contains(p))
    {
        return Err(format!(
            "it subscribes to `{}`, which its {manifest} does not list in `runtime.intercepts`",
            reasonix_core::terminal::line(point)
        ));
    }
    if let Some(slot) = result
        .replaces
        .iter()
        .find(|s| !runtime.replaces.contains(s))
    {
        return Err(format!(
            "it replaces `{}`, which its {manifest} does not list in `runtime.replaces`",
            reasonix_core::terminal::line(slot)
        ));
    }
    if let Some(tool) = result
        .tools
        .iter()
        .find(|t| !runtime.tools.iter().any(|m| m.name == t.name()))
    {
        return Err(format!(
            "it declares tool `{}`, which its {manifest} does not list in `runtime.tools`",
            reasonix_core::terminal::line(tool.name())
        ));
    }
    if !result.providers.is_empty()
        && !runtime
            .capabilities
            .contains(&crate::manifest::RuntimeCapability::Providers)
    {
        return Err(format!(
            "it declares providers, but its {manifest} lacks `providers` in `runtime.capabilities`"
        ));
    }
    if !result.ui_actions.is_empty() {
        return Err("it declares UI actions; this host has no UI surface for them".into());
    }
    Ok(())
}
