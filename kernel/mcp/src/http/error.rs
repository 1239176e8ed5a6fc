//! Errors of the remote transports. Each names the server URL; text that came from the server is
//! cut short and escaped ([`preview`]) before it is put in a message.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("MCP server URL `{url}` is not usable: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("header `{name}` configured for MCP server {url} is refused: {reason}")]
    InvalidHeader {
        url: String,
        name: String,
        reason: String,
    },
    #[error("cannot set up the HTTP client for MCP server {url}: {reason}")]
    Client { url: String, reason: String },
    /// Nothing answers at the URL (refused, unresolvable, TLS failure): the server is gone.
    #[error("cannot connect to MCP server {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("request to MCP server {url} failed: {reason}")]
    Request { url: String, reason: String },
    #[error("MCP server {url} sent {what} larger than the limit of {limit} bytes; refused")]
    TooLarge {
        url: String,
        what: &'static str,
        limit: usize,
    },
    #[error("MCP server {url} answered HTTP {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error(
        "MCP server {url} requires authorization (HTTP {status}). OAuth is not supported yet: \
         give the server a bearer token with a header `Authorization: Bearer <token>` in its config"
    )]
    AuthRequired { url: String, status: u16 },
    #[error("MCP server {url} answered with content type {content_type}, expected {expected}")]
    ContentType {
        url: String,
        content_type: String,
        expected: &'static str,
    },
    #[error("MCP server {url} sent no `endpoint` event within {}s", .timeout.as_secs_f32())]
    EndpointTimeout { url: String, timeout: Duration },
    #[error("MCP server {url} closed its event stream before sending the `endpoint` event")]
    NoEndpoint { url: String },
    #[error("MCP server {url} sent an unusable POST endpoint {endpoint}: {reason}")]
    BadEndpoint {
        url: String,
        endpoint: String,
        reason: String,
    },
    #[error(
        "MCP server {url} named a POST endpoint on another origin ({endpoint}); refused, \
         the session's messages and headers would go to a different server"
    )]
    CrossOrigin { url: String, endpoint: String },
    #[error("the connection to MCP server {url} is closed")]
    Closed { url: String },
}

impl HttpError {
    pub(crate) fn request(url: &str, error: &reqwest::Error) -> Self {
        // reqwest's own text repeats the URL and the layers between say little: the kind and the
        // root cause ("Connection refused", a TLS alert) say what went wrong.
        let mut root: &dyn std::error::Error = error;
        while let Some(cause) = root.source() {
            root = cause;
        }
        let url = url.to_string();
        let cause = if std::ptr::addr_eq(root, error) {
            None
        } else {
            Some(root.to_string())
        };
        if error.is_connect() {
            let reason = cause.unwrap_or_else(|| "connection failed".to_string());
            return HttpError::Unreachable { url, reason };
        }
        let kind = if error.is_timeout() {
            "timed out"
        } else if error.is_body() || error.is_decode() {
            "reading the response failed"
        } else {
            "HTTP error"
        };
        let reason = match cause {
            Some(cause) => format!("{kind}: {cause}"),
            None => kind.to_string(),
        };
        HttpError::Request { url, reason }
    }
}

/// The URL as messages show it: a password or a query string (where API keys often travel) is
/// replaced by `***`.
pub(crate) fn shown_url(url: &reqwest::Url) -> String {
    let mut shown = url.clone();
    if shown.password().is_some() {
        let _ = shown.set_password(Some("***"));
    }
    if shown.query().is_some() {
        shown.set_query(Some("***"));
    }
    shown.to_string()
}

/// Server-controlled text as it may appear in a message: at most 200 characters, escaped.
pub(crate) fn preview(text: &str) -> String {
    const MAX_CHARS: usize = 200;
    let mut shown: String = text
        .chars()
        .take(MAX_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().nth(MAX_CHARS).is_some() {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn preview_escapes_control_characters_and_cuts_long_text() {
        assert_eq!(preview("a\u{1b}[31mb\n"), "a\\u{1b}[31mb\\n");
        let long = "x".repeat(1000);
        assert_eq!(preview(&long).chars().count(), 201);
    }

    #[test]
    fn shown_urls_hide_passwords_and_query_strings() {
        let url = reqwest::Url::parse("https://me:pw@mcp.example/sse?key=secret").unwrap();
        assert_eq!(shown_url(&url), "https://me:***@mcp.example/sse?***");
        let plain = reqwest::Url::parse("http://127.0.0.1:3001/mcp").unwrap();
        assert_eq!(shown_url(&plain), "http://127.0.0.1:3001/mcp");
    }
}
