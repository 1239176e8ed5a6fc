//! Tool names as the model sees them: `mcp__<server>__<tool>`.
//!
//! A name must say which server serves the tool, because permission rules are matched on the
//! (server, tool) pair read back out of it ([`reasonix_config::mcp::split_tool_name`]).
//! Server names never contain `__` nor end with `_` and are at most
//! [`MAX_SERVER_NAME`] long, so `mcp__<server>__` is kept whole in every name, and two servers'
//! tools never share a name. Two tools of one server can (`a.b` and `a_b`): the manager offers
//! neither of them (see [`crate::Servers::tools`]).

use reasonix_config::mcp::MAX_SERVER_NAME;

/// Provider APIs accept `^[a-zA-Z0-9_-]{1,64}$` (OpenAI; Anthropic is close): every other
/// character of a server's tool name becomes `_`, and a name that would be longer is cut with
/// a short hash of the original so two long names stay apart.
pub const MAX_TOOL_NAME: usize = 64;
/// `_` and 8 hex digits of the hash at the end of a cut name.
const HASH_SUFFIX: usize = 9;
const _: () = assert!(5 + MAX_SERVER_NAME + 2 + 1 + HASH_SUFFIX <= MAX_TOOL_NAME);

/// The name offered to the model for `tool` of `server` (a server name is already restricted
/// by the configuration, see [`reasonix_config::mcp::server_name_problem`]).
pub fn tool_name(server: &str, tool: &str) -> String {
    let clean: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let prefix = server_prefix(server);
    if prefix.len() + clean.len() <= MAX_TOOL_NAME {
        return format!("{prefix}{clean}");
    }
    // Only the tool part is cut: the server stays readable whole.
    let hash = &reasonix_core::sha256_hex(tool.as_bytes())[..HASH_SUFFIX - 1];
    let keep = MAX_TOOL_NAME.saturating_sub(prefix.len() + HASH_SUFFIX);
    format!("{prefix}{}_{hash}", &clean[..keep.min(clean.len())])
}

/// The prefix of every tool of `server` (`mcp__server__`).
pub fn server_prefix(server: &str) -> String {
    format!("mcp__{server}__")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_names_are_kept() {
        assert_eq!(tool_name("fs", "read_file"), "mcp__fs__read_file");
        assert_eq!(tool_name("fs", "get.thing"), "mcp__fs__get_thing");
    }

    #[test]
    fn a_long_name_keeps_its_server_whole() {
        let name = tool_name("a-forty-character-server-name-0123456789", &"t".repeat(80));
        assert!(name.len() <= MAX_TOOL_NAME, "{name}");
        assert_eq!(
            reasonix_config::mcp::split_tool_name(&name).map(|(s, _)| s),
            Some("a-forty-character-server-name-0123456789")
        );
    }

    proptest! {
        #[test]
        fn every_name_is_valid_for_providers(server in "[a-zA-Z0-9][a-zA-Z0-9-]{0,39}", tool in "\\PC{0,200}") {
            let name = tool_name(&server, &tool);
            prop_assert!(name.len() <= MAX_TOOL_NAME);
            prop_assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        }

        /// The server read back out of any tool's name is the server that serves it, so no
        /// two servers' tools can share a name.
        #[test]
        fn the_server_is_read_back_out_of_every_name(
            server in "[a-zA-Z0-9]([a-zA-Z0-9-]|_[a-zA-Z0-9-]){0,19}",
            tool in "[a-zA-Z0-9_.-]{1,100}",
        ) {
            prop_assume!(reasonix_config::mcp::valid_server_name(&server));
            let name = tool_name(&server, &tool);
            let split = reasonix_config::mcp::split_tool_name(&name);
            prop_assert_eq!(split.map(|(s, _)| s), Some(server.as_str()), "{}", name);
        }

        #[test]
        fn long_names_stay_apart(a in "[a-z]{70,90}", b in "[a-z]{70,90}") {
            prop_assume!(a != b);
            prop_assert_ne!(tool_name("s", &a), tool_name("s", &b));
        }
    }
}
