//! The built-in `llm` component: the provider kinds `openai` (Chat Completions), `anthropic`
//! (Messages) and `responses` (OpenAI Responses).
//!
//! The kernel resolves the configuration (endpoint, model, the user's effort level, options)
//! and adds the credential itself; it knows nothing about particular backends. This component
//! holds that knowledge ([`backend`]: the reasoning protocol of an endpoint, effort tables and
//! clamps, thinking, default stall timeouts), reports it through `profile`, and does the wire
//! mechanics: it turns the request into the kind's HTTP request ([`wire::Protocol`]), sends it,
//! maps a failed response head to the error cases of `docs/PROVIDERS.md`, and decodes the
//! server-sent events into stream events ([`wire::Decoder`]). The transport is behind
//! [`Transport`] so all of this is unit-tested natively with canned responses.

pub mod anthropic;
pub mod backend;
pub mod openai;
pub mod responses;
mod stream;
pub mod whole;
pub mod wire;

#[cfg(test)]
mod tests;

use backend::{ReasoningConfig, THINKING_MODES, Target};
use reasonix_sdk::http::HttpError;
use reasonix_sdk::provider::{ModelProfile, ProfileRequest};
use reasonix_sdk::{
    CompletionRequest, CompletionStream, Error, Plugin, PluginInfo, ProviderKind, RateLimit,
    plugin_info, provider_kind,
};
use serde_json::{Map, Value};
use std::time::{Duration, SystemTime};
use wire::{Image, Message, Options, Protocol, ReasoningProtocol, Request, Role, Tool, ToolCall};

pub use stream::LlmStream;

/// Most of an error body that is read and reported.
const ERROR_BODY_LIMIT: usize = 4096;

/// The `llm` plugin.
pub struct Llm;

impl Plugin for Llm {
    fn info() -> PluginInfo {
        let mut info = plugin_info(
            "llm",
            env!("CARGO_PKG_VERSION"),
            "Built-in provider kinds: openai, anthropic, responses",
        );
        // The kernel narrows each request to the provider instance's own origin.
        info.capabilities.network = vec!["*".to_string()];
        info
    }

    fn provider_kinds() -> Vec<ProviderKind> {
        vec![
            provider_kind(
                "openai",
                "OpenAI Chat Completions (/chat/completions) and compatible endpoints",
                "authorization",
                "Bearer ",
            ),
            provider_kind(
                "anthropic",
                "Anthropic Messages (/v1/messages) and compatible endpoints",
                "x-api-key",
                "",
            ),
            provider_kind(
                "responses",
                "OpenAI Responses (/responses) and compatible endpoints",
                "authorization",
                "Bearer ",
            ),
        ]
    }

    fn profile(request: ProfileRequest) -> Result<ModelProfile, Error> {
        profile(&request)
    }

    fn open(request: CompletionRequest) -> Result<Box<dyn CompletionStream>, Error> {
        open_with(request, &HostTransport)
    }
}

/// `profile`: the reasoning protocol, effort levels and default stall timeout of one model;
/// `invalid-input` for an effort level or option the backend does not accept.
pub fn profile(request: &ProfileRequest) -> Result<ModelProfile, Error> {
    let provider = &request.provider;
    protocol(&request.kind).ok_or_else(|| unsupported_kind(provider, &request.kind))?;
    let target = Target {
        kind: &request.kind,
        base_url: request.base_url.trim_end_matches('/'),
        model: &request.model,
    };
    let refused = |why: String| {
        Error::InvalidInput(format!(
            "provider `{provider}` (model {}): {why}",
            request.model
        ))
    };
    let (_, reasoning) = parse_options(&request.options).map_err(refused)?;
    let protocol = backend::protocol(target, &reasoning);
    backend::map_effort(target, protocol, request.effort.as_deref(), &reasoning)
        .map_err(refused)?;
    Ok(ModelProfile {
        reasoning_protocol: protocol.name().to_string(),
        effort_levels: backend::effort_levels(target, protocol, &reasoning),
        stall_timeout_ms: backend::stall_timeout_ms(&request.kind),
        images: backend::reads_images(&request.model),
    })
}

