//! A sidecar as a kernel `Interceptor`: `extension/intercept` per point, with the point
//! family's deadline. Any failure (dead process, timeout, a result that breaks the contract) is
//! an `Err`, which the agent turns into a stop: interceptors fail closed.

use crate::connection::Connection;
use crate::error::SidecarError;
use crate::externalize::{externalize, restore};
use crate::limits::intercept_timeout;
use crate::manifest::Runtime;
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::interceptor::Interceptor;
use reasonix_core::types::{Decision, Subscription};
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// What a sidecar answers to `extension/intercept` (decoded strictly).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InterceptResult {
    pub decision: String,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub replacement: Option<Value>,
    #[serde(default)]
    pub externalized: Vec<Value>,
}

pub struct SidecarInterceptor {
    conn: Arc<Connection>,
    points: Vec<Subscription>,
    slots: Vec<String>,
    timeout_override: Option<Duration>,
    seq: AtomicU64,
}

impl SidecarInterceptor {
    /// The interceptor of a handshaken sidecar, subscribed to what it declared and owning the
    /// slots it declared (both already checked against its manifest).
    pub fn new(
        conn: Arc<Connection>,
        runtime: &Runtime,
        subscriptions: &[String],
        slots: &[String],
    ) -> SidecarInterceptor {
        SidecarInterceptor {
            conn,
            points: subscriptions
                .iter()
                .map(|point| Subscription {
                    point: point.clone(),
                    priority: runtime.priority,
                })
                .collect(),
            slots: slots.to_vec(),
            timeout_override: runtime.intercept_timeout_millis.map(Duration::from_millis),
            seq: AtomicU64::new(1),
        }
    }

    fn timeout(&self, point: &str) -> Duration {
        self.timeout_override
            .unwrap_or_else(|| intercept_timeout(point))
    }
}

impl Interceptor for SidecarInterceptor {
    fn source(&self) -> &str {
        self.conn.name()
    }

    fn points(&self) -> &[Subscription] {
        &self.points
    }

    fn slots(&self) -> &[String] {
        &self.slots
    }

    fn intercept(&self, point: &str, payload: &str) -> Result<Decision, CallError> {
        let mut payload: Value = serde_json::from_str(payload)
            .map_err(|e| CallError::Unknown(format!("the `{point}` payload is not JSON: {e}")))?;
        let timeout = self.timeout(point);
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let contract = |reason: &'static str, message: String| {
            call_error(SidecarError::Contract {
                name: self.conn.name().to_string(),
                reason,
                message,
            })
        };
        let issued = externalize(&mut payload, &format!("c{seq}"))
            .map_err(|m| contract("frame_too_large", format!("at `{point}`: {m}")))?;
        for (field, text) in &issued {
            self.conn
                .offer_content(&field.content_ref, text.clone(), &field.sha256);
        }
        let params = serde_json::json!({
            "event": point,
            "payload": payload,
            "seq": seq,
            "timeoutMillis": u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            "externalized": issued.iter().map(|(f, _)| f).collect::<Vec<_>>(),
        });
        let result = self.conn.call("extension/intercept", params, timeout);
        // The content lives as long as the call.
        self.conn
            .withdraw_content(issued.iter().map(|(f, _)| f.content_ref.as_str()));
        let result = result.map_err(call_error)?;
        let result: InterceptResult = serde_json::from_value(result).map_err(|e| {
            call_error(SidecarError::Contract {
                name: self.conn.name().to_string(),
                reason: "schema_mismatch",
                message: format!("its `extension/intercept` result at `{point}`: {e}"),
            })
        })?;
        let mut result = result;
        if let Some(replacement) = result.replacement.as_mut() {
            restore(replacement, &result.externalized, &issued)
                .map_err(|m| contract("invalid_params", format!("at `{point}`: {m}")))?;
        }
        decision(point, result).map_err(|message| {
            call_error(SidecarError::Contract {
                name: self.conn.name().to_string(),
                reason: "invalid_params",
                message,
            })
        })
    }
}

