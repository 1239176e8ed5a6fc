//! The script: what the server answers, one [`Reply`] per request.
//!
//! Every type here is (de)serialisable so a script can be a JSON file (see README.md).

use serde::{Deserialize, Serialize};

/// Which wire protocol a request spoke, decided by its path.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Wire {
    /// OpenAI Chat Completions: a path ending in `/chat/completions`.
    OpenAi,
    /// Anthropic Messages: a path ending in `/v1/messages`.
    Anthropic,
    /// OpenAI Responses: a path ending in `/responses`.
    Responses,
}

impl Wire {
    /// The wire a request path speaks (the query string is ignored), `None` for any other path.
    pub fn from_path(path: &str) -> Option<Wire> {
        let path = path.split('?').next().unwrap_or(path).trim_end_matches('/');
        if path.ends_with("/chat/completions") {
            Some(Wire::OpenAi)
        } else if path.ends_with("/v1/messages") {
            Some(Wire::Anthropic)
        } else if path.ends_with("/responses") {
            Some(Wire::Responses)
        } else {
            None
        }
    }
}

/// One scripted answer. Each request to a wire path consumes one, whatever its wire.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(default)]
pub struct Reply {
    /// The output, in order (reasoning steps are moved first, as the APIs emit them).
    pub steps: Vec<Step>,
    /// Token counts reported; `None` = estimated from the request and the output.
    pub usage: Option<Usage>,
    /// Why generation stopped. `Stop` becomes `ToolCalls` when a [`Step::ToolCall`] exists.
    pub finish: Finish,
    /// Misbehaviour to inject instead of (or in the middle of) the normal stream.
    pub fault: Option<Fault>,
    /// Pause between two SSE events, in milliseconds.
    pub chunk_delay_ms: u64,
}

/// One piece of output.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// One text delta event.
    Text(String),
    /// One reasoning delta. `signature` is Anthropic's `signature_delta` / the Responses
    /// `encrypted_content`; OpenAI Chat Completions ignores it.
    Reasoning {
        text: String,
        #[serde(default)]
        signature: Option<String>,
    },
    /// A tool call whose `arguments` are split into `fragments` deltas (at least one).
    ToolCall {
        id: String,
        name: String,
        arguments: String,
        #[serde(default = "one")]
        fragments: usize,
    },
    /// Stop sending until [`crate::MockLlm::release`] is called with this name; the
    /// connection stays open.
    Gate(String),
}

fn one() -> usize {
    1
}

/// Token counts, rendered per wire (see README.md). A consistent script has
/// `prompt = cache_hit + cache_miss`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(default)]
pub struct Usage {
    pub prompt: u64,
    pub completion: u64,
    pub cache_hit: u64,
    pub cache_miss: u64,
    pub reasoning: u64,
}

/// Why generation stopped.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    #[default]
    Stop,
    ToolCalls,
    /// The output limit: OpenAI `length`, Anthropic `max_tokens`, Responses
    /// `response.incomplete` with `max_output_tokens`.
    Length,
    /// A content filter: OpenAI `content_filter`, Anthropic `refusal`, Responses
    /// `response.incomplete` with `content_filter`.
    ContentFilter,
}

/// Misbehaviour to inject. `events` counts SSE events (a gate is not an event).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// Answer with this status and body (`""` = the wire's usual JSON error body), no stream.
    Status {
        status: u16,
        #[serde(default)]
        retry_after: Option<String>,
        #[serde(default)]
        body: String,
    },
    /// Send this many events, then drop the connection without finishing the body.
    CutAfter { events: usize },
    /// Send every event but the wire's terminal marker (OpenAI `data: [DONE]`, Anthropic
    /// `message_stop`), then end the body normally: a finished answer some servers close early.
    OmitTerminal,
    /// Answer 200 `application/json` with the whole completion as one JSON object (the wire's
    /// non-streamed format: OpenAI `choices[0].message`, Anthropic `content` blocks, Responses
    /// `output` items), as a proxy that ignores `"stream": true` does.
    NonStreamed,
    /// Answer 200 with this `content-type` and body, no stream (an HTML captive portal).
    Body { content_type: String, body: String },
    /// After this many events send `data: {"choices": [` (not JSON), then the remaining events,
    /// and end the body normally.
    MalformedAfter { events: usize },
    /// After this many events send nothing more and keep the connection open until the server
    /// is dropped.
    HangAfter { events: usize },
    /// Accept the request and never answer: no status line, no head, the connection held open
    /// until the client goes away or the server is dropped (a wedged gateway).
    Stall,
    /// After this many events send the wire's in-stream error event (OpenAI `data: {"error":…}`,
    /// Anthropic `event: error`, Responses `response.failed`) for this HTTP-like status, then
    /// end the body normally.
    ErrorAfter {
        events: usize,
        status: u16,
        #[serde(default)]
        message: String,
    },
}

impl Reply {
    /// A plain answer: one text delta per chunk.
    pub fn text(chunks: &[&str]) -> Reply {
        Reply {
            steps: chunks.iter().map(|c| Step::Text((*c).to_owned())).collect(),
            ..Reply::default()
        }
    }

