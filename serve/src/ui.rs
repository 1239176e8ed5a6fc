//! The web UI: a page, a script and a style sheet compiled into the binary (`serve/ui/`), no
//! build step and nothing fetched from elsewhere. The page holds no data; everything it shows
//! comes from the API, with the token it keeps in an HttpOnly cookie. The headers keep the
//! page from running anything but its own script (a transcript is text from a model and from
//! tools, shown as text) and from being framed by another site.

use crate::http::{Body, error, full};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Response, StatusCode};

const INDEX: &str = include_str!("../ui/index.html");
const SCRIPT: &str = include_str!("../ui/app.js");
const STYLE: &str = include_str!("../ui/app.css");
const ICON: &str = include_str!("../ui/icon.svg");

/// Only this server's own script and styles; API calls to itself; no plugins, frames or
/// forms elsewhere.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The asset at `path`, or a 404 that points at the page and the API.
pub fn asset(method: &Method, path: &str) -> Response<Body> {
    if method != Method::GET && method != Method::HEAD {
        return error(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{method} {path}: the web UI is read with GET; the API is under /api/v1"),
        );
    }
    let (content_type, body) = match path {
        "/" | "/index.html" => ("text/html; charset=utf-8", INDEX),
        "/app.js" => ("text/javascript; charset=utf-8", SCRIPT),
        "/app.css" => ("text/css; charset=utf-8", STYLE),
        "/icon.svg" => ("image/svg+xml", ICON),
        _ => {
            return error(
                StatusCode::NOT_FOUND,
                format!(
                    "nothing at {path}; the web UI is at / and the API under /api/v1 (docs/SERVE.md)"
                ),
            );
        }
    };
    let mut response = full(StatusCode::OK, content_type, body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    // The address may carry the token in its fragment; no request from the page names it.
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}
