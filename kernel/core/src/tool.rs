//! The `Tool` trait: what the agent sees of a tool, whatever tier serves it.

use crate::error::CallError;
use crate::types::{CallContext, FileChange, ToolSpec};
use std::sync::Arc;

/// Where a running call reports progress (message, fraction done).
pub type ProgressSink = Arc<dyn Fn(&str, Option<f32>) + Send + Sync>;

/// A tool the agent can call, whatever tier serves it.
pub trait Tool: Send + Sync {
    /// Name, description, canonical schema and read-only flag.
    fn spec(&self) -> &ToolSpec;
    /// Name of the plugin (or server) serving it.
    fn source(&self) -> &str;
    /// Run it. Errors are for the model to read; they are never fatal.
    fn invoke(
        &self,
        arguments: &str,
        context: &CallContext,
        progress: Option<ProgressSink>,
    ) -> Result<String, CallError>;
    /// The file changes `invoke` would make with the same arguments.
    fn preview(&self, arguments: &str, context: &CallContext)
    -> Result<Vec<FileChange>, CallError>;
}