/// Map the protocol's decision to the kernel's.
pub fn decision(point: &str, result: InterceptResult) -> Result<Decision, String> {
    match (result.decision.as_str(), result.replacement) {
        ("continue", None) => Ok(Decision::Proceed),
        ("block", None) => Ok(Decision::Block(reason(result.reason))),
        ("replace", Some(replacement)) => serde_json::to_string(&replacement)
            .map(Decision::Replace)
            .map_err(|e| e.to_string()),
        ("replace", None) => Err(format!("`replace` at `{point}` without a `replacement`")),
        ("allow" | "deny", _) if point != "permission.decision" => Err(format!(
            "`{}` is only legal at `permission.decision`, not at `{point}`",
            result.decision
        )),
        ("allow", None) => Ok(Decision::Allow),
        ("deny", None) => Ok(Decision::Deny(reason(result.reason))),
        ("continue" | "block" | "allow" | "deny", Some(_)) => Err(format!(
            "`{}` at `{point}` must not carry a `replacement`",
            result.decision
        )),
        (other, _) => Err(format!(
            "`{}` is not a decision (continue, block, replace, allow, deny)",
            reasonix_core::terminal::line(other)
        )),
    }
}

/// A block or deny reason as people and the model read it: one line, controls escaped, at most
/// 2000 characters.
fn reason(given: Option<String>) -> String {
    let given = given.unwrap_or_default();
    let given = given.trim();
    if given.is_empty() {
        return "no reason given".into();
    }
    let line = reasonix_core::terminal::line(given);
    match line.char_indices().nth(2000) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.into_owned(),
    }
}

/// A sidecar failure as the kernel's call error: a dead process is a crash, a missed deadline
/// a deadline, the rest the plugin's own error.
pub fn call_error(e: SidecarError) -> CallError {
    match e {
        // Not `CallError::Deadline`: the sidecar is not stopped, only this call given up on
        // (a late answer is dropped).
        SidecarError::Timeout { .. } => CallError::Plugin(PluginError::Timeout(e.to_string())),
        SidecarError::Dead { ref name, .. } | SidecarError::Spawn { ref name, .. } => {
            CallError::Crashed {
                plugin: name.clone(),
                message: e.to_string(),
            }
        }
        other => CallError::Plugin(PluginError::Other {
            code: "sidecar_error".into(),
            message: other.to_string(),
            retryable: false,
            detail: None,
        }),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn r(decision: &str, replacement: Option<Value>) -> InterceptResult {
        InterceptResult {
            decision: decision.into(),
            reason: Some("why".into()),
            replacement,
            externalized: vec![],
        }
    }

    #[test]
    fn decisions_map_and_illegal_ones_are_refused() {
        assert_eq!(
            decision("tool.before", r("continue", None)).unwrap(),
            Decision::Proceed
        );
        assert_eq!(
            decision("tool.before", r("block", None)).unwrap(),
            Decision::Block("why".into())
        );
        assert_eq!(
            decision(
                "tool.before",
                r("replace", Some(serde_json::json!({"a": 1})))
            )
            .unwrap(),
            Decision::Replace(r#"{"a":1}"#.into())
        );
        assert!(decision("tool.before", r("replace", None)).is_err());
        assert!(
            decision("tool.before", r("allow", None))
                .unwrap_err()
                .contains("permission.decision")
        );
        assert!(decision("tool.before", r("maybe", None)).is_err());
        let mut hostile = r("block", None);
        hostile.reason = Some(format!("\u{1b}[2J{}", "x".repeat(5000)));
        let Decision::Block(shown) = decision("tool.before", hostile).unwrap() else {
            panic!("not a block")
        };
        assert!(
            !shown.contains('\u{1b}') && shown.chars().count() <= 2001,
            "{}",
            shown.len()
        );
        assert!(decision("tool.before", r("block", Some(Value::Null))).is_err());
    }
}
