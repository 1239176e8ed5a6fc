//! The built-in `hooks` component: Claude Code compatible hook commands, from the
//! `settings.json` files the host read and trusted, run at the interception points.
//!
//! | Event | Point |
//! |---|---|
//! | `SessionStart` | `input.receive`, first input of a session (`sessionStart` set) |
//! | `UserPromptSubmit` | `input.receive` |
//! | `PreToolUse` | `tool.before` |
//! | `PermissionRequest` | `permission.decision`, when the host would refuse the call |
//! | `PostToolUse` / `PostToolUseFailure` | `tool.after` (`isError` false / true) |
//! | `Notification` | `frontend.event` of kind `permission_denied` or `notice` |
//! | `PreCompact` | `compaction.prepare` |
//! | `Stop` | `session.save` (after each run) |
//! | `SessionEnd` | `session.end` |
//!
//! Each hook is `sh -c <command>` through the host `process` service, so it runs in the OS
//! sandbox the user configured, with the event's JSON (Claude Code's snake_case shape) on
//! stdin, stderr kept apart, its own timeout (the host kills its process group), and at most
//! 256 KiB read per stream. Hooks of one event run in order; the first block stops the rest.
//! Components keep no state between calls: `SessionStart` context reaches the model because the
//! host marks the first input of a session. See docs/HOOKS.md.
#![forbid(unsafe_code)]

pub mod condition;
pub mod outcome;
pub mod spec;

use outcome::{Ended, Run};
use reasonix_sdk::{Decision, Error, Plugin, PluginInfo, Subscription, WorkspaceAccess};
use serde_json::{Value, json};
use spec::HookSpec;

/// The reserved environment name (`reasonix_core::settings::USER_COMMANDS_ENV`) under which
/// the host runs the user's own hook commands with the user's confinement.
pub const USER_COMMANDS_ENV: &str = "REASONIX_USER_COMMANDS";

/// The most read from a hook's stdout, and from its stderr.
pub const MAX_STREAM: usize = 256 * 1024;
/// The call deadline requested: the host's maximum, one hour (each hook has its own timeout).
const CALL_TIMEOUT_MS: u32 = 3_600_000;

/// The points served (the host does not load this component when no hook is configured).
pub const POINTS: &[&str] = &[
    "input.receive",
    "tool.before",
    "permission.decision",
    "tool.after",
    "frontend.event",
    "compaction.prepare",
    "session.save",
    "session.end",
];

/// Runs one hook; the host's process service in the component, a fake in tests.
pub trait Runner {
    fn run(&self, hook: &HookSpec, input: &str, workspace: Option<&str>) -> Run;
    /// Tell the user something (a warning in the host's log).
    fn warn(&self, message: &str);
}

/// The real runner.
pub struct HostRunner;

impl Runner for HostRunner {
    fn run(&self, hook: &HookSpec, input: &str, workspace: Option<&str>) -> Run {
        use reasonix_sdk::process::{Command, ExitStatus, run};
        let mut command = Command::new("sh")
            .args(["-c", hook.command.as_str()])
            .stdin(input.as_bytes().to_vec())
            .separate_stderr()
            .timeout_ms(hook.timeout_ms())
            .env("REASONIX_HOOK_EVENT", hook.event.as_str());
        if let Some(ws) = workspace {
            command = command
                .env("CLAUDE_PROJECT_DIR", ws)
                .env("REASONIX_PROJECT_DIR", ws);
        }
        for (k, v) in &hook.env {
            command = command.env(k.as_str(), v.as_str());
        }
        if let Some(cwd) = &hook.cwd {
            command = command.cwd(cwd.as_str());
        }
        match run(&command, MAX_STREAM) {
            Ok(done) => Run {
                ended: match done.status {
                    ExitStatus::Exited(code) => Ended::Exited(code),
                    ExitStatus::Killed(reason) => Ended::Killed(reason),
                },
                stdout: done.output,
                stderr: done.stderr,
            },
            Err(e) => Run {
                ended: Ended::NotStarted(e.to_string()),
                stdout: String::new(),
                stderr: String::new(),
            },
        }
    }

    fn warn(&self, message: &str) {
        reasonix_sdk::host::log(reasonix_sdk::host::Level::Warn, message);
    }
}

/// What the hooks of one event decided together.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Fired {
    pub block: Option<String>,
    pub allow: bool,
    pub contexts: Vec<String>,
}

