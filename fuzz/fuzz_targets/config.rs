//! `Config::parse` on arbitrary text, then everything the CLI derives from a parsed config
//! without I/O: warnings, the permission rules, provider resolution, the per-plugin
//! settings. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reasonix_config::Config;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(config) = Config::parse(Path::new("reasonix.toml"), text) else {
        return;
    };
    let _ = config.warnings();
    let _ = config.permission_rules();
    let _ = reasonix_config::providers::resolve_providers(&config);
    for name in config.plugins.keys() {
        let settings = config.plugin(name);
        let _ = settings.narrow(&reasonix_core::capability::Capabilities::default());
    }
});
