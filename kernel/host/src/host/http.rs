//! Outbound HTTP for plugins (`wasi:http/outgoing-handler`), with the network capability
//! enforced on every request:
//!
//! 1. the request's `scheme://host:port` must match one of the plugin's granted patterns
//!    ([`allowed_hosts`]), else it fails with `HTTP-request-denied`;
//! 2. the host is resolved and only public addresses are dialled ([`reasonix_core::netrange`]):
//!    loopback, private, link-local (metadata) and the other local ranges only when a granted
//!    pattern names that address (or `localhost`) itself, or the user approved this call's
//!    fetch of exactly this origin ([`NetworkPolicy::approved_local`]) — never through `*` or a
//!    host name. The check is on the address actually connected to, so a name that resolves
//!    (or re-resolves) to a local address cannot slip through; when none is left the request
//!    fails with `destination-IP-prohibited`;
//! 3. connecting, the first response byte and each later body chunk have timeouts (the plugin's
//!    request options can shorten them, never lengthen them), and the whole exchange has a
//!    deadline: the plugin's call deadline, at most [`REQUEST_DEADLINE`].
//!
//! Every refusal is also written to the host log under the plugin's name, with the URL.
//!
//! Requests may go through an HTTP proxy named by the environment ([`proxy`]); the checks
//! above still apply to the request's own URL, the proxy being the user's configuration.
//!
//! A provider stream's store is tied to one [`Endpoint`] instead: it may reach only that
//! provider's configured origins (which the user named, so private addresses are allowed
//! there), the host adds the API key to those requests itself, silences longer than the
//! provider's stall timeout fail the read, and a [`CancelToken`] aborts the exchange.

mod pool;
pub(crate) mod proxy;

pub use reasonix_core::netrange::{Range, blocked_reason, range_of};
pub use reasonix_core::origin::{AllowedHosts, Origin, Pattern};
pub use reasonix_core::provider::Endpoint;

use super::bindings::reasonix::plugin::log::Level;
use super::state::LogSink;
use crate::cancel::CancelToken;
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use proxy::{ProxyConfig, Route};
use std::future::{Future, poll_fn};
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};
use wasmtime_wasi_http::io::TokioIo;
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody, WasiHttpCtx, WasiHttpHooks};

/// Longest wait for a TCP connection (and the TLS and HTTP handshakes after it).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait for the response head once the request is sent.
pub const FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(60);
/// Longest silence between two chunks of a response body.
pub const BETWEEN_BYTES_TIMEOUT: Duration = Duration::from_secs(60);
/// Longest a whole request may take; the plugin's call deadline can shorten it.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(600);
/// Longest a whole provider stream may take (long reasoning answers run for many minutes).
pub const PROVIDER_REQUEST_DEADLINE: Duration = Duration::from_secs(3600);

/// The `wasi:http` state of one store.
pub struct HttpState {
    pub ctx: WasiHttpCtx,
    pub hooks: NetworkPolicy,
}

impl HttpState {
    pub fn new(
        plugin: Arc<str>,
        granted: &[String],
        endpoint: Option<Endpoint>,
        log: Option<LogSink>,
    ) -> HttpState {
        HttpState {
            ctx: WasiHttpCtx::new(),
            hooks: NetworkPolicy {
                plugin,
                allowed: AllowedHosts::new(granted),
                endpoint,
                log,
                call_deadline: None,
                approved_local: None,
            },
        }
    }
}

/// The `wasi:http` hooks that enforce one plugin's network grant.
pub struct NetworkPolicy {
    plugin: Arc<str>,
    allowed: AllowedHosts,
    /// Set for provider streams: replaces `allowed` (see the module docs).
    endpoint: Option<Endpoint>,
    log: Option<LogSink>,
    /// When the plugin's call runs out of time; no request outlives it.
    pub call_deadline: Option<std::time::Instant>,
    /// The local origin the user approved this call to fetch (a `web_fetch` of
    /// `http://127.0.0.1:8080/…`): requests to exactly it may reach its local address.
    pub approved_local: Option<Origin>,
}

