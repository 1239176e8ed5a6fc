//! How a stdio server is launched when it must not run with the user's full rights: the
//! front end decides per server (project servers run in the OS sandbox unless the user opted
//! out, ADR 0026) and hands back the launcher's command line. This crate only runs it.

use reasonix_config::mcp::ServerSpec;
use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The command a server would run unconfined.
pub struct Launch<'a> {
    pub program: &'a str,
    pub args: &'a [String],
    /// Its whole environment, in order.
    pub env: &'a [(String, OsString)],
    /// Its working directory (absolute).
    pub cwd: &'a Path,
}

/// The command to run instead: a launcher (bubblewrap) that starts the server confined.
pub struct Confined {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// A descriptor the launcher inherits under its own number (the server's environment,
    /// which must not appear on a command line every user can read).
    pub inherit: Option<OwnedFd>,
    /// Kept while the server runs (its private temp directory).
    pub keep: Box<dyn Send + Sync>,
}

/// Decides, per server, how it is started.
pub trait Confine: Send + Sync {
    /// `Ok(None)`: run it as configured. `Ok(Some(_))`: run that instead. `Err`: do not start
    /// it, for this reason.
    fn confine(&self, spec: &ServerSpec, launch: &Launch<'_>) -> Result<Option<Confined>, String>;
}

/// A shared [`Confine`] in [`crate::StartOptions`].
#[derive(Clone)]
pub struct Confinement(pub Arc<dyn Confine>);

impl std::fmt::Debug for Confinement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Confinement")
    }
}
