//! The [`AgentHost`] an agent lends to one delegating call: it starts each child no stronger
//! than the agent itself (its posture switch, its rules and grants, its tools at most, its
//! claim at most), on the call's thread and under the call's cancellation, and reports what
//! the children do as `Child` events.

use super::{ChildBuild, Delegator, claim::Claim};
use crate::agent_loop::{AgentConfig, AgentEvent, ChildRef, RunStatus, Spend};
use crate::cancel::CancelToken;
use crate::catalog::Catalog;
use crate::interceptor::Interceptor;
use crate::permissions::{Approval, ApprovalRequest, Approver, PostureSwitch};
use crate::provider::Provider;
use crate::tool::Tool;
use reasonix_core::delegation::{AgentHost, ChildOutcome, ChildSpec, ChildStatus, ChildTools};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

/// The most children one call may start.
pub const MAX_BATCH: usize = 64;
/// The most of a child's answer its parent reads; the rest stays in the child's transcript.
pub const MAX_ANSWER_BYTES: usize = 24 * 1024;

/// What a parent lends a call: everything its children inherit.
pub(crate) struct Parent {
    pub config: AgentConfig,
    pub posture: PostureSwitch,
    pub approver: Option<Arc<dyn Approver>>,
    pub catalog: Arc<dyn Catalog>,
    /// The parent's tools by name: what it may hand down, read-only ones marked.
    pub tools: Vec<(String, bool)>,
    pub session_id: Option<String>,
    /// `provider/model` of the parent, the default of its children.
    pub model: String,
    pub delegator: Delegator,
    /// The parent's own label (`None` for the main agent): a grandchild's questions name both.
    pub label: Option<String>,
    pub deadline: Option<crate::agent_loop::RunDeadline>,
    /// What is left of the session's `--max-budget-usd` when the call starts: the children
    /// of one call share it, each stopping before a request once the call's children spent it.
    pub budget_left: Option<f64>,
    /// How the parent's steps are judged; its children's are judged the same way.
    pub strictness: reasonix_core::evidence::Strictness,
}

/// The host of one call.
pub(crate) struct ChildHost {
    pub parent: Arc<Parent>,
    pub call_id: String,
    pub cancel: CancelToken,
    pub events: Box<dyn Fn(AgentEvent) + Send + Sync>,
    /// What the children spent, for the parent's turn and session.
    pub spend: Arc<Mutex<Spend>>,
}

impl AgentHost for ChildHost {
    fn run(&self, children: Vec<ChildSpec>) -> Result<Vec<ChildOutcome>, String> {
        let delegator = &self.parent.delegator;
        let limits = delegator.scheduler.limits();
        if delegator.depth >= limits.max_depth {
            return Err(format!(
                "sub-agents nest at most {} deep ([agent] max_subagent_depth) and this agent is at depth {}: it cannot start another; do this part of the work yourself",
                limits.max_depth, delegator.depth
            ));
        }
        if children.is_empty() || children.len() > MAX_BATCH {
            return Err(format!(
                "a batch holds 1 to {MAX_BATCH} sub-agents; {} were asked for",
                children.len()
            ));
        }
        let batch = children.len() > 1;
        let refs: Vec<ChildRef> = children
            .iter()
            .enumerate()
            .map(|(i, spec)| ChildRef {
                call_id: self.call_id.clone(),
                id: if batch {
                    format!("{}.{}", self.call_id, i + 1)
                } else {
                    self.call_id.clone()
                },
                label: label(spec),
            })
            .collect();
        let workspace = &self.parent.config.workspace;
        let mut claims: Vec<Option<Claim>> = Vec::with_capacity(children.len());
        for (spec, child) in children.iter().zip(&refs) {
            claims.push(if spec.tools.is_read_only() {
                None
            } else {
                Some(match &spec.write_paths {
                    Some(paths) => Claim::of(paths, workspace, delegator.claim.as_ref())
                        .map_err(|e| format!("`{}`: {e}", child.label))?,
                    None => delegator
                        .claim
                        .clone()
                        .unwrap_or_else(|| Claim::workspace(workspace)),
                })
            });
        }
        let batch_claims: Vec<(String, Claim)> = refs
            .iter()
            .zip(&claims)
            .filter_map(|(r, c)| c.clone().map(|c| (r.label.clone(), c)))
            .collect();
        // A nested writer works inside its parent's claim, which the parent holds already.
        let _held = match delegator.claim {
            Some(_) => None,
            None => Some(delegator.scheduler.claim(&batch_claims)?),
        };
        if delegator.claim.is_some() {
            // Siblings inside one parent's claim must still not overlap each other.
            super::Scheduler::check_disjoint(&batch_claims)?;
        }
        // This agent waits for its children: its own slot is theirs meanwhile.
        let _lent =
            (delegator.depth > 0).then(|| delegator.scheduler.lend(delegator.claim.is_some()));
        let outcomes = std::thread::scope(|scope| {
            let handles: Vec<_> = children
                .into_iter()
                .zip(refs)
                .zip(claims)
                .map(|((spec, child), claim)| {
                    scope.spawn(move || self.run_child(spec, child, claim))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| ChildOutcome {
                        status: ChildStatus::Failed,
                        answer: "the sub-agent crashed".into(),
                        session_id: None,
                        steps: 0,
                    })
                })
                .collect()
        });
        Ok(outcomes)
    }
}

