//! The `[agent]` compaction ratios: `tool_result_snip_ratio`, `compact_ratio`,
//! `compact_force_ratio` — fractions of the model's context window (docs/COMPACTION.md).

use super::{AgentFile, AgentSettings};
use serde::{Deserialize, Deserializer};

/// The `[agent]` ratios, as fractions of the context window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratios {
    /// `tool_result_snip_ratio`: stale tool results are shortened from here on.
    pub snip: f64,
    /// `compact_ratio`: stale tool results are pruned, then a summary folds older work.
    pub compact: f64,
    /// `compact_force_ratio`: the fold runs even when it would save little.
    pub force: f64,
}

impl Default for Ratios {
    fn default() -> Ratios {
        Ratios {
            snip: 0.6,
            compact: 0.8,
            force: 0.9,
        }
    }
}

impl Ratios {
    /// Tokens at which `ratio` of `window` is reached.
    pub fn at(ratio: f64, window: u64) -> u64 {
        (window as f64 * ratio).floor() as u64
    }
}

/// A ratio must lie in (0, 1]: beyond the window a request fails anyway.
pub(super) fn ratio<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let value = Option::<f64>::deserialize(d)?;
    match value {
        Some(r) if !r.is_finite() || r <= 0.0 || r > 1.0 => Err(serde::de::Error::custom(format!(
            "a compaction ratio is a fraction of the context window, more than 0 and at most 1 (e.g. 0.8), not {r}"
        ))),
        _ => Ok(value),
    }
}

/// Key by key, the later file wins.
pub(super) fn merge(settings: &mut AgentSettings, file: &AgentFile) {
    if file.tool_result_snip_ratio.is_some() {
        settings.tool_result_snip_ratio = file.tool_result_snip_ratio;
    }
    if file.compact_ratio.is_some() {
        settings.compact_ratio = file.compact_ratio;
    }
    if file.compact_force_ratio.is_some() {
        settings.compact_force_ratio = file.compact_force_ratio;
    }
}

impl AgentSettings {
    /// The ratios in effect (defaults 0.6 / 0.8 / 0.9); they must not decrease from snip to
    /// compact to force.
    pub fn compaction_ratios(&self) -> Result<Ratios, String> {
        let defaults = Ratios::default();
        let ratios = Ratios {
            snip: self.tool_result_snip_ratio.unwrap_or(defaults.snip),
            compact: self.compact_ratio.unwrap_or(defaults.compact),
            force: self.compact_force_ratio.unwrap_or(defaults.force),
        };
        if ratios.snip > ratios.compact || ratios.compact > ratios.force {
            return Err(format!(
                "[agent]: the compaction ratios must not decrease: tool_result_snip_ratio ({}) ≤ compact_ratio ({}) ≤ compact_force_ratio ({})",
                ratios.snip, ratios.compact, ratios.force
            ));
        }
        Ok(ratios)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Config;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(std::path::Path::new("reasonix.toml"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn ratios_default_read_and_check_their_order() {
        let cfg = parse("").unwrap();
        let r = cfg.agent.compaction_ratios().unwrap();
        assert_eq!((r.snip, r.compact, r.force), (0.6, 0.8, 0.9));
        let cfg = parse("[agent]\ntool_result_snip_ratio = 0.5\ncompact_ratio = 0.7\n").unwrap();
        let r = cfg.agent.compaction_ratios().unwrap();
        assert_eq!((r.snip, r.compact, r.force), (0.5, 0.7, 0.9));
        let cfg = parse("[agent]\ncompact_ratio = 0.95\n").unwrap();
        let err = cfg.agent.compaction_ratios().unwrap_err();
        assert!(
            err.contains("compact_ratio (0.95) ≤ compact_force_ratio (0.9)"),
            "{err}"
        );
        assert!(cfg.warnings().is_empty(), "{:?}", cfg.warnings());
    }

    #[test]
    fn a_ratio_out_of_range_names_the_key_and_line() {
        let err = parse("[agent]\n\ncompact_ratio = 1.5\n").unwrap_err();
        assert!(
            err.contains("line 3") && err.contains("compact_ratio"),
            "{err}"
        );
        assert!(err.contains("at most 1"), "{err}");
        assert!(parse("[agent]\ntool_result_snip_ratio = 0\n").is_err());
    }
}
