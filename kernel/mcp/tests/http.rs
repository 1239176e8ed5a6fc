//! The remote transports against real servers: the reference server-everything over streamable
//! HTTP and legacy SSE, and small hostile HTTP servers written here (raw TCP, canned answers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    net::SocketAddr,
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};

use reasonix_mcp::http::{HttpError, HttpOptions, legacy_sse, streamable_http};
use rmcp::{
    ClientHandler, RoleClient,
    model::{
        CallToolRequestParams, GetPromptRequestParams, NumberOrString, ProgressNotificationParam,
        ProgressToken, ReadResourceRequestParams, RequestMetaObject,
    },
    service::NotificationContext,
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::mpsc,
};

// ---------------------------------------------------------------------------------------------
// server-everything

/// A test server installed outside the repo: `env` names it, else `<target>/mcp-servers/<rel>`;
/// `None` (with a note) when it is missing, unless REASONIX_REQUIRE_MCP_SERVERS=1.
fn installed(env: &str, rel: &str) -> Option<PathBuf> {
    let path = std::env::var_os(env).map(PathBuf::from).unwrap_or_else(|| {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
        target.join("mcp-servers").join(rel)
    });
    if path.is_file() {
        return Some(path);
    }
    let note = format!("{} not found (set {env})", path.display());
    assert!(
        std::env::var("REASONIX_REQUIRE_MCP_SERVERS").as_deref() != Ok("1"),
        "{note}"
    );
    eprintln!("SKIPPED: {note}");
    None
}

