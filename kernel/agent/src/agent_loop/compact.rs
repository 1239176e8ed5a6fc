//! When and how the agent compacts its history (docs/COMPACTION.md): checked before each model
//! request against the model's context window, in tiers — snip stale tool results, prune them,
//! then fold older assistant/tool work into a digest with a summary request (the session's own
//! client, no tools). Each compaction that changes something is one `compaction` record in the
//! transcript (originals archived first) and one [`AgentEvent::Compacted`].

use super::intercept::{Outcome as Intercepted, points};
use super::payloads::{CompactionComplete, CompactionPrepare, PayloadMessage};
use super::{Agent, AgentEvent};
use crate::cancel::CancelToken;
use crate::compaction::{self as tiers, Ratios, Tier};
use crate::completion::ChatRequest;
use crate::types::{Message, Role};
use std::collections::BTreeMap;

/// Whether the tiers are worth planning at `before` tokens when nothing was worth doing at
/// `quiet` tokens: the history shrank since, grew by a twentieth of the window, or reached
/// the next ratio (`compact_ratio`, `compact_force_ratio`) above `quiet`.
fn worth_planning(quiet: Option<u64>, before: u64, window: u64, ratios: Ratios) -> bool {
    let Some(quiet) = quiet else {
        return true;
    };
    let next_ratio = [ratios.compact, ratios.force]
        .map(|r| Ratios::at(r, window))
        .into_iter()
        .find(|&at| at > quiet);
    before < quiet || before >= quiet + window / 20 || next_ratio.is_some_and(|at| before >= at)
}

/// Tail budget for `/compact` when the model's window is unknown.
const MANUAL_TAIL_TOKENS: u64 = 8_000;
/// Where a compaction that reached the compact ratio aims: half the window, so the next one
/// is a long way off (docs/COMPACTION.md).
const TARGET_RATIO: f64 = 0.5;

/// The window assumed for a model whose window nobody stated (no preset, no
/// `context_window`): small enough that any model in use today holds it, so a long session is
/// compacted instead of growing until the provider refuses it.
pub const ASSUMED_WINDOW: u64 = 32_768;

/// What the agent tracks between requests to decide on a compaction.
#[derive(Debug, Clone, Default)]
pub(super) struct CompactionState {
    /// The notice about an assumed window was given (once per agent and model).
    assumed_noted: Option<String>,
    /// Tokens of the request that carried the first `.1` history messages: the provider's
    /// `prompt_tokens`, or an estimate made once (a resumed session, a compaction).
    counted: Option<(u64, usize)>,
    /// A summary failed (or was refused) at this many tokens: not tried again automatically
    /// before the context grows by another tenth of the window.
    failed_at: Option<u64>,
    /// Compactions of a run without a session file.
    unsaved: u32,
    /// Nothing was worth doing at this many tokens: the tiers are not planned again (a pass
    /// over the history) before the context grows by a twentieth of the window or reaches
    /// the next ratio, so a session that sits between two ratios does not pay a scan of its
    /// history on every request.
    quiet_at: Option<u64>,
}

impl CompactionState {
    /// The provider reported `prompt_tokens` for a request carrying `sent` history messages.
    pub(super) fn observe(&mut self, prompt_tokens: u64, sent: usize) {
        if prompt_tokens > 0 {
            self.counted = Some((prompt_tokens, sent));
        }
    }
}

/// The outcome of one compaction that changed the history.
struct Applied {
    tier: Tier,
    history: Vec<Message>,
    replaced: usize,
    head: Vec<Message>,
    archived: BTreeMap<usize, Message>,
    tokens_after: u64,
}

impl Agent {
    /// The model's context window in tokens ([`ASSUMED_WINDOW`] when nobody stated it);
    /// 0 = compaction disabled (`context_window = 0`).
    fn context_window(&self) -> u64 {
        self.client
            .provider()
            .context_window_for(self.client.model())
            .unwrap_or(ASSUMED_WINDOW)
    }

    /// Say once per model that its window is assumed.
    fn note_assumed_window(&mut self, on_event: &mut dyn FnMut(AgentEvent)) {
        let provider = self.client.provider();
        if provider.context_window_for(self.client.model()).is_some() {
            return;
        }
        let model = format!("{}/{}", provider.name, self.client.model());
        if self.compaction.assumed_noted.as_deref() == Some(model.as_str()) {
            return;
        }
        on_event(AgentEvent::Notice(format!(
            "the context window of `{model}` is not known: compacting as if it were {ASSUMED_WINDOW} tokens (set `context_window` for the provider or model, 0 to turn compaction off)"
        )));
        self.compaction.assumed_noted = Some(model);
    }

