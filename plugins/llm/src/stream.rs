//! The `completion-stream` of every kind: body pieces → [`SseParser`] → the protocol's
//! [`Decoder`] → WIT stream events, with the `next` errors of docs/PROVIDERS.md.

use crate::Response;
use crate::wire::{self, Decoder, Event, Failure, Finish};
use reasonix_sdk::http::HttpError;
use reasonix_sdk::sse::SseParser;
use reasonix_sdk::{CompletionStream, Error, ErrorDetail, FinishReason, StreamEvent};

/// An open completion: the response body and the decoders.
pub struct LlmStream {
    provider: String,
    /// `None` once the body has ended or failed.
    response: Option<Box<dyn Response>>,
    parser: SseParser,
    decoder: Box<dyn Decoder>,
    /// `Done` has been returned: every later `next` is empty.
    finished: bool,
    /// A read error met while batching already-decoded events; returned by the next call.
    pending: Option<Error>,
}

impl LlmStream {
    pub fn new(provider: String, response: Box<dyn Response>, decoder: Box<dyn Decoder>) -> Self {
        LlmStream {
            provider,
            response: Some(response),
            parser: SseParser::new(),
            decoder,
            finished: false,
            pending: None,
        }
    }

    /// Decode SSE events into `out`; stops at `Done`.
    fn decode(
        &mut self,
        events: Vec<reasonix_sdk::sse::SseEvent>,
        out: &mut Vec<Event>,
    ) -> Result<(), Failure> {
        for event in events {
            let decoded = self.decoder.feed(&wire::SseEvent {
                event: event.event,
                data: event.data,
            })?;
            let done = decoded.iter().any(|e| matches!(e, Event::Done(_)));
            out.extend(decoded);
            if done {
                if let Some(response) = self.response.as_mut() {
                    response.finish();
                }
                self.end();
                break;
            }
        }
        Ok(())
    }

    /// Stop reading: drops the body, which tells the host to close the connection.
    fn end(&mut self) {
        self.finished = true;
        self.response = None;
    }

    fn failure(&mut self, failure: Failure) -> Error {
        self.end();
        let provider = &self.provider;
        let (code, message, retryable, detail) = match failure {
            Failure::Interrupted => (
                "stream-interrupted",
                format!(
                    "{provider}: the response ended before the model finished (no terminal event); the request can be repeated"
                ),
                true,
                None,
            ),
            Failure::BadResponse(why) => (
                "bad-response",
                format!(
                    "{provider}: the endpoint does not speak this provider kind's protocol: {why}"
                ),
                false,
                None,
            ),
            Failure::Upstream {
                message,
                retryable,
                status,
            } => (
                "upstream-error",
                format!("{provider}: the backend reported an error mid-stream: {message}"),
                retryable,
                status.map(|n| format!("{{\"status\":{n}}}")),
            ),
        };
        Error::Other(ErrorDetail {
            code: code.to_string(),
            message,
            retryable,
            detail,
        })
    }

    fn read_error(&mut self, error: HttpError) -> Error {
        self.end();
        let provider = &self.provider;
        match error {
            HttpError::Timeout(why) => Error::Timeout(format!(
                "{provider}: no data for longer than the stall timeout ({why}); the stream was abandoned"
            )),
            HttpError::Cancelled => Error::Cancelled,
            HttpError::Denied(why) => Error::Denied(format!("{provider}: {why}")),
            HttpError::Transport(why)
            | HttpError::Unreachable(why)
            | HttpError::InvalidRequest(why) => Error::Other(ErrorDetail {
                code: "stream-interrupted".into(),
                message: format!(
                    "{provider}: the connection was cut before the model finished ({why}); the request can be repeated"
                ),
                retryable: true,
                detail: None,
            }),
        }
    }
}

impl LlmStream {
    /// Decode whatever else has already arrived, without waiting, so a fast stream crosses the
    /// component boundary in a few large batches instead of one call per network chunk.
    fn drain_ready(&mut self, out: &mut Vec<Event>) {
        while !self.finished && !out.is_empty() && out.len() < MAX_BATCH {
            let Some(response) = self.response.as_mut() else {
                break;
            };
            match response.read_ready() {
                Ok(Some(bytes)) => {
                    let events = self.parser.push(&bytes);
                    if let Err(failure) = self.decode(events, out) {
                        let error = self.failure(failure);
                        self.finished = false;
                        self.pending = Some(error);
                        break;
                    }
                }
                Ok(None) => break,
                Err(error) => {
                    // Hand over what decoded; the error comes with the next call.
                    let error = self.read_error(error);
                    self.finished = false;
                    self.pending = Some(error);
                    break;
                }
            }
        }
    }
}

/// Events gathered into one `next` result at most (when more are ready).
const MAX_BATCH: usize = 512;

impl CompletionStream for LlmStream {
    fn next(&mut self) -> Result<Vec<StreamEvent>, Error> {
        if let Some(error) = self.pending.take() {
            self.finished = true;
            return Err(error);
        }
        let mut out = Vec::new();
        while out.is_empty() && !self.finished {
            let Some(response) = self.response.as_mut() else {
                break;
            };
            match response.read_chunk() {
                Ok(Some(bytes)) => {
                    let events = self.parser.push(&bytes);
                    self.decode(events, &mut out).map_err(|f| self.failure(f))?;
                }
                Ok(None) => {
                    // An event the body ended in without its blank line: a final `[DONE]` some
                    // servers leave unterminated completes the stream, but anything that does
                    // not decode means the body was cut mid-event.
                    let last: Vec<_> = self.parser.finish().into_iter().collect();
                    if let Err(failure) = self.decode(last, &mut out) {
                        return Err(self.failure(match failure {
                            Failure::BadResponse(_) => Failure::Interrupted,
                            other => other,
                        }));
                    }
                    if !self.finished {
                        let tail = self.decoder.finish().map_err(|f| self.failure(f))?;
                        out.extend(tail);
                        if !out.iter().any(|e| matches!(e, Event::Done(_))) {
                            return Err(self.failure(Failure::Interrupted));
                        }
                        self.end();
                    }
                }
                Err(error) => return Err(self.read_error(error)),
            }
        }
        self.drain_ready(&mut out);
        Ok(out.into_iter().map(stream_event).collect())
    }
}

fn stream_event(event: Event) -> StreamEvent {
    match event {
        Event::Text(text) => StreamEvent::Text(text),
        Event::Reasoning(text) => StreamEvent::Reasoning(text),
        Event::ReasoningState(state) => StreamEvent::ReasoningState(state),
        Event::ToolCall(call) => StreamEvent::ToolCall(reasonix_sdk::ToolCall {
            id: call.id,
            name: call.name,
            arguments: call.arguments,
        }),
        Event::Usage(usage) => StreamEvent::Usage(reasonix_sdk::Usage {
            prompt_tokens: usage.prompt,
            completion_tokens: usage.completion,
            cache_hit_tokens: usage.cache_hit,
            cache_miss_tokens: usage.cache_miss,
            reasoning_tokens: usage.reasoning,
        }),
        Event::Done(finish) => StreamEvent::Done(match finish {
            Finish::Stop => FinishReason::Stop,
            Finish::ToolCalls => FinishReason::ToolCalls,
            Finish::Length => FinishReason::Length,
            Finish::ContentFilter => FinishReason::ContentFilter,
            Finish::Other => FinishReason::Other,
        }),
    }
}
