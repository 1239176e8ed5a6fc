//! A session's events as a server-sent event stream: what is kept after the client's
//! `Last-Event-ID`, then the live ones, with a keepalive comment while idle.

use crate::KEEPALIVE;
use crate::http::Body;
use crate::{hub, stream};
use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::Response;
use hyper::body::Frame;
use hyper::header::{self, HeaderValue};
use std::convert::Infallible;

/// The session's events as a server-sent event stream, from after `last`.
pub fn events(live: &hub::Live, last: u64) -> Response<Body> {
    let subscription = live.stream.subscribe(last);
    let mut head = String::from("retry: 2000\n\n");
    if subscription.gap {
        head.push_str(
            "event: gap\ndata: {\"reason\":\"events before the kept ones were dropped\"}\n\n",
        );
    }
    for frame in &subscription.backlog {
        head.push_str(&stream::sse(frame));
    }
    let sent = subscription.backlog.last().map_or(last, |f| f.seq);
    let first =
        futures::stream::once(async move { Ok::<_, Infallible>(Frame::data(Bytes::from(head))) });
    // The first keepalive after one period: a stream starts with events.
    let ticker = tokio::time::interval_at(tokio::time::Instant::now() + KEEPALIVE, KEEPALIVE);
    let live_frames = futures::stream::unfold(
        (subscription.live, ticker, sent),
        |(mut rx, mut ticker, mut sent)| async move {
            loop {
                tokio::select! {
                    received = rx.recv() => match received {
                        Ok(frame) if frame.seq <= sent => continue,
                        Ok(frame) => {
                            sent = frame.seq;
                            let bytes = Bytes::from(stream::sse(&frame));
                            return Some((Ok(Frame::data(bytes)), (rx, ticker, sent)));
                        }
                        // Fell behind, or the session ended: the client reconnects with
                        // Last-Event-ID and catches up from what is kept.
                        Err(_) => return None,
                    },
                    _ = ticker.tick() => {
                        return Some((Ok(Frame::data(Bytes::from_static(b": keepalive\n\n"))), (rx, ticker, sent)));
                    }
                }
            }
        },
    );
    use futures::StreamExt as _;
    let body = BodyExt::boxed(StreamBody::new(first.chain(live_frames)));
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    );
    response
}