/// The hooks of one call, and where they run.
pub struct Hooks<'a> {
    pub hooks: Vec<HookSpec>,
    pub workspace: Option<String>,
    pub runner: &'a dyn Runner,
}

impl Hooks<'_> {
    /// Run the hooks of `event` matching `subject`, in order, until one blocks.
    pub fn fire(
        &self,
        session: &Session,
        event: &str,
        subject: Option<&str>,
        mut input: Value,
    ) -> Fired {
        let mut fired = Fired::default();
        if let Value::Object(map) = &mut input {
            map.insert("hook_event_name".into(), json!(event));
            map.insert(
                "cwd".into(),
                json!(self.workspace.clone().unwrap_or_default()),
            );
            map.insert("session_id".into(), json!(session.id));
            if let Some(path) = &session.transcript_path {
                map.insert("transcript_path".into(), json!(path));
            }
        }
        let text = format!("{input}\n");
        for hook in self.hooks.iter().filter(|h| h.event == event) {
            let (matched, warning) = hook.matches(subject);
            if let Some(w) = warning {
                self.runner.warn(&w);
            }
            if !matched || !self.condition_holds(hook, event, &input) {
                continue;
            }
            let name = hook_name(hook);
            let run = self.runner.run(hook, &text, self.workspace.as_deref());
            let effect = outcome::interpret(event, &name, &run);
            if let Some(w) = effect.warning {
                self.runner.warn(&w);
            }
            if let Some(c) = effect.context {
                fired.contexts.push(c);
            }
            fired.allow |= effect.allow;
            if let Some(reason) = effect.block {
                fired.block = Some(reason);
                return fired;
            }
        }
        fired
    }

    /// Whether the hook's `if` condition (if any) holds for the tool call in `input`.
    fn condition_holds(&self, hook: &HookSpec, event: &str, input: &Value) -> bool {
        let Some(rule) = hook.condition.as_deref() else {
            return true;
        };
        let name = input.get("reasonix_tool_name").and_then(Value::as_str);
        let call = name.map(|name| condition::ToolCall {
            name,
            arguments: input.get("tool_input").unwrap_or(&Value::Null),
        });
        match condition::holds(rule, event, call.as_ref(), self.workspace.as_deref()) {
            Ok(holds) => holds,
            Err(e) => {
                // The host refuses such a file at load; should one get here, the hook runs:
                // a guard that runs once too often beats one that is skipped.
                self.runner.warn(&format!(
                    "the `if` condition of the hook at {} cannot be read ({e}); the hook runs",
                    hook.source
                ));
                true
            }
        }
    }

    /// Handle one interception.
    pub fn intercept(&self, point: &str, payload: &str) -> Result<Decision, Error> {
        let mut p: Value = serde_json::from_str(payload)
            .map_err(|e| Error::InvalidInput(format!("the `{point}` payload is not JSON: {e}")))?;
        let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let session = Session::of(&p);
        match point {
            "input.receive" if p.get("subagent").is_some_and(Value::is_object) => {
                // A sub-agent's task: `SubagentStart` (matched on its profile), whose context
                // goes into the child's task; the user's prompt hooks are not about it.
                let sub = &p["subagent"];
                let profile = s(sub, "profile");
                let fired = self.fire(
                    &session,
                    "SubagentStart",
                    Some(&profile),
                    json!({"agent_id": s(sub, "agentId"), "agent_type": profile}),
                );
                if fired.contexts.is_empty() {
                    return Ok(Decision::Proceed);
                }
                let notes: Vec<String> = fired
                    .contexts
                    .iter()
                    .map(|c| mark("SubagentStart", c))
                    .collect();
                let text = s(&p, "text");
                p["text"] = json!(format!("{text}\n\n{}", notes.join("\n\n")));
                Ok(Decision::Replace(p.to_string()))
            }
            "input.receive" => {
                let session_id = s(&p, "sessionId");
                let mut before = Vec::new();
                if let Some(source) = p.get("sessionStart").and_then(Value::as_str) {
                    let fired = self.fire(
                        &session,
                        "SessionStart",
                        Some(source),
                        json!({"session_id": session_id, "source": source}),
                    );
                    before.extend(fired.contexts.into_iter().map(|c| mark("SessionStart", &c)));
                }
                let text = s(&p, "text");
                let fired = self.fire(
                    &session,
                    "UserPromptSubmit",
                    None,
                    json!({"session_id": session_id, "prompt": text}),
                );
                if let Some(reason) = fired.block {
                    return Ok(Decision::Block(format!(
                        "a UserPromptSubmit hook blocked the prompt: {reason}"
                    )));
                }
                let after: Vec<String> = fired
                    .contexts
                    .iter()
                    .map(|c| mark("UserPromptSubmit", c))
                    .collect();
                if before.is_empty() && after.is_empty() {
                    return Ok(Decision::Proceed);
                }
                let mut parts = before;
                parts.push(text);
                parts.extend(after);
                p["text"] = json!(parts.join("\n\n"));
                Ok(Decision::Replace(p.to_string()))
            }
            "tool.before" => {
                let name = s(&p, "name");
                let input = self.tool_input(&name, &s(&p, "arguments"), &s(&p, "callId"));
                let fired = self.fire(&session, "PreToolUse", Some(&name), input);
                Ok(match fired.block {
                    Some(reason) => {
                        Decision::Block(format!("a PreToolUse hook blocked this call: {reason}"))
                    }
                    None => Decision::Proceed,
                })
            }
            "permission.decision" => {
                // Claude Code asks these hooks when it would ask the user; here that is when
                // the host would not run the call.
                if s(&p, "hostDecision") != "deny" {
                    return Ok(Decision::Proceed);
                }
                let name = s(&p, "name");
                let input = self.tool_input(&name, &s(&p, "arguments"), &s(&p, "callId"));
                let fired = self.fire(&session, "PermissionRequest", Some(&name), input);
                Ok(match (fired.block, fired.allow) {
                    (Some(reason), _) => Decision::Deny(format!(
                        "a PermissionRequest hook denied this call: {reason}"
                    )),
                    (None, true) => Decision::Allow,
                    (None, false) => Decision::Proceed,
                })
            }
            "tool.after" => {
                let name = s(&p, "name");
                let failed = p.get("isError").and_then(Value::as_bool) == Some(true);
                let event = if failed {
                    "PostToolUseFailure"
                } else {
                    "PostToolUse"
                };
                let result = s(&p, "result");
                let mut input = self.tool_input(&name, &s(&p, "arguments"), &s(&p, "callId"));
                input["tool_response"] = if name == "bash" {
                    json!({"stdout": result, "stderr": "", "interrupted": false})
                } else {
                    json!(result)
                };
                if failed {
                    input["error"] = json!(result);
                }
                let fired = self.fire(&session, event, Some(&name), input);
                if fired.contexts.is_empty() {
                    return Ok(Decision::Proceed);
                }
                let notes: Vec<String> = fired.contexts.iter().map(|c| mark(event, c)).collect();
                p["result"] = json!(format!("{result}\n\n{}", notes.join("\n\n")));
                Ok(Decision::Replace(p.to_string()))
            }
            "frontend.event" => {
                let kind = s(&p, "kind");
                if matches!(kind.as_str(), "permission_denied" | "notice") {
                    let message = s(&p, "text");
                    self.fire(
                        &session,
                        "Notification",
                        Some(&kind),
                        json!({"message": message, "notification_type": kind}),
                    );
                }
                // Never hides what the user is shown.
                Ok(Decision::Proceed)
            }
            "compaction.prepare" => {
                let fired = self.fire(
                    &session,
                    "PreCompact",
                    Some("auto"),
                    json!({"trigger": "auto", "custom_instructions": ""}),
                );
                if fired.contexts.is_empty() {
                    return Ok(Decision::Proceed);
                }
                let guidance = s(&p, "guidance");
                p["guidance"] = json!(format!("{guidance}\n\n{}", fired.contexts.join("\n\n")));
                Ok(Decision::Replace(p.to_string()))
            }
            "session.save" if p.get("subagent").is_some_and(Value::is_object) => {
                let sub = &p["subagent"];
                let profile = s(sub, "profile");
                self.fire(
                    &session,
                    "SubagentStop",
                    Some(&profile),
                    json!({
                        "stop_hook_active": false,
                        "agent_id": s(sub, "agentId"),
                        "agent_type": profile,
                        "agent_transcript_path": s(&p, "sessionPath"),
                    }),
                );
                Ok(Decision::Proceed)
            }
            "session.save" => {
                self.fire(&session, "Stop", None, json!({"stop_hook_active": false}));
                Ok(Decision::Proceed)
            }
            // A sub-agent's session ending is its `SubagentStop`, said at its save.
            "session.end" if p.get("subagent").is_some_and(Value::is_object) => {
                Ok(Decision::Proceed)
            }
            "session.end" => {
                self.fire(
                    &session,
                    "SessionEnd",
                    Some("other"),
                    json!({"reason": "other"}),
                );
                Ok(Decision::Proceed)
            }
            _ => Ok(Decision::Proceed),
        }
    }

    /// `tool_name` (Claude's name when there is one), `tool_input` (with `file_path`, absolute,
    /// beside a `path`), `tool_use_id`, and `reasonix_tool_name`.
    fn tool_input(&self, name: &str, arguments: &str, call_id: &str) -> Value {
        let mut args = serde_json::from_str::<Value>(arguments).unwrap_or_else(|_| json!({}));
        if let Value::Object(map) = &mut args
            && !map.contains_key("file_path")
            && let Some(path) = map.get("path").and_then(Value::as_str)
        {
            let absolute = match (&self.workspace, path.starts_with('/')) {
                (Some(ws), false) => format!("{}/{}", ws.trim_end_matches('/'), path),
                _ => path.to_string(),
            };
            map.insert("file_path".into(), json!(absolute));
        }
        json!({
            "tool_name": spec::claude_name(name).unwrap_or(name),
            "reasonix_tool_name": name,
            "tool_input": args,
            "tool_use_id": call_id,
        })
    }
}

