//! NDJSON framing of JSON-RPC 2.0: one message per line, at most [`FRAME_BYTES`] each. The
//! reader never holds more than one frame's limit: a line that grows past it is refused as soon
//! as the limit is crossed, without reading the rest.
//!
//! Frames tolerate unknown members (`RawFrame` ignores them); the DTOs inside `params` and
//! `result` are decoded strictly by their users.

use crate::limits::FRAME_BYTES;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::io::BufRead;

/// Why a frame could not be read or understood. Every case is fatal to the connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("sent a frame larger than the {limit}-byte limit (frame_too_large)")]
    TooLarge { limit: usize },
    #[error("closed its stdout in the middle of a frame")]
    Truncated,
    #[error("could not be read: {0}")]
    Io(String),
    #[error("sent a frame that is not JSON-RPC 2.0 (protocol_error): {0}")]
    Invalid(String),
}

/// Read one line (without its `\n`) into `buf`, refusing lines over `limit` bytes.
/// `Ok(false)` at a clean end of stream.
pub fn read_frame<R: BufRead>(
    reader: &mut R,
    limit: usize,
    buf: &mut Vec<u8>,
) -> Result<bool, FrameError> {
    buf.clear();
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FrameError::Io(e.to_string())),
        };
        if available.is_empty() {
            return if buf.is_empty() {
                Ok(false)
            } else {
                Err(FrameError::Truncated)
            };
        }
        let (take, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (i, true),
            None => (available.len(), false),
        };
        if buf.len() + take > limit {
            return Err(FrameError::TooLarge { limit });
        }
        buf.extend_from_slice(&available[..take]);
        reader.consume(if done { take + 1 } else { take });
        if done {
            // A CRLF sender is tolerated.
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(true);
        }
    }
}

/// How messages are delimited on the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// One message per line (sidecars, MCP).
    Lines,
    /// `Content-Length: N` headers, a blank line, then N bytes (the Language Server Protocol).
    ContentLength,
}

/// Header lines a content-length frame may have, and bytes per header line.
const MAX_HEADERS: usize = 16;
const HEADER_LINE_BYTES: usize = 1024;

/// Read one `Content-Length` frame's body into `buf`, refusing a body over `limit` bytes
/// before reading it. `Ok(false)` at a clean end of stream (before any header byte).
pub fn read_content_length_frame<R: BufRead>(
    reader: &mut R,
    limit: usize,
    buf: &mut Vec<u8>,
) -> Result<bool, FrameError> {
    let mut length: Option<usize> = None;
    let mut line = Vec::new();
    for index in 0..=MAX_HEADERS {
        if !read_frame(reader, HEADER_LINE_BYTES, &mut line).map_err(|e| match e {
            FrameError::TooLarge { .. } => {
                FrameError::Invalid(format!("a header line is over {HEADER_LINE_BYTES} bytes"))
            }
            other => other,
        })? {
            return if index == 0 {
                Ok(false)
            } else {
                Err(FrameError::Truncated)
            };
        }
        if line.is_empty() {
            let Some(length) = length else {
                return Err(FrameError::Invalid(
                    "a frame without a `Content-Length` header".into(),
                ));
            };
            if length > limit {
                return Err(FrameError::TooLarge { limit });
            }
            buf.clear();
            buf.resize(length, 0);
            return reader.read_exact(buf).map(|()| true).map_err(|e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    FrameError::Truncated
                } else {
                    FrameError::Io(e.to_string())
                }
            });
        }
        let text = String::from_utf8_lossy(&line);
        let Some((name, value)) = text.split_once(':') else {
            return Err(FrameError::Invalid(format!(
                "a header line without `:`: {}",
                reasonix_core::terminal::line(&text)
            )));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let parsed = value.trim().parse::<usize>().map_err(|_| {
                FrameError::Invalid(format!(
                    "`Content-Length` is not a number: {}",
                    reasonix_core::terminal::line(value.trim())
                ))
            })?;
            length = Some(parsed);
        }
    }
    Err(FrameError::Invalid(format!(
        "more than {MAX_HEADERS} header lines"
    )))
}

