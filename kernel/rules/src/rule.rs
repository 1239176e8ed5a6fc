//! One permission rule: `Tool`, `Tool(specifier)` or the legacy `tool=literal`, in the
//! Claude Code syntax the original Reasonix uses.
//!
//! - `Bash` any command; `Bash(npm run build)` that exact command; `Bash(go test:*)` (or the
//!   legacy `Bash(go test *)`) commands starting with `go test`; `Bash(rm -rf*)` a glob.
//!   Prefix and glob grants never cover a command with shell operators, so
//!   `Bash(go test:*)` does not allow `go test ./... && rm -rf x`. A deny rule matches if any
//!   command the line may run matches, read as the shell would read it (quotes, wrappers like
//!   `env` or `sudo`, `bash -c` and `eval` code; see [`shell::may_run`]), and where that
//!   cannot be known (`$X push`) it matches.
//! - The families cover tools by what they are, read from their spec (see [`ToolKind`]), not
//!   by name: `Bash` every shell tool; `Edit(docs/**)` (also `Write`, `MultiEdit`,
//!   `NotebookEdit`) every file writer, the glob relative to the workspace unless it starts
//!   with `/`, a pattern without glob characters covering that path and everything under it;
//!   `Read`, `LS` (paths), `Grep`, `Glob` (patterns) every reader; `WebFetch(domain:…)` every
//!   fetcher.
//! - Any other name is matched against the tool name exactly (`mcp__github__create_issue`,
//!   `todo_write`), and `mcp__server` covers all tools of that server.

use crate::mcp_name as mcp;
use crate::shell;
use globset::{GlobBuilder, GlobMatcher};
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// Argument keys that hold a path the call touches.
const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "source_path",
    "destination_path",
    "notebook_path",
];

/// The paths a call's arguments name (`path`, `file_path`, …), in that order.
pub fn path_arguments(args: &serde_json::Value) -> Vec<&str> {
    PATH_KEYS
        .iter()
        .filter_map(|k| args.get(*k).and_then(|v| v.as_str()))
        .collect()
}

/// What a tool does, as far as rule families care. It is derived from the tool's spec (its
/// read-only flag and argument names), never from its name, so `Bash(…)` and `Edit(…)` cover
/// an installed plugin's shell or file tools exactly like the built-in ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Runs a `command` and may change things.
    Shell,
    /// May change the files its path arguments name.
    FileWriter,
    /// Only reads the files or patterns it is given.
    FileReader,
    /// Reads a `url`.
    Fetcher,
    Other,
}

impl ToolKind {
    /// The kind of a tool whose parameters are the JSON schema `parameters` and that is (or is
    /// not) read-only. The agent passes a read-only claim only when the plugin's grant backs it.
    pub fn described(parameters: &str, read_only: bool) -> ToolKind {
        let schema: serde_json::Value =
            serde_json::from_str(parameters).unwrap_or(serde_json::Value::Null);
        let has = |key: &str| schema.get("properties").and_then(|p| p.get(key)).is_some();
        let has_path = PATH_KEYS.iter().any(|k| has(k));
        match read_only {
            false if has("command") => ToolKind::Shell,
            false if has_path => ToolKind::FileWriter,
            true if has_path || has("pattern") => ToolKind::FileReader,
            _ if has("url") => ToolKind::Fetcher,
            _ => ToolKind::Other,
        }
    }
}

/// Which calls a rule is about.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Family {
    /// Every tool of a kind (`Bash`, `Edit`, `Read`, `WebFetch` …).
    Kind(ToolKind),
    /// One tool by exact name.
    Tool(String),
    /// Every tool of one MCP server (`mcp__server`).
    McpServer(String),
    /// One tool of one MCP server (`mcp__server__tool`): the server and the tool part.
    McpTool(String, String),
}

impl Family {
    fn parse(name: &str) -> Family {
        match name {
            "Bash" => Family::Kind(ToolKind::Shell),
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => Family::Kind(ToolKind::FileWriter),
            "Read" | "LS" | "Grep" | "Glob" => Family::Kind(ToolKind::FileReader),
            "WebFetch" => Family::Kind(ToolKind::Fetcher),
            other => {
                if let Some(server) = other
                    .strip_prefix("mcp__")
                    .filter(|s| mcp::valid_server_name(s))
                {
                    return Family::McpServer(server.to_string());
                }
                if let Some((server, tool)) = mcp::split_tool_name(other) {
                    return Family::McpTool(server.to_string(), tool.to_string());
                }
                Family::Tool(other.to_string())
            }
        }
    }

