//! A scripted mock LLM server for tests: real HTTP on a loopback port, speaking the streaming
//! wire formats of OpenAI Chat Completions, Anthropic Messages and OpenAI Responses.
//!
//! ```no_run
//! use reasonix_mock_llm::{MockLlm, Reply};
//! let mock = MockLlm::start().unwrap();
//! mock.enqueue(Reply::text(&["Hello", " world"]));
//! // POST {mock.base_url()}/v1/chat/completions … then inspect mock.requests()
//! ```
//!
//! Each request to a wire path consumes the next [`Reply`] (FIFO, whatever its wire); the wire
//! is chosen by the request path. See README.md for the script format and how each wire renders.

mod render;
mod script;

use std::collections::{HashSet, VecDeque};
use std::convert::Infallible;
use std::io;
use std::net::{SocketAddr, TcpListener as StdTcpListener};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::{Notify, mpsc, oneshot, watch};

pub use script::{Fault, Finish, Reply, Step, Usage, Wire};

use render::{Ctx, Out};

/// A running mock server. Dropping it stops the server and closes every open connection.
pub struct MockLlm {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// One request the server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    /// Lowercase names, in the order received.
    pub headers: Vec<(String, String)>,
    /// The whole body (lossy UTF-8).
    pub body: String,
    /// The wire the path speaks; `None` for an unknown path.
    pub wire: Option<Wire>,
    /// When the request head arrived.
    pub at: Instant,
    /// Which TCP connection it came on (numbered from 1 in accept order), to see reuse.
    pub connection: u64,
}

