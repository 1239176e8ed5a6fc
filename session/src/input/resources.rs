//! `@<server>:<uri>` references: read through the server's `resources/read` and appended to the
//! turn, images attached. Read only from the user's own words: never from a command file's
//! template or a server's prompt text, so neither can make Reasonix read the user's resources.

use super::Turn;
use reasonix_mcp::Servers;

/// `text` with every `@<server>:<uri>` of `words` (the user's own words) that names a
/// configured server read and appended as `<resource ref="server:uri">…</resource>` (the
/// original's form), its images attached. A reference that cannot be read is an error naming
/// it.
pub fn with_resources(text: &str, words: &str, servers: &Servers) -> Result<Turn, String> {
    let resources = resource_blocks(words, servers)?;
    Ok(Turn {
        text: format!("{text}{}", resources.text),
        images: resources.images,
        words: None,
    })
}

/// The `<resource>` blocks for the references in `text`, each preceded by a blank line, and
/// the images among the resources (each also described in its block).
pub fn resource_blocks(text: &str, servers: &Servers) -> Result<Turn, String> {
    let names: Vec<String> = servers.statuses().into_iter().map(|s| s.name).collect();
    let mut appended = Turn::default();
    let mut seen: Vec<(String, String)> = Vec::new();
    for word in text.split_whitespace() {
        let Some(reference) = word.strip_prefix('@') else {
            continue;
        };
        let reference = reference.trim_end_matches(['.', ',', ';', ')', '"', '\'']);
        let Some((server, uri)) = reference.split_once(':') else {
            continue;
        };
        if uri.is_empty() || !names.iter().any(|n| n == server) {
            continue;
        }
        let key = (server.to_string(), uri.to_string());
        if seen.contains(&key) {
            continue;
        }
        let read = servers
            .read_resource(server, uri)
            .map_err(|e| format!("@{server}:{uri}: {e}"))?;
        appended.text.push_str(&format!(
            "\n\n<resource ref=\"{server}:{uri}\">\n{}\n</resource>",
            read.text
        ));
        appended.images.extend(read.images);
        seen.push(key);
    }
    Ok(appended)
}
