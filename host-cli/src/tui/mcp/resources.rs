//! `@<server>:<uri>` completion: first the servers that offer resources, then the URIs of the
//! one typed, filtered by what follows the `:`. What is sent is resolved by
//! [`reasonix_session::input::with_resources`] in the worker.

use crate::tui::mention::Candidate;
use reasonix_i18n::t;
use reasonix_mcp::ResourceInfo;

/// The resources of every ready server, as completion knows them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceIndex {
    resources: Vec<ResourceInfo>,
}

impl ResourceIndex {
    pub fn new(resources: Vec<ResourceInfo>) -> ResourceIndex {
        // A URI with whitespace cannot be written as one `@` word, so it cannot be offered.
        let resources = resources
            .into_iter()
            .filter(|r| !r.uri.is_empty() && !r.uri.chars().any(char::is_whitespace))
            .collect();
        ResourceIndex { resources }
    }

    /// Candidates for `partial` (the token after `@`): `server:` entries while no `:` is typed
    /// (they keep completing, like directories), then that server's URIs starting with what
    /// follows, then those whose URI or name contains it; at most `limit`.
    pub fn complete(&self, partial: &str, limit: usize) -> Vec<Candidate> {
        let partial = partial.strip_prefix('@').unwrap_or(partial);
        let Some((server, typed)) = partial.split_once(':') else {
            let lower = partial.to_lowercase();
            let mut servers: Vec<&str> = self
                .resources
                .iter()
                .map(|r| r.server.as_str())
                .filter(|s| s.to_lowercase().starts_with(&lower))
                .collect();
            servers.sort_unstable();
            servers.dedup();
            return servers
                .into_iter()
                .take(limit)
                .map(|s| {
                    let count = self.resources.iter().filter(|r| r.server == s).count();
                    Candidate {
                        display: format!("{s}:  {}", t!("mcp-resource-count", count = count)),
                        insert: format!("@{s}:"),
                        is_dir: true,
                    }
                })
                .collect();
        };
        let lower = typed.to_lowercase();
        let of_server = || self.resources.iter().filter(|r| r.server == server);
        let starts: Vec<&ResourceInfo> = of_server()
            .filter(|r| r.uri.to_lowercase().starts_with(&lower))
            .collect();
        let contains = of_server().filter(|r| {
            !r.uri.to_lowercase().starts_with(&lower)
                && (r.uri.to_lowercase().contains(&lower) || r.name.to_lowercase().contains(&lower))
        });
        starts
            .into_iter()
            .chain(contains)
            .take(limit)
            .map(|r| {
                let name = if r.name.is_empty() || r.name == r.uri {
                    String::new()
                } else {
                    format!("  {}", r.name)
                };
                Candidate {
                    display: format!("{}{name}", r.uri),
                    insert: format!("@{server}:{}", r.uri),
                    is_dir: false,
                }
            })
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn resource(server: &str, uri: &str, name: &str) -> ResourceInfo {
        ResourceInfo {
            server: server.into(),
            uri: uri.into(),
            name: name.into(),
            description: String::new(),
            mime_type: None,
        }
    }

    fn index() -> ResourceIndex {
        ResourceIndex::new(vec![
            resource("everything", "demo://static/features.md", "features.md"),
            resource(
                "everything",
                "demo://static/architecture.md",
                "architecture.md",
            ),
            resource("everything", "demo://dynamic/1", "Resource 1"),
            resource("docs", "file:///a b.txt", "spaced"),
            resource("docs", "file:///readme.md", "readme"),
        ])
    }

    fn inserts(c: &[Candidate]) -> Vec<&str> {
        c.iter().map(|c| c.insert.as_str()).collect()
    }

    #[test]
    fn servers_first_then_their_uris() {
        let ix = index();
        let all = ix.complete("", 50);
        assert_eq!(inserts(&all), ["@docs:", "@everything:"]);
        assert!(all.iter().all(|c| c.is_dir));
        assert!(all[1].display.contains("3 MCP resources"), "{all:?}");
        assert_eq!(inserts(&ix.complete("@Ev", 50)), ["@everything:"]);
        let uris = ix.complete("everything:", 50);
        assert_eq!(uris.len(), 3);
        assert!(uris.iter().all(|c| !c.is_dir));
        assert_eq!(
            inserts(&ix.complete("everything:demo://static/f", 50)),
            ["@everything:demo://static/features.md"]
        );
        // Prefix matches before substring (URI or name) matches.
        assert_eq!(
            inserts(&ix.complete("everything:arch", 50)),
            ["@everything:demo://static/architecture.md"]
        );
        assert_eq!(
            inserts(&ix.complete("everything:resource 1", 50)),
            ["@everything:demo://dynamic/1"]
        );
        assert!(ix.complete("nope:", 50).is_empty());
        assert!(ix.complete("zz", 50).is_empty());
        assert_eq!(ix.complete("everything:", 2).len(), 2);
    }

    #[test]
    fn uris_starting_with_the_text_come_before_those_containing_it() {
        let ix = ResourceIndex::new(vec![
            resource("s", "demo://features", "x"),
            resource("s", "features://1", "y"),
        ]);
        assert_eq!(
            inserts(&ix.complete("s:feat", 50)),
            ["@s:features://1", "@s:demo://features"]
        );
    }

    #[test]
    fn a_uri_with_whitespace_is_not_offered() {
        let ix = index();
        assert_eq!(
            inserts(&ix.complete("docs:", 50)),
            ["@docs:file:///readme.md"]
        );
    }
}
