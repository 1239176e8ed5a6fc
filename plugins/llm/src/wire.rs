//! Types shared by the wire protocols. They are independent of the WIT bindings so that each
//! protocol (request building and stream decoding) is plain Rust, unit-tested natively; `lib.rs`
//! converts between these and the SDK's generated types.

use serde_json::{Map, Value};

/// Which backend family an endpoint belongs to; decides the reasoning fields sent and replayed,
/// and how effort levels map (see [`crate::backend`]). Configured with `reasoning_protocol`, or
/// detected from the base URL and model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReasoningProtocol {
    Deepseek,
    Openai,
    Glm,
    KimiK3,
    Minimax,
    Anthropic,
    Ollama,
    /// Any other OpenAI-compatible endpoint.
    #[default]
    Generic,
    /// Never send or replay reasoning.
    None,
}

impl ReasoningProtocol {
    /// Every protocol, in the order error messages list them: the one list of reasoning
    /// protocols.
    pub const ALL: [ReasoningProtocol; 9] = [
        ReasoningProtocol::Deepseek,
        ReasoningProtocol::Openai,
        ReasoningProtocol::Glm,
        ReasoningProtocol::KimiK3,
        ReasoningProtocol::Minimax,
        ReasoningProtocol::Anthropic,
        ReasoningProtocol::Ollama,
        ReasoningProtocol::Generic,
        ReasoningProtocol::None,
    ];

    /// The name used in `reasoning_protocol` and shown to the user.
    pub fn name(self) -> &'static str {
        match self {
            ReasoningProtocol::Deepseek => "deepseek",
            ReasoningProtocol::Openai => "openai",
            ReasoningProtocol::Glm => "glm",
            ReasoningProtocol::KimiK3 => "kimi-k3",
            ReasoningProtocol::Minimax => "minimax",
            ReasoningProtocol::Anthropic => "anthropic",
            ReasoningProtocol::Ollama => "ollama",
            ReasoningProtocol::Generic => "generic",
            ReasoningProtocol::None => "none",
        }
    }

    /// The protocol called `name` (exactly, lowercase), if any.
    pub fn from_name(name: &str) -> Option<ReasoningProtocol> {
        ReasoningProtocol::ALL
            .into_iter()
            .find(|p| p.name() == name)
    }
}

/// Backend options for the wire: the request's `options` JSON (docs/PROVIDERS.md, "Kernel ↔
/// component contract") with the reasoning protocol and thinking resolved by
/// [`crate::backend::resolve`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Full request URL overriding `base_url + <kind's path>` (`request_url` / legacy `chat_url`).
    pub request_url: Option<String>,
    pub reasoning_protocol: ReasoningProtocol,
    /// `enabled`, `disabled` or `adaptive`, mapped for this backend; `None` sends nothing.
    pub thinking: Option<String>,
    /// Sampling temperature; `None` omits the field.
    pub temperature: Option<f64>,
    /// Extra request headers from config (never the credential: the host adds that).
    pub headers: Vec<(String, String)>,
    /// Extra top-level body fields; fields the protocol sets itself win.
    pub extra_body: Map<String, Value>,
    /// Replay empty reasoning instead of the model's chain of thought.
    pub strip_chain_of_thought: bool,
    /// OpenAI's image `detail` (`low`, `high` or `auto`); `None` sends none.
    pub vision_detail: Option<String>,
}

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A complete tool call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// Arguments as JSON object text.
    pub arguments: String,
}

/// An image sent with a message (only to a model that reads images: the host strips them
/// otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub media_type: String,
    /// Base64, padded.
    pub data: String,
}

impl Image {
    /// The image as a `data:` URL (OpenAI's `image_url`).
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.data)
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// Reasoning text the model produced on this (assistant) message.
    pub reasoning: Option<String>,
    /// Opaque protocol state captured with the message (`Event::ReasoningState`), JSON text.
    pub reasoning_state: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the call it answers.
    pub tool_call_id: Option<String>,
    /// Images of a user or tool message.
    pub images: Vec<Image>,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// JSON Schema text (canonical: the kernel sorted its keys).
    pub parameters: String,
}

/// A fully resolved completion request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Provider instance name, for error messages.
    pub provider: String,
    pub base_url: String,
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<Tool>,
    /// Reasoning effort mapped for this backend (the wire value); `None` sends nothing.
    pub effort: Option<String>,
    pub max_output_tokens: Option<u32>,
    pub options: Options,
}

/// Token usage in the normalised shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Input tokens including cached ones.
    pub prompt: u64,
    /// Output tokens including reasoning.
    pub completion: u64,
    pub cache_hit: u64,
    pub cache_miss: u64,
    pub reasoning: u64,
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    Other,
}

/// One decoded stream event. Tool calls are only ever complete.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Text(String),
    Reasoning(String),
    /// Protocol state to store on the assistant message and hand back on replay (JSON text).
    ReasoningState(String),
    ToolCall(ToolCall),
    Usage(Usage),
    /// Always the last event.
    Done(Finish),
}

/// An HTTP request ready to send (the host adds the credential header).
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// One server-sent event: the `event:` field (if any) and the joined `data:` lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// Why decoding a stream failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The backend sent something that is not its protocol (bad JSON, unknown shape). The
    /// message quotes the start of the offending data.
    BadResponse(String),
    /// The backend reported an error inside the stream (e.g. Anthropic `event: error`,
    /// Responses `response.failed`).
    Upstream {
        message: String,
        /// Whether the same request may succeed later (overloaded, rate limited, server error).
        retryable: bool,
        /// An HTTP-like status when the backend gave one (e.g. 529 for `overloaded_error`).
        status: Option<u16>,
    },
    /// The stream ended before the protocol's terminal event.
    Interrupted,
}

/// One wire protocol: how to build the request and decode the stream.
pub trait Protocol {
    /// The HTTP request for `request`, or an `invalid-input` style message.
    fn build(&self, request: &Request) -> Result<HttpRequest, String>;
    /// A fresh decoder for the response stream of `request`.
    fn decoder(&self, request: &Request) -> Box<dyn Decoder>;
    /// A non-streamed completion (the whole JSON object a server sent instead of a stream) as
    /// the SSE body its stream would have been, for [`Protocol::decoder`]; `None` when the
    /// object is not this protocol's completion or error.
    fn whole(&self, body: &Value) -> Option<Vec<u8>>;
}

/// Turns a stream of server-sent events into [`Event`]s.
pub trait Decoder {
    /// Decode one SSE event; may return no events (pings, partial tool calls). When the event
    /// is the protocol's terminal one (`[DONE]`, `message_stop`, `response.completed`) the
    /// result ends with `Event::Done` and later events are ignored.
    fn feed(&mut self, event: &SseEvent) -> Result<Vec<Event>, Failure>;
    /// The body ended. Empty when `Done` was already returned; `Failure::Interrupted` when the
    /// protocol's terminal event never came.
    fn finish(&mut self) -> Result<Vec<Event>, Failure>;
}
