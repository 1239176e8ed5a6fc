//! Host services every plugin may use. Outside wasm (native unit tests) they do nothing, so
//! plugin logic stays testable without a host.

#[cfg(target_arch = "wasm32")]
use crate::bindings::reasonix::plugin::{config, log as wit_log, progress};

/// Severity of a log line.
pub use crate::bindings::reasonix::plugin::log::Level;

/// Write a line to the host's log, tagged with this plugin's name.
pub fn log(level: Level, message: &str) {
    #[cfg(target_arch = "wasm32")]
    wit_log::write(level, message);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (level, message);
}

/// Tell the user what the current call is doing.
pub fn progress(message: &str, fraction: Option<f32>) {
    #[cfg(target_arch = "wasm32")]
    progress::report(message, fraction);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (message, fraction);
}

/// This plugin's configuration value for `key`, parsed from JSON.
pub fn config_value(key: &str) -> Option<serde_json::Value> {
    #[cfg(target_arch = "wasm32")]
    {
        config::get(key).and_then(|text| serde_json::from_str(&text).ok())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = key;
        None
    }
}
