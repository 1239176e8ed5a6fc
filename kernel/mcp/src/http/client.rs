//! The SDK's streamable HTTP client trait on reqwest 0.12 (the SDK implements it only for reqwest
//! 0.13). Follows the SDK's own implementation, plus byte limits on JSON bodies and error bodies,
//! and error messages that name the server and tell the user what to do.

use std::{
    borrow::Cow,
    collections::HashMap,
    sync::{Arc, Mutex},
};

use futures::StreamExt;
use reqwest::{
    StatusCode,
    header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE},
};
use rmcp::{
    model::{ClientJsonRpcMessage, ErrorData, ServerJsonRpcMessage},
    transport::{
        common::http_header::{
            EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_SESSION_ID, JSON_MIME_TYPE,
        },
        streamable_http_client::{
            HttpStatusError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
        },
    },
};
use sse_stream::Sse;
use tokio_util::sync::CancellationToken;

use super::{
    HttpError,
    bounded::{SseEvents, bounded_sse, read_capped, read_prefix, too_large},
    error::preview,
    lock,
};

type Result<T> = std::result::Result<T, StreamableHttpError<HttpError>>;

/// Most of an error response's body that is read (to find a JSON-RPC error in it).
const ERROR_BODY_BYTES: usize = 64 * 1024;
const ACCEPT_BOTH: &str = "text/event-stream, application/json";

/// reqwest 0.12 client for [`rmcp::transport::StreamableHttpClientTransport`]. Clones share
/// [`Lost`]: the first request that finds nothing at the URL records why and cancels it.
#[derive(Clone, Debug)]
pub struct HttpClient {
    http: reqwest::Client,
    max_message_bytes: usize,
    /// The server URL as error messages show it (no password, no query).
    shown_url: Arc<str>,
    lost: Lost,
}

/// Set once the server cannot be reached: over HTTP, that is how a dead server shows.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lost {
    pub(crate) token: CancellationToken,
    pub(crate) reason: Arc<Mutex<Option<String>>>,
}

impl HttpClient {
    pub fn new(http: reqwest::Client, max_message_bytes: usize, shown_url: &str) -> Self {
        Self {
            http,
            max_message_bytes,
            shown_url: shown_url.into(),
            lost: Lost::default(),
        }
    }

    pub(crate) fn lost(&self) -> Lost {
        self.lost.clone()
    }