fn everything_entry() -> Option<PathBuf> {
    installed(
        "REASONIX_MCP_EVERYTHING",
        "node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    )
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Spawns `command` and waits until `port` accepts connections; killed when dropped.
async fn start_listening(mut command: tokio::process::Command, port: u16) -> tokio::process::Child {
    let mut child = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("server starts");
    for _ in 0..600 {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return child;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{command:?} exited before listening: {status}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{command:?} did not listen on port {port} within 60 s");
}

/// `node <entry> <mode>` (server-everything) on a free port.
async fn start_everything(entry: &PathBuf, mode: &str) -> (tokio::process::Child, u16) {
    let port = free_port();
    let mut command = tokio::process::Command::new("node");
    command.arg(entry).arg(mode).env("PORT", port.to_string());
    (start_listening(command, port).await, port)
}

/// A client that records the progress notifications it receives.
#[derive(Clone, Default)]
struct ProgressLog(Arc<Mutex<Vec<f64>>>);

impl ClientHandler for ProgressLog {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params.progress);
    }
}

async fn exercise_everything<T, E, A>(transport: T)
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let progress = ProgressLog::default();
    let client = within(rmcp::serve_client(progress.clone(), transport))
        .await
        .expect("initialize");
    let peer = client.peer();
    let tools = peer.list_all_tools().await.expect("tools/list");
    assert!(
        tools.iter().any(|t| t.name == "echo"),
        "{:?}",
        tools.iter().map(|t| &t.name).collect::<Vec<_>>()
    );

    let args = json!({ "message": "over the wire" })
        .as_object()
        .cloned()
        .unwrap();
    let echoed = peer
        .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
        .await
        .expect("echo");
    assert!(
        serde_json::to_string(&echoed)
            .unwrap()
            .contains("Echo: over the wire")
    );

    let prompts = peer.list_all_prompts().await.expect("prompts/list");
    assert!(prompts.iter().any(|p| p.name == "args-prompt"));
    let args = json!({ "city": "Lyon" }).as_object().cloned().unwrap();
    let prompt = peer
        .get_prompt(GetPromptRequestParams::new("args-prompt").with_arguments(args))
        .await
        .expect("prompt");
    assert!(
        serde_json::to_string(&prompt)
            .unwrap()
            .contains("weather in Lyon")
    );

    let resource = peer
        .read_resource(ReadResourceRequestParams::new(
            "demo://resource/dynamic/text/1",
        ))
        .await
        .expect("resources/read");
    assert!(
        serde_json::to_string(&resource)
            .unwrap()
            .contains("Resource 1")
    );

    // Notifications reach the client too: a tool reporting progress in three steps.
    let token = ProgressToken(NumberOrString::String("op-1".into()));
    let mut call = CallToolRequestParams::new("trigger-long-running-operation").with_arguments(
        json!({ "duration": 0.3, "steps": 3 })
            .as_object()
            .cloned()
            .unwrap(),
    );
    call.meta = Some(RequestMetaObject::with_progress_token(token));
    let done = peer.call_tool(call).await.expect("long-running operation");
    assert!(serde_json::to_string(&done).unwrap().contains("Steps: 3"));
    for _ in 0..100 {
        if progress.0.lock().unwrap().len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(*progress.0.lock().unwrap(), vec![1.0, 2.0, 3.0]);

    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let (_server, port) = start_everything(&entry, "streamableHttp").await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    within(exercise_everything(
        streamable_http(&url, &HttpOptions::default()).unwrap(),
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_legacy_sse() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let (_server, port) = start_everything(&entry, "sse").await;
    let url = format!("http://127.0.0.1:{port}/sse");
    within(exercise_everything(
        legacy_sse(&url, &HttpOptions::default()).await.unwrap(),
    ))
    .await;
}

/// A server that dies: over streamable HTTP the next call fails saying so, over legacy SSE the
/// stream's end records why; either way the session ends (the manager restarts the server on
/// its next use).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_ends_the_session() {
    let Some(entry) = everything_entry() else {
        return;
    };

    let (mut server, port) = start_everything(&entry, "streamableHttp").await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let transport = streamable_http(&url, &HttpOptions::default()).unwrap();
    let closed_reason = transport.closed_reason();
    let client = within(rmcp::serve_client((), transport))
        .await
        .expect("initialize");
    server.kill().await.unwrap();
    // The call, or the SDK's own event stream, finds the server gone: whichever comes first.
    within(client.peer().list_tools(None))
        .await
        .expect_err("server gone");
    within(client.waiting()).await.expect("session ended");
    let reason = closed_reason
        .lock()
        .unwrap()
        .clone()
        .expect("reason recorded");
    assert!(
        reason.contains(&format!("cannot connect to MCP server {url}")),
        "{reason}"
    );

    let (mut server, port) = start_everything(&entry, "sse").await;
    let url = format!("http://127.0.0.1:{port}/sse");
    let transport = legacy_sse(&url, &HttpOptions::default()).await.unwrap();
    let closed_reason = transport.closed_reason();
    let client = within(rmcp::serve_client((), transport))
        .await
        .expect("initialize");
    server.kill().await.unwrap();
    within(client.waiting()).await.expect("session ended");
    let reason = closed_reason
        .lock()
        .unwrap()
        .clone()
        .expect("reason recorded");
    assert!(reason.contains(&url), "{reason}");
}

// ---------------------------------------------------------------------------------------------
// A Python server on the `mcp` package (2.x, `MCPServer`, formerly FastMCP)

const PYTHON_SERVER: &str = r#"
import sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("py-http")

@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b

@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Say hello to {name}."

@server.resource("note://today")
def today() -> str:
    """Today's note."""
    return "Buy bread."

transport, port, replies = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if transport == "sse":
    server.run("sse", host="127.0.0.1", port=port)
else:
    server.run("streamable-http", host="127.0.0.1", port=port, json_response=(replies == "json"))
"#;

/// The Python server over streamable HTTP (JSON replies, then SSE replies) and legacy SSE.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_over_every_http_transport() {
    let Some(python) = installed("REASONIX_MCP_PYTHON", "venv/bin/python") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("server.py");
    std::fs::write(&script, PYTHON_SERVER).unwrap();
    for (transport, replies, path) in [
        ("streamable-http", "json", "mcp"),
        ("streamable-http", "sse", "mcp"),
        ("sse", "-", "sse"),
    ] {
        let port = free_port();
        let mut command = tokio::process::Command::new(&python);
        command
            .arg(&script)
            .arg(transport)
            .arg(port.to_string())
            .arg(replies);
        let _server = start_listening(command, port).await;
        let url = format!("http://127.0.0.1:{port}/{path}");
        let client = if transport == "sse" {
            let transport = legacy_sse(&url, &HttpOptions::default()).await.unwrap();
            within(rmcp::serve_client((), transport)).await
        } else {
            let transport = streamable_http(&url, &HttpOptions::default()).unwrap();
            within(rmcp::serve_client((), transport)).await
        }
        .expect("initialize");
        let peer = client.peer();
        let args = json!({ "a": 2, "b": 40 }).as_object().cloned().unwrap();
        let sum = within(peer.call_tool(CallToolRequestParams::new("add").with_arguments(args)))
            .await
            .expect("add");
        assert!(
            serde_json::to_string(&sum).unwrap().contains("42"),
            "{transport}/{replies}: {sum:?}"
        );
        let args = json!({ "name": "Ada" }).as_object().cloned().unwrap();
        let prompt =
            within(peer.get_prompt(GetPromptRequestParams::new("greet").with_arguments(args)))
                .await
                .expect("greet");
        assert!(
            serde_json::to_string(&prompt)
                .unwrap()
                .contains("Say hello to Ada")
        );
        let note = within(peer.read_resource(ReadResourceRequestParams::new("note://today")))
            .await
            .expect("note");
        assert!(serde_json::to_string(&note).unwrap().contains("Buy bread"));
        within(client.cancel()).await.expect("close");
    }
}

// ---------------------------------------------------------------------------------------------
// A raw HTTP/1.1 server for hostile answers: one request per connection, answers written by hand.

struct Request {
    method: String,
    path: String,
    /// Header lines, names lowercased: `name: value`.
    headers: Vec<String>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        let prefix = format!("{name}: ");
        self.headers.iter().find_map(|h| h.strip_prefix(&prefix))
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let head_end = loop {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<String> = lines
        .map(|l| match l.split_once(':') {
            Some((n, v)) => format!("{}: {}", n.to_ascii_lowercase(), v.trim()),
            None => l.to_string(),
        })
        .collect();
    let length: usize = headers
        .iter()
        .find_map(|h| h.strip_prefix("content-length: "))
        .map_or(0, |v| v.parse().unwrap());
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let mut chunk = vec![0u8; length - body.len()];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

/// Serves every connection with `handler`; returns the base URL (`http://127.0.0.1:port`).
async fn serve<F, Fut>(handler: F) -> String
where
    F: Fn(Request, TcpStream) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let handler = handler.clone();
            tokio::spawn(async move {
                if let Some(request) = read_request(&mut stream).await {
                    handler(request, stream).await;
                }
            });
        }
    });
    format!("http://{addr}")
}

