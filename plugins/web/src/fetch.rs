//! HTTP GET through the host's `wasi:http`, with one deadline for the whole call (redirects
//! included) and a cap on how much of the body is read.

use crate::render::Page;
use crate::url::{Scheme, Url};
use crate::{MAX_BODY_BYTES, MAX_REDIRECTS, TIMEOUT_SECS};
use reasonix_sdk::{Error, other_error};
use wasip2::clocks::monotonic_clock;
use wasip2::http::outgoing_handler;
use wasip2::http::types::{
    ErrorCode, Fields, IncomingResponse, Method, OutgoingRequest, RequestOptions,
    Scheme as WasiScheme,
};
use wasip2::io::poll::{Pollable, poll};
use wasip2::io::streams::StreamError;

const NANOS_PER_SEC: u64 = 1_000_000_000;
const USER_AGENT: &str = concat!("reasonix-web/", env!("CARGO_PKG_VERSION"));

/// Fetch `url`, following redirects, within [`TIMEOUT_SECS`].
pub fn get(url: &Url) -> Result<Page, Error> {
    let deadline = monotonic_clock::now().saturating_add(TIMEOUT_SECS * NANOS_PER_SEC);
    let mut current = url.clone();
    for _ in 0..=MAX_REDIRECTS {
        let response = send(&current, deadline).map_err(|e| describe(e, url, &current))?;
        let status = response.status();
        let headers = response.headers();
        let header = |name: &str| {
            headers
                .get(name)
                .first()
                .map(|v| String::from_utf8_lossy(v).trim().to_string())
        };
        if matches!(status, 301 | 302 | 303 | 307 | 308)
            && let Some(location) = header("location")
        {
            let next = current.join(&location).map_err(|why| {
                Error::InvalidInput(format!(
                    "{current} redirected to `{location}`, which cannot be followed: {why}"
                ))
            })?;
            drop(headers);
            drop(response);
            current = next;
            continue;
        }
        let content_type = header("content-type");
        drop(headers);
        let (body, truncated) =
            read_body(&response, deadline).map_err(|e| describe(e, url, &current))?;
        return Ok(Page {
            status,
            content_type,
            body,
            truncated,
            final_url: (current != *url).then(|| current.to_string()),
        });
    }
    Err(other_error(
        "too-many-redirects",
        format!("{url}: more than {MAX_REDIRECTS} redirects; the last went to {current}"),
    ))
}

/// Why a request failed, before it is put into words.
enum Failure {
    Http(ErrorCode),
    Deadline,
    Protocol(String),
}

fn send(url: &Url, deadline: u64) -> Result<IncomingResponse, Failure> {
    let headers = Fields::new();
    let _ = headers.append("user-agent", USER_AGENT.as_bytes());
    let _ = headers.append(
        "accept",
        b"text/html, application/xhtml+xml, application/json, text/plain;q=0.9, */*;q=0.8",
    );
    let request = OutgoingRequest::new(headers);
    let invalid = |what: &str| Failure::Protocol(format!("the host refused the {what}"));
    request
        .set_method(&Method::Get)
        .map_err(|()| invalid("method"))?;
    let scheme = match url.scheme {
        Scheme::Http => WasiScheme::Http,
        Scheme::Https => WasiScheme::Https,
    };
    request
        .set_scheme(Some(&scheme))
        .map_err(|()| invalid("scheme"))?;
    request
        .set_authority(Some(&url.authority))
        .map_err(|()| invalid("host"))?;
    request
        .set_path_with_query(Some(&url.path_with_query))
        .map_err(|()| invalid("path"))?;
    let options = RequestOptions::new();
    let left = remaining(deadline).ok_or(Failure::Deadline)?;
    let _ = options.set_connect_timeout(Some(left));
    let _ = options.set_first_byte_timeout(Some(left));
    let _ = options.set_between_bytes_timeout(Some(left));
    let pending = outgoing_handler::handle(request, Some(options)).map_err(Failure::Http)?;
    if !wait(&pending.subscribe(), deadline) {
        return Err(Failure::Deadline);
    }
    match pending.get() {
        Some(Ok(Ok(response))) => Ok(response),
        Some(Ok(Err(code))) => Err(Failure::Http(code)),
        Some(Err(())) | None => Err(Failure::Protocol("the response was lost".into())),
    }
}