/// `line` (an encoded message ending in `\n`) framed for `framing`.
pub fn framed(framing: Framing, mut line: Vec<u8>) -> Vec<u8> {
    match framing {
        Framing::Lines => line,
        Framing::ContentLength => {
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            let mut out = format!("Content-Length: {}\r\n\r\n", line.len()).into_bytes();
            out.extend_from_slice(&line);
            out
        }
    }
}

/// An error object of a JSON-RPC response.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    /// `data.reason` of a domain error, when given.
    pub reason: Option<String>,
}

/// One message from the sidecar, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Response {
        id: u64,
        result: Result<Value, RpcError>,
    },
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    Notification {
        method: String,
        params: Map<String, Value>,
    },
}

/// The members a frame may have; any others are ignored.
#[derive(Deserialize)]
struct RawFrame {
    jsonrpc: Option<String>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    method: Option<String>,
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    error: Option<Value>,
}

/// Keep a member that is present with value `null` as `Some(Null)` (a `null` result is a
/// result).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Classify one frame's bytes.
pub fn parse(bytes: &[u8]) -> Result<Incoming, FrameError> {
    let invalid = |m: String| FrameError::Invalid(m);
    let raw: RawFrame =
        serde_json::from_slice(bytes).map_err(|e| invalid(format!("not a JSON object: {e}")))?;
    if raw.jsonrpc.as_deref() != Some("2.0") {
        return Err(invalid("`jsonrpc` must be \"2.0\"".into()));
    }
    let params = |p: Option<Value>| match p {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map),
        Some(_) => Err(invalid("`params` must be an object".into())),
    };
    match (raw.method, raw.id) {
        (Some(method), Some(id)) => {
            if !(id.is_u64() || id.is_i64()) {
                return Err(invalid("a request `id` must be an integer".into()));
            }
            Ok(Incoming::Request {
                id,
                method,
                params: params(raw.params)?,
            })
        }
        (Some(method), None) => Ok(Incoming::Notification {
            method,
            params: params(raw.params)?,
        }),
        (None, Some(id)) => {
            let id = id.as_u64().ok_or_else(|| {
                invalid(format!("response id {id} is not a non-negative integer"))
            })?;
            let result = match (raw.result, raw.error) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => Err(rpc_error(error)?),
                _ => {
                    return Err(invalid(
                        "a response needs exactly one of `result` and `error`".into(),
                    ));
                }
            };
            Ok(Incoming::Response { id, result })
        }
        (None, None) => Err(invalid("neither `method` nor `id`".into())),
    }
}

fn rpc_error(value: Value) -> Result<RpcError, FrameError> {
    let code = value.get("code").and_then(Value::as_i64);
    let message = value.get("message").and_then(Value::as_str);
    match (code, message) {
        (Some(code), Some(message)) => Ok(RpcError {
            code,
            message: message.to_string(),
            reason: value
                .pointer("/data/reason")
                .and_then(Value::as_str)
                .map(str::to_string),
        }),
        _ => Err(FrameError::Invalid(
            "an error object needs an integer `code` and a string `message`".into(),
        )),
    }
}

/// Encode a request (or, without `id`, a notification) as one line with its `\n`; refused when
/// it would exceed the frame limit.
pub fn encode(id: Option<u64>, method: &str, params: &Value) -> Result<Vec<u8>, FrameError> {
    let mut frame = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
    if let (Some(id), Some(map)) = (id, frame.as_object_mut()) {
        map.insert("id".into(), id.into());
    }
    finish(&frame)
}

/// Encode a result response to a request the sidecar made.
pub fn encode_result(id: &Value, result: &Value) -> Result<Vec<u8>, FrameError> {
    finish(&serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Encode an error response to a request the sidecar made.
pub fn encode_error(
    id: &Value,
    code: i64,
    reason: &str,
    message: &str,
) -> Result<Vec<u8>, FrameError> {
    let frame = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message, "data": {"reason": reason, "retryable": false}},
    });
    finish(&frame)
}