async fn answer(mut stream: TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8]) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body).await;
}

/// Starts an event-stream answer with no length: the body lasts until the connection closes.
async fn start_events(stream: &mut TcpStream) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
}

fn init_result(id: &Value) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {
            "protocolVersion": "2024-11-05",
            "capabilities": { "tools": {}, "prompts": {} },
            "serverInfo": { "name": "hostile", "version": "0" }
        }
    })
    .to_string()
}

/// The whole error chain in one line, as a user would read it.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// `future`, or a failure after 30 s: a transport that loses an answer must fail the test, not hang it.
async fn within<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), future)
        .await
        .expect("no answer within 30 s")
}

fn options(max_message_bytes: usize) -> HttpOptions {
    HttpOptions {
        max_message_bytes,
        connect_timeout: Duration::from_secs(10),
        ..HttpOptions::default()
    }
}

// ---------------------------------------------------------------------------------------------
// legacy SSE, hostile

#[tokio::test]
async fn legacy_endpoint_on_another_origin_is_refused() {
    for endpoint in [
        "http://evil.test/message",
        "//evil.test/message",
        "https://127.0.0.1:{port}/message",
        "http://localhost:{port}/message",
        "http://127.0.0.1:1/message",
        "http://127.0.0.1:{port}@evil.test/message",
    ] {
        // The port is only known once listening: the server reads it from its own request.
        let slot = Arc::new(Mutex::new(String::new()));
        let base = endpoint_server_with(slot.clone()).await;
        let port = base.rsplit(':').next().unwrap().to_string();
        let endpoint = endpoint.replace("{port}", &port);
        *slot.lock().unwrap() = endpoint.clone();
        let url = format!("{base}/sse");
        let error = legacy_sse(&url, &options(1 << 20))
            .await
            .err()
            .unwrap_or_else(|| panic!("{endpoint} accepted"));
        assert!(
            matches!(error, HttpError::CrossOrigin { .. }),
            "{endpoint}: {error}"
        );
        let message = error.to_string();
        assert!(
            message.contains(&url) && message.contains("another origin"),
            "{message}"
        );
    }
}

