//! The session's posture as a front end changes it while a turn runs (Shift+Tab, Ctrl+Y in
//! the terminal UI): read at every permission decision, so a switch applies to the next call,
//! not the next turn.

use super::Posture;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// A shared, lock-free posture cell. Clones share the value.
#[derive(Debug, Clone)]
pub struct PostureSwitch(Arc<AtomicU8>);

const ORDER: [Posture; 6] = [
    Posture::Ask,
    Posture::AcceptEdits,
    Posture::Auto,
    Posture::DontAsk,
    Posture::Yolo,
    Posture::Plan,
];

fn code(posture: Posture) -> u8 {
    ORDER.iter().position(|p| *p == posture).unwrap_or(0) as u8
}

impl PostureSwitch {
    pub fn new(posture: Posture) -> PostureSwitch {
        PostureSwitch(Arc::new(AtomicU8::new(code(posture))))
    }

    pub fn get(&self) -> Posture {
        // Only `set` writes, with a valid code; `Ask` (the most careful) for anything else.
        ORDER
            .get(usize::from(self.0.load(Ordering::Acquire)))
            .copied()
            .unwrap_or(Posture::Ask)
    }

    pub fn set(&self, posture: Posture) {
        self.0.store(code(posture), Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_posture() {
        let a = PostureSwitch::new(Posture::Auto);
        let b = a.clone();
        assert_eq!(b.get(), Posture::Auto);
        for p in ORDER {
            b.set(p);
            assert_eq!(a.get(), p);
        }
    }
}
