//! Reasoning effort: from the level the user asked for (`--effort`, `effort`,
//! `default_effort`) to what one backend understands (reference inventory §6.3), and the
//! `options` JSON of a completion request (docs/PROVIDERS.md).
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
//! | Responses kinds | effort | passthrough (disabled/off → none) |
//! | `none` | nothing | auto |
//!
//! A `supported_efforts` list replaces the table: only its levels (and `auto`) are accepted and
//! they are sent as they are (`enabled`/`disabled`/`adaptive` as thinking).

use super::resolve::ResolvedProvider;
use serde_json::{Map, Value};

/// What to send for reasoning: `effort` goes to `completion-request.effort`, `thinking` to
/// `options.thinking`. `None` = send nothing (the backend's default).
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

    fn default_with(thinking: Option<&String>) -> EffortMapping {
        EffortMapping {
            effort: None,
            thinking: thinking.cloned(),
        }
    }
}

fn is_responses(kind: &str) -> bool {
    kind == "responses" || kind.ends_with("-responses")
}

const OFF: &[&str] = &["disabled", "off", "none"];
const LEVELS: &[&str] = &["minimal", "low", "medium", "high", "xhigh", "max"];

/// Map the requested effort for `model` on `provider`. `requested` (a flag) wins over the
/// provider's `effort`, then `default_effort`; `auto` (or nothing) means the backend's default.
/// An unknown level is an error listing the valid ones for this backend.
pub fn map_effort(
    provider: &ResolvedProvider,
    model: &str,
    requested: Option<&str>,
) -> Result<EffortMapping, String> {
    let norm = |s: &str| s.trim().to_ascii_lowercase();
    let chosen = requested
        .map(norm)
        .filter(|s| !s.is_empty())
        .or_else(|| provider.effort_for(model).map(|s| norm(&s)))
        .or_else(|| provider.default_effort_for(model).map(|s| norm(&s)));
    let level = chosen.filter(|l| l != "auto");
    let proto = provider.protocol_for(model);
    let cfg_thinking = provider.thinking.as_ref();

    if proto == "none" {
        return match level {
            None => Ok(EffortMapping::default()),
            Some(l) => Err(format!(
                "effort `{l}` cannot be used with provider `{}`: its reasoning_protocol is \"none\"; use auto",
                provider.name
            )),
        };
    }

    let supported = provider.supported_efforts_for(model);
    if !supported.is_empty() {
        let level = match level {
            Some(l) if supported.contains(&l) => l,
            Some(l) => {
                return Err(format!(
                    "effort `{l}` is not supported by provider `{}` (model {model}); use one of: auto, {} (from supported_efforts)",
                    provider.name,
                    supported.join(", ")
                ));
            }
            None => provider
                .default_effort_for(model)
                .map(|d| norm(&d))
                .filter(|d| supported.contains(d))
                .unwrap_or_else(|| supported[0].clone()),
        };
        return Ok(declared(&proto, &provider.kind, &level, cfg_thinking));
    }

    let Some(level) = level else {
        return Ok(match proto.as_str() {
            "kimi-k3" => EffortMapping::effort("max", cfg_thinking.map(String::as_str)),
            _ => EffortMapping::default_with(cfg_thinking),
        });
    };
    let l = level.as_str();
    let unknown = |valid: &str| {
        Err(format!(
            "effort `{l}` is not valid for provider `{}` (model {model}, {} reasoning); use one of: {valid}",
            provider.name,
            if is_responses(&provider.kind) {
                "responses"
            } else {
                proto.as_str()
            }
        ))
    };

    if is_responses(&provider.kind) {
        return Ok(if OFF.contains(&l) {
            EffortMapping::effort("none", cfg_thinking.map(String::as_str))
        } else {
            EffortMapping::effort(l, cfg_thinking.map(String::as_str))
        });
    }

    match proto.as_str() {
        "deepseek" => {
            let lower = model.to_ascii_lowercase();
            let pro = lower.contains("pro") || lower.contains("opus");
            let wire = match l {
                _ if OFF.contains(&l) => return Ok(EffortMapping::thinking("disabled")),
                "enabled" => return Ok(EffortMapping::thinking("enabled")),
                "low" if pro => "high",
                "low" => "low",
                "medium" | "high" => "high",
                "xhigh" if pro => "max",
                "xhigh" => "high",
                "max" => "max",
                _ => {
                    return unknown(
                        "auto, disabled, low (Flash models), high, max (medium → high; xhigh → high on Flash, max on Pro)",
                    );
                }
            };
            Ok(EffortMapping::effort(wire, Some("enabled")))
        }
        "anthropic" => match l {
            _ if OFF.contains(&l) => Ok(EffortMapping::thinking("disabled")),
            "adaptive" | "enabled" => Ok(EffortMapping::thinking("adaptive")),
            "low" | "medium" | "high" | "xhigh" | "max" => {
                Ok(EffortMapping::effort(l, Some("adaptive")))
            }
            _ => unknown("auto, low, medium, high, xhigh, max, disabled"),
        },
        "glm" => thinking_only(l, "enabled", unknown),
        "minimax" => thinking_only(l, "adaptive", unknown),
        "generic" if provider.kind == "anthropic" => thinking_only(l, "enabled", unknown),
        "kimi-k3" => match l {
            "low" => Ok(EffortMapping::effort(
                "low",
                cfg_thinking.map(String::as_str),
            )),
            "medium" | "high" => Ok(EffortMapping::effort(
                "high",
                cfg_thinking.map(String::as_str),
            )),
            "xhigh" | "max" => Ok(EffortMapping::effort(
                "max",
                cfg_thinking.map(String::as_str),
            )),
            _ => {
                unknown("auto, low, high, max (kimi-k3 always thinks; medium → high, xhigh → max)")
            }
        },
        "ollama" => match l {
            _ if OFF.contains(&l) => Ok(EffortMapping::default_with(cfg_thinking)),
            "low" | "medium" | "high" | "max" => {
                Ok(EffortMapping::effort(l, cfg_thinking.map(String::as_str)))
            }
            "xhigh" => Ok(EffortMapping::effort(
                "max",
                cfg_thinking.map(String::as_str),
            )),
            _ => unknown("auto, none, low, medium, high, max (xhigh → max)"),
        },
        "openai" => match l {
            _ if OFF.contains(&l) => Ok(EffortMapping::effort(
                "none",
                cfg_thinking.map(String::as_str),
            )),
            "minimal" | "low" | "medium" | "high" | "xhigh" => {
                Ok(EffortMapping::effort(l, cfg_thinking.map(String::as_str)))
            }
            "max" => Ok(EffortMapping::effort(
                "xhigh",
                cfg_thinking.map(String::as_str),
            )),
            _ => unknown("auto, none, minimal, low, medium, high, xhigh (max → xhigh)"),
        },
        _ => match l {
            "low" | "medium" | "high" => {
                Ok(EffortMapping::effort(l, cfg_thinking.map(String::as_str)))
            }
            "xhigh" | "max" => Ok(EffortMapping::effort(
                "high",
                cfg_thinking.map(String::as_str),
            )),
            _ => unknown(
                "auto, low, medium, high (max → high); declare supported_efforts to send other levels",
            ),
        },
    }
}

