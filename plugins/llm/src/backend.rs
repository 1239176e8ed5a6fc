//! What this component knows about the backends behind its kinds, and the kernel does not: which
//! reasoning protocol an endpoint speaks (configured, or detected from the base URL's host and
//! the model), which effort levels each backend accepts and how a level maps onto its wire fields,
//! and the default stall timeout of each kind. `profile` reports it; `open` applies it.
//!
//! | protocol | wire | levels (clamps) |
//! |---|---|---|
//! | `deepseek` | thinking + effort | auto, disabled, low (Flash; Pro → high), medium → high, high, max, xhigh → high (Flash) / max (Pro) |
//! | `anthropic` (native) | thinking adaptive + effort | auto, low, medium, high, xhigh, max, disabled |
//! | `glm`, Anthropic-kind gateway | thinking only | auto, enabled, disabled (effort levels → enabled) |
//! | `minimax` | thinking only | auto, adaptive, disabled (effort levels → adaptive) |
//! | `kimi-k3` | effort | low, high, max; default max (medium → high, xhigh → max) |
//! | `ollama` | effort | none (omit), low, medium, high, max (xhigh → max) |
//! | `openai` | effort | none, minimal, low, medium, high, xhigh (disabled/off → none, max → xhigh) |
//! | `generic` | effort | low, medium, high (max, xhigh → high) |
//! | `responses` kind | effort | none, minimal, low, medium, high, xhigh, max as given (disabled/off → none) |
//! | `none` | nothing | auto |
//!
//! A `supported_efforts` list replaces the table: only its levels (and `auto`) are accepted and
//! they are sent as they are (`enabled`/`disabled`/`adaptive` as thinking); `auto` then means
//! `default_effort` when it is one of them, else the first.

use crate::wire::ReasoningProtocol;

/// Values of `thinking`.
pub const THINKING_MODES: &[&str] = &["enabled", "disabled", "adaptive"];

/// Default stall timeout of the `openai` kind: 5 min.
const OPENAI_STALL_TIMEOUT_MS: u32 = 300_000;
/// Default stall timeout of every other kind: 2 min.
const STALL_TIMEOUT_MS: u32 = 120_000;

/// Words that turn reasoning off.
const OFF: &[&str] = &["disabled", "off", "none"];
/// Effort levels in increasing order.
const LEVELS: &[&str] = &["minimal", "low", "medium", "high", "xhigh", "max"];
/// What a Responses endpoint accepts (sent as given; off words → `none`).
const RESPONSES_LEVELS: &[&str] = &[
    "auto", "none", "minimal", "low", "medium", "high", "xhigh", "max",
];

/// What the request's `options` configure about reasoning.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReasoningConfig {
    /// `reasoning_protocol`; `None` (absent or `auto`) = detect from the base URL and model.
    pub protocol: Option<ReasoningProtocol>,
    /// `thinking` as configured (one of [`THINKING_MODES`]).
    pub thinking: Option<String>,
    /// `supported_efforts`: the backend's levels as the user declared them; replaces the table.
    pub supported_efforts: Vec<String>,
    /// `default_effort`: what `auto` means when `supported_efforts` is declared.
    pub default_effort: Option<String>,
}

/// What to send for reasoning: `effort` is the wire effort, `thinking` the wire thinking mode.
/// `None` = send nothing (the backend's default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EffortMapping {
    pub effort: Option<String>,
    pub thinking: Option<String>,
}

impl EffortMapping {
    fn effort(level: &str, thinking: Option<&str>) -> EffortMapping {
        EffortMapping {
            effort: Some(level.to_string()),
            thinking: thinking.map(str::to_string),
        }
    }

    fn thinking(thinking: &str) -> EffortMapping {
        EffortMapping {
            effort: None,
            thinking: Some(thinking.to_string()),
        }
    }

    fn default_with(thinking: Option<&str>) -> EffortMapping {
        EffortMapping {
            effort: None,
            thinking: thinking.map(str::to_string),
        }
    }
}