/// Why a local address was refused, for the log and the plugin's error.
const LOCAL_RULE: &str = "plugins may not reach this machine or a private network except through a grant that names the address itself (e.g. `http://127.0.0.1:8080`) or a fetch of it the user approved; never through `*` or a host name";
const SPECIAL_RULE: &str = "plugins may not reach link-local (cloud metadata), unspecified, multicast or reserved addresses";

/// Which addresses a request may be dialled to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Public addresses only.
    Public,
    /// Local ones too: the grant names the address, or the user approved the origin.
    Local,
    /// Anything: a provider's own endpoint, which the user configured.
    Endpoint,
}

/// Writes refusals to the host log under the plugin's name.
#[derive(Clone)]
struct Refusals {
    plugin: Arc<str>,
    log: Option<LogSink>,
}

impl Refusals {
    fn refuse(&self, method: &http::Method, uri: &http::Uri, why: &str, error: Error) -> Error {
        if let Some(log) = &self.log {
            log(
                &self.plugin,
                Level::Warn,
                &format!("network: refused {method} {uri}: {why}"),
            );
        }
        error
    }
}

type SendResult = Result<(http::Response<WasiBody>, IoFuture), Error>;
type IoFuture = Box<dyn Future<Output = Result<(), Error>> + Send>;

impl WasiHttpHooks for NetworkPolicy {
    /// Keep what the host buffers for each outgoing body small; the number of bodies per call
    /// is limited (`HostLimits::http_bodies`).
    fn p2_outgoing_body_buffer_chunks(&mut self) -> usize {
        1
    }

    fn p2_outgoing_body_chunk_size(&mut self) -> usize {
        crate::capability::HostLimits::BODY_CHUNK_BYTES
    }

    /// Only a refused connection is `connection-refused` (nothing listens there: the client
    /// gives up quickly); any other connect failure (a reset, an unreachable network) is
    /// reported as itself and retried as a transport error. wasmtime's default calls every
    /// connect error refused.
    fn p2_error_from_connect(
        &mut self,
        err: &std::io::Error,
    ) -> wasmtime_wasi_http::p2::bindings::http::types::ErrorCode {
        use wasmtime_wasi_http::p2::bindings::http::types::ErrorCode;
        match err.kind() {
            std::io::ErrorKind::ConnectionRefused => ErrorCode::ConnectionRefused,
            _ => ErrorCode::InternalError(Some(format!("cannot connect: {err}"))),
        }
    }

    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        _fut: IoFuture,
    ) -> Box<dyn Future<Output = SendResult> + Send> {
        let refusals = Refusals {
            plugin: self.plugin.clone(),
            log: self.log.clone(),
        };
        if let Some(endpoint) = &self.endpoint {
            return endpoint_request(request, options, endpoint.clone(), refusals);
        }
        let limits = Limits::new(options, self.call_deadline);
        let origin = request
            .uri()
            .scheme_str()
            .zip(request.uri().authority())
            .ok_or_else(|| "the URL has no scheme or host".to_string())
            .and_then(|(scheme, authority)| Origin::new(scheme, authority.as_str()));
        let checked = match origin {
            Err(why) => Err(refusals.refuse(
                request.method(),
                request.uri(),
                &why,
                Error::HttpRequestUriInvalid,
            )),
            Ok(origin) if !self.allowed.allows(&origin) => {
                let why = if self.allowed.is_empty() {
                    "the plugin was granted no network access".to_string()
                } else {
                    format!("{origin} matches none of the plugin's granted network patterns")
                };
                Err(refusals.refuse(
                    request.method(),
                    request.uri(),
                    &why,
                    Error::HttpRequestDenied,
                ))
            }
            Ok(origin) => Ok(origin),
        };
        let reach = match &checked {
            Ok(origin)
                if self.allowed.names_local(origin)
                    || self.approved_local.as_ref() == Some(origin) =>
            {
                Reach::Local
            }
            _ => Reach::Public,
        };
        Box::new(async move {
            let origin = checked?;
            send(request, origin, limits, refusals, None, reach).await
        })
    }
}

