//! What requests cost: each model request priced when it is made, with the model that served
//! it (a fallback or `/model` switch mid-session is priced at its own rates), and totals kept
//! per model and per currency for a run and for a whole session (`/status`, `/cost`,
//! `run --output-format json`), and the token totals they are priced from.

use crate::providers::ResolvedProvider;
use crate::types::Usage;
use serde::{Deserialize, Serialize};

/// Token totals of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct UsageTotals {
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_miss_tokens: u64,
    pub reasoning_tokens: u64,
    /// Model requests that reported usage.
    pub requests: u32,
}

impl UsageTotals {
    pub fn add(&mut self, usage: &Usage) {
        self.input_tokens += usage.prompt_tokens;
        self.output_tokens += usage.completion_tokens;
        self.cache_read_tokens += usage.cache_hit_tokens;
        self.cache_miss_tokens += usage.cache_miss_tokens;
        self.reasoning_tokens += usage.reasoning_tokens;
        self.requests += 1;
    }

    /// Add the totals of other requests.
    pub fn merge(&mut self, other: &UsageTotals) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_miss_tokens += other.cache_miss_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
        self.requests += other.requests;
    }
}

/// Money spent, when the provider's prices are configured (per 1M tokens).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub total: f64,
    /// An ISO 4217 code (`USD`, `CNY` …) when the configured currency names one.
    pub currency: String,
}

/// The price of one request's `usage` on `model` of `provider`; `None` without prices.
/// Cache-hit tokens are priced at `cache_hit` (else `input`); backends that report no cache
/// split count every prompt token as a miss.
pub fn price(provider: &ResolvedProvider, model: &str, usage: &Usage) -> Option<Cost> {
    let price = provider.price_for(model)?;
    let per_token = |per_million: f64| per_million / 1_000_000.0;
    let hit_price = price.cache_hit.unwrap_or(price.input);
    let (hit, miss) = if usage.cache_hit_tokens + usage.cache_miss_tokens == 0 {
        (0, usage.prompt_tokens)
    } else {
        (usage.cache_hit_tokens, usage.cache_miss_tokens)
    };
    let total = miss as f64 * per_token(price.input)
        + hit as f64 * per_token(hit_price)
        + usage.completion_tokens as f64 * per_token(price.output);
    let configured = price
        .currency
        .as_deref()
        .or(provider.billing_currency.as_deref())
        .unwrap_or("USD");
    Some(Cost {
        total,
        currency: currency_code(configured),
    })
}

/// The ISO 4217 code for a configured currency: `$`/`USD` → `USD`, `¥`/`CNY`/`RMB` → `CNY`,
/// `€` → `EUR`, any other three letters upper-cased; anything else as written.
pub fn currency_code(configured: &str) -> String {
    let text = configured.trim();
    match text.to_ascii_uppercase().as_str() {
        "$" | "US$" | "USD" => "USD".into(),
        "¥" | "￥" | "CNY" | "RMB" => "CNY".into(),
        "€" | "EUR" => "EUR".into(),
        upper if upper.len() == 3 && upper.chars().all(|c| c.is_ascii_uppercase()) => {
            upper.to_string()
        }
        _ => text.to_string(),
    }
}

/// What one model was used for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSpend {
    pub provider: String,
    pub model: String,
    pub usage: UsageTotals,
    /// The priced requests' total; `None` when no request of this model had prices.
    pub cost: Option<Cost>,
    /// Requests that had no price (their tokens are in `usage`, their cost nowhere).
    pub unpriced_requests: u32,
}

/// Usage and cost by model, in the order the models were first used.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Spend {
    pub models: Vec<ModelSpend>,
}

impl Spend {
    /// Count one request served by `provider`/`model`, priced `cost`.
    pub fn add(&mut self, provider: &str, model: &str, usage: &Usage, cost: Option<&Cost>) {
        let index = match self
            .models
            .iter()
            .position(|m| m.provider == provider && m.model == model)
        {
            Some(i) => i,
            None => {
                self.models.push(ModelSpend {
                    provider: provider.to_string(),
                    model: model.to_string(),
                    usage: UsageTotals::default(),
                    cost: None,
                    unpriced_requests: 0,
                });
                self.models.len() - 1
            }
        };
        let entry = &mut self.models[index];
        entry.usage.add(usage);
        match (cost, &mut entry.cost) {
            (None, _) => entry.unpriced_requests += 1,
            (Some(cost), Some(sum)) if sum.currency == cost.currency => sum.total += cost.total,
            // A model's prices changed currency between two requests (the config was edited
            // and the session resumed): the later currency is kept, the sum restarts.
            (Some(cost), sum) => *sum = Some(cost.clone()),
        }
    }

    /// Add everything `other` counted.
    pub fn extend(&mut self, other: &Spend) {
        for m in &other.models {
            let index = match self
                .models
                .iter()
                .position(|s| s.provider == m.provider && s.model == m.model)
            {
                Some(i) => i,
                None => {
                    self.models.push(m.clone());
                    continue;
                }
            };
            let entry = &mut self.models[index];
            entry.usage.merge(&m.usage);
            entry.unpriced_requests += m.unpriced_requests;
            match (&m.cost, &mut entry.cost) {
                (None, _) => {}
                (Some(c), Some(sum)) if sum.currency == c.currency => sum.total += c.total,
                (Some(c), sum) => *sum = Some(c.clone()),
            }
        }
    }

