//! The result object: the whole `json` output and the last line of both `stream-json`
//! formats. Built from the turn's outcome (its spend by model, stop reason and denials), not
//! from one event.

use reasonix_agent::agent_loop::{ModelSpend, RunOutcome, RunStatus, UsageTotals};
use reasonix_core::types::FinishReason;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Token counts with Anthropic's meaning, as Claude Code–style consumers expect:
/// `input_tokens` are the prompt tokens NOT read from the cache; the whole prompt is
/// `input_tokens + cache_read_input_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PublicUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    /// Always 0: no supported backend bills cache writes separately in what it reports.
    pub cache_creation_input_tokens: u64,
    /// Part of `output_tokens`.
    pub reasoning_tokens: u64,
}

impl PublicUsage {
    pub(super) fn of_request(u: &reasonix_protocol::Usage) -> PublicUsage {
        PublicUsage {
            input_tokens: u.prompt_tokens.saturating_sub(u.cache_hit_tokens),
            output_tokens: u.completion_tokens,
            cache_read_input_tokens: u.cache_hit_tokens,
            cache_creation_input_tokens: 0,
            reasoning_tokens: u.reasoning_tokens,
        }
    }

    fn of_run(u: &UsageTotals) -> PublicUsage {
        PublicUsage {
            input_tokens: u.input_tokens.saturating_sub(u.cache_read_tokens),
            output_tokens: u.output_tokens,
            cache_read_input_tokens: u.cache_read_tokens,
            cache_creation_input_tokens: 0,
            reasoning_tokens: u.reasoning_tokens,
        }
    }
}

/// The result object: the whole `json` output and the last `stream-json` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultObject {
    /// `success`, `error_max_turns`, `error_during_execution` or `cancelled`.
    pub subtype: &'static str,
    pub is_error: bool,
    pub duration_ms: u64,
    /// Model requests made in this run.
    pub num_turns: u32,
    /// The final answer, or what went wrong.
    pub result: String,
    pub session_id: Option<String>,
    pub usage: PublicUsage,
    /// The cost in US dollars (Claude Code's field, always a number: consumers format it).
    /// `0` when there is no price in dollars, with `total_cost_usd_unpriced`.
    pub total_cost_usd: f64,
    /// `total_cost_usd` is not a cost: no price, or prices in another currency.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub total_cost_usd_unpriced: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<f64>,
    /// ISO 4217 code of `total_cost` (`USD`, `CNY` …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// Why the model stopped its final answer: `stop`, `length` (the output limit),
    /// `content_filter`, `tool_calls`, `other`; `null` when the run ended without one.
    pub stop_reason: Option<&'static str>,
    /// Tool calls refused before running, in order.
    pub permission_denials: Vec<PermissionDenial>,
    /// Usage and cost by model (`provider/model`), in Claude Code's `modelUsage` shape plus
    /// `cost`/`currency` for any currency.
    #[serde(rename = "modelUsage")]
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// `--json-schema`: the final answer as the validated JSON value (Claude Code's field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
}

/// How a `--json-schema` run's final answer came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Structured {
    /// It validated: this value.
    Valid(Value),
    /// It still did not validate after the corrections: why.
    Invalid(String),
}

/// The result subtype of a `--json-schema` run whose answer never validated (Claude Code's).
pub const STRUCTURED_FAILED: &str = "error_max_structured_output_retries";

/// One model's share of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub requests: u32,
    #[serde(rename = "costUSD", skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
}

impl ModelUsage {
    fn of(spend: &ModelSpend) -> ModelUsage {
        let usage = PublicUsage::of_run(&spend.usage);
        let currency = spend.cost.as_ref().map(|c| currency_code(&c.currency));
        let cost = spend.cost.as_ref().map(|c| c.total);
        ModelUsage {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            cache_creation_input_tokens: 0,
            requests: spend.usage.requests,
            cost_usd: cost.filter(|_| currency.as_deref() == Some("USD")),
            cost,
            currency,
        }
    }
}

/// One refused tool call, as Claude Code names its fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PermissionDenial {
    pub tool_name: String,
    pub tool_use_id: String,
    /// The arguments parsed as JSON; the raw text when they are not valid JSON.
    pub tool_input: Value,
    /// The refusal, as the model received it.
    pub reason: String,
}

pub use reasonix_agent::agent_loop::cost::currency_code;

impl ResultObject {
    pub fn new(
        outcome: &RunOutcome,
        duration_ms: u64,
        permission_denials: Vec<PermissionDenial>,
    ) -> ResultObject {
        let currency = outcome.cost.as_ref().map(|c| currency_code(&c.currency));
        let total_cost = outcome.cost.as_ref().map(|c| c.total);
        let usd = total_cost.filter(|_| currency.as_deref() == Some("USD"));
        ResultObject {
            subtype: subtype(&outcome.status),
            // A cut-off answer is an error unless `[agent] accept_cut_off_answer` (see
            // `Printer::accept_cut_off`).
            is_error: outcome.status != RunStatus::Success || outcome.cut_off(),
            duration_ms,
            num_turns: outcome.steps,
            result: outcome.result.clone(),
            session_id: outcome.session_id.clone(),
            usage: PublicUsage::of_run(&outcome.usage),
            total_cost_usd: usd.unwrap_or(0.0),
            total_cost_usd_unpriced: usd.is_none(),
            total_cost,
            currency,
            stop_reason: outcome.stop_reason.map(stop_reason),
            permission_denials,
            model_usage: outcome
                .spend
                .models
                .iter()
                .map(|m| (format!("{}/{}", m.provider, m.model), ModelUsage::of(m)))
                .collect(),
            structured_output: None,
        }
    }
}

/// The result object's `stop_reason`: the wire-neutral finish reason, snake_case.
pub fn stop_reason(finish: FinishReason) -> &'static str {
    match finish {
        FinishReason::Stop => "stop",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::Length => "length",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Other => "other",
    }
}

pub fn subtype(status: &RunStatus) -> &'static str {
    match status {
        RunStatus::Success => "success",
        RunStatus::MaxSteps => "error_max_turns",
        RunStatus::Error => "error_during_execution",
        RunStatus::Cancelled => "cancelled",
        RunStatus::TimedOut => "error_timeout",
        RunStatus::BudgetExceeded => "error_max_budget_usd",
    }
}

/// `3 turns · 1200 in + 800 cached · 56 out · 0.0012 USD · session <id>`.
pub(super) fn summary(r: &ResultObject) -> String {
    let mut parts = vec![format!(
        "{} turn{}",
        r.num_turns,
        if r.num_turns == 1 { "" } else { "s" }
    )];
    parts.push(format!(
        "{} in + {} cached · {} out tokens",
        r.usage.input_tokens, r.usage.cache_read_input_tokens, r.usage.output_tokens
    ));
    if let (Some(cost), Some(currency)) = (r.total_cost, &r.currency) {
        parts.push(format!("{cost:.4} {currency}"));
    }
    if let Some(id) = &r.session_id {
        parts.push(format!("session {id}"));
    }
    format!("[{}]", parts.join(" · "))
}