/// Backends whose only knob is `thinking`: off words disable it, any effort level turns it on.
fn thinking_only(
    level: &str,
    on: &str,
    unknown: impl Fn(&str) -> Result<EffortMapping, String>,
) -> Result<EffortMapping, String> {
    if OFF.contains(&level) {
        Ok(EffortMapping::thinking("disabled"))
    } else if level == on || level == "enabled" || level == "adaptive" || LEVELS.contains(&level) {
        Ok(EffortMapping::thinking(on))
    } else {
        unknown(&format!("auto, {on}, disabled"))
    }
}

/// A level from `supported_efforts`, sent as it is.
fn declared(proto: &str, kind: &str, level: &str, cfg_thinking: Option<&String>) -> EffortMapping {
    match level {
        "enabled" | "disabled" | "adaptive" => EffortMapping::thinking(level),
        "off" | "none" if is_responses(kind) => {
            EffortMapping::effort("none", cfg_thinking.map(String::as_str))
        }
        "off" | "none" => EffortMapping::thinking("disabled"),
        _ => {
            let thinking = match proto {
                "deepseek" => Some("enabled"),
                "anthropic" => Some("adaptive"),
                _ => cfg_thinking.map(String::as_str),
            };
            EffortMapping::effort(level, thinking)
        }
    }
}

/// The `options` JSON object of a completion request for `model` (docs/PROVIDERS.md): absent
/// values are omitted; keys are sorted, so the text is byte-stable. The temperature is left
/// out for `kimi-k3` (fixed sampling) and native Anthropic (thinking rejects it).
pub fn request_options(provider: &ResolvedProvider, model: &str, mapping: &EffortMapping) -> Value {
    let proto = provider.protocol_for(model);
    let mut o = Map::new();
    if let Some(url) = &provider.request_url {
        o.insert("request_url".into(), Value::String(url.clone()));
    }
    o.insert("reasoning_protocol".into(), Value::String(proto.clone()));
    if let Some(thinking) = &mapping.thinking {
        o.insert("thinking".into(), Value::String(thinking.clone()));
    }
    if let Some(t) = provider.temperature
        && proto != "kimi-k3"
        && proto != "anthropic"
        && let Some(n) = serde_json::Number::from_f64(t)
    {
        o.insert("temperature".into(), Value::Number(n));
    }
    if !provider.headers.is_empty() {
        let headers = provider
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        o.insert("headers".into(), Value::Object(headers));
    }
    if !provider.extra_body.is_empty() {
        o.insert(
            "extra_body".into(),
            Value::Object(provider.extra_body.clone()),
        );
    }
    if provider.strip_chain_of_thought {
        o.insert("strip_chain_of_thought".into(), Value::Bool(true));
    }
    Value::Object(o)
}
