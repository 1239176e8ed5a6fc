//! Which earlier session a front end goes on with.

/// Which session to go on with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// `--continue`: the latest of the workspace.
    Latest,
    /// `--resume <id|text>`.
    Query(String),
}
