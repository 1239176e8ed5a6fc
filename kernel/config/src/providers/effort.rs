//! Which reasoning effort level a request carries: the user's choice after the config's
//! precedence. What a level means for a backend — and whether it is valid there — is the
//! provider component's business (`profile` checks it, `open` maps it; docs/PROVIDERS.md).

use super::resolve::ResolvedProvider;

/// The level for `model` on `provider`: `flag` (`--effort`) wins over the model's or provider's
/// `effort`, then `default_effort`. Trimmed and lowercase; `None` = `auto`, the backend's
/// default (an explicit `auto` anywhere in that chain stops it there).
pub fn chosen_effort(
    provider: &ResolvedProvider,
    model: &str,
    flag: Option<&str>,
) -> Option<String> {
    let norm = |s: &str| Some(s.trim().to_ascii_lowercase()).filter(|s| !s.is_empty());
    flag.and_then(norm)
        .or_else(|| provider.effort_for(model).as_deref().and_then(norm))
        .or_else(|| provider.default_effort_for(model).as_deref().and_then(norm))
        .filter(|level| level != "auto")
}
