//! `reasonix-plugin.json`, apiVersion `reasonix.io/plugin/v2`: parsed strictly (an unknown
//! field is an error naming its JSON path) and validated. This tier acts on `runtime`; the
//! `contributes` block (skills, agents, commands, prompts, hooks, MCP servers, components,
//! compositions, themes) and the legacy top-level entries are checked here (paths inside the
//! package) and used by the package tier (`reasonix-package`).

use crate::limits::INTERCEPT_CEILING_MS;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Component, Path};

/// The placeholder for the package directory in a manifest's command and arguments.
pub const ROOT_PLACEHOLDER: &str = "${REASONIX_PLUGIN_ROOT}";

pub const MANIFEST_FILE: &str = "reasonix-plugin.json";
pub const API_VERSION: &str = "reasonix.io/plugin/v2";
/// Largest manifest read.
pub const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// The interception points (shared with the component tier).
pub use reasonix_core::slots::POINTS;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Manifest {
    pub api_version: String,
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub homepage: Option<String>,
    #[serde(default)]
    pub repository: Option<String>,
    #[serde(default)]
    pub requires: Vec<CapabilityRef>,
    #[serde(default)]
    pub provides: Vec<CapabilityRef>,
    #[serde(default)]
    pub contributes: Option<Contributes>,
    #[serde(default)]
    pub runtime: Option<Runtime>,
    // Legacy top-level entries, merged with `contributes` by the original.
    #[serde(default)]
    pub skills: Vec<String>,
    #[serde(default)]
    pub commands: Vec<String>,
    #[serde(default)]
    pub hooks: BTreeMap<String, Vec<Hook>>,
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, McpServer>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CapabilityRef {
    pub namespace: String,
    pub kind: String,
    pub id: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub version_range: Option<String>,
    #[serde(default)]
    pub optional: Option<bool>,
    #[serde(default)]
    pub schema_hash: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Contributes {
    #[serde(default)]
    pub skills: Vec<String>,
    #[serde(default)]
    pub agents: Vec<String>,
    #[serde(default)]
    pub commands: Vec<String>,
    #[serde(default)]
    pub prompts: Vec<String>,
    #[serde(default)]
    pub hooks: BTreeMap<String, Vec<Hook>>,
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, McpServer>,
    #[serde(default)]
    pub themes: Vec<String>,
    /// WebAssembly components (`*.wasm`) loaded through the plugin registry (Reasonix's own).
    #[serde(default)]
    pub components: Vec<String>,
    /// Folders of agent compositions (`<name>.toml`), offered as `<package>:<name>` (Reasonix's own).
    #[serde(default)]
    pub compositions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Hook {
    #[serde(default, rename = "match")]
    pub matcher: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Option<Vec<String>>,
    #[serde(default)]
    pub shell: Option<String>,
    #[serde(default)]
    pub shell_command: Option<String>,
    #[serde(default)]
    pub context_file: Option<String>,
    #[serde(default, rename = "async")]
    pub run_async: Option<bool>,
    #[serde(default)]
    pub payload_format: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServer {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub auto_start: Option<bool>,
    #[serde(default)]
    pub tier: Option<String>,
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub imported: Option<bool>,
}

/// The process the package runs and what it may contribute.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Runtime {
    /// The program: a name looked up on `PATH`, or a path (`${REASONIX_PLUGIN_ROOT}/…`).
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Whether a failure to start fails the run (else the sidecar is reported and skipped).
    #[serde(default)]
    pub required: bool,
    /// Order among interceptors (-1000..=1000, lower first).
    #[serde(default)]
    pub priority: i32,
    #[serde(default)]
    pub intercepts: Vec<String>,
    #[serde(default)]
    pub replaces: Vec<String>,
    #[serde(default)]
    pub capabilities: Vec<RuntimeCapability>,
    #[serde(default)]
    pub tools: Vec<ToolDecl>,
    /// Deadline of one intercept, overriding the point family's default (at most 60000).
    #[serde(default)]
    pub intercept_timeout_millis: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeCapability {
    Interceptors,
    Strategies,
    Providers,
    Ui,
    Tools,
}

/// A tool the sidecar serves through `extension/tool/call`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolDecl {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// Claimed read-only; believed only as far as the sidecar's effects allow (they are all of
    /// them), so a sidecar tool is always asked about as a writer.
    #[serde(default)]
    pub read_only: bool,
}

/// Parse and validate a manifest's text. `root` is the package directory (for path checks);
/// `label` names the file in errors.
pub fn parse(text: &str, root: &Path) -> Result<Manifest, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let manifest: Manifest = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            inner.to_string()
        } else {
            format!("at `{path}`: {inner}")
        }
    })?;
    de.end()
        .map_err(|e| format!("trailing data after the manifest: {e}"))?;
    manifest.validate(root)?;
    Ok(manifest)
}

