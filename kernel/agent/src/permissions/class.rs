//! The permission class of a tool: what the rules and postures treat it as. It is at least
//! what the tool's plugin was granted ([`Effects`]), whatever the tool says about itself: a
//! plugin that may run commands serves shell tools, one that may write the workspace serves
//! writers, one that may reach the network serves fetchers. A tool's `read_only` claim counts
//! only when the grant backs it.

use super::rule::ToolKind;
use crate::tool::Effects;
use crate::types::ToolSpec;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolClass {
    /// What rule families (`Bash`, `Edit`, `Read`, `WebFetch`) see the tool as.
    pub kind: ToolKind,
    /// Runs without asking when no rule says otherwise, and in parallel with other readers.
    pub read_only: bool,
    /// Only rules naming the tool apply to it, never a family (an MCP server's tool: it runs
    /// with its server's rights, whatever its arguments look like).
    pub own_rules: bool,
}

impl ToolClass {
    pub fn of(spec: &ToolSpec, effects: Effects) -> ToolClass {
        let read_only = spec.read_only && effects.backs_read_only();
        let described = ToolKind::described(&spec.parameters, read_only);
        let kind = if effects.external {
            ToolKind::Other
        } else if effects.runs_commands {
            ToolKind::Shell
        } else if effects.writes_workspace
            && !read_only
            && matches!(
                described,
                ToolKind::FileReader | ToolKind::Fetcher | ToolKind::Other
            )
        {
            ToolKind::FileWriter
        } else if effects.fetches && described == ToolKind::Other {
            ToolKind::Fetcher
        } else {
            described
        };
        ToolClass {
            kind,
            read_only,
            own_rules: effects.external,
        }
    }
}

/// How `plugin install`, `plugin info` and `tools list` name a class.
impl fmt::Display for ToolClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match (self.kind, self.read_only) {
            (ToolKind::Shell, _) => "runs commands (asks like Bash)",
            (ToolKind::FileWriter, _) => "writes files (asks like Edit)",
            (ToolKind::Fetcher, true) => "fetches (read-only)",
            (ToolKind::Fetcher, false) => "fetches (asks)",
            (ToolKind::FileReader, _) => "reads files (read-only)",
            (ToolKind::Other, true) => "read-only",
            (ToolKind::Other, false) => "may change things (asks)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(parameters: &str, read_only: bool) -> ToolSpec {
        ToolSpec {
            name: "t".into(),
            description: String::new(),
            parameters: parameters.into(),
            read_only,
            guidance: None,
        }
    }

    const NONE: Effects = Effects {
        runs_commands: false,
        writes_workspace: false,
        fetches: false,
        external: false,
    };
    const PROCESS: Effects = Effects {
        runs_commands: true,
        ..NONE
    };
    const WRITE: Effects = Effects {
        writes_workspace: true,
        ..NONE
    };
    const NET: Effects = Effects {
        fetches: true,
        ..NONE
    };

    const PLAIN: &str = r#"{"properties":{"text":{"type":"string"}},"type":"object"}"#;
    const PATH: &str = r#"{"properties":{"path":{"type":"string"}},"type":"object"}"#;
    const URL: &str = r#"{"properties":{"url":{"type":"string"}},"type":"object"}"#;

    #[test]
    fn a_read_only_claim_counts_only_when_the_grant_backs_it() {
        assert_eq!(
            ToolClass::of(&spec(PLAIN, true), NONE),
            ToolClass {
                kind: ToolKind::Other,
                read_only: true,
                own_rules: false
            }
        );
        assert_eq!(
            ToolClass::of(&spec(PLAIN, true), PROCESS),
            ToolClass {
                kind: ToolKind::Shell,
                read_only: false,
                own_rules: false
            }
        );
        assert_eq!(
            ToolClass::of(&spec(PATH, true), WRITE),
            ToolClass {
                kind: ToolKind::FileWriter,
                read_only: false,
                own_rules: false
            }
        );
        // A read-only reader in a read-only plugin stays a reader.
        assert_eq!(
            ToolClass::of(&spec(PATH, true), NONE),
            ToolClass {
                kind: ToolKind::FileReader,
                read_only: true,
                own_rules: false
            }
        );
    }

    #[test]
    fn the_grant_raises_the_kind_never_lowers_it() {
        // A shell tool stays a shell tool in a plugin that may only write.
        let shell = r#"{"properties":{"command":{"type":"string"}},"type":"object"}"#;
        assert_eq!(
            ToolClass::of(&spec(shell, false), WRITE).kind,
            ToolKind::Shell
        );
        // A writer in a plugin that may run commands counts as a shell tool.
        assert_eq!(
            ToolClass::of(&spec(PATH, false), PROCESS).kind,
            ToolKind::Shell
        );
        // Network makes an argument-less tool a fetcher; a read-only fetcher stays read-only.
        assert_eq!(
            ToolClass::of(&spec(PLAIN, false), NET).kind,
            ToolKind::Fetcher
        );
        assert_eq!(
            ToolClass::of(&spec(URL, true), NET),
            ToolClass {
                kind: ToolKind::Fetcher,
                read_only: true,
                own_rules: false
            }
        );
        // Network alone does not take a read-only claim away.
        assert!(ToolClass::of(&spec(PLAIN, true), NET).read_only);
    }

    #[test]
    fn an_external_tool_is_no_family_whatever_its_arguments() {
        let mcp = Effects {
            runs_commands: true,
            writes_workspace: true,
            fetches: true,
            external: true,
        };
        let shell = r#"{"properties":{"command":{"type":"string"}},"type":"object"}"#;
        for schema in [shell, PATH, URL, PLAIN] {
            assert_eq!(
                ToolClass::of(&spec(schema, false), mcp),
                ToolClass {
                    kind: ToolKind::Other,
                    read_only: false,
                    own_rules: true
                },
                "{schema}"
            );
        }
        // A trusted read-only hint (no effects) stays read-only, still in no family.
        let hinted = Effects {
            external: true,
            ..NONE
        };
        assert_eq!(
            ToolClass::of(&spec(PATH, true), hinted),
            ToolClass {
                kind: ToolKind::Other,
                read_only: true,
                own_rules: true
            }
        );
    }
}