/// A provider stream's request: only to its endpoint, with the credential added.
fn endpoint_request(
    mut request: http::Request<WasiBody>,
    options: Option<RequestOptions>,
    endpoint: Endpoint,
    refusals: Refusals,
) -> Box<dyn Future<Output = SendResult> + Send> {
    let origin = request
        .uri()
        .scheme_str()
        .zip(request.uri().authority())
        .ok_or_else(|| "the URL has no scheme or host".to_string())
        .and_then(|(scheme, authority)| Origin::new(scheme, authority.as_str()));
    let checked = match origin {
        Err(why) => Err(refusals.refuse(
            request.method(),
            request.uri(),
            &why,
            Error::HttpRequestUriInvalid,
        )),
        Ok(origin) if !endpoint.origins.contains(&origin) => {
            let allowed: Vec<String> = endpoint.origins.iter().map(|o| o.to_string()).collect();
            let why = format!(
                "provider `{}` may only reach its own endpoint ({}), not {origin}",
                endpoint.provider,
                allowed.join(", ")
            );
            Err(refusals.refuse(
                request.method(),
                request.uri(),
                &why,
                Error::HttpRequestDenied,
            ))
        }
        Ok(origin) => Ok(origin),
    };
    if let Some((name, value)) = &endpoint.credential {
        request.headers_mut().insert(name.clone(), value.clone());
    }
    let options = options.unwrap_or_default();
    let pick = |asked: Option<Duration>, max: Duration| {
        asked.unwrap_or(max).min(max).max(Duration::from_millis(1))
    };
    let limits = Limits {
        connect: pick(options.connect_timeout, CONNECT_TIMEOUT),
        first_byte: pick(options.first_byte_timeout, endpoint.stall),
        between_bytes: pick(options.between_bytes_timeout, endpoint.stall),
        deadline: Instant::now() + PROVIDER_REQUEST_DEADLINE,
    };
    let cancel = endpoint.cancel;
    Box::new(async move {
        let origin = checked?;
        let exchange = pin!(send_pooled(
            request,
            origin,
            limits,
            refusals,
            cancel.clone()
        ));
        let cancelled = pin!(cancel.cancelled());
        first_of(exchange, cancelled, || {
            Error::InternalError(Some("cancelled".into()))
        })
        .await
    })
}

