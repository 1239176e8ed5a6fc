//! Outbound HTTP through a proxy named by the environment (`HTTP_PROXY`, `HTTPS_PROXY`,
//! `NO_PROXY`), end to end: the real `reasonix` binary, the real `web` component and `llm`
//! provider, and a real tiny HTTP proxy in this file that forwards absolute-form requests,
//! splices `CONNECT` tunnels and records what it was asked.
//!
//! The targets are on 127.0.0.1, which is reached directly by default; the tests set
//! `NO_PROXY` (which replaces that default) to send loopback through the proxy.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use reasonix_mock_llm::{MockLlm, Reply};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::{Env, shared_artifact_cache, stderr, stdout};

const PROXY_VARS: [&str; 8] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// What the proxy was asked, one entry per connection.
#[derive(Debug, Clone)]
struct Seen {
    request_line: String,
    proxy_authorization: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Forward,
    /// Answer every `CONNECT` with 403.
    RefuseConnect,
    /// Forward every request, whatever host it names, to this loopback port: a remote-looking
    /// host served by a local test server.
    Upstream(u16),
}

struct Proxy {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Proxy {
    fn start(mode: Mode) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(64) {
                let Ok(stream) = stream else { continue };
                let record = record.clone();
                std::thread::spawn(move || proxy_connection(stream, mode, &record));
            }
        });
        Proxy { port, seen }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Read up to the end of a request or response head; the head and whatever followed it.
fn read_head(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end + 4]).into_owned();
            return Some((head, data[end + 4..].to_vec()));
        }
        if data.len() > 64 * 1024 {
            return None;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then_some(value.trim())
    })
}

/// Copy bytes both ways until both sides are done.
fn splice(client: TcpStream, upstream: TcpStream) {
    let (mut c_read, mut u_write) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut c_read, &mut u_write);
        let _ = u_write.shutdown(Shutdown::Write);
    });
    let (mut u_read, mut c_write) = (upstream, client);
    let _ = std::io::copy(&mut u_read, &mut c_write);
    let _ = c_write.shutdown(Shutdown::Write);
    let _ = up.join();
}

fn proxy_connection(mut client: TcpStream, mode: Mode, record: &Mutex<Vec<Seen>>) {
    client
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let Some((head, rest)) = read_head(&mut client) else {
        return;
    };
    let request_line = head.lines().next().unwrap_or_default().to_string();
    record.lock().unwrap().push(Seen {
        request_line: request_line.clone(),
        proxy_authorization: header(&head, "proxy-authorization").map(str::to_string),
    });
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method == "CONNECT" {
        if mode == Mode::RefuseConnect {
            let _ = client.write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
            return;
        }
        let Ok(upstream) = TcpStream::connect(upstream_of(mode, target)) else {
            let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n");
            return;
        };
        client
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .unwrap();
        splice(client, upstream);
        return;
    }
    // Absolute-form: `GET http://host:port/path HTTP/1.1`.
    let Some(rest_of_url) = target.strip_prefix("http://") else {
        let _ = client.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
        return;
    };
    let (authority, path) = match rest_of_url.find('/') {
        Some(i) => (&rest_of_url[..i], &rest_of_url[i..]),
        None => (rest_of_url, "/"),
    };
    let Ok(mut upstream) = TcpStream::connect(upstream_of(mode, authority)) else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n");
        return;
    };
    let mut forwarded = format!("{method} {path} HTTP/1.1\r\n");
    for line in head.lines().skip(1).filter(|l| !l.is_empty()) {
        if !line.to_ascii_lowercase().starts_with("proxy-") {
            forwarded.push_str(line);
            forwarded.push_str("\r\n");
        }
    }
    forwarded.push_str("\r\n");
    upstream.write_all(forwarded.as_bytes()).unwrap();
    upstream.write_all(&rest).unwrap();
    splice(client, upstream);
}

fn upstream_of(mode: Mode, target: &str) -> String {
    match mode {
        Mode::Upstream(port) => format!("127.0.0.1:{port}"),
        Mode::Forward | Mode::RefuseConnect => target.to_string(),
    }
}

