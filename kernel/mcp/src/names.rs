//! Tool names as the model sees them: `mcp__<server>__<tool>`.

/// Provider APIs accept `^[a-zA-Z0-9_-]{1,64}$` (OpenAI; Anthropic is close): every other
/// character of a server's tool name becomes `_`, and a name that would be longer is cut with
/// a short hash of the original so two long names stay apart.
pub const MAX_TOOL_NAME: usize = 64;

/// The name offered to the model for `tool` of `server` (a server name is already restricted
/// to letters, digits, `-` and `_` by the configuration).
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
    let full = format!("mcp__{server}__{clean}");
    if full.len() <= MAX_TOOL_NAME {
        return full;
    }
    let hash = &reasonix_core::sha256_hex(tool.as_bytes())[..8];
    let keep = MAX_TOOL_NAME - hash.len() - 1;
    format!("{}_{hash}", &full[..keep])
}

/// The prefix of every tool of `server`, for permission rules (`mcp__server`).
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

    proptest! {
        #[test]
        fn every_name_is_valid_for_providers(server in "[a-zA-Z0-9_-]{1,64}", tool in "\\PC{0,200}") {
            let name = tool_name(&server, &tool);
            prop_assert!(name.len() <= MAX_TOOL_NAME);
            prop_assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        }

        #[test]
        fn long_names_stay_apart(a in "[a-z]{70,90}", b in "[a-z]{70,90}") {
            prop_assume!(a != b);
            prop_assert_ne!(tool_name("s", &a), tool_name("s", &b));
        }
    }
}
