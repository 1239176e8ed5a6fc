//! `/goal` in the interactive session: the agent works on an objective turn after turn until
//! it is met — the acceptance checks (`--check CMD`), which the host runs itself after every
//! turn, exit 0; with none, every task-list item is completed with evidence — or until the
//! turn budget is spent, the user pauses it, or a turn fails. The judging is the same as
//! `reasonix run --goal` (`reasonix_runtime::goal`).

use super::app::App;
use super::effect::{Effect, Effects};
use super::msg::Msg;
use super::text::safe_line;
use reasonix_agent::agent_loop::{RunOutcome, RunStatus};
use reasonix_core::cancel::CancelToken;
use reasonix_i18n::t;
use reasonix_runtime::goal::{self, Goal, Receipt};

/// A goal being pursued.
#[derive(Debug)]
pub struct Pursuit {
    pub goal: Goal,
    /// Turns that ended while it was active.
    pub turns: u32,
    /// Turns allowed so far (`/goal resume` after the budget gives another `max_turns`).
    pub allowed: u32,
    pub tokens: u64,
    /// Why it waits (`None`: it goes on by itself).
    pub paused: Option<String>,
    /// The latest checks.
    pub last: Vec<Receipt>,
    /// Checks are running; their result comes as [`Msg::GoalChecked`].
    pub checking: Option<CancelToken>,
}

/// What `/goal …` asks of the app.
#[derive(Debug)]
pub enum Control {
    Start(Goal),
    Pause,
    Resume,
    Clear,
}

/// `/goal`, `/goal <objective> [--check CMD]…`, `/goal status|pause|resume|clear`.
pub fn command(app: &App, args: &str) -> Effects {
    let mut out = Effects::default();
    match args {
        "" | "status" => match &app.goal {
            Some(pursuit) => out.commit(
                status_lines(pursuit)
                    .into_iter()
                    .map(|l| ratatui::text::Line::from(l).style(app.theme.plain())),
            ),
            None => out.notice(t!("goal-none")),
        },
        "pause" | "resume" | "clear" | "stop" if app.goal.is_none() => {
            out.error(t!("goal-not-pursued"))
        }
        "pause" => out.push(Effect::Goal(Control::Pause)),
        "resume" => out.push(Effect::Goal(Control::Resume)),
        "clear" | "stop" => out.push(Effect::Goal(Control::Clear)),
        _ if app.goal.is_some() => out.error(t!("goal-already")),
        text => match parse(text) {
            Ok(goal) => out.push(Effect::Goal(Control::Start(goal))),
            Err(why) => out.error(why),
        },
    }
    out
}

/// `<objective> [--check CMD]…`: each check runs to the next `--check`; quotes around one
/// are dropped.
pub fn parse(text: &str) -> Result<Goal, String> {
    let mut pieces = text.split("--check");
    let objective = pieces.next().unwrap_or_default().trim().to_string();
    if objective.is_empty() {
        return Err(t!("goal-needs-objective"));
    }
    let mut checks = Vec::new();
    for piece in pieces {
        let check = unquote(piece.trim());
        if check.is_empty() {
            return Err(t!("goal-check-needs-command"));
        }
        checks.push(check.to_string());
    }
    Ok(Goal {
        objective,
        checks,
        max_turns: goal::DEFAULT_MAX_TURNS,
        max_tokens: None,
    })
}

fn unquote(text: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = text
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner.trim();
        }
    }
    text
}

/// Columns of the label column of `/goal status`.
const LABEL_COLUMNS: usize = 10;

/// `label` padded to [`LABEL_COLUMNS`] by display width (a translated label may be wide),
/// then `value`.
fn field(label: &str, value: &str) -> String {
    let pad = LABEL_COLUMNS
        .saturating_sub(super::text::width(label))
        .max(1);
    format!("{label}{}{value}", " ".repeat(pad))
}

fn status_lines(pursuit: &Pursuit) -> Vec<String> {
    let goal = &pursuit.goal;
    let mut lines = vec![field(&t!("goal-label-goal"), &safe_line(&goal.objective))];
    if goal.checks.is_empty() {
        // `goal::CHECKLIST` ("task list") in the language of the screen.
        lines.push(field(&t!("goal-label-judged"), &t!("goal-checklist")));
    }
    for check in &goal.checks {
        lines.push(field(&t!("goal-label-check"), &safe_line(check)));
    }
    lines.push(field(
        &t!("goal-label-turns"),
        &t!(
            "goal-turns",
            turns = pursuit.turns,
            allowed = pursuit.allowed,
            tokens = pursuit.tokens
        ),
    ));
    let state = match (&pursuit.paused, &pursuit.checking) {
        (_, Some(_)) => t!("goal-state-checking"),
        (Some(why), None) => t!("goal-state-paused", why = why.as_str()),
        (None, None) => t!("goal-state-working"),
    };
    lines.push(field(&t!("goal-label-state"), &state));
    for receipt in &pursuit.last {
        lines.push(field(
            &t!("goal-label-last"),
            &safe_line(&receipt.describe()),
        ));
    }
    lines
}

/// The status line's piece: `goal 2/10`, `goal paused`.
pub fn status_piece(pursuit: &Pursuit) -> String {
    if pursuit.paused.is_some() {
        t!("goal-piece-paused")
    } else {
        t!(
            "goal-piece",
            turns = pursuit.turns,
            allowed = pursuit.allowed
        )
    }
}

