//! Two-model collaboration (`[agent] planner_model`): a planner in its own session (its own
//! stable prefix: one system prompt, read-only tools, plan posture) researches and writes a
//! plan; the executor, this agent, carries it out with the plan in its turn's message. The
//! sessions never mix, so each prefix only grows. The host decides per turn, from the user's
//! own text, whether to plan at all and how deeply ([`route`]); a planner that fails falls
//! back to the executor with the untouched task, except where the user asked for a plan to
//! approve or only a plan: there it fails closed and nothing is executed.

pub mod route;

use super::events::ChildRef;
use super::{Agent, AgentEvent, RunOutcome, RunStatus};
use crate::cancel::CancelToken;
use crate::permissions::{Approval, Posture};
use crate::types::{FinishReason, Image, Message, Role};
use route::{Route, RouteKind, TurnFacts};

/// The planner's system prompt (before its tool list): the depth contract. Stable: what
/// changes per turn is the `<planner-turn>` block of the turn's message.
pub const SYSTEM_PROMPT: &str = "You are the planner of a two-model team. You research the workspace with read-only tools and write a plan; another model, the executor, carries it out in its own session and sees only your final answer. You never change anything.\n\nEach task comes with a <planner-turn depth=\"…\"> block:\n- depth=\"light\": a few research calls at most, then a compact plan: the objective, 1-4 ordered steps, the likely files, and the one check that shows it works.\n- depth=\"full\": research until the plan is grounded, then: the objective; touchpoints, marking which you verified (read) and which are candidates; ordered steps; risks; acceptance criteria; the commands that verify it; rollback when a step is hard to undo.\n\nAnswer with the plan only, in Markdown. Do not ask questions: when something is unclear, state the assumption in the plan.";

/// The planner: an agent of its own, kept for the session.
pub struct Planner {
    pub agent: Box<Agent>,
}

/// How the planner's events are labelled for front ends (a card, like a sub-agent's).
fn planner_ref() -> ChildRef {
    ChildRef {
        call_id: "planner".into(),
        id: "planner".into(),
        label: "planner".into(),
    }
}

impl Agent {
    /// Plan with a second model in its own session (ADR 0038).
    pub fn with_planner(mut self, planner: Planner) -> Agent {
        self.planner = Some(planner.agent);
        self
    }

    /// What the user typed for the next turn, when the turn's text was expanded from
    /// something else (a custom command's template, a server's prompt: `Some("")`); the
    /// planner's route reads these words. Without it, the turn's text is the user's.
    pub fn set_user_words(&mut self, words: Option<String>) {
        self.user_words = words;
    }

