//! Hooks from `settings.json` (read by `reasonix_agent::config`) handed to the built-in `hooks`
//! component, and `reasonix hooks list`.
//!
//! The host alone decides which hooks run: the trusted ones of events that fire in this build,
//! passed as JSON in the component's `[plugin.hooks.config] hooks` key (whatever a TOML file
//! put there is replaced, so a project file cannot smuggle a command in). With no hook to run,
//! the component is not loaded at all, so its points cost nothing.

use crate::context;
use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use reasonix_agent::config::{Config, HookEntry, RegistrySettings};
use reasonix_core::terminal::shown;
use reasonix_core::user_commands::UserCommands;
use serde_json::json;

/// The built-in component that runs hooks.
pub const PLUGIN: &str = "hooks";
/// Its config key holding the hooks to run.
const KEY: &str = "hooks";

/// Events accepted in settings files that never fire in this build, and why.
pub fn never_fires(event: &str) -> Option<&'static str> {
    match event {
        "SubagentStart" | "SubagentStop" => Some("never fires: Reasonix has no sub-agents yet"),
        "StopFailure" => Some("never fires: a failed run dispatches `Stop` like any other"),
        _ => None,
    }
}

/// The point each event is served at.
pub fn point_of(event: &str) -> &'static str {
    match event {
        "PreToolUse" => "tool.before",
        "PostToolUse" | "PostToolUseFailure" => "tool.after",
        "PermissionRequest" => "permission.decision",
        "UserPromptSubmit" | "SessionStart" => "input.receive",
        "Stop" | "StopFailure" => "session.save",
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
fn user_commands(active: &[&HookEntry]) -> UserCommands {
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
    UserCommands::new(of_scope("user"), &of_scope("project"), claude_dir)
}

/// `reasonix hooks list [--json]`.
pub fn list(json_out: bool) -> Outcome {
    let paths = reasonix_agent::config::Paths::from_env();
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::usage(anyhow::anyhow!("cannot read the current directory: {e}")))?;
    let config = context::load_config(&paths, &cwd)?;
    let user_disabled = config
        .plugins
        .get(PLUGIN)
        .is_some_and(|p| p.enabled == Some(false));
    let runs: Vec<&HookEntry> = config
        .hooks
        .iter()
        .filter(|h| h.trusted && never_fires(&h.event).is_none())
        .collect();
    let widened = user_commands(&runs);
    let state = |h: &HookEntry| -> String {
        if let Some(why) = never_fires(&h.event) {
            why.to_string()
        } else if !h.trusted {
            "untrusted: does not run (`reasonix trust` to review and trust this workspace)"
                .to_string()
        } else if user_disabled {
            "does not run: `[plugin.hooks] enabled = false`".to_string()
        } else if h.event == "PreCompact" {
            "active (fires once Reasonix compacts conversations)".to_string()
        } else if widened.contains(&h.command) {
            "active (your own hook: in the sandbox with the network and `~/.claude` writable)"
                .to_string()
        } else {
            "active (in the workspace's sandbox)".to_string()
        }
    };
    if json_out {
        let hooks: Vec<_> = config
            .hooks
            .iter()
            .map(|h| {
                json!({
                    "event": h.event,
                    "point": point_of(&h.event),
                    "matcher": h.matcher,
                    "matcherStyle": h.matcher_style,
                    "command": h.command,
                    "timeoutMs": h.timeout_ms,
                    "source": h.source,
                    "scope": h.scope,
                    "trusted": h.trusted,
                    "runs": h.trusted && never_fires(&h.event).is_none() && !user_disabled,
                    "state": state(h),
                })
            })
            .collect();
        let files: Vec<_> = config.settings.iter().map(|s| json!(s)).collect();
        crate::term::print_json(&json!({"hooks": hooks, "files": files}))
            .map_err(|e| Failure::runtime(anyhow::anyhow!("cannot write JSON: {e}")))?;
        return Ok(Code::Success);
    }
    if config.hooks.is_empty() {
        outln!(
            "no hooks configured; files read: {}",
            if config.settings.is_empty() {
                "none".to_string()
            } else {
                config
                    .settings
                    .iter()
                    .map(|s| shown(&s.path.display().to_string()).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        );
    }
    for h in &config.hooks {
        let matcher = match h.matcher.as_deref() {
            None | Some("") | Some("*") => "*".to_string(),
            Some(m) => m.to_string(),
        };
        outln!(
            "{} [{}] matcher {}: {}",
            h.event,
            point_of(&h.event),
            shown(&matcher),
            shown(&h.command)
        );
        outln!("    from {} ({}); {}", shown(&h.source), h.scope, state(h));
    }
    for warning in config.warnings() {
        crate::term::errln!("warning: {}", shown(&warning));
    }
    Ok(Code::Success)
}