/// Whether `model` reads images, by its name: Claude 3 and later, OpenAI's multimodal families,
/// Gemini, and the open models whose names say so (`-vl`, `vision`, GLM's `4v`/`4.5v`, Pixtral,
/// LLaVA). Unknown models are taken not to: the user's `vision = true` says otherwise.
pub fn reads_images(model: &str) -> bool {
    let model = model.to_ascii_lowercase();
    // The part after a gateway's `vendor/` prefix.
    let name = model.rsplit('/').next().unwrap_or(&model);
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| name.starts_with(p));
    let contains = |words: &[&str]| words.iter().any(|w| name.contains(w));
    if name.starts_with("claude") {
        return !starts(&["claude-2", "claude-instant"]);
    }
    if starts(&[
        "o1-mini",
        "o1-preview",
        "o3-mini",
        "gpt-3.5",
        "gpt-4-0",
        "gpt-4-32k",
    ]) || name == "gpt-4"
    {
        return false;
    }
    starts(&[
        "gpt-4o",
        "gpt-4.1",
        "gpt-4.5",
        "gpt-4-turbo",
        "gpt-4-vision",
        "gpt-5",
        "chatgpt-4o",
        "o1",
        "o3",
        "o4",
        "gemini",
        "pixtral",
        "llava",
        "qvq",
    ]) || contains(&[
        "-vl", "vision", "glm-4v", "glm-4.1v", "glm-4.5v", "glm-4.6v",
    ])
}

/// The endpoint and model a request is for.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub kind: &'a str,
    pub base_url: &'a str,
    pub model: &'a str,
}

/// The default stall timeout of `kind`, in milliseconds.
pub fn stall_timeout_ms(kind: &str) -> u32 {
    if kind == "openai" {
        OPENAI_STALL_TIMEOUT_MS
    } else {
        STALL_TIMEOUT_MS
    }
}

fn is_responses(kind: &str) -> bool {
    kind == "responses" || kind.ends_with("-responses")
}

/// The reasoning protocol for `target`: the configured one, else detected.
pub fn protocol(target: Target<'_>, config: &ReasoningConfig) -> ReasoningProtocol {
    config
        .protocol
        .unwrap_or_else(|| detect(target.kind, target.base_url, target.model))
}

/// The reasoning protocol of an endpoint, from its host (and the model, for Moonshot / Kimi).
pub fn detect(kind: &str, base_url: &str, model: &str) -> ReasoningProtocol {
    let Some((host, port)) = host_and_port(base_url) else {
        return ReasoningProtocol::Generic;
    };
    let host = host.as_str();
    let under = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
    let labels = || host.split('.');
    if under("deepseek.com") {
        ReasoningProtocol::Deepseek
    } else if under("anthropic.com") {
        ReasoningProtocol::Anthropic
    } else if host == "api.openai.com" {
        ReasoningProtocol::Openai
    } else if labels().any(|l| l == "moonshot") || under("kimi.com") {
        // `kimi-k3` is an OpenAI-compatible chat shape; Kimi's Anthropic-compatible endpoint is
        // a plain Anthropic gateway.
        if kind != "anthropic" && model.to_ascii_lowercase().starts_with("kimi-k3") {
            ReasoningProtocol::KimiK3
        } else {
            ReasoningProtocol::Generic
        }
    } else if under("bigmodel.cn") || host.contains("zhipu") || under("z.ai") {
        ReasoningProtocol::Glm
    } else if host.contains("minimax") {
        ReasoningProtocol::Minimax
    } else if under("ollama.com") || port == 11434 {
        ReasoningProtocol::Ollama
    } else {
        ReasoningProtocol::Generic
    }
}