    /// Totals by currency, sorted by currency code.
    pub fn totals(&self) -> Vec<Cost> {
        let mut totals: Vec<Cost> = Vec::new();
        for cost in self.models.iter().filter_map(|m| m.cost.as_ref()) {
            match totals.iter_mut().find(|t| t.currency == cost.currency) {
                Some(t) => t.total += cost.total,
                None => totals.push(cost.clone()),
            }
        }
        totals.sort_by(|a, b| a.currency.cmp(&b.currency));
        totals
    }

    /// The one total when every priced request was in one currency; `None` without prices or
    /// with several currencies (see [`Spend::totals`]).
    pub fn single_total(&self) -> Option<Cost> {
        let mut totals = self.totals();
        (totals.len() == 1).then(|| totals.remove(0))
    }

    pub fn usage(&self) -> UsageTotals {
        let mut total = UsageTotals::default();
        for m in &self.models {
            total.merge(&m.usage);
        }
        total
    }

    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::settings::Price;

    fn provider(price: Option<Price>, billing: Option<&str>) -> ResolvedProvider {
        let text = r#"
[[providers]]
name = "p"
kind = "openai"
base_url = "http://127.0.0.1:1/v1"
models = ["m"]
"#;
        let config = crate::config::Config::parse(std::path::Path::new("/c.toml"), text).unwrap();
        let mut all = crate::providers::resolve_providers_with(&config, |_| None).unwrap();
        let mut p = all.remove(0);
        p.price = price;
        p.billing_currency = billing.map(str::to_string);
        p
    }

    fn usage(prompt: u64, hit: u64, miss: u64, out: u64) -> Usage {
        Usage {
            prompt_tokens: prompt,
            completion_tokens: out,
            cache_hit_tokens: hit,
            cache_miss_tokens: miss,
            reasoning_tokens: 0,
        }
    }

    fn rates(input: f64, output: f64, hit: Option<f64>, currency: Option<&str>) -> Price {
        Price {
            input,
            output,
            cache_hit: hit,
            currency: currency.map(str::to_string),
        }
    }

    #[test]
    fn cache_hits_are_priced_apart() {
        let p = provider(Some(rates(2.0, 8.0, Some(0.2), Some("CNY"))), None);
        let cost = price(&p, "m", &usage(1_000_000, 800_000, 200_000, 100_000)).unwrap();
        // 0.2 M miss at 2 + 0.8 M hit at 0.2 + 0.1 M out at 8.
        assert!((cost.total - (0.4 + 0.16 + 0.8)).abs() < 1e-9, "{cost:?}");
        assert_eq!(cost.currency, "CNY");
    }

    #[test]
    fn without_a_split_every_prompt_token_is_a_miss() {
        let p = provider(Some(rates(1.0, 0.0, Some(0.1), None)), None);
        let cost = price(&p, "m", &usage(1_000_000, 0, 0, 0)).unwrap();
        assert!((cost.total - 1.0).abs() < 1e-9);
        assert_eq!(cost.currency, "USD");
    }

    #[test]
    fn currencies_are_iso_codes() {
        for (configured, code) in [
            ("$", "USD"),
            ("usd", "USD"),
            ("¥", "CNY"),
            ("RMB", "CNY"),
            ("€", "EUR"),
            ("gbp", "GBP"),
            ("credits", "credits"),
        ] {
            assert_eq!(currency_code(configured), code, "{configured}");
            let p = provider(Some(rates(1.0, 1.0, None, None)), Some(configured));
            assert_eq!(price(&p, "m", &usage(1, 0, 0, 0)).unwrap().currency, code);
        }
        assert!(price(&provider(None, Some("USD")), "m", &usage(1, 0, 0, 0)).is_none());
    }

    #[test]
    fn spend_is_kept_per_model_and_per_currency() {
        let mut spend = Spend::default();
        let cny = Cost {
            total: 1.5,
            currency: "CNY".into(),
        };
        let usd = Cost {
            total: 0.25,
            currency: "USD".into(),
        };
        spend.add("deepseek", "v4", &usage(10, 5, 5, 1), Some(&cny));
        spend.add("deepseek", "v4", &usage(20, 15, 5, 2), Some(&cny));
        assert_eq!(spend.single_total().unwrap().total, 3.0);
        spend.add("openai", "gpt", &usage(30, 0, 30, 3), Some(&usd));
        spend.add("local", "llama", &usage(40, 0, 0, 4), None);
        assert_eq!(spend.models.len(), 3);
        assert_eq!(spend.models[0].usage.requests, 2);
        assert_eq!(spend.models[0].usage.cache_read_tokens, 20);
        assert_eq!(spend.models[2].unpriced_requests, 1);
        assert_eq!(
            spend.single_total(),
            None,
            "two currencies have no single total"
        );
        let totals = spend.totals();
        assert_eq!(totals.len(), 2);
        assert_eq!((totals[0].currency.as_str(), totals[0].total), ("CNY", 3.0));
        assert_eq!(
            (totals[1].currency.as_str(), totals[1].total),
            ("USD", 0.25)
        );
        assert_eq!(spend.usage().input_tokens, 100);

        let mut session = Spend::default();
        session.add("deepseek", "v4", &usage(1, 0, 1, 0), Some(&cny));
        session.extend(&spend);
        assert_eq!(session.models.len(), 3);
        assert_eq!(session.models[0].usage.requests, 3);
        assert_eq!(session.totals()[0].total, 4.5);
    }
}
