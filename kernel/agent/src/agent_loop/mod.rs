//! The agent loop: send the conversation (a fixed system prompt and tool list, then the history,
//! only ever appended to) → stream the answer → run the complete tool calls it asked for →
//! append the results → repeat until the model answers without tools or the step budget is
//! spent.
//!
//! Read-only calls of one answer run in parallel; a call that may write runs alone, in order.
//! Tool errors, permission refusals and malformed arguments go back to the model as tool results
//! it can act on; a call that keeps failing identically is stopped by a loop guard. A stream cut
//! mid-answer is replayed from the same request. Every message is written to the session
//! transcript as soon as it is complete.

pub mod budget;
mod checkpoints;
mod compact;
pub mod deferred;
pub mod delegation;
mod events;
mod frontend;
mod history;
pub mod intercept;
pub mod payloads;
pub mod plan;
pub mod planner;
pub mod prompt;
pub mod public;
mod replayed;
#[cfg(test)]
mod tests;
mod tools;
mod unchanged;

pub use crate::cost::{self, Cost, ModelSpend, Spend};
pub use budget::Budget;
pub use checkpoints::Rewound;
pub use compact::ASSUMED_WINDOW as ASSUMED_CONTEXT_WINDOW;
pub use events::{AgentEvent, ChildRef, RunOutcome, RunStatus, UsageTotals};
pub use history::repair_history;
pub use intercept::Interceptors;
pub use tools::{CallFailure, MAX_RESULT_BYTES, RunStop};

use intercept::{Outcome as Intercepted, Subject, points};
use payloads::{
    AgentBeforeStart, ContextPrepare, InputReceive, PayloadMessage, PayloadTool, ProviderRequest,
    ProviderResponse, RequestBody, ResponseCall, SessionPhase,
};

use crate::cancel::CancelToken;
use crate::catalog::Catalog;
use crate::completion::{ChatRequest, CompletionError, ProviderClient};
use crate::permissions::{Approver, Policy, Posture, PostureSwitch, ToolClass};
use crate::session::SessionWriter;
use crate::tool::Tool;
use crate::types::{FinishReason, Image, Message, Role, StreamEvent, ToolCall, ToolSpec, Usage};
use reasonix_core::evidence::Evidence;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The result of a run stopped by its time limit while doing `what`.
fn timed_out(limit: Duration, what: &str) -> String {
    format!(
        "the run's time limit of {} (--timeout / [agent] run_timeout) was reached while {what}",
        crate::config::duration::shown(limit)
    )
}

/// How often a cut or stalled stream is replayed before the run gives up.
pub const MAX_REPLAYS: u32 = 2;
/// Identical failing calls before the model is told to stop repeating it.
pub const REPEAT_WARNING: u32 = 3;
/// Identical failing calls before the run is stopped.
pub const REPEAT_LIMIT: u32 = 5;

/// Everything a run is configured with.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Absolute, symlink-free workspace root.
    pub workspace: PathBuf,
    /// Part 1 of the system prompt (the guidance or the configured prompt, see
    /// [`prompt::build`]); `system_prompt.build` appends the rest when the agent is created.
    /// Must not change between turns or runs of the same config (it is the start of the
    /// provider-visible prefix the provider caches).
    pub system_prompt: String,
    /// `--append-system-prompt`: added after everything `system_prompt.build` produced.
    pub append_system_prompt: Option<String>,
    /// Model requests per run (`--max-steps`).
    pub max_steps: u32,
    pub posture: Posture,
    pub policy: Policy,
    /// Reasoning effort for every request (`--effort`); `None` = the provider's.
    pub effort: Option<String>,
    pub max_output_tokens: Option<u32>,
    /// Tools offered to the model by name (`[tools] enabled`); `None` = every tool.
    pub enabled_tools: Option<Vec<String>>,
    /// When to compact, against the model's context window (docs/COMPACTION.md).
    pub compaction: crate::compaction::Ratios,
    /// Bytes of MCP tool specs offered directly; past it they are reached through one tool
    /// (`[tools] mcp_schema_budget`, see [`deferred`]).
    pub mcp_schema_budget: usize,
}

/// Why an agent could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// Two plugins own one replacement slot.
    #[error(transparent)]
    SlotClash(#[from] reasonix_core::slots::SlotClash),
    /// An interceptor blocked `system_prompt.build` or failed there: the run does not start
    /// (a policy interceptor must not be bypassed).
    #[error("the system prompt was not built: {0}")]
    SystemPrompt(String),
}