/// Read `<root>/reasonix-plugin.json`.
pub fn load(root: &Path) -> Result<Manifest, crate::SidecarError> {
    let path = root.join(MANIFEST_FILE);
    let err = |message: String| crate::SidecarError::Manifest {
        path: path.clone(),
        message,
    };
    let len = std::fs::metadata(&path)
        .map_err(|e| err(e.to_string()))?
        .len();
    if len > MAX_MANIFEST_BYTES {
        return Err(err(format!(
            "{len} bytes is more than the {MAX_MANIFEST_BYTES}-byte limit"
        )));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| err(e.to_string()))?;
    parse(&text, root).map_err(err)
}

/// `^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$`
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

impl Manifest {
    fn validate(&self, root: &Path) -> Result<(), String> {
        if self.api_version != API_VERSION {
            return Err(format!(
                "at `apiVersion`: `{}` is not supported; it must be exactly `{API_VERSION}`",
                reasonix_core::terminal::line(&self.api_version)
            ));
        }
        if !valid_name(&self.name) {
            return Err(format!(
                "at `name`: `{}` is not a valid plugin name (letters, digits, `.`, `_`, `-`; \
                 starting with a letter or digit; at most 64)",
                reasonix_core::terminal::line(&self.name)
            ));
        }
        if self.version.trim().is_empty() {
            return Err("at `version`: empty".into());
        }
        let mut paths: Vec<(String, &str)> = Vec::new();
        let mut hooks: Vec<(String, &BTreeMap<String, Vec<Hook>>)> =
            vec![("hooks".into(), &self.hooks)];
        let mut servers = vec![("mcpServers".to_string(), &self.mcp_servers)];
        for (i, p) in self.skills.iter().enumerate() {
            paths.push((format!("skills[{i}]"), p));
        }
        for (i, p) in self.commands.iter().enumerate() {
            paths.push((format!("commands[{i}]"), p));
        }
        if let Some(c) = &self.contributes {
            for (field, list) in [
                ("skills", &c.skills),
                ("agents", &c.agents),
                ("commands", &c.commands),
                ("prompts", &c.prompts),
                ("themes", &c.themes),
                ("components", &c.components),
                ("compositions", &c.compositions),
            ] {
                for (i, p) in list.iter().enumerate() {
                    paths.push((format!("contributes.{field}[{i}]"), p));
                }
            }
            hooks.push(("contributes.hooks".into(), &c.hooks));
            servers.push(("contributes.mcpServers".into(), &c.mcp_servers));
        }
        for (at, map) in &hooks {
            for (event, list) in map.iter() {
                for (i, hook) in list.iter().enumerate() {
                    for (field, value) in [("contextFile", &hook.context_file), ("cwd", &hook.cwd)]
                    {
                        if let Some(p) = value {
                            paths.push((format!("{at}.{event}[{i}].{field}"), p));
                        }
                    }
                }
            }
        }
        for (at, map) in &servers {
            for name in map.keys() {
                if !valid_name(name) {
                    return Err(format!("at `{at}.{name}`: not a valid server name"));
                }
            }
        }
        for (at, p) in &paths {
            inside_root(root, p).map_err(|e| format!("at `{at}`: {e}"))?;
        }
        if let Some(runtime) = &self.runtime {
            runtime.validate(root)?;
        }
        Ok(())
    }
}

