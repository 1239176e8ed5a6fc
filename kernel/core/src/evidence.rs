//! What an agent has verifiably done, as the host saw it: the commands it ran and how they
//! exited, the files it wrote and read. A checklist step is marked done only against these
//! receipts (the `complete_step` host tool, `docs/AGENTS.md`), never on the model's word.
//! One ledger per agent; a sub-agent keeps its own.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// A tool that runs commands ends its result with this line: `[exit code: N]`.
const EXIT_PREFIX: &str = "[exit code: ";

/// The status a command tool reports on its last line (`[exit code: N]`); `None` when the
/// command did not end with a status (killed, timed out, still running).
pub fn exit_status(output: &str) -> Option<i32> {
    let last = output.trim_end().lines().last()?;
    last.strip_prefix(EXIT_PREFIX)?
        .strip_suffix(']')?
        .trim()
        .parse()
        .ok()
}

/// One thing the host saw happen.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Receipt {
    /// A command ran to the end with this status (`None`: it did not finish).
    Command { command: String, exit: Option<i32> },
    /// A call changed this file (absolute path).
    Wrote { path: PathBuf },
    /// A call read this file (absolute path).
    Read { path: PathBuf },
}

/// A change to a ledger, as a session transcript keeps it (so a resumed session has its
/// receipts, steps and task list back).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    Receipt { receipt: Receipt },
    Step { step: String },
    Checklist { total: usize, done: Vec<String> },
}

/// How strictly steps are judged (the run mode and goal mode decide, `docs/AGENTS.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Strictness {
    /// A checklist item may become done only after a step receipt for it.
    pub steps_need_receipts: bool,
    /// A step needs a passing command as evidence, run after the last write.
    pub fresh_verification: bool,
}

#[derive(Debug, Default)]
struct State {
    /// Receipts in the order they happened.
    receipts: Vec<Receipt>,
    /// Steps completed with accepted evidence, as the model named them.
    steps: Vec<String>,
    /// The checklist's items last accepted as done, in order.
    done_items: Vec<String>,
    /// How many items the checklist last had.
    total_items: usize,
    /// Entries not yet written to the session.
    journal: Vec<Entry>,
    strictness: Strictness,
}

/// An agent's receipts; shared with the calls that read them.
#[derive(Debug, Default)]
pub struct Ledger {
    state: Mutex<State>,
}

impl Ledger {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Another conversation starts (`/new`, `/resume`): its receipts, steps and task list
    /// start empty; the strictness stays.
    pub fn reset(&self) {
        let mut state = self.state();
        let strictness = state.strictness;
        *state = State {
            strictness,
            ..State::default()
        };
    }

    pub fn record(&self, receipt: Receipt) {
        let mut state = self.state();
        state.journal.push(Entry::Receipt {
            receipt: receipt.clone(),
        });
        state.receipts.push(receipt);
    }

    /// The entries since the last call, for the session transcript.
    pub fn take_journal(&self) -> Vec<Entry> {
        std::mem::take(&mut self.state().journal)
    }

    /// Entries a transcript kept, applied as they happened (and not journaled again).
    pub fn replay(&self, entries: &[Entry]) {
        for entry in entries {
            match entry {
                Entry::Receipt { receipt } => self.record(receipt.clone()),
                Entry::Step { step } => self.complete_step(step),
                Entry::Checklist { total, done } => self.set_checklist(*total, done.clone()),
            }
        }
        self.state().journal.clear();
    }

    pub fn receipts(&self) -> Vec<Receipt> {
        self.state().receipts.clone()
    }

    pub fn strictness(&self) -> Strictness {
        self.state().strictness
    }

    pub fn set_strictness(&self, strictness: Strictness) {
        self.state().strictness = strictness;
    }

    /// A step whose evidence was accepted.
    pub fn complete_step(&self, step: &str) {
        let mut state = self.state();
        let step = step.trim().to_string();
        if !state.steps.contains(&step) {
            state.journal.push(Entry::Step { step: step.clone() });
            state.steps.push(step);
        }
    }

