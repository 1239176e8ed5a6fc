//! Streaming HTTP POST for provider plugins, over the host's `wasi:http/outgoing-handler`.
//!
//! The host enforces the plugin's network grant on every request (a provider instance may reach
//! only its own endpoint, and the host adds the API key there), and applies its own connect,
//! first-byte and between-bytes timeouts; [`Timeouts`] can only shorten them.
//!
//! ```ignore
//! use reasonix_sdk::http::{post_streaming, Timeouts};
//! let headers = vec![("content-type".to_string(), "application/json".to_string())];
//! let mut response = post_streaming("https://api.example.com/v1/chat", &headers, b"{}", &Timeouts::default())?;
//! if response.status() == 200 {
//!     while let Some(bytes) = response.read_chunk()? {
//!         // feed `bytes` to an `sse::SseParser` …
//!     }
//! }
//! ```
//!
//! `post_streaming` and `StreamingResponse` exist only in the wasm build; [`HttpError`],
//! [`Timeouts`] and [`split_url`] compile everywhere so plugin logic around them stays
//! unit-testable natively.

use std::time::Duration;

/// Why a request or a body read failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The host's network policy refused the destination (not granted, or a private,
    /// link-local or metadata address). Retrying will not help.
    #[error("{0}")]
    Denied(String),
    /// The host gave up waiting: no response head, or no body data, within its timeout.
    #[error("{0}")]
    Timeout(String),
    /// The host cancelled the request (the user interrupted the turn).
    #[error("the request was cancelled")]
    Cancelled,
    /// The request could not be built (bad URL, header name or value).
    #[error("{0}")]
    InvalidRequest(String),
    /// Nothing answers at the address: the connection was refused (nothing listens on the
    /// port) or the host name does not resolve. Retrying at once rarely helps.
    #[error("{0}")]
    Unreachable(String),
    /// Anything else on the way: a DNS timeout, a connect timeout, TLS, a connection cut
    /// mid-body. Usually worth retrying.
    #[error("{0}")]
    Transport(String),
}

/// Timeouts a request asks for; `None` keeps the host's (which also caps any value given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Timeouts {
    /// Establishing the connection (TCP, TLS).
    pub connect: Option<Duration>,
    /// From sending the request to the response head.
    pub first_byte: Option<Duration>,
    /// Longest silence between two pieces of the body.
    pub between_bytes: Option<Duration>,
}

/// The parts of an absolute `http` / `https` URL that `wasi:http` wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    /// True for `https`.
    pub https: bool,
    /// `host[:port]`.
    pub authority: String,
    /// Path and query, starting with `/` (a fragment is dropped).
    pub path_with_query: String,
}

/// Split `url` for `wasi:http`; the error names the URL and says what is wrong with it.
pub fn split_url(url: &str) -> Result<UrlParts, HttpError> {
    let bad = |why: &str| HttpError::InvalidRequest(format!("invalid URL `{url}`: {why}"));
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| bad("it must start with http:// or https://"))?;
    let https = match scheme.to_ascii_lowercase().as_str() {
        "https" => true,
        "http" => false,
        _ => return Err(bad("only http and https are supported")),
    };
    let rest = rest.split('#').next().unwrap_or_default();
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    if authority.is_empty() {
        return Err(bad("it has no host"));
    }
    if authority.contains('@') {
        return Err(bad("credentials in the URL are not supported"));
    }
    if authority
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(bad("the host contains whitespace"));
    }
    let path_with_query = match path.chars().next() {
        None => "/".to_string(),
        Some('?') => format!("/{path}"),
        Some(_) => path.to_string(),
    };
    Ok(UrlParts {
        https,
        authority: authority.to_string(),
        path_with_query,
    })
}

#[cfg(target_arch = "wasm32")]
pub use wasm::{StreamingResponse, error_from_code, post_streaming};