fn unsupported_kind(provider: &str, kind: &str) -> Error {
    Error::Unsupported(format!(
        "{provider}: the llm plugin serves the kinds openai, anthropic and responses, not `{kind}`"
    ))
}

reasonix_sdk::export!(Llm);

/// The wire protocol of a kind.
fn protocol(kind: &str) -> Option<&'static dyn Protocol> {
    match kind {
        "openai" => Some(&openai::OpenAi),
        "anthropic" => Some(&anthropic::Anthropic),
        "responses" => Some(&responses::Responses),
        _ => None,
    }
}

/// A response whose head has arrived.
pub trait Response {
    fn status(&self) -> u16;
    /// The first value of a header (case-insensitive).
    fn header(&self, name: &str) -> Option<String>;
    /// The next piece of the body; `None` at the end.
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError>;
    /// Bytes that have already arrived, without waiting; `None` when nothing is ready.
    fn read_ready(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        Ok(None)
    }
    /// The stream is complete: read what is left of the body for a moment, so the host can
    /// reuse the connection.
    fn finish(&mut self) {}
}

/// Sends a request and waits for the response head.
pub trait Transport {
    fn post(&self, request: &wire::HttpRequest) -> Result<Box<dyn Response>, HttpError>;
}

/// `wasi:http` through the host (only in the component).
struct HostTransport;

#[cfg(target_arch = "wasm32")]
impl Transport for HostTransport {
    fn post(&self, request: &wire::HttpRequest) -> Result<Box<dyn Response>, HttpError> {
        // Timeouts are the host's: it applies the provider's stall timeout to the head and
        // to every body read.
        let response = reasonix_sdk::http::post_streaming(
            &request.url,
            &request.headers,
            &request.body,
            &reasonix_sdk::http::Timeouts::default(),
        )?;
        Ok(Box::new(response))
    }
}

#[cfg(target_arch = "wasm32")]
impl Response for reasonix_sdk::http::StreamingResponse {
    fn status(&self) -> u16 {
        reasonix_sdk::http::StreamingResponse::status(self)
    }
    fn header(&self, name: &str) -> Option<String> {
        reasonix_sdk::http::StreamingResponse::header(self, name).map(str::to_string)
    }
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        reasonix_sdk::http::StreamingResponse::read_chunk(self)
    }
    fn read_ready(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        reasonix_sdk::http::StreamingResponse::read_ready(self)
    }
    fn finish(&mut self) {
        reasonix_sdk::http::StreamingResponse::finish_within(
            self,
            std::time::Duration::from_millis(FINISH_WAIT_MS),
        );
    }
}

/// How long a completed stream waits for the end of its body (the connection is reused only
/// when the end is read).
#[cfg(target_arch = "wasm32")]
const FINISH_WAIT_MS: u64 = 100;

#[cfg(not(target_arch = "wasm32"))]
impl Transport for HostTransport {
    fn post(&self, _request: &wire::HttpRequest) -> Result<Box<dyn Response>, HttpError> {
        Err(HttpError::Transport(
            "HTTP is only available inside the wasm component".into(),
        ))
    }
}

/// `open`, with the transport given.
pub fn open_with(
    request: CompletionRequest,
    transport: &dyn Transport,
) -> Result<Box<dyn CompletionStream>, Error> {
    let provider = request.provider.clone();
    let protocol =
        protocol(&request.kind).ok_or_else(|| unsupported_kind(&provider, &request.kind))?;
    let request = convert_request(request)?;
    let mut http = protocol
        .build(&request)
        .map_err(|why| Error::InvalidInput(format!("{provider}: {why}")))?;
    http.headers = with_standard_headers(http.headers);
    let mut response = transport
        .post(&http)
        .map_err(|e| head_error(&provider, &http.url, e))?;
    let status = response.status();
    if !(200..300).contains(&status) {
        return Err(status_error(
            &provider,
            response.as_mut(),
            SystemTime::now(),
        ));
    }
    let response = match whole::classify(response.header("content-type").as_deref()) {
        whole::Body::Stream => response,
        whole::Body::Html => return Err(html_error(&provider, response.as_mut())),
        whole::Body::Json => whole_completion(&provider, protocol, status, response.as_mut())?,
    };
    Ok(Box::new(LlmStream::new(
        provider,
        response,
        protocol.decoder(&request),
    )))
}

