//! `reasonix serve`: the session protocol over HTTP (docs/SERVE.md). Clients open sessions,
//! post operations (`Op`: prompts, approvals, cancel …) and read each session's events as a
//! server-sent event stream that resumes with `Last-Event-ID`. Loopback by default; every API
//! request needs the bearer token; a Host or Origin that is not this server's is refused (DNS
//! rebinding, cross-site pages); bodies are bounded.
#![forbid(unsafe_code)]

mod events;
pub mod guard;
mod http;
mod hub;
mod stream;
mod ui;

use http::{Body, body, error, header_text, reply};
use hub::Hub;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use reasonix_agent::permissions::Posture;
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
pub(crate) const KEEPALIVE: Duration = Duration::from_secs(15);

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
        return ui::asset(req.method(), &path);
    };
    let presented = guard::presented(
        header_text(&req, header::AUTHORIZATION),
        header_text(&req, header::COOKIE),
    );
    match presented {
        Some((token, carrier)) if guard::token_matches(token, &server.token) => {
            if carrier == guard::Carrier::Cookie
                && !guard::cookie_use_allowed(header_text(
                    &req,
                    header::HeaderName::from_static("sec-fetch-site"),
                ))
            {
                return error(
                    StatusCode::FORBIDDEN,
                    "the cookie serves only this server's own page; another page must send the token itself",
                );
            }
        }
        _ => {
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
    }
    let parts: Vec<&str> = api.split('/').filter(|p| !p.is_empty()).collect();
    match (req.method().clone(), parts.as_slice()) {
        (Method::GET, []) => reply(
            StatusCode::OK,
            json!({ "api": 1, "protocol": reasonix_protocol::VERSION }),
        ),
        (Method::POST, ["login"]) => login(&server.token, &req),
        (Method::POST, ["logout"]) => cookie_reply(guard::cleared_cookie()),
        (Method::GET, ["schema", "op.json"]) => http::full(
            StatusCode::OK,
            "application/schema+json",
            include_str!("../../docs/schemas/protocol/op.json"),
        ),
        (Method::GET, ["schema", "event.json"]) => http::full(
            StatusCode::OK,
            "application/schema+json",
            include_str!("../../docs/schemas/protocol/event.json"),
        ),
        (Method::GET, ["sessions"]) => reply(
            StatusCode::OK,
            json!({ "sessions": server.hub.list().iter().map(|s| summary(s)).collect::<Vec<_>>() }),
        ),
        (Method::POST, ["sessions"]) => open(server, req).await,
        (method, ["sessions", id, rest @ ..]) => {
            let Some(live) = server.hub.get(id) else {
                return error(StatusCode::NOT_FOUND, format!("no session `{id}`"));
            };
            match (method, rest) {
                (Method::GET, []) => reply(StatusCode::OK, summary(&live)),
                (Method::DELETE, []) => {
                    server.hub.close(id);
                    reply(StatusCode::OK, json!({ "closed": id }))
                }
                (Method::POST, ["ops"]) => submit(&live, req).await,
                (Method::GET, ["events"]) => {
                    let last = header_text(&req, header::HeaderName::from_static("last-event-id"))
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .unwrap_or(0);
                    events::events(&live, last)
                }
                (Method::GET, ["commands"]) => reply(
                    StatusCode::OK,
                    json!({ "commands": live.commands.iter().map(|c| json!({
                        "name": c.name, "description": c.description, "hint": c.hint,
                    })).collect::<Vec<_>>() }),
                ),
                (Method::GET, ["complete"]) => complete(&live, req.uri().query()),
                (Method::POST, ["mode"]) => mode(&live, req).await,
                (method, _) => error(
                    StatusCode::NOT_FOUND,
                    format!("no {method} {path} in this API (docs/SERVE.md)"),
                ),
            }
        }
        (method, _) => error(
            StatusCode::NOT_FOUND,
            format!("no {method} {path} in this API (docs/SERVE.md)"),
        ),
    }
}

/// What a client shows of a session.
fn summary(live: &hub::Live) -> serde_json::Value {
    json!({
        "id": live.id,
        "cwd": live.cwd.display().to_string(),
        "model": live.model,
        "context_window": live.context_window,
        "mode": mode_name(live.posture.get()),
    })
}

/// The permission modes a client may switch a session to (the editor's modes too).
const MODES: [(&str, Posture); 4] = [
    ("ask", Posture::Ask),
    ("acceptEdits", Posture::AcceptEdits),
    ("auto", Posture::Auto),
    ("plan", Posture::Plan),
];

fn mode_name(posture: Posture) -> &'static str {
    MODES.iter().find(|m| m.1 == posture).map_or("ask", |m| m.0)
}

/// `{"mode": "acceptEdits"}`: the session's permission posture from its next call on.
async fn mode(live: &hub::Live, req: Request<Incoming>) -> Response<Body> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Asked {
        mode: String,
    }
    let body = match body(req).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let names = || MODES.iter().map(|m| m.0).collect::<Vec<_>>().join(", ");
    let asked: Asked = match serde_json::from_slice(&body) {
        Ok(asked) => asked,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!("expected {{\"mode\": \"…\"}} with one of {}: {e}", names()),
            );
        }
    };
    let Some((name, posture)) = MODES.iter().find(|m| m.0 == asked.mode) else {
        return error(
            StatusCode::BAD_REQUEST,
            format!("no mode `{}`; the modes are {}", asked.mode, names()),
        );
    };
    live.posture.set(*posture);
    live.stream.push(reasonix_protocol::EventKind::Notice {
        text: format!("permission mode: {name}"),
    });
    reply(StatusCode::OK, json!({ "mode": name }))
}

async fn submit(live: &hub::Live, req: Request<Incoming>) -> Response<Body> {
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

/// The page trades the token it was given once for the cookie (the request passed the token
/// check already).
fn login(token: &str, req: &Request<Incoming>) -> Response<Body> {
    let over_tls = header_text(req, header::HeaderName::from_static("x-forwarded-proto"))
        .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"));
    cookie_reply(guard::session_cookie(token, over_tls))
}

fn cookie_reply(cookie: String) -> Response<Body> {
    let mut response = reply(StatusCode::OK, json!({ "ok": true }));
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// Paths for an `@` the user is typing (`?path=src/ma`): one folder level, inside the
/// session's workspace, ignored files left out.
fn complete(live: &hub::Live, query: Option<&str>) -> Response<Body> {
    const LIMIT: usize = 50;
    let partial = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == "path")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    match reasonix_session::input::mention::complete(&live.cwd, &partial, LIMIT) {
        Ok(found) => reply(
            StatusCode::OK,
            json!({ "candidates": found.iter().map(|c| json!({
                "display": c.display, "insert": c.insert, "is_dir": c.is_dir,
            })).collect::<Vec<_>>() }),
        ),
        Err(e) => error(StatusCode::BAD_REQUEST, e.to_string()),
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
        Ok(live) => reply(StatusCode::CREATED, summary(&live)),
        Err(message) => error(StatusCode::UNPROCESSABLE_ENTITY, message),
    }
}