/// The lowercase host and the port of an absolute `http(s)` URL; `None` for anything else.
fn host_and_port(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "https" => 443,
        "http" => 80,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let (host, port) = match authority.strip_prefix('[') {
        Some(bracketed) => {
            let (host, after) = bracketed.split_once(']')?;
            (host, after.strip_prefix(':'))
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    if host.is_empty() {
        return None;
    }
    let port = match port {
        Some(text) => text.parse().ok()?,
        None => default_port,
    };
    Some((host.to_ascii_lowercase(), port))
}

fn norm(level: &str) -> String {
    level.trim().to_ascii_lowercase()
}

/// `supported_efforts` normalised: lowercase, no `auto`, no duplicates.
fn declared_levels(config: &ReasoningConfig) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for level in &config.supported_efforts {
        let level = norm(level);
        if !level.is_empty() && level != "auto" && !out.contains(&level) {
            out.push(level);
        }
    }
    out
}

/// A DeepSeek model with the Pro mapping (Opus aliases on DeepSeek's Anthropic endpoint too).
fn is_pro(model: &str) -> bool {
    let lower = model.to_ascii_lowercase();
    lower.contains("pro") || lower.contains("opus")
}

/// The effort levels of a backend's table, `auto` first, and a note on its clamps.
fn table(
    kind: &str,
    protocol: ReasoningProtocol,
    model: &str,
) -> (&'static [&'static str], &'static str) {
    if is_responses(kind) {
        return (RESPONSES_LEVELS, " (disabled, off → none)");
    }
    match protocol {
        ReasoningProtocol::Deepseek if is_pro(model) => (
            &["auto", "disabled", "high", "max"],
            " (low, medium → high; xhigh → max)",
        ),
        ReasoningProtocol::Deepseek => (
            &["auto", "disabled", "low", "high", "max"],
            " (medium → high; xhigh → high on Flash models)",
        ),
        ReasoningProtocol::Anthropic => (
            &["auto", "low", "medium", "high", "xhigh", "max", "disabled"],
            "",
        ),
        ReasoningProtocol::Glm => (
            &["auto", "enabled", "disabled"],
            " (effort levels → enabled)",
        ),
        ReasoningProtocol::Generic if kind == "anthropic" => (
            &["auto", "enabled", "disabled"],
            " (effort levels → enabled)",
        ),
        ReasoningProtocol::Minimax => (
            &["auto", "adaptive", "disabled"],
            " (effort levels → adaptive)",
        ),
        ReasoningProtocol::KimiK3 => (
            &["auto", "low", "high", "max"],
            " (kimi-k3 always thinks; medium → high, xhigh → max)",
        ),
        ReasoningProtocol::Ollama => (
            &["auto", "none", "low", "medium", "high", "max"],
            " (xhigh → max)",
        ),
        ReasoningProtocol::Openai => (
            &["auto", "none", "minimal", "low", "medium", "high", "xhigh"],
            " (max → xhigh)",
        ),
        ReasoningProtocol::Generic => (
            &["auto", "low", "medium", "high"],
            " (max, xhigh → high); declare supported_efforts to send other levels",
        ),
        ReasoningProtocol::None => (&["auto"], ""),
    }
}

/// The effort levels a UI offers for `target` with `protocol`, `auto` first.
pub fn effort_levels(
    target: Target<'_>,
    protocol: ReasoningProtocol,
    config: &ReasoningConfig,
) -> Vec<String> {
    if protocol == ReasoningProtocol::None {
        return vec!["auto".to_string()];
    }
    let declared = declared_levels(config);
    if !declared.is_empty() {
        return std::iter::once("auto".to_string())
            .chain(declared)
            .collect();
    }
    let (levels, _) = table(target.kind, protocol, target.model);
    levels.iter().map(|l| l.to_string()).collect()
}

/// Map the level the user asked for (`None` or `auto` = the backend's default) onto the wire
/// for `target` with `protocol`. An unknown level is an error listing the valid ones; the
/// caller puts the provider and model in front.
pub fn map_effort(
    target: Target<'_>,
    protocol: ReasoningProtocol,
    requested: Option<&str>,
    config: &ReasoningConfig,
) -> Result<EffortMapping, String> {
    let level = requested.map(norm).filter(|l| !l.is_empty() && l != "auto");
    let thinking = config.thinking.as_deref();
    let kind = target.kind;

    if protocol == ReasoningProtocol::None {
        return match level {
            None => Ok(EffortMapping::default()),
            Some(l) => Err(format!(
                "effort `{l}` cannot be used: its reasoning_protocol is \"none\"; use auto"
            )),
        };
    }

    let supported = declared_levels(config);
    if !supported.is_empty() {
        let level = match level {
            Some(l) if supported.contains(&l) => l,
            Some(l) => {
                return Err(format!(
                    "effort `{l}` is not supported; use one of: auto, {} (from supported_efforts)",
                    supported.join(", ")
                ));
            }
            None => config
                .default_effort
                .as_deref()
                .map(norm)
                .filter(|d| supported.contains(d))
                .unwrap_or_else(|| supported[0].clone()),
        };
        return Ok(declared(protocol, kind, &level, thinking));
    }

    let Some(level) = level else {
        return Ok(match protocol {
            ReasoningProtocol::KimiK3 => EffortMapping::effort("max", thinking),
            _ => EffortMapping::default_with(thinking),
        });
    };
    let l = level.as_str();
    match map_level(kind, protocol, target.model, l, thinking) {
        Some(mapping) => Ok(mapping),
        None => {
            let (levels, note) = table(kind, protocol, target.model);
            let family = if is_responses(kind) {
                format!("the {kind} kind")
            } else {
                format!("{} reasoning", protocol.name())
            };
            Err(format!(
                "effort `{l}` is not valid for {family}; use one of: {}{note}",
                levels.join(", ")
            ))
        }
    }
}