/// The session a payload is about: `sessionId` (input and tool points), or the session file
/// (`sessionPath` at the `session.*` points, whose name is the id).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Session {
    pub id: String,
    pub transcript_path: Option<String>,
}

impl Session {
    fn of(payload: &Value) -> Session {
        let text = |k: &str| {
            payload
                .get(k)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
        };
        let transcript_path = text("sessionPath").map(str::to_string);
        let id = text("sessionId")
            .map(str::to_string)
            .or_else(|| {
                let path = transcript_path.as_deref()?;
                let name = path.rsplit('/').next()?;
                Some(name.strip_suffix(".jsonl").unwrap_or(name).to_string())
            })
            .unwrap_or_default();
        Session {
            id,
            transcript_path,
        }
    }
}

/// `<hook-context event="…">…</hook-context>`: what a hook added, marked as such for the model.
pub fn mark(event: &str, text: &str) -> String {
    format!("<hook-context event=\"{event}\">\n{text}\n</hook-context>")
}

/// `` `command` (file:line) ``, the command cut to 80 characters.
fn hook_name(hook: &HookSpec) -> String {
    let command: String = hook.command.chars().take(80).collect();
    let cut = if command.len() < hook.command.len() {
        "…"
    } else {
        ""
    };
    format!("`{command}{cut}` ({})", hook.source)
}

