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
}
