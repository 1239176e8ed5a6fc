//! The interception points and the replacement slots, shared by both extension tiers
//! (components and sidecars), so a name means the same thing wherever it is declared.
//!
//! A slot is a strategy with exactly one owner across every loaded plugin: the owner runs after
//! every ordinary interceptor at the slot's points and has the final say. Two plugins claiming
//! one slot is a load error naming both.

use std::fmt;

/// Every interception point, in the order a turn meets them.
pub const POINTS: [&str; 17] = [
    "input.receive",
    "agent.before_start",
    "system_prompt.build",
    "context.prepare",
    "provider.request",
    "provider.response",
    "tool.before",
    "tool.after",
    "permission.decision",
    "compaction.prepare",
    "compaction.complete",
    "session.start",
    "session.end",
    "session.load",
    "session.save",
    "session.rotate",
    "frontend.event",
];

/// Whether `point` is one of the [`POINTS`].
pub fn is_point(point: &str) -> bool {
    POINTS.contains(&point)
}

/// A replacement slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    SystemPrompt,
    Context,
    ProviderRequest,
    ProviderResponse,
    Compaction,
    SessionPolicy,
    Permission,
    FrontendEvents,
    /// The final say over one tool's calls (`tool.before` / `tool.after` for that tool).
    Tool(String),
    /// The final say over one provider's requests and answers.
    Provider(String),
}

/// A slot name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a replacement slot (known: system_prompt, context, provider_request, provider_response, compaction, session_policy, permission, frontend_events, tool:<name>, provider:<ref>)"
)]
pub struct UnknownSlot(pub String);

impl Slot {
    pub fn parse(text: &str) -> Result<Slot, UnknownSlot> {
        let named = |rest: &str| {
            !rest.is_empty()
                && rest.len() <= 128
                && rest
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
        };
        Ok(match text {
            "system_prompt" => Slot::SystemPrompt,
            "context" => Slot::Context,
            "provider_request" => Slot::ProviderRequest,
            "provider_response" => Slot::ProviderResponse,
            "compaction" => Slot::Compaction,
            "session_policy" => Slot::SessionPolicy,
            "permission" => Slot::Permission,
            "frontend_events" => Slot::FrontendEvents,
            _ => match text.split_once(':') {
                Some(("tool", name)) if named(name) => Slot::Tool(name.to_string()),
                Some(("provider", name)) if named(name) => Slot::Provider(name.to_string()),
                _ => return Err(UnknownSlot(crate::terminal::shown(text).to_string())),
            },
        })
    }

    /// The slot whose owner has the final say at `point` for a payload about `subject` (the
    /// tool name at tool points, the provider name at provider points).
    pub fn at(point: &str, subject: Option<&str>) -> Option<Slot> {
        Some(match point {
            "system_prompt.build" => Slot::SystemPrompt,
            "context.prepare" => Slot::Context,
            "provider.request" => Slot::ProviderRequest,
            "provider.response" => Slot::ProviderResponse,
            "compaction.prepare" | "compaction.complete" => Slot::Compaction,
            "session.start" | "session.end" | "session.load" | "session.save"
            | "session.rotate" => Slot::SessionPolicy,
            "permission.decision" => Slot::Permission,
            "frontend.event" => Slot::FrontendEvents,
            "tool.before" | "tool.after" => Slot::Tool(subject?.to_string()),
            _ => return None,
        })
    }

    /// The per-subject slot at a provider point (besides [`Slot::ProviderRequest`] /
    /// [`Slot::ProviderResponse`]), for a request to `provider`.
    pub fn provider_subject(point: &str, provider: &str) -> Option<Slot> {
        matches!(point, "provider.request" | "provider.response")
            .then(|| Slot::Provider(provider.to_string()))
    }
}

/// Two plugins claiming one slot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "slot `{slot}` is claimed by both `{first}` and `{second}`: a slot has one owner; disable one of them ([plugin.<name>] enabled = false)"
)]
pub struct SlotClash {
    pub slot: String,
    pub first: String,
    pub second: String,
}

