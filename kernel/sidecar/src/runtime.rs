//! Starting the installed sidecars of one run: at most [`STARTUP_PARALLEL`] at once, all inside
//! one shared [`STARTUP_BUDGET`]. A sidecar that fails to start fails the run when its manifest
//! says `runtime.required`, else it is reported and skipped. With no package installed nothing
//! is spawned.

use crate::connection::Connection;
use crate::error::SidecarError;
use crate::handshake::handshake;
use crate::interceptor::SidecarInterceptor;
use crate::limits::{SHUTDOWN, STARTUP_BUDGET, STARTUP_PARALLEL};
use crate::manifest::{Manifest, Runtime};
use crate::provider::{self, ProviderDescriptor, SidecarProvider};
use crate::sandbox::Confinement;
use crate::spawn::Launch;
use crate::tool::SidecarTool;
use reasonix_core::interceptor::Interceptor;
use reasonix_core::provider::Provider;
use reasonix_core::tool::Tool;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An installed package with a `runtime` block, ready to start.
#[derive(Debug, Clone)]
pub struct Package {
    pub root: PathBuf,
    pub manifest: Manifest,
}

impl Package {
    pub fn runtime(&self) -> Option<&Runtime> {
        self.manifest.runtime.as_ref()
    }
}

/// The running sidecars of one run and what they contribute.
#[derive(Default)]
pub struct Sidecars {
    conns: Vec<Arc<Connection>>,
    tools: Vec<Arc<dyn Tool>>,
    interceptors: Vec<Arc<dyn Interceptor>>,
    providers: Vec<Arc<dyn Provider>>,
    /// Optional sidecars that failed to start, with why (for a warning).
    pub skipped: Vec<SidecarError>,
}

impl Sidecars {
    /// Start every package (those without a `runtime` block are ignored) for `workspace`.
    pub fn start(
        packages: Vec<Package>,
        workspace: &Path,
        confinement: &Confinement,
    ) -> Result<Sidecars, SidecarError> {
        Sidecars::start_within(packages, workspace, confinement, STARTUP_BUDGET)
    }

    pub fn start_within(
        packages: Vec<Package>,
        workspace: &Path,
        confinement: &Confinement,
        budget: Duration,
    ) -> Result<Sidecars, SidecarError> {
        let packages: Vec<Package> = packages
            .into_iter()
            .filter(|p| p.runtime().is_some())
            .collect();
        let mut sidecars = Sidecars::default();
        if packages.is_empty() {
            return Ok(sidecars);
        }
        let deadline = Instant::now() + budget;
        // Processes are started here, on the run's own thread: bubblewrap's
        // `--die-with-parent` ties a sidecar to the thread that spawned it, and the handshake
        // workers below end after start-up. Only the handshakes run in parallel.
        let spawned: Vec<_> = packages
            .into_iter()
            .enumerate()
            .map(|(i, package)| {
                let conn = spawn_one(&package, workspace, confinement);
                (i, package, conn)
            })
            .collect();
        let queue = Mutex::new(spawned);
        let results = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..STARTUP_PARALLEL {
                scope.spawn(|| {
                    loop {
                        let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop();
                        let Some((i, package, conn)) = next else {
                            break;
                        };
                        let started = conn.and_then(|(conn, runtime)| {
                            handshake_one(conn, &package, runtime, workspace, deadline)
                        });
                        results
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push((i, package, started));
                    }
                });
            }
        });
        let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        results.sort_by_key(|(i, _, _)| *i);
        let mut failure = None;
        for (_, package, started) in results {
            match started {
                Ok(started) => sidecars.admit(started),
                Err(e) if package.runtime().is_some_and(|r| r.required) => {
                    failure.get_or_insert(e);
                }
                Err(e) => sidecars.skipped.push(e),
            }
        }
        if let Some(e) = failure {
            sidecars.shutdown();
            return Err(e);
        }
        Ok(sidecars)
    }

    fn admit(&mut self, started: Started) {
        let conn = started.conn;
        let runtime = &started.runtime;
        if !started.subscriptions.is_empty() || !started.slots.is_empty() {
            self.interceptors.push(Arc::new(SidecarInterceptor::new(
                conn.clone(),
                runtime,
                &started.subscriptions,
                &started.slots,
            )));
        }
        for descriptor in started.providers {
            self.providers
                .push(Arc::new(SidecarProvider::new(conn.clone(), descriptor)));
        }
        for decl in runtime
            .tools
            .iter()
            .filter(|t| started.tools.contains(&t.name))
        {
            self.tools
                .push(Arc::new(SidecarTool::new(conn.clone(), decl)));
        }
        self.conns.push(conn);
    }

    pub fn is_empty(&self) -> bool {
        self.conns.is_empty()
    }

    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }

    pub fn interceptors(&self) -> Vec<Arc<dyn Interceptor>> {
        self.interceptors.clone()
    }

    /// The provider kinds served (`plugin/<sidecar>/<ref>`).
    pub fn providers(&self) -> Vec<Arc<dyn Provider>> {
        self.providers.clone()
    }

    /// Names of the running sidecars.
    pub fn names(&self) -> Vec<&str> {
        self.conns.iter().map(|c| c.name()).collect()
    }

    /// Shut every sidecar down (in parallel, each within [`SHUTDOWN`]).
    pub fn shutdown(&mut self) {
        let conns = std::mem::take(&mut self.conns);
        self.tools.clear();
        self.interceptors.clear();
        self.providers.clear();
        std::thread::scope(|scope| {
            for conn in &conns {
                scope.spawn(move || conn.shutdown(SHUTDOWN));
            }
        });
    }
}

