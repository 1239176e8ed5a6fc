//! `reasonix serve`: the session protocol over HTTP (docs/SERVE.md). Clients open sessions,
//! post operations (`Op`: prompts, approvals, cancel …) and read each session's events as a
//! server-sent event stream that resumes with `Last-Event-ID`. Loopback by default; every API
//! request needs the bearer token; a Host or Origin that is not this server's is refused (DNS
//! rebinding, cross-site pages); bodies are bounded.
#![forbid(unsafe_code)]

pub mod guard;
mod hub;
mod stream;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hub::Hub;
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use reasonix_protocol::Op;
use serde_json::json;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The largest request body.
pub const MAX_BODY: usize = 1024 * 1024;
/// An idle event stream gets a comment this often, so proxies keep it open.
const KEEPALIVE: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The command line asks for something unsafe or impossible (exit 2).
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Io(String),
}

pub struct ServeOptions {
    pub listen: SocketAddr,
    pub token: String,
    /// Where a session opens when a client names no folder.
    pub workspace: PathBuf,
    /// More names the server answers to (behind a reverse proxy).
    pub allowed_hosts: Vec<String>,
}

/// Refuse to listen beyond loopback without a token the user chose: a generated one would
/// sit in a file on this machine while the port is open to others.
pub fn check_exposure(
    listen: SocketAddr,
    token_chosen: bool,
    allowed_hosts: &[String],
) -> Result<(), ServeError> {
    if !listen.ip().is_loopback() && !token_chosen {
        return Err(ServeError::Usage(format!(
            "{listen} is reachable from other machines; give a token with --token (or REASONIX_SERVE_TOKEN), or listen on 127.0.0.1"
        )));
    }
    // No client sends `Host: 0.0.0.0:…`: without the names it is reached by, every request
    // would be refused as a rebound name.
    if listen.ip().is_unspecified() && allowed_hosts.is_empty() {
        return Err(ServeError::Usage(format!(
            "{listen} listens on every address; name the host clients use with --allowed-host HOST[:PORT] (the Host header is checked)"
        )));
    }
    Ok(())
}

struct Server {
    token: String,
    hosts: Vec<String>,
    workspace: PathBuf,
    hub: Hub,
}

type Body = BoxBody<Bytes, Infallible>;

/// Serve until the process ends; `ready` is told the address once it listens.
pub fn run(options: ServeOptions, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ServeError::Io(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| ServeError::Usage(format!("cannot listen on {}: {e}", options.listen)))?;
        let local = listener
            .local_addr()
            .map_err(|e| ServeError::Io(e.to_string()))?;
        let server = Arc::new(Server {
            token: options.token,
            hosts: guard::hosts_for(local, &options.allowed_hosts),
            workspace: options.workspace,
            hub: Hub::default(),
        });
        ready(local);
        loop {
            let (socket, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                // Out of descriptors and the like: the next accept may work.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            // Events are small writes: without this, Nagle holds each one back ~40 ms.
            let _ = socket.set_nodelay(true);
            let server = server.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let server = server.clone();
                    async move { Ok::<_, Infallible>(handle(&server, req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(socket), service)
                    .await;
            });
        }
    })
}

fn full(status: StatusCode, content_type: &str, body: impl Into<Bytes>) -> Response<Body> {
    let mut response = Response::new(Full::new(body.into()).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(content_type).unwrap_or(HeaderValue::from_static("text/plain")),
    );
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn reply(status: StatusCode, value: serde_json::Value) -> Response<Body> {
    full(status, "application/json", value.to_string())
}

fn error(status: StatusCode, message: impl Into<String>) -> Response<Body> {
    reply(status, json!({ "error": message.into() }))
}

fn header_text(req: &Request<Incoming>, name: header::HeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

async fn handle(server: &Server, req: Request<Incoming>) -> Response<Body> {
    if !guard::host_allowed(header_text(&req, header::HOST), &server.hosts) {
        return error(
            StatusCode::FORBIDDEN,
            "the Host header does not name this server",
        );
    }
    if !guard::origin_allowed(header_text(&req, header::ORIGIN), &server.hosts) {
        return error(StatusCode::FORBIDDEN, "cross-origin requests are refused");
    }
    let path = req.uri().path().to_string();
    let Some(api) = path.strip_prefix("/api/v1") else {
        return error(
            StatusCode::NOT_FOUND,
            "nothing here; the API is under /api/v1 (docs/SERVE.md)",
        );
    };
    let presented = guard::presented(
        header_text(&req, header::AUTHORIZATION),
        header_text(&req, header::COOKIE),
    );
    if !presented.is_some_and(|t| guard::token_matches(t, &server.token)) {
        let mut response = error(
            StatusCode::UNAUTHORIZED,
            "a bearer token is required (Authorization: Bearer <token>)",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"reasonix\""),
        );
        return response;
    }
    let parts: Vec<&str> = api.split('/').filter(|p| !p.is_empty()).collect();
    match (req.method().clone(), parts.as_slice()) {
        (Method::GET, []) => reply(
            StatusCode::OK,
            json!({ "api": 1, "protocol": reasonix_protocol::VERSION }),
        ),
        (Method::GET, ["schema", "op.json"]) => full(
            StatusCode::OK,
            "application/schema+json",
            include_str!("../../docs/schemas/protocol/op.json"),
        ),
        (Method::GET, ["schema", "event.json"]) => full(
            StatusCode::OK,
            "application/schema+json",
            include_str!("../../docs/schemas/protocol/event.json"),
        ),
        (Method::GET, ["sessions"]) => reply(
            StatusCode::OK,
            json!({ "sessions": server.hub.list().iter().map(|s| json!({
                "id": s.id, "cwd": s.cwd.display().to_string(), "model": s.model,
            })).collect::<Vec<_>>() }),
        ),
        (Method::POST, ["sessions"]) => open(server, req).await,
        (Method::DELETE, ["sessions", id]) => {
            if server.hub.close(id) {
                reply(StatusCode::OK, json!({ "closed": id }))
            } else {
                error(StatusCode::NOT_FOUND, format!("no session `{id}`"))
            }
        }
        (Method::POST, ["sessions", id, "ops"]) => {
            let Some(live) = server.hub.get(id) else {
                return error(StatusCode::NOT_FOUND, format!("no session `{id}`"));
            };
            let body = match body(req).await {
                Ok(body) => body,
                Err(response) => return response,
            };
            match serde_json::from_slice::<Op>(&body) {
                Ok(op) => {
                    live.submit(op);
                    reply(StatusCode::ACCEPTED, json!({ "accepted": true }))
                }
                Err(e) => error(
                    StatusCode::BAD_REQUEST,
                    format!("not an operation ({e}); see /api/v1/schema/op.json"),
                ),
            }
        }
        (Method::GET, ["sessions", id, "events"]) => {
            let Some(live) = server.hub.get(id) else {
                return error(StatusCode::NOT_FOUND, format!("no session `{id}`"));
            };
            let last = header_text(&req, header::HeaderName::from_static("last-event-id"))
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0);
            events(&live, last)
        }
        _ => error(
            StatusCode::NOT_FOUND,
            format!("no {} {path} in this API (docs/SERVE.md)", req.method()),
        ),
    }
}

