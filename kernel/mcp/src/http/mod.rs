//! Remote MCP transports: streamable HTTP (2025-03-26 and later, the SDK's transport over our
//! reqwest 0.12 client) and the legacy HTTP+SSE transport (2024-11-05, which the SDK dropped).
//!
//! Everything a server sends is bounded: one SSE event or one JSON body is at most
//! [`HttpOptions::max_message_bytes`]. Redirects are followed only within the same origin, and a
//! legacy server may not move the session's POST endpoint to another origin.

mod bounded;
mod client;
mod error;
mod legacy_sse;
pub mod route;

use std::{
    borrow::Cow,
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    time::Duration,
};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::{
    RoleClient,
    model::{ClientJsonRpcMessage, ServerJsonRpcMessage},
    transport::{
        StreamableHttpClientTransport, Transport,
        streamable_http_client::{StreamableHttpClientTransportConfig, StreamableHttpError},
    },
};

pub use client::HttpClient;
pub use error::HttpError;
pub use legacy_sse::{LegacySseTransport, same_origin_endpoint};

/// The SDK's streamable HTTP transport on [`HttpClient`], for `rmcp::serve_client`. It reports
/// itself closed once a request finds nothing at the URL: over HTTP that is how a dead server
/// shows, and the SDK would otherwise keep a session open that fails every call. (The newtype
/// also makes the SDK's error messages say "streamable HTTP", not a long generic type name.)
pub struct StreamableHttpTransport {
    inner: StreamableHttpClientTransport<HttpClient>,
    lost: client::Lost,
}

impl StreamableHttpTransport {
    /// Why the session ended on its own (the server could not be reached), once it has.
    pub fn closed_reason(&self) -> Arc<Mutex<Option<String>>> {
        self.lost.reason.clone()
    }
}

impl Transport<RoleClient> for StreamableHttpTransport {
    type Error = StreamableHttpError<HttpError>;

    fn name() -> Cow<'static, str> {
        "streamable HTTP".into()
    }

    fn send(
        &mut self,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(message)
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        let gone = self.lost.token.clone();
        let receiving = self.inner.receive();
        async move {
            tokio::select! {
                message = receiving => message,
                () = gone.cancelled() => None,
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// How a remote server is reached.
#[derive(Clone)]
pub struct HttpOptions {
    /// Sent with every request (`Authorization: Bearer …` goes here; `${VAR}`s already expanded).
    pub headers: Vec<(String, String)>,
    /// Largest SSE event or JSON body accepted from the server.
    pub max_message_bytes: usize,
    /// Bound on opening a TCP/TLS connection; for legacy SSE also on the wait for `endpoint`.
    pub connect_timeout: Duration,
}

/// Header names only: values are credentials.
impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpOptions")
            .field("headers", &names)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            headers: Vec::new(),
            max_message_bytes: 16 * 1024 * 1024,
            connect_timeout: Duration::from_secs(10),
        }
    }
}

/// Streamable HTTP transport to `url`. Nothing is sent until `rmcp::serve_client` initializes.
/// Must be called inside a tokio runtime (the SDK spawns the transport's worker task).
pub fn streamable_http(
    url: &str,
    options: &HttpOptions,
) -> Result<StreamableHttpTransport, HttpError> {
    let parsed = parse_url(url)?;
    let headers = parse_headers(&error::shown_url(&parsed), &options.headers)?;
    let (http, shown) = build_client(&parsed, options)?;
    let client = HttpClient::new(http, options.max_message_bytes, &shown);
    let config = StreamableHttpClientTransportConfig::with_uri(parsed.as_str())
        .custom_headers(headers)
        .max_sse_event_size(options.max_message_bytes);
    let lost = client.lost();
    Ok(StreamableHttpTransport {
        inner: StreamableHttpClientTransport::with_client(client, config),
        lost,
    })
}

/// Legacy HTTP+SSE transport: opens the event stream and waits for the server's `endpoint`.
pub async fn legacy_sse(url: &str, options: &HttpOptions) -> Result<LegacySseTransport, HttpError> {
    let parsed = parse_url(url)?;
    let headers = parse_headers(&error::shown_url(&parsed), &options.headers)?;
    let (client, shown) = build_client(&parsed, options)?;
    LegacySseTransport::connect(client, parsed, &shown, headers, options).await
}