/// An origin server: answers every request with a fixed text and records its request lines.
struct Origin {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Origin {
    fn start() -> Origin {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(16) {
                let Ok(mut stream) = stream else { continue };
                stream
                    .set_read_timeout(Some(Duration::from_secs(10)))
                    .unwrap();
                let Some((head, _)) = read_head(&mut stream) else {
                    continue;
                };
                let line = head.lines().next().unwrap_or_default().to_string();
                record.lock().unwrap().push(line);
                let body = "hello through the proxy\n";
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Origin { port, seen }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// A plain TCP server that records the first bytes it receives, then hangs up: what arrives
/// through a `CONNECT` tunnel when the client starts TLS.
fn first_bytes_server() -> (u16, Arc<Mutex<Vec<u8>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let got = Arc::new(Mutex::new(Vec::new()));
    let record = got.clone();
    std::thread::spawn(move || {
        if let Some(Ok(mut stream)) = listener.incoming().next() {
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut buf = [0u8; 512];
            if let Ok(n) = stream.read(&mut buf) {
                record.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        }
    });
    (port, got)
}

/// `reasonix <args>` with exactly the given proxy variables set.
fn reasonix(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_reasonix"));
    command
        .args(args)
        .current_dir(env.project())
        .env("REASONIX_HOME", env.home())
        .env("REASONIX_CACHE_HOME", shared_artifact_cache())
        .env_remove("REASONIX_LOG");
    for name in PROXY_VARS {
        command.env_remove(name);
    }
    for (name, value) in vars {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn fetch(env: &Env, vars: &[(&str, &str)], url: &str) -> Output {
    let ws = env.workspace();
    let args = serde_json::json!({ "url": url }).to_string();
    reasonix(
        env,
        vars,
        &[
            "tools",
            "call",
            "web_fetch",
            &args,
            "--dir",
            ws.to_str().unwrap(),
        ],
    )
}

#[test]
fn web_fetch_goes_through_the_proxy_with_its_credentials() {
    let proxy = Proxy::start(Mode::Forward);
    let origin = Origin::start();
    let env = Env::new();
    let proxy_url = format!("http://alice:s%40cret@127.0.0.1:{}", proxy.port);
    let out = fetch(
        &env,
        &[("HTTP_PROXY", &proxy_url), ("NO_PROXY", "")],
        &origin.url("/page?q=1"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("hello through the proxy"),
        "{}",
        stdout(&out)
    );
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(
        seen[0].request_line,
        format!("GET http://127.0.0.1:{}/page?q=1 HTTP/1.1", origin.port)
    );
    // base64("alice:s@cret"): percent-decoded before encoding.
    assert_eq!(
        seen[0].proxy_authorization.as_deref(),
        Some("Basic YWxpY2U6c0BjcmV0")
    );
    assert_eq!(origin.seen(), vec!["GET /page?q=1 HTTP/1.1".to_string()]);
}

#[test]
fn no_proxy_and_the_loopback_default_bypass_the_proxy() {
    let proxy = Proxy::start(Mode::Forward);
    let origin = Origin::start();
    let env = Env::new();
    let url = proxy.url();
    // A matching NO_PROXY entry, and no NO_PROXY at all (loopback is direct by default).
    for vars in [
        vec![
            ("HTTP_PROXY", url.as_str()),
            ("NO_PROXY", "example.com,127.0.0.1"),
        ],
        vec![("http_proxy", url.as_str())],
    ] {
        let out = fetch(&env, &vars, &origin.url("/direct"));
        assert_eq!(out.status.code(), Some(0), "{vars:?}: {}", stderr(&out));
        assert!(stdout(&out).contains("hello through the proxy"));
    }
    assert!(proxy.seen().is_empty(), "{:?}", proxy.seen());
    assert_eq!(origin.seen().len(), 2);

    // A NO_PROXY that does not match sends loopback through the proxy again.
    let out = fetch(
        &env,
        &[("HTTP_PROXY", &url), ("NO_PROXY", "example.com")],
        &origin.url("/proxied"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(proxy.seen().len(), 1);
}

#[test]
fn https_goes_through_a_connect_tunnel_and_tls_is_to_the_target() {
    let proxy = Proxy::start(Mode::Forward);
    let (port, first_bytes) = first_bytes_server();
    let env = Env::new();
    // A bare host:port proxy means http://.
    let bare = format!("127.0.0.1:{}", proxy.port);
    let out = fetch(
        &env,
        &[("HTTPS_PROXY", &bare), ("NO_PROXY", "")],
        &format!("https://127.0.0.1:{port}/secret"),
    );
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(
        seen[0].request_line,
        format!("CONNECT 127.0.0.1:{port} HTTP/1.1")
    );
    assert_eq!(seen[0].proxy_authorization, None);
    // The TLS ClientHello arrived at the target through the tunnel: a handshake record (0x16)
    // carrying a ClientHello (handshake type 1).
    let bytes = first_bytes.lock().unwrap().clone();
    assert!(
        bytes.len() > 5 && bytes[0] == 0x16 && bytes[5] == 0x01,
        "{bytes:?}"
    );
    // The backend is no TLS server, so the handshake fails: a TLS error, not a proxy one.
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("TLS handshake failed"), "{err}");
    assert!(!err.contains("proxy"), "{err}");
}

#[test]
fn a_refused_connect_names_the_proxy_and_status_but_not_the_password() {
    let proxy = Proxy::start(Mode::RefuseConnect);
    let env = Env::new();
    let proxy_url = format!("http://bob:hunter2@127.0.0.1:{}", proxy.port);
    let out = fetch(
        &env,
        &[("HTTPS_PROXY", &proxy_url), ("NO_PROXY", "")],
        "https://127.0.0.1:9/",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "proxy http://127.0.0.1:{} (from HTTPS_PROXY): refused CONNECT 127.0.0.1:9: `HTTP/1.1 403 Forbidden`",
            proxy.port
        )),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].request_line, "CONNECT 127.0.0.1:9 HTTP/1.1");
    // base64("bob:hunter2")
    assert_eq!(
        seen[0].proxy_authorization.as_deref(),
        Some("Basic Ym9iOmh1bnRlcjI=")
    );
}

#[test]
fn an_unsupported_proxy_scheme_fails_the_request_and_says_why() {
    let env = Env::new();
    let origin = Origin::start();
    let out = fetch(
        &env,
        &[("ALL_PROXY", "socks5://127.0.0.1:1080"), ("NO_PROXY", "")],
        &origin.url("/"),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("ALL_PROXY=`socks5://127.0.0.1:1080` cannot be used"),
        "{err}"
    );
    assert!(err.contains("only `http://` ones"), "{err}");
    // Not silently sent direct either.
    assert!(origin.seen().is_empty());
}

#[test]
fn private_targets_are_still_refused_through_a_proxy() {
    let proxy = Proxy::start(Mode::Forward);
    let env = Env::new();
    for url in [
        "http://169.254.169.254/admin",
        "https://169.254.169.254/latest/",
    ] {
        let out = fetch(
            &env,
            &[
                ("HTTP_PROXY", &proxy.url()),
                ("HTTPS_PROXY", &proxy.url()),
                ("NO_PROXY", ""),
            ],
            url,
        );
        assert_eq!(out.status.code(), Some(1), "{url}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("may not reach"), "{url}: {err}");
    }
    assert!(proxy.seen().is_empty(), "{:?}", proxy.seen());
}

#[test]
fn a_provider_stream_goes_through_the_proxy_with_its_key() {
    const KEY: &str = "sk-proxy-test-key";
    let proxy = Proxy::start(Mode::Forward);
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["Hello", " via", " proxy"]));
    let env = Env::new();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), KEY, ""));
    let out = reasonix(
        &env,
        &[("HTTP_PROXY", &proxy.url()), ("NO_PROXY", "")],
        &["providers", "try", "say", "hello"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Hello via proxy");
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    let base = mock.base_url();
    assert!(
        seen[0].request_line.starts_with(&format!("POST {base}"))
            || seen[0]
                .request_line
                .starts_with(&format!("POST http://{}", mock.addr())),
        "{seen:?} (mock at {base})"
    );
    let sent = &mock.requests()[0];
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

/// A minimal streamable-HTTP MCP server on loopback (JSON answers, no event stream) with one
/// tool, `echo`. Records the `Host` header of each request.
struct McpStub {
    port: u16,
    hosts: Arc<Mutex<Vec<String>>>,
}

impl McpStub {
    fn start() -> McpStub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let hosts = Arc::new(Mutex::new(Vec::new()));
        let record = hosts.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(64) {
                let Ok(stream) = stream else { continue };
                let record = record.clone();
                std::thread::spawn(move || mcp_stub_connection(stream, &record));
            }
        });
        McpStub { port, hosts }
    }

    fn hosts(&self) -> Vec<String> {
        self.hosts.lock().unwrap().clone()
    }
}

fn mcp_stub_connection(mut stream: TcpStream, record: &Mutex<Vec<String>>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let Some((head, mut body)) = read_head(&mut stream) else {
        return;
    };
    record
        .lock()
        .unwrap()
        .push(header(&head, "host").unwrap_or_default().to_string());
    let length: usize = header(&head, "content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut buf = [0u8; 4096];
    while body.len() < length {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => body.extend_from_slice(&buf[..n]),
        }
    }
    let respond = |stream: &mut TcpStream, status: &str, body: &str| {
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
    };
    if !head.starts_with("POST ") {
        return respond(&mut stream, "405 Method Not Allowed", "");
    }
    let message: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let Some(id) = message.get("id") else {
        return respond(&mut stream, "202 Accepted", "");
    };
    let result = match message["method"].as_str().unwrap_or_default() {
        "initialize" => serde_json::json!({
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "stub", "version": "1.0.0"},
        }),
        "tools/list" => serde_json::json!({"tools": [{
            "name": "echo",
            "description": "Echoes its text.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        }]}),
        "tools/call" => serde_json::json!({"content": [{
            "type": "text",
            "text": format!("echo: {}", message["params"]["arguments"]["text"].as_str().unwrap_or_default()),
        }]}),
        _ => {
            let error = serde_json::json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "method not found"}});
            return respond(&mut stream, "200 OK", &error.to_string());
        }
    };
    let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
    respond(&mut stream, "200 OK", &answer.to_string());
}

/// `reasonix run` with the MCP server `stub` at `url` (in `<home>/config.toml`), the model
/// scripted to call its `echo` tool; the output and the model's second request. `{mock}` in a
/// variable's value is the mock LLM's port.
fn run_with_mcp_stub(vars: &[(&str, &str)], url: &str) -> (Output, Option<serde_json::Value>) {
    let mock = MockLlm::start().unwrap();
    let port = mock.addr().port().to_string();
    let vars: Vec<(&str, String)> = vars
        .iter()
        .map(|(name, value)| (*name, value.replace("{mock}", &port)))
        .collect();
    let vars: Vec<(&str, &str)> = vars.iter().map(|(n, v)| (*n, v.as_str())).collect();
    mock.enqueue_all([
        Reply::tool_calls(&[("c1", "mcp__stub__echo", r#"{"text":"hi"}"#)], 1),
        Reply::text(&["done"]),
    ]);
    let env = Env::new();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    std::fs::write(
        env.home().join("config.toml"),
        support::mcp::plugin_remote("stub", "http", url, "startup_timeout_seconds = 15"),
    )
    .unwrap();
    let ws = env.workspace();
    let out = reasonix(
        &env,
        &vars,
        &[
            "run",
            "--dir",
            ws.to_str().unwrap(),
            "--allowed-tools",
            "mcp__stub",
            "echo hi",
        ],
    );
    let second = mock.requests().get(1).map(|r| r.json());
    (out, second)
}

fn echo_result(second: Option<&serde_json::Value>) -> Option<String> {
    support::tool_results("openai", second?)
        .into_iter()
        .find(|(id, _)| id == "c1")
        .map(|(_, content)| content)
}

/// Issue #26 item 6: with `HTTP_PROXY` set and `NO_PROXY` unset, an MCP server on loopback is
/// reached directly, as the provider on loopback is (the proxy here is a port nobody listens on).
#[test]
fn an_mcp_server_on_loopback_is_reached_directly_whatever_the_proxy() {
    let dead = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://127.0.0.1:{}", dead.local_addr().unwrap().port());
    drop(dead);
    let stub = McpStub::start();
    let (out, second) = run_with_mcp_stub(
        &[("HTTP_PROXY", &dead_url), ("HTTPS_PROXY", &dead_url)],
        &format!("http://127.0.0.1:{}/mcp", stub.port),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "done\n");
    assert_eq!(
        echo_result(second.as_ref()).as_deref(),
        Some("echo: hi"),
        "{}",
        stderr(&out)
    );
    assert!(
        stub.hosts()
            .iter()
            .all(|h| *h == format!("127.0.0.1:{}", stub.port)),
        "{:?}",
        stub.hosts()
    );
}

/// A remote-looking MCP server goes through `HTTP_PROXY`, with the proxy's credentials.
#[test]
fn a_remote_mcp_server_goes_through_the_proxy() {
    let stub = McpStub::start();
    let proxy = Proxy::start(Mode::Upstream(stub.port));
    let proxy_url = format!("http://carol:pa%3Ass@127.0.0.1:{}", proxy.port);
    let (out, second) =
        run_with_mcp_stub(&[("HTTP_PROXY", &proxy_url)], "http://mcp.remote.test/mcp");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(echo_result(second.as_ref()).as_deref(), Some("echo: hi"));
    let seen = proxy.seen();
    assert!(!seen.is_empty());
    for request in &seen {
        assert!(
            request
                .request_line
                .ends_with(" http://mcp.remote.test/mcp HTTP/1.1"),
            "{seen:?}"
        );
        // base64("carol:pa:ss")
        assert_eq!(
            request.proxy_authorization.as_deref(),
            Some("Basic Y2Fyb2w6cGE6c3M="),
            "{seen:?}"
        );
    }
    assert!(seen.iter().any(|r| r.request_line.starts_with("POST ")));
    assert!(
        stub.hosts().iter().all(|h| h == "mcp.remote.test"),
        "{:?}",
        stub.hosts()
    );
}

/// A failure the proxy causes names the proxy (never its password), and `NO_PROXY` is honoured
/// for MCP servers too: a listed host is not sent to the proxy.
#[test]
fn mcp_proxy_failures_name_the_proxy_and_no_proxy_is_honoured() {
    let proxy = Proxy::start(Mode::RefuseConnect);
    let proxy_url = format!("http://dave:hunter2@127.0.0.1:{}", proxy.port);
    let (out, _) = run_with_mcp_stub(
        &[("HTTPS_PROXY", &proxy_url)],
        "https://mcp.remote.test/mcp",
    );
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "https://mcp.remote.test/mcp via proxy http://127.0.0.1:{} (from HTTPS_PROXY)",
            proxy.port
        )),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    assert!(
        proxy
            .seen()
            .iter()
            .any(|s| s.request_line == "CONNECT mcp.remote.test:443 HTTP/1.1"),
        "{:?}",
        proxy.seen()
    );

    // Loopback through the proxy when NO_PROXY (set, so replacing the loopback default) does
    // not list it; direct when it does.
    let stub = McpStub::start();
    let forwarding = Proxy::start(Mode::Upstream(stub.port));
    let url = format!("http://127.0.0.1:{}/mcp", stub.port);
    for (no_proxy, through) in [
        ("example.com,127.0.0.1:{mock}", true),
        ("example.com,127.0.0.1", false),
    ] {
        let before = forwarding.seen().len();
        let (out, second) = run_with_mcp_stub(
            &[("HTTP_PROXY", &forwarding.url()), ("NO_PROXY", no_proxy)],
            &url,
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(echo_result(second.as_ref()).as_deref(), Some("echo: hi"));
        assert_eq!(
            forwarding.seen().len() > before,
            through,
            "NO_PROXY={no_proxy}"
        );
    }
}

/// `plugin install <url>` takes the same decision: an https download goes through a `CONNECT`
/// tunnel of `HTTPS_PROXY`, and a refusal names the proxy (before, the download ignored proxies).
#[test]
fn a_plugin_download_goes_through_the_proxy() {
    let proxy = Proxy::start(Mode::RefuseConnect);
    let env = Env::new();
    let proxy_url = format!("http://erin:s3cret@127.0.0.1:{}", proxy.port);
    let out = reasonix(
        &env,
        &[("HTTPS_PROXY", &proxy_url)],
        &[
            "plugin",
            "install",
            "https://plugins.remote.test/tool.wasm",
            "--yes",
        ],
    );
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "proxy http://127.0.0.1:{} (from HTTPS_PROXY): refused CONNECT plugins.remote.test:443",
            proxy.port
        )),
        "{err}"
    );
    assert!(!err.contains("s3cret"), "{err}");
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    // base64("erin:s3cret")
    assert_eq!(
        seen[0].proxy_authorization.as_deref(),
        Some("Basic ZXJpbjpzM2NyZXQ=")
    );
}