/// The request's body, at most [`MAX_BODY`] bytes.
async fn body(req: Request<Incoming>) -> Result<Bytes, Response<Body>> {
    match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            let mut response = error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body is larger than {MAX_BODY} bytes"),
            );
            // The rest of the body is not read: this connection cannot carry another request.
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
        Err(e) => Err(error(
            StatusCode::BAD_REQUEST,
            format!("cannot read the body: {e}"),
        )),
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenRequest {
    /// An absolute folder; the server's workspace when left out.
    #[serde(default)]
    cwd: Option<PathBuf>,
    /// A saved session to continue.
    #[serde(default)]
    resume: Option<String>,
}

async fn open(server: &Server, req: Request<Incoming>) -> Response<Body> {
    let body = match body(req).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let asked: OpenRequest = if body.iter().all(u8::is_ascii_whitespace) {
        OpenRequest {
            cwd: None,
            resume: None,
        }
    } else {
        match serde_json::from_slice(&body) {
            Ok(asked) => asked,
            Err(e) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "expected {{\"cwd\": \"/abs/dir\", \"resume\": \"<id>\"}} (both optional): {e}"
                    ),
                );
            }
        }
    };
    let cwd = asked.cwd.unwrap_or_else(|| server.workspace.clone());
    if !cwd.is_absolute() || !cwd.is_dir() {
        return error(
            StatusCode::BAD_REQUEST,
            format!(
                "cwd `{}` is not an absolute path to a folder",
                cwd.display()
            ),
        );
    }
    let hub = &server.hub;
    // Opening reads configuration and starts servers: a blocking thread, not the loop's.
    let opened = tokio::task::block_in_place(|| hub.open(&cwd, asked.resume));
    match opened {
        Ok(live) => reply(
            StatusCode::CREATED,
            json!({ "id": live.id, "cwd": live.cwd.display().to_string(), "model": live.model }),
        ),
        Err(message) => error(StatusCode::UNPROCESSABLE_ENTITY, message),
    }
}

/// The session's events as a server-sent event stream, from after `last`.
fn events(live: &hub::Live, last: u64) -> Response<Body> {
    let subscription = live.stream.subscribe(last);
    let mut head = String::from("retry: 2000\n\n");
    if subscription.gap {
        head.push_str(
            "event: gap\ndata: {\"reason\":\"events before the kept ones were dropped\"}\n\n",
        );
    }
    for frame in &subscription.backlog {
        head.push_str(&stream::sse(frame));
    }
    let sent = subscription.backlog.last().map_or(last, |f| f.seq);
    let first =
        futures::stream::once(async move { Ok::<_, Infallible>(Frame::data(Bytes::from(head))) });
    // The first keepalive after one period: a stream starts with events.
    let ticker = tokio::time::interval_at(tokio::time::Instant::now() + KEEPALIVE, KEEPALIVE);
    let live_frames = futures::stream::unfold(
        (subscription.live, ticker, sent),
        |(mut rx, mut ticker, mut sent)| async move {
            loop {
                tokio::select! {
                    received = rx.recv() => match received {
                        Ok(frame) if frame.seq <= sent => continue,
                        Ok(frame) => {
                            sent = frame.seq;
                            let bytes = Bytes::from(stream::sse(&frame));
                            return Some((Ok(Frame::data(bytes)), (rx, ticker, sent)));
                        }
                        // Fell behind, or the session ended: the client reconnects with
                        // Last-Event-ID and catches up from what is kept.
                        Err(_) => return None,
                    },
                    _ = ticker.tick() => {
                        return Some((Ok(Frame::data(Bytes::from_static(b": keepalive\n\n"))), (rx, ticker, sent)));
                    }
                }
            }
        },
    );
    use futures::StreamExt as _;
    let body = BodyExt::boxed(StreamBody::new(first.chain(live_frames)));
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    );
    response
}
