//! An incremental parser for server-sent events (`text/event-stream`), as streamed by LLM APIs.
//!
//! Feed it the response body in whatever pieces the network delivers; it returns each event
//! once its terminating blank line has arrived. It follows the
//! [WHATWG event-stream rules](https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
//! lines end with CRLF, LF or CR; a line starting with `:` is a comment; `data:` lines are joined
//! with `\n`; one space after the colon is dropped; an event without data is not dispatched; a
//! leading byte-order mark is ignored. Pieces may split the stream anywhere, including inside a
//! line terminator or a multi-byte UTF-8 sequence: lines are decoded only once complete, and
//! invalid UTF-8 becomes U+FFFD instead of failing.
//!
//! ```
//! use reasonix_sdk::sse::SseParser;
//! let mut parser = SseParser::new();
//! assert!(parser.push(b"event: ping\ndata: {\"a\"").is_empty());
//! let events = parser.push(b":1}\n\n");
//! assert_eq!(events[0].event.as_deref(), Some("ping"));
//! assert_eq!(events[0].data, "{\"a\":1}");
//! ```

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, when the event had a non-empty one (the spec's default type,
    /// `message`, is left as `None`).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n` (no trailing newline).
    pub data: String,
    /// The last event id the stream set with an `id:` field, if any (it carries over to later
    /// events, as the spec says).
    pub id: Option<String>,
}