/// A 2xx `text/html` answer: a proxy's or captive portal's page, never a model; not retried.
fn html_error(provider: &str, response: &mut dyn Response) -> Error {
    let content_type = response
        .header("content-type")
        .map(|t| whole::media_type(&t))
        .unwrap_or_default();
    let first = whole::read_body(response, whole::HTML_PEEK, true).unwrap_or_default();
    Error::Other(reasonix_sdk::ErrorDetail {
        code: "bad-response".into(),
        message: format!(
            "{provider}: the endpoint answered with an HTML page ({content_type}), not a model stream — a proxy or captive portal? first bytes: {}",
            whole::excerpt(&first, 200)
        ),
        retryable: false,
        detail: None,
    })
}

/// A 2xx JSON answer: read whole; a completion (or error object) of this protocol becomes the
/// stream it would have been; a body that is SSE after all is read as such; anything else is
/// `bad-response`. Never retried: a completion is the answer (it was billed).
fn whole_completion(
    provider: &str,
    protocol: &dyn Protocol,
    status: u16,
    response: &mut dyn Response,
) -> Result<Box<dyn Response>, Error> {
    let bad = |why: String| {
        Error::Other(reasonix_sdk::ErrorDetail {
            code: "bad-response".into(),
            message: format!("{provider}: {why}"),
            retryable: false,
            detail: None,
        })
    };
    let body = match whole::read_body(response, whole::JSON_BODY_LIMIT, false) {
        Ok(body) => body,
        Err(whole::ReadFailure::TooLong) => {
            return Err(bad(format!(
                "the endpoint answered with a JSON body (not a stream) larger than {} MiB",
                whole::JSON_BODY_LIMIT / (1024 * 1024)
            )));
        }
        Err(whole::ReadFailure::Http(e)) => {
            return Err(Error::Other(reasonix_sdk::ErrorDetail {
                code: "stream-interrupted".into(),
                message: format!(
                    "{provider}: the connection was cut while reading a non-streamed JSON answer ({e}); the request can be repeated"
                ),
                retryable: true,
                detail: None,
            }));
        }
    };
    let first = body.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if first != Some(b'{') {
        // Labelled JSON but not an object: an event stream with the wrong content type.
        return Ok(Box::new(whole::Buffered {
            status,
            body: Some(body),
        }));
    }
    let value: Value = serde_json::from_slice(&body).map_err(|e| {
        bad(format!(
            "the endpoint answered with application/json that is not JSON ({e}): {}",
            whole::excerpt(&body, 200)
        ))
    })?;
    let sse = protocol.whole(&value).ok_or_else(|| {
        bad(format!(
            "the endpoint answered with a JSON object that is neither a stream nor a completion of this provider kind: {}",
            whole::excerpt(&body, 200)
        ))
    })?;
    Ok(Box::new(whole::Buffered {
        status,
        body: Some(sse),
    }))
}

/// `content-type` and `accept` unless the protocol or the config set them.
fn with_standard_headers(headers: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(headers.len() + 2);
    for (name, value) in [
        ("content-type", "application/json"),
        ("accept", "text/event-stream"),
    ] {
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            out.push((name.to_string(), value.to_string()));
        }
    }
    out.extend(headers);
    out
}

/// A failure before the response head.
fn head_error(provider: &str, url: &str, error: HttpError) -> Error {
    match error {
        HttpError::Denied(why) => Error::Denied(format!(
            "{provider}: POST {url} was refused: {why}; a provider may reach only its own base_url / request_url"
        )),
        HttpError::InvalidRequest(why) => Error::InvalidInput(format!(
            "{provider}: {why}; check base_url / request_url in the [[providers]] entry"
        )),
        HttpError::Cancelled => Error::Cancelled,
        // Nothing listens there (or the name does not resolve): the kernel tries once more
        // after a short pause, not the whole retry schedule.
        HttpError::Unreachable(why) => Error::Other(reasonix_sdk::ErrorDetail {
            code: "unreachable".into(),
            message: format!("{provider}: POST {url}: {why}"),
            retryable: false,
            detail: None,
        }),
        HttpError::Timeout(why) | HttpError::Transport(why) => {
            Error::Other(reasonix_sdk::ErrorDetail {
                code: "transport".into(),
                message: format!(
                    "{provider}: POST {url} failed before the response arrived: {why}"
                ),
                retryable: true,
                detail: None,
            })
        }
    }
}

