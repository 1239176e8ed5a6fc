//! Hooks from `settings.json` (read by `reasonix_config`) handed to the built-in `hooks`
//! component.
//!
//! The host alone decides which hooks run: the trusted ones of events that fire in this build,
//! passed as JSON in the component's `[plugin.hooks.config] hooks` key (whatever a TOML file
//! put there is replaced, so a project file cannot smuggle a command in). With no hook to run,
//! the component is not loaded at all, so its points cost nothing.

use reasonix_config::{Config, HookEntry, RegistrySettings};
use reasonix_core::user_commands::UserCommands;

/// The built-in component that runs hooks.
pub const PLUGIN: &str = "hooks";
/// Its config key holding the hooks to run.
const KEY: &str = "hooks";

/// Events accepted in settings files that never fire in this build, and why.
pub fn never_fires(event: &str) -> Option<&'static str> {
    match event {
        "StopError" => Some("never fires: a failed run dispatches `Stop` like any other"),
        _ => None,
    }
}

/// The point each event is served at.
pub fn point_of(event: &str) -> &'static str {
    match event {
        "PreToolUse" => "tool.before",
        "PostToolUse" | "PostToolUseError" => "tool.after",
        "PermissionRequest" => "permission.decision",
        "UserPromptSubmit" | "SessionStart" | "SubagentStart" => "input.receive",
        "Stop" | "StopError" | "SubagentStop" => "session.save",
        "SessionEnd" => "session.end",
        "Notification" => "frontend.event",
        "PreCompact" => "compaction.prepare",
        _ => "-",
    }
}

/// The registry settings with the hooks to run put in the component's config; and the
/// registry's notice for the component being off when the host turned it off (nothing to run).
pub fn registry_settings(config: &Config) -> (RegistrySettings, Option<String>) {
    let mut settings = config.registry_settings();
    let active: Vec<&HookEntry> = config
        .hooks
        .iter()
        .filter(|h| h.trusted && never_fires(&h.event).is_none())
        // A composition's choice of events (packages' hooks are added after it narrowed).
        .filter(|h| {
            config
                .hook_events
                .as_ref()
                .is_none_or(|events| reasonix_config::composition::hook_kept(events, &h.event))
        })
        .collect();
    let list = serde_json::to_string(&active).unwrap_or_else(|_| "[]".to_string());
    settings.user_commands = user_commands(&active);
    let mut quiet = None;
    // Both layers: an untrusted project's `[plugin.hooks]` is set aside for an interceptor.
    let layers = std::iter::once(settings.plugins.entry(PLUGIN.to_string()).or_default());
    let user_layer = settings.untrusted_project.get_mut(PLUGIN);
    for entry in layers.chain(user_layer) {
        entry.set_config_string(KEY, list.clone());
        if active.is_empty() && entry.enabled != Some(false) {
            entry.enabled = Some(false);
            quiet = Some(format!("plugin `{PLUGIN}` is disabled in the config"));
        }
    }
    (settings, quiet)
}

/// The command lines of the user's own hooks (user-scope settings files), which run with the
/// user's confinement: the network and a writable `~/.claude` (ADR 0028, docs/HOOKS.md).
pub fn user_commands(active: &[&HookEntry]) -> UserCommands {
    let of_scope = |scope: &str| {
        active
            .iter()
            .filter(|h| h.scope == scope)
            .map(|h| h.command.clone())
            .collect::<Vec<_>>()
    };
    let claude_dir = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| std::path::PathBuf::from(h).join(".claude"));
    // A package's hooks were agreed to by the user at install: they run as the user's own,
    // and may read their package's folder (inside Reasonix's home, hidden from other jobs).
    let mut own = of_scope("user");
    own.extend(of_scope(crate::packages::HOOK_SCOPE));
    let package_roots: Vec<std::path::PathBuf> = active
        .iter()
        .filter(|h| h.scope == crate::packages::HOOK_SCOPE)
        .filter_map(|h| {
            h.env
                .get("CLAUDE_PLUGIN_ROOT")
                .map(std::path::PathBuf::from)
        })
        .collect();
    UserCommands::new(own, &of_scope("project"), claude_dir).with_readable(package_roots)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hook(event: &str, command: &str) -> HookEntry {
        HookEntry {
            event: event.into(),
            matcher: None,
            matcher_style: reasonix_config::settings_json::MatcherStyle::Claude,
            command: command.into(),
            timeout_ms: None,
            cwd: None,
            env: Default::default(),
            description: None,
            condition: None,
            source: "test".into(),
            scope: "user",
            trusted: true,
        }
    }

    #[test]
    fn a_composition_keeps_its_events_and_always_the_safety_ones() {
        let config = Config {
            hooks: vec![
                hook("PostToolUse", "format-after"),
                hook("PreToolUse", "guard-before"),
                hook("Stop", "notify-stop"),
            ],
            hook_events: Some(vec!["Stop".into()]),
            ..Config::default()
        };
        let (mut settings, _) = registry_settings(&config);
        let text = settings
            .plugins
            .entry(PLUGIN.to_string())
            .or_default()
            .config
            .get(KEY)
            .unwrap()
            .to_string();
        assert!(
            text.contains("guard-before") && text.contains("notify-stop"),
            "{text}"
        );
        assert!(!text.contains("format-after"), "{text}");
    }
}
