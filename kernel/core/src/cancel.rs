//! A cancellation signal shared between whoever wants to stop a request (Ctrl-C, a front end)
//! and the host code waiting on the network for it. Tokens form a tree: a turn's token is the
//! parent of its tool calls' tokens, so cancelling a turn cancels its calls, and the host stops
//! exactly the processes and requests those calls started, not another agent's.

use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use tokio::sync::Notify;

/// Cheap to clone; every clone sees the same signal. Cancelling is permanent.
#[derive(Clone, Default)]
pub struct CancelToken(Arc<Inner>);

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    notify: Notify,
    /// For threads that block until the cancel ([`CancelToken::wait`]).
    parked: Mutex<()>,
    woken: Condvar,
    /// Tokens cancelled with this one (dropped ones are pruned as children are added).
    children: Mutex<Vec<Weak<Inner>>>,
}

impl CancelToken {
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// A token cancelled when this one is (and on its own, without cancelling this one).
    pub fn child(&self) -> CancelToken {
        let child = CancelToken::new();
        {
            let mut children = self
                .0
                .children
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            children.retain(|c| c.strong_count() > 0);
            children.push(Arc::downgrade(&child.0));
        }
        // A parent cancelled before (or while) the child was added.
        if self.is_cancelled() {
            child.cancel();
        }
        child
    }

    /// Signal every waiter, now and later, of this token and of its children.
    pub fn cancel(&self) {
        Inner::cancel(&self.0);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Block this thread until [`cancel`](Self::cancel) has been called (no polling).
    pub fn wait(&self) {
        let mut parked = self.0.parked.lock().unwrap_or_else(PoisonError::into_inner);
        while !self.is_cancelled() {
            parked = self
                .0
                .woken
                .wait(parked)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Resolves once [`cancel`](Self::cancel) has been called.
    pub async fn cancelled(&self) {
        loop {
            let mut notified = pin!(self.0.notify.notified());
            // Register before checking the flag, so a cancel in between is not missed.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

impl Inner {
    fn cancel(inner: &Arc<Inner>) {
        if inner.cancelled.swap(true, Ordering::SeqCst) {
            return;
        }
        inner.notify.notify_waiters();
        {
            // Under the lock, so a waiter between its check and its wait is not missed.
            let _parked = inner.parked.lock().unwrap_or_else(PoisonError::into_inner);
            inner.woken.notify_all();
        }
        let children: Vec<Arc<Inner>> = inner
            .children
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for child in children {
            Inner::cancel(&child);
        }
    }
}

/// Two tokens are equal when they are the same signal (clones of one token).
impl PartialEq for CancelToken {
    fn eq(&self, other: &CancelToken) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CancelToken {}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("CancelToken")
            .field(&self.is_cancelled())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancelling_a_parent_cancels_its_children_and_not_the_other_way() {
        let turn = CancelToken::new();
        let (a, b) = (turn.child(), turn.child());
        let grandchild = a.child();
        a.cancel();
        assert!(a.is_cancelled() && grandchild.is_cancelled());
        assert!(!turn.is_cancelled() && !b.is_cancelled());
        turn.cancel();
        assert!(b.is_cancelled());
        // A child of a cancelled token starts cancelled.
        assert!(turn.child().is_cancelled());
        assert_eq!(a.clone(), a);
        assert_ne!(a, b);
    }

    #[test]
    fn a_waiting_thread_wakes_when_a_parent_is_cancelled() {
        let turn = CancelToken::new();
        let call = turn.child();
        let waiter = std::thread::spawn(move || call.wait());
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!waiter.is_finished());
        turn.cancel();
        waiter
            .join()
            .unwrap_or_else(|_| panic!("the waiter panicked"));
        // Already cancelled: returns at once.
        turn.wait();
    }
}
