//! `reasonix hooks list [--json]`: every hook the settings files define, and whether and how
//! it runs.

use crate::context;
use crate::exit::{Code, Failure, Outcome};
use crate::hooks::{PLUGIN, never_fires, point_of, user_commands};
use crate::term::outln;
use reasonix_config::HookEntry;
use reasonix_core::terminal::shown;
use serde_json::json;

/// `reasonix hooks list [--json]`.
pub fn list(json_out: bool) -> Outcome {
    let paths = reasonix_config::Paths::from_env();
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::usage(anyhow::anyhow!("cannot read the current directory: {e}")))?;
    let mut config = context::load_config(&paths, &cwd)?;
    // Installed packages' hooks run as the user's own; list them with the rest.
    reasonix_runtime::packages::load(&paths, &mut config);
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
