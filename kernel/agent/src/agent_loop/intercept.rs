//! Dispatching interception points to the loaded interceptors: in priority order (lower
//! first, then by plugin name), each seeing the payload as the previous one left it, then the
//! owner of the point's replacement slot, which has the final say. A point
//! nobody subscribes to costs one map lookup: the payload is not even built.
//!
//! Interceptors fail closed: one that errors, or answers with a replacement that does not
//! decode into the point's schema, stops what it intercepts, as a block would. An interceptor
//! that polices tool calls must not be bypassed by crashing it.

use super::payloads::{HostDecision, PermissionDecision};
use crate::interceptor::Interceptor;
use crate::types::Decision;
use reasonix_core::error::CallError;
use reasonix_core::interceptor::HeldInterceptor;
use reasonix_core::slots::{self, Slot, SlotClash};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// The interception points (the full list is [`reasonix_core::slots::POINTS`]); their
/// payloads are in `payloads`.
pub mod points {
    pub const INPUT_RECEIVE: &str = "input.receive";
    pub const AGENT_BEFORE_START: &str = "agent.before_start";
    pub const SYSTEM_PROMPT_BUILD: &str = "system_prompt.build";
    pub const CONTEXT_PREPARE: &str = "context.prepare";
    pub const PROVIDER_REQUEST: &str = "provider.request";
    pub const PROVIDER_RESPONSE: &str = "provider.response";
    pub const TOOL_BEFORE: &str = "tool.before";
    pub const TOOL_AFTER: &str = "tool.after";
    pub const PERMISSION_DECISION: &str = "permission.decision";
    pub const COMPACTION_PREPARE: &str = "compaction.prepare";
    pub const COMPACTION_COMPLETE: &str = "compaction.complete";
    pub const SESSION_START: &str = "session.start";
    pub const SESSION_END: &str = "session.end";
    pub const SESSION_LOAD: &str = "session.load";
    pub const SESSION_SAVE: &str = "session.save";
    pub const SESSION_ROTATE: &str = "session.rotate";
    pub const FRONTEND_EVENT: &str = "frontend.event";
}

/// An interceptor with its priority at one point.
type Ranked = (i32, Arc<dyn Interceptor>);

/// The interceptors of one agent, grouped by point and ordered, and the owner of each slot.
#[derive(Default, Clone)]
pub struct Interceptors {
    by_point: HashMap<String, Vec<Arc<dyn Interceptor>>>,
    owners: HashMap<Slot, Arc<dyn Interceptor>>,
    /// Points where some slot has an owner (a tool or provider slot counts for its points).
    owned_points: HashSet<&'static str>,
    /// The instances kept for the tool call whose result is being shown (its id).
    held: Arc<Mutex<Option<(String, Held)>>>,
}

/// Interceptor instances kept for the points of one tool call — its `tool.after` and the
/// `frontend.event` that shows its result — by plugin. An interceptor that keeps none is called
/// afresh each time.
#[derive(Default)]
pub struct Held {
    kept: Vec<(String, Box<dyn HeldInterceptor>)>,
}

impl Held {
    fn intercept(
        &mut self,
        interceptor: &Arc<dyn Interceptor>,
        point: &str,
        payload: &str,
    ) -> Result<Decision, CallError> {
        if let Some((_, kept)) = self
            .kept
            .iter_mut()
            .find(|(source, _)| source == interceptor.source())
        {
            return kept.intercept(point, payload);
        }
        match interceptor.held() {
            Some(mut kept) => {
                let result = kept.intercept(point, payload);
                self.kept.push((interceptor.source().to_string(), kept));
                result
            }
            None => interceptor.intercept(point, payload),
        }
    }
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

/// What the chain at `permission.decision` made of the host's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nobody listens, or everyone kept the host's decision.
    Unchanged,
    /// The last interceptor to decide allowed the call.
    Allow { by: String },
    /// An interceptor denied the call (or failed, which denies it).
    Deny(Stop),
}

