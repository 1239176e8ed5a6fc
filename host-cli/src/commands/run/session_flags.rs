//! `--session-id`, `--fork-session` and `--no-session-persistence`: which session a run writes
//! to, checked before anything starts.

use crate::exit::Failure;
use anyhow::anyhow;
use std::hash::{BuildHasher, Hasher};

/// What the session flags ask for, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionChoice {
    /// The id of the new session (or of the fork), lower-cased.
    pub id: Option<String>,
    pub fork: bool,
    pub no_persistence: bool,
    /// A flag that has nothing to act on (`--fork-session` without a session to resume).
    pub warnings: Vec<String>,
}

/// Check the session flags against each other; `resuming` is `--continue` or `--resume`.
pub fn choose(
    session_id: Option<&str>,
    fork: bool,
    no_persistence: bool,
    resuming: bool,
) -> Result<SessionChoice, Failure> {
    let mut choice = SessionChoice {
        fork: fork && resuming,
        no_persistence,
        ..SessionChoice::default()
    };
    if fork && !resuming {
        choice.warnings.push(
            "--fork-session has no effect without --resume or --continue: the run starts a new \
             session anyway"
                .into(),
        );
    }
    if fork && no_persistence {
        choice.warnings.push(
            "--fork-session has no effect with --no-session-persistence: nothing is written".into(),
        );
        choice.fork = false;
    }
    if let Some(id) = session_id {
        if !is_uuid(id) {
            return Err(Failure::usage(anyhow!(
                "--session-id {}: not a UUID (like 123e4567-e89b-12d3-a456-426614174000)",
                reasonix_core::terminal::shown(id)
            )));
        }
        if resuming && !fork {
            return Err(Failure::usage(anyhow!(
                "--session-id names a new session, and --resume/--continue go on in an existing \
                 one; add --fork-session to continue into a new session with this id"
            )));
        }
        choice.id = Some(id.to_ascii_lowercase());
    }
    Ok(choice)
}

/// `8-4-4-4-12` hexadecimal digits.
pub fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// A random (version 4) UUID for a run that writes no session: the output still names one.
pub fn ephemeral_id() -> String {
    let random = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(salt);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default(),
        );
        h.finish()
    };
    let bits = (u128::from(random(1)) << 64 | u128::from(random(2)))
        & !(0xf000 << 64 | 0xc000_0000_0000_0000)
        | (0x4000 << 64 | 0x8000_0000_0000_0000);
    let hex = format!("{bits:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_recognised() {
        assert!(is_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(is_uuid("123E4567-E89B-12D3-A456-426614174000"));
        assert!(!is_uuid("123e4567e89b12d3a456426614174000"));
        assert!(!is_uuid("../../etc/passwd"));
        assert!(!is_uuid("123e4567-e89b-12d3-a456-42661417400g"));
        let id = ephemeral_id();
        assert!(is_uuid(&id), "{id}");
        assert_eq!(&id[14..15], "4", "{id}");
        assert_ne!(id, ephemeral_id());
    }

    #[test]
    fn flags_are_checked_against_each_other() {
        let id = "123e4567-e89b-12d3-a456-426614174000";
        assert!(choose(Some(id), false, false, true).is_err());
        assert!(choose(Some("x"), false, false, false).is_err());
        let c = choose(Some(id), true, false, true).unwrap();
        assert!(c.fork && c.warnings.is_empty());
        let c = choose(None, true, false, false).unwrap();
        assert!(!c.fork && c.warnings.len() == 1);
    }
}