impl Runtime {
    fn validate(&self, root: &Path) -> Result<(), String> {
        if self.command.trim().is_empty() {
            return Err("at `runtime.command`: empty".into());
        }
        // A path (anything with a separator) must stay inside the package; a bare name is
        // looked up on PATH (`python3`, `node`).
        if self.command.contains('/') || self.command.contains('\\') {
            let relative = self
                .command
                .strip_prefix(ROOT_PLACEHOLDER)
                .map(|r| r.trim_start_matches('/'))
                .ok_or_else(|| {
                    "at `runtime.command`: a path must start with `${REASONIX_PLUGIN_ROOT}/` \
                     (or be a bare program name looked up on PATH)"
                        .to_string()
                })?;
            inside_root(root, relative).map_err(|e| format!("at `runtime.command`: {e}"))?;
        }
        if !(-1000..=1000).contains(&self.priority) {
            return Err(format!(
                "at `runtime.priority`: {} is outside -1000..=1000",
                self.priority
            ));
        }
        for (i, point) in self.intercepts.iter().enumerate() {
            if !reasonix_core::slots::is_point(point) {
                return Err(format!(
                    "at `runtime.intercepts[{i}]`: `{}` is not an interception point (known: {})",
                    reasonix_core::terminal::line(point),
                    POINTS.join(", ")
                ));
            }
        }
        for (i, slot) in self.replaces.iter().enumerate() {
            reasonix_core::slots::Slot::parse(slot)
                .map_err(|e| format!("at `runtime.replaces[{i}]`: {e}"))?;
        }
        let has = |c: RuntimeCapability| self.capabilities.contains(&c);
        if !self.intercepts.is_empty() && !has(RuntimeCapability::Interceptors) {
            return Err(
                "at `runtime.intercepts`: needs `interceptors` in `runtime.capabilities`".into(),
            );
        }
        if !self.replaces.is_empty() && !has(RuntimeCapability::Strategies) {
            return Err(
                "at `runtime.replaces`: needs `strategies` in `runtime.capabilities`".into(),
            );
        }
        if !self.tools.is_empty() && !has(RuntimeCapability::Tools) {
            return Err("at `runtime.tools`: needs `tools` in `runtime.capabilities`".into());
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, tool) in self.tools.iter().enumerate() {
            if !valid_tool_name(&tool.name) {
                return Err(format!(
                    "at `runtime.tools[{i}].name`: `{}` is not a valid tool name",
                    reasonix_core::terminal::line(&tool.name)
                ));
            }
            if !seen.insert(&tool.name) {
                return Err(format!(
                    "at `runtime.tools[{i}].name`: `{}` is declared twice",
                    tool.name
                ));
            }
            if !tool.input_schema.is_object() {
                return Err(format!(
                    "at `runtime.tools[{i}].inputSchema`: must be a JSON object"
                ));
            }
        }
        if let Some(ms) = self.intercept_timeout_millis
            && !(1..=INTERCEPT_CEILING_MS).contains(&ms)
        {
            return Err(format!(
                "at `runtime.interceptTimeoutMillis`: {ms} is outside 1..={INTERCEPT_CEILING_MS}"
            ));
        }
        for key in self.env.keys() {
            if key.is_empty() || key.contains('=') || key.contains('\0') {
                return Err(format!(
                    "at `runtime.env`: `{}` is not a variable name",
                    reasonix_core::terminal::line(key)
                ));
            }
        }
        Ok(())
    }
}

