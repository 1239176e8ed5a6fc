//! Sub-agents (ADR 0035): a delegating host tool (`task`, `fleet`, `parallel_tasks`) asks its
//! call's [`AgentHost`](reasonix_core::delegation::AgentHost) for children; the agent lends
//! each such call a [`host`] that builds the children through the composition root's
//! [`ChildFactory`] and runs them under the session's [`Scheduler`] (depth, concurrency,
//! writers, write [`Claim`]s).

mod claim;
pub(crate) mod host;
mod scheduler;

pub use claim::Claim;
pub use host::{MAX_ANSWER_BYTES, MAX_BATCH};
pub use scheduler::{Limits, Scheduler};

use crate::agent_loop::{Agent, AgentConfig};
use crate::catalog::Catalog;
use reasonix_core::delegation::ChildSpec;
use std::sync::Arc;

/// What the factory is given to build one child.
pub struct ChildBuild<'a> {
    pub spec: &'a ChildSpec,
    /// The parent's catalog narrowed to the child's tools.
    pub catalog: Arc<dyn Catalog>,
    /// The parent's configuration with the child's system prompt, effort and posture.
    pub config: AgentConfig,
    /// The parent's session, which the child's transcript names.
    pub parent_session: Option<&'a str>,
    /// `provider/model` of the parent: the child's model unless its spec names another.
    pub parent_model: &'a str,
}

/// A child ready to run.
pub struct Built {
    pub agent: Agent,
    /// `provider/model` it runs on.
    pub model: String,
    /// What the user should know about how it was built (a profile's model that is not one
    /// of theirs, ignored).
    pub notices: Vec<String>,
}

/// Builds child agents: the composition root knows the providers and the session store.
pub trait ChildFactory: Send + Sync {
    /// The child's agent: its client for the model its profile, the call and the
    /// configuration choose among the user's configured models, and its own session. `Err`
    /// says why it cannot start.
    fn build(&self, child: ChildBuild<'_>) -> Result<Built, String>;
}

/// Where an agent stands in its session's tree of agents, and how it starts children.
#[derive(Clone)]
pub struct Delegator {
    pub factory: Arc<dyn ChildFactory>,
    pub scheduler: Arc<Scheduler>,
    /// 0 for the main agent.
    pub depth: u32,
    /// What this agent may write, when it is a claimed child.
    pub claim: Option<Claim>,
    /// This agent's id in the session's events: `main`, `main/<call>` …
    pub agent_id: String,
}

impl Delegator {
    /// The main agent's: depth 0, no claim, a new scheduler with `limits`.
    pub fn root(factory: Arc<dyn ChildFactory>, limits: Limits) -> Delegator {
        Delegator {
            factory,
            scheduler: Arc::new(Scheduler::new(limits)),
            depth: 0,
            claim: None,
            agent_id: reasonix_protocol::MAIN_AGENT.to_string(),
        }
    }
}

/// What a front end may do to a session's running children.
#[derive(Clone)]
pub struct SubAgents(Arc<Scheduler>);

impl SubAgents {
    /// Stop child `agent_id` (as events name it) and its own children; the parent's turn
    /// goes on with the child's call answered as cancelled. Whether such a child ran.
    pub fn cancel(&self, agent_id: &str) -> bool {
        self.0.cancel(agent_id)
    }

    /// Limits for the children started from now on (`/mode`).
    pub fn set_limits(&self, limits: Limits) {
        self.0.set_limits(limits);
    }

    pub fn limits(&self) -> Limits {
        self.0.limits()
    }
}

impl crate::agent_loop::Agent {
    /// Its session's sub-agents, for a front end to stop one (`None`: it cannot delegate).
    pub fn sub_agents(&self) -> Option<SubAgents> {
        self.delegator().map(|d| SubAgents(d.scheduler.clone()))
    }
}
