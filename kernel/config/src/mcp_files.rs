//! The files that configure MCP servers, as files: Claude Code `mcpServers` documents
//! (`<home>/mcp.json`, a project's `.mcp.json`) read and edited in place for `reasonix mcp
//! add|remove|import`, and every configured server of every source listed with where it
//! was written (for `reasonix mcp list|get`).
//!
//! An edit changes only the `mcpServers` entry it is about: other entries and unknown
//! top-level keys are written back as they were read (object keys in sorted order, values
//! unchanged). A file that is not valid JSON is never written: the error names it and the
//! line and column. Writes go through a temporary file in the same directory and a rename, so
//! a failed write leaves the previous file whole.

use super::mcp::{
    McpConfigError, Origin, ServerSpec, SourceKind, from_mcp_json, from_plugins_toml,
};
use super::trust::PROJECT_MCP_JSON;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The user's MCP server file, under `<home>`.
pub const USER_MCP_JSON: &str = "mcp.json";

/// `<home>/mcp.json`.
pub fn user_file(home: &Path) -> PathBuf {
    home.join(USER_MCP_JSON)
}

/// `<workspace>/.mcp.json`.
pub fn project_file(workspace: &Path) -> PathBuf {
    workspace.join(PROJECT_MCP_JSON)
}

const SERVERS: &str = "mcpServers";
const PROJECTS: &str = "projects";

#[derive(Debug, thiserror::Error)]
pub enum McpFileError {
    #[error(
        "{file}:{line}:{column}: not valid JSON: {message}; fix the file first (it was left unchanged)"
    )]
    Json {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}; fix the file first (it was left unchanged)")]
    Shape { file: String, message: String },
    #[error("{file}: cannot read: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}: cannot write: {source}")]
    Write {
        file: String,
        source: std::io::Error,
    },
    #[error("`{name}` is not a valid MCP server name: {reason}")]
    Name { name: String, reason: String },
    #[error(
        "an MCP server named `{name}` is already in {file}; pass --force to replace it, or `reasonix mcp remove {name}` first"
    )]
    Exists { name: String, file: String },
    #[error(transparent)]
    Entry(#[from] McpConfigError),
}

/// Whether `name` may name a server (what [`super::mcp`] accepts, without its `space → _`
/// leniency for old files).
pub use super::mcp::valid_server_name;

/// One `mcpServers` file, parsed, with everything in it kept for writing back.
#[derive(Debug, Clone)]
pub struct McpFile {
    path: PathBuf,
    root: Map<String, Value>,
    existed: bool,
    /// sha256 of the bytes read (`None` when there was no file).
    sha256: Option<String>,
    /// The servers edited are those of `projects.<this>.mcpServers` (one workspace's local
    /// servers in `<home>/mcp.json`), not the top-level `mcpServers`.
    project: Option<String>,
}

/// The key of `workspace` in the `projects` table of `<home>/mcp.json` (as in Claude Code's
/// `~/.claude.json`): its absolute path as given (callers pass the canonical one).
pub fn project_key(workspace: &Path) -> String {
    workspace.to_string_lossy().into_owned()
}

/// `projects.<workspace>.mcpServers` of a parsed document: the local servers of one workspace
/// (the key with or without a trailing separator).
fn project_servers<'a>(root: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    let projects = root.get(PROJECTS)?.as_object()?;
    let project = projects
        .get(key)
        .or_else(|| projects.get(key.trim_end_matches(std::path::MAIN_SEPARATOR)))?;
    project.get(SERVERS)
}

/// The local servers of `workspace` in the text of `<home>/mcp.json`, as a document of their
/// own (`{"mcpServers": …}`), or `None` when it has none (or is not valid JSON: the user file's
/// own reading reports that).
pub fn local_servers_document(text: &str, workspace: &Path) -> Option<String> {
    let root: Map<String, Value> = serde_json::from_str(text).ok()?;
    let servers = project_servers(&root, &project_key(workspace))?;
    Some(serde_json::json!({ SERVERS: servers }).to_string())
}

