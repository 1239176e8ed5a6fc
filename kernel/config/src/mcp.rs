//! MCP servers from configuration (issue #15): the original Reasonix's `[[plugins]]` entries and
//! Claude Code's `mcpServers` files (`.mcp.json` in a project, `<home>/mcp.json` for the user),
//! parsed into one [`ServerSpec`] each, merged by name with a documented precedence, with
//! `${VAR}` / `${VAR:-default}` expanded in the command, arguments, environment values, URL and
//! header values.
//!
//! Parsing only: nothing here starts a server. Whether a project's servers may start at all
//! (the user approved that `.mcp.json`) is decided by the caller, from [`Origin::kind`].

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a server's entry was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SourceKind {
    /// `projects.<workspace>.mcpServers` in `<home>/mcp.json`: the user's own servers for this
    /// one workspace (Claude Code's `local` scope). Highest precedence, as in Claude Code.
    LocalMcpJson,
    /// `[[plugins]]` in the project's `reasonix.toml`.
    ProjectToml,
    /// The project's `.mcp.json` (Claude Code's convention).
    ProjectMcpJson,
    /// `[[plugins]]` in `<home>/config.toml`.
    UserToml,
    /// `<home>/mcp.json`.
    UserMcpJson,
    /// An installed package's (`reasonix plugin install`): the user agreed to it at install.
    Package,
}