/// One conversation with one provider and model.
pub struct Agent {
    client: ProviderClient,
    /// `--fallback-model`: taken once, when a request fails before its answer streams.
    fallback: Option<ProviderClient>,
    config: AgentConfig,
    /// Sorted by name: the order is part of the cached prefix.
    tools: Vec<Arc<dyn Tool>>,
    specs: Vec<ToolSpec>,
    /// What each tool is to the permission rules, from its spec and its plugin's grant,
    /// worked out once.
    classes: HashMap<String, ToolClass>,
    /// The deferred-tools proxy, when the external tools are reached through it.
    proxy: Option<Arc<deferred::Proxy>>,
    /// Shared so a run can lend it to the event filter without copying the maps.
    interceptors: Arc<Interceptors>,
    /// `session.start` was dispatched.
    started: bool,
    history: Vec<Message>,
    session: Option<SessionWriter>,
    approver: Option<Arc<dyn Approver>>,
    /// Consecutive identical failures per (tool, canonical arguments).
    failures: HashMap<(String, String), u32>,
    registry: Arc<dyn Catalog>,
    /// The session was loaded from a transcript (`session.load` is due before the first run).
    resumed: bool,
    /// Which runtime this is: 0 at creation, one more per successful [`Agent::reload`].
    generation: u64,
    /// The posture now: `config.posture` at creation, then whatever a front end sets.
    posture: PostureSwitch,
    /// Report what each file writer will change before it runs (`ToolPreview`).
    write_previews: bool,
    /// The catalog's [`Catalog::tools_revision`] the offered tools were taken at.
    tools_revision: u64,
    /// Usage and cost of the session by model.
    spend: Spend,
    /// What summary requests of a compaction spent, until the run in progress counts it.
    compaction_spend: Spend,
    /// The checkpoint of the user turn in progress (with a session only).
    checkpoint: Option<crate::checkpoint::TurnRecorder>,
    compaction: compact::CompactionState,
    /// When the run must end (`reasonix run --timeout`); the front end cancels the token then.
    deadline: Option<RunDeadline>,
    /// The most the session may spend (`reasonix run --max-budget-usd`).
    budget: Option<Budget>,
    /// How this agent starts sub-agents, and where it stands among them; `None`: it cannot.
    delegator: Option<delegation::Delegator>,
    /// A sub-agent's label (`explore: find the loader`), which its questions carry.
    label: Option<String>,
    /// What this agent's sub-agents spent since the last look (their calls add to it).
    child_spend: Arc<std::sync::Mutex<Spend>>,
    /// What this agent's calls verifiably did (`reasonix_core::evidence`).
    evidence: Evidence,
    /// The planner of two-model collaboration (`[agent] planner_model`), in its own session.
    planner: Option<Box<Agent>>,
    /// The user's own words for the next turn's route (`set_user_words`).
    user_words: Option<String>,
    /// A plan presented in plan mode that nobody could approve: the run ends with it.
    plan_presented: Option<String>,
    /// What interceptors are told about this agent when it is a sub-agent.
    subagent: Option<payloads::Subagent>,
}

/// A run's time limit: it ends at `at`, `limit` after it started (`reasonix run --timeout`,
/// `[agent] run_timeout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunDeadline {
    pub at: Instant,
    pub limit: Duration,
}

/// What a catalog offers the model.
struct Offered {
    /// Every callable tool, sorted by name (the order is part of the cached prefix).
    tools: Vec<Arc<dyn Tool>>,
    /// The specs sent to the model: the deferred tools' only through the proxy.
    specs: Vec<ToolSpec>,
    /// The permission class of each tool.
    classes: HashMap<String, ToolClass>,
    /// The deferred-tools proxy, when the external tools' specs pass the budget.
    proxy: Option<Arc<deferred::Proxy>>,
}

fn offered(catalog: &dyn Catalog, enabled: Option<&[String]>, mcp_schema_budget: usize) -> Offered {
    let mut tools: Vec<Arc<dyn Tool>> = catalog
        .tools()
        .into_iter()
        .filter(|t| {
            // External (MCP) tools come in addition to `[tools] enabled` (the original's
            // rule); a deny rule or `[[plugins]]` removal is how a user turns them off.
            t.effects().external
                || enabled.is_none_or(|names| names.iter().any(|n| *n == t.spec().name))
        })
        .collect();
    // Past the budget the external tools stay callable (by the proxy's `call`) but are not
    // offered.
    let proxy = deferred::proxy_for(&tools, mcp_schema_budget);
    if let Some(proxy) = &proxy {
        tools.push(proxy.clone());
    }
    tools.sort_by(|a, b| a.spec().name.cmp(&b.spec().name));
    let specs: Vec<ToolSpec> = tools
        .iter()
        .map(|t| t.spec())
        .filter(|s| proxy.as_ref().is_none_or(|p| !p.is_deferred(&s.name)))
        .cloned()
        .collect();
    let classes = tools
        .iter()
        .map(|t| (t.spec().name.clone(), ToolClass::of(t.spec(), t.effects())))
        .collect();
    Offered {
        tools,
        specs,
        classes,
        proxy,
    }
}

/// What a [`Agent::reload`] changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reloaded {
    /// The new runtime generation.
    pub generation: u64,
    pub tools_added: Vec<String>,
    pub tools_removed: Vec<String>,
    /// The system prompt or the tool list differs, so the provider's prefix cache starts over.
    pub prefix_changed: bool,
}

impl Agent {
    pub fn new(
        registry: Arc<dyn Catalog>,
        client: ProviderClient,
        config: AgentConfig,
    ) -> Result<Agent, StartError> {
        let tools_revision = registry.tools_revision();
        let Offered {
            tools,
            specs,
            classes,
            proxy,
        } = offered(
            registry.as_ref(),
            config.enabled_tools.as_deref(),
            config.mcp_schema_budget,
        );
        let interceptors = Arc::new(Interceptors::new(
            registry.interceptors_for(&config.workspace),
        )?);
        let mut config = config;
        config.system_prompt = build_system_prompt(&interceptors, &config)?;
        Ok(Agent {
            client,
            fallback: None,
            deadline: None,
            budget: None,
            tools,
            specs,
            classes,
            proxy,
            interceptors,
            started: false,
            history: Vec::new(),
            session: None,
            approver: None,
            failures: HashMap::new(),
            registry,
            resumed: false,
            generation: 0,
            posture: PostureSwitch::new(config.posture),
            write_previews: false,
            tools_revision,
            spend: Spend::default(),
            compaction_spend: Spend::default(),
            checkpoint: None,
            compaction: compact::CompactionState::default(),
            delegator: None,
            label: None,
            child_spend: Arc::default(),
            evidence: Evidence::default(),
            planner: None,
            user_words: None,
            plan_presented: None,
            subagent: None,
            config,
        })
    }

