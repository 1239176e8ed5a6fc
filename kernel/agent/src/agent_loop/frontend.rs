//! `frontend.event`: what the user is shown passes the interceptors first, so one can redact or
//! hide it. Complete units are dispatched (a finished message, a tool result, a notice, a
//! refusal, the run's result); the streamed answer and reasoning go in pieces that end before
//! the word being written (see [`Display`]), since a component call per delta would cost more
//! than the stream itself and a secret split across deltas would match in neither. What the model reads and what the
//! session saves of the conversation never pass here; the original of a replaced tool result,
//! kept in the transcript for the user to read, does ([`for_user`]).

use super::events::AgentEvent;
use super::intercept::{Interceptors, Outcome, points};
use super::payloads::FrontendEvent;
use crate::types::Role;

/// The most of a streamed line held back before it is shown anyway: a model that writes no
/// newline still streams, in pieces this large.
const MAX_HELD: usize = 16 * 1024;
/// A PEM block spans lines: from its first line to its `-----END` line it is held whole (up to
/// [`MAX_HELD_BLOCK`]), so a redactor sees the block and not lines of base64.
const PEM_BEGIN: &str = "-----BEGIN ";
const PEM_END: &str = "-----END ";
const MAX_HELD_BLOCK: usize = 64 * 1024;

/// `text` as the `frontend.event` chain lets the user see it (`kind`, `detail` as in the
/// payload): unchanged, replaced, or `None` when an interceptor hid it or failed (fail closed).
pub fn for_user(
    interceptors: &Interceptors,
    kind: &str,
    detail: &str,
    text: String,
) -> Option<String> {
    if !interceptors.listens(points::FRONTEND_EVENT) {
        return Some(text);
    }
    let original = FrontendEvent {
        kind: kind.to_string(),
        text,
        detail: detail.to_string(),
    };
    match interceptors.dispatch(
        points::FRONTEND_EVENT,
        || original.clone(),
        |replaced| replaced.validate(&original),
    ) {
        Outcome::Unchanged => Some(original.text),
        Outcome::Replaced(replaced) => Some(replaced.text),
        Outcome::Blocked(_) => None,
    }
}

/// What a run shows, through the chain: the stateless [`show`] plus the streamed text, the
/// word being written held back until the next piece ends it. Any other event first shows
/// what is held, so the order stays.
pub struct Display<'a> {
    interceptors: &'a Interceptors,
    text: String,
    reasoning: String,
    /// The last tool output shown (call id, its text, what the chain made of it): the tool
    /// message with the same text that follows is shown the same, without asking again.
    last_output: Option<(String, String, Shown)>,
}

/// What the chain made of a text.
#[derive(Debug, Clone)]
enum Shown {
    Text(String),
    Hidden,
    Failed(String),
}

