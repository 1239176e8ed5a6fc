//! The legacy HTTP+SSE transport (MCP 2024-11-05), which the SDK no longer has: a GET opens an
//! event stream whose first `endpoint` event names where to POST client messages; the server's
//! messages are the stream's `message` events.

use std::{
    collections::{HashMap, HashSet, VecDeque},
    sync::{Arc, Mutex},
};

use futures::StreamExt;
use reqwest::{
    StatusCode, Url,
    header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue},
};
use rmcp::{
    RoleClient,
    model::{ClientJsonRpcMessage, ErrorData, RequestId, ServerJsonRpcMessage},
    transport::{Transport, common::http_header::EVENT_STREAM_MIME_TYPE},
};
use sse_stream::{Error as SseError, Sse};

use super::{
    HttpError, HttpOptions,
    bounded::{SseEvents, bounded_sse, read_prefix},
    error::{preview, shown_url},
    lock,
};

/// Requests sent and not yet answered: failed with the reason when the stream ends, so no
/// caller waits for an answer that cannot come.
type Pending = Arc<Mutex<HashSet<RequestId>>>;

/// A connected legacy SSE session, for `rmcp::serve_client`.
pub struct LegacySseTransport {
    http: reqwest::Client,
    /// The SSE URL as messages show it.
    sse_url: Arc<str>,
    endpoint: Url,
    headers: HeaderMap,
    events: SseEvents,
    pending: Pending,
    /// Error answers to deliver before reporting the stream closed.
    last_words: VecDeque<ServerJsonRpcMessage>,
    closed: bool,
    closed_reason: Arc<Mutex<Option<String>>>,
}

/// The POST endpoint named by an `endpoint` event, resolved against the SSE URL; refused unless
/// it has the SSE URL's origin (scheme, host, port), where the configured headers were meant to go.
pub fn same_origin_endpoint(sse_url: &Url, endpoint: &str) -> Result<Url, HttpError> {
    let resolved = sse_url.join(endpoint).map_err(|e| HttpError::BadEndpoint {
        url: shown_url(sse_url),
        endpoint: preview(endpoint),
        reason: e.to_string(),
    })?;
    if resolved.origin() != sse_url.origin() {
        return Err(HttpError::CrossOrigin {
            url: shown_url(sse_url),
            endpoint: preview(endpoint),
        });
    }
    Ok(resolved)
}

impl LegacySseTransport {
    pub(super) async fn connect(
        http: reqwest::Client,
        sse_url: Url,
        shown: &str,
        headers: HashMap<HeaderName, HeaderValue>,
        options: &HttpOptions,
    ) -> Result<Self, HttpError> {
        let url: Arc<str> = shown.into();
        let headers: HeaderMap = headers.into_iter().collect();
        let open = async {
            let request = http
                .get(sse_url.clone())
                .header(ACCEPT, EVENT_STREAM_MIME_TYPE)
                .headers(headers.clone());
            let response = request
                .send()
                .await
                .map_err(|e| HttpError::request(&url, &e))?;
            let response = check_status(response, &url).await?;
            let content_type = response
                .headers()
                .get(CONTENT_TYPE)
                .map(|v| String::from_utf8_lossy(v.as_bytes()));
            if !content_type
                .as_deref()
                .is_some_and(|ct| ct.starts_with(EVENT_STREAM_MIME_TYPE))
            {
                return Err(HttpError::ContentType {
                    url: url.to_string(),
                    content_type: preview(content_type.as_deref().unwrap_or("(none)")),
                    expected: EVENT_STREAM_MIME_TYPE,
                });
            }
            let mut events = bounded_sse(response.bytes_stream(), options.max_message_bytes, &url);
            loop {
                match events.next().await {
                    Some(Ok(event)) if event.event.as_deref() == Some("endpoint") => {
                        let endpoint = same_origin_endpoint(
                            &sse_url,
                            event.data.as_deref().unwrap_or_default(),
                        )?;
                        return Ok((endpoint, events));
                    }
                    Some(Ok(_)) => {}
                    Some(Err(error)) => return Err(stream_error(&url, error)),
                    None => {
                        return Err(HttpError::NoEndpoint {
                            url: url.to_string(),
                        });
                    }
                }
            }
        };
        let (endpoint, events) = tokio::time::timeout(options.connect_timeout, open)
            .await
            .map_err(|_| HttpError::EndpointTimeout {
                url: url.to_string(),
                timeout: options.connect_timeout,
            })??;
        Ok(Self {
            http,
            sse_url: url,
            endpoint,
            headers,
            events,
            pending: Pending::default(),
            last_words: VecDeque::new(),
            closed: false,
            closed_reason: Arc::default(),
        })
    }

