//! Builds sub-agents for the agent (`ChildFactory`): picks each child's model and effort in
//! the order the configuration, the call and the profile give them, builds its client among
//! the user's configured providers, and opens its own session beside the parent's.

use reasonix_agent::agent_loop::Agent;
use reasonix_agent::completion::ProviderClient;
use reasonix_agent::delegation::{Built, ChildBuild, ChildFactory};
use reasonix_agent::session::SessionStore;
use reasonix_config::AgentSettings;
use reasonix_config::providers::{self, ResolvedProvider};
use std::path::PathBuf;

pub struct Factory {
    pub resolved: Vec<ResolvedProvider>,
    pub home: PathBuf,
    pub settings: AgentSettings,
    /// Where children keep their sessions; `None` when the parent keeps none.
    pub store: Option<SessionStore>,
}

impl Factory {
    /// `reference` names a model of a provider the user configured (or the parent's own
    /// provider): a profile file or a model's call cannot send a child's requests, and the
    /// user's key, anywhere the user did not choose.
    fn configured(&self, reference: &str, parent_provider: &str) -> Result<(), String> {
        match providers::resolve_model(Some(reference), None, &self.resolved) {
            Ok((provider, _))
                if provider.name == parent_provider
                    || self.resolved.iter().any(|p| p.name == provider.name) =>
            {
                Ok(())
            }
            Ok((provider, _)) => Err(format!(
                "`{reference}` is served by `{}`, which is not one of your configured providers",
                provider.name
            )),
            Err(e) => Err(e.to_string()),
        }
    }
}

impl ChildFactory for Factory {
    fn build(&self, child: ChildBuild<'_>) -> Result<Built, String> {
        let spec = child.spec;
        let parent_provider = child
            .parent_model
            .split_once('/')
            .map_or(child.parent_model, |(p, _)| p);
        let mut notices = Vec::new();
        // Highest first: the configuration's per-profile model, this call's or the profile's,
        // the configured default for sub-agents; else the parent's.
        let candidates = [
            (
                self.settings.subagent_models.get(&spec.profile).cloned(),
                "[agent] subagent_models",
            ),
            (spec.model.clone(), "the task or its profile"),
            (
                self.settings.subagent_model.clone(),
                "[agent] subagent_model",
            ),
        ];
        let mut reference = child.parent_model.to_string();
        for (candidate, from) in candidates {
            let Some(candidate) = candidate.filter(|c| !c.trim().is_empty()) else {
                continue;
            };
            match self.configured(&candidate, parent_provider) {
                Ok(()) => {
                    reference = candidate;
                    break;
                }
                Err(why) => notices.push(format!(
                    "the model `{}` named by {from} is not used: {why}",
                    reasonix_core::terminal::shown(&candidate)
                )),
            }
        }
        let effort = self
            .settings
            .subagent_efforts
            .get(&spec.profile)
            .cloned()
            .or_else(|| spec.effort.clone())
            .or_else(|| self.settings.subagent_effort.clone())
            .or_else(|| child.config.effort.clone());
        let client = ProviderClient::new(
            child.catalog.as_ref(),
            &self.resolved,
            Some(&reference),
            None,
            effort.as_deref(),
            &self.home,
        )
        .map_err(|e| format!("its model `{reference}` cannot be used: {e}"))?;
        let model = format!("{}/{}", client.provider().name, client.model());
        let mut config = child.config;
        config.effort = effort;
        let agent = Agent::new(child.catalog, client, config).map_err(|e| e.to_string())?;
        let agent = match &self.store {
            Some(store) => {
                let writer = store
                    .subagents()
                    .create_with_parent(
                        &agent.client().provider().name,
                        agent.client().model(),
                        child.parent_session.map(|id| (id, None)),
                    )
                    .map_err(|e| format!("its session could not be created: {e}"))?;
                agent.with_session(writer, Vec::new())
            }
            None => agent,
        };
        Ok(Built {
            agent,
            model,
            notices,
        })
    }
}
