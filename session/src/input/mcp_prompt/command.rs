//! MCP prompts as commands, `/mcp__<server>__<prompt> args…`: the command name of a prompt,
//! and the expansion of such a line into the prompt's text (for `reasonix run`; the session
//! does the same off its UI thread).

use super::args as prompt_args;
use reasonix_mcp::{PromptInfo, Servers};

/// Longest prompt name offered as a command (longer ones are not listed).
const MAX_PROMPT_NAME: usize = 64;
/// What every prompt command starts with.
const PREFIX: &str = "/mcp__";

/// The command a prompt is typed as, without the slash; `None` for a name nobody could type
/// (empty, too long, or with characters other than letters, digits, `-_.:`).
pub fn command_name(prompt: &PromptInfo) -> Option<String> {
    let typable = !prompt.name.is_empty()
        && prompt.name.chars().count() <= MAX_PROMPT_NAME
        && prompt
            .name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    typable.then(|| format!("mcp__{}__{}", prompt.server, prompt.name))
}

/// The prompt a `/mcp__…` command names, among `prompts`.
pub fn find<'a>(prompts: &'a [PromptInfo], command: &str) -> Option<&'a PromptInfo> {
    prompts
        .iter()
        .find(|p| command_name(p).as_deref() == Some(command))
}

/// When `line` is a prompt command: the prompt's text from its server, or what is wrong
/// (unknown prompt, a missing argument, the server's error). `Ok(None)` for any other line.
pub fn expand(line: &str, servers: &Servers) -> Result<Option<String>, String> {
    let line = line.trim_start();
    if !line.starts_with(PREFIX) {
        return Ok(None);
    }
    let (command, args) = line[1..]
        .split_once(char::is_whitespace)
        .unwrap_or((&line[1..], ""));
    let prompts = servers.prompts();
    let Some(prompt) = find(&prompts, command) else {
        return Err(format!(
            "unknown command /{command}: no ready MCP server offers this prompt (see `reasonix mcp list`)"
        ));
    };
    let bound = prompt_args::bind(command, &prompt.arguments, args)?;
    let text = servers
        .get_prompt(&prompt.server, &prompt.name, bound)
        .map_err(|e| format!("/{command}: {e}"))?;
    if text.trim().is_empty() {
        return Err(format!("/{command}: the server returned an empty prompt"));
    }
    Ok(Some(text))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn prompt(server: &str, name: &str) -> PromptInfo {
        PromptInfo {
            server: server.into(),
            name: name.into(),
            description: String::new(),
            arguments: Vec::new(),
        }
    }

    #[test]
    fn a_typable_prompt_gets_a_command_name() {
        assert_eq!(
            command_name(&prompt("everything", "args-prompt")).as_deref(),
            Some("mcp__everything__args-prompt")
        );
    }

    #[test]
    fn names_nobody_could_type_are_not_commands() {
        for name in ["", "has space", "semi;colon", "new\nline", &"x".repeat(65)] {
            assert_eq!(command_name(&prompt("s", name)), None, "{name:?}");
        }
    }

    #[test]
    fn find_matches_the_whole_command() {
        let prompts = [prompt("s", "a"), prompt("s", "ab")];
        assert_eq!(
            find(&prompts, "mcp__s__ab").map(|p| &p.name[..]),
            Some("ab")
        );
        assert!(find(&prompts, "mcp__s__abc").is_none());
    }

    #[test]
    fn a_line_that_is_not_a_prompt_command_is_left_alone() {
        let servers = Servers::default();
        assert_eq!(expand("fix the bug in /mcp__x__y", &servers), Ok(None));
        let err = expand("/mcp__x__y now", &servers).unwrap_err();
        assert!(err.contains("unknown command /mcp__x__y"), "{err}");
    }
}
