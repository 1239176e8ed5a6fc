//! What Reasonix answers and hears as an MCP client: `roots/list` is the workspace, progress
//! notifications go to the call that asked for them, list changes mark the server for a
//! refresh (applied between turns by the manager).
// Roots are deprecated by a later protocol revision (SEP-2577), but the servers people run
// today ask for them; the issue asks for the workspace to be advertised.
#![allow(deprecated)]

use reasonix_core::tool::ProgressSink;
use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ListRootsResult, ProgressNotificationParam,
    ProgressToken, Root,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Progress sinks of the calls in flight, by progress token.
pub type ProgressRoutes = Arc<Mutex<HashMap<String, ProgressSink>>>;

pub fn token_key(token: &ProgressToken) -> String {
    serde_json::to_string(&token.0).unwrap_or_default()
}

#[derive(Clone)]
pub struct Handler {
    pub workspace: PathBuf,
    pub progress: ProgressRoutes,
    /// The server said its tools, prompts or resources changed.
    pub lists_changed: Arc<AtomicBool>,
    /// Wakes the manager's refresh task.
    pub refresh: Arc<tokio::sync::Notify>,
}

impl Handler {
    /// A `*/list_changed` notification: the lists are read again in the background, and the
    /// agent takes the new tools at its next turn boundary.
    fn lists_changed(&self) -> std::future::Ready<()> {
        self.lists_changed.store(true, Ordering::SeqCst);
        self.refresh.notify_one();
        std::future::ready(())
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            serde_json::from_value::<ClientCapabilities>(serde_json::json!({"roots": {}}))
                .unwrap_or_default(),
            Implementation::new("reasonix", env!("CARGO_PKG_VERSION")),
        )
    }

    fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> impl Future<Output = Result<ListRootsResult, rmcp::ErrorData>> + Send + '_ {
        let uri = format!("file://{}", self.workspace.display());
        let mut root = Root::new(uri);
        root.name = self
            .workspace
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        std::future::ready(Ok(ListRootsResult::new(vec![root])))
    }

    fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        let sink = self
            .progress
            .lock()
            .ok()
            .and_then(|routes| routes.get(&token_key(&params.progress_token)).cloned());
        if let Some(sink) = sink {
            let fraction = params
                .total
                .filter(|t| *t > 0.0)
                .map(|t| (params.progress / t).clamp(0.0, 1.0) as f32);
            let message = params
                .message
                .clone()
                .unwrap_or_else(|| match params.total {
                    Some(total) => format!("{} / {total}", params.progress),
                    None => format!("{}", params.progress),
                });
            sink(&message, fraction);
        }
        std::future::ready(())
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.lists_changed()
    }

    fn on_prompt_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.lists_changed()
    }

    fn on_resource_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.lists_changed()
    }
}
