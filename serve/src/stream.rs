//! One session's event stream: the session protocol's events numbered (`seq`), kept (the last
//! [`KEPT`] of them) so a client that reconnects with `Last-Event-ID` gets exactly what it
//! missed, and broadcast to the clients listening now.

use reasonix_protocol::{Event, EventKind, Sequencer};
use reasonix_session::SessionEvent;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Events kept for clients that reconnect.
pub const KEPT: usize = 20_000;
/// Events a listening client may fall behind by before it is cut off (it reconnects and
/// catches up from what is kept).
const BACKLOG: usize = 4_096;

/// One event, encoded once for every client.
#[derive(Debug)]
pub struct Frame {
    pub seq: u64,
    /// The event's `type`.
    pub kind: String,
    pub json: String,
}

struct State {
    sequencer: Sequencer,
    turn_open: bool,
    frames: VecDeque<Arc<Frame>>,
}

pub struct Stream {
    state: Mutex<State>,
    tx: broadcast::Sender<Arc<Frame>>,
}

/// What a client gets when it starts listening: the kept events after its last one, then the
/// live ones. `gap` is set when some it missed are no longer kept.
pub struct Subscription {
    pub backlog: Vec<Arc<Frame>>,
    pub live: broadcast::Receiver<Arc<Frame>>,
    pub gap: bool,
}

impl Stream {
    pub fn new(session_id: &str) -> Stream {
        let (tx, _) = broadcast::channel(BACKLOG);
        Stream {
            state: Mutex::new(State {
                sequencer: Sequencer::main(Some(session_id.to_string())),
                turn_open: false,
                frames: VecDeque::new(),
            }),
            tx,
        }
    }

    /// A session event, as the protocol's events (a turn's first event opens it).
    pub fn session_event(&self, event: &SessionEvent) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        match event {
            SessionEvent::Agent(agent_event) => {
                if !state.turn_open {
                    state.turn_open = true;
                    let turn = state.sequencer.start_turn();
                    self.keep(&mut state, turn);
                }
                let Some(kind) = agent_event.to_protocol() else {
                    return;
                };
                let event = match agent_event.agent_ids() {
                    Some((agent, parent)) => state.sequencer.next_as(agent, parent, kind),
                    None => state.sequencer.next(kind),
                };
                self.keep(&mut state, event);
            }
            SessionEvent::TurnDone(_) => {
                if let Some(kind) = reasonix_session::project(event) {
                    if !state.turn_open {
                        let turn = state.sequencer.start_turn();
                        self.keep(&mut state, turn);
                    }
                    state.turn_open = false;
                    let event = state.sequencer.next(kind);
                    self.keep(&mut state, event);
                }
            }
            other => {
                if let SessionEvent::Session { id, .. } = other {
                    state.sequencer.set_session(Some(id.clone()));
                }
                if let Some(kind) = reasonix_session::project(other) {
                    let event = state.sequencer.next(kind);
                    self.keep(&mut state, event);
                }
            }
        }
    }

    /// An event the server itself reports (the session's start).
    pub fn push(&self, kind: EventKind) {
        if let Ok(mut state) = self.state.lock() {
            let event = state.sequencer.next(kind);
            self.keep(&mut state, event);
        }
    }

    fn keep(&self, state: &mut State, event: Event) {
        let kind = serde_json::to_value(&event.kind)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
            .unwrap_or_default();
        let Ok(json) = serde_json::to_string(&event) else {
            return;
        };
        let frame = Arc::new(Frame {
            seq: event.seq,
            kind,
            json,
        });
        if state.frames.len() == KEPT {
            state.frames.pop_front();
        }
        state.frames.push_back(frame.clone());
        // Nobody listening is not an error.
        let _ = self.tx.send(frame);
    }

    /// Listen from after event `last` (0: from the start).
    pub fn subscribe(&self, last: u64) -> Subscription {
        // Under the lock: nothing is kept between the snapshot and the subscription.
        let state = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let live = self.tx.subscribe();
        let oldest = state.frames.front().map_or(0, |f| f.seq);
        let backlog: Vec<Arc<Frame>> = state
            .frames
            .iter()
            .filter(|f| f.seq > last)
            .cloned()
            .collect();
        Subscription {
            backlog,
            live,
            gap: oldest > last + 1,
        }
    }
}

/// `frame` as server-sent event bytes.
pub fn sse(frame: &Frame) -> String {
    // The JSON is one line: no `data:` continuation is needed.
    format!(
        "id: {}\nevent: {}\ndata: {}\n\n",
        frame.seq, frame.kind, frame.json
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_reconnecting_client_gets_exactly_what_it_missed() {
        let stream = Stream::new("s1");
        for i in 0..5 {
            stream.push(EventKind::Notice {
                text: format!("n{i}"),
            });
        }
        let mut first = stream.subscribe(0);
        assert_eq!(first.backlog.len(), 5);
        assert!(!first.gap);
        stream.push(EventKind::Notice { text: "n5".into() });
        assert_eq!(first.live.try_recv().unwrap().seq, 6);
        let again = stream.subscribe(3);
        let seqs: Vec<u64> = again.backlog.iter().map(|f| f.seq).collect();
        assert_eq!(seqs, [4, 5, 6]);
        let text = sse(&again.backlog[0]);
        assert!(text.starts_with("id: 4\nevent: notice\ndata: {"), "{text}");
        assert!(text.ends_with("}\n\n"));
    }

    #[test]
    fn events_no_longer_kept_are_reported_as_a_gap() {
        let stream = Stream::new("s1");
        for i in 0..(KEPT + 10) {
            stream.push(EventKind::Notice {
                text: i.to_string(),
            });
        }
        let late = stream.subscribe(3);
        assert!(late.gap);
        assert_eq!(late.backlog.len(), KEPT);
        assert_eq!(late.backlog[0].seq, 11);
    }
}
