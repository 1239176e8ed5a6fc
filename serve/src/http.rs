//! Small pieces of every response: JSON bodies, errors that say what was wrong, and request
//! bodies read up to [`MAX_BODY`].

use crate::MAX_BODY;
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::json;
use std::convert::Infallible;

pub type Body = BoxBody<Bytes, Infallible>;

pub fn full(status: StatusCode, content_type: &str, body: impl Into<Bytes>) -> Response<Body> {
    let mut response = Response::new(Full::new(body.into()).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(content_type).unwrap_or(HeaderValue::from_static("text/plain")),
    );
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

pub fn reply(status: StatusCode, value: serde_json::Value) -> Response<Body> {
    full(status, "application/json", value.to_string())
}

pub fn error(status: StatusCode, message: impl Into<String>) -> Response<Body> {
    reply(status, json!({ "error": message.into() }))
}

pub fn header_text(req: &Request<Incoming>, name: header::HeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// The request's body, at most [`MAX_BODY`] bytes.
pub async fn body(req: Request<Incoming>) -> Result<Bytes, Response<Body>> {
    match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            let mut response = error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body is larger than {MAX_BODY} bytes"),
            );
            // The rest of the body is not read: this connection cannot carry another request.
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
        Err(e) => Err(error(
            StatusCode::BAD_REQUEST,
            format!("cannot read the body: {e}"),
        )),
    }
}