#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::{HttpError, Timeouts, split_url};
    use std::time::Duration;
    use wasip2::http::outgoing_handler;
    use wasip2::http::types::{
        ErrorCode, Fields, IncomingBody, IncomingResponse, Method, OutgoingBody, OutgoingRequest,
        RequestOptions, Scheme,
    };
    use wasip2::io::streams::{InputStream, StreamError};

    /// Largest piece [`StreamingResponse::read_chunk`] returns.
    const READ_SIZE: u64 = 64 * 1024;
    /// Largest write `blocking-write-and-flush` accepts.
    const WRITE_SIZE: usize = 4096;

    /// POST `body` to `url` with `headers` and wait for the response head. The body of the
    /// response is then read piece by piece with [`StreamingResponse::read_chunk`].
    pub fn post_streaming(
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        timeouts: &Timeouts,
    ) -> Result<StreamingResponse, HttpError> {
        let parts = split_url(url)?;
        let fields = Fields::new();
        // A known length instead of chunked encoding, which some gateways refuse.
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        {
            let _ = fields.append("content-length", body.len().to_string().as_bytes());
        }
        for (name, value) in headers {
            fields.append(name, value.as_bytes()).map_err(|e| {
                HttpError::InvalidRequest(format!("header `{name}` cannot be sent: {e:?}"))
            })?;
        }
        let request = OutgoingRequest::new(fields);
        let refused = |what: &str| {
            HttpError::InvalidRequest(format!("invalid URL `{url}`: the host refused the {what}"))
        };
        request
            .set_method(&Method::Post)
            .map_err(|()| refused("method"))?;
        let scheme = if parts.https {
            Scheme::Https
        } else {
            Scheme::Http
        };
        request
            .set_scheme(Some(&scheme))
            .map_err(|()| refused("scheme"))?;
        request
            .set_authority(Some(&parts.authority))
            .map_err(|()| refused("host"))?;
        request
            .set_path_with_query(Some(&parts.path_with_query))
            .map_err(|()| refused("path"))?;
        let options = RequestOptions::new();
        let nanos = |d: Option<Duration>| d.map(|d| d.as_nanos().min(u128::from(u64::MAX)) as u64);
        // The host ignores what it does not support; its own limits still apply.
        let _ = options.set_connect_timeout(nanos(timeouts.connect));
        let _ = options.set_first_byte_timeout(nanos(timeouts.first_byte));
        let _ = options.set_between_bytes_timeout(nanos(timeouts.between_bytes));

        let outgoing = request
            .body()
            .map_err(|()| HttpError::Transport("the request body was already taken".into()))?;
        let pending =
            outgoing_handler::handle(request, Some(options)).map_err(|e| error_from_code(&e))?;
        // When sending the body fails, the response still says more: the host may have
        // refused the request (then the body's receiver is gone), or the server answered
        // early (a 401 or 413 before reading the body).
        let written = write_body(outgoing, body);
        pending.subscribe().block();
        match pending.get() {
            Some(Ok(Ok(response))) => StreamingResponse::new(response),
            Some(Ok(Err(code))) => Err(error_from_code(&code)),
            Some(Err(())) | None => Err(match written {
                Err(error) => error,
                Ok(()) => HttpError::Transport("the response was lost".into()),
            }),
        }
    }

    fn write_body(outgoing: OutgoingBody, body: &[u8]) -> Result<(), HttpError> {
        let stream = outgoing.write().map_err(|()| {
            HttpError::Transport("the request body stream was already taken".into())
        })?;
        for piece in body.chunks(WRITE_SIZE) {
            stream
                .blocking_write_and_flush(piece)
                .map_err(|e| stream_error("sending the request body", e))?;
        }
        // The stream is a child of the body: it must go first.
        drop(stream);
        OutgoingBody::finish(outgoing, None).map_err(|e| error_from_code(&e))
    }

    fn stream_error(doing: &str, error: StreamError) -> HttpError {
        match error {
            StreamError::Closed => {
                HttpError::Transport(format!("the connection closed while {doing}"))
            }
            StreamError::LastOperationFailed(e) => match wasip2::http::types::http_error_code(&e) {
                Some(code) => error_from_code(&code),
                None => error_from_text(doing, &e.to_debug_string()),
            },
        }
    }

    /// A body error the host did not attach an error code to (wasmtime 48 passes body errors
    /// as plain text), classified by the host's wording.
    fn error_from_text(doing: &str, text: &str) -> HttpError {
        match text {
            "connection read timeout" => error_from_code(&ErrorCode::ConnectionReadTimeout),
            "HTTP response timeout" => error_from_code(&ErrorCode::HttpResponseTimeout),
            "internal error: cancelled" => HttpError::Cancelled,
            _ => HttpError::Transport(format!("{doing} failed: {text}")),
        }
    }

    /// The host's `wasi:http` error code as an [`HttpError`] with a message that says what
    /// happened: refusals by the network policy are [`HttpError::Denied`], the host's read and
    /// response timeouts [`HttpError::Timeout`], everything else [`HttpError::Transport`].
    pub fn error_from_code(code: &ErrorCode) -> HttpError {
        match code {
            ErrorCode::HttpRequestDenied => HttpError::Denied(
                "the host's network policy does not let this plugin reach that address".into(),
            ),
            ErrorCode::DestinationIpProhibited => HttpError::Denied(
                "the host name resolves to a private, link-local or metadata address, which plugins may not reach".into(),
            ),
            ErrorCode::ConnectionReadTimeout => {
                HttpError::Timeout("the server sent no data within the host's read timeout".into())
            }
            ErrorCode::HttpResponseTimeout => HttpError::Timeout(
                "the server did not answer within the host's response timeout".into(),
            ),
            ErrorCode::InternalError(Some(why)) if why == "cancelled" => HttpError::Cancelled,
            ErrorCode::DnsTimeout => HttpError::Transport("DNS lookup timed out".into()),
            ErrorCode::DnsError(_) | ErrorCode::DestinationNotFound => {
                HttpError::Unreachable("the host name could not be resolved".into())
            }
            ErrorCode::ConnectionRefused | ErrorCode::DestinationUnavailable => {
                HttpError::Unreachable(
                    "the connection was refused (nothing is listening there)".into(),
                )
            }
            ErrorCode::ConnectionTimeout => {
                HttpError::Transport("connecting to the server timed out".into())
            }
            ErrorCode::ConnectionTerminated => {
                HttpError::Transport("the server closed the connection".into())
            }
            ErrorCode::TlsProtocolError
            | ErrorCode::TlsCertificateError
            | ErrorCode::TlsAlertReceived(_) => {
                HttpError::Transport(format!("the TLS handshake failed ({code:?})"))
            }
            ErrorCode::HttpRequestUriInvalid => {
                HttpError::InvalidRequest("the host refused the request URL".into())
            }
            other => HttpError::Transport(format!("the request failed: {other:?}")),
        }
    }

    /// A response whose head has arrived; the body is read incrementally.
    pub struct StreamingResponse {
        // Fields drop in order: the stream is a child of the body, the body of the response.
        stream: Option<InputStream>,
        body: Option<IncomingBody>,
        _response: IncomingResponse,
        status: u16,
        headers: Vec<(String, String)>,
    }

    impl StreamingResponse {
        fn new(response: IncomingResponse) -> Result<StreamingResponse, HttpError> {
            let status = response.status();
            let headers = response
                .headers()
                .entries()
                .into_iter()
                .map(|(name, value)| {
                    (
                        name.to_ascii_lowercase(),
                        String::from_utf8_lossy(&value).into_owned(),
                    )
                })
                .collect();
            let body = response
                .consume()
                .map_err(|()| HttpError::Transport("the response body was already taken".into()))?;
            let stream = body.stream().map_err(|()| {
                HttpError::Transport("the response body stream was already taken".into())
            })?;
            Ok(StreamingResponse {
                stream: Some(stream),
                body: Some(body),
                _response: response,
                status,
                headers,
            })
        }

        /// The HTTP status code.
        pub fn status(&self) -> u16 {
            self.status
        }

        /// Every response header, names in lowercase.
        pub fn headers(&self) -> &[(String, String)] {
            &self.headers
        }

        /// The first value of header `name` (case-insensitive).
        pub fn header(&self, name: &str) -> Option<&str> {
            self.headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        }

        /// Block until the next piece of the body arrives: `Some(bytes)`, `None` at the end of
        /// the body (and on every call after it), or the error that cut it (a stall past the
        /// host's between-bytes timeout is [`HttpError::Timeout`]).
        pub fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
            let Some(stream) = &self.stream else {
                return Ok(None);
            };
            loop {
                match stream.read(READ_SIZE) {
                    Ok(bytes) if bytes.is_empty() => stream.subscribe().block(),
                    Ok(bytes) => return Ok(Some(bytes)),
                    Err(StreamError::Closed) => {
                        self.close();
                        return Ok(None);
                    }
                    Err(error) => {
                        self.close();
                        return Err(stream_error("reading the response body", error));
                    }
                }
            }
        }

        /// The bytes that have already arrived, without waiting: `Ok(None)` when nothing is
        /// ready (or the body has ended — the next [`read_chunk`](Self::read_chunk) says
        /// which). Lets a reader batch what a fast stream has delivered into one call.
        pub fn read_ready(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
            let Some(stream) = &self.stream else {
                return Ok(None);
            };
            match stream.read(READ_SIZE) {
                Ok(bytes) if bytes.is_empty() => Ok(None),
                Ok(bytes) => Ok(Some(bytes)),
                Err(StreamError::Closed) => {
                    self.close();
                    Ok(None)
                }
                Err(error) => {
                    self.close();
                    Err(stream_error("reading the response body", error))
                }
            }
        }

        /// Read and discard the rest of the body for at most `wait`; true when its end was
        /// reached. A stream that has delivered its last event usually has only the body's
        /// terminator left; reading it lets the host reuse the connection for the next request.
        pub fn finish_within(&mut self, wait: Duration) -> bool {
            let Some(stream) = &self.stream else {
                return true;
            };
            let nanos = u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX);
            let timer = wasip2::clocks::monotonic_clock::subscribe_duration(nanos);
            let mut discarded = 0u64;
            loop {
                match stream.read(READ_SIZE) {
                    Ok(bytes) if bytes.is_empty() => {
                        let body = stream.subscribe();
                        let ready = wasip2::io::poll::poll(&[&body, &timer]);
                        if !ready.contains(&0) {
                            return false;
                        }
                    }
                    Ok(bytes) => {
                        discarded += bytes.len() as u64;
                        // Something much larger than a terminator: not worth waiting for.
                        if discarded > READ_SIZE {
                            return false;
                        }
                    }
                    Err(StreamError::Closed) => {
                        self.close();
                        return true;
                    }
                    Err(_) => {
                        self.close();
                        return false;
                    }
                }
            }
        }

        /// Read the body up to `limit` bytes (for error bodies); stops early at the end, and
        /// returns what arrived before an error.
        pub fn read_at_most(&mut self, limit: usize) -> Vec<u8> {
            let mut data = Vec::new();
            while data.len() < limit {
                match self.read_chunk() {
                    Ok(Some(bytes)) => data.extend_from_slice(&bytes),
                    Ok(None) | Err(_) => break,
                }
            }
            data.truncate(limit);
            data
        }

        fn close(&mut self) {
            self.stream = None;
            self.body = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_wasi_parts() {
        let parts = split_url("https://api.example.com/v1/chat/completions?x=1#frag").unwrap();
        assert_eq!(
            parts,
            UrlParts {
                https: true,
                authority: "api.example.com".into(),
                path_with_query: "/v1/chat/completions?x=1".into(),
            }
        );
        let parts = split_url("http://127.0.0.1:8080").unwrap();
        assert_eq!(parts.authority, "127.0.0.1:8080");
        assert_eq!(parts.path_with_query, "/");
        assert!(!parts.https);
        assert_eq!(split_url("http://h?q").unwrap().path_with_query, "/?q");
    }

    #[test]
    fn bad_urls_say_what_is_wrong() {
        let err = split_url("api.example.com/v1").unwrap_err();
        assert!(err.to_string().contains("must start with http"), "{err}");
        let err = split_url("ftp://x/").unwrap_err();
        assert!(err.to_string().contains("only http and https"), "{err}");
        let err = split_url("https:///path").unwrap_err();
        assert!(err.to_string().contains("no host"), "{err}");
        let err = split_url("https://user:pw@host/").unwrap_err();
        assert!(err.to_string().contains("credentials"), "{err}");
    }
}