    async fn send(
        &self,
        mut request: reqwest::RequestBuilder,
        uri: &str,
        auth_token: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<reqwest::Response> {
        if let Some(token) = auth_token {
            request = request.bearer_auth(token);
        }
        for (name, value) in headers {
            request = request.header(name, value);
        }
        request.send().await.map_err(|e| {
            let error = HttpError::request(uri, &e);
            if matches!(error, HttpError::Unreachable { .. }) {
                lock(&self.lost.reason).get_or_insert_with(|| error.to_string());
                self.lost.token.cancel();
            }
            StreamableHttpError::Client(error)
        })
    }
}

fn content_type(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

fn is_mime(content_type: Option<&str>, mime: &str) -> bool {
    content_type.is_some_and(|ct| ct.starts_with(mime))
}

/// 401, or 403 with a challenge: the server wants credentials we do not have (OAuth).
fn auth_required(
    response: &reqwest::Response,
    uri: &str,
) -> Option<StreamableHttpError<HttpError>> {
    let status = response.status();
    let challenged = response.headers().contains_key(WWW_AUTHENTICATE);
    (status == StatusCode::UNAUTHORIZED || (status == StatusCode::FORBIDDEN && challenged)).then(
        || {
            StreamableHttpError::Client(HttpError::AuthRequired {
                url: uri.to_string(),
                status: status.as_u16(),
            })
        },
    )
}

/// Status and Retry-After of a 429 or 5xx, which the SDK may retry.
fn retryable_status(response: &reqwest::Response) -> Option<HttpStatusError> {
    let status = response.status();
    if status != StatusCode::TOO_MANY_REQUESTS && !status.is_server_error() {
        return None;
    }
    let retry_after = response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    Some(HttpStatusError::new(status.as_u16(), retry_after))
}

async fn status_error(response: reqwest::Response, uri: &str) -> StreamableHttpError<HttpError> {
    let status = response.status();
    let body = read_prefix(response, ERROR_BODY_BYTES).await;
    status_message(uri, status, &body)
}

fn status_message(uri: &str, status: StatusCode, body: &[u8]) -> StreamableHttpError<HttpError> {
    StreamableHttpError::Client(HttpError::Status {
        url: uri.to_string(),
        status: status.as_u16(),
        body: preview(&String::from_utf8_lossy(body)),
    })
}

/// A response event stream for `message` whose size-limit failure becomes a JSON-RPC error answer
/// to that request: the SDK would only report "stream closed before its final response".
fn answer_overflow(events: SseEvents, message: &ClientJsonRpcMessage) -> SseEvents {
    let ClientJsonRpcMessage::Request(request) = message else {
        return events;
    };
    let id = request.id.clone();
    events
        .map(move |event| match event {
            Err(error) => match too_large(&error) {
                Some(reason) => {
                    let answer = ServerJsonRpcMessage::error(
                        ErrorData::internal_error(reason.to_string(), None),
                        Some(id.clone()),
                    );
                    Ok(Sse::default().data(serde_json::to_string(&answer).unwrap_or_default()))
                }
                None => Err(error),
            },
            event => event,
        })
        .boxed()
}

impl StreamableHttpClient for HttpClient {
    type Error = HttpError;

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<SseEvents> {
        let limit = self.max_message_bytes;
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_token,
            headers,
            limit,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<SseEvents> {
        let mut request = self.http.get(uri.as_ref()).header(ACCEPT, ACCEPT_BOTH);
        let uri = self.shown_url.clone();
        if let Some(session_id) = session_id {
            request = request.header(HEADER_SESSION_ID, session_id.as_ref());
        }
        if let Some(last_event_id) = last_event_id {
            request = request.header(HEADER_LAST_EVENT_ID, last_event_id);
        }
        let response = self.send(request, &uri, auth_token, headers).await?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if let Some(error) = auth_required(&response, &uri) {
            return Err(error);
        }
        if let Some(error) = retryable_status(&response) {
            return Err(error.into());
        }
        if !response.status().is_success() {
            return Err(status_error(response, &uri).await);
        }
        let content_type = content_type(&response);
        let ct = content_type.as_deref();
        if !is_mime(ct, EVENT_STREAM_MIME_TYPE) && !is_mime(ct, JSON_MIME_TYPE) {
            return Err(StreamableHttpError::UnexpectedContentType(
                content_type.as_deref().map(preview),
            ));
        }
        Ok(bounded_sse(
            response.bytes_stream(),
            max_sse_event_size,
            &uri,
        ))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_token: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<()> {
        let request = self
            .http
            .delete(uri.as_ref())
            .header(HEADER_SESSION_ID, session_id.as_ref());
        let uri = self.shown_url.clone();
        let response = self.send(request, &uri, auth_token, headers).await?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED || response.status().is_success() {
            return Ok(());
        }
        Err(status_error(response, &uri).await)
    }

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse> {
        let limit = self.max_message_bytes;
        self.post_message_with_max_sse_event_size(
            uri, message, session_id, auth_token, headers, limit,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse> {
        let mut request = self
            .http
            .post(uri.as_ref())
            .header(ACCEPT, ACCEPT_BOTH)
            .json(&message);
        let uri = self.shown_url.clone();
        let session_was_attached = session_id.is_some();
        if let Some(session_id) = session_id {
            request = request.header(HEADER_SESSION_ID, session_id.as_ref());
        }
        let response = self.send(request, &uri, auth_token, headers).await?;
        if let Some(error) = auth_required(&response, &uri) {
            return Err(error);
        }
        let status = response.status();
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && session_was_attached {
            return Err(StreamableHttpError::SessionExpired);
        }
        let content_type = content_type(&response);
        let is_json = is_mime(content_type.as_deref(), JSON_MIME_TYPE);
        let is_request = matches!(message, ClientJsonRpcMessage::Request(_));
        let new_session_id = response
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        // A JSON 5xx may carry a JSON-RPC error worth showing; other 429s and 5xxs go back as such.
        let retryable = match retryable_status(&response) {
            Some(error) if !(is_json && status.is_server_error()) => return Err(error.into()),
            other => other,
        };
        if status.is_success() && response.content_length() == Some(0) && !is_request {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if !status.is_success() {
            if is_json {
                let body = read_prefix(response, ERROR_BODY_BYTES).await;
                if let Ok(error @ ServerJsonRpcMessage::Error(_)) = serde_json::from_slice(&body) {
                    return Ok(StreamableHttpPostResponse::Json(error, new_session_id));
                }
                return Err(match retryable {
                    Some(error) => error.into(),
                    None => status_message(&uri, status, &body),
                });
            }
            return Err(status_error(response, &uri).await);
        }
        if is_mime(content_type.as_deref(), EVENT_STREAM_MIME_TYPE) {
            let events = bounded_sse(response.bytes_stream(), max_sse_event_size, &uri);
            return Ok(StreamableHttpPostResponse::Sse(
                answer_overflow(events, &message),
                new_session_id,
            ));
        }
        if !is_json {
            return Err(StreamableHttpError::UnexpectedContentType(
                content_type.as_deref().map(preview),
            ));
        }
        let body = read_capped(response, self.max_message_bytes, &uri)
            .await
            .map_err(StreamableHttpError::Client)?;
        match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
            Ok(reply) => Ok(StreamableHttpPostResponse::Json(reply, new_session_id)),
            // Nothing waits for a reply to a notification or response: an unusable body is harmless.
            Err(_) if !is_request => Ok(StreamableHttpPostResponse::Accepted),
            Err(e) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!(
                    "{uri} answered with JSON that is not a JSON-RPC message ({e}): {}",
                    preview(&String::from_utf8_lossy(&body))
                ),
            ))),
        }
    }
}
