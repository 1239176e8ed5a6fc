//! MCP tool names: `mcp__<server>__<tool>`, and which server names keep that readable.

/// The longest server name: `mcp__<server>__` must survive whole in every tool name, which
/// providers cap at 64 characters (see `reasonix_mcp::names`), with room left for the tool.
pub const MAX_SERVER_NAME: usize = 40;

/// Why `name` cannot name a server, or `None`. A server name becomes part of tool names
/// (`mcp__<server>__<tool>`) and rules name servers the same way (`mcp__<server>`), so the
/// server must be readable back out of a tool name: letters, digits, `-` and `_`, starting
/// with a letter or digit (the original's convention), never `__` (the separator: server
/// `x__y`'s tool `z` would read as server `x`'s tool `y__z`) and never ending in `_` (server
/// `x_`'s tool `y` and server `x`'s tool `_y` would both be `mcp__x___y`).
pub fn server_name_problem(name: &str) -> Option<String> {
    if name.is_empty() || name.len() > MAX_SERVER_NAME {
        return Some(format!(
            "a server name is 1 to {MAX_SERVER_NAME} characters (it starts every tool name, `mcp__<server>__<tool>`, which providers cap at 64)"
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Some("a server name is letters, digits, `-` and `_`".into());
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Some("a server name starts with a letter or a digit".into());
    }
    if name.contains("__") {
        return Some(format!(
            "a server name cannot contain `__`: it separates the server from the tool in `mcp__<server>__<tool>`, so `{name}` would read as server `{}`; use `-` or a single `_`",
            name.split("__").next().unwrap_or_default()
        ));
    }
    if name.ends_with('_') {
        return Some(format!(
            "a server name cannot end with `_`: `mcp__{name}__<tool>` would read as another server's tool"
        ));
    }
    None
}

/// The server and the tool part of an MCP tool name (`mcp__<server>__<tool>`), as
/// [`server_name_problem`] makes it unambiguous: the server ends at the first `__`. `None` for
/// a name that is not one.
pub fn split_tool_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (valid_server_name(server) && !tool.is_empty()).then_some((server, tool))
}

/// Whether `name` may name a server (see [`server_name_problem`]).
pub fn valid_server_name(name: &str) -> bool {
    server_name_problem(name).is_none()
}
