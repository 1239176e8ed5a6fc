//! A session event as the protocol says it ([`reasonix_protocol::EventKind`]): what `reasonix
//! run --output-format events` prints and what a server or an editor bridge reads.

use crate::events::SessionEvent;
use crate::question::Answered;
use reasonix_agent::agent_loop::public::change;
use reasonix_agent::permissions::Preview;
use reasonix_protocol::EventKind;

/// `event` in the protocol; `None` for what only an in-process front end needs (the spend
/// tally, the end of the thread).
pub fn project(event: &SessionEvent) -> Option<EventKind> {
    Some(match event {
        SessionEvent::Agent(event) => return event.to_protocol(),
        SessionEvent::TurnDone(outcome) => outcome.to_protocol(),
        SessionEvent::Spend(_) | SessionEvent::Stopped => return None,
        SessionEvent::Session { id, messages } => EventKind::SessionChanged {
            session_id: id.clone(),
            messages: messages.len() as u64,
        },
        SessionEvent::ModelChanged { provider, model } => EventKind::ModelChanged {
            provider: provider.clone(),
            model: model.clone(),
        },
        SessionEvent::Rewound(done) => EventKind::Rewound {
            messages: done.history.len() as u64,
            prompt: done.prompt.clone(),
            files_restored: done
                .files
                .as_ref()
                .map(|f| (f.restored.len() + f.deleted.len()) as u64),
        },
        SessionEvent::Failed(error) => EventKind::OpFailed {
            error: error.clone(),
        },
        SessionEvent::Question(q) => EventKind::Question {
            question_id: q.id.clone(),
            call_id: q.call_id.clone(),
            tool: q.tool.clone(),
            arguments: q.arguments.clone(),
            reason: q.reason.clone(),
            scopes: q.scopes.clone(),
            changes: match &q.preview {
                Preview::Changes(changes) => Some(changes.iter().map(change).collect()),
                _ => None,
            },
            preview_error: match &q.preview {
                Preview::Unavailable(why) => Some(why.clone()),
                _ => None,
            },
            agent: q.agent.clone(),
            plan: q.plan.clone(),
        },
        SessionEvent::QuestionClosed { id, answered } => {
            let (answer, rule, note) = match answered {
                Answered::Once => ("once", None, None),
                Answered::Session(rule) => ("session", Some(rule.clone()), None),
                Answered::Persisted { rule, .. } => ("always", Some(rule.clone()), None),
                Answered::SessionOnly { rule, why } => {
                    ("session", Some(rule.clone()), Some(why.clone()))
                }
                Answered::Denied(note) => ("denied", None, note.clone()),
                Answered::Withdrawn => ("withdrawn", None, None),
            };
            EventKind::QuestionClosed {
                question_id: id.clone(),
                answer: answer.to_string(),
                rule,
                note,
            }
        }
    })
}
