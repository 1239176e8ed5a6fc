//! The sidecar tier in a run: start the installed, enabled sidecar packages and compose what
//! they contribute with the registry's components behind one `Catalog`. With no package
//! installed nothing is spawned and the catalog is the registry's.

use crate::Error;
use crate::term::errln;
use reasonix_core::catalog::Catalog;
use reasonix_core::interceptor::Interceptor;
use reasonix_core::provider::Provider;
use reasonix_core::sandbox::SandboxConfig;
use reasonix_core::terminal::shown;
use reasonix_core::tool::Tool;
use reasonix_host::Registry;
use reasonix_mcp::Servers;
use reasonix_sidecar::Sidecars;
use reasonix_sidecar::package;
use reasonix_sidecar::sandbox::Confinement;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// Start the enabled sidecar packages under `plugins_dir` (installed by earlier builds) and
/// the sidecars of the loaded plugin packages (`packaged`) for `workspace`. A package that
/// cannot be read, or an optional sidecar that fails to start, is a warning; a required one
/// that fails stops the run, naming it and why.
pub fn start(
    plugins_dir: &Path,
    packaged: Vec<reasonix_sidecar::runtime::Package>,
    workspace: &Path,
    sandbox: SandboxConfig,
) -> Result<Sidecars, Error> {
    let entries = package::enabled(plugins_dir).map_err(|e| Error::runtime_of(&e))?;
    if entries.is_empty() && packaged.is_empty() {
        return Ok(Sidecars::default());
    }
    let mut packages = packaged;
    for entry in entries {
        match entry {
            Ok(p) => packages.push(p),
            Err(e) => errln!("warning: sidecar package not started: {e}"),
        }
    }
    if packages.is_empty() {
        return Ok(Sidecars::default());
    }
    // The policy shell commands get: the same `[sandbox]`, Reasonix's own directories hidden.
    let confinement = Confinement::for_policy(sandbox.resolve(workspace));
    let sidecars = Sidecars::start(packages, workspace, &confinement)
        .map_err(|e| Error::runtime(format!("a required sidecar failed to start: {e}")))?;
    for skipped in &sidecars.skipped {
        errln!("warning: sidecar skipped: {skipped}");
    }
    Ok(sidecars)
}

/// The registry's components plus the sidecars' contributions.
pub struct Composed {
    registry: Arc<Registry>,
    providers: Vec<Arc<dyn Provider>>,
    tools: Vec<Arc<dyn Tool>>,
    /// The sidecars' interceptors (the components' come from the registry, bound per agent).
    sidecar_interceptors: Vec<Arc<dyn Interceptor>>,
    /// MCP servers: their tools come and go (in the background), so they are asked each time.
    mcp: Servers,
    /// Names served by components and sidecars (an MCP tool never shadows one).
    fixed_names: BTreeSet<String>,
}

type Tools = Vec<Arc<dyn Tool>>;

impl Composed {
    /// A sidecar tool whose name a component already serves is left out, with a warning.
    /// A component or sidecar tool named `mcp__…` is left out too: permission rules read
    /// such a name as an MCP server's tool (`mcp__github` would cover a plugin's
    /// `mcp__github__x`).
    pub fn new(registry: Arc<Registry>, sidecars: &Sidecars, mcp: Servers) -> Composed {
        let (mut tools, posing): (Tools, Tools) = Catalog::tools(registry.as_ref())
            .into_iter()
            .partition(|t| !t.spec().name.starts_with("mcp__"));
        let mut names: BTreeSet<String> = tools.iter().map(|t| t.spec().name.clone()).collect();
        let (sidecar_tools, sidecar_posing): (Tools, Tools) = sidecars
            .tools()
            .into_iter()
            .partition(|t| !t.spec().name.starts_with("mcp__"));
        for tool in posing.iter().chain(&sidecar_posing) {
            errln!(
                "warning: plugin `{}` tool `{}` is not offered: names starting with `mcp__` are for MCP servers' tools",
                shown(tool.source()),
                shown(&tool.spec().name)
            );
        }
        for tool in sidecar_tools {
            if names.insert(tool.spec().name.clone()) {
                tools.push(tool);
            } else {
                errln!(
                    "warning: sidecar `{}` tool `{}` is not offered: that name is already served",
                    shown(tool.source()),
                    shown(&tool.spec().name)
                );
            }
        }
        Composed {
            registry,
            providers: sidecars.providers(),
            tools,
            sidecar_interceptors: sidecars.interceptors(),
            mcp,
            fixed_names: names,
        }
    }
}

impl Composed {
    /// Add tools the host serves itself (`history`, which reads Reasonix's own state that no
    /// plugin can see). A name a component or sidecar already serves keeps that tool, with a
    /// warning; MCP tools never shadow these.
    pub fn with_host_tools(mut self, host_tools: Vec<Arc<dyn Tool>>) -> Composed {
        for tool in host_tools {
            if self.fixed_names.insert(tool.spec().name.clone()) {
                self.tools.push(tool);
            } else {
                errln!(
                    "warning: the built-in `{}` tool is not offered: that name is already served",
                    shown(&tool.spec().name)
                );
            }
        }
        self
    }
}

impl Composed {
    /// Serve the tool named `name` (when one is) through `wrap`: the host's own checks
    /// around a plugin's tool (the checklist gate around `todo_write`).
    pub fn wrapping(
        mut self,
        name: &str,
        wrap: impl Fn(Arc<dyn Tool>) -> Arc<dyn Tool>,
    ) -> Composed {
        for tool in &mut self.tools {
            if tool.spec().name == name {
                *tool = wrap(tool.clone());
            }
        }
        self
    }
}

impl Catalog for Composed {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools = self.tools.clone();
        tools.extend(
            self.mcp
                .tools()
                .into_iter()
                .filter(|t| !self.fixed_names.contains(&t.spec().name)),
        );
        tools
    }

    fn tools_revision(&self) -> u64 {
        self.mcp.revision()
    }

    fn provider(&self, kind: &str) -> Option<Arc<dyn Provider>> {
        // Sidecar kinds are `plugin/<sidecar>/<ref>`: no component kind can be one.
        Catalog::provider(self.registry.as_ref(), kind).or_else(|| {
            self.providers
                .iter()
                .find(|p| p.kind().name == kind)
                .cloned()
        })
    }

    fn provider_kinds(&self) -> Vec<String> {
        let mut kinds = Catalog::provider_kinds(self.registry.as_ref());
        kinds.extend(self.providers.iter().map(|p| p.kind().name.clone()));
        kinds.sort();
        kinds
    }

    fn interceptors(&self) -> Vec<Arc<dyn Interceptor>> {
        let mut all = Catalog::interceptors(self.registry.as_ref());
        all.extend(self.sidecar_interceptors.iter().cloned());
        all
    }

    fn interceptors_for(&self, workspace: &std::path::Path) -> Vec<Arc<dyn Interceptor>> {
        let mut all = self.registry.interceptors_for(workspace);
        all.extend(self.sidecar_interceptors.iter().cloned());
        all
    }

    fn stop_processes(&self, reason: &str) {
        Catalog::stop_processes(self.registry.as_ref(), reason);
        self.mcp.cancel_calls();
    }

    /// A cancelled call's MCP request is cancelled by its own token (`McpTool`); its processes
    /// are the registry's.
    fn stop_cancelled(&self, reason: &str) {
        Catalog::stop_cancelled(self.registry.as_ref(), reason);
    }
}