/// One level through the backend's table; `None` = not a level of this backend.
fn map_level(
    kind: &str,
    protocol: ReasoningProtocol,
    model: &str,
    l: &str,
    thinking: Option<&str>,
) -> Option<EffortMapping> {
    let off = OFF.contains(&l);
    if is_responses(kind) {
        return if off {
            Some(EffortMapping::effort("none", thinking))
        } else if LEVELS.contains(&l) {
            Some(EffortMapping::effort(l, thinking))
        } else {
            None
        };
    }
    let effort = |wire: &str| Some(EffortMapping::effort(wire, thinking));
    match protocol {
        ReasoningProtocol::Deepseek => {
            let pro = is_pro(model);
            let wire = match l {
                _ if off => return Some(EffortMapping::thinking("disabled")),
                "enabled" => return Some(EffortMapping::thinking("enabled")),
                "low" if pro => "high",
                "low" => "low",
                "medium" | "high" => "high",
                "xhigh" if pro => "max",
                "xhigh" => "high",
                "max" => "max",
                _ => return None,
            };
            Some(EffortMapping::effort(wire, Some("enabled")))
        }
        ReasoningProtocol::Anthropic => match l {
            _ if off => Some(EffortMapping::thinking("disabled")),
            "adaptive" | "enabled" => Some(EffortMapping::thinking("adaptive")),
            "low" | "medium" | "high" | "xhigh" | "max" => {
                Some(EffortMapping::effort(l, Some("adaptive")))
            }
            _ => None,
        },
        ReasoningProtocol::Glm => thinking_only(l, "enabled"),
        ReasoningProtocol::Minimax => thinking_only(l, "adaptive"),
        ReasoningProtocol::Generic if kind == "anthropic" => thinking_only(l, "enabled"),
        ReasoningProtocol::KimiK3 => match l {
            "low" => effort("low"),
            "medium" | "high" => effort("high"),
            "xhigh" | "max" => effort("max"),
            _ => None,
        },
        ReasoningProtocol::Ollama => match l {
            _ if off => Some(EffortMapping::default_with(thinking)),
            "low" | "medium" | "high" | "max" => effort(l),
            "xhigh" => effort("max"),
            _ => None,
        },
        ReasoningProtocol::Openai => match l {
            _ if off => effort("none"),
            "minimal" | "low" | "medium" | "high" | "xhigh" => effort(l),
            "max" => effort("xhigh"),
            _ => None,
        },
        ReasoningProtocol::Generic => match l {
            "low" | "medium" | "high" => effort(l),
            "xhigh" | "max" => effort("high"),
            _ => None,
        },
        ReasoningProtocol::None => None,
    }
}

/// Backends whose only knob is `thinking`: off words disable it, any effort level turns it on.
fn thinking_only(level: &str, on: &str) -> Option<EffortMapping> {
    if OFF.contains(&level) {
        Some(EffortMapping::thinking("disabled"))
    } else if level == on || level == "enabled" || level == "adaptive" || LEVELS.contains(&level) {
        Some(EffortMapping::thinking(on))
    } else {
        None
    }
}

/// A level from `supported_efforts`, sent as it is.
fn declared(
    protocol: ReasoningProtocol,
    kind: &str,
    level: &str,
    thinking: Option<&str>,
) -> EffortMapping {
    match level {
        "enabled" | "disabled" | "adaptive" => EffortMapping::thinking(level),
        "off" | "none" if is_responses(kind) => EffortMapping::effort("none", thinking),
        "off" | "none" => EffortMapping::thinking("disabled"),
        _ => {
            let thinking = match protocol {
                ReasoningProtocol::Deepseek => Some("enabled"),
                ReasoningProtocol::Anthropic => Some("adaptive"),
                _ => thinking,
            };
            EffortMapping::effort(level, thinking)
        }
    }
}

/// Whether the backend rejects a sampling temperature (fixed sampling on `kimi-k3`; native
/// Anthropic with thinking).
pub fn refuses_temperature(protocol: ReasoningProtocol) -> bool {
    matches!(
        protocol,
        ReasoningProtocol::KimiK3 | ReasoningProtocol::Anthropic
    )
}

#[cfg(test)]
mod tests;