impl SourceKind {
    /// Project files come from the repository, not from the user: their servers start only
    /// once the user has approved the file.
    pub fn is_project(self) -> bool {
        matches!(self, SourceKind::ProjectToml | SourceKind::ProjectMcpJson)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: PathBuf,
    pub kind: SourceKind,
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// One persistent child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<String>,
    },
    /// Streamable HTTP: POST, JSON or SSE replies, `Mcp-Session-Id`.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
    /// The 2024-11-05 transport: a GET event stream that announces the POST endpoint.
    Sse {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// Calls to run one at a time or side by side (the original's `concurrency`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Concurrency {
    Parallel,
    Serial,
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    pub name: String,
    pub transport: Transport,
    /// Launch, initialize and the first `tools/list` together.
    pub startup_timeout: Option<Duration>,
    pub call_timeout: Option<Duration>,
    /// Per raw tool name (as the server calls it).
    pub tool_timeouts: BTreeMap<String, Duration>,
    pub enabled: bool,
    pub concurrency: Option<Concurrency>,
    /// `trust_read_only_hints = true`: a tool's `readOnlyHint` makes it read-only (no question
    /// under `ask`). Honoured only from the user's own files: a project file cannot declare its
    /// server's tools harmless.
    pub trust_read_only_hints: bool,
    /// `"sandbox": false` as written in the entry. Never honoured: only the user's
    /// `[mcp.<server>] sandbox = false` lets a project server run unconfined; a project entry
    /// saying so gets a warning (ADR 0026).
    pub sandbox_off_requested: bool,
    pub origin: Origin,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum McpConfigError {
    #[error("{file}:{line}:{column}: not a valid MCP server file: {message}")]
    Json {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: MCP server `{server}`: {message}")]
    Entry {
        file: String,
        server: String,
        message: String,
    },
}

/// `${VAR}` without a value and without a default.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("`${{{var}}}` is not set and has no default (write `${{{var}:-default}}`)")]
pub struct Unset {
    pub var: String,
}

/// Expand `${NAME}` and `${NAME:-default}` in `template`. `$` not followed by `{`, and a `${`
/// without a closing `}`, are kept as written. Expansion is one pass: a value containing
/// `${…}` is not expanded again.
pub fn expand(template: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, Unset> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (lookup(name).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(Unset {
                    var: name.to_string(),
                });
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Claude Code's entry shape, and the original's `[[plugins]]` keys (a superset).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Claude's `cwd`; the original's `dir`.
    #[serde(default, alias = "dir")]
    cwd: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    startup_timeout_seconds: Option<u64>,
    #[serde(default)]
    call_timeout_seconds: Option<u64>,
    #[serde(default)]
    tool_timeout_seconds: BTreeMap<String, u64>,
    /// The original's `auto_start = false` and Claude's `disabled = true` both keep a server
    /// configured but stopped.
    #[serde(default)]
    auto_start: Option<bool>,
    #[serde(default)]
    disabled: Option<bool>,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    concurrency: Option<Concurrency>,
    #[serde(default)]
    trust_read_only_hints: Option<bool>,
    #[serde(default)]
    sandbox: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct McpJson {
    #[serde(rename = "mcpServers", default)]
    servers: Entries,
}

/// The entries of `mcpServers` by name, a name written twice kept twice (a map would silently
/// keep the last one), sorted by name.
#[derive(Debug, Default)]
struct Entries(Vec<(String, serde_json::Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Entries, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of MCP servers by name")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, serde_json::Value>()? {
                    entries.push(entry);
                }
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// The servers of a Claude Code `mcpServers` file; the first entry that cannot be used fails
/// the whole file (for checks of one entry; loading uses [`mcp_json_entries`]).
pub fn from_mcp_json(
    file: &Path,
    text: &str,
    kind: SourceKind,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<ServerSpec>, McpConfigError> {
    mcp_json_entries(file, text, kind, lookup)?
        .into_iter()
        .collect()
}

/// Each entry of a Claude Code `mcpServers` file on its own: one that cannot be used (an unset
/// variable, an unknown key, a bad name) is an error naming it, and the others still load. Only
/// a file that is not such a JSON document at all fails as a whole (with line and column).
pub fn mcp_json_entries(
    file: &Path,
    text: &str,
    kind: SourceKind,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Result<ServerSpec, McpConfigError>>, McpConfigError> {
    let shown = file.display().to_string();
    let doc: McpJson = serde_json::from_str(text).map_err(|e| McpConfigError::Json {
        file: shown.clone(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let origin = Origin {
        file: file.to_path_buf(),
        kind,
    };
    let entries = doc
        .servers
        .0
        .into_iter()
        .map(|(name, value)| {
            let parsed = serde_json::from_value(value)
                .map_err(|e| McpConfigError::Entry {
                    file: shown.clone(),
                    server: name.clone(),
                    message: e.to_string(),
                })
                .and_then(|raw: RawEntry| spec(name.clone(), raw, &origin, lookup));
            (name, parsed)
        })
        .collect();
    Ok(refuse_duplicates(file, entries))
}

/// A configured number of seconds; `None` for none or 0 (the default applies).
fn seconds(value: Option<u64>) -> Option<Duration> {
    value.filter(|s| *s > 0).map(Duration::from_secs)
}

/// The servers of `[[plugins]]` entries (each a TOML table) of one config file.
pub fn from_plugins_toml(
    file: &Path,
    entries: &[toml::Value],
    kind: SourceKind,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<ServerSpec>, McpConfigError> {
    plugins_entries(file, entries, kind, lookup)
        .into_iter()
        .collect()
}

/// Each `[[plugins]]` entry of one file on its own (see [`from_plugins_entry`]), entries that
/// name the same server refused.
pub fn plugins_entries(
    file: &Path,
    entries: &[toml::Value],
    kind: SourceKind,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Vec<Result<ServerSpec, McpConfigError>> {
    let parsed = entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let written = entry
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or_default()
                .to_string();
            (written, from_plugins_entry(file, i, entry, kind, lookup))
        })
        .collect();
    refuse_duplicates(file, parsed)
}

/// Entry `index` (0-based) of a file's `[[plugins]]`.
pub fn from_plugins_entry(
    file: &Path,
    index: usize,
    entry: &toml::Value,
    kind: SourceKind,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerSpec, McpConfigError> {
    let shown = file.display().to_string();
    let origin = Origin {
        file: file.to_path_buf(),
        kind,
    };
    let label = entry
        .get("name")
        .and_then(|n| n.as_str())
        .map_or_else(|| format!("[[plugins]] #{}", index + 1), str::to_string);
    let raw: RawEntry =
        entry
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| McpConfigError::Entry {
                file: shown.clone(),
                server: label.clone(),
                message: e.message().to_string(),
            })?;
    let name = raw.name.clone().ok_or_else(|| McpConfigError::Entry {
        file: shown.clone(),
        server: label.clone(),
        message: "`name` is missing".into(),
    })?;
    spec(name, raw, &origin, lookup)
}

pub use reasonix_rules::mcp_name::{
    MAX_SERVER_NAME, server_name_problem, split_tool_name, valid_server_name,
};

/// The server name an entry's name stands for (spaces become `_`, as in the original), or why
/// it cannot be one.
fn server_name(name: &str) -> Result<String, String> {
    let name = name.trim().replace(' ', "_");
    match server_name_problem(&name) {
        None => Ok(name),
        Some(problem) => Err(problem),
    }
}

/// Entries of one file that stand for the same server name are all refused, each naming the
/// others: which one the user meant cannot be told, and starting either would be a guess.
/// (The same name in several files is the precedence of [`merge`], not a duplicate.)
fn refuse_duplicates(
    file: &Path,
    entries: Vec<(String, Result<ServerSpec, McpConfigError>)>,
) -> Vec<Result<ServerSpec, McpConfigError>> {
    let mut spellings: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (written, _) in &entries {
        if let Ok(name) = server_name(written) {
            spellings.entry(name).or_default().push(written.clone());
        }
    }
    entries
        .into_iter()
        .map(|(written, entry)| {
            let Some((name, all)) = server_name(&written)
                .ok()
                .and_then(|name| spellings.get(&name).map(|all| (name, all)))
                .filter(|(_, all)| all.len() > 1)
            else {
                return entry;
            };
            let listed = all
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(", ");
            Err(McpConfigError::Entry {
                file: file.display().to_string(),
                server: written,
                message: format!(
                    "{} entries of this file name the server `{name}` ({listed}); rename or remove all but one (none of them is started)",
                    all.len()
                ),
            })
        })
        .collect()
}

fn spec(
    name: String,
    raw: RawEntry,
    origin: &Origin,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerSpec, McpConfigError> {
    let file = origin.file.display().to_string();
    let fail = |message: String| McpConfigError::Entry {
        file: file.clone(),
        server: name.clone(),
        message,
    };
    let server = server_name(&name).map_err(fail)?;
    let x =
        |key: &str, value: &str| expand(value, lookup).map_err(|e| fail(format!("`{key}`: {e}")));
    let kind = raw.kind.as_deref().map(str::to_ascii_lowercase);
    let transport = match (kind.as_deref(), &raw.command, &raw.url) {
        (None | Some("stdio"), Some(command), None) => Transport::Stdio {
            command: x("command", command)?,
            args: raw
                .args
                .iter()
                .map(|a| x("args", a))
                .collect::<Result<_, _>>()?,
            env: raw
                .env
                .iter()
                .map(|(k, v)| Ok((k.clone(), x(&format!("env.{k}"), v)?)))
                .collect::<Result<_, McpConfigError>>()?,
            cwd: raw.cwd.as_deref().map(|c| x("cwd", c)).transpose()?,
        },
        (None | Some("http" | "streamable-http" | "streamable_http"), None, Some(url)) => {
            Transport::Http {
                url: x("url", url)?,
                headers: headers(&raw.headers, &x)?,
            }
        }
        (Some("sse"), None, Some(url)) => Transport::Sse {
            url: x("url", url)?,
            headers: headers(&raw.headers, &x)?,
        },
        (_, Some(_), Some(_)) => {
            return Err(fail(
                "both `command` and `url`: a server is either a process or a URL".into(),
            ));
        }
        (_, None, None) => {
            return Err(fail(
                "neither `command` (a process) nor `url` (http or sse)".into(),
            ));
        }
        (Some(other), _, _) => {
            return Err(fail(format!(
                "`type = \"{other}\"` does not fit the entry; use `stdio` with `command`, or `http` / `sse` with `url`"
            )));
        }
    };
    if let Transport::Http { url, .. } | Transport::Sse { url, .. } = &transport
        && !(url.starts_with("https://") || url.starts_with("http://"))
    {
        return Err(fail(format!("`url = \"{url}\"` is not an http(s) URL")));
    }
    let enabled = raw.enabled.unwrap_or(true)
        && raw.auto_start.unwrap_or(true)
        && !raw.disabled.unwrap_or(false);
    Ok(ServerSpec {
        name: server,
        transport,
        // 0 means "the default", as in `[tools]`, never an instant timeout.
        startup_timeout: seconds(raw.startup_timeout_seconds),
        call_timeout: seconds(raw.call_timeout_seconds),
        tool_timeouts: raw
            .tool_timeout_seconds
            .into_iter()
            .filter_map(|(tool, s)| Some((tool, seconds(Some(s))?)))
            .collect(),
        enabled,
        concurrency: raw.concurrency,
        trust_read_only_hints: raw.trust_read_only_hints.unwrap_or(false)
            && !origin.kind.is_project(),
        sandbox_off_requested: raw.sandbox == Some(false),
        origin: origin.clone(),
    })
}

fn headers(
    raw: &BTreeMap<String, String>,
    x: &dyn Fn(&str, &str) -> Result<String, McpConfigError>,
) -> Result<BTreeMap<String, String>, McpConfigError> {
    raw.iter()
        .map(|(k, v)| Ok((k.clone(), x(&format!("headers.{k}"), v)?)))
        .collect()
}

/// One list of servers by name. Precedence on a name in several files, highest first: the
/// user's local servers of this workspace, the project's `reasonix.toml`, the project's `.mcp.json`, the user's `config.toml`, the user's
/// `mcp.json` (the original's order). The winning entry is taken whole, not merged key by key.
pub fn merge(layers: impl IntoIterator<Item = ServerSpec>) -> Vec<ServerSpec> {
    let mut by_name: BTreeMap<String, ServerSpec> = BTreeMap::new();
    for spec in layers {
        match by_name.get(&spec.name) {
            Some(kept) if kept.origin.kind <= spec.origin.kind => {}
            _ => {
                by_name.insert(spec.name.clone(), spec);
            }
        }
    }
    by_name.into_values().collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn expansion_with_defaults_and_errors() {
        let lookup = env(&[("TOKEN", "abc"), ("EMPTY", "")]);
        assert_eq!(expand("Bearer ${TOKEN}", &lookup).unwrap(), "Bearer abc");
        assert_eq!(expand("${MISSING:-x}/${TOKEN}", &lookup).unwrap(), "x/abc");
        assert_eq!(expand("${EMPTY:-fallback}", &lookup).unwrap(), "fallback");
        assert_eq!(
            expand("cost $5, ${open", &lookup).unwrap(),
            "cost $5, ${open"
        );
        assert_eq!(
            expand("${MISSING}", &lookup).unwrap_err(),
            Unset {
                var: "MISSING".into()
            }
        );
        // One pass: a value is not expanded again.
        let lookup = env(&[("A", "${B}"), ("B", "no")]);
        assert_eq!(expand("${A}", &lookup).unwrap(), "${B}");
    }

    proptest! {
        #[test]
        fn text_without_a_dollar_brace_is_unchanged(s in "[^$]*") {
            prop_assert_eq!(expand(&s, &|_| None).unwrap(), s);
        }

        #[test]
        fn expansion_never_panics(s in ".*") {
            let _ = expand(&s, &|name| (name.len() % 2 == 0).then(|| name.to_string()));
        }
    }

    const CLAUDE: &str = r#"{
      "mcpServers": {
        "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${CLAUDE_PROJECT_DIR:-.}"], "env": { "DEBUG": "${DEBUG:-0}" } },
        "remote": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer ${API_TOKEN}" } },
        "legacy": { "type": "sse", "url": "http://127.0.0.1:9000/sse" },
        "off": { "command": "x", "disabled": true }
      }
    }"#;

    #[test]
    fn a_claude_code_file_parses_unchanged() {
        let lookup = env(&[("API_TOKEN", "t0k")]);
        let specs = from_mcp_json(
            Path::new("/p/.mcp.json"),
            CLAUDE,
            SourceKind::ProjectMcpJson,
            &lookup,
        )
        .unwrap();
        let by = |n: &str| specs.iter().find(|s| s.name == n).unwrap();
        assert_eq!(
            by("fs").transport,
            Transport::Stdio {
                command: "npx".into(),
                args: vec![
                    "-y".into(),
                    "@modelcontextprotocol/server-filesystem".into(),
                    ".".into()
                ],
                env: [("DEBUG".to_string(), "0".to_string())].into(),
                cwd: None,
            }
        );
        assert_eq!(
            by("remote").transport,
            Transport::Http {
                url: "https://mcp.example.com/mcp".into(),
                headers: [("Authorization".to_string(), "Bearer t0k".to_string())].into(),
            }
        );
        assert!(matches!(by("legacy").transport, Transport::Sse { .. }));
        assert!(!by("off").enabled);
        assert!(by("fs").origin.kind.is_project());
    }

    #[test]
    fn errors_name_the_file_the_server_and_the_problem() {
        let err = from_mcp_json(
            Path::new("/p/.mcp.json"),
            CLAUDE,
            SourceKind::ProjectMcpJson,
            &env(&[]),
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("/p/.mcp.json") && text.contains("`remote`"),
            "{text}"
        );
        assert!(text.contains("API_TOKEN"), "{text}");

        let err = from_mcp_json(
            Path::new("/p/.mcp.json"),
            "{\"mcpServers\": {\"a\": {\"command\": 1}}}",
            SourceKind::ProjectMcpJson,
            &env(&[]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("`a`"), "{err}");

        let err = from_mcp_json(
            Path::new("/p/.mcp.json"),
            "{\n  \"mcpServers\": [",
            SourceKind::ProjectMcpJson,
            &env(&[]),
        )
        .unwrap_err();
        assert!(
            matches!(err, McpConfigError::Json { line: 2, .. }),
            "{err:?}"
        );

        for (entry, says) in [
            (r#"{"url": "https://x", "command": "y"}"#, "both"),
            (r#"{"type": "sse"}"#, "neither"),
            (r#"{"type": "stdio", "url": "https://x"}"#, "does not fit"),
            (r#"{"url": "file:///etc/passwd"}"#, "not an http"),
            (r#"{"command": "x", "typo": 1}"#, "typo"),
        ] {
            let text = format!("{{\"mcpServers\": {{\"s\": {entry}}}}}");
            let err = from_mcp_json(
                Path::new("m.json"),
                &text,
                SourceKind::UserMcpJson,
                &env(&[]),
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains(says), "{entry}: {err}");
        }
        let err = from_mcp_json(
            Path::new("m.json"),
            r#"{"mcpServers": {"a/b": {"command": "x"}}}"#,
            SourceKind::UserMcpJson,
            &env(&[]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("server name"), "{err}");
    }

    #[test]
    fn reasonix_go_plugins_entries_parse_unchanged() {
        let doc: toml::Value = toml::from_str(
            r#"
[[plugins]]
name = "fs"
command = "node"
args = ["server.js", "${REASONIX_WORKSPACE_ROOT}"]
dir = "/srv"
startup_timeout_seconds = 10
call_timeout_seconds = 60
tool_timeout_seconds = { slow_tool = 600 }
concurrency = "serial"

[[plugins]]
name = "web search"
type = "http"
url = "https://search.example/mcp"
headers = { "X-Key" = "${SEARCH_KEY:-none}" }
auto_start = false
"#,
        )
        .unwrap();
        let entries = doc["plugins"].as_array().unwrap().clone();
        let lookup = env(&[("REASONIX_WORKSPACE_ROOT", "/w")]);
        let specs = from_plugins_toml(
            Path::new("/h/config.toml"),
            &entries,
            SourceKind::UserToml,
            &lookup,
        )
        .unwrap();
        assert_eq!(specs[0].name, "fs");
        assert_eq!(
            specs[0].transport,
            Transport::Stdio {
                command: "node".into(),
                args: vec!["server.js".into(), "/w".into()],
                env: BTreeMap::new(),
                cwd: Some("/srv".into()),
            }
        );
        assert_eq!(specs[0].startup_timeout, Some(Duration::from_secs(10)));
        assert_eq!(specs[0].call_timeout, Some(Duration::from_secs(60)));
        assert_eq!(
            specs[0].tool_timeouts.get("slow_tool"),
            Some(&Duration::from_secs(600))
        );
        assert_eq!(specs[0].concurrency, Some(Concurrency::Serial));
        assert_eq!(specs[1].name, "web_search");
        assert!(!specs[1].enabled);

        let nameless: Vec<toml::Value> = vec![toml::from_str("command = \"x\"").unwrap()];
        let err = from_plugins_toml(
            Path::new("c.toml"),
            &nameless,
            SourceKind::UserToml,
            &lookup,
        )
        .unwrap_err();
        assert!(err.to_string().contains("`name` is missing"), "{err}");
    }

    #[test]
    fn one_bad_entry_of_a_file_leaves_the_others() {
        let text = r#"{"mcpServers": {
            "good": {"command": "node", "args": ["a.js"]},
            "unset": {"command": "node", "env": {"K": "${NOT_SET_ANYWHERE}"}},
            "typo": {"comand": "node"},
            "bad name!": {"command": "node"}
        }}"#;
        let entries = mcp_json_entries(
            Path::new("/p/.mcp.json"),
            text,
            SourceKind::ProjectMcpJson,
            &env(&[]),
        )
        .unwrap();
        let good: Vec<&str> = entries
            .iter()
            .filter_map(|e| e.as_ref().ok())
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(good, ["good"]);
        let errors: Vec<String> = entries
            .iter()
            .filter_map(|e| e.as_ref().err())
            .map(ToString::to_string)
            .collect();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(
            errors
                .iter()
                .any(|e| e.contains("`unset`") && e.contains("NOT_SET_ANYWHERE")),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.contains("`typo`") && e.contains("comand")),
            "{errors:?}"
        );
        assert!(
            errors.iter().all(|e| e.contains("/p/.mcp.json")),
            "{errors:?}"
        );
        // The strict form (one entry checked at a time) still fails on the first bad one.
        assert!(
            from_mcp_json(
                Path::new("/p/.mcp.json"),
                text,
                SourceKind::ProjectMcpJson,
                &env(&[])
            )
            .is_err()
        );
        // Not JSON at all: the whole file, with its position.
        let err = mcp_json_entries(
            Path::new("/p/.mcp.json"),
            "{\n  nope",
            SourceKind::ProjectMcpJson,
            &env(&[]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("/p/.mcp.json"), "{err}");
    }

    #[test]
    fn a_timeout_of_zero_means_the_default() {
        let text = r#"{"mcpServers": {"s": {"command": "x",
            "startup_timeout_seconds": 0, "call_timeout_seconds": 0,
            "tool_timeout_seconds": {"a": 0, "b": 5}}}}"#;
        let specs = from_mcp_json(
            Path::new("u.json"),
            text,
            SourceKind::UserMcpJson,
            &env(&[]),
        )
        .unwrap();
        assert_eq!(specs[0].startup_timeout, None);
        assert_eq!(specs[0].call_timeout, None);
        assert_eq!(specs[0].tool_timeouts.get("a"), None);
        assert_eq!(
            specs[0].tool_timeouts.get("b"),
            Some(&Duration::from_secs(5))
        );
        let negative = r#"{"mcpServers": {"s": {"command": "x", "call_timeout_seconds": -1}}}"#;
        let err = from_mcp_json(
            Path::new("u.json"),
            negative,
            SourceKind::UserMcpJson,
            &env(&[]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("`s`"), "{err}");
    }

    #[test]
    fn the_most_specific_file_wins_a_name_whole() {
        let spec = |name: &str, kind: SourceKind, command: &str| ServerSpec {
            name: name.into(),
            transport: Transport::Stdio {
                command: command.into(),
                args: vec![],
                env: BTreeMap::new(),
                cwd: None,
            },
            startup_timeout: None,
            call_timeout: None,
            tool_timeouts: BTreeMap::new(),
            enabled: true,
            concurrency: None,
            trust_read_only_hints: false,
            sandbox_off_requested: false,
            origin: Origin {
                file: PathBuf::from("f"),
                kind,
            },
        };
        let merged = merge([
            spec("a", SourceKind::UserMcpJson, "user-json"),
            spec("a", SourceKind::ProjectToml, "project-toml"),
            spec("a", SourceKind::UserToml, "user-toml"),
            spec("b", SourceKind::UserToml, "b"),
            spec("a", SourceKind::ProjectMcpJson, "project-json"),
        ]);
        assert_eq!(merged.len(), 2);
        assert!(
            matches!(&merged[0].transport, Transport::Stdio { command, .. } if command == "project-toml")
        );
    }
}
