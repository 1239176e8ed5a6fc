//! What the attempts of one request have already streamed to the front end, so a replay after
//! a cut or stalled stream shows only what it adds: a printed `HALF-` followed by a replayed
//! `HALF-pong` shows `pong`, not `HALF-HALF-pong`. When the replay says something else (the
//! model does not answer the same way twice), [`AgentEvent::StreamRestarted`] tells the front
//! end that what it showed is void, and the new attempt is shown from its start.

use super::events::AgentEvent;

/// One stream (answer text or reasoning) across the attempts of a request.
#[derive(Debug, Default)]
struct Shown {
    /// Everything shown of this stream so far.
    shown: String,
    /// What the current attempt has produced.
    attempt: String,
    /// The current attempt produced something other than what was shown: it is shown whole.
    diverged: bool,
}

/// What to show of one delta.
enum Verdict {
    Show(String),
    AlreadyShown,
    Diverged(String),
}

impl Shown {
    fn start_attempt(&mut self) {
        self.attempt.clear();
        self.diverged = false;
    }

    fn take(&mut self, delta: &str) -> Verdict {
        let at = self.attempt.len();
        self.attempt.push_str(delta);
        if self.diverged || at >= self.shown.len() {
            self.shown.push_str(delta);
            return Verdict::Show(delta.to_string());
        }
        // `at` is a character boundary of `shown`: the attempt's first `at` bytes equal it.
        let rest = &self.shown[at..];
        if rest.starts_with(delta) {
            return Verdict::AlreadyShown;
        }
        if let Some(new) = delta.strip_prefix(rest) {
            self.shown.push_str(new);
            return Verdict::Show(new.to_string());
        }
        self.diverged = true;
        self.shown.clone_from(&self.attempt);
        Verdict::Diverged(self.attempt.clone())
    }
}

/// The text and reasoning shown across the attempts of one request.
#[derive(Debug, Default)]
pub(super) struct Replayed {
    text: Shown,
    reasoning: Shown,
}

impl Replayed {
    /// A new attempt of the same request begins.
    pub(super) fn start_attempt(&mut self) {
        self.text.start_attempt();
        self.reasoning.start_attempt();
    }

    /// Pass `event` on, minus what an earlier attempt already showed.
    pub(super) fn forward(&mut self, event: AgentEvent, on_event: &mut dyn FnMut(AgentEvent)) {
        let (verdict, is_text) = match &event {
            AgentEvent::TextDelta(delta) => (self.text.take(delta), true),
            AgentEvent::ReasoningDelta(delta) => (self.reasoning.take(delta), false),
            _ => return on_event(event),
        };
        let wrap = |s: String| {
            if is_text {
                AgentEvent::TextDelta(s)
            } else {
                AgentEvent::ReasoningDelta(s)
            }
        };
        match verdict {
            Verdict::AlreadyShown => {}
            Verdict::Show(s) => on_event(wrap(s)),
            Verdict::Diverged(whole) => {
                on_event(AgentEvent::StreamRestarted {
                    reasoning: !is_text,
                });
                on_event(wrap(whole));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run(attempts: &[&[&str]]) -> (Vec<AgentEvent>, String) {
        let mut replayed = Replayed::default();
        let mut events = Vec::new();
        for deltas in attempts {
            replayed.start_attempt();
            for d in *deltas {
                replayed.forward(AgentEvent::TextDelta((*d).to_string()), &mut |e| {
                    events.push(e)
                });
            }
        }
        let shown: String = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        (events, shown)
    }

    #[test]
    fn a_replay_shows_only_what_it_adds() {
        let (events, shown) = run(&[&["HA", "LF-"], &["HALF", "-po", "ng"]]);
        assert_eq!(shown, "HALF-pong");
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, AgentEvent::StreamRestarted { .. }))
        );
        // Two cuts, deltas split differently each time, multibyte text.
        let (_, shown) = run(&[&["你好"], &["你", "好，世"], &["你好，", "世界"]]);
        assert_eq!(shown, "你好，世界");
    }

    #[test]
    fn a_replay_that_says_something_else_restarts_the_stream() {
        let (events, shown) = run(&[&["HALF-"], &["pong"]]);
        assert_eq!(
            events,
            vec![
                AgentEvent::TextDelta("HALF-".into()),
                AgentEvent::StreamRestarted { reasoning: false },
                AgentEvent::TextDelta("pong".into()),
            ]
        );
        assert_eq!(shown, "HALF-pong");
        // Diverging in the middle of what was shown: the attempt is shown from its start.
        let (events, _) = run(&[&["abcdef"], &["abc", "XYZ"]]);
        assert_eq!(
            &events[1..],
            &[
                AgentEvent::StreamRestarted { reasoning: false },
                AgentEvent::TextDelta("abcXYZ".into()),
            ]
        );
    }

    proptest! {
        /// Whatever the split into deltas: when every attempt repeats a prefix of the final
        /// answer, what is shown is exactly the final answer, with no restart.
        #[test]
        fn replays_of_the_same_answer_show_it_once(
            answer in "[a-zé你 ]{0,40}",
            cuts in proptest::collection::vec((0usize..50, 1usize..6), 0..4),
            split in 1usize..7,
        ) {
            let chars: Vec<char> = answer.chars().collect();
            let chunks = |upto: usize| -> Vec<String> {
                chars[..upto].chunks(split).map(|c| c.iter().collect()).collect()
            };
            let mut attempts: Vec<Vec<String>> = cuts
                .iter()
                .map(|(at, _)| chunks((*at).min(chars.len())))
                .collect();
            attempts.push(chunks(chars.len()));
            let borrowed: Vec<Vec<&str>> =
                attempts.iter().map(|a| a.iter().map(String::as_str).collect()).collect();
            let refs: Vec<&[&str]> = borrowed.iter().map(Vec::as_slice).collect();
            let (events, shown) = run(&refs);
            // A shorter attempt after a longer one only repeats what was shown.
            prop_assert_eq!(shown, answer);
            let restarted = events
                .iter()
                .any(|e| matches!(e, AgentEvent::StreamRestarted { .. }));
            prop_assert!(!restarted, "a replay of the same answer restarted the stream");
        }
    }
}