/// Check that no slot has two owners among `owners` (plugin name, its slots), and return the
/// owner of each slot.
pub fn owners<'a>(
    owners: impl IntoIterator<Item = (&'a str, &'a [String])>,
) -> Result<std::collections::HashMap<Slot, String>, SlotClash> {
    let mut by_slot: std::collections::HashMap<Slot, String> = std::collections::HashMap::new();
    for (plugin, slots) in owners {
        for name in slots {
            // Unparsable names were refused when the plugin was described.
            let Ok(slot) = Slot::parse(name) else {
                continue;
            };
            if let Some(first) = by_slot.get(&slot) {
                if first != plugin {
                    let (first, second) = if first.as_str() <= plugin {
                        (first.clone(), plugin.to_string())
                    } else {
                        (plugin.to_string(), first.clone())
                    };
                    return Err(SlotClash {
                        slot: slot.to_string(),
                        first,
                        second,
                    });
                }
                continue;
            }
            by_slot.insert(slot, plugin.to_string());
        }
    }
    Ok(by_slot)
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::SystemPrompt => f.write_str("system_prompt"),
            Slot::Context => f.write_str("context"),
            Slot::ProviderRequest => f.write_str("provider_request"),
            Slot::ProviderResponse => f.write_str("provider_response"),
            Slot::Compaction => f.write_str("compaction"),
            Slot::SessionPolicy => f.write_str("session_policy"),
            Slot::Permission => f.write_str("permission"),
            Slot::FrontendEvents => f.write_str("frontend_events"),
            Slot::Tool(name) => write!(f, "tool:{name}"),
            Slot::Provider(name) => write!(f, "provider:{name}"),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_fixed_slot_round_trips_and_has_a_point() {
        for name in [
            "system_prompt",
            "context",
            "provider_request",
            "provider_response",
            "compaction",
            "session_policy",
            "permission",
            "frontend_events",
            "tool:bash",
            "provider:deepseek",
        ] {
            let slot = Slot::parse(name).unwrap();
            assert_eq!(slot.to_string(), name);
        }
        let covered: Vec<_> = POINTS
            .iter()
            .filter_map(|p| Slot::at(p, Some("x")))
            .collect();
        // Only the two points with no strategy behind them lack a slot.
        assert_eq!(covered.len(), POINTS.len() - 2);
        assert!(Slot::at("input.receive", None).is_none());
        assert!(Slot::at("agent.before_start", None).is_none());
    }

    #[test]
    fn malformed_slots_are_refused_with_the_known_list() {
        for bad in [
            "",
            "tool:",
            "tool",
            "prompt",
            "tool:a b",
            "provider:\u{1b}[2J",
            "x:y",
        ] {
            let err = Slot::parse(bad).unwrap_err().to_string();
            assert!(err.contains("known: system_prompt"), "{err}");
            assert!(!err.contains('\u{1b}'));
        }
    }

    #[test]
    fn a_slot_with_two_owners_names_both() {
        let a = vec!["system_prompt".to_string(), "tool:bash".to_string()];
        let b = vec!["tool:bash".to_string()];
        let err = owners([("zeta", a.as_slice()), ("alpha", b.as_slice())]).unwrap_err();
        assert_eq!((err.first.as_str(), err.second.as_str()), ("alpha", "zeta"));
        assert!(
            err.to_string()
                .contains("slot `tool:bash` is claimed by both `alpha` and `zeta`")
        );
        let ok = owners([("zeta", a.as_slice())]).unwrap();
        assert_eq!(
            ok.get(&Slot::SystemPrompt).map(String::as_str),
            Some("zeta")
        );
    }

    proptest! {
        #[test]
        fn parse_never_panics_and_accepts_only_what_it_prints(text in ".{0,40}") {
            if let Ok(slot) = Slot::parse(&text) {
                prop_assert_eq!(slot.to_string(), text);
            }
        }
    }
}
