//! The session's limits on sub-agents, held in one place for the whole tree of agents: how
//! many run at once, how many of those write, and which write claims are held.

use super::claim::Claim;
use crate::cancel::CancelToken;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

/// `[agent] max_subagent_depth`, `max_subagent_concurrency`, `max_parallel_writers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How deep children may nest: 1 lets the main agent start children that cannot start
    /// their own.
    pub max_depth: u32,
    /// Children running at once in the session (a parent waiting for its own children does
    /// not count).
    pub max_concurrency: usize,
    /// Writer children running at once.
    pub max_writers: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 2,
            max_concurrency: 6,
            max_writers: 3,
        }
    }
}

/// How often a waiting child looks at its cancellation.
const WAIT_POLL: Duration = Duration::from_millis(50);

/// One session's running children and held claims.
#[derive(Debug, Default)]
pub struct Scheduler {
    /// The run mode may change them mid-session (`/mode`).
    limits: Mutex<Limits>,
    state: Mutex<State>,
    changed: Condvar,
    /// Each running child's cancellation, by agent id (`main/<call>`): a front end stops
    /// one child (Esc on its card) without its parent's turn.
    agents: Mutex<Vec<(String, CancelToken)>>,
}

#[derive(Debug, Default)]
struct State {
    running: usize,
    writers: usize,
    /// Held claims with their holders' labels, by ticket.
    claims: Vec<(u64, String, Claim)>,
    next_ticket: u64,
}

/// Claims held until dropped.
#[derive(Debug)]
pub struct Held<'s> {
    scheduler: &'s Scheduler,
    tickets: Vec<u64>,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut state = self.scheduler.lock();
        state.claims.retain(|(t, _, _)| !self.tickets.contains(t));
        drop(state);
        self.scheduler.changed.notify_all();
    }
}

/// A running slot (and a writer slot for a writer), given back when dropped.
#[derive(Debug)]
pub struct Slot<'s> {
    scheduler: &'s Scheduler,
    writer: bool,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut state = self.scheduler.lock();
        state.running = state.running.saturating_sub(1);
        if self.writer {
            state.writers = state.writers.saturating_sub(1);
        }
        drop(state);
        self.scheduler.changed.notify_all();
    }
}

impl Scheduler {
    pub fn new(limits: Limits) -> Scheduler {
        Scheduler {
            limits: Mutex::new(limits),
            ..Scheduler::default()
        }
    }

    /// From the next child on; running ones keep their slots.
    pub fn set_limits(&self, limits: Limits) {
        *self.limits.lock().unwrap_or_else(PoisonError::into_inner) = limits;
        self.changed.notify_all();
    }

    pub fn limits(&self) -> Limits {
        *self.limits.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Take the claims of a batch of writers (`(label, claim)`), all or none: refused when two
    /// of them overlap or one overlaps a claim a running writer holds, naming both.
    pub fn claim(&self, batch: &[(String, Claim)]) -> Result<Held<'_>, String> {
        Scheduler::check_disjoint(batch)?;
        let mut state = self.lock();
        for (label, claim) in batch {
            if let Some((_, holder, held)) = state.claims.iter().find(|(_, _, c)| c.overlaps(claim))
            {
                return Err(format!(
                    "the write claim of `{label}` ({}) overlaps the one `{holder}` holds while it runs ({}); claim separate paths with `write_paths`, or start it after `{holder}` has finished",
                    claim.describe(),
                    held.describe()
                ));
            }
        }
        let mut tickets = Vec::new();
        for (label, claim) in batch {
            state.next_ticket += 1;
            let ticket = state.next_ticket;
            state.claims.push((ticket, label.clone(), claim.clone()));
            tickets.push(ticket);
        }
        Ok(Held {
            scheduler: self,
            tickets,
        })
    }

    /// Refuse a batch in which two claims overlap, naming both.
    pub fn check_disjoint(batch: &[(String, Claim)]) -> Result<(), String> {
        for (i, (label, claim)) in batch.iter().enumerate() {
            if let Some((other, held)) = batch[..i].iter().find(|(_, c)| c.overlaps(claim)) {
                return Err(format!(
                    "the write claims of `{other}` ({}) and `{label}` ({}) overlap; parallel writers must claim separate paths (`write_paths`), so no sub-agent was started",
                    held.describe(),
                    claim.describe()
                ));
            }
        }
        Ok(())
    }