    /// MCP rules are matched on the (server, tool) pair read out of the tool's name, never on
    /// a prefix of it: `mcp__x` is server `x`'s tools and nothing of a server `x_` or `x__y`.
    fn covers(&self, tool: &str, kind: ToolKind) -> bool {
        match self {
            Family::Kind(k) => *k == kind,
            Family::Tool(name) => name == tool,
            Family::McpServer(server) => {
                mcp::split_tool_name(tool).is_some_and(|(s, _)| s == server)
            }
            Family::McpTool(server, name) => {
                mcp::split_tool_name(tool).is_some_and(|(s, t)| s == server && t == name)
            }
        }
    }
}

/// What a specifier says about the call's subject.
#[derive(Debug, Clone)]
enum Spec {
    /// `Bash(go test:*)`: the command, or the command followed by arguments.
    CommandPrefix(String),
    /// `Bash(npm run build)` / `bash=npm run build`: this command exactly (whitespace
    /// normalised).
    CommandExact(String),
    /// `Bash(rm -rf*)`.
    CommandGlob(GlobMatcher),
    /// `Edit(docs/**)`, `Read(/etc/*)`: paths the call touches.
    Path(PathPattern),
    /// `Grep(TODO*)`, `WebFetch(https://docs.rs/*)`: the `pattern` or `url` argument.
    Subject(GlobMatcher),
    /// `WebFetch(domain:docs.rs)`: the URL's host.
    Domain(String),
    /// The original's legacy `tool=literal`: the command, or a path, exactly.
    Literal(String),
}

#[derive(Debug, Clone)]
struct PathPattern {
    absolute: bool,
    /// Matches the path itself; for a pattern without glob characters also everything below.
    matchers: Vec<GlobMatcher>,
}

/// Whether the rule is checked as a grant (allow, ask) or a prohibition (deny).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    Grant,
    Deny,
}

/// A parsed rule.
#[derive(Debug, Clone)]
pub struct Rule {
    text: String,
    family: Family,
    spec: Option<Spec>,
}

/// Why a rule did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("permission rule `{rule}`: {reason}")]
pub struct RuleError {
    pub rule: String,
    pub reason: String,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Rule {
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let trimmed = text.trim();
        let fail = |reason: &str| RuleError {
            rule: text.to_string(),
            reason: reason.to_string(),
        };
        let (name, spec_text, legacy_literal) = if let Some(open) = trimmed.find('(') {
            if !trimmed.ends_with(')') {
                return Err(fail("a specifier must end with `)`"));
            }
            (
                &trimmed[..open],
                Some(&trimmed[open + 1..trimmed.len() - 1]),
                false,
            )
        } else if let Some((name, literal)) = trimmed.split_once('=') {
            (name, Some(literal), true)
        } else {
            (trimmed, None, false)
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(fail("the tool name is empty"));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            return Err(fail(
                "a tool name has only letters, digits, `_`, `-` and `.`; write `Tool` or `Tool(specifier)`",
            ));
        }
        let family = Family::parse(name);
        let spec = match spec_text.map(str::trim) {
            None => None,
            Some("") => {
                return Err(fail(
                    "the specifier in `()` is empty; write just the tool name to cover every call",
                ));
            }
            Some(spec) if legacy_literal => Some(Spec::Literal(shell::normalize(spec))),
            Some(spec) => Some(parse_spec(name, &family, spec).map_err(|e| fail(&e))?),
        };
        Ok(Rule {
            text: trimmed.to_string(),
            family,
            spec,
        })
    }

    /// Does the rule name a tool family (`Bash`, `Edit` …), an MCP server, or one of
    /// `tools`? The command line uses this to tell a rule from the words of a task.
    pub fn names_known_tool(&self, tools: &[String]) -> bool {
        match &self.family {
            Family::Kind(_) | Family::McpServer(_) => true,
            Family::McpTool(..) => tools.iter().any(|t| self.family.covers(t, ToolKind::Other)),
            Family::Tool(name) => tools.iter().any(|t| t == name),
        }
    }

    /// The rule as written (trimmed).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True for a `Bash(<exact command>)` or legacy `tool=literal` rule (an identical
    /// literal grant).
    pub fn is_exact_command(&self) -> bool {
        matches!(self.spec, Some(Spec::CommandExact(_) | Spec::Literal(_)))
    }