/// Read at most [`MAX_BODY_BYTES`]; the flag says whether more was left.
fn read_body(response: &IncomingResponse, deadline: u64) -> Result<(Vec<u8>, bool), Failure> {
    let body = response
        .consume()
        .map_err(|()| Failure::Protocol("the response body was already taken".into()))?;
    let stream = body
        .stream()
        .map_err(|()| Failure::Protocol("the response body stream was already taken".into()))?;
    let mut data = Vec::new();
    let result = loop {
        let want = (MAX_BODY_BYTES + 1)
            .saturating_sub(data.len())
            .min(64 * 1024);
        if want == 0 {
            break Ok(());
        }
        match stream.read(want as u64) {
            Ok(chunk) if chunk.is_empty() => {
                if !wait(&stream.subscribe(), deadline) {
                    break Err(Failure::Deadline);
                }
            }
            Ok(chunk) => data.extend_from_slice(&chunk),
            Err(StreamError::Closed) => break Ok(()),
            Err(StreamError::LastOperationFailed(e)) => {
                let code = wasip2::http::types::http_error_code(&e);
                break Err(match code {
                    Some(code) => Failure::Http(code),
                    None => Failure::Protocol(e.to_debug_string()),
                });
            }
        }
    };
    // The stream is a child of the body: it must go first.
    drop(stream);
    drop(body);
    result?;
    let truncated = data.len() > MAX_BODY_BYTES;
    data.truncate(MAX_BODY_BYTES);
    Ok((data, truncated))
}

/// Nanoseconds left before `deadline`, if any.
fn remaining(deadline: u64) -> Option<u64> {
    deadline
        .checked_sub(monotonic_clock::now())
        .filter(|left| *left > 0)
}

/// Block until `ready` fires (true) or the deadline passes (false).
fn wait(ready: &Pollable, deadline: u64) -> bool {
    if ready.ready() {
        return true;
    }
    let timer = monotonic_clock::subscribe_instant(deadline);
    poll(&[ready, &timer]).contains(&0)
}

/// The failure in words, naming the URL; refusals by the host's network policy are `denied`.
fn describe(failure: Failure, requested: &Url, current: &Url) -> Error {
    let at = if requested == current {
        requested.to_string()
    } else {
        format!("{requested} (redirected to {current})")
    };
    let code = match failure {
        Failure::Deadline => {
            return Error::Timeout(format!(
                "{at}: no complete answer within {TIMEOUT_SECS} s; the server may be down or slow"
            ));
        }
        Failure::Protocol(message) => return other_error("http", format!("{at}: {message}")),
        Failure::Http(code) => code,
    };
    let network = |message: String, retryable: bool| {
        let mut error = other_error("network", message);
        if let Error::Other(detail) = &mut error {
            detail.retryable = retryable;
        }
        error
    };
    match code {
        ErrorCode::HttpRequestDenied => Error::Denied(format!(
            "{at}: this plugin's network grant does not cover that host; web_fetch can reach only the hosts it was granted"
        )),
        ErrorCode::DestinationIpProhibited => Error::Denied(format!(
            "{at}: the address is on this machine or a private network, which web_fetch may not reach without the user's approval of this URL, or it is a link-local, cloud-metadata or other special address, which no plugin may reach"
        )),
        ErrorCode::DnsTimeout
        | ErrorCode::ConnectionTimeout
        | ErrorCode::ConnectionReadTimeout
        | ErrorCode::ConnectionWriteTimeout
        | ErrorCode::HttpResponseTimeout => Error::Timeout(format!(
            "{at}: no complete answer within {TIMEOUT_SECS} s; the server may be down or slow"
        )),
        ErrorCode::DnsError(_) | ErrorCode::DestinationNotFound => network(
            format!("{at}: the host name could not be resolved; check the URL"),
            false,
        ),
        ErrorCode::ConnectionRefused | ErrorCode::DestinationUnavailable => network(
            format!("{at}: the connection was refused; is the server running?"),
            true,
        ),
        ErrorCode::TlsProtocolError
        | ErrorCode::TlsCertificateError
        | ErrorCode::TlsAlertReceived(_) => network(
            format!(
                "{at}: the TLS handshake failed ({code:?}); the certificate may be invalid or self-signed"
            ),
            false,
        ),
        other => network(format!("{at}: the request failed: {other:?}"), true),
    }
}
