//! `task`, `fleet` and `parallel_tasks`: host tools that start sub-agents through their
//! call's [`AgentHost`](reasonix_core::delegation::AgentHost). Their schemas name only the
//! built-in profiles; a custom profile is found by name when the call runs.

use super::profiles::{self, Profile};
use reasonix_core::delegation::{ChildOutcome, ChildSpec, ChildStatus, ChildTools};
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::tool::{Effects, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolOutput, ToolSpec};
use serde::Deserialize;
use serde_json::json;

/// The most a batch's answers take together in its result; each child gets a fair share.
const BATCH_ANSWER_BYTES: usize = 48 * 1024;

/// Which of the three tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Task,
    Fleet,
    ParallelTasks,
}

pub struct Delegating {
    kind: Kind,
    spec: ToolSpec,
    profiles: std::sync::Arc<profiles::Sources>,
}

impl Delegating {
    pub fn new(kind: Kind, profiles: std::sync::Arc<profiles::Sources>) -> Delegating {
        Delegating {
            kind,
            spec: spec(kind),
            profiles,
        }
    }

    /// The three tools, with the profiles of `<home>` and the workspace.
    pub fn all(home: &std::path::Path) -> Vec<std::sync::Arc<dyn Tool>> {
        Delegating::all_from(std::sync::Arc::new(profiles::Sources::new(home)))
    }

    /// The three tools, with the profiles of `sources` and the workspace.
    pub fn all_from(sources: std::sync::Arc<profiles::Sources>) -> Vec<std::sync::Arc<dyn Tool>> {
        [Kind::Task, Kind::Fleet, Kind::ParallelTasks]
            .into_iter()
            .map(|k| std::sync::Arc::new(Delegating::new(k, sources.clone())) as _)
            .collect()
    }
}

/// One task as the model writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskArgs {
    prompt: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    profile: Option<String>,
    #[serde(default)]
    write_paths: Option<Vec<String>>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    effort: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchArgs {
    tasks: Vec<TaskArgs>,
}

fn bad(message: impl Into<String>) -> CallError {
    CallError::Plugin(PluginError::InvalidInput(message.into()))
}

impl Delegating {
    /// The children the call asks for, with their profiles resolved.
    fn children(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<Vec<ChildSpec>, CallError> {
        let tasks = match self.kind {
            Kind::Task => {
                vec![serde_json::from_str::<TaskArgs>(arguments).map_err(|e| bad(e.to_string()))?]
            }
            Kind::Fleet | Kind::ParallelTasks => {
                serde_json::from_str::<BatchArgs>(arguments)
                    .map_err(|e| bad(e.to_string()))?
                    .tasks
            }
        };
        let (least, most) = match self.kind {
            Kind::Task => (1, 1),
            Kind::Fleet => (2, reasonix_agent::delegation::MAX_BATCH),
            Kind::ParallelTasks => (1, reasonix_agent::delegation::MAX_BATCH),
        };
        if tasks.len() < least || tasks.len() > most {
            return Err(bad(format!(
                "`tasks` holds {least} to {most} tasks, not {}",
                tasks.len()
            )));
        }
        let (profiles, _) = self.profiles.load(&context.workspace);
        tasks
            .into_iter()
            .enumerate()
            .map(|(i, task)| {
                self.child(task, &profiles)
                    .map_err(|e| numbered(e, i, self.kind))
            })
            .collect()
    }

    fn child(&self, task: TaskArgs, profiles: &[Profile]) -> Result<ChildSpec, CallError> {
        if task.prompt.trim().is_empty() {
            return Err(bad("`prompt` is empty: say what the sub-agent is to do"));
        }
        let default = match self.kind {
            Kind::ParallelTasks => "explore",
            Kind::Task | Kind::Fleet => "general",
        };
        let wanted = task.profile.as_deref().map(str::trim).unwrap_or(default);
        let profile = profiles.iter().find(|p| p.name == wanted).ok_or_else(|| {
            let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
            bad(format!(
                "there is no sub-agent profile `{}`; the profiles are: {}",
                reasonix_core::terminal::shown(wanted),
                names.join(", ")
            ))
        })?;
        let tools = match self.kind {
            // The batch form is read-only whatever the profile says.
            Kind::ParallelTasks => ChildTools::ReadOnly,
            Kind::Task | Kind::Fleet => profile.tools.clone(),
        };
        if tools.is_read_only() && task.write_paths.is_some() {
            return Err(bad(format!(
                "`write_paths` is for writers; `{}` children only read",
                profile.name
            )));
        }
        Ok(ChildSpec {
            profile: profile.name.clone(),
            description: task.description.unwrap_or_default().trim().to_string(),
            prompt: task.prompt,
            system_prompt: profile.prompt.clone(),
            tools,
            model: task.model.or_else(|| profile.model.clone()),
            effort: task.effort.or_else(|| profile.effort.clone()),
            write_paths: task.write_paths,
        })
    }
}

fn numbered(e: CallError, i: usize, kind: Kind) -> CallError {
    match (kind, e) {
        (Kind::Task, e) => e,
        (_, CallError::Plugin(PluginError::InvalidInput(m))) => bad(format!("task {}: {m}", i + 1)),
        (_, e) => e,
    }
}

impl Tool for Delegating {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        "reasonix"
    }