    /// Does this rule cover a call of `tool` with `args` in `workspace`?
    pub fn matches(
        &self,
        tool: &str,
        kind: ToolKind,
        args: &serde_json::Value,
        workspace: &Path,
        purpose: Use,
    ) -> bool {
        if !self.family.covers(tool, kind) {
            return false;
        }
        let Some(spec) = &self.spec else {
            return true;
        };
        match spec {
            Spec::CommandPrefix(_) | Spec::CommandExact(_) | Spec::CommandGlob(_) => {
                match args.get("command").and_then(|c| c.as_str()) {
                    Some(command) => command_matches(spec, command, purpose),
                    None => false,
                }
            }
            Spec::Path(pattern) => {
                let paths: Vec<&str> = PATH_KEYS
                    .iter()
                    .filter_map(|k| args.get(*k).and_then(|v| v.as_str()))
                    .collect();
                if paths.is_empty() {
                    return false;
                }
                let hit = |p: &&str| pattern.matches(p, workspace);
                match purpose {
                    // A grant must cover every path (a move out of `docs/` is not a docs edit);
                    // a prohibition any.
                    Use::Grant => paths.iter().all(hit),
                    Use::Deny => paths.iter().any(hit),
                }
            }
            Spec::Subject(glob) => ["pattern", "url"]
                .iter()
                .filter_map(|k| args.get(*k).and_then(|v| v.as_str()))
                .any(|s| glob.is_match(s)),
            Spec::Literal(literal) => {
                let command = args.get("command").and_then(|c| c.as_str());
                let command_hit = command.is_some_and(|c| match purpose {
                    Use::Grant => shell::normalize(c) == *literal,
                    Use::Deny => {
                        shell::segments(c)
                            .iter()
                            .chain([&shell::normalize(c)])
                            .any(|s| s == literal)
                            || shell::may_run(c, shell::Pattern::Exact(literal))
                    }
                });
                command_hit
                    || PATH_KEYS
                        .iter()
                        .filter_map(|k| args.get(*k).and_then(|v| v.as_str()))
                        .any(|p| p == literal)
            }
            Spec::Domain(domain) => args
                .get("url")
                .and_then(|v| v.as_str())
                .and_then(url_host)
                .is_some_and(|host| host == *domain || host.ends_with(&format!(".{domain}"))),
        }
    }
}

fn parse_spec(name: &str, family: &Family, spec: &str) -> Result<Spec, String> {
    match family {
        Family::Kind(ToolKind::Shell) => {
            let spec = shell::normalize(spec);
            if let Some(prefix) = spec.strip_suffix(":*").or_else(|| spec.strip_suffix(" *")) {
                let prefix = prefix.trim();
                if prefix.is_empty() {
                    return Err("the command prefix before `:*` is empty".into());
                }
                Ok(Spec::CommandPrefix(prefix.to_string()))
            } else if spec.contains('*') {
                Ok(Spec::CommandGlob(glob(&spec, false)?))
            } else {
                Ok(Spec::CommandExact(spec))
            }
        }
        _ if spec.starts_with("domain:") => Ok(Spec::Domain(
            spec.trim_start_matches("domain:")
                .trim()
                .to_ascii_lowercase(),
        )),
        Family::Kind(ToolKind::Fetcher) => Ok(Spec::Subject(glob(spec, false)?)),
        _ if name == "Grep" || name == "Glob" => Ok(Spec::Subject(glob(spec, false)?)),
        _ => Ok(Spec::Path(path_pattern(spec)?)),
    }
}

/// `literal_separator`: whether `*` stops at `/` (paths) or not (commands, subjects).
fn glob(pattern: &str, literal_separator: bool) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern)
        .literal_separator(literal_separator)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("invalid pattern: {e}"))
}

fn path_pattern(spec: &str) -> Result<PathPattern, String> {
    let spec = spec.trim();
    let absolute = spec.starts_with('/');
    let body = spec.trim_start_matches("./").trim_end_matches('/');
    let body = if body.is_empty() { "/" } else { body };
    let mut matchers = vec![glob(body, true)?];
    if !body.contains(['*', '?', '[', '{']) {
        let below = if body == "/" {
            "/**".to_string()
        } else {
            format!("{body}/**")
        };
        matchers.push(glob(&below, true)?);
    }
    Ok(PathPattern { absolute, matchers })
}

impl PathPattern {
    fn matches(&self, path: &str, workspace: &Path) -> bool {
        let absolute = lexical_absolute(path, workspace);
        let candidate = if self.absolute {
            absolute.to_string_lossy().into_owned()
        } else {
            match absolute.strip_prefix(workspace) {
                Ok(relative) => relative.to_string_lossy().into_owned(),
                // A relative pattern says nothing about paths outside the workspace.
                Err(_) => return false,
            }
        };
        self.matchers.iter().any(|m| m.is_match(&candidate))
    }
}