    /// Tokens the next request will carry: the last reported `prompt_tokens` plus an estimate
    /// of what was appended since (only the new messages are looked at).
    pub(super) fn context_tokens(&mut self) -> u64 {
        let (base, sent) = match self.compaction.counted {
            Some(counted) => counted,
            None => {
                let fixed = (self.config.system_prompt.len()
                    + self
                        .specs
                        .iter()
                        .map(|s| s.name.len() + s.description.len() + s.parameters.len())
                        .sum::<usize>()) as u64
                    / 4;
                let counted = (
                    fixed + tiers::estimate_all(&self.history),
                    self.history.len(),
                );
                self.compaction.counted = Some(counted);
                counted
            }
        };
        base + tiers::estimate_all(self.history.get(sent..).unwrap_or_default())
    }

    /// Before a model request: compact when the context reached the snip ratio.
    pub(super) fn compact_if_due(
        &mut self,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) {
        let window = self.context_window();
        if window == 0 {
            return;
        }
        let ratios = self.config.compaction;
        let before = self.context_tokens();
        if before < Ratios::at(ratios.snip, window) {
            return;
        }
        self.note_assumed_window(on_event);
        if !worth_planning(self.compaction.quiet_at, before, window, ratios) {
            return;
        }
        let summary_allowed = self
            .compaction
            .failed_at
            .is_none_or(|failed| before >= failed + window / 10);
        match self.plan(window, before, summary_allowed, false, "", cancel, on_event) {
            Some(applied) => {
                self.compaction.quiet_at = None;
                self.commit(applied, before, false, on_event);
            }
            None => self.compaction.quiet_at = Some(before),
        }
    }