/// Incremental event-stream parser. See the [module docs](self).
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the line being received (without its terminator).
    line: Vec<u8>,
    /// The previous piece ended with CR: a LF starting the next one belongs to it.
    after_cr: bool,
    /// No line has been completed yet (a byte-order mark may start it).
    at_start: bool,
    /// Fields of the event being assembled.
    event: Option<String>,
    data: String,
    has_data: bool,
    last_id: Option<String>,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> SseParser {
        SseParser {
            at_start: true,
            ..SseParser::default()
        }
    }

    /// Feed the next piece of the body; returns the events it completed, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut rest = bytes;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if let Some(tail) = rest.strip_prefix(b"\n") {
                rest = tail;
            }
        }
        while let Some(end) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            self.line.extend_from_slice(&rest[..end]);
            let terminator = rest[end];
            rest = &rest[end + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.line_done(&line) {
                events.push(event);
            }
        }
        self.line.extend_from_slice(rest);
        events
    }

    /// The body ended. Returns the last event when the stream stopped right after its data
    /// without the closing blank line (the spec drops it; being lenient keeps a final
    /// `data: [DONE]` that a server did not terminate). Resets the parser.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.line);
        let mut event = None;
        if !line.is_empty() {
            event = self.line_done(&line);
        }
        if event.is_none() {
            event = self.line_done(b"");
        }
        *self = SseParser::new();
        event
    }

    /// Interpret one complete line; a blank line dispatches the pending event.
    fn line_done(&mut self, raw: &[u8]) -> Option<SseEvent> {
        let decoded = String::from_utf8_lossy(raw);
        let mut line: &str = &decoded;
        if self.at_start {
            self.at_start = false;
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_string()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take().filter(|e| !e.is_empty());
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
            id: self.last_id.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_all(pieces: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        for piece in pieces {
            events.extend(parser.push(piece));
        }
        events.extend(parser.finish());
        events
    }

    fn ev(event: Option<&str>, data: &str, id: Option<&str>) -> SseEvent {
        SseEvent {
            event: event.map(str::to_string),
            data: data.to_string(),
            id: id.map(str::to_string),
        }
    }

    #[test]
    fn data_lines_are_joined_and_one_space_is_dropped() {
        let events = parse_all(&[b"data: a\ndata:b\ndata:  c\n\n"]);
        assert_eq!(events, vec![ev(None, "a\nb\n c", None)]);
    }

    #[test]
    fn every_line_terminator_is_accepted() {
        let events = parse_all(&[b"data: 1\r\n\r\ndata: 2\r\rdata: 3\n\n"]);
        assert_eq!(
            events,
            vec![
                ev(None, "1", None),
                ev(None, "2", None),
                ev(None, "3", None)
            ]
        );
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        let events = parse_all(&[b": keep-alive\nretry: 10\nfoo: bar\n\ndata: x\n\n"]);
        assert_eq!(events, vec![ev(None, "x", None)]);
    }

    #[test]
    fn event_type_applies_to_one_event_and_id_carries_over() {
        let events = parse_all(&[b"event: a\nid: 7\ndata: 1\n\ndata: 2\n\n"]);
        assert_eq!(
            events,
            vec![ev(Some("a"), "1", Some("7")), ev(None, "2", Some("7"))]
        );
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        assert!(parse_all(&[b"event: ping\n\n"]).is_empty());
        // …and its type does not leak into the next event.
        assert_eq!(
            parse_all(&[b"event: ping\n\ndata: x\n\n"]),
            vec![ev(None, "x", None)]
        );
    }

    #[test]
    fn field_without_colon_and_empty_data() {
        assert_eq!(parse_all(&[b"data\n\n"]), vec![ev(None, "", None)]);
    }

    #[test]
    fn byte_order_mark_is_dropped_even_when_split() {
        let events = parse_all(&[b"\xEF\xBB", b"\xBFdata: x\n\n"]);
        assert_eq!(events, vec![ev(None, "x", None)]);
    }

    #[test]
    fn utf8_split_inside_a_character_survives() {
        let text = "data: 思考 ✓\n\n".as_bytes();
        let events = parse_all(&[&text[..8], &text[8..9], &text[9..]]);
        assert_eq!(events, vec![ev(None, "思考 ✓", None)]);
    }

    #[test]
    fn crlf_split_between_pieces_is_one_terminator() {
        // A CR at the end of one piece and LF at the start of the next is one line break, not
        // two: the event must not be dispatched between them, so `data: 2` joins it.
        let events = parse_all(&[b"data: 1\r", b"\ndata: 2\r\n\r\n"]);
        assert_eq!(events, vec![ev(None, "1\n2", None)]);
    }

    #[test]
    fn finish_dispatches_an_unterminated_last_event() {
        let mut parser = SseParser::new();
        assert!(parser.push(b"data: [DONE]").is_empty());
        assert_eq!(parser.finish(), Some(ev(None, "[DONE]", None)));
        assert_eq!(parser.finish(), None);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        assert_eq!(
            parse_all(&[b"data: \xFF\n\n"]),
            vec![ev(None, "\u{fffd}", None)]
        );
    }

    fn sample_stream() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![
            Just(b"data: {\"x\": \"\xE6\x80\x9D\"}".to_vec()),
            Just(b"data:".to_vec()),
            Just(b"event: delta".to_vec()),
            Just(b"id: 3".to_vec()),
            Just(b": comment".to_vec()),
            Just(Vec::new()),
            "[a-z :]{0,12}".prop_map(String::into_bytes),
        ];
        let terminator = prop_oneof![Just(&b"\n"[..]), Just(&b"\r\n"[..]), Just(&b"\r"[..])];
        proptest::collection::vec((line, terminator), 0..24).prop_map(|lines| {
            let mut out = Vec::new();
            for (line, end) in lines {
                out.extend_from_slice(&line);
                out.extend_from_slice(end);
            }
            out
        })
    }

    proptest! {
        #[test]
        fn any_split_gives_the_same_events(
            stream in sample_stream(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            let whole = parse_all(&[&stream]);
            let mut points: Vec<usize> = cuts.iter().map(|i| i.index(stream.len() + 1)).collect();
            points.sort_unstable();
            let mut pieces: Vec<&[u8]> = Vec::new();
            let mut start = 0;
            for point in points {
                pieces.push(&stream[start..point]);
                start = point;
            }
            pieces.push(&stream[start..]);
            prop_assert_eq!(parse_all(&pieces), whole.clone());
            // Byte by byte, too.
            let bytes: Vec<&[u8]> = stream.chunks(1).collect();
            prop_assert_eq!(parse_all(&bytes), whole);
        }

        #[test]
        fn arbitrary_bytes_never_panic(
            pieces in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..16),
        ) {
            let pieces: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
            let _ = parse_all(&pieces);
        }
    }
}
