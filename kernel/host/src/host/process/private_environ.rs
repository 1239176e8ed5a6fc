//! Reasonix's own environment, kept from other programs of the same user.
//!
//! A key the user exported (`MY_PROVIDER_API_KEY`) stays in `/proc/<pid>/environ` for the life of
//! the process, whatever the process later removes from its environment: the file shows the
//! block the kernel set up at `exec`. Every program running as the same user can read it, and
//! Reasonix starts such programs: the user's own MCP servers run with the user's rights, and
//! their environment is an allow-list precisely so that they do not get the keys. Marking the
//! process not dumpable (`PR_SET_DUMPABLE 0`, as ssh-agent and gpg-agent do) makes its `/proc`
//! files root's, so only a process with `CAP_SYS_PTRACE` can read them, and no core dump of
//! Reasonix can write the keys to disk. It also refuses debuggers that attach to a running
//! Reasonix (start it under the debugger instead). Children are not affected: `exec` resets it.

/// Mark this process not dumpable. `Err` says why it could not be (the caller warns).
pub fn keep_environment_private() -> Result<(), String> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
            .map_err(|e| format!("cannot keep the process environment private: {e}"))
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn the_process_is_no_longer_dumpable() {
        // In a thread of the test process: the attribute is per process, and no other test
        // here depends on it.
        super::keep_environment_private().unwrap();
        assert_eq!(
            rustix::process::dumpable_behavior().unwrap(),
            rustix::process::DumpableBehavior::NotDumpable
        );
    }
}