    /// Why the session ended (stream closed or broken, event too large), once it has; stays
    /// `None` after a close by the client.
    pub fn closed_reason(&self) -> Arc<Mutex<Option<String>>> {
        self.closed_reason.clone()
    }

    /// The server message in a `message` event; `None` for other events and unreadable data,
    /// except that unreadable data carrying a pending request's id fails that request.
    fn decode(&mut self, event: Sse) -> Option<ServerJsonRpcMessage> {
        if !matches!(event.event.as_deref(), None | Some("") | Some("message")) {
            return None;
        }
        let data = event.data?;
        match serde_json::from_str::<ServerJsonRpcMessage>(&data) {
            Ok(message) => {
                if let ServerJsonRpcMessage::Response(r) = &message {
                    lock(&self.pending).remove(&r.id);
                } else if let ServerJsonRpcMessage::Error(e) = &message
                    && let Some(id) = &e.id
                {
                    lock(&self.pending).remove(id);
                }
                Some(message)
            }
            Err(error) => {
                let value: serde_json::Value = serde_json::from_str(&data).ok()?;
                let id: RequestId = serde_json::from_value(value.get("id")?.clone()).ok()?;
                if !lock(&self.pending).remove(&id) {
                    return None;
                }
                let reason = format!(
                    "MCP server {} sent a malformed reply: {error}",
                    self.sse_url
                );
                Some(ServerJsonRpcMessage::error(
                    ErrorData::internal_error(reason, None),
                    Some(id),
                ))
            }
        }
    }

    fn shut_down(&mut self, reason: Option<String>) {
        self.closed = true;
        self.events = futures::stream::empty().boxed();
        let pending = std::mem::take(&mut *lock(&self.pending));
        if let Some(reason) = reason {
            *lock(&self.closed_reason) = Some(reason.clone());
            self.last_words.extend(pending.into_iter().map(|id| {
                ServerJsonRpcMessage::error(
                    ErrorData::internal_error(reason.clone(), None),
                    Some(id),
                )
            }));
        }
    }
}

async fn check_status(
    response: reqwest::Response,
    url: &str,
) -> Result<reqwest::Response, HttpError> {
    let status = response.status();
    if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
        return Err(HttpError::AuthRequired {
            url: url.to_string(),
            status: status.as_u16(),
        });
    }
    if !status.is_success() {
        let body = read_prefix(response, 4096).await;
        return Err(HttpError::Status {
            url: url.to_string(),
            status: status.as_u16(),
            body: preview(&String::from_utf8_lossy(&body)),
        });
    }
    Ok(response)
}

fn stream_error(url: &str, error: SseError) -> HttpError {
    match error {
        SseError::Body(inner) => match inner.downcast::<HttpError>() {
            Ok(error) => *error,
            Err(other) => HttpError::Request {
                url: url.to_string(),
                reason: other.to_string(),
            },
        },
        other => HttpError::Request {
            url: url.to_string(),
            reason: format!("malformed event stream: {other}"),
        },
    }
}

impl Transport<RoleClient> for LegacySseTransport {
    type Error = HttpError;