    /// The turn as the route decides: the executor alone, a plan then the executor, a plan
    /// to approve, or a plan only.
    pub(super) fn coordinate(
        &mut self,
        task: &str,
        images: Vec<Image>,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> RunOutcome {
        let facts = TurnFacts {
            plan_mode: self.posture.get() == Posture::Plan,
            strict: self.evidence.0.strictness().steps_need_receipts,
        };
        // The user's own words decide, not what was expanded from a command file or a
        // server's prompt; none at all (a server's prompt) is not a turn to plan.
        let route = match self.user_words.take() {
            Some(words) if words.trim().is_empty() => Route {
                kind: RouteKind::ExecutorOnly,
                reason: "no words of the user's own",
            },
            Some(words) => route::route(&words, facts),
            None => route::route(task, facts),
        };
        on_event(AgentEvent::Notice(format!(
            "planner route: {} ({})",
            route.kind.name(),
            route.reason
        )));
        if route.kind == RouteKind::ExecutorOnly {
            return self.run_task(task, images, cancel, on_event);
        }
        let (plan, planned) = self.ask_planner(task, route, cancel, on_event);
        // The planner's spend is the turn's and the session's.
        if let Some(spent) = &planned {
            self.child_spend
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend(&spent.spend);
        }
        let mut outcome = match (route.kind, plan) {
            (kind, Err(why)) if kind.fails_closed() => {
                let result = format!(
                    "the planner did not produce a plan ({why}); nothing was executed ({})",
                    kind.name()
                );
                self.not_executed(RunStatus::Error, result)
            }
            (_, Err(why)) => {
                on_event(AgentEvent::Notice(format!(
                    "the planner did not produce a plan ({why}): the executor goes on with the task"
                )));
                self.run_task(task, images, cancel, on_event)
            }
            (RouteKind::PlanOnly, Ok(plan)) => self.keep_plan(task, plan, on_event),
            (RouteKind::PlanForApproval, Ok(plan)) => match self.approve_plan(&plan) {
                Approved::Yes => {
                    on_event(AgentEvent::Notice("plan approved: executing it".into()));
                    self.run_task(&with_plan(task, &plan), images, cancel, on_event)
                }
                Approved::No(note) => {
                    let mut outcome = self.keep_plan(task, plan, on_event);
                    outcome.result = format!(
                        "{}\n\n(The plan was not approved{}; nothing was executed.)",
                        outcome.result,
                        note.map(|n| format!(": {n}")).unwrap_or_default()
                    );
                    outcome
                }
                Approved::NobodyToAsk => self.keep_plan(task, plan, on_event),
            },
            (_, Ok(plan)) => self.run_task(&with_plan(task, &plan), images, cancel, on_event),
        };
        let mut usage = std::mem::take(&mut outcome.usage);
        let mut spend = std::mem::take(&mut outcome.spend);
        self.count_child_spend(&mut usage, &mut spend, on_event);
        outcome.usage = usage;
        outcome.cost = spend.single_total();
        outcome.spend = spend;
        outcome
    }

    /// Ask the planner; its final answer is the plan.
    fn ask_planner(
        &mut self,
        task: &str,
        route: Route,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> (Result<String, String>, Option<RunOutcome>) {
        let Some(mut planner) = self.planner.take() else {
            return (Err("no planner".into()), None);
        };
        let depth = match route.kind {
            RouteKind::Light => "light",
            _ => "full",
        };
        let turn = format!(
            "<planner-turn depth=\"{depth}\">Route: {} ({}). Write the plan for this task.</planner-turn>\n\n{task}",
            route.kind.name(),
            route.reason
        );
        let child = planner_ref();
        let mut forward = |event: AgentEvent| {
            on_event(AgentEvent::Child {
                child: child.clone(),
                event: Box::new(event),
            })
        };
        forward(AgentEvent::SubagentStarted {
            profile: "planner".into(),
            description: route.kind.name().into(),
            model: format!(
                "{}/{}",
                planner.client().provider().name,
                planner.client().model()
            ),
            session_id: planner.session_id().map(str::to_string),
        });
        let outcome = planner.run(&turn, &cancel.child(), &mut forward);
        forward(AgentEvent::SubagentFinished {
            status: match outcome.status {
                RunStatus::Success => "completed",
                RunStatus::Cancelled => "cancelled",
                _ => "failed",
            }
            .into(),
            steps: outcome.steps,
        });
        self.planner = Some(planner);
        let plan = match outcome.status {
            RunStatus::Success if outcome.cut_off() => Err("its answer was cut off".to_string()),
            RunStatus::Success if !outcome.result.trim().is_empty() => {
                Ok(outcome.result.trim().to_string())
            }
            RunStatus::Success => Err("its answer was empty".into()),
            RunStatus::MaxSteps => Err("it did not finish within its research budget".into()),
            _ => Err(outcome.result.clone()),
        };
        (plan, Some(outcome))
    }

    /// The plan is the turn's answer, kept in the session (the task, then the plan) so a
    /// later turn goes on from it; nothing ran.
    fn keep_plan(
        &mut self,
        task: &str,
        plan: String,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> RunOutcome {
        self.append(Message::text(Role::User, task), on_event);
        on_event(AgentEvent::TextDelta(plan.clone()));
        self.append(Message::text(Role::Assistant, plan.clone()), on_event);
        let mut outcome = self.not_executed(RunStatus::Success, plan);
        outcome.stop_reason = Some(FinishReason::Stop);
        outcome
    }

    /// The turn's outcome when the executor did not run.
    fn not_executed(&self, status: RunStatus, result: String) -> RunOutcome {
        RunOutcome {
            status,
            result,
            steps: 0,
            usage: Default::default(),
            cost: None,
            spend: Default::default(),
            session_id: self.session_id().map(str::to_string),
            stop_reason: None,
        }
    }

    /// Ask the user to approve the plan (the same question as plan mode's).
    fn approve_plan(&self, plan: &str) -> Approved {
        let Some(approver) = self.approver.clone() else {
            return Approved::NobodyToAsk;
        };
        match self.ask_plan_approval(approver.as_ref(), "planner", plan) {
            // As plan mode's question offers: approved once, it runs asking before changes;
            // approved for the session, in `auto`.
            Approval::Once => {
                self.posture.set(Posture::Ask);
                Approved::Yes
            }
            Approval::Session(_) | Approval::Persist(_) => {
                self.posture.set(Posture::Auto);
                Approved::Yes
            }
            Approval::Deny(note) => {
                Approved::No(note.map(|n| n.trim().to_string()).filter(|n| !n.is_empty()))
            }
        }
    }
}

enum Approved {
    Yes,
    No(Option<String>),
    NobodyToAsk,
}

/// The executor's turn: the user's task, then the plan (the turn's tail, never the prefix).
fn with_plan(task: &str, plan: &str) -> String {
    format!(
        "{task}\n\n<plan from=\"planner\">\n{plan}\n</plan>\nA planner that only read the workspace wrote this plan. Check its assumptions as you go, and carry it out."
    )
}
