//! Real MCP servers for the end-to-end tests (tests/e2e/mcp.rs, docs/mcp/testing.md): where the
//! installed ones are, servers started over HTTP for a test, and the config files that name
//! them.
//!
//! `.ci/run` installs `@modelcontextprotocol/server-everything` and the Python SDK `mcp` into
//! `<target>/mcp-servers` and exports `REASONIX_MCP_EVERYTHING`, `REASONIX_MCP_PYTHON` and
//! `REASONIX_REQUIRE_MCP_SERVERS=1`. Without the variables the servers are looked for under
//! `$CARGO_TARGET_DIR` (or `target/`), then in `/work/mcp-servers` (the development machine's
//! copy). A missing server skips the test with a printed note, or fails it when
//! `REASONIX_REQUIRE_MCP_SERVERS=1`.
// Prints why a test skipped, nothing from servers (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

use super::repo_root;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const EVERYTHING_ENTRY: &str =
    "node/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
const VENV_PYTHON: &str = "venv/bin/python";
/// The development machine's copy, outside the repository.
const DEV_SERVERS: &str = "/work/mcp-servers";

/// Where a server may be installed: `$var` alone when it is set (what CI installed, nothing
/// else), otherwise `relative` under `<target>/mcp-servers`, then under [`DEV_SERVERS`].
fn candidates(var: &str, relative: &str) -> Vec<PathBuf> {
    match std::env::var_os(var) {
        Some(path) => vec![PathBuf::from(path)],
        None => vec![
            super::target_dir().join("mcp-servers").join(relative),
            Path::new(DEV_SERVERS).join(relative),
        ],
    }
}

/// `Some(value)`, or `None` after printing why the test skips; a panic instead when
/// `REASONIX_REQUIRE_MCP_SERVERS=1`.
fn required<T>(test_needs: &str, found: Result<T, String>) -> Option<T> {
    match found {
        Ok(value) => Some(value),
        Err(why) if std::env::var("REASONIX_REQUIRE_MCP_SERVERS").as_deref() == Ok("1") => {
            panic!(
                "REASONIX_REQUIRE_MCP_SERVERS=1 but {test_needs} is missing: {why} \
                 (.ci/run installs it; see docs/mcp/testing.md)"
            )
        }
        Err(why) => {
            eprintln!("skipping: {test_needs} is missing: {why} (see docs/mcp/testing.md)");
            None
        }
    }
}

fn runs(program: &Path, args: &[&str]) -> Result<(), String> {
    match Command::new(program).args(args).output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "`{} {}` failed: {}",
            program.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!("cannot run {}: {e}", program.display())),
    }
}

