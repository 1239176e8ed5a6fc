//! `reasonix serve`: the options, the token, then `reasonix_serve::run` (docs/SERVE.md).

use crate::exit::{Code, Failure, Outcome};
use crate::term::{errln, outln};
use anyhow::anyhow;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Where to listen (`ADDR:PORT`; port 0 picks a free one). Beyond loopback only with a
    /// token you chose.
    #[arg(long, default_value = "127.0.0.1:7345")]
    pub listen: SocketAddr,
    /// The bearer token clients send (default: `REASONIX_SERVE_TOKEN`, else the one in
    /// `<home>/serve-token`, made on first use, readable only by you).
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// The folder a session opens in when a client names none (default: the current one).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Another name the server answers to (the host of a reverse proxy); repeatable.
    #[arg(long = "allowed-host", value_name = "HOST[:PORT]")]
    pub allowed_hosts: Vec<String>,
}

pub const TOKEN_ENV: &str = "REASONIX_SERVE_TOKEN";
const TOKEN_FILE: &str = "serve-token";

pub fn run(args: ServeArgs) -> Outcome {
    let chosen = args
        .token
        .clone()
        .or_else(|| std::env::var(TOKEN_ENV).ok())
        .filter(|t| !t.trim().is_empty());
    reasonix_serve::check_exposure(args.listen, chosen.is_some(), &args.allowed_hosts)
        .map_err(usage)?;
    if let Some(t) = &chosen
        && t.trim().len() < 16
    {
        return Err(Failure::usage(anyhow!(
            "the token is {} characters; use at least 16 (a generated one has 64)",
            t.trim().len()
        )));
    }
    let home = reasonix_config::Paths::from_env().home;
    let (token, from) = match chosen {
        Some(t) => (t.trim().to_string(), None),
        None => {
            let file = home.join(TOKEN_FILE);
            (stored_token(&file)?, Some(file))
        }
    };
    let workspace = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(Failure::runtime)?,
    };
    let workspace = workspace
        .canonicalize()
        .map_err(|e| Failure::usage(anyhow!("{}: {e}", workspace.display())))?;
    let page_token = token.clone();
    let first_host = args.allowed_hosts.first().cloned();
    let options = reasonix_serve::ServeOptions {
        listen: args.listen,
        token,
        workspace,
        allowed_hosts: args.allowed_hosts,
    };
    reasonix_serve::run(options, |addr| {
        outln!("reasonix serve: listening on http://{addr}/api/v1");
        outln!(
            "reasonix serve: web UI at {}",
            page_address(addr, first_host.as_deref(), &page_token)
        );
        match &from {
            Some(file) => errln!("the token is in {} (readable only by you)", file.display()),
            None => errln!("clients send the token you gave (Authorization: Bearer …)"),
        }
    })
    .map_err(usage)?;
    Ok(Code::Success)
}

/// Where a browser opens the page. On loopback only this machine's users can reach the port,
/// and the token rides in the fragment, which the browser never sends: the page trades it for
/// its cookie. Reachable from elsewhere, the address is printed without the token (you chose
/// it, and terminal output ends up in logs).
fn page_address(addr: SocketAddr, host: Option<&str>, token: &str) -> String {
    if addr.ip().is_loopback() {
        format!("http://{addr}/#token={token}")
    } else {
        let host = host.map_or_else(|| addr.to_string(), str::to_string);
        format!("http://{host}/ (sign in with your token)")
    }
}

fn usage(e: reasonix_serve::ServeError) -> Failure {
    match e {
        reasonix_serve::ServeError::Usage(m) => Failure::usage(anyhow!(m)),
        reasonix_serve::ServeError::Io(m) => Failure::runtime(anyhow!(m)),
    }
}

/// The token in `file`, made (0600, never over an existing file) when there is none.
fn stored_token(file: &Path) -> Result<String, Failure> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    match std::fs::read_to_string(file) {
        Ok(text) => {
            let mode = std::fs::metadata(file)
                .map_err(Failure::runtime)?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                return Err(Failure::usage(anyhow!(
                    "{} can be read by others (mode {:o}); `chmod 600` it or delete it for a new one",
                    file.display(),
                    mode & 0o777
                )));
            }
            let token = text.trim().to_string();
            if token.len() < 16 {
                return Err(Failure::usage(anyhow!(
                    "{} holds no usable token; delete it for a new one",
                    file.display()
                )));
            }
            Ok(token)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let token =
                reasonix_serve::guard::new_token().map_err(|e| Failure::runtime(anyhow!("{e}")))?;
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir).map_err(Failure::runtime)?;
            }
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(file)
                .map_err(|e| Failure::runtime(anyhow!("{}: {e}", file.display())))?;
            writeln!(f, "{token}").map_err(Failure::runtime)?;
            Ok(token)
        }
        Err(e) => Err(Failure::runtime(anyhow!("{}: {e}", file.display()))),
    }
}