impl Interceptors {
    /// Group `list` by point; fails when two interceptors claim one slot.
    pub fn new(list: Vec<Arc<dyn Interceptor>>) -> Result<Interceptors, SlotClash> {
        let claims: Vec<(&str, &[String])> = list.iter().map(|i| (i.source(), i.slots())).collect();
        let owner_names = slots::owners(claims)?;
        let mut owners = HashMap::new();
        for (slot, name) in owner_names {
            if let Some(owner) = list.iter().find(|i| i.source() == name) {
                owners.insert(slot, owner.clone());
            }
        }
        let mut owned_points = HashSet::new();
        for point in slots::POINTS {
            let owned = owners.keys().any(|slot| match slot {
                Slot::Tool(_) => matches!(point, points::TOOL_BEFORE | points::TOOL_AFTER),
                Slot::Provider(_) => {
                    matches!(point, points::PROVIDER_REQUEST | points::PROVIDER_RESPONSE)
                }
                other => Slot::at(point, None).as_ref() == Some(other),
            });
            if owned {
                owned_points.insert(point);
            }
        }
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
        Ok(Interceptors {
            by_point,
            owners,
            owned_points,
            held: Arc::default(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.by_point.is_empty() && self.owners.is_empty()
    }

    /// Whether anyone listens at `point` (a subscriber or a slot owner).
    pub fn listens(&self, point: &str) -> bool {
        self.by_point.contains_key(point) || self.owned_points.contains(point)
    }

    /// The chain at `point` for a payload about `subject` (tool or provider name): the
    /// subscribers in order, then the owners of the point's slots, each once.
    fn chain(&self, point: &str, subject: Subject<'_>) -> Vec<Arc<dyn Interceptor>> {
        let mut finals: Vec<&Arc<dyn Interceptor>> = Vec::new();
        let mut consider = |slot: Option<Slot>| {
            if let Some(owner) = slot.and_then(|s| self.owners.get(&s)) {
                finals.push(owner);
            }
        };
        match subject {
            Subject::Tool(name) => consider(Slot::at(point, Some(name))),
            Subject::Provider(name) => {
                consider(Slot::at(point, None));
                consider(Slot::provider_subject(point, name));
            }
            Subject::None => consider(Slot::at(point, None)),
        }
        let is_final = |i: &Arc<dyn Interceptor>| finals.iter().any(|f| Arc::ptr_eq(f, i));
        let mut chain: Vec<Arc<dyn Interceptor>> = self
            .by_point
            .get(point)
            .into_iter()
            .flatten()
            .filter(|i| !is_final(i))
            .cloned()
            .collect();
        for owner in finals {
            if !chain.iter().any(|c| Arc::ptr_eq(c, owner)) {
                chain.push(owner.clone());
            }
        }
        chain
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
        self.dispatch_about(point, Subject::None, make, validate)
    }

    /// [`dispatch`](Self::dispatch) for a payload about one tool or provider, whose slot owner
    /// (`tool:<name>`, `provider:<ref>`) then has the final say.
    pub fn dispatch_about<T>(
        &self,
        point: &str,
        subject: Subject<'_>,
        make: impl FnOnce() -> T,
        validate: impl Fn(&T) -> Result<(), String>,
    ) -> Outcome<T>
    where
        T: Serialize + DeserializeOwned,
    {
        if !self.listens(point) {
            return Outcome::Unchanged;
        }
        self.run_chain(point, self.chain(point, subject), None, make, validate)
    }

    /// [`dispatch_about`](Self::dispatch_about) for a point of tool call `call_id` whose
    /// result will be shown next: the instances it makes are kept for [`Self::dispatch_held`]
    /// at `frontend.event`, so one instance of an interceptor serves both points of the call.
    pub fn dispatch_keeping<T>(
        &self,
        point: &str,
        subject: Subject<'_>,
        call_id: &str,
        make: impl FnOnce() -> T,
        validate: impl Fn(&T) -> Result<(), String>,
    ) -> Outcome<T>
    where
        T: Serialize + DeserializeOwned,
    {
        if !self.listens(point) {
            return Outcome::Unchanged;
        }
        let mut held = Held::default();
        let outcome = self.run_chain(
            point,
            self.chain(point, subject),
            Some(&mut held),
            make,
            validate,
        );
        *self.held.lock().unwrap_or_else(|p| p.into_inner()) = Some((call_id.to_string(), held));
        outcome
    }

    /// [`dispatch`](Self::dispatch) with the instances kept for tool call `call_id`, which are
    /// then dropped.
    pub fn dispatch_held<T>(
        &self,
        point: &str,
        call_id: &str,
        make: impl FnOnce() -> T,
        validate: impl Fn(&T) -> Result<(), String>,
    ) -> Outcome<T>
    where
        T: Serialize + DeserializeOwned,
    {
        if !self.listens(point) {
            return Outcome::Unchanged;
        }
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .filter(|(id, _)| id == call_id)
            .map(|(_, held)| held)
            .unwrap_or_default();
        self.run_chain(
            point,
            self.chain(point, Subject::None),
            Some(&mut held),
            make,
            validate,
        )
    }

    /// Drop the instances kept for a tool call (its result was shown, or will not be).
    pub fn release_held(&self) {
        self.held.lock().unwrap_or_else(|p| p.into_inner()).take();
    }

    fn run_chain<T>(
        &self,
        point: &str,
        chain: Vec<Arc<dyn Interceptor>>,
        mut held: Option<&mut Held>,
        make: impl FnOnce() -> T,
        validate: impl Fn(&T) -> Result<(), String>,
    ) -> Outcome<T>
    where
        T: Serialize + DeserializeOwned,
    {
        if chain.is_empty() {
            return Outcome::Unchanged;
        }
        let mut current = make();
        let mut replaced = false;
        for interceptor in &chain {
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
            let decision = match held.as_deref_mut() {
                Some(held) => held.intercept(interceptor, point, &text),
                None => interceptor.intercept(point, &text),
            };
            match decision {
                Ok(Decision::Proceed) => {}
                Ok(Decision::Block(reason)) => {
                    return Outcome::Blocked(Stop {
                        by: interceptor.source().to_string(),
                        reason,
                        failed: false,
                    });
                }
                Ok(Decision::Replace(json)) => match decode(&json, &validate) {
                    Ok(value) => {
                        current = value;
                        replaced = true;
                    }
                    Err(e) => {
                        return failed(format!(
                            "its replacement at `{point}` is not a valid payload: {e}"
                        ));
                    }
                },
                Ok(Decision::Allow | Decision::Deny(_)) => {
                    return failed(format!(
                        "it answered allow/deny at `{point}`, which is legal only at `permission.decision`"
                    ));
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

    /// `permission.decision`: each interceptor sees the decision as the previous one left it;
    /// `allow`/`deny` change it, `block` denies, a replacement or a failure denies (fail closed).
    pub fn decide(&self, payload: PermissionDecision) -> Verdict {
        let point = points::PERMISSION_DECISION;
        if !self.listens(point) {
            return Verdict::Unchanged;
        }
        let mut current = payload;
        let mut verdict = Verdict::Unchanged;
        for interceptor in self.chain(point, Subject::None) {
            let by = interceptor.source().to_string();
            let deny = |reason: String, failed: bool| {
                Verdict::Deny(Stop {
                    by: by.clone(),
                    reason,
                    failed,
                })
            };
            let text = match serde_json::to_string(&current) {
                Ok(text) => text,
                Err(e) => {
                    return deny(
                        format!("the `{point}` payload could not be encoded: {e}"),
                        true,
                    );
                }
            };
            match interceptor.intercept(point, &text) {
                Ok(Decision::Proceed) => {}
                Ok(Decision::Allow) => {
                    current.host_decision = HostDecision::Allow;
                    verdict = Verdict::Allow { by };
                }
                Ok(Decision::Deny(reason) | Decision::Block(reason)) => return deny(reason, false),
                Ok(Decision::Replace(_)) => {
                    return deny(
                        format!(
                            "it answered with a replacement at `{point}`, where only allow or deny is legal"
                        ),
                        true,
                    );
                }
                Err(e) => return deny(format!("it failed at `{point}`: {e}"), true),
            }
        }
        verdict
    }
}

/// What a payload is about, for the per-subject slots.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    None,
    Tool(&'a str),
    Provider(&'a str),
}

/// Strictly decode a replacement: unknown fields, wrong types and trailing data are refused.
fn decode<T: DeserializeOwned>(
    json: &str,
    validate: &impl Fn(&T) -> Result<(), String>,
) -> Result<T, String> {
    let value: T = serde_json::from_str(json).map_err(|e| e.to_string())?;
    validate(&value)?;
    Ok(value)
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