impl RecordedRequest {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON; `Null` if it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

struct Shared {
    state: Mutex<State>,
    /// Names of released gates.
    gates: watch::Sender<HashSet<String>>,
    /// Signalled on every recorded request, for [`MockLlm::wait_for_requests`].
    recorded: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Reply>,
    /// Replies for requests that offer no tools (a summary request), taken before `queue`.
    tool_free: VecDeque<Reply>,
    /// Replies for requests whose body contains a marker, taken before everything else.
    routed: Vec<(String, VecDeque<Reply>)>,
    requests: Vec<RecordedRequest>,
    /// The body of `GET …/models`, when set ([`MockLlm::serve_models`]).
    models: Option<String>,
    /// `GET …/models` requests, kept apart from [`State::requests`] (a model list is not a
    /// completion; scripts count those).
    model_lists: Vec<RecordedRequest>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl MockLlm {
    /// Binds `127.0.0.1:0` and serves on a background thread.
    pub fn start() -> io::Result<MockLlm> {
        MockLlm::start_on(SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Binds `addr` (use a loopback address) and serves on a background thread.
    pub fn start_on(addr: SocketAddr) -> io::Result<MockLlm> {
        let std_listener = StdTcpListener::bind(addr)?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let listener = {
            let _guard = runtime.enter();
            TcpListener::from_std(std_listener)?
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            gates: watch::Sender::new(HashSet::new()),
            recorded: Condvar::new(),
        });
        let (shutdown, shutdown_rx) = oneshot::channel();
        let serving = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("mock-llm {addr}"))
            .spawn(move || {
                runtime.block_on(serve(listener, serving, shutdown_rx));
                // Dropping the runtime drops every connection task: open streams are cut.
                drop(runtime);
            })?;
        Ok(MockLlm {
            addr,
            shared,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT` — clients append `/chat/completions`, `/v1/messages`,
    /// `/responses` (any prefix before them is accepted).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Queues a reply (FIFO); each request to a wire path consumes one.
    pub fn enqueue(&self, reply: Reply) {
        self.shared.state().queue.push_back(reply);
    }

    /// Queues several replies in order.
    pub fn enqueue_all(&self, replies: impl IntoIterator<Item = Reply>) {
        self.shared.state().queue.extend(replies);
    }

    /// Queues a reply for the next request that offers no tools (no `tools` array, or an
    /// empty one), such as a compaction's summary request: such a request takes from this queue
    /// first, so a script need not know when it comes. Other requests never take from it.
    pub fn enqueue_tool_free(&self, reply: Reply) {
        self.shared.state().tool_free.push_back(reply);
    }

    /// Queues a reply for the next request whose body contains `marker` (a sub-agent's system
    /// prompt, say): such a request takes from this marker's queue first, whatever else is
    /// queued, so requests that run at the same time get their own replies in any order.
    /// Requests without the marker never take from it.
    pub fn enqueue_when(&self, marker: &str, reply: Reply) {
        let mut state = self.shared.state();
        match state.routed.iter_mut().find(|(m, _)| m == marker) {
            Some((_, queue)) => queue.push_back(reply),
            None => state
                .routed
                .push((marker.to_string(), VecDeque::from([reply]))),
        }
    }

    /// Answer `GET <any path ending in /models>` with this JSON (a model list), 200; without
    /// it such a request gets a 404. Either way it is recorded in [`MockLlm::model_lists`],
    /// not [`MockLlm::requests`].
    pub fn serve_models(&self, list: serde_json::Value) {
        self.shared.state().models = Some(list.to_string());
    }

    /// Every `GET …/models` received so far.
    pub fn model_lists(&self) -> Vec<RecordedRequest> {
        self.shared.state().model_lists.clone()
    }

    /// Replies not consumed yet.
    pub fn pending(&self) -> usize {
        let state = self.shared.state();
        state.queue.len() + state.routed.iter().map(|(_, q)| q.len()).sum::<usize>()
    }

    /// Every request received so far, in order (also unscripted and unknown-path ones).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.state().requests.clone()
    }

    /// Blocks until at least `n` requests were recorded or `timeout` passed; returns the
    /// requests recorded by then.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> Vec<RecordedRequest> {
        let state = self.shared.state();
        let (state, _) = self
            .shared
            .recorded
            .wait_timeout_while(state, timeout, |s| s.requests.len() < n)
            .unwrap_or_else(PoisonError::into_inner);
        state.requests.clone()
    }

    /// Opens [`Step::Gate`]s with this name — also ones not reached yet. A released gate stays
    /// open.
    pub fn release(&self, gate: &str) {
        self.shared.gates.send_modify(|released| {
            released.insert(gate.to_owned());
        });
    }
}

/// The SSE events (each ending with a blank line) `reply` produces on `wire` for a request with
/// this body, without faults, delays or gates: e.g. to choose `Fault::CutAfter { events }` in
/// the middle of a tool call. Ids are those of a server's first request.
pub fn render_events(wire: Wire, reply: &Reply, request_body: &str) -> Vec<String> {
    render::render(wire, reply, &Ctx::from_request(1, request_body))
        .into_iter()
        .filter_map(|out| match out {
            Out::Event(event) => Some(event),
            Out::Gate(_) => None,
        })
        .collect()
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for MockLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockLlm").field("addr", &self.addr).finish()
    }
}

async fn serve(listener: TcpListener, shared: Arc<Shared>, mut shutdown: oneshot::Receiver<()>) {
    let mut accepted_count = 0u64;
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(_) => {
                        // Out of descriptors or similar: back off instead of spinning.
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                accepted_count += 1;
                let connection = accepted_count;
                let shared = Arc::clone(&shared);
                // `Fault::CutAfter` fires `kill`: the connection is dropped mid-body (hyper
                // itself would still end a failed chunked body cleanly).
                let kill = Arc::new(Notify::new());
                let cut = Arc::clone(&kill);
                tokio::spawn(async move {
                    let service = service_fn(move |req| {
                        handle(Arc::clone(&shared), Arc::clone(&cut), connection, req)
                    });
                    let conn = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
                    tokio::select! {
                        biased;
                        _ = kill.notified() => {}
                        _ = conn => {}
                    }
                });
            }
        }
    }
}

type Chunk = Result<Frame<Bytes>, io::Error>;

/// A response body: a fixed buffer, or SSE events fed by [`pump`] through a channel.
enum MockBody {
    Full(Option<Bytes>),
    Stream(mpsc::Receiver<Chunk>),
}

impl Body for MockBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Chunk>> {
        match self.get_mut() {
            MockBody::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            MockBody::Stream(rx) => rx.poll_recv(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, MockBody::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            MockBody::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            MockBody::Full(None) => SizeHint::with_exact(0),
            MockBody::Stream(_) => SizeHint::default(),
        }
    }
}

fn json_response(status: u16, body: String, retry_after: Option<&str>) -> Response<MockBody> {
    let mut response = Response::new(MockBody::Full(Some(Bytes::from(body))));
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Some(value) = retry_after.and_then(|v| HeaderValue::from_str(v).ok()) {
        headers.insert(RETRY_AFTER, value);
    }
    response
}

async fn handle(
    shared: Arc<Shared>,
    kill: Arc<Notify>,
    connection: u64,
    req: Request<Incoming>,
) -> Result<Response<MockBody>, Infallible> {
    let at = Instant::now();
    let method = req.method().clone();
    let path = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_owned(), |p| p.as_str().to_owned());
    let headers = req
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    let wire = Wire::from_path(&path);
    let body = match req.into_body().collect().await {
        Ok(collected) => String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
        Err(e) => {
            let message = format!("mock-llm: could not read the request body: {e}");
            return Ok(json_response(
                400,
                render::error_body(wire, 400, &message),
                None,
            ));
        }
    };

    // Like the real APIs, a request without `"stream": true` asks for one JSON object, which
    // this mock does not serve: it is refused below and consumes no reply.
    let parsed = serde_json::from_str::<serde_json::Value>(&body).ok();
    let streaming = parsed
        .as_ref()
        .is_some_and(|json| json["stream"] == serde_json::Value::Bool(true));
    let tool_free = parsed
        .as_ref()
        .is_some_and(|json| json["tools"].as_array().is_none_or(Vec::is_empty));

    if method == Method::GET && path.ends_with("/models") {
        let mut state = shared.state();
        state.model_lists.push(RecordedRequest {
            method: method.to_string(),
            path: path.clone(),
            headers,
            body,
            wire,
            at,
            connection,
        });
        return Ok(match state.models.clone() {
            Some(list) => json_response(200, list, None),
            None => json_response(404, render::error_body(None, 404, "no model list"), None),
        });
    }

    // Record first, then take the reply, under one lock so request n gets reply n.
    let (seq, reply) = {
        let mut state = shared.state();
        state.requests.push(RecordedRequest {
            method: method.to_string(),
            path: path.clone(),
            headers,
            body: body.clone(),
            wire,
            at,
            connection,
        });
        let seq = state.requests.len();
        let routed = state
            .routed
            .iter_mut()
            .find(|(marker, queue)| !queue.is_empty() && body.contains(marker.as_str()))
            .and_then(|(_, queue)| queue.pop_front());
        let reply = match (wire, &method) {
            (Some(_), &Method::POST) if streaming && routed.is_some() => routed,
            (Some(_), &Method::POST) if streaming => match state.tool_free.pop_front() {
                Some(reply) if tool_free => Some(reply),
                Some(reply) => {
                    state.tool_free.push_front(reply);
                    state.queue.pop_front()
                }
                None => state.queue.pop_front(),
            },
            _ => None,
        };
        (seq, reply)
    };
    shared.recorded.notify_all();

    let Some(wire) = wire else {
        let message = format!(
            "mock-llm: unknown path {path}; POST to a path ending in /chat/completions, \
             /v1/messages or /responses"
        );
        return Ok(json_response(
            404,
            render::error_body(None, 404, &message),
            None,
        ));
    };
    if method != Method::POST {
        let message = format!("mock-llm: {method} {path}: only POST is served");
        return Ok(json_response(
            405,
            render::error_body(Some(wire), 405, &message),
            None,
        ));
    }
    if !streaming {
        let message = format!(
            "mock-llm: POST {path}: the body must be a JSON object with \"stream\": true; this \
             mock only serves streaming requests (no reply was consumed)"
        );
        return Ok(json_response(
            400,
            render::error_body(Some(wire), 400, &message),
            None,
        ));
    }
    let Some(reply) = reply else {
        let message = format!(
            "mock-llm: no scripted reply left (request #{seq}: POST {path}); enqueue one more Reply"
        );
        return Ok(json_response(
            500,
            render::error_body(Some(wire), 500, &message),
            None,
        ));
    };

    if let Some(Fault::Status {
        status,
        retry_after,
        body,
    }) = &reply.fault
    {
        let body = if body.is_empty() {
            render::error_body(Some(wire), *status, &render::default_message(*status))
        } else {
            body.clone()
        };
        return Ok(json_response(*status, body, retry_after.as_deref()));
    }

    if matches!(reply.fault, Some(Fault::Stall)) {
        // Hold the request: hyper sends nothing until this future ends, which it never does.
        match std::future::pending::<Infallible>().await {}
    }

    let ctx = Ctx::from_request(seq as u64, &body);
    match &reply.fault {
        Some(Fault::NonStreamed) => {
            return Ok(json_response(200, render::whole(wire, &reply, &ctx), None));
        }
        Some(Fault::Body { content_type, body }) => {
            let mut response = json_response(200, body.clone(), None);
            if let Ok(value) = HeaderValue::from_str(content_type) {
                response.headers_mut().insert(CONTENT_TYPE, value);
            }
            return Ok(response);
        }
        _ => {}
    }
    let mut items = render::render(wire, &reply, &ctx);
    if matches!(reply.fault, Some(Fault::OmitTerminal))
        && wire != Wire::Responses
        && let Some(last) = items.iter().rposition(|i| matches!(i, Out::Event(_)))
    {
        items.remove(last);
    }
    let total = items.iter().filter(|i| matches!(i, Out::Event(_))).count();
    let fault = match &reply.fault {
        Some(Fault::CutAfter { events }) => Some((*events, Act::Cut)),
        Some(Fault::HangAfter { events }) => Some((*events, Act::Hang)),
        Some(Fault::MalformedAfter { events }) => Some((
            *events,
            Act::Inject(render::malformed(wire).to_owned(), Then::Continue),
        )),
        Some(Fault::ErrorAfter {
            events,
            status,
            message,
        }) => {
            let event = render::stream_error(wire, *status, message, (*events).min(total), &ctx);
            Some((*events, Act::Inject(event, Then::Stop)))
        }
        Some(
            Fault::Status { .. }
            | Fault::OmitTerminal
            | Fault::NonStreamed
            | Fault::Body { .. }
            | Fault::Stall,
        )
        | None => None,
    };
    let (tx, rx) = mpsc::channel(1);
    tokio::spawn(pump(
        items,
        fault,
        Duration::from_millis(reply.chunk_delay_ms),
        tx,
        shared.gates.subscribe(),
        kill,
    ));
    let mut response = Response::new(MockBody::Stream(rx));
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// A stream fault, prepared for [`pump`].
enum Act {
    Cut,
    Hang,
    /// Send this text, then continue or end the body normally.
    Inject(String, Then),
}

/// What to do after a fault fired.
#[derive(Clone, Copy)]
enum Then {
    Continue,
    Stop,
}

async fn fire(act: Act, tx: &mpsc::Sender<Chunk>, kill: &Notify) -> Then {
    match act {
        Act::Cut => {
            // Let hyper flush what was sent, then drop the connection: no terminating chunk.
            tokio::time::sleep(Duration::from_millis(20)).await;
            kill.notify_one();
            // Keep the body open until the connection is gone, or hyper would end it cleanly.
            tx.closed().await;
            Then::Stop
        }
        Act::Hang => {
            tx.closed().await;
            Then::Stop
        }
        Act::Inject(text, then) => match tx.send(Ok(Frame::data(Bytes::from(text)))).await {
            Ok(()) => then,
            Err(_) => Then::Stop,
        },
    }
}

/// Feeds the events into the body channel, one chunk each, honouring delay, gates and faults.
async fn pump(
    items: Vec<Out>,
    mut fault: Option<(usize, Act)>,
    delay: Duration,
    tx: mpsc::Sender<Chunk>,
    mut gates: watch::Receiver<HashSet<String>>,
    kill: Arc<Notify>,
) {
    let mut sent = 0usize;
    for item in items {
        match item {
            Out::Gate(name) => {
                let released = async {
                    gates
                        .wait_for(|released| released.contains(&name))
                        .await
                        .is_ok()
                };
                tokio::select! {
                    ok = released => if !ok { return },
                    _ = tx.closed() => return,
                }
            }
            Out::Event(text) => {
                if let Some((_, act)) = fault.take_if(|(at, _)| *at == sent)
                    && let Then::Stop = fire(act, &tx, &kill).await
                {
                    return;
                }
                if sent > 0 && !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                if tx.send(Ok(Frame::data(Bytes::from(text)))).await.is_err() {
                    return;
                }
                sent += 1;
            }
        }
    }
    // A fault set past the last event fires before the clean end.
    if let Some((_, act)) = fault {
        let _ = fire(act, &tx, &kill).await;
    }
}