/// The error for a non-2xx response head (docs/PROVIDERS.md, "Errors").
fn status_error(provider: &str, response: &mut dyn Response, now: SystemTime) -> Error {
    let status = response.status();
    let retry_after = response
        .header("retry-after")
        .and_then(|value| retry_after_ms(&value, now));
    let body = read_error_body(response);
    match status {
        401 | 403 => Error::Auth(format!("{provider}: HTTP {status}: {}", body.trim())),
        429 => Error::RateLimited(RateLimit {
            retry_after_ms: retry_after,
            message: format!("{provider}: HTTP 429: {}", body.trim()),
        }),
        // A 503 that says when to come back is honoured like a 429's (docs/PROVIDERS.md).
        503 if retry_after.is_some() => Error::RateLimited(RateLimit {
            retry_after_ms: retry_after,
            message: format!("{provider}: HTTP 503: {}", body.trim()),
        }),
        _ => Error::Http(reasonix_sdk::HttpFailure { status, body }),
    }
}

/// At most [`ERROR_BODY_LIMIT`] bytes of the body, as text (cut at a character boundary).
fn read_error_body(response: &mut dyn Response) -> String {
    let mut data = Vec::new();
    while data.len() < ERROR_BODY_LIMIT {
        match response.read_chunk() {
            Ok(Some(bytes)) => data.extend_from_slice(&bytes),
            Ok(None) | Err(_) => break,
        }
    }
    data.truncate(ERROR_BODY_LIMIT);
    let mut text = String::from_utf8_lossy(&data).into_owned();
    // A multi-byte character cut at the limit decodes to one U+FFFD at the end; drop it.
    if data.len() == ERROR_BODY_LIMIT && text.ends_with('\u{fffd}') {
        text.pop();
    }
    text
}

/// `Retry-After` in milliseconds: delay seconds (fractions allowed) or an HTTP date.
pub fn retry_after_ms(value: &str, now: SystemTime) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let wait = at.duration_since(now).unwrap_or(Duration::ZERO);
    Some(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX))
}

/// The WIT request as the protocols' [`Request`], reasoning resolved for the backend
/// ([`backend`]); bad options and unknown effort levels are `invalid-input`.
fn convert_request(request: CompletionRequest) -> Result<Request, Error> {
    let provider = request.provider;
    let refused = |why: String| {
        Error::InvalidInput(format!(
            "provider `{provider}` (model {}): {why}",
            request.model
        ))
    };
    let (mut options, reasoning) = parse_options(&request.options).map_err(refused)?;
    let base_url = request.base_url.trim_end_matches('/').to_string();
    let target = Target {
        kind: &request.kind,
        base_url: &base_url,
        model: &request.model,
    };
    let reasoning_protocol = backend::protocol(target, &reasoning);
    let mapping = backend::map_effort(
        target,
        reasoning_protocol,
        request.effort.as_deref(),
        &reasoning,
    )
    .map_err(refused)?;
    options.reasoning_protocol = reasoning_protocol;
    options.thinking = mapping.thinking;
    if backend::refuses_temperature(reasoning_protocol) {
        options.temperature = None;
    }
    let messages = request
        .messages
        .into_iter()
        .map(|m| Message {
            role: match m.role {
                reasonix_sdk::Role::System => Role::System,
                reasonix_sdk::Role::User => Role::User,
                reasonix_sdk::Role::Assistant => Role::Assistant,
                reasonix_sdk::Role::Tool => Role::Tool,
            },
            content: m.content,
            reasoning: m.reasoning,
            reasoning_state: m.reasoning_state,
            tool_calls: m
                .tool_calls
                .into_iter()
                .map(|c| ToolCall {
                    id: c.id,
                    name: c.name,
                    arguments: c.arguments,
                })
                .collect(),
            tool_call_id: m.tool_call_id,
            images: m
                .images
                .into_iter()
                .map(|i| Image {
                    media_type: i.media_type,
                    data: i.data,
                })
                .collect(),
        })
        .collect();
    let tools = request
        .tools
        .into_iter()
        .map(|t| Tool {
            name: t.name,
            description: t.description,
            parameters: t.parameters,
        })
        .collect();
    Ok(Request {
        provider,
        base_url,
        model: request.model,
        messages,
        tools,
        effort: mapping.effort,
        max_output_tokens: request.max_output_tokens,
        options,
    })
}

