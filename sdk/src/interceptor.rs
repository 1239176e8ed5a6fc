//! Interceptor plugins: components that observe or change what flows through the agent at named
//! points (e.g. `tool.before`). Implement [`InterceptorPlugin`] and call
//! [`export_interceptor_plugin!`](crate::export_interceptor_plugin).
//!
//! ```ignore
//! struct NoRm;
//! impl reasonix_sdk::InterceptorPlugin for NoRm {
//!     fn info() -> reasonix_sdk::PluginInfo { reasonix_sdk::plugin_info("no-rm", "0.1.0", "Blocks rm -rf") }
//!     fn points() -> Vec<reasonix_sdk::interceptor::Subscription> {
//!         vec![reasonix_sdk::interceptor::Subscription { point: "tool.before".into(), priority: 0 }]
//!     }
//!     fn intercept(_point: &str, payload: &str) -> Result<reasonix_sdk::Decision, reasonix_sdk::Error> {
//!         Ok(if payload.contains("rm -rf") { reasonix_sdk::Decision::Block("no rm -rf".into()) }
//!            else { reasonix_sdk::Decision::Proceed })
//!     }
//! }
//! reasonix_sdk::export_interceptor_plugin!(NoRm);
//! ```

use crate::{Error, PluginInfo};

pub use crate::interceptor_world::exports::reasonix::plugin::interceptor::{
    Decision, Subscription,
};

/// A plugin that intercepts. Implement this and call
/// [`export_interceptor_plugin!`](crate::export_interceptor_plugin).
pub trait InterceptorPlugin {
    /// Name, version, description, requested capabilities and limits.
    fn info() -> PluginInfo;
    /// The interception points subscribed to, with their priorities; must be the same on every
    /// call.
    fn points() -> Vec<Subscription>;
    /// Handle one interception; `payload` is JSON with the point's schema. Return
    /// [`Decision::Replace`] with a payload of the same schema to change it.
    fn intercept(point: &str, payload: &str) -> Result<Decision, Error>;
}

/// Export an [`InterceptorPlugin`] implementation as the component's `plugin` and
/// `interceptor` interfaces.
#[macro_export]
macro_rules! export_interceptor_plugin {
    ($plugin:ty) => {
        #[doc(hidden)]
        pub struct __ReasonixInterceptorExport;

        impl $crate::plugin_world::exports::reasonix::plugin::plugin::Guest
            for __ReasonixInterceptorExport
        {
            fn describe() -> $crate::PluginInfo {
                <$plugin as $crate::InterceptorPlugin>::info()
            }
        }

        impl $crate::interceptor_world::exports::reasonix::plugin::interceptor::Guest
            for __ReasonixInterceptorExport
        {
            fn points() -> ::std::vec::Vec<$crate::interceptor::Subscription> {
                <$plugin as $crate::InterceptorPlugin>::points()
            }
            fn intercept(
                point: ::std::string::String,
                payload: ::std::string::String,
            ) -> ::std::result::Result<$crate::Decision, $crate::Error> {
                <$plugin as $crate::InterceptorPlugin>::intercept(&point, &payload)
            }
        }

        // As for tools: the component exports only exist in the wasm build.
        #[cfg(target_arch = "wasm32")]
        $crate::plugin_world::export_plugin_world!(__ReasonixInterceptorExport);
        #[cfg(target_arch = "wasm32")]
        $crate::interceptor_world::export_interceptor_world!(__ReasonixInterceptorExport);
    };
}