/// The output of `work`, or `on_stop()` once `stop` resolves first.
async fn first_of<T, W, S>(
    mut work: Pin<&mut W>,
    mut stop: Pin<&mut S>,
    on_stop: impl Fn() -> Error,
) -> Result<T, Error>
where
    W: Future<Output = Result<T, Error>>,
    S: Future<Output = ()>,
{
    poll_fn(|cx| {
        if let Poll::Ready(out) = work.as_mut().poll(cx) {
            return Poll::Ready(out);
        }
        match stop.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(on_stop())),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

/// Timeouts of one request: the host's, shortened by the plugin's request options.
#[derive(Clone, Copy)]
struct Limits {
    connect: Duration,
    first_byte: Duration,
    between_bytes: Duration,
    deadline: Instant,
}

impl Limits {
    fn new(options: Option<RequestOptions>, call_deadline: Option<std::time::Instant>) -> Limits {
        let pick = |asked: Option<Duration>, max: Duration| {
            asked.unwrap_or(max).min(max).max(Duration::from_millis(1))
        };
        let options = options.unwrap_or_default();
        Limits {
            connect: pick(options.connect_timeout, CONNECT_TIMEOUT),
            first_byte: pick(options.first_byte_timeout, FIRST_BYTE_TIMEOUT),
            between_bytes: pick(options.between_bytes_timeout, BETWEEN_BYTES_TIMEOUT),
            deadline: call_deadline
                .map(Instant::from_std)
                .unwrap_or_else(|| Instant::now() + REQUEST_DEADLINE)
                .min(Instant::now() + REQUEST_DEADLINE),
        }
    }
}

/// Send one request. `cancel` is set for provider endpoints.
async fn send(
    mut request: http::Request<WasiBody>,
    origin: Origin,
    limits: Limits,
    refusals: Refusals,
    cancel: Option<CancelToken>,
    reach: Reach,
) -> SendResult {
    let method = request.method().clone();
    let uri = request.uri().clone();
    let route = ProxyConfig::global().route(&origin);
    let (mut sender, conn) =
        open_connection(&origin, &route, &limits, &refusals, &method, &uri, reach).await?;
    request_form(&mut request, &origin, &route)?;

    let deadline = limits.deadline;
    let first_byte = async move {
        let response = tokio::time::timeout(limits.first_byte, sender.send_request(request))
            .await
            .map_err(|_| Error::ConnectionReadTimeout)?
            .map_err(Error::from)?;
        Ok::<_, Error>(response.map(|incoming| GuardedBody::new(incoming, &limits, cancel)))
    };
    // Drive the connection while waiting for the response head.
    let mut first_byte = pin!(first_byte);
    let mut conn = Some(conn);
    let response = tokio::time::timeout_at(
        deadline,
        poll_fn(|cx| match first_byte.as_mut().poll(cx) {
            Poll::Ready(result) => Poll::Ready(result),
            Poll::Pending => {
                let Some(driver) = conn.as_mut() else {
                    return Poll::Pending;
                };
                let done = ready!(Pin::new(driver).poll(cx));
                conn = None;
                match done {
                    Ok(()) => first_byte.as_mut().poll(cx),
                    Err(e) => Poll::Ready(Err(Error::from(e))),
                }
            }
        }),
    )
    .await
    .map_err(|_| Error::HttpResponseTimeout)??;

    let io: IoFuture = Box::new(async move {
        let Some(conn) = conn else {
            return Ok(());
        };
        match tokio::time::timeout_at(deadline, conn).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Error::from(e)),
            Err(_) => Err(Error::HttpResponseTimeout),
        }
    });
    Ok((response.map(|body| body.boxed_unsync()), io))
}

type Connection = hyper::client::conn::http1::Connection<TokioIo<Box<dyn Stream>>, WasiBody>;
type Sender = hyper::client::conn::http1::SendRequest<WasiBody>;

/// Connect (TCP, then TLS for https) and do the HTTP/1 handshake. Through a proxy, an http
/// connection goes to the proxy itself and an https one is a `CONNECT` tunnel to the origin,
/// with TLS to the origin inside it.
async fn open_connection(
    origin: &Origin,
    route: &Route<'_>,
    limits: &Limits,
    refusals: &Refusals,
    method: &http::Method,
    uri: &http::Uri,
    reach: Reach,
) -> Result<(Sender, Connection), Error> {
    let failed = |why: String| {
        let error = Error::InternalError(Some(why.clone()));
        refusals.refuse(method, uri, &why, error)
    };
    let stream = match route {
        Route::Direct => connect(origin, limits, refusals, method, uri, reach).await?,
        Route::Unusable(why) => return Err(failed(why.to_string())),
        Route::Via(proxy) => {
            let connect_by = Instant::now() + limits.connect;
            // The origin is not dialled here, so check where its name points before handing
            // it to the proxy. An https tunnel is then opened to the checked address itself;
            // a plain-http request names its host in the request line and the proxy resolves
            // it (the proxy's own policy governs that second lookup).
            let checked = if reach == Reach::Endpoint {
                None
            } else {
                permitted_addresses(origin, connect_by, refusals, method, uri, reach)
                    .await?
                    .first()
                    .copied()
            };
            let addresses = tokio::time::timeout_at(
                connect_by,
                tokio::net::lookup_host((proxy.host.as_str(), proxy.port)),
            )
            .await
            .map_err(|_| Error::DnsTimeout)?
            .map_err(|e| failed(format!("{}: cannot resolve: {e}", proxy.describe())))?;
            let stream = dial(addresses, connect_by).await.map_err(|e| match e {
                Error::ConnectionTimeout => e,
                e => failed(format!("{}: cannot connect: {e}", proxy.describe())),
            })?;
            if origin.scheme == reasonix_core::origin::Scheme::Https {
                proxy::tunnel(&stream, proxy, origin, checked, connect_by)
                    .await
                    .map_err(|e| match e {
                        Error::InternalError(Some(why)) => failed(why),
                        e => e,
                    })?;
            }
            stream
        }
    };
    let io = if origin.scheme == reasonix_core::origin::Scheme::Https {
        let tls = tls_connector()?;
        let name = server_name(&origin.host)?;
        let stream = tokio::time::timeout(limits.connect, tls.connect(name, stream))
            .await
            .map_err(|_| Error::ConnectionTimeout)?
            .map_err(Error::Tls)?;
        Box::new(stream) as Box<dyn Stream>
    } else {
        Box::new(stream) as Box<dyn Stream>
    };
    tokio::time::timeout(
        limits.connect,
        hyper::client::conn::http1::Builder::new().handshake(TokioIo::new(io)),
    )
    .await
    .map_err(|_| Error::ConnectionTimeout)?
    .map_err(Error::from)
}

