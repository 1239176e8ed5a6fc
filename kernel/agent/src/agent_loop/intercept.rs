//! Dispatching interception points to the loaded interceptors: in priority order (lower
//! first, then by plugin name), each seeing the payload as the previous one left it. A point
//! nobody subscribes to costs one map lookup: the payload is not even built.
//!
//! Interceptors fail closed: one that errors, or answers with a replacement that does not
//! decode into the point's schema, stops what it intercepts, as a block would. An interceptor
//! that polices tool calls must not be bypassed by crashing it.

use crate::interceptor::Interceptor;
use crate::types::Decision;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use std::sync::Arc;

/// The points the agent dispatches today; their payloads are in `payloads`.
pub mod points {
    pub const INPUT_RECEIVE: &str = "input.receive";
    pub const PROVIDER_REQUEST: &str = "provider.request";
    pub const PROVIDER_RESPONSE: &str = "provider.response";
    pub const TOOL_BEFORE: &str = "tool.before";
    pub const TOOL_AFTER: &str = "tool.after";
    pub const SESSION_START: &str = "session.start";
    pub const SESSION_END: &str = "session.end";
}

/// An interceptor with its priority at one point.
type Ranked = (i32, Arc<dyn Interceptor>);

/// The interceptors of one agent, grouped by point and ordered.
#[derive(Default, Clone)]
pub struct Interceptors {
    by_point: HashMap<String, Vec<Arc<dyn Interceptor>>>,
}

/// What the chain did with a payload.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<T> {
    /// Nobody subscribed, or everyone let it through unchanged.
    Unchanged,
    /// The payload as the last replacing interceptor left it (decoded and validated).
    Replaced(T),
    /// An interceptor stopped it.
    Blocked(Stop),
}

/// Who stopped a payload, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// The plugin serving the interceptor.
    pub by: String,
    pub reason: String,
    /// The interceptor failed (or replaced with something invalid) rather than blocking.
    pub failed: bool,
}

impl Interceptors {
    pub fn new(list: Vec<Arc<dyn Interceptor>>) -> Interceptors {
        let mut by_point: HashMap<String, Vec<Ranked>> = HashMap::new();
        for interceptor in list {
            for sub in interceptor.points() {
                by_point
                    .entry(sub.point.clone())
                    .or_default()
                    .push((sub.priority, interceptor.clone()));
            }
        }
        let by_point = by_point
            .into_iter()
            .map(|(point, mut list)| {
                list.sort_by(|(pa, a), (pb, b)| {
                    pa.cmp(pb).then_with(|| a.source().cmp(b.source()))
                });
                (point, list.into_iter().map(|(_, i)| i).collect())
            })
            .collect();
        Interceptors { by_point }
    }

    pub fn is_empty(&self) -> bool {
        self.by_point.is_empty()
    }

    /// Whether anyone listens at `point`.
    pub fn listens(&self, point: &str) -> bool {
        self.by_point.contains_key(point)
    }

    /// Run `point`'s chain over the payload `make` builds (only when someone listens). A
    /// replacement must decode strictly into `T` and pass `validate`.
    pub fn dispatch<T>(
        &self,
        point: &str,
        make: impl FnOnce() -> T,
        validate: impl Fn(&T) -> Result<(), String>,
    ) -> Outcome<T>
    where
        T: Serialize + DeserializeOwned,
    {
        let Some(chain) = self.by_point.get(point) else {
            return Outcome::Unchanged;
        };
        let mut current = make();
        let mut replaced = false;
        for interceptor in chain {
            let failed = |reason: String| {
                Outcome::Blocked(Stop {
                    by: interceptor.source().to_string(),
                    reason,
                    failed: true,
                })
            };
            let text = match serde_json::to_string(&current) {
                Ok(text) => text,
                Err(e) => {
                    return failed(format!("the `{point}` payload could not be encoded: {e}"));
                }
            };
            match interceptor.intercept(point, &text) {
                Ok(Decision::Proceed) => {}
                Ok(Decision::Block(reason)) => {
                    return Outcome::Blocked(Stop {
                        by: interceptor.source().to_string(),
                        reason,
                        failed: false,
                    });
                }
                Ok(Decision::Replace(json)) => {
                    let decoded = serde_json::from_str::<T>(&json)
                        .map_err(|e| e.to_string())
                        .and_then(|value| validate(&value).map(|()| value));
                    match decoded {
                        Ok(value) => {
                            current = value;
                            replaced = true;
                        }
                        Err(e) => {
                            return failed(format!(
                                "its replacement at `{point}` is not a valid payload: {e}"
                            ));
                        }
                    }
                }
                Err(e) => return failed(format!("it failed at `{point}`: {e}")),
            }
        }
        if replaced {
            Outcome::Replaced(current)
        } else {
            Outcome::Unchanged
        }
    }
}

impl Stop {
    /// The sentence a user or the model reads.
    pub fn describe(&self) -> String {
        if self.failed {
            format!(
                "interceptor `{}` failed, so this was stopped: {}",
                self.by, self.reason
            )
        } else {
            format!("blocked by interceptor `{}`: {}", self.by, self.reason)
        }
    }
}