/// A relative path that stays inside `root`: not absolute, no `..`, and (when it exists) no
/// symlink leading out.
pub fn inside_root(root: &Path, relative: &str) -> Result<(), String> {
    let path = Path::new(relative);
    if relative.is_empty() {
        return Err("empty path".into());
    }
    if path.is_absolute() || relative.starts_with('\\') || relative.contains(':') {
        return Err(format!(
            "`{}` must be a path relative to the plugin root",
            reasonix_core::terminal::line(relative)
        ));
    }
    if path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!(
            "`{}` leaves the plugin root (`..`)",
            reasonix_core::terminal::line(relative)
        ));
    }
    let joined = root.join(path);
    if let (Ok(real), Ok(real_root)) = (std::fs::canonicalize(&joined), std::fs::canonicalize(root))
        && !real.starts_with(&real_root)
    {
        return Err(format!(
            "`{}` leads out of the plugin root through a symlink",
            reasonix_core::terminal::line(relative)
        ));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn root() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn base() -> Value {
        serde_json::json!({
            "apiVersion": API_VERSION,
            "name": "probe",
            "version": "0.1.0",
            "runtime": {
                "command": "python3",
                "args": ["${REASONIX_PLUGIN_ROOT}/probe.py"],
                "capabilities": ["interceptors", "tools"],
                "intercepts": ["tool.before"],
                "interceptTimeoutMillis": 1000,
                "priority": 0,
                "tools": [{"name": "echo", "description": "Echo", "inputSchema": {"type": "object"}}]
            }
        })
    }

    fn check(v: &Value) -> Result<Manifest, String> {
        let dir = root();
        parse(&v.to_string(), dir.path())
    }

    #[test]
    fn a_valid_manifest_parses() {
        let m = check(&base()).unwrap();
        assert_eq!(m.runtime.unwrap().tools[0].name, "echo");
    }

    #[test]
    fn unknown_fields_name_their_path() {
        let mut v = base();
        v["runtime"]["tools"][0]["color"] = "red".into();
        let e = check(&v).unwrap_err();
        assert!(e.contains("runtime.tools[0]") && e.contains("color"), "{e}");
        let mut v = base();
        v["surprise"] = 1.into();
        assert!(check(&v).unwrap_err().contains("surprise"));
    }

    #[test]
    fn wrong_api_versions_names_and_paths_are_refused() {
        for (pointer, value, needle) in [
            (
                "/apiVersion",
                Value::from("reasonix.io/plugin/v1"),
                "apiVersion",
            ),
            ("/name", Value::from("-bad"), "name"),
            ("/name", Value::from("a".repeat(65)), "name"),
            (
                "/runtime/command",
                Value::from("${REASONIX_PLUGIN_ROOT}/../x"),
                "..",
            ),
            (
                "/runtime/command",
                Value::from("/usr/bin/python3"),
                "REASONIX_PLUGIN_ROOT",
            ),
            (
                "/runtime/intercepts/0",
                Value::from("tool.whenever"),
                "interception point",
            ),
            ("/runtime/priority", Value::from(5000), "priority"),
            (
                "/runtime/interceptTimeoutMillis",
                Value::from(60_001),
                "interceptTimeoutMillis",
            ),
            (
                "/runtime/capabilities",
                serde_json::json!(["tools"]),
                "interceptors",
            ),
        ] {
            let mut v = base();
            *v.pointer_mut(pointer).unwrap() = value;
            let e = check(&v).unwrap_err();
            assert!(e.contains(needle), "{pointer}: {e}");
        }
        let mut v = base();
        v["contributes"] = serde_json::json!({"skills": ["../../etc"]});
        assert!(check(&v).unwrap_err().contains("contributes.skills[0]"));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_root_is_refused() {
        let dir = root();
        std::os::unix::fs::symlink("/etc", dir.path().join("out")).unwrap();
        assert!(
            inside_root(dir.path(), "out")
                .unwrap_err()
                .contains("symlink")
        );
        assert!(inside_root(dir.path(), "missing/file").is_ok());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
            let dir = root();
            let _ = parse(&text, dir.path());
        }

        #[test]
        fn arbitrary_names_match_the_regex(name in "\\PC{0,70}") {
            let expected = {
                let b = name.as_bytes();
                !b.is_empty() && b.len() <= 64 && b[0].is_ascii_alphanumeric()
                    && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
            };
            proptest::prop_assert_eq!(valid_name(&name), expected);
        }

        #[test]
        fn mutated_manifests_never_panic(
            pointer in proptest::sample::select(vec!["/name", "/version", "/runtime/command", "/runtime/args", "/runtime/tools", "/runtime/priority", "/contributes"]),
            value in proptest::prop_oneof![
                proptest::prelude::Just(Value::Null),
                proptest::strategy::Strategy::prop_map("\\PC{0,20}", Value::from),
                proptest::strategy::Strategy::prop_map(proptest::prelude::any::<i64>(), Value::from),
                proptest::prelude::Just(serde_json::json!({"x": 1})),
                proptest::prelude::Just(serde_json::json!([1, "a"])),
            ],
        ) {
            let mut v = base();
            if let Some(slot) = v.pointer_mut(pointer) { *slot = value; } else { v["contributes"] = value; }
            let _ = check(&v);
        }
    }
}
