//! `frontend.event`: what the user is shown passes the interceptors first, so one can redact or
//! hide it. Only complete units are dispatched (a finished message, a tool result, a notice, a
//! refusal); streaming deltas go straight through, since a component call per delta would cost
//! more than the stream itself. What the model reads and what the session saves never pass
//! here.

use super::events::AgentEvent;
use super::intercept::{Interceptors, Outcome, points};
use super::payloads::FrontendEvent;
use crate::types::Role;

/// Hand `event` to `on_event` as the `frontend.event` chain leaves it: unchanged, with its
/// text replaced, or not at all (blocked). An interceptor that fails hides the event too (fail
/// closed: a redactor that crashes must not let the secret through), with a notice saying so.
pub fn show(interceptors: &Interceptors, event: AgentEvent, on_event: &mut dyn FnMut(AgentEvent)) {
    if !interceptors.listens(points::FRONTEND_EVENT) {
        return on_event(event);
    }
    let Some(original) = payload(&event) else {
        return on_event(event);
    };
    match interceptors.dispatch(
        points::FRONTEND_EVENT,
        || original.clone(),
        |replaced| replaced.validate(&original),
    ) {
        Outcome::Unchanged => on_event(event),
        Outcome::Replaced(replaced) => on_event(with_text(event, replaced.text)),
        Outcome::Blocked(stop) if stop.failed => on_event(AgentEvent::Notice(format!(
            "an event was hidden: {}",
            stop.describe()
        ))),
        Outcome::Blocked(_) => {}
    }
}

/// The payload of the events the chain sees; `None` for the rest.
fn payload(event: &AgentEvent) -> Option<FrontendEvent> {
    let (kind, text, detail) = match event {
        AgentEvent::Message(m) if m.role == Role::Assistant => ("message", &m.content, ""),
        AgentEvent::Message(m) if m.role == Role::Tool => (
            "tool_result",
            &m.content,
            m.tool_call_id.as_deref().unwrap_or_default(),
        ),
        AgentEvent::ToolFinished { name, output, .. } => ("tool_output", output, name.as_str()),
        AgentEvent::Notice(text) => ("notice", text, ""),
        AgentEvent::PermissionDenied { name, reason, .. } => {
            ("permission_denied", reason, name.as_str())
        }
        _ => return None,
    };
    Some(FrontendEvent {
        kind: kind.to_string(),
        text: text.clone(),
        detail: detail.to_string(),
    })
}

fn with_text(event: AgentEvent, text: String) -> AgentEvent {
    match event {
        AgentEvent::Message(mut m) => {
            m.content = text;
            AgentEvent::Message(m)
        }
        AgentEvent::ToolFinished {
            id,
            name,
            is_error,
            duration_ms,
            ..
        } => AgentEvent::ToolFinished {
            id,
            name,
            is_error,
            output: text,
            duration_ms,
        },
        AgentEvent::Notice(_) => AgentEvent::Notice(text),
        AgentEvent::PermissionDenied {
            id,
            name,
            arguments,
            ..
        } => AgentEvent::PermissionDenied {
            id,
            name,
            arguments,
            reason: text,
        },
        other => other,
    }
}
