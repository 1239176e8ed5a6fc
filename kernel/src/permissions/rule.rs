//! One permission rule: `Tool`, `Tool(specifier)` or the legacy `tool=literal`, in the
//! Claude Code syntax the original Reasonix uses.
//!
//! - `Bash` any command; `Bash(npm run build)` that exact command; `Bash(go test:*)` (or the
//!   legacy `Bash(go test *)`) commands starting with `go test`; `Bash(rm -rf*)` a glob.
//!   Prefix and glob grants never cover a command with shell operators, so
//!   `Bash(go test:*)` does not allow `go test ./... && rm -rf x`. A deny rule matches if any
//!   command of the line matches.
//! - `Edit(docs/**)` (also `Write`, `MultiEdit`, `NotebookEdit`) covers every file writer; the
//!   glob is relative to the workspace unless it starts with `/`; a pattern without glob
//!   characters covers that path and everything under it.
//! - `Read`, `Grep`, `Glob`, `LS`, `WebFetch`, `TodoWrite`, `BashOutput`, `KillShell` name the
//!   built-in tools; any other name is matched against the tool name exactly
//!   (`mcp__github__create_issue`), and `mcp__server` covers all tools of that server.

use super::shell;
use globset::{GlobBuilder, GlobMatcher};
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The built-in tools that change files; `Edit(…)` rules cover all of them.
pub const FILE_WRITERS: &[&str] = &[
    "write_file",
    "edit_file",
    "multi_edit",
    "move_file",
    "delete_range",
    "notebook_edit",
];

/// Argument keys that hold a path the call touches.
const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "source_path",
    "destination_path",
    "notebook_path",
];

/// Which calls a rule is about.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Family {
    Bash,
    FileWriters,
    /// One tool by exact name.
    Tool(String),
    /// Every tool of one MCP server (`mcp__server`).
    McpServer(String),
}

impl Family {
    fn parse(name: &str) -> Family {
        let builtin = match name {
            "Bash" | "bash" => return Family::Bash,
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => return Family::FileWriters,
            "Read" => "read_file",
            "Grep" => "grep",
            "Glob" => "glob",
            "LS" => "ls",
            "WebFetch" => "web_fetch",
            "TodoWrite" => "todo_write",
            "BashOutput" => "bash_output",
            "KillShell" => "kill_shell",
            other => {
                let parts: Vec<&str> = other.split("__").collect();
                if parts.len() == 2 && parts[0] == "mcp" {
                    return Family::McpServer(format!("{other}__"));
                }
                other
            }
        };
        Family::Tool(builtin.to_string())
    }

    fn covers(&self, tool: &str) -> bool {
        match self {
            Family::Bash => tool == "bash",
            Family::FileWriters => FILE_WRITERS.contains(&tool),
            Family::Tool(name) => name == tool,
            Family::McpServer(prefix) => tool.starts_with(prefix.as_str()),
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
            Some(spec) if legacy_literal => Some(match family {
                Family::Bash => Spec::CommandExact(shell::normalize(spec)),
                _ => Spec::Path(path_pattern(spec).map_err(|e| fail(&e))?),
            }),
            Some(spec) => Some(parse_spec(&family, spec).map_err(|e| fail(&e))?),
        };
        Ok(Rule {
            text: trimmed.to_string(),
            family,
            spec,
        })
    }

    /// The rule as written (trimmed).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True for a `Bash(<exact command>)` rule (an identical literal grant).
    pub fn is_exact_command(&self) -> bool {
        matches!(self.spec, Some(Spec::CommandExact(_)))
    }

    /// Does this rule cover a call of `tool` with `args` in `workspace`?
    pub fn matches(
        &self,
        tool: &str,
        args: &serde_json::Value,
        workspace: &Path,
        purpose: Use,
    ) -> bool {
        if !self.family.covers(tool) {
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
            Spec::Domain(domain) => args
                .get("url")
                .and_then(|v| v.as_str())
                .and_then(url_host)
                .is_some_and(|host| host == *domain || host.ends_with(&format!(".{domain}"))),
        }
    }
}

fn parse_spec(family: &Family, spec: &str) -> Result<Spec, String> {
    match family {
        Family::Bash => {
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
        Family::Tool(name) if name == "web_fetch" => match spec.strip_prefix("domain:") {
            Some(domain) => Ok(Spec::Domain(domain.trim().to_ascii_lowercase())),
            None => Ok(Spec::Subject(glob(spec, false)?)),
        },
        Family::Tool(name) if name == "grep" || name == "glob" => {
            Ok(Spec::Subject(glob(spec, false)?))
        }
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
            let mut candidates = shell::segments(command);
            candidates.push(whole);
            candidates.iter().any(|c| match spec {
                Spec::CommandExact(exact) => c == exact,
                Spec::CommandPrefix(prefix) => prefix_hit(c, prefix),
                Spec::CommandGlob(glob) => glob.is_match(c),
                _ => false,
            })
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn ws() -> PathBuf {
        PathBuf::from("/work/project")
    }

    fn grant(rule: &str, tool: &str, args: serde_json::Value) -> bool {
        Rule::parse(rule)
            .unwrap()
            .matches(tool, &args, &ws(), Use::Grant)
    }

    fn deny(rule: &str, tool: &str, args: serde_json::Value) -> bool {
        Rule::parse(rule)
            .unwrap()
            .matches(tool, &args, &ws(), Use::Deny)
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
        for tool in FILE_WRITERS {
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
                let _ = rule.matches("bash", &json!({"command": text.clone(), "path": text}), &ws(), Use::Grant);
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
