//! The built-in `redact` interceptor: replaces secrets with `[REDACTED]` in what the model
//! reads of a tool result (`tool.after`, before bounding) and in what the user is shown
//! (`frontend.event`). Files the tools write are never touched: only the result text changes.
//!
//! Two kinds of secrets: the shapes of common API keys and private keys ([`matcher`]), and
//! the values of the secrets the host knows (the provider keys), which the host hands to this
//! component alone under [`KNOWN_SECRETS_ENV`].
#![forbid(unsafe_code)]

pub mod matcher;

use reasonix_sdk::{Decision, Error, Plugin, PluginInfo, Subscription};
use serde_json::Value;

pub const TOOL_AFTER: &str = "tool.after";
pub const FRONTEND_EVENT: &str = "frontend.event";
/// Before bounding (`bound`, 100): a secret cut in half by the bound would no longer match.
pub const PRIORITY: i32 = -100;
/// Where the host puts the values of the secrets it knows, one per line.
pub const KNOWN_SECRETS_ENV: &str = "REASONIX_KNOWN_SECRETS";

/// The redaction plugin.
pub struct Redact;

impl Plugin for Redact {
    fn info() -> PluginInfo {
        let mut info = reasonix_sdk::plugin_info(
            "redact",
            "0.1.0",
            "Built-in interceptor: redacts secrets from tool results and what the user is shown",
        );
        info.capabilities.env = vec![KNOWN_SECRETS_ENV.to_string()];
        info
    }

    fn subscriptions() -> Vec<Subscription> {
        vec![
            Subscription::new(TOOL_AFTER).priority(PRIORITY),
            Subscription::new(FRONTEND_EVENT).priority(PRIORITY),
        ]
    }

    fn intercept(point: &str, payload: &str) -> Result<Decision, Error> {
        let field = match point {
            TOOL_AFTER => "result",
            FRONTEND_EVENT => "text",
            _ => return Ok(Decision::Proceed),
        };
        // Cheap test first: most payloads hold nothing worth a parse. The payload is JSON, so
        // the secrets are looked for as JSON escapes them.
        let known = known_secrets();
        let escaped: Vec<String> = known
            .iter()
            .map(|s| {
                let quoted = Value::String(s.clone()).to_string();
                quoted[1..quoted.len() - 1].to_string()
            })
            .collect();
        if !matcher::may_hold_secret(payload, &escaped) {
            return Ok(Decision::Proceed);
        }
        let mut value: Value = serde_json::from_str(payload)
            .map_err(|e| Error::InvalidInput(format!("redact: the `{point}` payload: {e}")))?;
        let Some(text) = value.get(field).and_then(Value::as_str) else {
            return Err(Error::InvalidInput(format!(
                "redact: the `{point}` payload has no `{field}` text"
            )));
        };
        let redacted = matcher::redact(text, &known);
        if redacted == text {
            return Ok(Decision::Proceed);
        }
        value[field] = Value::String(redacted);
        Ok(Decision::Replace(value.to_string()))
    }
}

/// The secrets the host handed over (none outside wasm or without the grant).
fn known_secrets() -> Vec<String> {
    matcher::usable_secrets(
        std::env::var(KNOWN_SECRETS_ENV)
            .unwrap_or_default()
            .lines()
            .map(str::to_string),
    )
}

reasonix_sdk::export!(Redact);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_result_is_redacted_and_the_rest_kept() {
        let payload = serde_json::json!({
            "name": "read_file", "arguments": "{}", "callId": "c1", "isError": false,
            "result": "key = sk-abcdefghij0123456789XYZ\nrest",
        });
        match Redact::intercept(TOOL_AFTER, &payload.to_string()).unwrap() {
            Decision::Replace(json) => {
                let v: Value = serde_json::from_str(&json).unwrap();
                assert_eq!(v["result"], "key = [REDACTED]\nrest");
                assert_eq!(v["callId"], "c1");
            }
            other => panic!("{other:?}"),
        }
        let clean = serde_json::json!({"kind": "message", "text": "no secrets", "detail": ""});
        assert_eq!(
            Redact::intercept(FRONTEND_EVENT, &clean.to_string()).unwrap(),
            Decision::Proceed
        );
        assert_eq!(
            Redact::intercept("tool.before", "{}").unwrap(),
            Decision::Proceed
        );
    }
}
