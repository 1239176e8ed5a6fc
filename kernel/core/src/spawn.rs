//! One lock for every spawn that hands a descriptor to a sandboxed child.
//!
//! Such a spawn clears close-on-exec on the descriptor (the child must find it under its own
//! number), spawns, and closes it. A second such spawn in that window, from another thread,
//! would inherit the first one's descriptor too: a sandboxed job could read the environment
//! of a sandboxed MCP server. Jobs (the host's spawner) and MCP servers take this lock.

use std::sync::{Mutex, MutexGuard, PoisonError};

static INHERITING: Mutex<()> = Mutex::new(());

/// Held while a descriptor is inheritable.
pub fn inheriting_spawn() -> MutexGuard<'static, ()> {
    INHERITING.lock().unwrap_or_else(PoisonError::into_inner)
}
