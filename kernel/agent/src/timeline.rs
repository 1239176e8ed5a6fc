//! The turns of a transcript as [`crate::session::load`] replays it: where each user turn
//! starts in the effective history, rewinds of the conversation and their undo, the title a
//! user gave the session.

use crate::types::Message;

/// Where one user turn starts: `index` is the position of its user message in the effective
/// history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnMark {
    pub turn: u32,
    pub index: usize,
}

/// Replay state of the `turn`, `rewind`, `rewind_undone` and `title` records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// The turns of the effective history, in order.
    pub turns: Vec<TurnMark>,
    /// The highest turn number the transcript ever used (turn numbers are never reused, so
    /// each names one checkpoint).
    pub last_turn: u32,
    /// Set by `sessions rename`.
    pub title: Option<String>,
    /// The first user message the transcript ever held, even if a rewind dropped it since
    /// (what the session is listed and found by).
    pub first_prompt: Option<String>,
    /// What each rewind dropped of the conversation (empty for a files-only rewind), newest
    /// last, while nothing was said since: undone newest first.
    undo: Vec<(Vec<Message>, Vec<TurnMark>)>,
}

impl Timeline {
    /// A `turn` record: the next message is that turn's user message.
    pub fn turn(&mut self, turn: u32, index: usize) {
        self.last_turn = self.last_turn.max(turn);
        self.turns.retain(|t| t.index < index);
        self.turns.push(TurnMark { turn, index });
        self.undo.clear();
    }

    /// A `message` record: an undo of an earlier rewind can no longer restore the conversation.
    pub fn message(&mut self) {
        self.undo.clear();
    }

    /// A `rewind` record: keep the first `keep` messages (when it rewound the conversation).
    pub fn rewind(&mut self, messages: &mut Vec<Message>, keep: usize, conversation: bool) {
        if !conversation {
            self.undo.push((Vec::new(), Vec::new()));
            return;
        }
        let keep = keep.min(messages.len());
        let dropped = messages.split_off(keep);
        let split = self.turns.partition_point(|t| t.index < keep);
        let dropped_turns = self.turns.split_off(split);
        self.undo.push((dropped, dropped_turns));
    }

    /// A `rewind_undone` record: the conversation the newest rewind not undone yet dropped
    /// comes back.
    pub fn undo(&mut self, messages: &mut Vec<Message>) {
        if let Some((dropped, turns)) = self.undo.pop() {
            messages.extend(dropped);
            self.turns.extend(turns);
        }
    }

    /// The first `replaced` messages were replaced by `head_len` others (compaction): turns
    /// that started inside them can no longer be rewound to in the conversation.
    pub fn compacted(&mut self, replaced: usize, head_len: usize) {
        self.turns.retain(|t| t.index >= replaced);
        for t in &mut self.turns {
            t.index = t.index - replaced + head_len;
        }
        self.undo.clear();
    }

    /// Index of turn `turn`'s user message in the effective history.
    pub fn start_of(&self, turn: u32) -> Option<usize> {
        self.turns.iter().find(|t| t.turn == turn).map(|t| t.index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Role;

    fn msgs(n: usize) -> Vec<Message> {
        (0..n)
            .map(|i| Message::text(Role::User, format!("m{i}")))
            .collect()
    }

    #[test]
    fn rewind_then_undo_restores_the_conversation() {
        let mut t = Timeline::default();
        let mut m = Vec::new();
        t.turn(1, 0);
        m.extend(msgs(2));
        t.turn(2, 2);
        m.extend(msgs(2));
        t.rewind(&mut m, 2, true);
        assert_eq!(m.len(), 2);
        assert_eq!(t.turns, vec![TurnMark { turn: 1, index: 0 }]);
        t.undo(&mut m);
        assert_eq!(m.len(), 4);
        assert_eq!(t.start_of(2), Some(2));
        assert_eq!(t.last_turn, 2);
    }

    #[test]
    fn rewinds_are_undone_newest_first() {
        let mut t = Timeline::default();
        let mut m = Vec::new();
        for turn in 1..=3 {
            t.turn(turn, m.len());
            m.extend(msgs(2));
        }
        t.rewind(&mut m, 4, true);
        t.rewind(&mut m, 2, false);
        t.rewind(&mut m, 2, true);
        assert_eq!(m.len(), 2);
        t.undo(&mut m);
        assert_eq!(m.len(), 4, "the newest rewind's messages come back first");
        assert_eq!(t.start_of(2), Some(2));
        assert_eq!(t.start_of(3), None);
        t.undo(&mut m);
        assert_eq!(m.len(), 4, "a files-only rewind drops no message");
        t.undo(&mut m);
        assert_eq!(m.len(), 6);
        assert_eq!(t.start_of(3), Some(4));
        t.undo(&mut m);
        assert_eq!(m.len(), 6, "nothing left to undo");
    }

    #[test]
    fn a_message_after_a_rewind_makes_its_conversation_undo_void() {
        let mut t = Timeline::default();
        let mut m = msgs(4);
        t.turn(1, 0);
        t.turn(2, 2);
        t.rewind(&mut m, 2, true);
        t.turn(3, 2);
        m.extend(msgs(1));
        t.message();
        t.undo(&mut m);
        assert_eq!(m.len(), 3);
        assert_eq!(t.last_turn, 3);
    }

    #[test]
    fn compaction_moves_turn_starts() {
        let mut t = Timeline::default();
        t.turn(1, 0);
        t.turn(2, 4);
        t.compacted(3, 1);
        assert_eq!(t.turns, vec![TurnMark { turn: 2, index: 2 }]);
    }
}