/// Through a proxy, an http request carries the whole URL in its request line (absolute-form)
/// and the proxy's credentials; otherwise see [`origin_form`].
fn request_form(
    request: &mut http::Request<WasiBody>,
    origin: &Origin,
    route: &Route<'_>,
) -> Result<(), Error> {
    let Route::Via(proxy) = route else {
        return origin_form(request);
    };
    if origin.scheme == reasonix_core::origin::Scheme::Https {
        return origin_form(request);
    }
    let path = request
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "/".to_string());
    *request.uri_mut() = format!("{origin}{path}")
        .parse()
        .map_err(|_| Error::HttpRequestUriInvalid)?;
    if let Some(credentials) = &proxy.authorization {
        request
            .headers_mut()
            .insert(http::header::PROXY_AUTHORIZATION, credentials.clone());
    }
    Ok(())
}

/// On the wire the request line carries only the path; scheme and authority were for us.
fn origin_form(request: &mut http::Request<WasiBody>) -> Result<(), Error> {
    let path = request
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "/".to_string());
    *request.uri_mut() = http::Uri::builder()
        .path_and_query(path)
        .build()
        .map_err(|_| Error::HttpRequestUriInvalid)?;
    Ok(())
}

/// How long an idle pooled connection may take to become ready for the next request. Its
/// driver task marks it ready right after the previous response ended; on a loaded machine the
/// next turn can ask before that task has run, and should wait for it rather than open a new
/// connection.
const POOLED_READY_WAIT: Duration = Duration::from_millis(500);