/// A legacy server whose only answer is its `endpoint` event (read from `slot`), then silence.
async fn endpoint_server_with(slot: Arc<Mutex<String>>) -> String {
    serve(move |_request, mut stream| {
        let slot = slot.clone();
        async move {
            let endpoint = slot.lock().unwrap().clone();
            start_events(&mut stream).await;
            let event = format!("event: endpoint\ndata: {endpoint}\n\n");
            stream.write_all(event.as_bytes()).await.unwrap();
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
    })
    .await
}

#[tokio::test]
async fn legacy_endpoint_never_sent_times_out() {
    let base = serve(|_request, mut stream| async move {
        start_events(&mut stream).await;
        stream.write_all(b": still here\n\n").await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    })
    .await;
    let url = format!("{base}/sse");
    let opts = HttpOptions {
        connect_timeout: Duration::from_secs(1),
        ..HttpOptions::default()
    };
    let error = legacy_sse(&url, &opts)
        .await
        .err()
        .expect("no endpoint, no session");
    assert!(
        matches!(error, HttpError::EndpointTimeout { .. }),
        "{error}"
    );
    assert!(error.to_string().contains(&url), "{error}");
}

/// A legacy server driven by `script`: it gets each POSTed message (as JSON) and returns the
/// raw SSE text to put on the stream (`None` ends the stream).
async fn scripted_legacy_server(script: fn(&Value) -> Option<String>) -> String {
    type Outbox = Arc<Mutex<Option<mpsc::UnboundedSender<Option<String>>>>>;
    let outbox: Outbox = Arc::default();
    serve(move |request, mut stream| {
        let outbox = outbox.clone();
        async move {
            if request.method == "GET" {
                let (tx, mut rx) = mpsc::unbounded_channel();
                *outbox.lock().unwrap() = Some(tx);
                start_events(&mut stream).await;
                stream
                    .write_all(b"event: endpoint\ndata: /message?sessionId=s1\n\n")
                    .await
                    .unwrap();
                while let Some(Some(text)) = rx.recv().await {
                    if stream.write_all(text.as_bytes()).await.is_err() {
                        return;
                    }
                }
                return; // dropping the connection ends the stream
            }
            assert_eq!(request.path, "/message?sessionId=s1");
            let reply = script(&request.json());
            answer(stream, "202 Accepted", &[], b"Accepted").await;
            if let Some(tx) = outbox.lock().unwrap().as_ref() {
                let _ = tx.send(reply);
            }
        }
    })
    .await
}

fn method(message: &Value) -> &str {
    message["method"].as_str().unwrap_or("")
}

#[tokio::test]
async fn legacy_malformed_messages_are_skipped_or_fail_their_request_and_stream_end_fails_calls() {
    let base = scripted_legacy_server(|message| match method(message) {
        "initialize" => Some(format!(
            "event: message\ndata: {{not json\n\nevent: message\ndata: [1,2]\n\nevent: ping\ndata: x\n\n\
             event: message\ndata: {}\n\n",
            init_result(&message["id"])
        )),
        // Readable JSON with the request's id, but not a JSON-RPC message: that call fails.
        "tools/list" => Some(format!("event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{}}}\n\n", message["id"])),
        "prompts/list" => None,
        _ => Some(String::new()),
    })
    .await;
    let url = format!("{base}/sse");
    let transport = legacy_sse(&url, &options(1 << 20))
        .await
        .expect("endpoint accepted");
    let closed_reason = transport.closed_reason();
    let client = within(rmcp::serve_client((), transport))
        .await
        .expect("initialize despite the garbage before it");

    let error = within(client.peer().list_tools(None))
        .await
        .expect_err("malformed reply");
    let message = chain(&error);
    assert!(
        message.contains("malformed reply") && message.contains(&url),
        "{message}"
    );

    let error = within(client.peer().list_prompts(None))
        .await
        .expect_err("stream ended");
    let message = chain(&error);
    assert!(
        message.contains("closed its event stream") && message.contains(&url),
        "{message}"
    );
    tokio::time::timeout(Duration::from_secs(10), client.waiting())
        .await
        .expect("service ends with its stream")
        .ok();
    let reason = closed_reason
        .lock()
        .unwrap()
        .clone()
        .expect("reason recorded");
    assert!(reason.contains("closed its event stream"), "{reason}");
}

#[tokio::test]
async fn legacy_oversized_event_fails_the_pending_call_with_the_limit() {
    let base = scripted_legacy_server(|message| match method(message) {
        "initialize" => Some(format!("event: message\ndata: {}\n\n", "x".repeat(1 << 20))),
        _ => Some(String::new()),
    })
    .await;
    let url = format!("{base}/sse");
    let transport = legacy_sse(&url, &options(64 * 1024))
        .await
        .expect("endpoint accepted");
    let error = within(rmcp::serve_client((), transport))
        .await
        .expect_err("the initialize answer is too large");
    let message = chain(&error);
    assert!(
        message.contains("65536") && message.contains(&url),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------------
// streamable HTTP, hostile

#[tokio::test]
async fn streamable_json_body_over_the_limit_is_refused_with_or_without_length() {
    for with_length in [true, false] {
        let base = serve(move |_request, mut stream| async move {
            let body = vec![b' '; 5 << 20];
            if with_length {
                answer(stream, "200 OK", &[("Content-Type", "application/json")], &body).await;
            } else {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
            }
        })
        .await;
        let url = format!("{base}/mcp");
        let transport = streamable_http(&url, &options(1 << 20)).unwrap();
        let error = within(rmcp::serve_client((), transport))
            .await
            .expect_err("5 MB answer refused");
        let message = chain(&error);
        assert!(
            message.contains("1048576") && message.contains(&url),
            "with length {with_length}: {message}"
        );
    }
}

#[tokio::test]
async fn streamable_oversized_sse_event_answers_the_request_with_the_limit() {
    let base = serve(|_request, mut stream| async move {
        start_events(&mut stream).await;
        let _ = stream.write_all(b"data: ").await;
        let _ = stream.write_all(&vec![b'x'; 1 << 20]).await;
        let _ = stream.write_all(b"\n\n").await;
    })
    .await;
    let url = format!("{base}/mcp");
    let transport = streamable_http(&url, &options(64 * 1024)).unwrap();
    let error = within(rmcp::serve_client((), transport))
        .await
        .expect_err("oversized event refused");
    let message = chain(&error);
    assert!(
        message.contains("65536") && message.contains(&url),
        "{message}"
    );
}

#[tokio::test]
async fn servers_wanting_oauth_get_the_bearer_token_advice() {
    let base = serve(|_request, stream| async move {
        answer(
            stream,
            "401 Unauthorized",
            &[("WWW-Authenticate", "Bearer resource_metadata=\"x\"")],
            b"",
        )
        .await;
    })
    .await;
    let url = format!("{base}/mcp");
    let error = within(rmcp::serve_client(
        (),
        streamable_http(&url, &options(1 << 20)).unwrap(),
    ))
    .await
    .err()
    .unwrap();
    let message = chain(&error);
    assert!(
        message.contains("Authorization: Bearer") && message.contains(&url),
        "{message}"
    );

    let url = format!("{base}/sse");
    let error = legacy_sse(&url, &options(1 << 20)).await.err().unwrap();
    assert!(matches!(error, HttpError::AuthRequired { .. }), "{error}");
    assert!(
        error.to_string().contains("Authorization: Bearer"),
        "{error}"
    );
}

/// Session id kept and sent back, configured headers on every request, a broken response stream
/// resumed with `Last-Event-ID`, and the session deleted on close.
#[tokio::test]
async fn streamable_session_headers_resumption_and_delete() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = seen.clone();
    let base = serve(move |request, mut stream| {
        let log = log.clone();
        async move {
            let line = format!(
                "{} session={} auth={} last-event={}",
                request.method,
                request.header("mcp-session-id").unwrap_or("-"),
                request.header("authorization").unwrap_or("-"),
                request.header("last-event-id").unwrap_or("-"),
            );
            log.lock().unwrap().push(line);
            let message = request.json();
            match (request.method.as_str(), method(&message)) {
                ("POST", "initialize") => {
                    let body = init_result(&message["id"]);
                    let headers = [
                        ("Content-Type", "application/json"),
                        ("Mcp-Session-Id", "s-42"),
                    ];
                    answer(stream, "200 OK", &headers, body.as_bytes()).await;
                }
                ("POST", "tools/list") => {
                    // An event id, then the connection drops before the answer.
                    start_events(&mut stream).await;
                    let _ = stream.write_all(b"id: ev-1\nretry: 10\ndata: \n\n").await;
                }
                ("GET", _) if request.header("last-event-id") == Some("ev-1") => {
                    start_events(&mut stream).await;
                    let reply = json!({ "jsonrpc": "2.0", "id": 1, "result": { "tools": [] } });
                    let _ = stream
                        .write_all(format!("id: ev-2\ndata: {reply}\n\n").as_bytes())
                        .await;
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                ("GET", _) => answer(stream, "405 Method Not Allowed", &[], b"").await,
                _ => answer(stream, "202 Accepted", &[], b"").await,
            }
        }
    })
    .await;
    let url = format!("{base}/mcp");
    let opts = HttpOptions {
        headers: vec![("Authorization".into(), "Bearer t0ken".into())],
        ..options(1 << 20)
    };
    let client = within(rmcp::serve_client(
        (),
        streamable_http(&url, &opts).unwrap(),
    ))
    .await
    .expect("initialize");
    let tools = within(client.peer().list_tools(None))
        .await
        .expect("tools/list answered on the resumed stream");
    assert!(tools.tools.is_empty());
    client.cancel().await.unwrap();

    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.iter().all(|l| l.contains("auth=Bearer t0ken")),
        "{seen:#?}"
    );
    assert!(seen[0].starts_with("POST session=-"), "{seen:#?}");
    assert!(
        seen[1..].iter().all(|l| l.contains("session=s-42")),
        "{seen:#?}"
    );
    assert!(
        seen.iter()
            .any(|l| l.starts_with("GET") && l.contains("last-event=ev-1")),
        "{seen:#?}"
    );
    assert!(
        seen.last().unwrap().starts_with("DELETE session=s-42"),
        "{seen:#?}"
    );
}

/// `https://` really speaks TLS (rustls with ring, no system provider needed): the server sees
/// a TLS handshake record, and a server that is not TLS gives an error naming the URL.
#[tokio::test]
async fn https_urls_speak_tls() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let first_byte = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut byte = [0u8; 1];
        stream.read_exact(&mut byte).await.unwrap();
        let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").await;
        byte[0]
    });
    let url = format!("https://127.0.0.1:{port}/sse");
    let error = legacy_sse(&url, &options(1 << 20))
        .await
        .err()
        .expect("not a TLS server");
    assert_eq!(
        first_byte.await.unwrap(),
        0x16,
        "a TLS handshake record starts with 0x16"
    );
    assert!(matches!(error, HttpError::Unreachable { .. }), "{error}");
    assert!(error.to_string().contains(&url), "{error}");
}