fn parse_url(url: &str) -> Result<reqwest::Url, HttpError> {
    let invalid = |reason: String| HttpError::InvalidUrl {
        url: error::preview(url),
        reason,
    };
    let parsed = reqwest::Url::parse(url).map_err(|e| invalid(e.to_string()))?;
    match parsed.scheme() {
        "http" | "https" => Ok(parsed),
        other => Err(invalid(format!("scheme `{other}` is not http or https"))),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Headers the transports set themselves; a config value would break the protocol.
const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "content-length",
    "host",
    "transfer-encoding",
    "connection",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// Validates the configured headers: names, values, no reserved name, no name given twice.
fn parse_headers(
    url: &str,
    headers: &[(String, String)],
) -> Result<HashMap<HeaderName, HeaderValue>, HttpError> {
    let mut map = HashMap::new();
    for (name, value) in headers {
        let bad = |reason: &str| HttpError::InvalidHeader {
            url: url.to_string(),
            name: error::preview(name),
            reason: reason.to_string(),
        };
        let header_name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| bad("not a valid header name"))?;
        if RESERVED_HEADERS.contains(&header_name.as_str()) {
            return Err(bad("set by the MCP transport itself"));
        }
        let mut header_value = HeaderValue::from_str(value.trim()).map_err(|_| {
            bad("the value has characters not allowed in a header (newline, control)")
        })?;
        header_value.set_sensitive(true);
        if map.insert(header_name, header_value).is_some() {
            return Err(bad("given more than once"));
        }
    }
    Ok(map)
}

/// The client for `url`, and the URL as its errors show it: `… via proxy http://host:port (from
/// HTTP_PROXY)` when the process's proxy decision sends it through one, so that a failure the
/// proxy caused names the proxy.
fn build_client(
    url: &reqwest::Url,
    options: &HttpOptions,
) -> Result<(reqwest::Client, String), HttpError> {
    let shown = error::shown_url(url);
    let client_error = |reason: String| HttpError::Client {
        url: shown.clone(),
        reason,
    };
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.into(),
    };
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| client_error(format!("TLS setup failed: {e}")))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let (builder, proxy) = route::apply(
        reqwest::Client::builder(),
        url,
        reasonix_core::proxy::ProxyConfig::global(),
    )
    .map_err(client_error)?;
    let client = builder
        .use_preconfigured_tls(tls)
        .connect_timeout(options.connect_timeout)
        // Reused idle connections stall ~40 ms on Linux delayed ACKs after an unfinished body.
        .pool_max_idle_per_host(0)
        .redirect(same_origin_redirects())
        .build()
        .map_err(|e| client_error(e.to_string()))?;
    let shown = match proxy {
        Some(proxy) => format!("{shown} via {proxy}"),
        None => shown,
    };
    Ok((client, shown))
}

/// Follows only same-origin 307/308 (they keep method and body): a 301/302/303 would turn the
/// POST into a GET and lose the message, and another origin would receive the session id and the
/// configured headers (bearer token included).
fn same_origin_redirects() -> reqwest::redirect::Policy {
    const MAX_REDIRECTS: usize = 10;
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Result<HashMap<HeaderName, HeaderValue>, HttpError> {
        let pairs: Vec<_> = pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        parse_headers("https://mcp.example/mcp", &pairs)
    }

    #[test]
    fn configured_headers_are_kept_and_their_values_hidden_from_debug_output() {
        let map = headers(&[("Authorization", "Bearer s3cret"), ("X-Team", " core ")]).unwrap();
        assert_eq!(map[&HeaderName::from_static("x-team")], "core");
        assert!(!format!("{map:?}").contains("s3cret"));
    }

    #[test]
    fn bad_headers_are_errors_naming_the_header_and_the_server() {
        for (name, value, why) in [
            ("Bad Header", "v", "not a valid header name"),
            ("X-Evil", "a\r\nInjected: 1", "not allowed in a header"),
            ("Mcp-Session-Id", "stolen", "set by the MCP transport"),
            ("accept", "text/html", "set by the MCP transport"),
        ] {
            let error = headers(&[(name, value)]).unwrap_err().to_string();
            assert!(error.contains(name) && error.contains(why), "{error}");
            assert!(error.contains("https://mcp.example/mcp"), "{error}");
        }
        let twice = headers(&[("X-A", "1"), ("x-a", "2")])
            .unwrap_err()
            .to_string();
        assert!(twice.contains("more than once"), "{twice}");
    }

    #[tokio::test]
    async fn only_http_urls_are_accepted() {
        for url in ["ftp://mcp.example/", "not a url", "file:///tmp/sock"] {
            let error = streamable_http(url, &HttpOptions::default())
                .err()
                .expect(url)
                .to_string();
            assert!(error.contains(url), "{error}");
        }
        assert!(streamable_http("https://mcp.example/mcp", &HttpOptions::default()).is_ok());
    }
}