    /// Take the catalog's tools again when they changed since the last turn (MCP servers come
    /// and go in the background). Called only at a turn boundary.
    fn refresh_tools(&mut self, on_event: &mut dyn FnMut(AgentEvent)) {
        let revision = self.registry.tools_revision();
        if revision == self.tools_revision {
            return;
        }
        self.tools_revision = revision;
        let Offered {
            tools,
            specs,
            classes,
            proxy,
        } = offered(
            self.registry.as_ref(),
            self.config.enabled_tools.as_deref(),
            self.config.mcp_schema_budget,
        );
        let names =
            |specs: &[ToolSpec]| -> Vec<String> { specs.iter().map(|s| s.name.clone()).collect() };
        let (old, new) = (names(&self.specs), names(&specs));
        let added: Vec<String> = new.iter().filter(|n| !old.contains(n)).cloned().collect();
        let removed: Vec<String> = old.iter().filter(|n| !new.contains(n)).cloned().collect();
        let changed = specs != self.specs;
        self.tools = tools;
        self.specs = specs;
        self.classes = classes;
        self.proxy = proxy;
        if changed {
            on_event(AgentEvent::ToolsChanged { added, removed });
        }
    }

    /// Rebuild this agent on a new runtime (catalog, provider client, config), as `/reload`
    /// does: the new one is built beside the old, and only when that succeeds does it take
    /// over, keeping the session (transcript, history), the approvals granted for the session,
    /// the approver and whether the session has started. On failure nothing changes. A
    /// `--fallback-model` client belongs to the old runtime and is not carried over.
    ///
    /// A run holds `&mut self`, so a reload waits for the turn in progress: each turn uses one
    /// runtime generation from start to end.
    pub fn reload(
        &mut self,
        catalog: Arc<dyn Catalog>,
        client: ProviderClient,
        mut config: AgentConfig,
    ) -> Result<Reloaded, StartError> {
        config
            .policy
            .session
            .clone_from(&self.config.policy.session);
        let mut next = Agent::new(catalog, client, config)?;
        let names =
            |specs: &[ToolSpec]| -> Vec<String> { specs.iter().map(|s| s.name.clone()).collect() };
        let (old, new) = (names(&self.specs), names(&next.specs));
        let report = Reloaded {
            generation: self.generation + 1,
            tools_added: new.iter().filter(|n| !old.contains(n)).cloned().collect(),
            tools_removed: old.iter().filter(|n| !new.contains(n)).cloned().collect(),
            prefix_changed: next.config.system_prompt != self.config.system_prompt
                || next.specs != self.specs,
        };
        next.generation = report.generation;
        next.history = std::mem::take(&mut self.history);
        next.session = self.session.take();
        next.approver = self.approver.take();
        next.started = self.started;
        next.resumed = self.resumed;
        // Front ends hold the switch: it stays theirs, with the posture they set.
        next.posture = self.posture.clone();
        next.write_previews = self.write_previews;
        next.budget = self.budget;
        next.spend = std::mem::take(&mut self.spend);
        next.checkpoint = self.checkpoint.take();
        next.compaction = std::mem::take(&mut self.compaction);
        next.delegator = self.delegator.take();
        next.label = self.label.take();
        next.subagent = self.subagent.take();
        next.evidence = self.evidence.clone();
        next.planner = self.planner.take();
        *self = next;
        Ok(report)
    }

    /// The runtime generation this agent runs on (see [`Agent::reload`]).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Write every message (and usage) of this agent to `writer`; `history` is what the
    /// transcript already holds (empty for a new session). The history is repaired first so a
    /// run killed between a tool call and its result can go on.
    pub fn with_session(mut self, writer: SessionWriter, mut history: Vec<Message>) -> Agent {
        let placeholders = repair_history(&mut history);
        self.resumed = !history.is_empty();
        self.session = Some(writer);
        self.history = history;
        for message in placeholders {
            self.record(&message);
        }
        self
    }

    /// Go on from `history` without a transcript (`reasonix run --no-session-persistence`
    /// with `--resume`): nothing of this agent is written anywhere.
    pub fn with_history(mut self, mut history: Vec<Message>) -> Agent {
        repair_history(&mut history);
        self.resumed = !history.is_empty();
        self.history = history;
        self
    }

    /// A client to switch to, once, when a model request fails for good before its answer
    /// starts streaming (an HTTP error, retries exhausted, the quota used up …; not a
    /// cancellation). A `Notice` says so; the rest of the run uses it.
    pub fn with_fallback(mut self, mut fallback: ProviderClient) -> Agent {
        fallback.set_deadline(self.deadline.map(|d| d.at));
        self.fallback = Some(fallback);
        self
    }

    /// End the run at `deadline`: the caller cancels the run's token at `deadline.at`; the run
    /// then ends with [`RunStatus::TimedOut`] and a result naming the limit and what it was
    /// waiting for, and no retry wait of the provider goes past it.
    pub fn with_deadline(mut self, deadline: RunDeadline) -> Agent {
        self.deadline = Some(deadline);
        self.client.set_deadline(Some(deadline.at));
        if let Some(fallback) = &mut self.fallback {
            fallback.set_deadline(Some(deadline.at));
        }
        self
    }