struct HooksPlugin;

impl Plugin for HooksPlugin {
    fn info() -> PluginInfo {
        let mut info = reasonix_sdk::plugin_info(
            "hooks",
            "0.1.0",
            "Built-in hooks: Claude Code compatible hook commands from settings.json",
        );
        // Hooks are the user's commands (formatters, linters, guards): they run in the OS
        // sandbox with the workspace writable, as `bash` commands do.
        info.capabilities.workspace = WorkspaceAccess::ReadWrite;
        info.capabilities.process = true;
        // The host runs the user's own hooks (from the user's settings files, never a
        // workspace's) with the user's confinement: the network and `~/.claude` (ADR 0028).
        info.capabilities.env = vec![USER_COMMANDS_ENV.to_string()];
        info.limits.call_timeout_ms = Some(CALL_TIMEOUT_MS);
        info
    }

    fn subscriptions() -> Vec<Subscription> {
        POINTS.iter().map(|p| Subscription::new(p)).collect()
    }

    fn intercept(point: &str, payload: &str) -> Result<Decision, Error> {
        let runner = HostRunner;
        let hooks = match spec::from_config(reasonix_sdk::host::config_value("hooks")) {
            Ok(hooks) => hooks,
            Err(e) => {
                runner.warn(&e);
                Vec::new()
            }
        };
        if hooks.is_empty() {
            return Ok(Decision::Proceed);
        }
        let workspace = reasonix_sdk::host::config_value("sandbox").and_then(|p| {
            p.get("workspace")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        Hooks {
            hooks,
            workspace,
            runner: &runner,
        }
        .intercept(point, payload)
    }
}

reasonix_sdk::export!(HooksPlugin);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