fn finish(frame: &Value) -> Result<Vec<u8>, FrameError> {
    let mut bytes = serde_json::to_vec(frame)
        .map_err(|e| FrameError::Invalid(format!("cannot encode: {e}")))?;
    if bytes.len() > FRAME_BYTES {
        return Err(FrameError::TooLarge { limit: FRAME_BYTES });
    }
    bytes.push(b'\n');
    Ok(bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::BufReader;

    fn frames(input: &[u8], limit: usize, capacity: usize) -> Vec<Result<Vec<u8>, FrameError>> {
        let mut reader = BufReader::with_capacity(capacity, input);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            match read_frame(&mut reader, limit, &mut buf) {
                Ok(true) => out.push(Ok(buf.clone())),
                Ok(false) => return out,
                Err(e) => {
                    out.push(Err(e));
                    return out;
                }
            }
        }
    }

    fn content_frames(input: &[u8], limit: usize) -> Vec<Result<Vec<u8>, FrameError>> {
        let mut reader = BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            match read_content_length_frame(&mut reader, limit, &mut buf) {
                Ok(true) => out.push(Ok(buf.clone())),
                Ok(false) => return out,
                Err(e) => {
                    out.push(Err(e));
                    return out;
                }
            }
        }
    }

    #[test]
    fn content_length_frames_round_trip_and_bad_headers_are_named() {
        let mut input = framed(Framing::ContentLength, b"{\"a\":1}\n".to_vec());
        input.extend(b"content-length: 2\r\nContent-Type: x\r\n\r\n{}");
        assert_eq!(
            content_frames(&input, 100),
            vec![Ok(b"{\"a\":1}".to_vec()), Ok(b"{}".to_vec())]
        );
        assert_eq!(
            content_frames(b"Content-Length: 5000\r\n\r\n", 100),
            vec![Err(FrameError::TooLarge { limit: 100 })]
        );
        assert_eq!(
            content_frames(b"Content-Length: 10\r\n\r\n{}", 100),
            vec![Err(FrameError::Truncated)]
        );
        assert!(matches!(
            content_frames(b"Content-Type: x\r\n\r\n", 100)[0],
            Err(FrameError::Invalid(_))
        ));
        assert!(matches!(
            content_frames(b"Content-Length: -1\r\n\r\n", 100)[0],
            Err(FrameError::Invalid(_))
        ));
        let many = "X: y\r\n".repeat(40);
        assert!(matches!(
            content_frames(many.as_bytes(), 100)[0],
            Err(FrameError::Invalid(_))
        ));
    }

    proptest! {
        /// Whatever bytes arrive, the reader ends (no hang, no panic) and never hands over
        /// a body longer than its limit; framed messages always come back whole.
        #[test]
        fn content_length_reader_is_bounded(
            noise in proptest::collection::vec(any::<u8>(), 0..400),
            bodies in proptest::collection::vec("[a-z0-9{}\":,]{0,40}", 0..5),
        ) {
            for frame in content_frames(&noise, 64).into_iter().flatten() {
                prop_assert!(frame.len() <= 64);
            }
            let mut input = Vec::new();
            for body in &bodies {
                input.extend(framed(Framing::ContentLength, format!("{body}\n").into_bytes()));
            }
            let got: Vec<Vec<u8>> = content_frames(&input, 64).into_iter().map(|r| r.unwrap()).collect();
            let want: Vec<Vec<u8>> = bodies.iter().map(|b| b.clone().into_bytes()).collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn splits_lines_and_tolerates_crlf() {
        let got = frames(b"{\"a\":1}\r\n{\"b\":2}\n", 100, 3);
        assert_eq!(
            got,
            vec![Ok(b"{\"a\":1}".to_vec()), Ok(b"{\"b\":2}".to_vec())]
        );
    }

    #[test]
    fn a_line_over_the_limit_is_refused_even_without_a_newline() {
        let big = vec![b'x'; 50];
        assert_eq!(
            frames(&big, 10, 4),
            vec![Err(FrameError::TooLarge { limit: 10 })]
        );
        let exact = b"0123456789\n";
        assert_eq!(frames(exact, 10, 4), vec![Ok(b"0123456789".to_vec())]);
        assert_eq!(
            frames(b"01234567890\n", 10, 4),
            vec![Err(FrameError::TooLarge { limit: 10 })]
        );
    }

    #[test]
    fn a_partial_last_frame_is_truncation() {
        assert_eq!(
            frames(b"{}\n{", 10, 4),
            vec![Ok(b"{}".to_vec()), Err(FrameError::Truncated)]
        );
    }

    #[test]
    fn classifies_messages() {
        let r = parse(br#"{"jsonrpc":"2.0","id":3,"result":null,"extra":1}"#).unwrap();
        assert_eq!(
            r,
            Incoming::Response {
                id: 3,
                result: Ok(Value::Null)
            }
        );
        let e = parse(br#"{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"no","data":{"reason":"internal"}}}"#).unwrap();
        assert!(matches!(
            e,
            Incoming::Response {
                id: 4,
                result: Err(RpcError { code: -32000, .. })
            }
        ));
        let n = parse(br#"{"jsonrpc":"2.0","method":"x/y"}"#).unwrap();
        assert!(matches!(n, Incoming::Notification { .. }));
        for bad in [
            &br#"{"jsonrpc":"1.0","id":1,"result":1}"#[..],
            br#"{"jsonrpc":"2.0","id":"a","result":1}"#,
            br#"{"jsonrpc":"2.0","id":-1,"result":1}"#,
            br#"{"jsonrpc":"2.0","method":"m","params":[1]}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}"#,
            br#"{"jsonrpc":"2.0","id":1}"#,
            br#"[1,2]"#,
            b"\xff\xfe",
        ] {
            assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn encoding_refuses_oversized_frames() {
        let big = Value::String("x".repeat(FRAME_BYTES));
        assert!(matches!(
            encode(Some(1), "m", &serde_json::json!({"p": big})),
            Err(FrameError::TooLarge { .. })
        ));
        let ok = encode(Some(7), "m", &serde_json::json!({})).unwrap();
        assert_eq!(ok.last(), Some(&b'\n'));
        assert!(matches!(
            parse(&ok[..ok.len() - 1]).unwrap(),
            Incoming::Request { .. }
        ));
    }

    proptest! {
        #[test]
        fn the_reader_never_returns_more_than_the_limit(
            input in proptest::collection::vec(any::<u8>(), 0..600),
            limit in 1usize..64,
            capacity in 1usize..32,
        ) {
            let got = frames(&input, limit, capacity);
            let mut total = 0;
            for bytes in got.iter().flatten() {
                prop_assert!(bytes.len() <= limit);
                prop_assert!(!bytes.contains(&b'\n'));
                total += bytes.len() + 1;
            }
            prop_assert!(total <= input.len() + 1);
        }

        #[test]
        fn parsing_arbitrary_bytes_never_panics(input in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse(&input);
        }

        #[test]
        fn parsing_arbitrary_frames_never_panics(
            id in proptest::option::of(any::<i64>()),
            method in proptest::option::of("[a-z/]{0,12}"),
            params in proptest::option::of(prop_oneof![Just(Value::Null), Just(serde_json::json!({})), Just(serde_json::json!([1]))]),
            result in proptest::option::of(any::<i32>()),
        ) {
            let mut frame = serde_json::json!({"jsonrpc": "2.0"});
            let map = frame.as_object_mut().unwrap();
            if let Some(id) = id { map.insert("id".into(), id.into()); }
            if let Some(m) = method { map.insert("method".into(), m.into()); }
            if let Some(p) = params { map.insert("params".into(), p); }
            if let Some(r) = result { map.insert("result".into(), r.into()); }
            let _ = parse(&serde_json::to_vec(&frame).unwrap());
        }
    }
}