/// `path` made absolute against `workspace`, with `.` and `..` resolved lexically (a rule must
/// not be dodged by `docs/../src/x`).
fn lexical_absolute(path: &str, workspace: &Path) -> PathBuf {
    let joined = workspace.join(path);
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn command_matches(spec: &Spec, command: &str, purpose: Use) -> bool {
    let whole = shell::normalize(command);
    let prefix_hit = |candidate: &str, prefix: &str| {
        candidate == prefix || candidate.starts_with(&format!("{prefix} "))
    };
    match purpose {
        Use::Grant => match spec {
            Spec::CommandExact(exact) => whole == *exact,
            Spec::CommandPrefix(prefix) => {
                !shell::has_operators(command) && prefix_hit(&whole, prefix)
            }
            Spec::CommandGlob(glob) => !shell::has_operators(command) && glob.is_match(&whole),
            _ => false,
        },
        Use::Deny => {
            // The plain split is kept under the shell reading: a deny never matches less
            // than it did.
            let mut candidates = shell::segments(command);
            candidates.push(whole);
            let pattern = match spec {
                Spec::CommandExact(exact) => shell::Pattern::Exact(exact),
                Spec::CommandPrefix(prefix) => shell::Pattern::Prefix(prefix),
                Spec::CommandGlob(glob) => shell::Pattern::Glob(glob),
                _ => return false,
            };
            candidates.iter().any(|c| match spec {
                Spec::CommandExact(exact) => c == exact,
                Spec::CommandPrefix(prefix) => prefix_hit(c, prefix),
                Spec::CommandGlob(glob) => glob.is_match(c),
                _ => false,
            }) || shell::may_run(command, pattern)
        }
    }
}

fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => host.split(':').next()?,
    };
    Some(host.to_ascii_lowercase())
}