    fn name() -> std::borrow::Cow<'static, str> {
        "legacy SSE".into()
    }

    fn send(
        &mut self,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), HttpError>> + Send + 'static {
        let request_id = match &message {
            ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        if let Some(id) = &request_id {
            lock(&self.pending).insert(id.clone());
        }
        let closed = self.closed;
        let post = self
            .http
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .json(&message);
        let url = self.sse_url.clone();
        let pending = self.pending.clone();
        async move {
            let result = if closed {
                Err(HttpError::Closed {
                    url: url.to_string(),
                })
            } else {
                // The answer comes on the event stream; the POST's own body is not needed.
                match post.send().await {
                    Ok(response) => check_status(response, &url).await.map(drop),
                    Err(e) => Err(HttpError::request(&url, &e)),
                }
            };
            if result.is_err()
                && let Some(id) = request_id
            {
                lock(&pending).remove(&id);
            }
            result
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            if let Some(message) = self.last_words.pop_front() {
                return Some(message);
            }
            if self.closed {
                return None;
            }
            let reason = match self.events.next().await {
                Some(Ok(event)) => match self.decode(event) {
                    Some(message) => return Some(message),
                    None => continue,
                },
                Some(Err(error)) => stream_error(&self.sse_url, error).to_string(),
                None => format!("MCP server {} closed its event stream", self.sse_url),
            };
            self.shut_down(Some(reason));
        }
    }

    async fn close(&mut self) -> Result<(), HttpError> {
        self.shut_down(None);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use proptest::prelude::*;

    use super::*;

    fn base() -> Url {
        Url::parse("http://127.0.0.1:3001/sse").unwrap()
    }

    #[test]
    fn endpoints_on_the_same_origin_resolve_against_the_sse_url() {
        for (endpoint, expected) in [
            (
                "/message?sessionId=1",
                "http://127.0.0.1:3001/message?sessionId=1",
            ),
            ("message", "http://127.0.0.1:3001/message"),
            ("http://127.0.0.1:3001/m", "http://127.0.0.1:3001/m"),
            ("HTTP://127.0.0.1:3001/m", "http://127.0.0.1:3001/m"),
        ] {
            assert_eq!(
                same_origin_endpoint(&base(), endpoint).unwrap().as_str(),
                expected
            );
        }
        let default_port = Url::parse("https://mcp.example/sse").unwrap();
        assert!(same_origin_endpoint(&default_port, "https://mcp.example:443/m").is_ok());
    }

    #[test]
    fn endpoints_elsewhere_are_refused() {
        for endpoint in [
            "http://evil.test/m",
            "//evil.test/m",
            "https://127.0.0.1:3001/m",
            "http://127.0.0.1:3002/m",
            "http://localhost:3001/m",
            "http://127.0.0.1:3001@evil.test/m",
            "ftp://127.0.0.1:3001/m",
            "data:text/plain,hi",
            "file:///etc/passwd",
        ] {
            assert!(
                same_origin_endpoint(&base(), endpoint).is_err(),
                "{endpoint} accepted"
            );
        }
    }

    fn endpoint_strings() -> impl Strategy<Value = String> {
        let prefix = prop::sample::select(vec![
            "",
            "/",
            "//",
            "///",
            "\\\\",
            "http://",
            "https://",
            "HTTP://",
            "http:",
            "http:/",
            "https:",
            " http://",
            "\thttp://",
            "ws://",
            "file://",
            "javascript:",
            "data:",
        ]);
        let host = prop::sample::select(vec![
            "",
            "127.0.0.1",
            "127.0.0.1:3001",
            "127.0.0.1:3002",
            "localhost:3001",
            "evil.test",
            "[::1]:3001",
            "user@evil.test",
            "127.0.0.1:3001@evil.test",
            "evil.test#@127.0.0.1:3001",
            "127.0.0.1:3001.evil.test",
            "0x7f.0.0.1:3001",
            "2130706433:3001",
            "127.1:3001",
        ]);
        prop_oneof![
            any::<String>(),
            (prefix, host, "[ -~]{0,20}").prop_map(|(p, h, rest)| format!("{p}{h}{rest}")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn no_endpoint_string_is_accepted_on_another_origin(endpoint in endpoint_strings()) {
            if let Ok(url) = same_origin_endpoint(&base(), &endpoint) {
                prop_assert_eq!(url.origin(), base().origin());
                prop_assert_eq!(url.scheme(), "http");
                prop_assert_eq!(url.host_str(), Some("127.0.0.1"));
                prop_assert_eq!(url.port_or_known_default(), Some(3001));
            }
        }
    }
}