impl App {
    pub(super) fn goal_control(&mut self, control: Control) {
        match control {
            Control::Start(goal) => {
                let prompt = goal.first_turn();
                let allowed = goal.max_turns;
                self.goal = Some(Pursuit {
                    goal,
                    turns: 0,
                    allowed,
                    tokens: 0,
                    paused: None,
                    last: Vec::new(),
                    checking: None,
                });
                self.set_strictness();
                self.notice(&t!("goal-set"));
                self.send_server_prompt(prompt);
            }
            Control::Pause => {
                if let Some(pursuit) = &mut self.goal {
                    pursuit.paused = Some(t!("goal-paused-by-command"));
                }
                self.notice(&t!("goal-paused"));
            }
            Control::Resume => {
                let Some(pursuit) = &mut self.goal else {
                    return;
                };
                pursuit.paused = None;
                if pursuit.turns >= pursuit.allowed {
                    pursuit.allowed = pursuit.turns + pursuit.goal.max_turns;
                }
                let next = (self.turn.is_none() && pursuit.checking.is_none()).then(|| {
                    if pursuit.turns == 0 {
                        pursuit.goal.first_turn()
                    } else {
                        Goal::next_turn(&pursuit.last)
                    }
                });
                self.notice(&t!("goal-resumed"));
                if let Some(prompt) = next {
                    self.send_server_prompt(prompt);
                }
            }
            Control::Clear => {
                if let Some(cancel) = self.goal.take().and_then(|p| p.checking) {
                    cancel.cancel();
                }
                self.set_strictness();
                self.notice(&t!("goal-cleared"));
            }
        }
    }

    /// How steps are judged now: the mode's rule, and receipts while a goal is pursued.
    pub(super) fn set_strictness(&self) {
        let strictness = self.actions.mode.strictness(self.goal.is_some());
        self.session.evidence().0.set_strictness(strictness);
    }

    /// A turn ended: count it and judge the goal, unless it waits.
    pub(super) fn goal_turn_done(&mut self, outcome: &RunOutcome) {
        let Some(pursuit) = &mut self.goal else {
            return;
        };
        pursuit.turns += 1;
        pursuit.tokens += outcome.usage.input_tokens + outcome.usage.output_tokens;
        let stopped = match outcome.status {
            RunStatus::Success | RunStatus::MaxSteps => None,
            RunStatus::Cancelled => Some(t!("goal-turn-cancelled")),
            RunStatus::Error | RunStatus::TimedOut | RunStatus::BudgetExceeded => {
                Some(t!("goal-turn-failed", result = outcome.result.as_str()))
            }
        };
        if let Some(why) = stopped {
            pursuit.paused = Some(why.clone());
            return self.notice(&t!("goal-paused-why", why = why));
        }
        if pursuit.paused.is_some() || pursuit.checking.is_some() {
            return;
        }
        let shell = self
            .actions
            .catalog
            .tools()
            .into_iter()
            .find(|t| t.spec().name == goal::SHELL_TOOL);
        if shell.is_none() && !pursuit.goal.checks.is_empty() {
            pursuit.paused = Some(t!("goal-tool-missing", tool = goal::SHELL_TOOL));
            return self.error(&t!("goal-paused-tool-missing", tool = goal::SHELL_TOOL));
        }
        let cancel = CancelToken::new();
        pursuit.checking = Some(cancel.clone());
        let goal = pursuit.goal.clone();
        let workspace = self.actions.workspace.clone();
        let ledger = self.session.evidence().clone();
        let to_ui = self.actions.to_ui.clone();
        let spawned = std::thread::Builder::new()
            .name("reasonix-goal".into())
            .spawn(move || {
                let receipts = goal.check(shell.as_ref(), &workspace, &cancel, &ledger.0);
                let _ = to_ui.send(Msg::GoalChecked(receipts));
            });
        if let Err(e) = spawned {
            if let Some(pursuit) = &mut self.goal {
                pursuit.checking = None;
                pursuit.paused = Some(t!("goal-checks-not-started"));
            }
            self.error(&t!("goal-paused-checks-failed", error = e.to_string()));
        }
    }

    /// The checks after a turn came back: met, out of budget, or the next turn.
    pub(super) fn goal_checked(&mut self, receipts: Vec<Receipt>) {
        let Some(pursuit) = &mut self.goal else {
            return;
        };
        pursuit.checking = None;
        pursuit.last = receipts;
        let lines: Vec<String> = pursuit
            .last
            .iter()
            .map(|r| t!("goal-check-line", receipt = r.describe()))
            .collect();
        let met = pursuit.last.iter().all(Receipt::passed);
        let turns = pursuit.turns;
        let spent = turns >= pursuit.allowed;
        let paused = pursuit.paused.is_some();
        let next = Goal::next_turn(&pursuit.last);
        for line in lines {
            self.notice(&line);
        }
        if met {
            self.goal = None;
            self.set_strictness();
            return self.notice(&t!("goal-met", turns = turns));
        }
        if spent {
            if let Some(pursuit) = &mut self.goal {
                pursuit.paused = Some(t!("goal-budget-spent"));
            }
            return self.error(&t!(
                "goal-not-met",
                turns = turns,
                more = goal::DEFAULT_MAX_TURNS
            ));
        }
        if !paused {
            self.send_server_prompt(next);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_objective_takes_its_checks() {
        let goal = parse("make the tests pass --check \"cargo test\" --check 'make lint'").unwrap();
        assert_eq!(goal.objective, "make the tests pass");
        assert_eq!(goal.checks, vec!["cargo test", "make lint"]);
        let goal = parse("tidy the docs").unwrap();
        assert!(goal.checks.is_empty());
        assert!(parse("--check x").unwrap_err().contains("objective"));
        assert!(parse("x --check ").unwrap_err().contains("needs a command"));
    }
}