/// A provider endpoint's request: on an idle pooled connection when there is one, else on a
/// new one whose driver runs as its own task (so the connection can outlive this exchange).
/// The connection returns to the pool when the body has been read to the end.
async fn send_pooled(
    mut request: http::Request<WasiBody>,
    origin: Origin,
    limits: Limits,
    refusals: Refusals,
    cancel: CancelToken,
) -> SendResult {
    let route = ProxyConfig::global().route(&origin);
    let key = route.pool_key(&origin);
    let method = request.method().clone();
    let uri = request.uri().clone();
    request_form(&mut request, &origin, &route)?;
    let fresh = || async {
        let (sender, conn) = open_connection(
            &origin,
            &route,
            &limits,
            &refusals,
            &method,
            &uri,
            Reach::Endpoint,
        )
        .await?;
        tokio::spawn(async move {
            // Ends when the server closes, or when the last sender is dropped.
            let _ = conn.await;
        });
        Ok::<_, Error>(sender)
    };
    let exchange = async {
        let pooled = match pool::pool().take(&key) {
            Some(mut sender) => tokio::time::timeout(POOLED_READY_WAIT, sender.ready())
                .await
                .is_ok_and(|ready| ready.is_ok())
                .then_some(sender),
            None => None,
        };
        let reused = pooled.is_some();
        let mut sender = match pooled {
            Some(sender) => sender,
            None => fresh().await?,
        };
        match sender.try_send_request(request).await {
            Ok(response) => Ok((response, sender)),
            // An idle connection the server had already closed: the request was not sent, so
            // send it again on a new connection.
            Err(mut e) if reused && e.message().is_some() => {
                let request = e.take_message().ok_or(Error::HttpProtocolError)?;
                let mut sender = fresh().await?;
                let response = sender.send_request(request).await.map_err(Error::from)?;
                Ok((response, sender))
            }
            Err(e) => Err(Error::from(e.into_error())),
        }
    };
    let (response, sender) = tokio::time::timeout_at(
        limits.deadline,
        tokio::time::timeout(limits.first_byte, exchange),
    )
    .await
    .map_err(|_| Error::HttpResponseTimeout)?
    .map_err(|_| Error::ConnectionReadTimeout)??;
    let response = response.map(|incoming| {
        GuardedBody::new(incoming, &limits, Some(cancel)).returning_to_pool(key, sender)
    });
    let io: IoFuture = Box::new(async { Ok(()) });
    Ok((response.map(|body| body.boxed_unsync()), io))
}

/// Resolve the origin's host and connect to the first permitted address that answers.
async fn connect(
    origin: &Origin,
    limits: &Limits,
    refusals: &Refusals,
    method: &http::Method,
    uri: &http::Uri,
    reach: Reach,
) -> Result<TcpStream, Error> {
    let connect_by = Instant::now() + limits.connect;
    let permitted = permitted_addresses(origin, connect_by, refusals, method, uri, reach).await?;
    dial(permitted, connect_by).await
}

/// The origin's addresses a request may connect to: the public ones, all of them when `reach`
/// allows local addresses; a refusal when none is left.
async fn permitted_addresses(
    origin: &Origin,
    connect_by: Instant,
    refusals: &Refusals,
    method: &http::Method,
    uri: &http::Uri,
    reach: Reach,
) -> Result<Vec<SocketAddr>, Error> {
    let resolved: Vec<SocketAddr> = tokio::time::timeout_at(
        connect_by,
        tokio::net::lookup_host((origin.host.as_str(), origin.port)),
    )
    .await
    .map_err(|_| Error::DnsTimeout)?
    .map_err(|e| Error::DnsError {
        rcode: Some(e.to_string()),
        info_code: None,
    })?
    .collect();
    let mut refused: Option<(std::net::IpAddr, Range)> = None;
    let permitted: Vec<SocketAddr> = resolved
        .into_iter()
        .filter(|addr| {
            let Some(range) = range_of(addr.ip()) else {
                return true;
            };
            let reachable = match reach {
                Reach::Endpoint => true,
                Reach::Local => range.local,
                Reach::Public => false,
            };
            if !reachable {
                refused.get_or_insert((addr.ip(), range));
            }
            reachable
        })
        .collect();
    if permitted.is_empty() {
        let rule = |range: Range| {
            if range.local {
                LOCAL_RULE
            } else {
                SPECIAL_RULE
            }
        };
        let why = match refused {
            Some((ip, range)) if ip.to_string() == origin.host => {
                format!("{ip} is {}; {}", range.why, rule(range))
            }
            Some((ip, range)) => format!(
                "{} resolves to {ip}, {}; {}",
                origin.host,
                range.why,
                rule(range)
            ),
            None => format!("{} resolves to no address", origin.host),
        };
        let error = if refused.is_some() {
            Error::DestinationIpProhibited
        } else {
            Error::DestinationNotFound
        };
        return Err(refusals.refuse(method, uri, &why, error));
    }
    Ok(permitted)
}

