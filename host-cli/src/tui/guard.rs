//! When an open question may take answer keys. A key typed before the question was on screen,
//! or less than [`GUARD`] after it appeared or after the previous key, was meant for something
//! else (the composer): answering with it would let type-ahead approve a command unseen.

use std::time::{Duration, Instant};

/// The pause after a question is drawn, and after each key typed meanwhile, before keys answer.
pub const GUARD: Duration = Duration::from_millis(400);

#[derive(Debug, Default, Clone, Copy)]
pub struct AnswerGuard {
    /// Keys read from this moment on answer; `None` until the question has been drawn.
    open_at: Option<Instant>,
}

impl AnswerGuard {
    /// A frame showing the question was drawn at `now` (only the first one counts).
    pub fn drawn(&mut self, now: Instant) {
        if self.open_at.is_none() {
            self.open_at = Some(now + GUARD);
        }
    }

    /// Whether a key read at `at` answers. One that does not keeps the question closed for
    /// another [`GUARD`], so someone still typing never answers by accident.
    pub fn admits(&mut self, at: Instant) -> bool {
        match self.open_at {
            Some(open) if at >= open => true,
            Some(open) => {
                self.open_at = Some(open.max(at + GUARD));
                false
            }
            None => false,
        }
    }

    /// The question changed (a confirmation step): closed until it is drawn again.
    pub fn rearm(&mut self) {
        self.open_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_before_the_question_is_drawn_or_during_the_pause_do_not_answer() {
        let start = Instant::now();
        let mut guard = AnswerGuard::default();
        assert!(!guard.admits(start), "not drawn yet");
        guard.drawn(start);
        assert!(!guard.admits(start + GUARD / 2));
        // Still typing: the pause starts again from that key.
        assert!(!guard.admits(start + GUARD + GUARD / 4));
        assert!(guard.admits(start + GUARD * 3));
        guard.rearm();
        assert!(!guard.admits(start + GUARD * 10));
    }

    #[test]
    fn a_later_frame_does_not_restart_the_pause() {
        let start = Instant::now();
        let mut guard = AnswerGuard::default();
        guard.drawn(start);
        guard.drawn(start + GUARD);
        assert!(guard.admits(start + GUARD));
    }
}