fn label(spec: &ChildSpec) -> String {
    let description = spec.description.trim();
    if description.is_empty() {
        spec.profile.clone()
    } else {
        format!("{}: {description}", spec.profile)
    }
}

impl ChildHost {
    fn emit(&self, child: &ChildRef, event: AgentEvent) {
        (self.events)(AgentEvent::Child {
            child: child.clone(),
            event: Box::new(event),
        });
    }

    fn run_child(&self, spec: ChildSpec, child: ChildRef, claim: Option<Claim>) -> ChildOutcome {
        let parent = &self.parent;
        let scheduler = &parent.delegator.scheduler;
        let Some(_slot) = scheduler.slot(claim.is_some(), &self.cancel) else {
            return cancelled(0, None);
        };
        let catalog: Arc<dyn Catalog> = Arc::new(Narrowed {
            inner: parent.catalog.clone(),
            names: self.tool_names(&spec.tools, &child),
        });
        let mut config = AgentConfig {
            system_prompt: spec.system_prompt.clone(),
            append_system_prompt: None,
            effort: spec.effort.clone().or(parent.config.effort.clone()),
            enabled_tools: None,
            ..parent.config.clone()
        };
        config.posture = parent.posture.get();
        let shown_label = match &parent.label {
            Some(outer) => format!("{outer} › {}", child.label),
            None => child.label.clone(),
        };
        let built = parent.delegator.factory.build(ChildBuild {
            spec: &spec,
            catalog,
            config,
            parent_session: parent.session_id.as_deref(),
            parent_model: &parent.model,
        });
        let super::Built {
            mut agent,
            model,
            notices,
        } = match built {
            Ok(built) => built,
            Err(why) => return ChildOutcome::refused(format!("`{}`: {why}", child.label)),
        };
        agent.share_posture(parent.posture.clone());
        agent.evidence().0.set_strictness(parent.strictness);
        if let Some(approver) = &parent.approver {
            agent = agent.with_approver(Arc::new(Labelled {
                inner: approver.clone(),
                label: shown_label.clone(),
            }));
        }
        if let Some(deadline) = parent.deadline {
            agent = agent.with_deadline(deadline);
        }
        if let Some(left) = parent.budget_left {
            // What siblings spent already counts: the call's children share what was left.
            let spent = crate::agent_loop::Budget::spent_usd(
                &self.spend.lock().unwrap_or_else(PoisonError::into_inner),
            );
            agent = agent.with_budget(crate::agent_loop::Budget {
                usd: (left - spent).max(0.0),
            });
        }
        let agent_id = format!("{}/{}", parent.delegator.agent_id, child.id);
        agent = agent.with_lineage(Delegator {
            factory: parent.delegator.factory.clone(),
            scheduler: parent.delegator.scheduler.clone(),
            depth: parent.delegator.depth + 1,
            claim,
            agent_id: agent_id.clone(),
        });
        agent.set_label(shown_label);
        agent.set_subagent(crate::agent_loop::payloads::Subagent {
            agent_id: agent_id.clone(),
            profile: spec.profile.clone(),
            parent_session_id: parent.session_id.clone(),
        });
        let session_id = agent.session_id().map(str::to_string);
        self.emit(
            &child,
            AgentEvent::SubagentStarted {
                profile: spec.profile.clone(),
                description: spec.description.clone(),
                model,
                session_id: session_id.clone(),
            },
        );
        for notice in notices {
            self.emit(&child, AgentEvent::Notice(notice));
        }
        let cancel = self.cancel.child();
        let _registered = scheduler.register(agent_id.clone(), cancel.clone());
        let outcome = agent.run(&spec.prompt, &cancel, &mut |event| self.emit(&child, event));
        agent.end_session(&mut |event| self.emit(&child, event));
        self.spend
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(agent.session_spend());
        let status = match outcome.status {
            RunStatus::Success => ChildStatus::Answered,
            RunStatus::Cancelled | RunStatus::TimedOut => ChildStatus::Cancelled,
            RunStatus::MaxSteps | RunStatus::BudgetExceeded | RunStatus::Error => {
                ChildStatus::Failed
            }
        };
        self.emit(
            &child,
            AgentEvent::SubagentFinished {
                status: status.as_str().to_string(),
                steps: outcome.steps,
            },
        );
        let mut answer = outcome.result;
        bound_answer(&mut answer, session_id.as_deref());
        ChildOutcome {
            status,
            answer,
            session_id,
            steps: outcome.steps,
        }
    }