    /// Wait for a running slot (and a writer slot for a writer); `None` when `cancel` fires
    /// first.
    pub fn slot(&self, writer: bool, cancel: &CancelToken) -> Option<Slot<'_>> {
        let mut state = self.lock();
        loop {
            if cancel.is_cancelled() {
                return None;
            }
            let limits = self.limits();
            let free = state.running < limits.max_concurrency.max(1)
                && (!writer || state.writers < limits.max_writers.max(1));
            if free {
                state.running += 1;
                if writer {
                    state.writers += 1;
                }
                return Some(Slot {
                    scheduler: self,
                    writer,
                });
            }
            state = self
                .changed
                .wait_timeout(state, WAIT_POLL)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Give a slot back while its holder waits for children of its own, and take one again
    /// after: a parent blocked on its children does not count against the limit, so nesting
    /// cannot deadlock on it.
    pub fn lend(&self, writer: bool) -> Lent<'_> {
        let mut state = self.lock();
        state.running = state.running.saturating_sub(1);
        if writer {
            state.writers = state.writers.saturating_sub(1);
        }
        drop(state);
        self.changed.notify_all();
        Lent {
            scheduler: self,
            writer,
        }
    }

    /// Children running now (tests, status).
    pub fn running(&self) -> usize {
        self.lock().running
    }

    /// Let `cancel` stop agent `agent_id` until the guard is dropped.
    pub fn register(&self, agent_id: String, cancel: CancelToken) -> Registered<'_> {
        self.agents
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((agent_id.clone(), cancel));
        Registered {
            scheduler: self,
            agent_id,
        }
    }

    /// Stop the running child `agent_id` (and its own children); whether one ran.
    pub fn cancel(&self, agent_id: &str) -> bool {
        let agents = self.agents.lock().unwrap_or_else(PoisonError::into_inner);
        match agents.iter().find(|(id, _)| id == agent_id) {
            Some((_, token)) => {
                token.cancel();
                true
            }
            None => false,
        }
    }
}

/// A registered child: unregistered when dropped.
#[derive(Debug)]
pub struct Registered<'s> {
    scheduler: &'s Scheduler,
    agent_id: String,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.scheduler
            .agents
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(id, _)| *id != self.agent_id);
    }
}

/// A lent slot: taken back (waiting as long as it takes) when dropped.
#[derive(Debug)]
pub struct Lent<'s> {
    scheduler: &'s Scheduler,
    writer: bool,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        let mut state = self.scheduler.lock();
        // Over the limit for a moment rather than waiting: the holder is about to go on with
        // what it was doing, and its slot was its own.
        state.running += 1;
        if self.writer {
            state.writers += 1;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::path::Path;

    fn claim(path: &str) -> Claim {
        Claim::of(&[path.to_string()], Path::new("/w"), None).unwrap()
    }

    #[test]
    fn overlapping_claims_are_refused_and_released_ones_free_their_paths() {
        let s = Scheduler::new(Limits::default());
        let err = s
            .claim(&[("a".into(), claim("src")), ("b".into(), claim("src/x.rs"))])
            .unwrap_err();
        assert!(
            err.contains("`a` (`src`) and `b` (`src/x.rs`) overlap"),
            "{err}"
        );
        let held = s.claim(&[("a".into(), claim("src"))]).unwrap();
        let err = s.claim(&[("b".into(), claim("src/lib.rs"))]).unwrap_err();
        assert!(err.contains("`a` holds"), "{err}");
        assert!(s.claim(&[("c".into(), claim("docs"))]).is_ok());
        drop(held);
        assert!(s.claim(&[("b".into(), claim("src/lib.rs"))]).is_ok());
    }

    #[test]
    fn slots_wait_for_the_limit_and_a_cancel_ends_the_wait() {
        let s = Scheduler::new(Limits {
            max_depth: 2,
            max_concurrency: 2,
            max_writers: 1,
        });
        let cancel = CancelToken::new();
        let a = s.slot(true, &cancel).unwrap();
        let _b = s.slot(false, &cancel).unwrap();
        assert_eq!(s.running(), 2);
        let waiting = CancelToken::new();
        let other = waiting.clone();
        std::thread::scope(|scope| {
            let handle = scope.spawn(|| s.slot(false, &waiting).is_none());
            std::thread::sleep(Duration::from_millis(120));
            other.cancel();
            assert!(handle.join().unwrap(), "a cancelled wait gives no slot");
        });
        drop(a);
        // The writer slot is free again, and so is one running slot.
        let c = s.slot(true, &cancel);
        assert!(c.is_some());
        {
            let _lent = s.lend(true);
            assert_eq!(s.running(), 1);
        }
        assert_eq!(s.running(), 2);
    }
}
