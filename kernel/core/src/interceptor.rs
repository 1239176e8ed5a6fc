//! The `Interceptor` trait: something that observes or changes payloads at named points.

use crate::error::CallError;
use crate::types::{Decision, Subscription};

/// Something that observes or changes payloads at named interception points.
pub trait Interceptor: Send + Sync {
    /// Name of the plugin serving it.
    fn source(&self) -> &str;
    /// The points it subscribes to, each with its priority (lower runs first).
    fn points(&self) -> &[Subscription];
    /// The replacement slots it owns (`system_prompt`, `tool:<name>` …): it runs last at their
    /// points. None by default.
    fn slots(&self) -> &[String] {
        &[]
    }
    /// Handle one interception; the payload is JSON in the point's documented schema.
    fn intercept(&self, point: &str, payload: &str) -> Result<Decision, CallError>;
    /// One instance for the points of one unit of work (a tool call's `tool.after` and the
    /// `frontend.event` that shows its result), dropped with it: what it keeps between those
    /// calls concerns that unit only. `None` (the default): every interception is separate.
    fn held(&self) -> Option<Box<dyn HeldInterceptor>> {
        None
    }
}

/// An interceptor instance kept for one unit of work ([`Interceptor::held`]).
pub trait HeldInterceptor: Send {
    /// As [`Interceptor::intercept`], on the kept instance.
    fn intercept(&mut self, point: &str, payload: &str) -> Result<Decision, CallError>;
}