    /// `/compact [focus]`: prune stale tool results and fold the older work into a digest now,
    /// whatever the thresholds say; `focus` goes into the summary instructions. Returns whether
    /// the history changed (a notice says why not).
    pub fn compact(
        &mut self,
        focus: &str,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> bool {
        let interceptors = self.interceptors.clone();
        let mut shown = |event: AgentEvent| super::frontend::show(&interceptors, event, on_event);
        let window = self.context_window();
        let before = self.context_tokens();
        let planned = self.plan(window, before, true, true, focus, cancel, &mut shown);
        // Outside a run: the summary request is in the session's spend already, and no run
        // is there to take it into its totals.
        self.compaction_spend = super::Spend::default();
        match planned {
            Some(applied) => {
                self.commit(applied, before, true, &mut shown);
                true
            }
            None => {
                shown(AgentEvent::Notice(
                    "nothing was compacted: the history has no older work to fold".into(),
                ));
                false
            }
        }
    }

    /// Run the tiers on a copy of the history; `None` when nothing changed.
    #[allow(clippy::too_many_arguments)]
    fn plan(
        &mut self,
        window: u64,
        before: u64,
        summary_allowed: bool,
        manual: bool,
        focus: &str,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Option<Applied> {
        let ratios = self.config.compaction;
        let budget_window = if window > 0 { window } else { u64::MAX };
        let compact_at = Ratios::at(ratios.compact, budget_window);
        // Once the compact ratio is reached, the tiers run until the history is under the
        // target: stopping just below the trigger would compact again next turn, and each
        // compaction changes the prefix (a cache miss).
        let target = Ratios::at(TARGET_RATIO, budget_window).min(compact_at);
        let due = before >= compact_at;
        let mut tail = if window > 0 {
            tiers::tail_start(&self.history, tiers::tail_budget(window))
        } else {
            tiers::tail_start(&self.history, MANUAL_TAIL_TOKENS)
        };
        if manual {
            // Asked for: everything before the latest user message may go.
            let last_user = self
                .history
                .iter()
                .rposition(|m| m.role == Role::User && !tiers::is_digest(m));
            tail = tail.max(last_user.unwrap_or(0));
        }
        let mut work = self.history.clone();
        let mut changed: Vec<usize> = Vec::new();
        let mut tier = None;
        let mut tokens = before;

        // Tier 1 (automatic only): shorten stale results, when that saves a tenth of the
        // window or the context is past the compact ratio anyway (small rewrites would only
        // cost cache hits: each one changes the prefix).
        if !manual {
            let saved = rewrite_saving(&mut work, tail, tiers::snip_result, &mut changed);
            if !changed.is_empty() && (tokens.saturating_sub(saved) <= target || due) {
                tokens = tokens.saturating_sub(saved);
                tier = Some(Tier::Snip);
            } else {
                work.clone_from(&self.history);
                changed.clear();
            }
        }
        // Tier 2: prune them to placeholders (errors are kept).
        if manual || (due && tokens >= target) {
            let before_prune = changed.len();
            let saved = rewrite_saving(&mut work, tail, tiers::prune_text, &mut changed);
            if changed.len() > before_prune {
                tokens = tokens.saturating_sub(saved);
                tier = Some(Tier::Prune);
            }
        }
        let mut replaced = changed.iter().max().map_or(0, |i| i + 1);
        let mut head = work[..replaced].to_vec();
        // Tier 3: the summary, when asked for or when prune left the history above the
        // target: then any fold is worth its request (stopping above the target would compact
        // again within a few turns).
        if (manual || (due && tokens >= target)) && summary_allowed {
            let plan = tiers::plan_fold(&work, tail, pin_budget(window));
            if !plan.folded.is_empty() {
                // The summary reads the originals (long results snipped), not the placeholders
                // pruning left: it is the last chance to keep what they said.
                let input: Vec<Message> = plan
                    .folded
                    .iter()
                    .map(|&i| {
                        let original = &self.history[i];
                        match tiers::snip_result(original) {
                            Some(content) if original.role == Role::Tool => Message {
                                content,
                                ..original.clone()
                            },
                            _ => original.clone(),
                        }
                    })
                    .collect();
                match self.summarise(input, focus, cancel, on_event) {
                    Ok(summary) => {
                        let number = self.next_compaction_number();
                        let new_head = tiers::folded_head(
                            &work,
                            &plan,
                            tiers::digest_message(number, &summary),
                        );
                        let after = tokens
                            .saturating_sub(tiers::estimate_all(&work[..plan.boundary]))
                            + tiers::estimate_all(&new_head);
                        if after < tokens && (manual || after < compact_at) {
                            tokens = after;
                            changed.extend(plan.folded.iter().copied());
                            replaced = plan.boundary;
                            head = new_head;
                            tier = Some(Tier::Summary);
                            self.compaction.failed_at = None;
                        } else {
                            on_event(AgentEvent::Notice(format!(
                                "compaction: the summary was not used: it leaves ~{after} tokens (from ~{tokens}; the compact threshold is {compact_at})"
                            )));
                            self.compaction.failed_at = Some(tokens);
                        }
                    }
                    Err(why) => {
                        on_event(AgentEvent::Notice(format!(
                            "compaction: no summary ({why}); the session goes on uncompacted"
                        )));
                        self.compaction.failed_at = Some(tokens);
                    }
                }
            }
        }
        let tier = tier?;
        let archived = changed
            .iter()
            .filter_map(|&i| Some((i, self.history.get(i)?.clone())))
            .collect();
        let mut history = head.clone();
        history.extend_from_slice(&work[replaced..]);
        Some(Applied {
            tier,
            history,
            replaced,
            head,
            archived,
            tokens_after: tokens,
        })
    }

    fn next_compaction_number(&self) -> u32 {
        match &self.session {
            Some(session) => session.compactions() + 1,
            None => self.compaction.unsaved + 1,
        }
    }

    /// The summary of the folded messages: `compaction.prepare`, one request without tools,
    /// `compaction.complete`.
    fn summarise(
        &mut self,
        mut folded: Vec<Message>,
        focus: &str,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<String, String> {
        let mut guidance = focus.trim().to_string();
        if self.interceptors.listens(points::COMPACTION_PREPARE) {
            let make = || CompactionPrepare {
                messages: folded.iter().map(PayloadMessage::from).collect(),
                guidance: guidance.clone(),
            };
            match self.interceptors.dispatch(
                points::COMPACTION_PREPARE,
                make,
                CompactionPrepare::validate,
            ) {
                Intercepted::Unchanged => {}
                Intercepted::Replaced(replaced) => {
                    folded = replaced.messages.into_iter().map(Message::from).collect();
                    guidance = replaced.guidance;
                }
                Intercepted::Blocked(stop) => {
                    return Err(format!(
                        "stopped at `compaction.prepare`: {}",
                        stop.describe()
                    ));
                }
            }
        }
        let request = ChatRequest {
            messages: vec![
                Message::text(Role::System, tiers::SUMMARY_INSTRUCTIONS),
                Message::text(Role::User, tiers::render_for_summary(&folded, &guidance)),
            ],
            tools: Vec::new(),
            effort: self.config.effort.clone(),
            max_output_tokens: self.config.max_output_tokens,
        };
        // Only retries and notices of the summary request are shown: its text is not an answer.
        let mut quiet = |event: AgentEvent| {
            if matches!(event, AgentEvent::Retry(_) | AgentEvent::Notice(_)) {
                on_event(event);
            }
        };
        let answer = self
            .complete(&request, cancel, &mut quiet)
            .map_err(|e| format!("the summary request failed: {e}"))?;
        if let Some(usage) = &answer.usage {
            // Priced and recorded like any request; the run in progress takes it into its
            // totals (`take_compaction_spend`).
            let mut spent = std::mem::take(&mut self.compaction_spend);
            self.count_spend(usage, &mut spent, on_event);
            self.compaction_spend = spent;
        }
        let mut summary = answer.message.content;
        if self.interceptors.listens(points::COMPACTION_COMPLETE) {
            let original = CompactionComplete {
                summary: summary.clone(),
            };
            match self.interceptors.dispatch(
                points::COMPACTION_COMPLETE,
                || original.clone(),
                CompactionComplete::validate,
            ) {
                Intercepted::Unchanged => {}
                Intercepted::Replaced(replaced) => summary = replaced.summary,
                Intercepted::Blocked(stop) => {
                    return Err(format!(
                        "stopped at `compaction.complete`: {}",
                        stop.describe()
                    ));
                }
            }
        }
        if summary.trim().is_empty() {
            return Err("the model answered with an empty summary".into());
        }
        Ok(summary)
    }

    /// Record the compaction (archive, then one transcript line), then take the new history.
    /// When the record cannot be written, the history stays as it was: memory and transcript
    /// must agree for a resumed session.
    fn commit(
        &mut self,
        applied: Applied,
        before: u64,
        manual: bool,
        on_event: &mut dyn FnMut(AgentEvent),
    ) {
        let originals: Vec<(usize, &Message)> =
            applied.archived.iter().map(|(i, m)| (*i, m)).collect();
        let number = match &mut self.session {
            Some(session) => match session.compaction(
                applied.tier.as_str(),
                applied.replaced,
                &applied.head,
                &originals,
            ) {
                Ok(number) => number,
                Err(e) => {
                    on_event(AgentEvent::Notice(format!(
                        "compaction not saved, the history is left as it was: {e}"
                    )));
                    return;
                }
            },
            None => {
                self.compaction.unsaved += 1;
                self.compaction.unsaved
            }
        };
        self.history = applied.history;
        self.compaction.counted = Some((applied.tokens_after, self.history.len()));
        on_event(AgentEvent::Compacted {
            tier: applied.tier,
            number,
            tokens_before: before,
            tokens_after: applied.tokens_after,
            manual,
        });
    }
}

/// Apply `rewrite` to the tool results before `end`, adding the changed indices to `changed`;
/// returns the tokens saved.
fn rewrite_saving(
    work: &mut [Message],
    end: usize,
    rewrite: impl Fn(&Message) -> Option<String>,
    changed: &mut Vec<usize>,
) -> u64 {
    let before: u64 = tiers::estimate_all(&work[..end]);
    for i in tiers::rewrite_results(work, end, &rewrite) {
        if !changed.contains(&i) {
            changed.push(i);
        }
    }
    before.saturating_sub(tiers::estimate_all(&work[..end]))
}

/// Tokens of user messages a summary keeps verbatim: 8,192, or a twentieth of a smaller window.
fn pin_budget(window: u64) -> u64 {
    if window == 0 {
        tiers::PIN_TOTAL_TOKENS
    } else {
        tiers::PIN_TOTAL_TOKENS.min(window / 20)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_history_is_planned_again_only_when_it_changed_enough() {
        let ratios = Ratios::default();
        let window = 100_000;
        assert!(worth_planning(None, 61_000, window, ratios));
        // Nothing to snip at 62K: not again at 63K, 66K …
        assert!(!worth_planning(Some(62_000), 63_000, window, ratios));
        assert!(!worth_planning(Some(62_000), 66_999, window, ratios));
        // … but after growing by a twentieth of the window,
        assert!(worth_planning(Some(62_000), 67_000, window, ratios));
        // at the prune ratio however little it grew,
        assert!(worth_planning(Some(79_500), 80_000, window, ratios));
        assert!(!worth_planning(Some(80_500), 81_000, window, ratios));
        // at the force ratio,
        assert!(worth_planning(Some(89_500), 90_000, window, ratios));
        // and after it shrank (a rewind).
        assert!(worth_planning(Some(62_000), 40_000, window, ratios));
    }
}