/// What the rules say about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn ws() -> PathBuf {
        PathBuf::from("/work/project")
    }

    /// Tools shaped like the built-in file writers.
    pub(crate) const WRITERS: &[&str] = &[
        "write_file",
        "edit_file",
        "multi_edit",
        "move_file",
        "delete_range",
        "notebook_edit",
    ];

    /// The kind of a tool shaped like the built-in of that name, classified from its spec.
    pub(crate) fn kind(tool: &str) -> ToolKind {
        let (read_only, props) = match tool {
            "bash" => (false, r#"{"command":{"type":"string"}}"#),
            "read_file" | "ls" => (true, r#"{"path":{"type":"string"}}"#),
            "grep" | "glob" => (true, r#"{"pattern":{"type":"string"}}"#),
            "web_fetch" => (true, r#"{"url":{"type":"string"}}"#),
            "move_file" => (false, r#"{"destination_path":{},"source_path":{}}"#),
            t if WRITERS.contains(&t) => (false, r#"{"path":{"type":"string"}}"#),
            _ => (false, "{}"),
        };
        ToolKind::described(
            &format!(r#"{{"properties":{props},"type":"object"}}"#),
            read_only,
        )
    }

    fn grant(rule: &str, tool: &str, args: serde_json::Value) -> bool {
        Rule::parse(rule)
            .unwrap()
            .matches(tool, kind(tool), &args, &ws(), Use::Grant)
    }

    fn deny(rule: &str, tool: &str, args: serde_json::Value) -> bool {
        Rule::parse(rule)
            .unwrap()
            .matches(tool, kind(tool), &args, &ws(), Use::Deny)
    }

    #[test]
    fn kinds_come_from_the_spec_not_the_name() {
        assert_eq!(kind("bash"), ToolKind::Shell);
        assert_eq!(kind("move_file"), ToolKind::FileWriter);
        assert_eq!(kind("grep"), ToolKind::FileReader);
        assert_eq!(kind("web_fetch"), ToolKind::Fetcher);
        assert_eq!(kind("todo_write"), ToolKind::Other);
        // An installed plugin's shell tool is a shell tool, whatever its name.
        let container =
            ToolKind::described(r#"{"properties":{"command":{"type":"string"}}}"#, false);
        assert_eq!(container, ToolKind::Shell);
        let bash = Rule::parse("Bash(ls:*)").unwrap();
        let args = json!({"command": "ls -l"});
        assert!(bash.matches("run_in_container", container, &args, &ws(), Use::Grant));
        assert!(!bash.matches("todo_write", ToolKind::Other, &args, &ws(), Use::Grant));
    }

    #[test]
    fn legacy_literals_match_a_command_or_a_path_exactly() {
        assert!(grant(
            "bash=npm run build",
            "bash",
            json!({"command": "npm  run build"})
        ));
        assert!(!grant(
            "bash=npm run build",
            "bash",
            json!({"command": "npm run build && x"})
        ));
        assert!(deny(
            "bash=rm -rf /",
            "bash",
            json!({"command": "ls; rm -rf /"})
        ));
        assert!(grant(
            "write_file=a.txt",
            "write_file",
            json!({"path": "a.txt"})
        ));
        assert!(!grant(
            "write_file=a.txt",
            "write_file",
            json!({"path": "b.txt"})
        ));
    }

    #[test]
    fn bare_bash_covers_every_command() {
        assert!(grant(
            "Bash",
            "bash",
            json!({"command": "anything && else"})
        ));
        assert!(!grant("Bash", "read_file", json!({"path": "a"})));
    }

    #[test]
    fn exact_command() {
        assert!(grant(
            "Bash(npm run build)",
            "bash",
            json!({"command": " npm  run build "})
        ));
        assert!(!grant(
            "Bash(npm run build)",
            "bash",
            json!({"command": "npm run build:prod"})
        ));
        assert!(grant(
            "bash=npm run build",
            "bash",
            json!({"command": "npm run build"})
        ));
    }

    #[test]
    fn prefix_never_covers_shell_operators() {
        let rule = "Bash(go test:*)";
        assert!(grant(rule, "bash", json!({"command": "go test"})));
        assert!(grant(rule, "bash", json!({"command": "go test ./..."})));
        assert!(!grant(rule, "bash", json!({"command": "go testify"})));
        for cmd in [
            "go test ./... && rm -rf x",
            "go test ./...; rm -rf x",
            "go test | sh",
            "go test $(rm -rf x)",
            "go test > /etc/passwd",
            "go test `id`",
            "go test ./...\nrm -rf x",
        ] {
            assert!(!grant(rule, "bash", json!({ "command": cmd })), "{cmd}");
        }
        // The legacy spelling means the same.
        assert!(grant(
            "Bash(go test *)",
            "bash",
            json!({"command": "go test -v"})
        ));
        assert!(!grant(
            "Bash(go test *)",
            "bash",
            json!({"command": "go test && x"})
        ));
    }

    #[test]
    fn deny_catches_a_command_hidden_in_a_chain() {
        assert!(deny(
            "Bash(rm -rf*)",
            "bash",
            json!({"command": "ls && rm -rf /"})
        ));
        assert!(deny(
            "Bash(rm:*)",
            "bash",
            json!({"command": "echo $(rm x)"})
        ));
        assert!(deny(
            "Bash(git push)",
            "bash",
            json!({"command": "git add . ; git  push"})
        ));
        assert!(!deny("Bash(rm:*)", "bash", json!({"command": "rmdir x"})));
    }

    #[test]
    fn edit_covers_every_file_writer_by_path() {
        for tool in WRITERS {
            let args = json!({"path": "docs/guide/intro.md"});
            assert!(grant("Edit(docs/**)", tool, args), "{tool}");
        }
        assert!(!grant(
            "Edit(docs/**)",
            "write_file",
            json!({"path": "src/main.rs"})
        ));
        assert!(!grant("Edit(docs/**)", "bash", json!({"command": "x"})));
        // `..` cannot dodge the rule, absolute paths inside the workspace count.
        assert!(!grant(
            "Edit(docs/**)",
            "write_file",
            json!({"path": "docs/../src/x"})
        ));
        assert!(grant(
            "Edit(docs/**)",
            "write_file",
            json!({"path": "/work/project/docs/a.md"})
        ));
        // A move needs both ends covered to be granted; either end to be denied.
        let mv = json!({"source_path": "docs/a.md", "destination_path": "src/a.md"});
        assert!(!grant("Edit(docs/**)", "move_file", mv.clone()));
        assert!(deny("Edit(docs/**)", "move_file", mv));
    }

    #[test]
    fn plain_path_covers_itself_and_below_and_absolute_patterns() {
        assert!(grant(
            "Edit(docs)",
            "write_file",
            json!({"path": "docs/a/b.md"})
        ));
        assert!(grant(
            "Edit(README.md)",
            "write_file",
            json!({"path": "README.md"})
        ));
        assert!(!grant(
            "Edit(docs)",
            "write_file",
            json!({"path": "docsx/a"})
        ));
        assert!(grant(
            "Read(/etc/**)",
            "read_file",
            json!({"path": "/etc/hosts"})
        ));
        assert!(!grant(
            "Read(docs/**)",
            "read_file",
            json!({"path": "/etc/hosts"})
        ));
        assert!(!grant(
            "Edit(*.md)",
            "write_file",
            json!({"path": "docs/a.md"})
        ));
        assert!(grant(
            "Edit(**/*.md)",
            "write_file",
            json!({"path": "docs/a.md"})
        ));
    }

    #[test]
    fn a_spec_the_args_do_not_expose_never_matches() {
        assert!(!grant(
            "Edit(docs/**)",
            "write_file",
            json!({"content": "x"})
        ));
        assert!(!grant("Bash(ls)", "bash", json!({"job_id": "bash-1"})));
    }

    #[test]
    fn mcp_names_and_servers() {
        assert!(grant(
            "mcp__github__create_issue",
            "mcp__github__create_issue",
            json!({})
        ));
        assert!(!grant(
            "mcp__github__create_issue",
            "mcp__github__close_issue",
            json!({})
        ));
        assert!(grant("mcp__github", "mcp__github__close_issue", json!({})));
        assert!(!grant("mcp__github", "mcp__githubx__a", json!({})));
    }

    /// A server rule covers its server's tools, read as the (server, tool) pair (server names
    /// never hold `__` nor end with `_`, so the server ends at the first `__`), and a tool rule
    /// only its own tool.
    #[test]
    fn mcp_rules_match_the_server_and_tool_pair() {
        // Server `x`'s tool `_y`: no server `x_` can exist.
        assert!(grant("mcp__x", "mcp__x___y", json!({})));
        assert!(!grant("mcp__x_", "mcp__x___y", json!({})));
        assert!(!grant("mcp__x__y", "mcp__x__y_z", json!({})));
        assert!(!grant("mcp__x", "mcp__x__", json!({})));
        assert!(!grant("mcp__x", "mcp_x__y", json!({})));
        assert!(grant("mcp__x", "mcp__x__y__z", json!({})));
        assert!(grant("mcp__x__y__z", "mcp__x__y__z", json!({})));
        assert!(!grant("mcp__x__y", "mcp__x__y__z", json!({})));
        let rule = Rule::parse("mcp__x__y").unwrap();
        assert!(rule.names_known_tool(&["mcp__x__y".to_string()]));
        assert!(!rule.names_known_tool(&["mcp__x__z".to_string()]));
    }

    #[test]
    fn web_fetch_domains_and_grep_patterns() {
        let url = |u: &str| json!({ "url": u });
        assert!(grant(
            "WebFetch(domain:docs.rs)",
            "web_fetch",
            url("https://docs.rs/x")
        ));
        assert!(grant(
            "WebFetch(domain:docs.rs)",
            "web_fetch",
            url("https://www.docs.rs/")
        ));
        assert!(!grant(
            "WebFetch(domain:docs.rs)",
            "web_fetch",
            url("https://evildocs.rs/")
        ));
        assert!(grant(
            "Grep(TODO*)",
            "grep",
            json!({"pattern": "TODO: fix"})
        ));
    }

    #[test]
    fn bad_rules_say_what_is_wrong() {
        for (rule, says) in [
            ("Bash(", "end with `)`"),
            ("Bash()", "empty"),
            ("(ls)", "tool name is empty"),
            ("Ba sh", "letters"),
            ("Bash(:*)", "prefix"),
            ("Edit([)", "invalid pattern"),
        ] {
            let err = Rule::parse(rule).unwrap_err().to_string();
            assert!(err.contains(rule) && err.contains(says), "{rule}: {err}");
        }
    }

    proptest! {
        #[test]
        fn parsing_never_panics(text in "\\PC{0,40}") {
            if let Ok(rule) = Rule::parse(&text) {
                let _ = rule.matches("bash", ToolKind::Shell, &json!({"command": text.clone(), "path": text}), &ws(), Use::Grant);
            }
        }

        #[test]
        fn prefix_grant_never_covers_a_chain(prefix in "[a-z]{1,8}( [a-z]{1,8})?", tail in "[a-z ]{0,12}") {
            let rule = format!("Bash({prefix}:*)");
            let command = format!("{prefix} {tail} && rm -rf /");
            let args = json!({ "command": command });
            prop_assert!(!grant(&rule, "bash", args));
        }
    }
}
