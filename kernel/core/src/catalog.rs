//! What the agent can use, as the host serves it: tools, provider kinds and interceptors, all
//! behind the traits of this crate. The component host implements it with its registry; the
//! agent's tests implement it with in-memory fakes.

use crate::interceptor::Interceptor;
use crate::provider::Provider;
use crate::tool::Tool;
use std::sync::Arc;

pub trait Catalog: Send + Sync {
    /// Every tool, in any order (the agent sorts what it offers).
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
    /// The provider serving `kind`.
    fn provider(&self, kind: &str) -> Option<Arc<dyn Provider>>;
    /// The provider kinds served, sorted (for error messages).
    fn provider_kinds(&self) -> Vec<String>;
    /// Every interceptor (for listing; calls made through these have no workspace).
    fn interceptors(&self) -> Vec<Arc<dyn Interceptor>>;
    /// Every interceptor, its calls made for `workspace` (its files as far as each plugin's
    /// grant goes, commands in its sandbox policy). The agent takes its interceptors from here,
    /// so each agent — and each reloaded runtime — serves its own workspace.
    fn interceptors_for(&self, workspace: &std::path::Path) -> Vec<Arc<dyn Interceptor>> {
        let _ = workspace;
        self.interceptors()
    }
    /// Kill every command the plugins started (the user cancelled).
    fn stop_processes(&self, reason: &str);
    /// Stop what calls whose [`ToolContext::cancel`] has fired started (their processes):
    /// cancelling one agent's turn leaves another agent's work running. Without a way to tell
    /// (the default), everything stops.
    ///
    /// [`ToolContext::cancel`]: crate::types::ToolContext::cancel
    fn stop_cancelled(&self, reason: &str) {
        self.stop_processes(reason);
    }
    /// Changes whenever [`Catalog::tools`] would give a different set (an MCP server became
    /// ready, or said its tools changed). The agent looks at it between turns only, so the
    /// tools a provider sees never change in the middle of a turn.
    fn tools_revision(&self) -> u64 {
        0
    }
}

/// A borrowed catalog is a catalog (tests and benchmarks that keep one registry for the whole
/// process hand out `&'static` references).
impl<T: Catalog + ?Sized> Catalog for &T {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        (**self).tools()
    }
    fn provider(&self, kind: &str) -> Option<Arc<dyn Provider>> {
        (**self).provider(kind)
    }
    fn provider_kinds(&self) -> Vec<String> {
        (**self).provider_kinds()
    }
    fn interceptors(&self) -> Vec<Arc<dyn Interceptor>> {
        (**self).interceptors()
    }
    fn interceptors_for(&self, workspace: &std::path::Path) -> Vec<Arc<dyn Interceptor>> {
        (**self).interceptors_for(workspace)
    }
    fn stop_processes(&self, reason: &str) {
        (**self).stop_processes(reason)
    }
    fn stop_cancelled(&self, reason: &str) {
        (**self).stop_cancelled(reason)
    }
    fn tools_revision(&self) -> u64 {
        (**self).tools_revision()
    }
}