    /// Make no model request once the session's spend has reached `budget`: the run ends
    /// with [`RunStatus::BudgetExceeded`].
    pub fn with_budget(mut self, budget: Budget) -> Agent {
        self.budget = Some(budget);
        self
    }

    /// The status and result of a run stopped by its token while doing `what`: timed out when
    /// the deadline has passed, else cancelled.
    fn stopped(&self, what: &str) -> (RunStatus, String) {
        match self.deadline {
            Some(d) if Instant::now() >= d.at => (RunStatus::TimedOut, timed_out(d.limit, what)),
            _ => (RunStatus::Cancelled, "cancelled".into()),
        }
    }

    /// Report each file writer's changes before it runs (`AgentEvent::ToolPreview`), also
    /// when no question was asked (auto, yolo, allow rules): the terminal UI shows them as a
    /// diff. Costs one `preview` call per write.
    pub fn with_write_previews(mut self) -> Agent {
        self.write_previews = true;
        self
    }

    /// Let the delegating host tools start sub-agents (ADR 0035) as `delegator` says: the main
    /// agent's is [`Delegator::root`](delegation::Delegator::root); a child's is
    /// one level deeper, with its claim.
    pub fn with_lineage(mut self, delegator: delegation::Delegator) -> Agent {
        self.delegator = Some(delegator);
        self
    }

    fn delegator(&self) -> Option<&delegation::Delegator> {
        self.delegator.as_ref()
    }

    /// Use `switch` for the posture (a child follows its parent's, switches included).
    pub fn share_posture(&mut self, switch: PostureSwitch) {
        self.posture = switch;
    }

    /// Name this agent in its questions (a sub-agent).
    pub fn set_label(&mut self, label: String) {
        self.label = Some(label);
    }

    /// What this agent's calls verifiably did, and how strictly its steps are judged.
    pub fn evidence(&self) -> &Evidence {
        &self.evidence
    }

    /// Tell interceptors this agent is a sub-agent (its session points and its task).
    pub fn set_subagent(&mut self, subagent: payloads::Subagent) {
        self.subagent = Some(subagent);
    }

    /// Let an interactive front end answer `ask` decisions.
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Agent {
        self.approver = Some(approver);
        self
    }

    /// The posture switch: setting it changes the posture from the next permission decision
    /// on, also in the middle of a turn. It survives [`Agent::reload`].
    pub fn posture_switch(&self) -> PostureSwitch {
        self.posture.clone()
    }

    /// Reasoning effort from the next request on (`/effort`); `None` = the provider's.
    pub fn set_effort(&mut self, effort: Option<String>) {
        self.config.effort = effort;
    }

    /// Take back an "allow for this session" answer (`rule` as it was granted): the next
    /// such call asks again. Whether it was granted.
    pub fn revoke_session_grant(&mut self, rule: &str) -> bool {
        self.config.policy.revoke_for_session(rule)
    }

    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The tools offered to the model, in the order sent.
    pub fn tool_specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    pub fn client(&self) -> &ProviderClient {
        &self.client
    }

    pub fn session_id(&self) -> Option<&str> {
        self.session.as_ref().map(|s| s.id())
    }

    pub fn registry(&self) -> &dyn Catalog {
        self.registry.as_ref()
    }

