//! The host services plugins import: log, progress, config. The capability-gated `process`
//! service is in `super::process`.

use super::bindings::reasonix::plugin::{config, log, progress, types};
use super::state::PluginState;

impl types::Host for PluginState {}

impl log::Host for PluginState {
    fn write(&mut self, level: log::Level, message: String) {
        // Past the call's log budget lines are dropped (counted, one notice at the end).
        if self.log.is_some() && !self.usage.admit_log(message.len()) {
            return;
        }
        if let Some(sink) = &self.log {
            sink(&self.plugin, level, &message);
        }
    }
}

impl progress::Host for PluginState {
    fn report(&mut self, message: String, fraction: Option<f32>) {
        if self.progress.is_some() && !self.usage.admit_log(message.len()) {
            return;
        }
        if let Some(sink) = &self.progress {
            sink(
                &message,
                fraction
                    .filter(|f| f.is_finite())
                    .map(|f| f.clamp(0.0, 1.0)),
            );
        }
    }
}

/// Reserved `config` key under which a plugin reads the sandbox policy of its workspace.
pub const SANDBOX_CONFIG_KEY: &str = "sandbox";

impl config::Host for PluginState {
    fn get(&mut self, key: String) -> Option<String> {
        if key == SANDBOX_CONFIG_KEY {
            return self.sandbox.as_ref().map(|p| p.to_json().to_string());
        }
        self.config.get(&key).map(|v| v.to_string())
    }

    fn all(&mut self) -> String {
        serde_json::Value::Object((*self.config).clone()).to_string()
    }
}

// `process` lives in `super::process`.