/// Connect to the first of `addresses` that answers.
async fn dial(
    addresses: impl IntoIterator<Item = SocketAddr>,
    connect_by: Instant,
) -> Result<TcpStream, Error> {
    let mut last = Error::ConnectionRefused;
    for addr in addresses {
        match tokio::time::timeout_at(connect_by, TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => {
                // A request often leaves in two writes (head, then body); Nagle would hold the
                // second until the first is acknowledged, and delayed ACKs make that ~40 ms.
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Ok(Err(e)) => last = Error::Connect(e),
            Err(_) => return Err(Error::ConnectionTimeout),
        }
    }
    Err(last)
}

trait Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static {}
impl<T> Stream for T where T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static {}

/// One TLS client configuration (Mozilla's roots, ring) for the whole process.
fn tls_connector() -> Result<tokio_rustls::TlsConnector, Error> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    let config = CONFIG.get_or_init(|| {
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.into(),
        };
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map(|builder| Arc::new(builder.with_root_certificates(roots).with_no_client_auth()))
        .map_err(|e| e.to_string())
    });
    match config {
        Ok(config) => Ok(tokio_rustls::TlsConnector::from(config.clone())),
        Err(e) => Err(Error::InternalError(Some(format!("TLS setup failed: {e}")))),
    }
}

fn server_name(host: &str) -> Result<rustls::pki_types::ServerName<'static>, Error> {
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return Ok(rustls::pki_types::ServerName::from(ip));
    }
    rustls::pki_types::ServerName::try_from(host.to_string()).map_err(|e| Error::DnsError {
        rcode: Some(format!("invalid DNS name: {e}")),
        info_code: None,
    })
}

/// A response body that fails once it has been silent too long or the request's deadline
/// has passed.
struct GuardedBody {
    inner: hyper::body::Incoming,
    between_bytes: Duration,
    idle: Pin<Box<Sleep>>,
    deadline: Pin<Box<Sleep>>,
    cancelled: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    /// Where the connection goes once the body has been read to the end.
    reuse: Option<(String, Sender)>,
}

impl GuardedBody {
    fn new(
        inner: hyper::body::Incoming,
        limits: &Limits,
        cancel: Option<CancelToken>,
    ) -> GuardedBody {
        GuardedBody {
            inner,
            between_bytes: limits.between_bytes,
            idle: Box::pin(tokio::time::sleep(limits.between_bytes)),
            deadline: Box::pin(tokio::time::sleep_until(limits.deadline)),
            cancelled: cancel.map(|token| {
                Box::pin(async move { token.cancelled().await })
                    as Pin<Box<dyn Future<Output = ()> + Send>>
            }),
            reuse: None,
        }
    }

    fn returning_to_pool(mut self, origin: String, sender: Sender) -> GuardedBody {
        self.reuse = Some((origin, sender));
        self
    }

    fn finished(&mut self) {
        if let Some((origin, sender)) = self.reuse.take() {
            pool::pool().put(origin, sender);
        }
    }
}

impl Body for GuardedBody {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let next = Instant::now() + this.between_bytes;
                this.idle.as_mut().reset(next);
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) if e.is_timeout() => {
                Poll::Ready(Some(Err(Error::HttpResponseTimeout)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(Error::from(e)))),
            Poll::Ready(None) => {
                this.finished();
                Poll::Ready(None)
            }
            Poll::Pending => {
                let cancelled = this.cancelled.as_mut();
                if cancelled.is_some_and(|c| c.as_mut().poll(cx).is_ready()) {
                    Poll::Ready(Some(Err(Error::InternalError(Some("cancelled".into())))))
                } else if this.deadline.as_mut().poll(cx).is_ready() {
                    Poll::Ready(Some(Err(Error::HttpResponseTimeout)))
                } else if this.idle.as_mut().poll(cx).is_ready() {
                    Poll::Ready(Some(Err(Error::ConnectionReadTimeout)))
                } else {
                    Poll::Pending
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