/// The JS entry of `@modelcontextprotocol/server-everything` (run with `node`).
pub fn everything() -> Option<PathBuf> {
    let found = runs(Path::new("node"), &["--version"]).and_then(|()| {
        let tried = candidates("REASONIX_MCP_EVERYTHING", EVERYTHING_ENTRY);
        tried.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
            format!(
                "none of {} exists",
                tried
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    });
    required("@modelcontextprotocol/server-everything (node)", found)
}

/// A Python interpreter with the MCP SDK (`mcp`) installed.
pub fn sdk_python() -> Option<PathBuf> {
    let tried = candidates("REASONIX_MCP_PYTHON", VENV_PYTHON);
    let mut why = Vec::new();
    for python in &tried {
        match runs(python, &["-c", "import mcp.server.mcpserver"]) {
            Ok(()) => return Some(python.clone()),
            Err(e) => why.push(e),
        }
    }
    required("a Python with the `mcp` package", Err(why.join("; ")))
}

/// A plain `python3` (the fault servers need only the standard library).
pub fn python3() -> Option<PathBuf> {
    let python = PathBuf::from("python3");
    required("python3", runs(&python, &["--version"]).map(|()| python))
}

/// A file of `tests/mcp-servers/`.
pub fn server_script(name: &str) -> PathBuf {
    repo_root().join("tests/mcp-servers").join(name)
}

/// `(command, args)` of `tests/mcp-servers/fault_server.py MODE ARGS…`, or `None` (skipped).
pub fn fault_server(mode: &str, args: &[&str]) -> Option<(String, Vec<String>)> {
    let python = python3()?;
    let mut all = vec![
        server_script("fault_server.py").display().to_string(),
        mode.to_string(),
    ];
    all.extend(args.iter().map(|a| a.to_string()));
    Some((python.display().to_string(), all))
}

/// `(command, args)` of the FastMCP server over stdio, or `None` (skipped).
pub fn fastmcp_stdio() -> Option<(String, Vec<String>)> {
    let python = sdk_python()?;
    Some((
        python.display().to_string(),
        vec![server_script("fastmcp_server.py").display().to_string()],
    ))
}

/// `(command, args)` of server-everything over stdio, or `None` (skipped).
pub fn everything_stdio() -> Option<(String, Vec<String>)> {
    let entry = everything()?;
    Some((
        "node".to_string(),
        vec![entry.display().to_string(), "stdio".to_string()],
    ))
}

/// A server process listening on loopback for one test; killed when dropped.
pub struct HttpServer {
    child: Child,
    pub port: u16,
    log: tempfile::NamedTempFile,
}

impl HttpServer {
    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// What the server wrote so far (stdout and stderr).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on right now (the server binds it a moment later; a clash is retried).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Start `command` (given the port) and wait until it accepts connections on 127.0.0.1; up to
/// three ports are tried, in case another process takes the chosen one first.
fn start_listening(what: &str, command: impl Fn(u16) -> Command) -> HttpServer {
    let mut failures = Vec::new();
    for _ in 0..3 {
        let port = free_port();
        let log = tempfile::NamedTempFile::new().unwrap();
        let child = command(port)
            .stdin(Stdio::null())
            .stdout(log.reopen().unwrap())
            .stderr(log.reopen().unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
        let mut server = HttpServer { child, port, log };
        // Generous: node or uvicorn starting on a loaded two-core machine.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            if let Some(status) = server.child.try_wait().unwrap() {
                failures.push(format!("port {port}: exited ({status}): {}", server.log()));
                break;
            }
            if Instant::now() > deadline {
                panic!(
                    "{what} did not listen on port {port} within 60 s: {}",
                    server.log()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!("{what} did not start:\n{}", failures.join("\n"))
}

/// server-everything over `transport` (`sse`: GET `/sse`; `streamableHttp`: `/mcp`), or `None`
/// (skipped).
pub fn everything_http(transport: &str) -> Option<HttpServer> {
    let entry = everything()?;
    Some(start_listening(
        &format!("server-everything {transport}"),
        |port| {
            let mut command = Command::new("node");
            command
                .arg(&entry)
                .arg(transport)
                .env("PORT", port.to_string());
            command
        },
    ))
}

/// The FastMCP server over streamable HTTP (`/mcp`), or `None` (skipped).
pub fn fastmcp_http() -> Option<HttpServer> {
    let python = sdk_python()?;
    Some(start_listening("the FastMCP server over HTTP", |port| {
        let mut command = Command::new(&python);
        command
            .arg(server_script("fastmcp_server.py"))
            .args(["--http", &port.to_string()]);
        command
    }))
}

/// A TOML basic string (JSON's escapes are TOML's).
fn toml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// A `[[plugins]]` entry of the original Reasonix for a stdio server; `extra` lines (e.g.
/// `startup_timeout_seconds = 5`) are appended.
pub fn plugin_stdio(name: &str, command: &str, args: &[String], extra: &str) -> String {
    let args: Vec<String> = args.iter().map(|a| toml_string(a)).collect();
    format!(
        "\n[[plugins]]\nname = {}\ncommand = {}\nargs = [{}]\n{extra}\n",
        toml_string(name),
        toml_string(command),
        args.join(", ")
    )
}

/// A `[[plugins]]` entry for a remote server: `kind` is `http` or `sse`.
pub fn plugin_remote(name: &str, kind: &str, url: &str, extra: &str) -> String {
    format!(
        "\n[[plugins]]\nname = {}\ntype = {}\nurl = {}\n{extra}\n",
        toml_string(name),
        toml_string(kind),
        toml_string(url)
    )
}

/// A Claude Code `mcpServers` entry for a stdio server.
pub fn mcp_json_stdio(command: &str, args: &[String]) -> serde_json::Value {
    serde_json::json!({ "command": command, "args": args })
}

/// A Claude Code `mcpServers` entry for a remote server: `kind` is `http` or `sse`.
pub fn mcp_json_remote(kind: &str, url: &str) -> serde_json::Value {
    serde_json::json!({ "type": kind, "url": url })
}

/// Write a Claude Code `mcpServers` file with `servers` (name, entry) to `path`.
pub fn write_mcp_json(path: &Path, servers: &[(&str, serde_json::Value)]) {
    let map: serde_json::Map<String, serde_json::Value> = servers
        .iter()
        .map(|(name, entry)| (name.to_string(), entry.clone()))
        .collect();
    let doc = serde_json::json!({ "mcpServers": map });
    std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

/// Run `command` to its end, its stdout and stderr drained, and return its output with its
/// peak resident set size in KiB (`VmHWM` of /proc/<pid>/status, read until it exits).
pub fn output_with_peak_rss(mut command: Command) -> (Output, u64) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).unwrap();
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let status = loop {
        if let Some(kib) = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| vm_hwm_kib(&s))
        {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    (output, peak_kib)
}

fn vm_hwm_kib(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
}

/// The `[[plugins]]` line that makes a fault server append its process id to `pidfile` at each
/// start (see [`assert_no_server_outlives`]).
pub fn pidfile_env(pidfile: &Path) -> String {
    format!(
        "env = {{ FAULT_SERVER_PIDFILE = {} }}",
        toml_string(&pidfile.display().to_string())
    )
}

/// Every process listed in `pidfile` is gone (or a zombie) within `grace`: a server must not
/// outlive the `reasonix` that started it.
pub fn assert_no_server_outlives(pidfile: &Path, grace: Duration) {
    let pids = std::fs::read_to_string(pidfile)
        .unwrap_or_else(|e| panic!("no server started ({}: {e})", pidfile.display()));
    let deadline = Instant::now() + grace;
    for pid in pids.lines().filter(|l| !l.trim().is_empty()) {
        loop {
            let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|stat| {
                    // `pid (comm) state …`; comm may hold spaces, the state follows the last `)`.
                    stat.rsplit_once(')')
                        .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
                })
                .unwrap_or(false);
            if !alive {
                break;
            }
            if Instant::now() > deadline {
                let _ = Command::new("kill").args(["-9", pid]).status();
                panic!("MCP server process {pid} is still running after reasonix exited");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