impl McpFile {
    /// Read `path`; a missing file is an empty document. A file that is not a JSON object, or
    /// whose `mcpServers` is not an object, is an error naming it.
    pub fn load(path: &Path) -> Result<McpFile, McpFileError> {
        let file = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(McpFile {
                    path: path.to_path_buf(),
                    root: Map::new(),
                    existed: false,
                    sha256: None,
                    project: None,
                });
            }
            Err(source) => return Err(McpFileError::Read { file, source }),
        };
        let root = parse_root(&file, &text)?;
        Ok(McpFile {
            path: path.to_path_buf(),
            root,
            existed: true,
            sha256: Some(reasonix_core::sha256_hex(text.as_bytes())),
            project: None,
        })
    }

    /// The local servers of `workspace` in the user's file `path` (`<home>/mcp.json`):
    /// `projects.<workspace>.mcpServers`, edited in place, the rest of the file kept.
    pub fn load_local(path: &Path, workspace: &Path) -> Result<McpFile, McpFileError> {
        let mut file = McpFile::load(path)?;
        file.select(Some(workspace))?;
        Ok(file)
    }

    /// Edit the local servers of `workspace` from now on, or the top-level `mcpServers` with
    /// `None`: one document, so edits to both reach the file in one write.
    pub fn select(&mut self, workspace: Option<&Path>) -> Result<(), McpFileError> {
        let Some(workspace) = workspace else {
            self.project = None;
            return Ok(());
        };
        let key = project_key(workspace);
        if let Some(servers) = project_servers(&self.root, &key)
            && !servers.is_object()
        {
            return Err(McpFileError::Shape {
                file: self.path.display().to_string(),
                message: format!(
                    "`projects.\"{key}\".mcpServers` is not an object of servers by name"
                ),
            });
        }
        self.project = Some(key);
        Ok(())
    }

    /// The `mcpServers` object edited, if there is one.
    fn servers_value(&self) -> Option<&Value> {
        match &self.project {
            None => self.root.get(SERVERS),
            Some(key) => project_servers(&self.root, key),
        }
    }

    /// The `mcpServers` object edited, created when missing.
    fn servers_mut(&mut self) -> Result<&mut Map<String, Value>, McpFileError> {
        let file = self.path.display().to_string();
        let shape = |message: String| McpFileError::Shape {
            file: file.clone(),
            message,
        };
        let table = match &self.project {
            None => &mut self.root,
            Some(key) => {
                let projects = self
                    .root
                    .entry(PROJECTS)
                    .or_insert_with(|| Value::Object(Map::new()))
                    .as_object_mut()
                    .ok_or_else(|| shape("`projects` is not an object".into()))?;
                let trimmed = key.trim_end_matches(std::path::MAIN_SEPARATOR);
                let existing =
                    if !projects.contains_key(key.as_str()) && projects.contains_key(trimmed) {
                        trimmed.to_string()
                    } else {
                        key.clone()
                    };
                projects
                    .entry(existing)
                    .or_insert_with(|| Value::Object(Map::new()))
                    .as_object_mut()
                    .ok_or_else(|| shape(format!("`projects.\"{key}\"` is not an object")))?
            }
        };
        table
            .entry(SERVERS)
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .ok_or_else(|| shape("`mcpServers` is not an object of servers by name".into()))
    }

    /// sha256 of the file as it was read: what an approval of what was shown must pin.
    pub fn loaded_sha256(&self) -> Option<&str> {
        self.sha256.as_deref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file was there when read.
    pub fn existed(&self) -> bool {
        self.existed
    }

    /// The entries of `mcpServers`, by name (sorted), as written.
    pub fn servers(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.servers_value()
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.servers_value()?.as_object()?.get(name)
    }

    /// Add `entry` as server `name`. An existing entry of that name is an error unless
    /// `replace`; then the old entry is returned. The entry is checked as
    /// [`check_entry`] does.
    pub fn insert(
        &mut self,
        name: &str,
        entry: Value,
        replace: bool,
    ) -> Result<Option<Value>, McpFileError> {
        if let Some(reason) = super::mcp::server_name_problem(name) {
            return Err(McpFileError::Name {
                name: name.into(),
                reason,
            });
        }
        check_entry(&self.path, name, &entry)?;
        if self.get(name).is_some() && !replace {
            return Err(McpFileError::Exists {
                name: name.into(),
                file: self.path.display().to_string(),
            });
        }
        Ok(self.servers_mut()?.insert(name.to_string(), entry))
    }

    /// Remove server `name`; the entry when it was there.
    pub fn remove(&mut self, name: &str) -> Option<Value> {
        // Only an edit that removes something creates the sections on the way to it.
        self.get(name)?;
        self.servers_mut().ok()?.remove(name)
    }

    /// The document as it will be written: pretty JSON (two spaces, as Claude Code writes it)
    /// and a final newline.
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.root).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }

    /// sha256 of [`McpFile::to_text`]: what [`McpFile::save`] writes.
    pub fn text_sha256(&self) -> String {
        reasonix_core::sha256_hex(self.to_text().as_bytes())
    }

    /// Write the file atomically (creating its directory). `private`: mode 0600 (the user's
    /// file, whose headers and env may hold tokens); otherwise an existing file keeps its
    /// mode and a new one gets 0644. A symbolic link is written through to its target.
    pub fn save(&self, private: bool) -> Result<(), McpFileError> {
        let target = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        let io = |source| McpFileError::Write {
            file: self.path.display().to_string(),
            source,
        };
        let dir = target.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(io)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        std::io::Write::write_all(&mut tmp, self.to_text().as_bytes()).map_err(io)?;
        set_mode(tmp.as_file(), &target, private).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(&target).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// The workspace files this file's stdio servers execute, pinned now (ADR 0026): what an
    /// approval of the file records beside its sha256.
    pub fn pins(
        &self,
        workspace: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Vec<super::PinnedFile> {
        let specs: Vec<ServerSpec> = self
            .specs(SourceKind::ProjectMcpJson, lookup)
            .into_iter()
            .filter_map(|(_, _, spec)| spec.ok())
            .collect();
        super::pins::pin(workspace, &super::pins::server_files(workspace, &specs))
    }

    /// Each entry parsed as Reasonix will start it, one result per entry (a broken entry does
    /// not hide the others).
    pub fn specs(
        &self,
        kind: SourceKind,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Vec<(String, Value, Result<ServerSpec, McpConfigError>)> {
        self.servers()
            .map(|(name, entry)| {
                let spec = parse_one(&self.path, name, entry, kind, lookup);
                (name.clone(), entry.clone(), spec)
            })
            .collect()
    }
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, target: &Path, private: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = if private {
        0o600
    } else {
        std::fs::metadata(target).map_or(0o644, |m| m.permissions().mode() & 0o7777)
    };
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &std::fs::File, _: &Path, _: bool) -> std::io::Result<()> {
    Ok(())
}

fn parse_root(file: &str, text: &str) -> Result<Map<String, Value>, McpFileError> {
    let value: Value = serde_json::from_str(text).map_err(|e| McpFileError::Json {
        file: file.to_string(),
        line: e.line(),
        column: e.column(),
        message: without_position(&e),
    })?;
    let Value::Object(root) = value else {
        return Err(McpFileError::Shape {
            file: file.to_string(),
            message: "the document is not a JSON object (expected `{\"mcpServers\": {…}}`)".into(),
        });
    };
    match root.get(SERVERS) {
        None | Some(Value::Object(_)) => Ok(root),
        Some(_) => Err(McpFileError::Shape {
            file: file.to_string(),
            message: "`mcpServers` is not an object of servers by name".into(),
        }),
    }
}

fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

fn parse_one(
    file: &Path,
    name: &str,
    entry: &Value,
    kind: SourceKind,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerSpec, McpConfigError> {
    let mut servers = Map::new();
    servers.insert(name.to_string(), entry.clone());
    let mut doc = Map::new();
    doc.insert(SERVERS.to_string(), Value::Object(servers));
    let text = Value::Object(doc).to_string();
    let mut specs = from_mcp_json(file, &text, kind, lookup)?;
    specs.pop().ok_or_else(|| McpConfigError::Entry {
        file: file.display().to_string(),
        server: name.to_string(),
        message: "the entry did not parse".into(),
    })
}

/// Check that `entry` is one Reasonix can start, with `${VAR}` references standing for any
/// value (they are expanded when the server starts, from that environment).
pub fn check_entry(file: &Path, name: &str, entry: &Value) -> Result<(), McpConfigError> {
    let any_value = |_: &str| Some("http://placeholder".to_string());
    parse_one(file, name, entry, SourceKind::UserMcpJson, &any_value).map(|_| ())
}

/// A stdio server entry in Claude Code's schema: `{"command", "args", "env"}` (empty `args`
/// and `env` left out).
pub fn stdio_entry(command: &str, args: &[String], env: &BTreeMap<String, String>) -> Value {
    let mut entry = Map::new();
    entry.insert("command".into(), Value::from(command));
    if !args.is_empty() {
        entry.insert("args".into(), Value::from(args.to_vec()));
    }
    if !env.is_empty() {
        let env: Map<String, Value> = env
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect();
        entry.insert("env".into(), Value::Object(env));
    }
    Value::Object(entry)
}

/// Which remote transport an entry names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remote {
    /// `"type": "http"`: streamable HTTP.
    Http,
    /// `"type": "sse"`: the 2024-11-05 transport.
    Sse,
}

/// A remote server entry in Claude Code's schema: `{"type", "url", "headers"}`.
pub fn remote_entry(remote: Remote, url: &str, headers: &BTreeMap<String, String>) -> Value {
    let mut entry = Map::new();
    let kind = match remote {
        Remote::Http => "http",
        Remote::Sse => "sse",
    };
    entry.insert("type".into(), Value::from(kind));
    entry.insert("url".into(), Value::from(url));
    if !headers.is_empty() {
        let headers: Map<String, Value> = headers
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect();
        entry.insert("headers".into(), Value::Object(headers));
    }
    Value::Object(entry)
}

/// One server entry of one source, as listed.
#[derive(Debug)]
pub struct ListedServer {
    /// The name as written (a `[[plugins]]` `name` with spaces keeps them here).
    pub name: String,
    pub origin: Origin,
    /// The entry as written (a TOML entry converted to JSON), `${VAR}` unexpanded: what to
    /// show, so values from the environment are not printed.
    pub raw: Value,
    /// The entry parsed and expanded, or why it cannot start.
    pub spec: Result<ServerSpec, McpConfigError>,
    /// Whether this entry is the one used for its name (see [`super::mcp::merge`]); `false`
    /// when a source of higher precedence defines the same name.
    pub active: bool,
}

/// Every configured MCP server of every source, with the problems of files that could not be
/// read at all.
#[derive(Debug, Default)]
pub struct Inventory {
    /// By name, then by precedence (the active entry first).
    pub servers: Vec<ListedServer>,
    pub problems: Vec<String>,
    /// sha256 of the project `.mcp.json` as read for `servers`: approvals are checked against
    /// these bytes, not a later read of the file.
    pub project_mcp_json_sha256: Option<String>,
    /// The workspace files the project `.mcp.json` servers execute, pinned as read (ADR 0026).
    pub project_mcp_json_pins: Vec<super::PinnedFile>,
}

impl Inventory {
    /// The entries named `name` (the active one first).
    pub fn named(&self, name: &str) -> impl Iterator<Item = &ListedServer> {
        self.servers
            .iter()
            .filter(move |s| s.name == name || s.spec.as_ref().is_ok_and(|spec| spec.name == name))
    }
}

/// The five sources, highest precedence first: this workspace's local servers in
/// `<home>/mcp.json`, the project's `reasonix.toml` `[[plugins]]`, the project's `.mcp.json`,
/// `<home>/config.toml` `[[plugins]]`, `<home>/mcp.json`.
pub fn sources(home: &Path, workspace: &Path) -> [(PathBuf, SourceKind); 5] {
    [
        (user_file(home), SourceKind::LocalMcpJson),
        (workspace.join("reasonix.toml"), SourceKind::ProjectToml),
        (project_file(workspace), SourceKind::ProjectMcpJson),
        (home.join("config.toml"), SourceKind::UserToml),
        (user_file(home), SourceKind::UserMcpJson),
    ]
}

/// Read every source; `lookup` expands `${VAR}`. Files that are missing are skipped; files
/// that do not parse are named in [`Inventory::problems`].
pub fn inventory(
    home: &Path,
    workspace: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Inventory {
    let mut inventory = Inventory::default();
    for (path, kind) in sources(home, workspace) {
        let entries = match kind {
            SourceKind::ProjectMcpJson => {
                json_entries(McpFile::load(&path), kind, lookup).map(|(sha, entries)| {
                    inventory.project_mcp_json_sha256 = sha;
                    let specs: Vec<ServerSpec> = entries
                        .iter()
                        .filter_map(|s| s.spec.as_ref().ok().cloned())
                        .collect();
                    inventory.project_mcp_json_pins =
                        super::pins::pin(workspace, &super::pins::server_files(workspace, &specs));
                    entries
                })
            }
            SourceKind::UserMcpJson => {
                json_entries(McpFile::load(&path), kind, lookup).map(|(_, entries)| entries)
            }
            SourceKind::LocalMcpJson => {
                json_entries(McpFile::load_local(&path, workspace), kind, lookup)
                    .map(|(_, entries)| entries)
            }
            SourceKind::ProjectToml | SourceKind::UserToml => toml_entries(&path, kind, lookup),
            // Packages' servers are added by the runtime from the package index.
            SourceKind::Package => continue,
        };
        match entries {
            Ok(entries) => inventory.servers.extend(entries),
            // `<home>/mcp.json` is read for two sources: one problem is enough.
            Err(problem) if inventory.problems.contains(&problem) => {}
            Err(problem) => inventory.problems.push(problem),
        }
    }
    // Stable: within a name, sources stay in precedence order.
    inventory.servers.sort_by_key(key);
    let mut seen: Vec<String> = Vec::new();
    for server in &mut inventory.servers {
        let name = key(server);
        server.active = !seen.contains(&name);
        if server.active {
            seen.push(name);
        }
    }
    inventory
}

/// The name a server is merged under.
fn key(server: &ListedServer) -> String {
    match &server.spec {
        Ok(spec) => spec.name.clone(),
        Err(_) => server.name.trim().replace(' ', "_"),
    }
}

/// The entries of an `mcpServers` file, with the sha256 of the bytes read (`None` without one).
fn json_entries(
    file: Result<McpFile, McpFileError>,
    kind: SourceKind,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<(Option<String>, Vec<ListedServer>), String> {
    let file = file.map_err(|e| e.to_string())?;
    let path = file.path();
    let sha = file.loaded_sha256().map(str::to_string);
    let entries = file
        .specs(kind, lookup)
        .into_iter()
        .map(|(name, raw, spec)| ListedServer {
            name,
            origin: Origin {
                file: path.to_path_buf(),
                kind,
            },
            raw,
            spec,
            active: false,
        })
        .collect();
    Ok((sha, entries))
}

fn toml_entries(
    path: &Path,
    kind: SourceKind,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<ListedServer>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
    };
    let doc: toml::Table = toml::from_str(&text).map_err(|e| {
        format!(
            "{}: not valid TOML, its [[plugins]] are not listed: {}",
            path.display(),
            e.message()
        )
    })?;
    let Some(plugins) = doc.get("plugins") else {
        return Ok(Vec::new());
    };
    let Some(entries) = plugins.as_array() else {
        return Err(format!(
            "{}: `plugins` is not an array of tables ([[plugins]])",
            path.display()
        ));
    };
    Ok(entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let name = entry
                .get("name")
                .and_then(|n| n.as_str())
                .map_or_else(|| format!("[[plugins]] #{}", i + 1), str::to_string);
            let spec = from_plugins_toml(path, std::slice::from_ref(entry), kind, lookup).and_then(
                |mut specs| {
                    specs.pop().ok_or_else(|| McpConfigError::Entry {
                        file: path.display().to_string(),
                        server: name.clone(),
                        message: "the entry did not parse".into(),
                    })
                },
            );
            ListedServer {
                name,
                origin: Origin {
                    file: path.to_path_buf(),
                    kind,
                },
                raw: serde_json::to_value(entry).unwrap_or(Value::Null),
                spec,
                active: false,
            }
        })
        .collect())
}

/// One server found in a file to import from.
#[derive(Debug, Clone)]
pub struct Importable {
    pub name: String,
    pub entry: Value,
    /// Where it was found: `mcpServers` or `projects."<dir>".mcpServers`.
    pub place: String,
    /// Found under `projects.<workspace>`: Claude Code's `local` scope, meant for this one
    /// workspace and never for every workspace.
    pub local: bool,
}

/// Servers found in a file to import from: its top-level `mcpServers`, and, in Claude Code's
/// user config (`~/.claude.json`), the `projects.<workspace>.mcpServers` of `workspace` (only
/// that workspace's: the other projects' servers are theirs).
pub fn importable(path: &Path, workspace: &Path) -> Result<Vec<Importable>, McpFileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| McpFileError::Read {
        file: file.clone(),
        source,
    })?;
    let root = parse_root(&file, &text)?;
    let mut found = Vec::new();
    if let Some(Value::Object(servers)) = root.get(SERVERS) {
        for (name, entry) in servers {
            found.push(Importable {
                name: name.clone(),
                entry: entry.clone(),
                place: SERVERS.to_string(),
                local: false,
            });
        }
    }
    let key = project_key(workspace);
    if let Some(Value::Object(servers)) = project_servers(&root, &key) {
        for (name, entry) in servers {
            found.push(Importable {
                name: name.clone(),
                entry: entry.clone(),
                place: format!("{PROJECTS}.\"{key}\".{SERVERS}"),
                local: true,
            });
        }
    }
    Ok(found)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn an_edit_keeps_other_entries_and_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".mcp.json");
        let before = json!({
            "$schema": "https://example/schema.json",
            "mcpServers": {
                "keep": {"command": "node", "args": ["a.js"], "env": {"K": "${K}"}, "futureKey": [1, 2]}
            },
            "otherTool": {"nested": true}
        });
        std::fs::write(&path, before.to_string()).unwrap();
        let mut file = McpFile::load(&path).unwrap();
        let entry = stdio_entry("npx", &["-y".into(), "pkg".into()], &BTreeMap::new());
        assert_eq!(file.insert("new", entry.clone(), false).unwrap(), None);
        file.save(false).unwrap();
        let after: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(after["mcpServers"]["keep"], before["mcpServers"]["keep"]);
        assert_eq!(after["otherTool"], before["otherTool"]);
        assert_eq!(after["$schema"], before["$schema"]);
        assert_eq!(after["mcpServers"]["new"], entry);

        let mut file = McpFile::load(&path).unwrap();
        assert!(file.remove("new").is_some());
        assert!(file.remove("new").is_none());
        file.save(false).unwrap();
        let after: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(after, before);
    }

    #[test]
    fn a_name_that_exists_is_replaced_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = McpFile::load(&dir.path().join("mcp.json")).unwrap();
        assert!(!file.existed());
        let a = stdio_entry("a", &[], &BTreeMap::new());
        let b = stdio_entry("b", &[], &BTreeMap::new());
        file.insert("s", a.clone(), false).unwrap();
        let err = file.insert("s", b.clone(), false).unwrap_err();
        assert!(matches!(err, McpFileError::Exists { .. }), "{err}");
        assert_eq!(file.get("s"), Some(&a));
        assert_eq!(file.insert("s", b.clone(), true).unwrap(), Some(a));
        assert_eq!(file.get("s"), Some(&b));
    }

    #[test]
    fn names_and_entries_are_checked_before_they_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = McpFile::load(&dir.path().join("mcp.json")).unwrap();
        for bad in ["", "a b", "a/b", "é", "x.y", &"n".repeat(65)] {
            let err = file
                .insert(bad, stdio_entry("c", &[], &BTreeMap::new()), false)
                .unwrap_err();
            assert!(matches!(err, McpFileError::Name { .. }), "{bad:?}: {err}");
        }
        let err = file
            .insert(
                "r",
                remote_entry(Remote::Http, "ftp://x", &BTreeMap::new()),
                false,
            )
            .unwrap_err();
        assert!(err.to_string().contains("not an http"), "{err}");
        // `${VAR}` may stand for anything until the server starts.
        file.insert(
            "v",
            remote_entry(Remote::Sse, "${BASE_URL}", &BTreeMap::new()),
            false,
        )
        .unwrap();
        assert_eq!(file.servers().count(), 1);
    }

    #[test]
    fn a_broken_file_is_named_with_its_position_and_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        let broken = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n";
        std::fs::write(&path, broken).unwrap();
        let err = McpFile::load(&path).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(&format!("{}:3:", path.display())), "{text}");
        assert!(matches!(err, McpFileError::Json { line: 3, .. }), "{err:?}");
        for shape in ["[]", "{\"mcpServers\": []}", "\"x\""] {
            std::fs::write(&path, shape).unwrap();
            let err = McpFile::load(&path).unwrap_err();
            assert!(matches!(err, McpFileError::Shape { .. }), "{shape}: {err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_user_file_is_private_and_a_project_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("home").join("mcp.json");
        let mut file = McpFile::load(&user).unwrap();
        file.insert("a", stdio_entry("x", &[], &BTreeMap::new()), false)
            .unwrap();
        file.save(true).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&user), 0o600);
        let project = dir.path().join(".mcp.json");
        std::fs::write(&project, "{}").unwrap();
        std::fs::set_permissions(&project, std::fs::Permissions::from_mode(0o664)).unwrap();
        let mut file = McpFile::load(&project).unwrap();
        file.insert("a", stdio_entry("x", &[], &BTreeMap::new()), false)
            .unwrap();
        file.save(false).unwrap();
        assert_eq!(mode(&project), 0o664);
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 2, "no temporary file left behind: {leftovers}");
    }

    #[test]
    fn the_inventory_lists_every_source_and_marks_the_winner() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let ws = root.path().join("ws");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(
            home.join("mcp.json"),
            r#"{"mcpServers": {"a": {"command": "user-json"}, "u": {"type": "http", "url": "https://u"}}}"#,
        )
        .unwrap();
        std::fs::write(
            home.join("config.toml"),
            "[[plugins]]\nname = \"a\"\ncommand = \"user-toml\"\n",
        )
        .unwrap();
        std::fs::write(
            ws.join(".mcp.json"),
            r#"{"mcpServers": {"a": {"command": "project-json"}, "bad": {"command": "${UNSET}"}}}"#,
        )
        .unwrap();
        let inv = inventory(&home, &ws, &|_| None);
        assert!(inv.problems.is_empty(), "{:?}", inv.problems);
        let a: Vec<_> = inv.named("a").collect();
        assert_eq!(a.len(), 3);
        assert!(a[0].active && !a[1].active && !a[2].active);
        assert_eq!(a[0].origin.kind, SourceKind::ProjectMcpJson);
        assert_eq!(a[1].origin.kind, SourceKind::UserToml);
        assert_eq!(a[1].raw["command"], "user-toml");
        let bad = inv.named("bad").next().unwrap();
        assert!(bad.active);
        assert!(bad.spec.as_ref().unwrap_err().to_string().contains("UNSET"));
        assert!(inv.named("u").next().unwrap().spec.is_ok());

        std::fs::write(home.join("mcp.json"), "{").unwrap();
        let inv = inventory(&home, &ws, &|_| None);
        assert_eq!(inv.problems.len(), 1);
        assert!(inv.problems[0].contains("mcp.json"), "{:?}", inv.problems);
        assert_eq!(inv.named("a").count(), 2);
    }

    #[test]
    fn claude_code_user_config_yields_global_and_this_projects_servers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude.json");
        std::fs::write(
            &path,
            json!({
                "numStartups": 3,
                "mcpServers": {"g": {"command": "global"}},
                "projects": {
                    "/work/this": {"mcpServers": {"p": {"type": "sse", "url": "http://x/sse"}}},
                    "/work/other": {"mcpServers": {"o": {"command": "other"}}}
                }
            })
            .to_string(),
        )
        .unwrap();
        let found = importable(&path, Path::new("/work/this")).unwrap();
        let names: Vec<(&str, bool)> = found.iter().map(|f| (f.name.as_str(), f.local)).collect();
        assert_eq!(names, [("g", false), ("p", true)]);
        assert_eq!(found[1].place, "projects.\"/work/this\".mcpServers");
    }

    #[test]
    fn a_local_server_starts_in_its_workspace_only_and_wins_there() {
        let home = tempfile::tempdir().unwrap();
        let here = tempfile::tempdir().unwrap();
        let there = tempfile::tempdir().unwrap();
        let here_key = std::fs::canonicalize(here.path()).unwrap();
        std::fs::write(
            home.path().join("mcp.json"),
            json!({
                "mcpServers": {"shared": {"command": "user-one"}},
                "projects": {here_key.display().to_string(): {"mcpServers": {
                    "mine": {"command": "local-one"},
                    "shared": {"command": "local-override"}
                }}}
            })
            .to_string(),
        )
        .unwrap();
        let paths = super::super::Paths::under(home.path());
        let load = |dir: &Path| super::super::Config::load(&paths, dir).unwrap().mcp_servers;
        let command = |spec: &ServerSpec| match &spec.transport {
            super::super::mcp::Transport::Stdio { command, .. } => command.clone(),
            other => panic!("{other:?}"),
        };
        let servers = load(here.path());
        let names: Vec<(&str, String, SourceKind)> = servers
            .iter()
            .map(|s| (s.name.as_str(), command(s), s.origin.kind))
            .collect();
        assert_eq!(
            names,
            [
                ("mine", "local-one".to_string(), SourceKind::LocalMcpJson),
                (
                    "shared",
                    "local-override".to_string(),
                    SourceKind::LocalMcpJson
                ),
            ]
        );
        assert!(!SourceKind::LocalMcpJson.is_project());
        let elsewhere = load(there.path());
        assert_eq!(elsewhere.len(), 1);
        assert_eq!(command(&elsewhere[0]), "user-one");
    }

    #[test]
    fn local_servers_live_under_their_workspace_in_the_user_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        std::fs::write(
            &path,
            json!({
                "mcpServers": {"u": {"command": "user"}},
                "projects": {"/work/other": {"mcpServers": {"o": {"command": "other"}}, "keep": 1}}
            })
            .to_string(),
        )
        .unwrap();
        let mut local = McpFile::load_local(&path, Path::new("/work/this")).unwrap();
        assert_eq!(local.servers().count(), 0);
        assert!(
            local
                .insert("l", json!({"command": "mine"}), false)
                .unwrap()
                .is_none()
        );
        local.save(true).unwrap();
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(written["mcpServers"], json!({"u": {"command": "user"}}));
        assert_eq!(
            written["projects"]["/work/this"]["mcpServers"],
            json!({"l": {"command": "mine"}})
        );
        assert_eq!(written["projects"]["/work/other"]["keep"], 1);
        // The user scope of the same file does not see it, nor another workspace.
        assert!(McpFile::load(&path).unwrap().get("l").is_none());
        let other = McpFile::load_local(&path, Path::new("/work/other")).unwrap();
        assert!(other.get("l").is_none() && other.get("o").is_some());
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = local_servers_document(&text, Path::new("/work/this/")).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&doc).unwrap(),
            json!({"mcpServers": {"l": {"command": "mine"}}})
        );
        assert!(local_servers_document(&text, Path::new("/work/none")).is_none());

        let mut local = McpFile::load_local(&path, Path::new("/work/this")).unwrap();
        assert!(local.remove("l").is_some());
        assert!(local.remove("l").is_none());
    }

    proptest! {
        #[test]
        fn loading_any_text_never_panics_and_a_loaded_file_round_trips(text in ".{0,200}") {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("m.json");
            std::fs::write(&path, &text).unwrap();
            if let Ok(file) = McpFile::load(&path) {
                let again = parse_root("m.json", &file.to_text()).unwrap();
                prop_assert_eq!(again, file.root);
            }
        }

        #[test]
        fn only_valid_names_are_written(name in "\\PC{0,70}") {
            let mut file = McpFile { path: PathBuf::from("m.json"), root: Map::new(), existed: false, sha256: None, project: None };
            let result = file.insert(&name, stdio_entry("c", &[], &BTreeMap::new()), false);
            prop_assert_eq!(result.is_ok(), valid_server_name(&name));
            prop_assert_eq!(
                result.is_ok(),
                !name.is_empty() && name.len() <= 40 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                    && name.starts_with(|c: char| c.is_ascii_alphanumeric()) && !name.contains("__") && !name.ends_with('_')
            );
        }

        #[test]
        fn entries_of_arbitrary_json_are_parsed_without_panicking(
            command in "\\PC{0,20}", url in "\\PC{0,20}", kind in "(http|sse|stdio|ws|)"
        ) {
            let entry = json!({"type": kind, "command": command, "url": url});
            let _ = check_entry(Path::new("m.json"), "s", &entry);
            let entry = json!({"type": kind, "url": url});
            let _ = check_entry(Path::new("m.json"), "s", &entry);
        }
    }
}
