//! The interceptor role: observe or change what flows through the agent at named points (e.g.
//! `tool.before`). Subscribe with [`Plugin::subscriptions`](crate::Plugin::subscriptions) and
//! decide in [`Plugin::intercept`](crate::Plugin::intercept).
//!
//! ```ignore
//! struct NoRm;
//! impl reasonix_sdk::Plugin for NoRm {
//!     fn info() -> reasonix_sdk::PluginInfo { reasonix_sdk::plugin_info("no-rm", "0.1.0", "Blocks rm -rf") }
//!     fn subscriptions() -> Vec<reasonix_sdk::Subscription> {
//!         vec![reasonix_sdk::Subscription::new("tool.before")]
//!     }
//!     fn intercept(_point: &str, payload: &str) -> Result<reasonix_sdk::Decision, reasonix_sdk::Error> {
//!         Ok(if payload.contains("rm -rf") { reasonix_sdk::Decision::Block("no rm -rf".into()) }
//!            else { reasonix_sdk::Decision::Proceed })
//!     }
//! }
//! reasonix_sdk::export!(NoRm);
//! ```

pub use crate::bindings::exports::reasonix::plugin::interceptor::{Decision, Subscription};

impl Subscription {
    /// The lowest and highest priority the host accepts.
    pub const PRIORITY_RANGE: std::ops::RangeInclusive<i32> = -1000..=1000;

    /// A subscription to `point` with the default priority, 0.
    pub fn new(point: &str) -> Subscription {
        Subscription {
            point: point.to_string(),
            priority: 0,
        }
    }

    /// The same subscription with another priority, from -1000 to 1000: lower runs first,
    /// equal priorities run in the order of the plugins' names.
    pub fn priority(self, priority: i32) -> Subscription {
        Subscription { priority, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subscription_defaults_to_priority_zero() {
        let s = Subscription::new("tool.before");
        assert_eq!((s.point.as_str(), s.priority), ("tool.before", 0));
        assert_eq!(Subscription::new("tool.after").priority(-5).priority, -5);
        assert!(Subscription::PRIORITY_RANGE.contains(&1000));
        assert!(!Subscription::PRIORITY_RANGE.contains(&1001));
    }
}
