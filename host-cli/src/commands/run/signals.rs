//! Ctrl-C and SIGTERM during `reasonix run`: the first one cancels the run (the agent stops,
//! the in-flight request is dropped, every completed message is already in the session file);
//! a second one exits at once with 130.

use crate::term;
use reasonix_core::cancel::CancelToken;
use std::sync::atomic::{AtomicU32, Ordering};

/// Exit status after a second interrupt (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Install the handler for this process. An error (a handler already set) is returned for the
/// caller to report; the run then simply cannot be cancelled cleanly.
pub fn install(cancel: CancelToken) -> Result<(), ctrlc::Error> {
    let count = AtomicU32::new(0);
    // ctrlc runs this on its own thread, not in signal context: printing is fine.
    ctrlc::set_handler(move || {
        if count.fetch_add(1, Ordering::SeqCst) == 0 {
            cancel.cancel();
            term::write_err(
                "\ninterrupted: stopping the run and saving the session (press Ctrl-C again to quit at once)\n",
            );
        } else {
            std::process::exit(EXIT_INTERRUPTED);
        }
    })
}
