//! `skill`: the model loads a skill by name. Its description carries the index (name and
//! description of each skill the model may use, sorted), so the cached prefix changes only
//! when the skills do; the instructions come only with the call. A skill that runs as a
//! sub-agent starts one through the call's delegation host, with the same limits, approvals
//! and budget as `task`.

use crate::delegate::profiles;
use reasonix_core::delegation::{ChildSpec, ChildTools};
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::terminal::shown;
use reasonix_core::tool::{Effects, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolOutput, ToolSpec};
use reasonix_skills::{Catalog, RunAs, Skill};
use serde::Deserialize;
use std::sync::Arc;

pub const NAME: &str = "skill";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    name: String,
    #[serde(default)]
    arguments: Option<String>,
}

pub struct SkillTool {
    spec: ToolSpec,
    catalog: Arc<Catalog>,
    profiles: Arc<profiles::Sources>,
}

impl SkillTool {
    /// The tool for `catalog`; `None` when no skill is offered to the model (no tool, no
    /// index, nothing in the prompt).
    pub fn new(catalog: Arc<Catalog>, profiles: Arc<profiles::Sources>) -> Option<SkillTool> {
        let index = reasonix_skills::index(&catalog)?;
        let parameters = serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The skill's name, exactly as listed."},
                "arguments": {"type": "string", "description": "What the skill is to work on, when it takes arguments."}
            },
            "required": ["name"],
            "additionalProperties": false,
        });
        Some(SkillTool {
            spec: ToolSpec {
                name: NAME.into(),
                description: format!(
                    "Load a skill: instructions for one kind of task, with the files it bundles. When a task matches a skill's description, load the skill first and follow it. Skills:\n{index}"
                ),
                parameters: parameters.to_string(),
                read_only: true,
                guidance: None,
            },
            catalog,
            profiles,
        })
    }
}

fn invalid(message: impl Into<String>) -> CallError {
    CallError::Plugin(PluginError::InvalidInput(message.into()))
}

impl Tool for SkillTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        "reasonix"
    }

    fn effects(&self) -> Effects {
        // Loading reads the skill's own file; a sub-agent's calls are each decided by its own
        // policy, never wider than this agent's.
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
        let args: Args =
            serde_json::from_str(arguments).map_err(|e| invalid(format!("{NAME}: {e}")))?;
        let name = args.name.trim().trim_start_matches('/');
        let skill = self.catalog.get(name).ok_or_else(|| {
            let names: Vec<&str> = self.catalog.indexed().map(|s| s.name.as_str()).collect();
            invalid(format!(
                "there is no skill `{}`; the skills are: {}",
                shown(name),
                names.join(", ")
            ))
        })?;
        if !skill.model_invocable || self.catalog.no_index {
            return Err(invalid(format!(
                "the skill `{}` is for the user to invoke (`/{}`), not for you",
                skill.name, skill.name
            )));
        }
        let args_text = args.arguments.unwrap_or_default();
        match skill.run_as {
            RunAs::Inline => reasonix_session::input::skill::loaded(skill, &args_text)
                .map(|text| ToolOutput {
                    text,
                    images: Vec::new(),
                    is_error: false,
                })
                .map_err(|why| CallError::Plugin(PluginError::NotFound(why))),
            RunAs::Subagent => self.run_child(skill, &args_text, context),
        }
    }

    fn preview(&self, _: &str, _: &ToolContext) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

impl SkillTool {
    /// A sub-agent skill: the skill's instructions are the child's task, its `agent` (or
    /// `general`) the child's profile; `allowed-tools` narrows the profile's tools.
    fn run_child(
        &self,
        skill: &Skill,
        args: &str,
        context: &ToolContext,
    ) -> Result<ToolOutput, CallError> {
        let Some(host) = &context.agents else {
            return Err(CallError::Plugin(PluginError::Unsupported(
                "a sub-agent skill cannot start here (no agent session runs this call)".into(),
            )));
        };
        let task = reasonix_session::input::skill::loaded(skill, args)
            .map_err(|why| CallError::Plugin(PluginError::NotFound(why)))?;
        let (all, _) = self.profiles.load(&context.workspace);
        let wanted = skill.agent.as_deref().unwrap_or("general");
        let profile = all
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(wanted))
            .ok_or_else(|| {
                invalid(format!(
                    "the skill `{}` runs as the sub-agent profile `{}`, which does not exist",
                    skill.name,
                    shown(wanted)
                ))
            })?;
        let tools = if skill.allowed_tools.is_empty() {
            profile.tools.clone()
        } else {
            narrowed(&profile.tools, &skill.allowed_tools)
        };
        let child = ChildSpec {
            profile: format!("skill:{}", skill.name),
            description: skill.name.clone(),
            prompt: task,
            system_prompt: profile.prompt.clone(),
            tools,
            model: skill.model.clone().or_else(|| profile.model.clone()),
            effort: skill.effort.clone().or_else(|| profile.effort.clone()),
            write_paths: None,
        };
        Ok(match host.0.run(vec![child]) {
            Ok(outcomes) => crate::delegate::tools::single(outcomes.into_iter().next()),
            Err(why) => ToolOutput {
                text: why,
                images: Vec::new(),
                is_error: true,
            },
        })
    }
}

/// The tools `allowed` names (Claude Code's names mapped), never more than `profile` gives.
fn narrowed(profile: &ChildTools, allowed: &[String]) -> ChildTools {
    let mut names: Vec<String> = Vec::new();
    for word in allowed {
        // `Bash(git diff *)` names the tool `Bash`; the pattern is a permission, not a grant.
        let tool = word.split('(').next().unwrap_or(word).trim();
        for name in profiles::tool_names(tool) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    match profile {
        ChildTools::Named(own) => {
            ChildTools::Named(names.into_iter().filter(|n| own.contains(n)).collect())
        }
        ChildTools::ReadOnly => ChildTools::ReadOnly,
        _ => ChildTools::Named(names),
    }
}
