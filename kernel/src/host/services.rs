//! The host services plugins import: log, progress, config, process. Capability-gated ones are
//! checked on every call.

use super::bindings::reasonix::plugin::{config, log, process, progress, types};
use super::state::PluginState;

impl types::Host for PluginState {}

impl log::Host for PluginState {
    fn write(&mut self, level: log::Level, message: String) {
        if let Some(sink) = &self.log {
            sink(&self.plugin, level, &message);
        }
    }
}

impl progress::Host for PluginState {
    fn report(&mut self, message: String, fraction: Option<f32>) {
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

impl PluginState {
    fn require_process(&self) -> Result<(), types::Error> {
        if self.capabilities.process {
            // The sandboxed process runner arrives with the built-in shell tools; until then a
            // granted plugin gets a clear answer instead of an unconfined process.
            Err(types::Error::Unsupported(
                "the sandboxed process service is not available in this build".to_string(),
            ))
        } else {
            Err(types::Error::Denied(format!(
                "plugin `{}` was not granted the `process` capability",
                self.plugin
            )))
        }
    }
}

impl process::Host for PluginState {
    fn spawn(&mut self, _command: process::Command) -> Result<String, types::Error> {
        self.require_process().map(|()| String::new())
    }

    fn read(&mut self, _job: String, _max_bytes: u32) -> Result<process::Output, types::Error> {
        self.require_process().map(|()| process::Output {
            data: Vec::new(),
            status: None,
        })
    }

    fn wait(
        &mut self,
        _job: String,
        _timeout_ms: Option<u64>,
    ) -> Result<Option<process::ExitStatus>, types::Error> {
        self.require_process().map(|()| None)
    }

    fn kill(&mut self, _job: String) -> Result<(), types::Error> {
        self.require_process()
    }
}