impl Drop for Sidecars {
    fn drop(&mut self) {
        self.shutdown();
    }
}

struct Started {
    conn: Arc<Connection>,
    runtime: Runtime,
    subscriptions: Vec<String>,
    slots: Vec<String>,
    tools: Vec<String>,
    providers: Vec<ProviderDescriptor>,
}

/// Start the process of `package` (its handshake comes later).
fn spawn_one(
    package: &Package,
    workspace: &Path,
    confinement: &Confinement,
) -> Result<(Arc<Connection>, Runtime), SidecarError> {
    let manifest = &package.manifest;
    let Some(runtime) = manifest.runtime.clone() else {
        return Err(SidecarError::Manifest {
            path: package.root.join(crate::manifest::MANIFEST_FILE),
            message: "no `runtime` block".into(),
        });
    };
    let launch = Launch::new(
        &manifest.name,
        &manifest.version,
        &package.root,
        &runtime,
        workspace,
    );
    let conn = Arc::new(Connection::spawn(&manifest.name, &launch, confinement)?);
    Ok((conn, runtime))
}

/// Handshake with a started sidecar within what is left of the start-up budget.
fn handshake_one(
    conn: Arc<Connection>,
    package: &Package,
    runtime: Runtime,
    workspace: &Path,
    deadline: Instant,
) -> Result<Started, SidecarError> {
    let manifest = &package.manifest;
    let left = deadline.saturating_duration_since(Instant::now());
    match handshake(&conn, manifest, &runtime, workspace, left) {
        Ok(result) => {
            // A sidecar that declares no tools serves every tool of its manifest.
            let tools = if result.tools.is_empty() {
                runtime.tools.iter().map(|t| t.name.clone()).collect()
            } else {
                result.tools.iter().map(|t| t.name().to_string()).collect()
            };
            let providers = if result.providers.is_empty() {
                Vec::new()
            } else {
                match provider_catalog(&conn, &result.providers) {
                    Ok(providers) => providers,
                    Err(e) => {
                        conn.shutdown(Duration::from_millis(200));
                        return Err(e);
                    }
                }
            };
            Ok(Started {
                providers,
                conn,
                subscriptions: result.subscriptions,
                slots: result.replaces,
                tools,
                runtime,
            })
        }
        Err(e) => {
            conn.shutdown(Duration::from_millis(200));
            Err(e)
        }
    }
}

/// The sidecar's provider catalog; every ref must have been declared at initialize.
fn provider_catalog(
    conn: &Connection,
    declared: &[serde_json::Value],
) -> Result<Vec<ProviderDescriptor>, SidecarError> {
    let providers = provider::catalog(conn)?;
    let declared: Vec<&str> = declared
        .iter()
        .filter_map(|d| {
            d.as_str()
                .or_else(|| d.get("ref").and_then(serde_json::Value::as_str))
        })
        .collect();
    if let Some(extra) = providers
        .iter()
        .find(|p| !declared.contains(&p.reference.as_str()))
    {
        return Err(SidecarError::Contract {
            name: conn.name().to_string(),
            reason: "capability_not_declared",
            message: format!(
                "its catalog lists provider `{}`, which it did not declare at initialize",
                reasonix_core::terminal::line(&extra.reference)
            ),
        });
    }
    Ok(providers)
}