    /// Tool calls `(id, name, arguments)`, each split into `fragments` argument deltas.
    pub fn tool_calls(calls: &[(&str, &str, &str)], fragments: usize) -> Reply {
        Reply {
            steps: calls
                .iter()
                .map(|(id, name, arguments)| Step::ToolCall {
                    id: (*id).to_owned(),
                    name: (*name).to_owned(),
                    arguments: (*arguments).to_owned(),
                    fragments,
                })
                .collect(),
            finish: Finish::ToolCalls,
            ..Reply::default()
        }
    }

    /// An error answer with this status and body (`""` = the wire's usual JSON error body).
    pub fn status(status: u16, body: &str) -> Reply {
        Reply::default().with_fault(Fault::Status {
            status,
            retry_after: None,
            body: body.to_owned(),
        })
    }

    /// HTTP 429 with this `Retry-After` header and the wire's usual rate-limit body.
    pub fn rate_limited(retry_after: &str) -> Reply {
        Reply::default().with_fault(Fault::Status {
            status: 429,
            retry_after: Some(retry_after.to_owned()),
            body: String::new(),
        })
    }

    /// HTTP 200 with this `content-type` and body instead of a stream.
    pub fn body(content_type: &str, body: &str) -> Reply {
        Reply::default().with_fault(Fault::Body {
            content_type: content_type.to_owned(),
            body: body.to_owned(),
        })
    }

    pub fn with_usage(mut self, usage: Usage) -> Reply {
        self.usage = Some(usage);
        self
    }

    pub fn with_fault(mut self, fault: Fault) -> Reply {
        self.fault = Some(fault);
        self
    }

    pub fn with_finish(mut self, finish: Finish) -> Reply {
        self.finish = finish;
        self
    }

    pub fn with_chunk_delay_ms(mut self, ms: u64) -> Reply {
        self.chunk_delay_ms = ms;
        self
    }

    /// Appends a step.
    pub fn then(mut self, step: Step) -> Reply {
        self.steps.push(step);
        self
    }

    /// Prepends a reasoning step (reasoning is emitted first anyway).
    pub fn with_reasoning(mut self, text: &str, signature: Option<&str>) -> Reply {
        self.steps.insert(
            0,
            Step::Reasoning {
                text: text.to_owned(),
                signature: signature.map(str::to_owned),
            },
        );
        self
    }

    /// The finish reason actually reported.
    pub fn effective_finish(&self) -> Finish {
        let has_call = self
            .steps
            .iter()
            .any(|s| matches!(s, Step::ToolCall { .. }));
        match self.finish {
            Finish::Stop if has_call => Finish::ToolCalls,
            other => other,
        }
    }
}

impl Usage {
    /// `prompt` tokens all missing the cache.
    pub fn new(prompt: u64, completion: u64) -> Usage {
        Usage {
            prompt,
            completion,
            cache_miss: prompt,
            ..Usage::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_from_path() {
        assert_eq!(Wire::from_path("/v1/chat/completions"), Some(Wire::OpenAi));
        assert_eq!(Wire::from_path("/chat/completions?x=1"), Some(Wire::OpenAi));
        assert_eq!(
            Wire::from_path("/anthropic/v1/messages"),
            Some(Wire::Anthropic)
        );
        assert_eq!(Wire::from_path("/v1/responses"), Some(Wire::Responses));
        assert_eq!(Wire::from_path("/v1/models"), None);
        assert_eq!(Wire::from_path("/messages"), None);
    }

    #[test]
    fn script_json_round_trips_with_defaults() {
        let json = r#"[
            {"steps": [{"reasoning": {"text": "hmm"}}, {"text": "hi"}, {"gate": "g"},
                       {"tool_call": {"id": "c1", "name": "ls", "arguments": "{}"}}],
             "usage": {"prompt": 10, "completion": 3},
             "chunk_delay_ms": 5},
            {"fault": {"status": {"status": 429, "retry_after": "2"}}},
            {"fault": {"cut_after": {"events": 2}}, "finish": "length"}
        ]"#;
        let replies: Vec<Reply> = serde_json::from_str(json).unwrap();
        assert_eq!(replies.len(), 3);
        assert_eq!(
            replies[0].steps[3],
            Step::ToolCall {
                id: "c1".into(),
                name: "ls".into(),
                arguments: "{}".into(),
                fragments: 1
            }
        );
        assert_eq!(replies[0].effective_finish(), Finish::ToolCalls);
        assert_eq!(replies[0].usage.unwrap().cache_hit, 0);
        assert_eq!(
            replies[1].fault,
            Some(Fault::Status {
                status: 429,
                retry_after: Some("2".into()),
                body: String::new()
            })
        );
        assert_eq!(replies[2].effective_finish(), Finish::Length);
        let back = serde_json::to_string(&replies[0]).unwrap();
        let again: Reply = serde_json::from_str(&back).unwrap();
        assert_eq!(again.steps, replies[0].steps);
    }
}
