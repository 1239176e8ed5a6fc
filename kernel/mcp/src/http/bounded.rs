//! Byte limits on what a server sends: one SSE event, one response body.

use bytes::Bytes;
use futures::{Stream, StreamExt, future, stream::BoxStream};
use sse_stream::{Error as SseError, Sse, SseStream};

use super::HttpError;

pub(crate) type SseEvents = BoxStream<'static, Result<Sse, SseError>>;

/// SSE events parsed from a response body. Once one event passes `limit` bytes the stream yields
/// [`HttpError::TooLarge`] (inside `SseError::Body`) and ends, before the parser buffers more.
pub(crate) fn bounded_sse(
    body: impl Stream<Item = reqwest::Result<Bytes>> + Send + 'static,
    limit: usize,
    url: &str,
) -> SseEvents {
    let url = url.to_string();
    let mut size = EventSize::default();
    let checked = body
        .map(move |chunk| match chunk {
            Ok(bytes) if size.add(&bytes) <= limit => Ok(bytes),
            Ok(_) => Err(HttpError::TooLarge {
                url: url.clone(),
                what: "an SSE event",
                limit,
            }),
            Err(e) => Err(HttpError::request(&url, &e)),
        })
        .scan(false, |failed, item| {
            if *failed {
                return future::ready(None);
            }
            *failed = item.is_err();
            future::ready(Some(item))
        });
    SseStream::from_bytes_stream(checked).boxed()
}

/// Whether an SSE stream error is the size limit (as opposed to a broken connection).
pub(crate) fn too_large(error: &SseError) -> Option<&HttpError> {
    match error {
        SseError::Body(inner) => inner
            .downcast_ref::<HttpError>()
            .filter(|e| matches!(e, HttpError::TooLarge { .. })),
        _ => None,
    }
}

/// Bytes of the SSE event being received: everything since the last blank line, line endings
/// excluded (`\n`, `\r\n` or `\r`, as the SSE grammar allows). [`EventSize::add`] returns the
/// largest size reached inside the chunk, so a big event followed by its blank line in the same
/// chunk still counts.
#[derive(Debug, Default)]
struct EventSize {
    event: usize,
    line: usize,
    after_cr: bool,
}

impl EventSize {
    fn add(&mut self, chunk: &[u8]) -> usize {
        let mut peak = self.event;
        for &byte in chunk {
            let after_cr = std::mem::take(&mut self.after_cr);
            match byte {
                b'\n' if after_cr => {}
                b'\r' | b'\n' => {
                    if self.line == 0 {
                        self.event = 0;
                    }
                    self.line = 0;
                    self.after_cr = byte == b'\r';
                }
                _ => {
                    self.line += 1;
                    self.event += 1;
                    peak = peak.max(self.event);
                }
            }
        }
        peak
    }
}

/// The whole body, refused once it passes `limit` bytes (by its Content-Length when it has one).
pub(crate) async fn read_capped(
    mut response: reqwest::Response,
    limit: usize,
    url: &str,
) -> Result<Vec<u8>, HttpError> {
    let too_large = || HttpError::TooLarge {
        url: url.to_string(),
        what: "a response body",
        limit,
    };
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| HttpError::request(url, &e))?
    {
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The start of an error response's body, for the message; the rest is not read.
pub(crate) async fn read_prefix(mut response: reqwest::Response, max: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < max {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk[..chunk.len().min(max - body.len())]),
            _ => break,
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_size_resets_at_blank_lines_whatever_the_line_ending() {
        for ending in ["\n", "\r\n", "\r"] {
            let mut size = EventSize::default();
            let event = format!("data: abc{ending}data: de{ending}");
            assert_eq!(size.add(event.as_bytes()), 17, "{ending:?}");
            size.add(ending.as_bytes());
            assert_eq!(size.add(b"data: x"), 7, "{ending:?}");
        }
    }

    #[test]
    fn event_size_counts_across_chunks_and_a_split_crlf() {
        let mut size = EventSize::default();
        size.add(b"data: a\r");
        assert_eq!(
            size.add(b"\ndata: b"),
            14,
            "\\r\\n split over two chunks is one line ending"
        );
        size.add(b"\r\n\r\n");
        assert_eq!(size.add(b"x"), 1);
    }

    #[test]
    fn a_big_event_and_its_end_in_one_chunk_still_counts() {
        let mut size = EventSize::default();
        assert_eq!(size.add(b"data: 0123456789\n\ndata: 1\n\n"), 16);
    }
}
