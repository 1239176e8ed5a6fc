//! The cancel tokens of a session's turns and compactions.

use reasonix_core::cancel::CancelToken;
use std::sync::Mutex;

/// The tokens of turns and compactions: the one running (what a question watches), and every
/// one submitted and not yet done (what `cancel` stops: also a turn submitted a moment before
/// that has not started).
#[derive(Default)]
pub(crate) struct Tokens {
    running: Mutex<CancelToken>,
    live: Mutex<Vec<CancelToken>>,
}

impl Tokens {
    pub(crate) fn running(&self) -> CancelToken {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn begin(&self, token: &CancelToken) {
        *self.running.lock().unwrap_or_else(|p| p.into_inner()) = token.clone();
    }

    pub(crate) fn submitted(&self, token: &CancelToken) {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(token.clone());
    }

    pub(crate) fn done(&self, token: &CancelToken) {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|t| t != token);
    }

    pub(crate) fn cancel_all(&self) {
        for token in self.live.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            token.cancel();
        }
    }
}
