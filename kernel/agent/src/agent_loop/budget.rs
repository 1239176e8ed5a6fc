//! A spending limit in dollars (`reasonix run --max-budget-usd`): checked before each model
//! request against what the whole session has spent, so a run stops making requests once the
//! spend reaches it. Only dollar-priced requests count; a front end refuses the limit up front
//! when the model is not priced in dollars (it could never be reached).

use super::cost::{self, Spend};
use crate::providers::ResolvedProvider;
use crate::types::Usage;

/// The most a session may spend, in US dollars.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    pub usd: f64,
}

impl Budget {
    /// What `spend` holds in dollars (requests priced in other currencies or unpriced are not
    /// in it).
    pub fn spent_usd(spend: &Spend) -> f64 {
        spend
            .totals()
            .iter()
            .filter(|c| c.currency == "USD")
            .map(|c| c.total)
            .sum()
    }

    /// The run's result when `spend` has reached the budget, else `None`.
    pub fn reached(&self, spend: &Spend) -> Option<String> {
        let spent = Budget::spent_usd(spend);
        (spent >= self.usd).then(|| {
            format!(
                "the session has spent {spent:.4} USD, which reaches the budget of {} USD \
                 (--max-budget-usd): no further model request was made",
                self.usd
            )
        })
    }
}

/// Why `model` of `provider` cannot be held to a dollar budget (no price, or a price in another
/// currency), or `None` when its requests are priced in dollars.
pub fn not_in_dollars(provider: &ResolvedProvider, model: &str) -> Option<String> {
    let probe = Usage {
        prompt_tokens: 1,
        completion_tokens: 1,
        ..Usage::default()
    };
    match cost::price(provider, model, &probe) {
        None => Some(format!(
            "`{}/{model}` has no price configured, so its spend is unknown",
            provider.name
        )),
        Some(c) if c.currency != "USD" => Some(format!(
            "`{}/{model}` is priced in {}, not in US dollars",
            provider.name, c.currency
        )),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_loop::Cost;
    use crate::types::Usage;

    #[test]
    fn only_dollars_count_toward_the_budget() {
        let usage = Usage::default();
        let mut spend = Spend::default();
        let cost = |total: f64, currency: &str| Cost {
            total,
            currency: currency.into(),
        };
        spend.add("a", "m", &usage, Some(&cost(5.0, "CNY")));
        let budget = Budget { usd: 0.01 };
        assert_eq!(budget.reached(&spend), None);
        spend.add("b", "m", &usage, Some(&cost(0.004, "USD")));
        assert_eq!(budget.reached(&spend), None);
        spend.add("b", "m", &usage, Some(&cost(0.006, "USD")));
        let result = budget.reached(&spend).unwrap();
        assert!(result.contains("0.0100 USD"), "{result}");
        assert!(result.contains("budget of 0.01 USD"), "{result}");
    }
}
