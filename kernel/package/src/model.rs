//! The one model every layout is read into.

use reasonix_config::mcp::ServerSpec;
use reasonix_config::settings_json::HookDef;
use std::path::PathBuf;

/// The layout a package was written in.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `reasonix-plugin.json`, apiVersion `reasonix.io/plugin/v2`.
    Reasonix,
    /// `.claude-plugin/plugin.json` and Claude Code's folders.
    Claude,
    /// `.codex-plugin/plugin.json`.
    Codex,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Reasonix => "reasonix",
            Kind::Claude => "claude",
            Kind::Codex => "codex",
        }
    }
}

/// How much of a package this build uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Everything it brings.
    Full,
    /// Some of it; [`Compatibility::notes`] say what not.
    Partial,
    /// Nothing it brings is used.
    None,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compatibility {
    pub level: Level,
    /// What is not used, and why, one line each.
    pub notes: Vec<String>,
}

/// A package as read from its folder.
#[derive(Debug, Clone)]
pub struct Package {
    pub name: String,
    pub version: String,
    pub description: String,
    pub kind: Kind,
    /// Its folder (real path).
    pub root: PathBuf,
    /// Folders of skills (each searched like a skills root), inside `root`.
    pub skills: Vec<PathBuf>,
    /// Folders of custom commands (`*.md`), inside `root`.
    pub commands: Vec<PathBuf>,
    /// Folders of sub-agent profiles (`*.md`), inside `root`.
    pub agents: Vec<PathBuf>,
    /// Hooks, commands with the package's root in place of `${CLAUDE_PLUGIN_ROOT}`.
    pub hooks: Vec<HookDef>,
    /// MCP servers, named `plugin_<package>_<server>`.
    pub mcp_servers: Vec<ServerSpec>,
    /// A native package's `runtime` (a sidecar process): its command line.
    pub sidecar: Option<String>,
    /// WebAssembly components (`*.wasm` files inside `root`), loaded through the plugin registry.
    pub components: Vec<PathBuf>,
    /// Folders of agent compositions (`<name>.toml`), inside `root`.
    pub compositions: Vec<PathBuf>,
    pub compatibility: Compatibility,
}

impl Package {
    /// Whether it brings nothing this build can use.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
            && self.commands.is_empty()
            && self.agents.is_empty()
            && self.hooks.is_empty()
            && self.mcp_servers.is_empty()
            && self.sidecar.is_none()
            && self.components.is_empty()
            && self.compositions.is_empty()
    }
}