    fn effects(&self) -> Effects {
        // Starting a child changes nothing: each of its calls is decided by its own policy,
        // which is never wider than this agent's.
        Effects::default()
    }

    fn delegates(&self) -> bool {
        true
    }

    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        self.invoke_output(arguments, context).map(|o| o.text)
    }

    fn invoke_output(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<ToolOutput, CallError> {
        let Some(host) = &context.agents else {
            return Err(CallError::Plugin(PluginError::Unsupported(
                "sub-agents cannot be started here (no agent session runs this call)".into(),
            )));
        };
        let children = self.children(arguments, context)?;
        let count = children.len();
        let outcomes = match host.0.run(children) {
            Ok(outcomes) => outcomes,
            Err(why) => {
                return Ok(ToolOutput {
                    text: why,
                    images: Vec::new(),
                    is_error: true,
                });
            }
        };
        Ok(match self.kind {
            Kind::Task => single(outcomes.into_iter().next()),
            Kind::Fleet | Kind::ParallelTasks => batch(&outcomes, count),
        })
    }

    fn preview(
        &self,
        _arguments: &str,
        _context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

/// One child's outcome as a call's result: its answer, or what stopped it (an error).
pub(crate) fn single(outcome: Option<ChildOutcome>) -> ToolOutput {
    let Some(outcome) = outcome else {
        return ToolOutput {
            text: "the sub-agent returned nothing".into(),
            images: Vec::new(),
            is_error: true,
        };
    };
    let is_error = outcome.status != ChildStatus::Answered;
    let text = if is_error {
        format!(
            "The sub-agent {}: {}",
            outcome.status.as_str(),
            outcome.answer
        )
    } else {
        outcome.answer
    };
    ToolOutput {
        text,
        images: Vec::new(),
        is_error,
    }
}

fn batch(outcomes: &[ChildOutcome], count: usize) -> ToolOutput {
    let share = (BATCH_ANSWER_BYTES / count.max(1)).max(1024);
    let mut text = String::new();
    for (i, outcome) in outcomes.iter().enumerate() {
        let mut answer = outcome.answer.clone();
        if answer.len() > share {
            let mut end = share;
            while !answer.is_char_boundary(end) {
                end -= 1;
            }
            let total = answer.len();
            answer.truncate(end);
            answer.push_str(&format!("\n[… cut at {end} of {total} bytes]"));
        }
        text.push_str(&format!(
            "## Task {} ({})\n\n{}\n\n",
            i + 1,
            outcome.status.as_str(),
            answer.trim_end()
        ));
    }
    ToolOutput {
        text: text.trim_end().to_string(),
        images: Vec::new(),
        is_error: outcomes.iter().all(|o| o.status != ChildStatus::Answered),
    }
}

fn task_properties() -> serde_json::Value {
    json!({
        "prompt": {
            "type": "string",
            "description": "The whole task, self-contained: the sub-agent sees nothing of this conversation. Say what to find or do and what to answer with."
        },
        "description": {
            "type": "string",
            "description": "A short label (3-6 words) shown to the user while it runs."
        },
        "profile": {
            "type": "string",
            "description": "\"explore\" (read-only research), \"general\" (default: this agent's tools) or the name of a profile the user defined."
        },
        "write_paths": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Files or directories the sub-agent may change (relative to the workspace). Writers running at the same time need separate paths; without it a writer claims the whole workspace."
        },
        "model": {
            "type": "string",
            "description": "One of the user's configured models, when the task needs another than the default."
        },
        "effort": {
            "type": "string",
            "description": "Reasoning effort for the sub-agent, when the task needs another than the default."
        }
    })
}

fn spec(kind: Kind) -> ToolSpec {
    let (name, description, parameters, guidance) = match kind {
        Kind::Task => (
            "task",
            "Start a sub-agent in its own session to do one self-contained task, and get back only its final answer. Use it for research that would fill this conversation with files (profile \"explore\"), or for a separable change (profile \"general\" with `write_paths`). Several `task` calls in one answer run at the same time.",
            json!({
                "type": "object",
                "properties": task_properties(),
                "required": ["prompt"],
                "additionalProperties": false,
            }),
            Some(
                "Delegate broad searches and separable work to `task` sub-agents; give each a self-contained prompt, and do small lookups yourself (a sub-agent costs a new conversation).",
            ),
        ),
        Kind::Fleet => (
            "fleet",
            "Start 2 to 64 sub-agents at once, each on its own task, and get back their final answers in order. Writers need separate `write_paths`; overlapping claims refuse the whole fleet before any starts.",
            json!({
                "type": "object",
                "properties": {
                    "tasks": {
                        "type": "array",
                        "minItems": 2,
                        "maxItems": 64,
                        "items": {
                            "type": "object",
                            "properties": task_properties(),
                            "required": ["prompt"],
                            "additionalProperties": false,
                        }
                    }
                },
                "required": ["tasks"],
                "additionalProperties": false,
            }),
            None,
        ),
        Kind::ParallelTasks => (
            "parallel_tasks",
            "Start read-only research sub-agents at once (1 to 64), each on its own question, and get back their final answers in order. They can search and read but change nothing.",
            json!({
                "type": "object",
                "properties": {
                    "tasks": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 64,
                        "items": {
                            "type": "object",
                            "properties": {
                                "prompt": task_properties()["prompt"].clone(),
                                "description": task_properties()["description"].clone(),
                            },
                            "required": ["prompt"],
                            "additionalProperties": false,
                        }
                    }
                },
                "required": ["tasks"],
                "additionalProperties": false,
            }),
            None,
        ),
    };
    ToolSpec {
        name: name.into(),
        description: description.into(),
        parameters: parameters.to_string(),
        read_only: true,
        guidance: guidance.map(str::to_string),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_canonical_and_name_only_the_built_in_profiles() {
        for kind in [Kind::Task, Kind::Fleet, Kind::ParallelTasks] {
            let spec = spec(kind);
            assert_eq!(
                reasonix_core::types::canonical_json(&spec.parameters).unwrap(),
                spec.parameters,
                "{} parameters are canonical",
                spec.name
            );
        }
    }

    #[test]
    fn a_batch_shares_its_answer_budget_fairly() {
        let long = ChildOutcome {
            status: ChildStatus::Answered,
            answer: "x".repeat(40_000),
            session_id: None,
            steps: 1,
        };
        let short = ChildOutcome {
            answer: "short".into(),
            ..long.clone()
        };
        let out = batch(&[long, short], 2);
        assert!(out.text.len() < BATCH_ANSWER_BYTES + 200);
        assert!(out.text.contains("## Task 2 (answered)\n\nshort"));
        assert!(out.text.contains("cut at 24576 of 40000 bytes"));
        assert!(!out.is_error);
    }
}
