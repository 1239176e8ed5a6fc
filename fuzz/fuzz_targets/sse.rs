//! A provider's streamed response body, arbitrary bytes cut into arbitrary chunks, through the
//! SSE parser and each protocol's decoder (the `llm` plugin's `completion-stream`, run
//! natively with a fake transport). Input: byte 0 picks the kind, byte 1 the chunk size, the
//! rest is the body. Nothing may panic; the stream must end (`Done` or an error).
#![no_main]

use libfuzzer_sys::fuzz_target;
use reasonix_plugin_llm::wire::HttpRequest;
use reasonix_plugin_llm::{Response, Transport, open_with};
use reasonix_sdk::http::HttpError;
use reasonix_sdk::sse::SseParser;
use reasonix_sdk::{CompletionRequest, Message, Role};

struct Body {
    chunks: Vec<Vec<u8>>,
}

impl Response for Body {
    fn status(&self) -> u16 {
        200
    }
    fn header(&self, _name: &str) -> Option<String> {
        None
    }
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        Ok((!self.chunks.is_empty()).then(|| self.chunks.remove(0)))
    }
}

struct Fake {
    chunks: Vec<Vec<u8>>,
}

impl Transport for Fake {
    fn post(&self, _request: &HttpRequest) -> Result<Box<dyn Response>, HttpError> {
        Ok(Box::new(Body {
            chunks: self.chunks.clone(),
        }))
    }
}

fn request(kind: &str) -> CompletionRequest {
    CompletionRequest {
        kind: kind.into(),
        provider: "fuzz".into(),
        base_url: "https://api.example.com/".into(),
        model: "m".into(),
        messages: vec![Message {
            role: Role::User,
            content: "hi".into(),
            reasoning: None,
            reasoning_state: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            images: Vec::new(),
        }],
        tools: Vec::new(),
        effort: None,
        max_output_tokens: None,
        options: String::new(),
    }
}

fuzz_target!(|data: &[u8]| {
    let [kind, size, body @ ..] = data else {
        return;
    };
    let size = usize::from(*size).max(1);
    let chunks: Vec<Vec<u8>> = body.chunks(size).map(<[u8]>::to_vec).collect();

    // The parser alone: every split of the same bytes yields the same events.
    let mut whole = SseParser::new();
    let mut expected = whole.push(body);
    expected.extend(whole.finish());
    let mut split = SseParser::new();
    let mut got = Vec::new();
    for chunk in &chunks {
        got.extend(split.push(chunk));
    }
    got.extend(split.finish());
    assert_eq!(got, expected, "the chunking changed the SSE events");

    let kind = ["openai", "anthropic", "responses"][usize::from(*kind) % 3];
    let Ok(mut stream) = open_with(request(kind), &Fake { chunks }) else {
        return;
    };
    // Every `next` consumes at least one chunk or ends the stream.
    for _ in 0..=body.len() + 2 {
        match stream.next() {
            Ok(events) if events.is_empty() => return,
            Ok(_) => {}
            Err(_) => return,
        }
    }
    panic!("the stream neither ended nor failed after its whole body");
});