    /// Run one task to the end.
    pub fn run(
        &mut self,
        task: &str,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> RunOutcome {
        self.run_with_images(task, Vec::new(), cancel, on_event)
    }

    /// Run one task whose message carries images (an `@server:uri` resource that is an image):
    /// a model that reads images is sent them, the text describes them for one that does not.
    pub fn run_with_images(
        &mut self,
        task: &str,
        images: Vec<Image>,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> RunOutcome {
        let interceptors = self.interceptors.clone();
        let mut display = frontend::Display::new(&interceptors);
        let mut shown = |event| display.show(event, on_event);
        let mut outcome = if self.planner.is_some() {
            self.coordinate(task, images, cancel, &mut shown)
        } else {
            self.run_task(task, images, cancel, &mut shown)
        };
        self.flush_evidence(&mut |event| display.show(event, on_event));
        let _ = self.session_phase(points::SESSION_SAVE, "save", &mut |event| {
            display.show(event, on_event)
        });
        display.flush(on_event);
        // The result is what a front end prints as the answer (`-p`, the result object).
        outcome.result =
            frontend::for_user(&interceptors, "result", "", outcome.result).unwrap_or_default();
        outcome
    }

    fn run_task(
        &mut self,
        task: &str,
        images: Vec<Image>,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> RunOutcome {
        let mut usage = UsageTotals::default();
        let mut spend = Spend::default();
        let mut steps = 0;
        let end = |agent: &Agent, status, result: String, steps, usage, spend: &Spend| RunOutcome {
            cost: spend.single_total(),
            spend: spend.clone(),
            status,
            result,
            steps,
            usage,
            session_id: agent.session_id().map(str::to_string),
            stop_reason: None,
        };
        self.refresh_tools(on_event);
        let session_start =
            (!self.started).then(|| if self.resumed { "resume" } else { "startup" }.to_string());
        if !self.started {
            self.started = true;
            let mut phases = vec![(points::SESSION_START, "start")];
            if self.resumed {
                phases.insert(0, (points::SESSION_LOAD, "load"));
            }
            for (point, phase) in phases {
                if let Err(stop) = self.session_phase(point, phase, on_event) {
                    let result = format!("the session was not started: {}", stop.describe());
                    return end(self, RunStatus::Error, result, steps, usage, &spend);
                }
            }
        }
        let input = InputReceive {
            text: task.to_string(),
            session_start,
            session_id: self.session_id().map(str::to_string),
            subagent: self.subagent.clone(),
        };
        let task = match self.interceptors.dispatch(
            points::INPUT_RECEIVE,
            || input.clone(),
            InputReceive::validate,
        ) {
            Intercepted::Unchanged => input.text,
            Intercepted::Replaced(replaced) => replaced.text,
            Intercepted::Blocked(stop) => {
                let result = format!("the task was not sent: {}", stop.describe());
                return end(self, RunStatus::Error, result, steps, usage, &spend);
            }
        };
        let task = if self.posture.get() == crate::permissions::Posture::Plan {
            format!("{task}{}", plan::NOTE)
        } else {
            task
        };
        let user = Message {
            images,
            ..Message::text(Role::User, task)
        };
        self.begin_turn(on_event);
        self.append(user, on_event);
        if let Err(stop) = self.before_start() {
            let result = format!("the run was not started: {}", stop.describe());
            return end(self, RunStatus::Error, result, steps, usage, &spend);
        }
        while steps < self.config.max_steps {
            if cancel.is_cancelled() {
                let (status, result) = self.stopped("between model requests");
                return end(self, status, result, steps, usage, &spend);
            }
            if let Some(result) = self.budget.and_then(|b| b.reached(&self.spend)) {
                return end(
                    self,
                    RunStatus::BudgetExceeded,
                    result,
                    steps,
                    usage,
                    &spend,
                );
            }
            self.compact_if_due(cancel, on_event);
            let summary_spend = std::mem::take(&mut self.compaction_spend);
            usage.merge(&summary_spend.usage());
            spend.extend(&summary_spend);
            steps += 1;
            on_event(AgentEvent::RequestStarted { step: steps });
            let request = match self.next_request() {
                Ok(request) => request,
                Err(stop) => {
                    let result = format!("the request was not sent: {}", stop.describe());
                    return end(self, RunStatus::Error, result, steps, usage, &spend);
                }
            };
            let answer = match self.complete(&request, cancel, on_event) {
                Ok(answer) => answer,
                Err(CompletionError::Cancelled) => {
                    let what = format!("waiting for provider `{}`", self.client.provider().name);
                    let (status, result) = self.stopped(&what);
                    return end(self, status, result, steps, usage, &spend);
                }
                Err(e @ CompletionError::Deadline { .. }) => {
                    let limit = self.deadline.map(|d| d.limit).unwrap_or_default();
                    let result = timed_out(limit, &format!("waiting for {e}"));
                    return end(self, RunStatus::TimedOut, result, steps, usage, &spend);
                }
                Err(e) => return end(self, RunStatus::Error, e.to_string(), steps, usage, &spend),
            };
            if let Some(u) = &answer.usage {
                usage.add(u);
                self.compaction.observe(u.prompt_tokens, self.history.len());
                self.count_spend(u, &mut spend, on_event);
            }
            let message = match self.after_response(answer.message, answer.usage, on_event) {
                Ok(message) => message,
                Err(stop) => {
                    let result = format!("the answer was stopped: {}", stop.describe());
                    return end(self, RunStatus::Error, result, steps, usage, &spend);
                }
            };
            let calls = message.tool_calls.clone();
            let text = message.content.clone();
            self.append(message, on_event);
            if calls.is_empty() {
                // A stream that ended without saying why ended cleanly: a finished answer.
                let finish = answer.finish.unwrap_or(FinishReason::Stop);
                if let Some(notice) = events::cut_off_notice(finish) {
                    on_event(AgentEvent::Notice(notice));
                }
                let mut outcome = end(self, RunStatus::Success, text, steps, usage, &spend);
                outcome.stop_reason = Some(finish);
                return outcome;
            }
            if let Some(finish @ (FinishReason::Length | FinishReason::ContentFilter)) =
                answer.finish
            {
                // The last call's arguments may end mid-value, and a cut that happens to leave
                // valid JSON would run a partial write: none of the step's calls runs.
                self.refuse_cut_off_calls(&calls, finish, on_event);
                continue;
            }
            let running = || {
                let names: Vec<String> = calls.iter().map(|c| format!("`{}`", c.name)).collect();
                format!("running {}", names.join(", "))
            };
            let ran = self.run_tools(&calls, cancel, on_event);
            self.count_child_spend(&mut usage, &mut spend, on_event);
            if let Err(stop) = ran {
                if cancel.is_cancelled() {
                    let (status, result) = self.stopped(&running());
                    if status == RunStatus::TimedOut {
                        return end(self, status, result, steps, usage, &spend);
                    }
                }
                return end(
                    self,
                    RunStatus::Error,
                    stop.to_string(),
                    steps,
                    usage,
                    &spend,
                );
            }
            if cancel.is_cancelled() {
                let (status, result) = self.stopped(&running());
                return end(self, status, result, steps, usage, &spend);
            }
            if let Some(plan) = self.plan_presented.take() {
                // Plan-only: the plan is the answer (said as one, so every front end shows
                // it and a resumed session starts from it), and nothing ran.
                on_event(AgentEvent::TextDelta(plan.clone()));
                self.append(Message::text(Role::Assistant, plan.clone()), on_event);
                let mut outcome = end(self, RunStatus::Success, plan, steps, usage, &spend);
                outcome.stop_reason = Some(FinishReason::Stop);
                return outcome;
            }
        }
        let result = format!(
            "stopped after {} model requests (--max-steps) with tool calls still pending",
            self.config.max_steps
        );
        end(self, RunStatus::MaxSteps, result, steps, usage, &spend)
    }

    /// Tell interceptors the session ends (a front end calls this once, when it is done with
    /// the agent).
    pub fn end_session(&mut self, on_event: &mut dyn FnMut(AgentEvent)) {
        if self.started {
            let interceptors = self.interceptors.clone();
            let mut shown = |event: AgentEvent| frontend::show(&interceptors, event, on_event);
            let _ = self.session_phase(points::SESSION_END, "end", &mut shown);
        }
    }

    /// Go on in a new session file (`/new`): `session.rotate` is dispatched for the old one,
    /// the history starts empty, and the next run dispatches `session.start` again.
    pub fn rotate_session(&mut self, writer: SessionWriter, on_event: &mut dyn FnMut(AgentEvent)) {
        let _ = self.session_phase(points::SESSION_ROTATE, "rotate", on_event);
        self.session = Some(writer);
        self.history.clear();
        self.compaction = compact::CompactionState::default();
        self.failures.clear();
        self.started = false;
        self.resumed = false;
        self.spend = Spend::default();
    }

    /// Go on in another saved session (`/resume` inside a running session): `session.rotate`
    /// is dispatched for the current one, then the loaded history (repaired like
    /// [`Agent::with_session`]) replaces the current one.
    pub fn switch_session(
        &mut self,
        writer: SessionWriter,
        mut history: Vec<Message>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) {
        let _ = self.session_phase(points::SESSION_ROTATE, "rotate", on_event);
        let placeholders = repair_history(&mut history);
        self.session = Some(writer);
        self.resumed = !history.is_empty();
        self.history = history;
        self.compaction = compact::CompactionState::default();
        self.failures.clear();
        self.started = false;
        // The front end gives the loaded session's spend (`set_spend`).
        self.spend = Spend::default();
        for message in placeholders {
            self.record(&message);
        }
    }

    /// The catalog this agent was built on (to rebuild it with another client).
    pub fn catalog(&self) -> Arc<dyn Catalog> {
        self.registry.clone()
    }

    /// A `session.*` point. A block is returned (the caller decides whether it stops
    /// anything) and reported; the payload cannot be changed.
    fn session_phase(
        &self,
        point: &str,
        phase: &str,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<(), intercept::Stop> {
        if !self.interceptors.listens(point) {
            return Ok(());
        }
        let original = SessionPhase {
            session_path: self
                .session
                .as_ref()
                .map(|s| s.path().display().to_string())
                .unwrap_or_default(),
            phase: phase.to_string(),
            subagent: self.subagent.clone(),
        };
        match self
            .interceptors
            .dispatch(point, || original.clone(), payloads::unchanged(&original))
        {
            Intercepted::Blocked(stop) => {
                on_event(AgentEvent::Notice(format!(
                    "at `{point}`: {}",
                    stop.describe()
                )));
                Err(stop)
            }
            _ => Ok(()),
        }
    }

    /// `agent.before_start`: observed, and may stop the run before its first request.
    fn before_start(&self) -> Result<(), intercept::Stop> {
        if !self.interceptors.listens(points::AGENT_BEFORE_START) {
            return Ok(());
        }
        let original = AgentBeforeStart {
            model: self.client.model().to_string(),
            tool_count: self.specs.len(),
            session_id: self.session_id().unwrap_or("ephemeral").to_string(),
        };
        match self.interceptors.dispatch(
            points::AGENT_BEFORE_START,
            || original.clone(),
            payloads::unchanged(&original),
        ) {
            Intercepted::Blocked(stop) => Err(stop),
            _ => Ok(()),
        }
    }

    /// The request for the next step: `context.prepare` may change the conversation it
    /// carries and `provider.request` the whole request (this request only; the history keeps
    /// every message), or stop the run.
    fn next_request(&self) -> Result<ChatRequest, intercept::Stop> {
        let mut request = self.request();
        if self.interceptors.listens(points::CONTEXT_PREPARE) {
            let make = || ContextPrepare {
                messages: request.messages[1..]
                    .iter()
                    .map(PayloadMessage::from)
                    .collect(),
            };
            match self.interceptors.dispatch(
                points::CONTEXT_PREPARE,
                make,
                ContextPrepare::validate,
            ) {
                Intercepted::Unchanged => {}
                Intercepted::Blocked(stop) => return Err(stop),
                Intercepted::Replaced(context) => {
                    let original = request.messages.split_off(1);
                    request
                        .messages
                        .extend(payloads::with_images(context.messages, &original));
                }
            }
        }
        if !self.interceptors.listens(points::PROVIDER_REQUEST) {
            return Ok(request);
        }
        let provider = self.client.provider().name.clone();
        let original = ProviderRequest {
            provider: provider.clone(),
            model: self.client.model().to_string(),
            request: RequestBody {
                messages: request.messages.iter().map(PayloadMessage::from).collect(),
                tools: request
                    .tools
                    .iter()
                    .map(|t| PayloadTool {
                        name: t.name.clone(),
                        description: t.description.clone(),
                        parameters: serde_json::from_str(&t.parameters)
                            .unwrap_or(serde_json::Value::Null),
                    })
                    .collect(),
                max_tokens: request.max_output_tokens,
            },
        };
        match self.interceptors.dispatch_about(
            points::PROVIDER_REQUEST,
            Subject::Provider(&provider),
            || original.clone(),
            |replaced| replaced.validate(&original),
        ) {
            Intercepted::Unchanged => Ok(request),
            Intercepted::Blocked(stop) => Err(stop),
            Intercepted::Replaced(replaced) => {
                let body = replaced.request;
                request.messages = payloads::with_images(body.messages, &request.messages);
                request.tools = body
                    .tools
                    .iter()
                    .filter_map(|t| {
                        let offered = request.tools.iter().find(|o| o.name == t.name)?;
                        Some(crate::types::ToolSpec {
                            description: t.description.clone(),
                            parameters: reasonix_core::types::canonical_json(
                                &t.parameters.to_string(),
                            )
                            .unwrap_or_else(|_| offered.parameters.clone()),
                            ..offered.clone()
                        })
                    })
                    .collect();
                request.max_output_tokens = body.max_tokens;
                Ok(request)
            }
        }
    }

    /// `provider.response`: may replace the answer's text and tool calls, or stop the run.
    fn after_response(
        &self,
        mut message: Message,
        usage: Option<Usage>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<Message, intercept::Stop> {
        if !self.interceptors.listens(points::PROVIDER_RESPONSE) {
            return Ok(message);
        }
        let original = ProviderResponse {
            text: message.content.clone(),
            reasoning: message.reasoning.clone(),
            calls: message
                .tool_calls
                .iter()
                .map(|c| ResponseCall {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    arguments: c.arguments.clone(),
                })
                .collect(),
            usage,
        };
        let provider = self.client.provider().name.clone();
        match self.interceptors.dispatch_about(
            points::PROVIDER_RESPONSE,
            Subject::Provider(&provider),
            || original.clone(),
            |replaced| replaced.validate(&original),
        ) {
            Intercepted::Unchanged => Ok(message),
            Intercepted::Blocked(stop) => Err(stop),
            Intercepted::Replaced(replaced) => {
                on_event(AgentEvent::Notice(
                    "an interceptor replaced the model's answer".into(),
                ));
                message.content = replaced.text;
                message.reasoning = replaced.reasoning;
                message.tool_calls = replaced
                    .calls
                    .into_iter()
                    .map(|c| ToolCall {
                        id: c.id,
                        name: c.name,
                        arguments: c.arguments,
                    })
                    .collect();
                Ok(message)
            }
        }
    }

    /// The request as the provider will see it: system prompt, tools, then the history.
    pub fn request(&self) -> ChatRequest {
        let mut messages = Vec::with_capacity(self.history.len() + 1);
        messages.push(Message::text(
            Role::System,
            self.config.system_prompt.clone(),
        ));
        // A result's original (`raw_content`) is for the transcript only: never sent.
        messages.extend(self.history.iter().map(|m| Message {
            role: m.role,
            content: m.content.clone(),
            reasoning: m.reasoning.clone(),
            reasoning_state: m.reasoning_state.clone(),
            tool_calls: m.tool_calls.clone(),
            tool_call_id: m.tool_call_id.clone(),
            raw_content: None,
            images: m.images.clone(),
        }));
        ChatRequest {
            messages,
            tools: self.specs.clone(),
            effort: self.config.effort.clone(),
            max_output_tokens: self.config.max_output_tokens,
        }
    }

    /// Stream one answer; replay the same request when the stream is cut or stalls.
    fn complete(
        &mut self,
        request: &ChatRequest,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<Answer, CompletionError> {
        let mut replays = 0;
        let mut replayed = replayed::Replayed::default();
        loop {
            replayed.start_attempt();
            let opened = self.client.stream(request, cancel, &mut |n| {
                on_event(AgentEvent::Retry(n.clone()))
            });
            let mut completion = match opened {
                Ok(completion) => completion,
                Err(e)
                    if !matches!(
                        e,
                        CompletionError::Cancelled | CompletionError::Deadline { .. }
                    ) && self.fallback.is_some() =>
                {
                    if let Some(fallback) = self.fallback.take() {
                        on_event(AgentEvent::Notice(format!(
                            "{e}; switching to the fallback model `{}/{}`",
                            fallback.provider().name,
                            fallback.model()
                        )));
                        self.client = fallback;
                    }
                    continue;
                }
                Err(e) => return Err(e),
            };
            let mut answer = AnswerBuilder::default();
            let failure = loop {
                match completion.next_events() {
                    Ok(batch) if batch.is_empty() => break None,
                    Ok(batch) => {
                        for event in batch {
                            answer.take(event, &mut |e| replayed.forward(e, on_event));
                        }
                    }
                    Err(e) => break Some(e),
                }
            };
            match failure {
                None => return Ok(answer.finish()),
                Some(e) if e.is_retryable() && replays < MAX_REPLAYS && !cancel.is_cancelled() => {
                    replays += 1;
                    on_event(AgentEvent::Notice(format!(
                        "{e}; replaying the request ({replays}/{MAX_REPLAYS})"
                    )));
                }
                Some(e) => return Err(e),
            }
        }
    }

    /// Append a message to the history, the transcript and the event stream.
    fn append(&mut self, message: Message, on_event: &mut dyn FnMut(AgentEvent)) {
        if let Some(session) = &mut self.session
            && let Err(e) = session.message(&message)
        {
            on_event(AgentEvent::Notice(format!("session not saved: {e}")));
        }
        // A replaced result's original is for the transcript: not kept in memory, not shown
        // (a front end must not display what a redactor took out).
        let message = Message {
            raw_content: None,
            ..message
        };
        on_event(AgentEvent::Message(message.clone()));
        self.history.push(message);
    }

    /// Write a repair placeholder to the transcript (already in the history).
    fn record(&mut self, message: &Message) {
        if let Some(session) = &mut self.session {
            let _ = session.message(message);
        }
    }

    /// Price one request's usage with the model that served it, count it in the run's and
    /// the session's spend and record it (with its model and cost) in the transcript.
    fn count_spend(
        &mut self,
        usage: &Usage,
        run: &mut Spend,
        on_event: &mut dyn FnMut(AgentEvent),
    ) {
        let provider = self.client.provider();
        let model = self.client.model();
        let priced = cost::price(provider, model, usage);
        run.add(&provider.name, model, usage, priced.as_ref());
        self.spend
            .add(&provider.name, model, usage, priced.as_ref());
        on_event(AgentEvent::Usage(*usage));
        let spent = crate::session::Spent {
            provider: provider.name.clone(),
            model: model.to_string(),
            cost: priced,
        };
        if let Some(session) = &mut self.session
            && let Err(e) = session.usage_of(usage, spent)
        {
            on_event(AgentEvent::Notice(format!("session not saved: {e}")));
        }
    }

    /// Add what sub-agents spent during the last calls to the run's and the session's spend,
    /// and record it in the transcript (one record per model) so a resumed session counts it.
    fn count_child_spend(
        &mut self,
        usage: &mut UsageTotals,
        run: &mut Spend,
        on_event: &mut dyn FnMut(AgentEvent),
    ) {
        let children = std::mem::take(
            &mut *self
                .child_spend
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        if children.is_empty() {
            return;
        }
        usage.merge(&children.usage());
        run.extend(&children);
        self.spend.extend(&children);
        if let Some(session) = &mut self.session {
            for model in &children.models {
                let totals = &model.usage;
                let summed = Usage {
                    prompt_tokens: totals.input_tokens,
                    completion_tokens: totals.output_tokens,
                    cache_hit_tokens: totals.cache_read_tokens,
                    cache_miss_tokens: totals.cache_miss_tokens,
                    reasoning_tokens: totals.reasoning_tokens,
                };
                let spent = crate::session::Spent {
                    provider: model.provider.clone(),
                    model: model.model.clone(),
                    cost: model.cost.clone(),
                };
                if let Err(e) = session.usage_of(&summed, spent) {
                    on_event(AgentEvent::Notice(format!("session not saved: {e}")));
                }
            }
        }
    }

    /// Usage and cost of the whole session by model: what the transcript recorded before
    /// this process (see [`Agent::with_spend`]) and what this agent spent since.
    pub fn session_spend(&self) -> &Spend {
        &self.spend
    }

    /// Start from what a resumed session already spent (`Loaded::spend`).
    pub fn with_spend(mut self, spend: Spend) -> Agent {
        self.set_spend(spend);
        self
    }

    /// [`Agent::with_spend`] after [`Agent::switch_session`].
    pub fn set_spend(&mut self, spend: Spend) {
        self.spend = spend;
    }
}

/// The system prompt: part 1 from the config, then whatever the `system_prompt.build` chain
/// appends (environment, instructions), then `--append-system-prompt`. Built once per agent:
/// it starts the cached prefix.
fn build_system_prompt(
    interceptors: &Interceptors,
    config: &AgentConfig,
) -> Result<String, StartError> {
    let mut prompt = config.system_prompt.clone();
    if interceptors.listens(points::SYSTEM_PROMPT_BUILD) {
        let env = prompt::Environment::detect(&config.workspace);
        let original = payloads::SystemPromptBuild {
            prompt: prompt.clone(),
            workspace_root: env.workspace,
            os: env.os,
            arch: env.arch,
            shell: env.shell,
        };
        match interceptors.dispatch(
            points::SYSTEM_PROMPT_BUILD,
            || original.clone(),
            |replaced| replaced.validate(&original),
        ) {
            Intercepted::Unchanged => {}
            Intercepted::Replaced(built) => prompt = built.prompt,
            Intercepted::Blocked(stop) => return Err(StartError::SystemPrompt(stop.describe())),
        }
    }
    if let Some(extra) = config
        .append_system_prompt
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        prompt.push_str("\n\n");
        prompt.push_str(extra);
    }
    Ok(prompt)
}

/// One streamed answer being put together.
#[derive(Default)]
struct AnswerBuilder {
    text: String,
    reasoning: String,
    state: Option<String>,
    calls: Vec<ToolCall>,
    usage: Option<Usage>,
    finish: Option<FinishReason>,
}

struct Answer {
    message: Message,
    usage: Option<Usage>,
    /// Why the model stopped, when the stream said.
    finish: Option<FinishReason>,
}

impl AnswerBuilder {
    fn take(&mut self, event: StreamEvent, on_event: &mut dyn FnMut(AgentEvent)) {
        match event {
            StreamEvent::Text(t) => {
                self.text.push_str(&t);
                on_event(AgentEvent::TextDelta(t));
            }
            StreamEvent::Reasoning(t) => {
                self.reasoning.push_str(&t);
                on_event(AgentEvent::ReasoningDelta(t));
            }
            StreamEvent::ReasoningState(s) => self.state = Some(s),
            StreamEvent::ToolCall(c) => self.calls.push(c),
            StreamEvent::Usage(u) => self.usage = Some(u),
            StreamEvent::Done(f) => self.finish = Some(f),
        }
    }

    fn finish(self) -> Answer {
        Answer {
            message: Message {
                role: Role::Assistant,
                content: self.text,
                reasoning: (!self.reasoning.is_empty()).then_some(self.reasoning),
                reasoning_state: self.state,
                tool_calls: self.calls,
                tool_call_id: None,
                raw_content: None,
                images: Vec::new(),
            },
            usage: self.usage,
            finish: self.finish,
        }
    }
}