    /// The tools a child is offered: what its spec asks for, among the parent's.
    fn tool_names(&self, tools: &ChildTools, child: &ChildRef) -> BTreeSet<String> {
        let names = self.wanted_tools(tools, child);
        // A child presents no plan: that is its parent's to do.
        names
            .into_iter()
            .filter(|n| n != crate::agent_loop::plan::NAME)
            .collect()
    }

    fn wanted_tools(&self, tools: &ChildTools, child: &ChildRef) -> BTreeSet<String> {
        let parent: &[(String, bool)] = &self.parent.tools;
        match tools {
            ChildTools::Inherit => parent.iter().map(|(n, _)| n.clone()).collect(),
            ChildTools::ReadOnly => parent
                .iter()
                .filter(|(_, read_only)| *read_only)
                .map(|(n, _)| n.clone())
                .collect(),
            ChildTools::Named(names) => {
                let (kept, dropped): (Vec<&String>, Vec<&String>) = names
                    .iter()
                    .partition(|n| parent.iter().any(|(p, _)| p == *n));
                if !dropped.is_empty() {
                    let dropped: Vec<String> = dropped.iter().map(|n| format!("`{n}`")).collect();
                    self.emit(
                        child,
                        AgentEvent::Notice(format!(
                            "the profile names tools its parent does not have, left out: {}",
                            dropped.join(", ")
                        )),
                    );
                }
                kept.into_iter().cloned().collect()
            }
        }
    }
}

fn cancelled(steps: u32, session_id: Option<String>) -> ChildOutcome {
    ChildOutcome {
        status: ChildStatus::Cancelled,
        answer: "cancelled before it finished".into(),
        session_id,
        steps,
    }
}

/// Cut an answer longer than [`MAX_ANSWER_BYTES`] at a character boundary, saying where the
/// whole of it is.
fn bound_answer(answer: &mut String, session_id: Option<&str>) {
    if answer.len() <= MAX_ANSWER_BYTES {
        return;
    }
    let total = answer.len();
    let mut end = MAX_ANSWER_BYTES;
    while !answer.is_char_boundary(end) {
        end -= 1;
    }
    answer.truncate(end);
    let whole = match session_id {
        Some(id) => format!("; the whole answer is in its session `{id}`"),
        None => String::new(),
    };
    answer.push_str(&format!(
        "\n\n[Reasonix cut this sub-agent's answer at {end} of {total} bytes{whole}.]"
    ));
}

/// The parent's catalog with only some of its tools.
struct Narrowed {
    inner: Arc<dyn Catalog>,
    names: BTreeSet<String>,
}

impl Catalog for Narrowed {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.inner
            .tools()
            .into_iter()
            .filter(|t| self.names.contains(&t.spec().name))
            .collect()
    }
    fn provider(&self, kind: &str) -> Option<Arc<dyn Provider>> {
        self.inner.provider(kind)
    }
    fn provider_kinds(&self) -> Vec<String> {
        self.inner.provider_kinds()
    }
    fn interceptors(&self) -> Vec<Arc<dyn Interceptor>> {
        self.inner.interceptors()
    }
    fn interceptors_for(&self, workspace: &std::path::Path) -> Vec<Arc<dyn Interceptor>> {
        self.inner.interceptors_for(workspace)
    }
    fn stop_processes(&self, reason: &str) {
        self.inner.stop_processes(reason)
    }
    fn stop_cancelled(&self, reason: &str) {
        self.inner.stop_cancelled(reason)
    }
    fn tools_revision(&self) -> u64 {
        self.inner.tools_revision()
    }
}

/// The parent's approver, its questions labelled with the child asking.
struct Labelled {
    inner: Arc<dyn Approver>,
    label: String,
}

impl Approver for Labelled {
    fn approve(&self, request: &ApprovalRequest<'_>) -> Approval {
        self.inner.approve(&ApprovalRequest {
            agent: Some(&self.label),
            ..*request
        })
    }
}
