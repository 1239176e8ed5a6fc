//! The built-in `environment` interceptor: at `system_prompt.build` it appends the environment
//! section — operating system, architecture, shell, workspace — to the system prompt. Only
//! facts that stay the same for a session (no clock, no pids, no environment values): the
//! prompt starts the prefix the provider caches.
#![forbid(unsafe_code)]

use reasonix_sdk::{Decision, Error, Plugin, PluginInfo, Subscription};
use serde_json::Value;

pub const POINT: &str = "system_prompt.build";
/// Before the project instructions (`instructions`, priority 100).
pub const PRIORITY: i32 = 0;

/// The environment section plugin.
pub struct Environment;

impl Plugin for Environment {
    fn info() -> PluginInfo {
        reasonix_sdk::plugin_info(
            "environment",
            "0.1.0",
            "Built-in interceptor: the environment section of the system prompt",
        )
    }

    fn subscriptions() -> Vec<Subscription> {
        vec![Subscription::new(POINT).priority(PRIORITY)]
    }

    fn intercept(point: &str, payload: &str) -> Result<Decision, Error> {
        if point != POINT {
            return Ok(Decision::Proceed);
        }
        let mut value: Value = serde_json::from_str(payload)
            .map_err(|e| Error::InvalidInput(format!("environment: the `{POINT}` payload: {e}")))?;
        let field = |name: &str| value.get(name).and_then(Value::as_str).map(str::to_string);
        let (Some(prompt), Some(os), Some(arch), Some(workspace)) = (
            field("prompt"),
            field("os"),
            field("arch"),
            field("workspaceRoot"),
        ) else {
            return Err(Error::InvalidInput(format!(
                "environment: the `{POINT}` payload lacks `prompt`, `os`, `arch` or `workspaceRoot`"
            )));
        };
        let shell = field("shell");
        let section = render(&os, &arch, shell.as_deref(), &workspace);
        value["prompt"] = Value::String(prompt + &section);
        Ok(Decision::Replace(value.to_string()))
    }
}

/// The section, starting with the blank line that separates it from what comes before.
pub fn render(os: &str, arch: &str, shell: Option<&str>, workspace: &str) -> String {
    let mut out = String::from("\n\n# Environment\n\n");
    out.push_str(&format!("- Operating system: {os}\n"));
    out.push_str(&format!("- Architecture: {arch}\n"));
    if let Some(shell) = shell {
        out.push_str(&format!("- User's shell: {shell}\n"));
    }
    out.push_str(&format!("- Workspace (working directory): {workspace}\n"));
    out.push_str("- Paths in tool calls are relative to the workspace, or absolute inside it.\n");
    out
}

reasonix_sdk::export!(Environment);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn build(shell: Option<&str>) -> String {
        let payload = serde_json::json!({
            "prompt": "You are Reasonix.",
            "workspaceRoot": "/work/proj",
            "os": "linux",
            "arch": "x86_64",
            "shell": shell,
        });
        match Environment::intercept(POINT, &payload.to_string()).unwrap() {
            Decision::Replace(json) => {
                let v: Value = serde_json::from_str(&json).unwrap();
                assert_eq!(v["workspaceRoot"], "/work/proj", "the rest stays");
                v["prompt"].as_str().unwrap().to_string()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn appends_the_environment_block() {
        assert_eq!(
            build(Some("zsh")),
            "You are Reasonix.\n\n# Environment\n\n- Operating system: linux\n- Architecture: x86_64\n- User's shell: zsh\n- Workspace (working directory): /work/proj\n- Paths in tool calls are relative to the workspace, or absolute inside it.\n"
        );
        assert!(!build(None).contains("shell"));
        assert_eq!(build(Some("zsh")), build(Some("zsh")), "deterministic");
    }

    #[test]
    fn other_points_and_bad_payloads() {
        assert_eq!(
            Environment::intercept("tool.after", "{}").unwrap(),
            Decision::Proceed
        );
        assert!(Environment::intercept(POINT, "{\"prompt\":1}").is_err());
        assert!(Environment::intercept(POINT, "not json").is_err());
    }
}
