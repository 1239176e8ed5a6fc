//! The planner of two-model collaboration (`[agent] planner_model`, docs/RUN.md "Planner"):
//! an agent of its own on another of the user's models, with its own session beside the
//! executor's, its own stable system prompt, read-only tools only and the plan posture (a
//! writer or command is refused without a question).

use super::Runtime;
use crate::Error;
use crate::term::errln;
use reasonix_agent::agent_loop::planner::{Planner, SYSTEM_PROMPT};
use reasonix_agent::agent_loop::{Agent, AgentConfig, prompt};
use reasonix_agent::completion::ProviderClient;
use reasonix_agent::permissions::Posture;
use reasonix_agent::session::SessionStore;
use reasonix_config::providers::ResolvedProvider;
use reasonix_core::types::ToolSpec;

/// Model requests a planner turn may make: research, then the plan.
pub const MAX_STEPS: u32 = 12;

/// Host tools that are the executor's alone (its plan question, its step receipts, its
/// task list).
const EXECUTOR_ONLY: &[&str] = &["exit_plan_mode", "complete_step", "todo_write"];

/// The planner for `executor`, when `[agent] planner_model` names another model; `None`
/// when it is not set, or names the executor's own model (said on stderr).
pub fn build(
    runtime: &Runtime,
    resolved: &[ResolvedProvider],
    executor: &ProviderClient,
    config: &AgentConfig,
    store: Option<&SessionStore>,
    parent_session: Option<&str>,
) -> Result<Option<Planner>, Error> {
    let Some(reference) = runtime.cx.config.agent.planner_model.as_deref() else {
        return Ok(None);
    };
    let client = ProviderClient::new(
        runtime.catalog.as_ref(),
        resolved,
        Some(reference),
        None,
        None,
        &runtime.cx.paths.home,
    )
    .map_err(|e| Error::usage(format!("[agent] planner_model `{reference}`: {e}")))?;
    if client.provider().name == executor.provider().name && client.model() == executor.model() {
        errln!(
            "warning: [agent] planner_model `{}` is the executor's own model: no planner",
            reasonix_core::terminal::shown(reference)
        );
        return Ok(None);
    }
    let specs: Vec<ToolSpec> = runtime
        .catalog
        .tools()
        .iter()
        .filter(|t| t.spec().read_only && !t.delegates())
        .filter(|t| !EXECUTOR_ONLY.contains(&t.spec().name.as_str()))
        .filter(|t| {
            config
                .enabled_tools
                .as_ref()
                .is_none_or(|names| names.contains(&t.spec().name))
        })
        .map(|t| t.spec().clone())
        .collect();
    let mut specs = specs;
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    let planner_config = AgentConfig {
        system_prompt: prompt::build(Some(SYSTEM_PROMPT), &specs),
        append_system_prompt: None,
        max_steps: MAX_STEPS,
        posture: Posture::Plan,
        effort: None,
        enabled_tools: Some(specs.iter().map(|s| s.name.clone()).collect()),
        ..config.clone()
    };
    let mut agent = Agent::new(runtime.catalog.clone(), client, planner_config)
        .map_err(|e| Error::usage(format!("[agent] planner_model `{reference}`: {e}")))?;
    if let Some(store) = store {
        let writer = store
            .subagents()
            .create_with_parent(
                &agent.client().provider().name,
                agent.client().model(),
                parent_session.map(|id| (id, None)),
            )
            .map_err(|e| Error::runtime(format!("the planner's session: {e}")))?;
        agent = agent.with_session(writer, Vec::new());
    }
    agent.set_label("planner".into());
    agent.set_subagent(reasonix_agent::agent_loop::payloads::Subagent {
        agent_id: "main/planner".into(),
        profile: "planner".into(),
        parent_session_id: parent_session.map(str::to_string),
    });
    Ok(Some(Planner {
        agent: Box::new(agent),
    }))
}