impl<'a> Display<'a> {
    pub fn new(interceptors: &'a Interceptors) -> Display<'a> {
        Display {
            interceptors,
            text: String::new(),
            reasoning: String::new(),
            last_output: None,
        }
    }

    pub fn show(&mut self, event: AgentEvent, on_event: &mut dyn FnMut(AgentEvent)) {
        if !self.interceptors.listens(points::FRONTEND_EVENT) {
            return on_event(event);
        }
        match event {
            AgentEvent::TextDelta(delta) => {
                self.release(true, on_event);
                self.text.push_str(&delta);
                self.release_lines(true, on_event);
            }
            AgentEvent::ReasoningDelta(delta) => {
                self.release(false, on_event);
                self.reasoning.push_str(&delta);
                self.release_lines(false, on_event);
            }
            AgentEvent::ToolFinished {
                ref id, ref output, ..
            } => {
                self.flush(on_event);
                let (id, output) = (id.clone(), output.clone());
                // The instances that served this call's `tool.after` serve this too.
                let shown = match payload(&event) {
                    Some(original) => verdict_held(self.interceptors, original, &id),
                    None => Shown::Text(output.clone()),
                };
                emit_shown(event, shown.clone(), on_event);
                self.last_output = Some((id, output, shown));
            }
            AgentEvent::Message(m)
                if m.role == Role::Tool
                    && self.last_output.as_ref().is_some_and(|(id, text, _)| {
                        m.tool_call_id.as_deref() == Some(id.as_str()) && *text == m.content
                    }) =>
            {
                self.flush(on_event);
                if let Some((_, _, shown)) = self.last_output.take() {
                    emit_shown(AgentEvent::Message(m), shown, on_event);
                }
            }
            other => {
                self.flush(on_event);
                show(self.interceptors, other, on_event);
            }
        }
    }

    /// Show everything held (the end of a run).
    pub fn flush(&mut self, on_event: &mut dyn FnMut(AgentEvent)) {
        self.release(false, on_event);
        self.release(true, on_event);
    }

    /// Show the whole lines held of the answer (`text`) or the reasoning.
    fn release_lines(&mut self, text: bool, on_event: &mut dyn FnMut(AgentEvent)) {
        let held = if text { &self.text } else { &self.reasoning };
        let Some(cut) = ready(held) else { return };
        let rest = if text {
            self.text.split_off(cut)
        } else {
            self.reasoning.split_off(cut)
        };
        let lines = std::mem::replace(
            if text {
                &mut self.text
            } else {
                &mut self.reasoning
            },
            rest,
        );
        self.emit(text, lines, on_event);
    }

    /// Show all that is held of the reasoning (`reasoning`) or the answer.
    fn release(&mut self, reasoning: bool, on_event: &mut dyn FnMut(AgentEvent)) {
        let held = std::mem::take(if reasoning {
            &mut self.reasoning
        } else {
            &mut self.text
        });
        if !held.is_empty() {
            self.emit(!reasoning, held, on_event);
        }
    }

    fn emit(&self, text: bool, piece: String, on_event: &mut dyn FnMut(AgentEvent)) {
        let kind = if text {
            "message_text"
        } else {
            "reasoning_text"
        };
        match dispatch_piece(self.interceptors, kind, piece) {
            Ok(Some(shown)) if text => on_event(AgentEvent::TextDelta(shown)),
            Ok(Some(shown)) => on_event(AgentEvent::ReasoningDelta(shown)),
            Ok(None) => {}
            Err(why) => on_event(AgentEvent::Notice(format!("an event was hidden: {why}"))),
        }
    }
}

/// Where the held text may be cut: before its last word that could be the start of a key (a
/// run of [`in_token`] characters at the very end, which the next piece may continue), unless
/// that would split a PEM block; everything once it is too long to hold. `None` to hold it all.
///
/// Holding whole lines would be simpler, but a model writing a paragraph without a newline
/// would then stream nothing until its end. A key has no spaces or sentence punctuation in
/// it, so only the word being written can still grow into one.
fn ready(held: &str) -> Option<usize> {
    let limit = if open_block(held) {
        MAX_HELD_BLOCK
    } else {
        MAX_HELD
    };
    if held.len() >= limit {
        return Some(held.len());
    }
    if open_block(held) {
        return None;
    }
    let cut = held.trim_end_matches(in_token).len();
    (cut > 0).then_some(cut)
}

/// A character keys are made of (`sk-proj-…`, `AKIA…`, `ghp_…`, base64): letters, digits,
/// `-`, `_`, `+`, `/`, `=`. Anything else ends a word that could be one.
fn in_token(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '=')
}

/// Whether a PEM block starts in `held` and has no `-----END` line yet.
fn open_block(held: &str) -> bool {
    held.rfind(PEM_BEGIN)
        .is_some_and(|begin| !held[begin..].contains(PEM_END))
}

/// One piece of streamed text through the chain: `Ok(None)` hidden by a block, `Err` when an
/// interceptor failed (the piece is hidden too).
fn dispatch_piece(
    interceptors: &Interceptors,
    kind: &str,
    text: String,
) -> Result<Option<String>, String> {
    let original = FrontendEvent {
        kind: kind.to_string(),
        text,
        detail: String::new(),
    };
    match verdict(interceptors, original) {
        Shown::Text(text) => Ok(Some(text)),
        Shown::Hidden => Ok(None),
        Shown::Failed(why) => Err(why),
    }
}