    /// A step receipt names this checklist item (the same text, ignoring case and the
    /// surrounding space).
    pub fn has_step(&self, item: &str) -> bool {
        let item = item.trim();
        self.state()
            .steps
            .iter()
            .any(|s| s.eq_ignore_ascii_case(item))
    }

    pub fn steps(&self) -> Vec<String> {
        self.state().steps.clone()
    }

    /// The checklist's items accepted as done last time.
    pub fn done_items(&self) -> Vec<String> {
        self.state().done_items.clone()
    }

    /// The checklist as last accepted: how many items, and those done.
    pub fn set_checklist(&self, total: usize, done: Vec<String>) {
        let mut state = self.state();
        state.journal.push(Entry::Checklist {
            total,
            done: done.clone(),
        });
        state.total_items = total;
        state.done_items = done;
    }

    /// `(items, done)` of the checklist as last accepted.
    pub fn checklist(&self) -> (usize, usize) {
        let state = self.state();
        (state.total_items, state.done_items.len())
    }
}

/// The ledger one call may use; compared by identity.
#[derive(Clone, Default)]
pub struct Evidence(pub Arc<Ledger>);

impl std::fmt::Debug for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Evidence")
    }
}

impl PartialEq for Evidence {
    fn eq(&self, other: &Evidence) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Evidence {}

/// `path` as an absolute, lexically normal path under `workspace` (a relative path is taken
/// from the workspace).
pub fn absolute(workspace: &Path, path: &str) -> PathBuf {
    crate::lexical_path::normalize(&workspace.join(path))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_status_is_read_from_the_last_line_only() {
        assert_eq!(exit_status("ok\n[exit code: 0]"), Some(0));
        assert_eq!(exit_status("x\n[exit code: 3]\n"), Some(3));
        assert_eq!(exit_status("begun\n[killed: timed out after 1 s]"), None);
        assert_eq!(exit_status("[exit code: 0]\nmore\n[exit code: 1]"), Some(1));
        assert_eq!(exit_status("[exit code: 0]\nprinted by the command"), None);
        assert_eq!(exit_status(""), None);
    }

    #[test]
    fn a_step_matches_its_item_ignoring_case_and_space() {
        let ledger = Ledger::default();
        ledger.complete_step("  Run the tests ");
        assert!(ledger.has_step("run the tests"));
        assert!(!ledger.has_step("run the"));
    }

    #[test]
    fn a_reset_forgets_the_work_and_keeps_the_strictness() {
        let ledger = Ledger::default();
        let strict = Strictness {
            steps_need_receipts: true,
            fresh_verification: false,
        };
        ledger.set_strictness(strict);
        ledger.record(Receipt::Command {
            command: "true".into(),
            exit: Some(0),
        });
        ledger.complete_step("a");
        ledger.set_checklist(1, vec!["a".into()]);
        ledger.reset();
        assert!(ledger.receipts().is_empty() && ledger.steps().is_empty());
        assert_eq!(ledger.checklist(), (0, 0));
        assert_eq!(ledger.strictness(), strict);
    }

    #[test]
    fn a_journal_replayed_into_a_new_ledger_gives_the_same_state() {
        let ledger = Ledger::default();
        ledger.record(Receipt::Wrote {
            path: "/w/a".into(),
        });
        ledger.complete_step("write a");
        ledger.set_checklist(2, vec!["write a".into()]);
        let journal = ledger.take_journal();
        assert_eq!(journal.len(), 3);
        assert!(ledger.take_journal().is_empty());
        let text = serde_json::to_string(&journal).unwrap();
        let back: Vec<Entry> = serde_json::from_str(&text).unwrap();
        let resumed = Ledger::default();
        resumed.replay(&back);
        assert_eq!(resumed.receipts(), ledger.receipts());
        assert!(resumed.has_step("write a"));
        assert_eq!(resumed.checklist(), (2, 1));
        assert!(
            resumed.take_journal().is_empty(),
            "a replay is not written again"
        );
    }
}
