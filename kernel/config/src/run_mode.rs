//! Run modes (`--mode`, `/mode`, `[agent] mode`): presets over the effort level, the
//! sub-agent limits and how strictly steps are verified (`docs/RUN.md`, "Run modes").

use reasonix_core::evidence::Strictness;
use serde::{Deserialize, Deserializer};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RunMode {
    /// Fewer tokens: a low effort level, one level of sub-agents, two at a time, one writer.
    Economy,
    /// The configuration as written.
    #[default]
    Balanced,
    /// Quality first: a high effort level, and every task-list item done only with a passing
    /// check run after the last change.
    Delivery,
}

/// The names, in order.
pub const NAMES: &[&str] = &["economy", "balanced", "delivery"];

impl RunMode {
    pub fn name(self) -> &'static str {
        match self {
            RunMode::Economy => "economy",
            RunMode::Balanced => "balanced",
            RunMode::Delivery => "delivery",
        }
    }

    /// The effort level the mode asks for when neither the command line nor the provider
    /// entry names one (used only when the model offers that level).
    pub fn effort(self) -> Option<&'static str> {
        match self {
            RunMode::Economy => Some("low"),
            RunMode::Balanced => None,
            RunMode::Delivery => Some("high"),
        }
    }

    /// `(depth, concurrency, writers)` of sub-agents under the mode, never above what the
    /// configuration allows.
    pub fn subagent_limits(self, configured: (u32, u32, u32)) -> (u32, u32, u32) {
        let (depth, concurrency, writers) = configured;
        match self {
            RunMode::Economy => (depth.min(1), concurrency.min(2), writers.min(1)),
            RunMode::Balanced | RunMode::Delivery => configured,
        }
    }

    /// How steps are judged; a goal always asks for receipts.
    pub fn strictness(self, goal: bool) -> Strictness {
        Strictness {
            steps_need_receipts: goal || self == RunMode::Delivery,
            fresh_verification: self == RunMode::Delivery,
        }
    }
}

impl fmt::Display for RunMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Not one of [`NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown run mode `{0}`: use economy, balanced or delivery")]
pub struct UnknownMode(pub String);

impl FromStr for RunMode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<RunMode, UnknownMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "economy" => Ok(RunMode::Economy),
            "balanced" => Ok(RunMode::Balanced),
            "delivery" => Ok(RunMode::Delivery),
            _ => Err(UnknownMode(s.to_string())),
        }
    }
}

/// `[agent] mode` in a file.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RunMode>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        Some(s) => s.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn economy_only_lowers_the_configured_limits() {
        assert_eq!(RunMode::Economy.subagent_limits((2, 6, 3)), (1, 2, 1));
        assert_eq!(RunMode::Economy.subagent_limits((1, 1, 1)), (1, 1, 1));
        assert_eq!(RunMode::Delivery.subagent_limits((3, 8, 4)), (3, 8, 4));
    }

    #[test]
    fn delivery_and_goals_need_receipts() {
        assert!(!RunMode::Balanced.strictness(false).steps_need_receipts);
        assert!(RunMode::Balanced.strictness(true).steps_need_receipts);
        assert!(!RunMode::Balanced.strictness(true).fresh_verification);
        assert!(RunMode::Delivery.strictness(false).fresh_verification);
        assert!(RunMode::Economy.strictness(true).steps_need_receipts);
    }

    #[test]
    fn names_parse_back() {
        for name in NAMES {
            assert_eq!(name.parse::<RunMode>().map(RunMode::name), Ok(*name));
        }
        assert!(
            "fast"
                .parse::<RunMode>()
                .unwrap_err()
                .to_string()
                .contains("economy, balanced or delivery")
        );
    }
}