/// What the chain makes of `original`.
fn verdict(interceptors: &Interceptors, original: FrontendEvent) -> Shown {
    let outcome = interceptors.dispatch(
        points::FRONTEND_EVENT,
        || original.clone(),
        |replaced| replaced.validate(&original),
    );
    shown(original, outcome)
}

/// [`verdict`] for the result of tool call `call_id`, on the instances kept for it.
fn verdict_held(interceptors: &Interceptors, original: FrontendEvent, call_id: &str) -> Shown {
    let outcome = interceptors.dispatch_held(
        points::FRONTEND_EVENT,
        call_id,
        || original.clone(),
        |replaced| replaced.validate(&original),
    );
    shown(original, outcome)
}

fn shown(original: FrontendEvent, outcome: Outcome<FrontendEvent>) -> Shown {
    match outcome {
        Outcome::Unchanged => Shown::Text(original.text),
        Outcome::Replaced(replaced) => Shown::Text(replaced.text),
        Outcome::Blocked(stop) if stop.failed => Shown::Failed(stop.describe()),
        Outcome::Blocked(_) => Shown::Hidden,
    }
}

/// Hand `event` to `on_event` as the `frontend.event` chain leaves it: unchanged, with its
/// text replaced, or not at all (blocked). An interceptor that fails hides the event too (fail
/// closed: a redactor that crashes must not let the secret through), with a notice saying so.
/// An assistant message's reasoning passes the chain on its own (kind `reasoning`).
pub fn show(interceptors: &Interceptors, event: AgentEvent, on_event: &mut dyn FnMut(AgentEvent)) {
    if !interceptors.listens(points::FRONTEND_EVENT) {
        return on_event(event);
    }
    let event = match event {
        AgentEvent::Message(mut m) if m.role == Role::Assistant && m.reasoning.is_some() => {
            m.reasoning = m
                .reasoning
                .take()
                .and_then(|r| for_user(interceptors, "reasoning", "", r));
            AgentEvent::Message(m)
        }
        other => other,
    };
    let Some(original) = payload(&event) else {
        return on_event(event);
    };
    emit_shown(event, verdict(interceptors, original), on_event);
}

/// `event` with its text as the chain left it, a notice when an interceptor failed, or
/// nothing when one hid it.
fn emit_shown(event: AgentEvent, shown: Shown, on_event: &mut dyn FnMut(AgentEvent)) {
    match shown {
        Shown::Text(text) => on_event(with_text(event, text)),
        Shown::Failed(why) => on_event(AgentEvent::Notice(format!("an event was hidden: {why}"))),
        Shown::Hidden => {}
    }
}

/// The payload of the events the chain sees; `None` for the rest (an assistant message with
/// no text, only tool calls, has nothing to show).
fn payload(event: &AgentEvent) -> Option<FrontendEvent> {
    let (kind, text, detail) = match event {
        AgentEvent::Message(m) if m.role == Role::Assistant && m.content.is_empty() => {
            return None;
        }
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

#[cfg(test)]
mod tests {
    use super::ready;

    #[test]
    fn only_the_word_being_written_is_held() {
        assert_eq!(ready("first part,"), Some(11));
        assert_eq!(ready("Cleaning up."), Some(12));
        assert_eq!(ready("The key is sk-proj-abc"), Some(11));
        assert_eq!(ready("sk-proj-abc"), None);
        assert_eq!(ready("a line\n"), Some(7));
        assert_eq!(ready("-----BEGIN RSA PRIVATE KEY-----\nMIIE, more,"), None);
        let closed = "-----BEGIN K-----\nabc\n-----END K-----\nok, ";
        assert_eq!(ready(closed), Some(closed.len()));
        let long = "x".repeat(super::MAX_HELD);
        assert_eq!(ready(&long), Some(long.len()));
    }
}