/// A failing status is reported with the start of its body, escaped; a JSON-RPC error in a JSON
/// 5xx is passed on as the answer.
#[tokio::test]
async fn streamable_error_statuses_are_reported_escaped() {
    let base = serve(|request, stream| async move {
        if request.path == "/plain" {
            let body = format!("\u{1b}[2Jboom{}", "x".repeat(100_000));
            answer(stream, "400 Bad Request", &[("Content-Type", "text/plain")], body.as_bytes()).await;
        } else {
            let id = request.json()["id"].clone();
            let body = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32000, "message": "db down" } });
            answer(stream, "500 Internal Server Error", &[("Content-Type", "application/json")], body.to_string().as_bytes()).await;
        }
    })
    .await;

    let url = format!("{base}/plain");
    let error = within(rmcp::serve_client(
        (),
        streamable_http(&url, &options(1 << 20)).unwrap(),
    ))
    .await
    .expect_err("400");
    let message = chain(&error);
    assert!(
        message.contains("HTTP 400") && message.contains("\\u{1b}[2Jboom"),
        "{message}"
    );
    assert!(
        !message.contains('\u{1b}') && message.len() < 2000,
        "{message}"
    );

    let url = format!("{base}/json");
    let error = within(rmcp::serve_client(
        (),
        streamable_http(&url, &options(1 << 20)).unwrap(),
    ))
    .await
    .expect_err("500");
    assert!(chain(&error).contains("db down"), "{}", chain(&error));
}

#[tokio::test]
async fn an_unreachable_server_is_a_clear_error() {
    let url = format!("http://127.0.0.1:{}/sse", free_port());
    let error = legacy_sse(&url, &options(1 << 20))
        .await
        .err()
        .expect("nothing listens");
    let message = error.to_string();
    assert!(
        message.contains(&url) && message.contains("cannot connect"),
        "{message}"
    );
    assert!(
        !message.contains("for url"),
        "reqwest's own text repeats the URL: {message}"
    );
}