/// The `options` JSON (docs/PROVIDERS.md): the wire options (reasoning protocol and thinking not
/// yet resolved) and what it configures about reasoning. The error names the key and what it
/// must be.
pub fn parse_options(text: &str) -> Result<(Options, ReasoningConfig), String> {
    let mut options = Options::default();
    let mut reasoning = ReasoningConfig::default();
    if text.trim().is_empty() {
        return Ok((options, reasoning));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("options is not valid JSON ({e})"))?;
    let Value::Object(map) = value else {
        return Err("options must be a JSON object".into());
    };
    let string = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("options.{key} must be a string, not {other}")),
        }
    };
    options.request_url = match string("request_url")? {
        Some(url) => Some(url),
        None => string("chat_url")?, // the legacy name
    };
    reasoning.protocol = match string("reasoning_protocol")?.map(|p| p.trim().to_ascii_lowercase())
    {
        None => None,
        Some(p) if p.is_empty() || p == "auto" => None,
        Some(p) => Some(ReasoningProtocol::from_name(&p).ok_or_else(|| {
            format!(
                "reasoning_protocol = \"{p}\" (options.reasoning_protocol) is not a reasoning protocol; use auto (detect from base_url) or one of: {}",
                ReasoningProtocol::ALL.map(ReasoningProtocol::name).join(", ")
            )
        })?),
    };
    reasoning.thinking = match string("thinking")?.map(|t| t.trim().to_ascii_lowercase()) {
        None => None,
        Some(t) if THINKING_MODES.contains(&t.as_str()) => Some(t),
        Some(t) => {
            return Err(format!(
                "thinking = \"{t}\" (options.thinking) is not valid; use one of: {}",
                THINKING_MODES.join(", ")
            ));
        }
    };
    reasoning.supported_efforts = match map.get("supported_efforts") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!(
                    "options.supported_efforts must list strings, not {other}"
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "options.supported_efforts must be a list of strings, not {other}"
            ));
        }
    };
    reasoning.default_effort = string("default_effort")?;
    options.temperature = match map.get("temperature") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => return Err(format!("options.temperature must be a number, not {other}")),
    };
    match map.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Object(headers)) => {
            for (name, value) in headers {
                let Value::String(value) = value else {
                    return Err(format!(
                        "options.headers.{name} must be a string, not {value}"
                    ));
                };
                options.headers.push((name.clone(), value.clone()));
            }
        }
        Some(other) => return Err(format!("options.headers must be an object, not {other}")),
    }
    options.extra_body = match map.get("extra_body") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(extra)) => extra.clone(),
        Some(other) => {
            return Err(format!("options.extra_body must be an object, not {other}"));
        }
    };
    options.strip_chain_of_thought = match map.get("strip_chain_of_thought") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "options.strip_chain_of_thought must be true or false, not {other}"
            ));
        }
    };
    options.vision_detail = match string("vision_detail")?.map(|d| d.trim().to_ascii_lowercase()) {
        None => None,
        Some(d) if VISION_DETAILS.contains(&d.as_str()) => Some(d),
        Some(d) => {
            return Err(format!(
                "vision_detail = \"{d}\" (options.vision_detail) is not valid; use one of: {}",
                VISION_DETAILS.join(", ")
            ));
        }
    };
    Ok((options, reasoning))
}

/// Values of `vision_detail` (OpenAI's image `detail`).
const VISION_DETAILS: &[&str] = &["auto", "low", "high"];
