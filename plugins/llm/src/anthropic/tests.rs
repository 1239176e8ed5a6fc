use proptest::prelude::*;
use reasonix_sdk::sse::SseParser;
use serde_json::{Value, json};

use super::Anthropic;
use crate::wire::{
    Decoder, Event, Failure, Finish, Message, Options, Protocol, ReasoningProtocol, Request, Role,
    SseEvent, Tool, ToolCall, Usage,
};

// ---- shared test helpers (also used by the Responses tests) ----

/// Run `sse` (complete SSE text) through `decoder` in the given chunk sizes (cycled), then
/// `finish`; returns the events, or the first failure. The SSE framing is the SDK's parser, the
/// one the component uses.
pub(crate) fn run_chunked(
    decoder: &mut dyn Decoder,
    sse: &str,
    sizes: &[usize],
) -> Result<Vec<Event>, Failure> {
    let bytes = sse.as_bytes();
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    let feed = |decoder: &mut dyn Decoder, event: reasonix_sdk::sse::SseEvent| {
        decoder.feed(&SseEvent {
            event: event.event,
            data: event.data,
        })
    };
    let mut at = 0;
    let mut i = 0;
    while at < bytes.len() {
        let size = sizes
            .get(i % sizes.len().max(1))
            .copied()
            .unwrap_or(bytes.len())
            .max(1);
        let end = (at + size).min(bytes.len());
        for event in parser.push(&bytes[at..end]) {
            out.extend(feed(decoder, event)?);
        }
        at = end;
        i += 1;
    }
    if let Some(event) = parser.finish() {
        out.extend(feed(decoder, event)?);
    }
    out.extend(decoder.finish()?);
    Ok(out)
}

pub(crate) fn run(decoder: &mut dyn Decoder, sse: &str) -> Result<Vec<Event>, Failure> {
    run_chunked(decoder, sse, &[usize::MAX])
}

/// Adjacent text / reasoning deltas merged, so streams compare by content.
pub(crate) fn merged(events: Vec<Event>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for event in events {
        match (out.last_mut(), event) {
            (Some(Event::Text(a)), Event::Text(b)) => a.push_str(&b),
            (Some(Event::Reasoning(a)), Event::Reasoning(b)) => a.push_str(&b),
            (_, event) => out.push(event),
        }
    }
    out
}

pub(crate) fn msg(role: Role, content: &str) -> Message {
    Message {
        role,
        content: content.into(),
        reasoning: None,
        reasoning_state: None,
        tool_calls: Vec::new(),
        tool_call_id: None,
        images: Vec::new(),
    }
}

pub(crate) fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

pub(crate) fn tool_result(id: &str, content: &str) -> Message {
    Message {
        tool_call_id: Some(id.into()),
        ..msg(Role::Tool, content)
    }
}

pub(crate) fn tool(name: &str, schema: &str) -> Tool {
    Tool {
        name: name.into(),
        description: format!("{name} tool"),
        parameters: schema.into(),
    }
}

pub(crate) fn request(protocol: ReasoningProtocol, messages: Vec<Message>) -> Request {
    Request {
        provider: "claude".into(),
        base_url: "https://api.anthropic.com".into(),
        model: "claude-opus-4-5".into(),
        messages,
        tools: vec![tool(
            "read_file",
            r#"{"properties":{"path":{"type":"string"}},"type":"object"}"#,
        )],
        effort: None,
        max_output_tokens: None,
        options: Options {
            reasoning_protocol: protocol,
            ..Options::default()
        },
    }
}

fn body(request: &Request) -> Value {
    let http = Anthropic.build(request).expect("build");
    serde_json::from_slice(&http.body).expect("body is JSON")
}

fn body_text(request: &Request) -> String {
    String::from_utf8(Anthropic.build(request).expect("build").body).expect("utf-8")
}

/// A conversation with a system prompt, a tool round trip and a follow-up question.
fn conversation() -> Vec<Message> {
    vec![
        msg(Role::System, "You are Reasonix."),
        msg(Role::User, "Read a.txt and b.txt"),
        Message {
            reasoning: Some("I should read both files.".into()),
            tool_calls: vec![
                call("toolu_1", "read_file", r#"{"path":"a.txt"}"#),
                call("toolu_2", "read_file", r#"{"path":"b.txt"}"#),
            ],
            ..msg(Role::Assistant, "Reading them.")
        },
        tool_result("toolu_1", "alpha"),
        tool_result("toolu_2", "beta"),
        msg(Role::User, "Now summarise."),
    ]
}

// ---- request ----

#[test]
fn url_strips_v1_and_honours_request_url() {
    let mut r = request(ReasoningProtocol::Anthropic, vec![msg(Role::User, "hi")]);
    assert_eq!(
        Anthropic.build(&r).unwrap().url,
        "https://api.anthropic.com/v1/messages"
    );
    r.base_url = "https://api.deepseek.com/anthropic/v1".into();
    assert_eq!(
        Anthropic.build(&r).unwrap().url,
        "https://api.deepseek.com/anthropic/v1/messages"
    );
    r.base_url = "https://gw.example.com/anthropic".into();
    assert_eq!(
        Anthropic.build(&r).unwrap().url,
        "https://gw.example.com/anthropic/v1/messages"
    );
    r.options.request_url = Some("https://gw.example.com/custom".into());
    assert_eq!(
        Anthropic.build(&r).unwrap().url,
        "https://gw.example.com/custom"
    );
}

#[test]
fn headers_carry_the_api_version_and_config_headers_override() {
    let mut r = request(ReasoningProtocol::Anthropic, vec![msg(Role::User, "hi")]);
    let headers = Anthropic.build(&r).unwrap().headers;
    assert!(headers.contains(&("anthropic-version".into(), "2023-06-01".into())));
    assert!(headers.contains(&("content-type".into(), "application/json".into())));
    assert!(
        !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("x-api-key"))
    );
    r.options.headers = vec![
        ("Anthropic-Version".into(), "2099-01-01".into()),
        ("x-extra".into(), "1".into()),
    ];
    let headers = Anthropic.build(&r).unwrap().headers;
    let versions: Vec<_> = headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("anthropic-version"))
        .collect();
    assert_eq!(
        versions,
        vec![&("Anthropic-Version".to_string(), "2099-01-01".to_string())]
    );
    assert!(headers.contains(&("x-extra".into(), "1".into())));
}

#[test]
fn native_body_shape_with_cache_breakpoints() {
    let mut r = request(ReasoningProtocol::Anthropic, conversation());
    r.options.thinking = Some("adaptive".into());
    r.options.temperature = Some(0.3);
    r.effort = Some("high".into());
    let b = body(&r);
    assert_eq!(b["model"], "claude-opus-4-5");
    assert_eq!(b["stream"], true);
    assert_eq!(b["max_tokens"], 32000, "thinking on native → 32K default");
    assert!(
        b.get("temperature").is_none(),
        "native Claude gets no temperature"
    );
    assert_eq!(
        b["thinking"],
        json!({"type": "adaptive", "display": "summarized"})
    );
    assert_eq!(b["output_config"], json!({"effort": "high"}));
    assert_eq!(
        b["system"],
        json!([{"type": "text", "text": "You are Reasonix.", "cache_control": {"type": "ephemeral"}}])
    );
    // With system text, the tools carry no breakpoint.
    assert!(b["tools"][0].get("cache_control").is_none());
    assert_eq!(b["tools"][0]["input_schema"]["type"], "object");
    let messages = b["messages"].as_array().unwrap();
    let last = messages.last().unwrap()["content"].as_array().unwrap();
    assert_eq!(
        last.last().unwrap()["cache_control"],
        json!({"type": "ephemeral"})
    );
    // Exactly two breakpoints in the whole body.
    assert_eq!(body_text(&r).matches("cache_control").count(), 2);
}

#[test]
fn breakpoint_moves_to_the_last_tool_without_system_text() {
    let mut r = request(ReasoningProtocol::Anthropic, vec![msg(Role::User, "hi")]);
    r.tools.push(tool("write_file", r#"{"type":"object"}"#));
    let b = body(&r);
    assert!(b.get("system").is_none());
    assert!(b["tools"][0].get("cache_control").is_none());
    assert_eq!(b["tools"][1]["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(b["max_tokens"], 16384);
    assert_eq!(
        b["messages"][0]["content"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
}

#[test]
fn deepseek_gets_no_cache_control_and_keeps_temperature() {
    let mut r = request(ReasoningProtocol::Deepseek, conversation());
    r.base_url = "https://api.deepseek.com/anthropic".into();
    r.options.thinking = Some("enabled".into());
    r.options.temperature = Some(0.0);
    r.effort = Some("max".into());
    let text = body_text(&r);
    assert!(!text.contains("cache_control"), "{text}");
    let b = body(&r);
    assert_eq!(b["max_tokens"], 384000);
    assert_eq!(b["temperature"], 0.0);
    assert_eq!(b["thinking"], json!({"type": "enabled"}));
    assert_eq!(b["output_config"], json!({"effort": "max"}));
    assert_eq!(
        b["system"],
        json!([{"type": "text", "text": "You are Reasonix."}])
    );
}

#[test]
fn configured_max_tokens_wins() {
    let mut r = request(ReasoningProtocol::Deepseek, vec![msg(Role::User, "hi")]);
    r.max_output_tokens = Some(4096);
    assert_eq!(body(&r)["max_tokens"], 4096);
}

#[test]
fn tool_results_merge_into_one_user_message() {
    let r = request(ReasoningProtocol::Anthropic, conversation());
    let b = body(&r);
    let messages = b["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[1]["role"], "assistant");
    let assistant = messages[1]["content"].as_array().unwrap();
    assert_eq!(
        assistant[0],
        json!({"type": "text", "text": "Reading them."})
    );
    assert_eq!(
        assistant[1],
        json!({"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.txt"}})
    );
    assert_eq!(assistant[2]["id"], "toolu_2");
    assert_eq!(messages[2]["role"], "user");
    let results = messages[2]["content"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(
        results[0],
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "alpha"})
    );
    assert_eq!(results[1]["tool_use_id"], "toolu_2");
    assert_eq!(results[2]["type"], "text");
    assert_eq!(results[2]["text"], "Now summarise.");
}

#[test]
fn invalid_tool_arguments_become_an_empty_object() {
    let messages = vec![
        msg(Role::User, "go"),
        Message {
            tool_calls: vec![
                call("t1", "read_file", r#"{"path": "a.t"#),
                call("t2", "read_file", "[1]"),
            ],
            ..msg(Role::Assistant, " \n")
        },
        tool_result("t1", "error"),
        tool_result("t2", ""),
    ];
    let b = body(&request(ReasoningProtocol::Anthropic, messages));
    let results = b["messages"][2]["content"].as_array().unwrap();
    assert!(
        results[1].get("content").is_none(),
        "empty tool output → no content: {results:?}"
    );
    let assistant = b["messages"][1]["content"].as_array().unwrap();
    assert_eq!(assistant.len(), 2, "no empty text block");
    assert_eq!(assistant[0]["input"], json!({}));
    assert_eq!(assistant[1]["input"], json!({}));
}

#[test]
fn tool_result_without_id_is_rejected_with_its_position() {
    let messages = vec![msg(Role::User, "go"), msg(Role::Tool, "orphan")];
    let err = Anthropic
        .build(&request(ReasoningProtocol::Anthropic, messages))
        .unwrap_err();
    assert!(
        err.contains("message 1") && err.contains("tool_call_id"),
        "{err}"
    );
}

#[test]
fn invalid_schema_is_rejected_naming_the_tool() {
    let mut r = request(ReasoningProtocol::Anthropic, vec![msg(Role::User, "hi")]);
    r.tools = vec![tool("broken", "{not json")];
    let err = Anthropic.build(&r).unwrap_err();
    assert!(err.contains("`broken`"), "{err}");
}

#[test]
fn schema_bytes_are_preserved() {
    let schema = r#"{"properties":{"n":{"minimum":1.50,"type":"number"}},"type":"object"}"#;
    let mut r = request(ReasoningProtocol::Anthropic, vec![msg(Role::User, "hi")]);
    r.tools = vec![tool("count", schema)];
    assert!(body_text(&r).contains(&format!("\"input_schema\":{schema}")));
}

#[test]
fn prefix_bytes_do_not_depend_on_the_conversation() {
    let short = request(ReasoningProtocol::Anthropic, conversation()[..2].to_vec());
    let long = request(ReasoningProtocol::Anthropic, conversation());
    let prefix = |text: String| text[..text.find("\"messages\":").unwrap()].to_string();
    assert_eq!(prefix(body_text(&short)), prefix(body_text(&long)));
    // And without system text (breakpoint on the tool), too.
    let short = request(ReasoningProtocol::Anthropic, conversation()[1..2].to_vec());
    let long = request(ReasoningProtocol::Anthropic, conversation()[1..].to_vec());
    assert_eq!(prefix(body_text(&short)), prefix(body_text(&long)));
}

#[test]
fn extra_body_merges_under_protocol_fields() {
    let mut r = request(ReasoningProtocol::Anthropic, vec![msg(Role::User, "hi")]);
    r.options.extra_body.insert("top_k".into(), json!(5));
    r.options.extra_body.insert("model".into(), json!("other"));
    r.options.extra_body.insert("stream".into(), json!(false));
    let b = body(&r);
    assert_eq!(b["top_k"], 5);
    assert_eq!(b["model"], "claude-opus-4-5");
    assert_eq!(b["stream"], true);
    assert_eq!(body_text(&r).matches("\"model\"").count(), 1);
}

fn signed_state() -> String {
    json!({"blocks": [
        {"type": "thinking", "thinking": "Let me look.", "signature": "sig-abc"},
        {"type": "thinking", "thinking": "unsigned", "signature": ""},
        {"type": "redacted_thinking", "data": "opaque=="}
    ]})
    .to_string()
}

fn replay_conversation() -> Vec<Message> {
    vec![
        msg(Role::User, "go"),
        Message {
            reasoning: Some("Let me look.".into()),
            reasoning_state: Some(signed_state()),
            tool_calls: vec![call("t1", "read_file", r#"{"path":"a"}"#)],
            ..msg(Role::Assistant, "")
        },
        tool_result("t1", "alpha"),
    ]
}

#[test]
fn native_replays_signed_thinking_only_when_thinking_is_on() {
    let mut r = request(ReasoningProtocol::Anthropic, replay_conversation());
    r.options.thinking = Some("adaptive".into());
    let b = body(&r);
    let assistant = b["messages"][1]["content"].as_array().unwrap();
    assert_eq!(
        assistant[0],
        json!({"type": "thinking", "thinking": "Let me look.", "signature": "sig-abc"})
    );
    assert_eq!(
        assistant[1],
        json!({"type": "redacted_thinking", "data": "opaque=="})
    );
    assert_eq!(assistant[2]["type"], "tool_use");
    assert_eq!(assistant.len(), 3, "the unsigned block is dropped");

    // Signed blocks are replayed verbatim even when stripping (the signature binds the text).
    r.options.strip_chain_of_thought = true;
    assert_eq!(
        body(&r)["messages"][1]["content"][0]["thinking"],
        "Let me look."
    );

    for thinking in [Some("disabled"), None] {
        r.options.thinking = thinking.map(str::to_string);
        let b = body(&r);
        let assistant = b["messages"][1]["content"].as_array().unwrap();
        assert_eq!(assistant.len(), 1, "{thinking:?}: {assistant:?}");
        assert_eq!(assistant[0]["type"], "tool_use");
    }
    r.options.thinking = Some("disabled".into());
    assert_eq!(body(&r)["thinking"], json!({"type": "disabled"}));
}

#[test]
fn deepseek_replays_unsigned_thinking_before_tool_use() {
    let mut r = request(ReasoningProtocol::Deepseek, replay_conversation());
    r.options.thinking = Some("enabled".into());
    let b = body(&r);
    let assistant = b["messages"][1]["content"].as_array().unwrap();
    assert_eq!(
        assistant[0],
        json!({"type": "thinking", "thinking": "Let me look."})
    );
    assert_eq!(assistant[1]["type"], "tool_use");
    assert_eq!(assistant.len(), 2);

    r.options.strip_chain_of_thought = true;
    assert_eq!(
        body(&r)["messages"][1]["content"][0],
        json!({"type": "thinking", "thinking": ""})
    );

    // Lost reasoning while thinking: an empty block keeps the endpoint happy.
    r.options.strip_chain_of_thought = false;
    r.messages[1].reasoning = None;
    assert_eq!(
        body(&r)["messages"][1]["content"][0],
        json!({"type": "thinking", "thinking": ""})
    );
}

#[test]
fn no_reasoning_replay_for_protocol_none_or_plain_answers() {
    let mut r = request(ReasoningProtocol::None, replay_conversation());
    r.options.thinking = Some("enabled".into());
    let b = body(&r);
    assert!(b.get("thinking").is_none());
    assert_eq!(b["messages"][1]["content"].as_array().unwrap().len(), 1);

    // DeepSeek: an answer without tool calls gets no thinking block.
    let mut r = request(
        ReasoningProtocol::Deepseek,
        vec![
            msg(Role::User, "hi"),
            Message {
                reasoning: Some("hmm".into()),
                ..msg(Role::Assistant, "hello")
            },
            msg(Role::User, "again"),
        ],
    );
    r.options.thinking = Some("enabled".into());
    assert_eq!(
        body(&r)["messages"][1]["content"],
        json!([{"type": "text", "text": "hello"}])
    );
}

// ---- decoding ----

/// A recorded-shape stream: thinking with a signature, text, a tool call, usage with caching.
const THINKING_TOOL_STREAM: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-opus-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":1200,"cache_read_input_tokens":3000,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user wants "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"the file."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Okay, reading "}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"it — ✓."}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_01A","name":"read_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"sr"}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"c/main.rs\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}

"#;

fn decoder() -> Box<dyn Decoder> {
    Anthropic.decoder(&request(ReasoningProtocol::Anthropic, vec![]))
}

#[test]
fn decodes_thinking_text_tool_use_and_usage() {
    let events = run(decoder().as_mut(), THINKING_TOOL_STREAM).unwrap();
    let state = json!({"blocks": [
        {"type": "thinking", "thinking": "The user wants the file.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}
    ]});
    assert_eq!(
        events,
        vec![
            Event::Reasoning("The user wants ".into()),
            Event::Reasoning("the file.".into()),
            Event::Text("Okay, reading ".into()),
            Event::Text("it — ✓.".into()),
            Event::ToolCall(call("toolu_01A", "read_file", r#"{"path": "src/main.rs"}"#)),
            Event::ReasoningState(state.to_string()),
            Event::Usage(Usage {
                prompt: 25 + 1200 + 3000,
                completion: 89,
                cache_hit: 3000,
                cache_miss: 25 + 1200,
                reasoning: 0,
            }),
            Event::Done(Finish::ToolCalls),
        ]
    );
}

#[test]
fn captured_state_is_accepted_back_in_requests() {
    let events = run(decoder().as_mut(), THINKING_TOOL_STREAM).unwrap();
    let state = events
        .iter()
        .find_map(|e| match e {
            Event::ReasoningState(s) => Some(s.clone()),
            _ => None,
        })
        .unwrap();
    let messages = vec![
        msg(Role::User, "go"),
        Message {
            reasoning_state: Some(state),
            tool_calls: vec![call("toolu_01A", "read_file", r#"{"path": "src/main.rs"}"#)],
            ..msg(Role::Assistant, "Okay, reading it — ✓.")
        },
        tool_result("toolu_01A", "fn main() {}"),
    ];
    let mut r = request(ReasoningProtocol::Anthropic, messages);
    r.options.thinking = Some("enabled".into());
    let b = body(&r);
    let blocks = b["messages"][1]["content"].as_array().unwrap();
    let types: Vec<_> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["thinking", "redacted_thinking", "text", "tool_use"]);
    assert_eq!(
        blocks[0]["signature"],
        "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"
    );
}

/// Two tool calls whose argument JSON arrives in many small fragments.
fn two_tool_stream() -> String {
    let mut sse = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n",
    );
    let args = [
        r#"{"path":"docs/ARCHITECTURE.md","limit":200}"#,
        r#"{"command":"cargo test -p x","timeout":30}"#,
    ];
    for (i, (id, name)) in [("toolu_A", "read_file"), ("toolu_B", "bash")]
        .iter()
        .enumerate()
    {
        sse.push_str(&format!(
            "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"{name}\",\"input\":{{}}}}}}\n\n"
        ));
        let chars: Vec<char> = args[i].chars().collect();
        for piece in chars.chunks(3) {
            let piece: String = piece.iter().collect();
            let delta = json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": piece}});
            sse.push_str(&format!("event: content_block_delta\ndata: {delta}\n\n"));
        }
        sse.push_str(&format!(
            "event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{i}}}\n\n"
        ));
    }
    sse.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":40}}\n\n");
    sse.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    sse
}

#[test]
fn two_tool_calls_with_fragmented_arguments() {
    let events = run(decoder().as_mut(), &two_tool_stream()).unwrap();
    assert_eq!(
        events,
        vec![
            Event::ToolCall(call(
                "toolu_A",
                "read_file",
                r#"{"path":"docs/ARCHITECTURE.md","limit":200}"#
            )),
            Event::ToolCall(call(
                "toolu_B",
                "bash",
                r#"{"command":"cargo test -p x","timeout":30}"#
            )),
            Event::Usage(Usage {
                prompt: 10,
                completion: 40,
                cache_hit: 0,
                cache_miss: 10,
                reasoning: 0
            }),
            Event::Done(Finish::ToolCalls),
        ]
    );
}

#[test]
fn empty_tool_input_becomes_empty_object() {
    let sse = concat!(
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"now\",\"input\":{}}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let events = run(decoder().as_mut(), sse).unwrap();
    assert_eq!(
        events,
        vec![
            Event::ToolCall(call("t", "now", "{}")),
            Event::Done(Finish::ToolCalls)
        ]
    );
}

#[test]
fn stop_reasons_map() {
    for (reason, finish) in [
        ("end_turn", Finish::Stop),
        ("stop_sequence", Finish::Stop),
        ("tool_use", Finish::ToolCalls),
        ("max_tokens", Finish::Length),
        ("refusal", Finish::ContentFilter),
        ("pause_turn", Finish::Other),
    ] {
        let sse = format!(
            "event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"{reason}\"}},\"usage\":{{\"output_tokens\":3}}}}\n\nevent: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
        );
        let events = run(decoder().as_mut(), &sse).unwrap();
        assert_eq!(events.last(), Some(&Event::Done(finish)), "{reason}");
    }
}

#[test]
fn usage_is_the_maximum_over_start_and_delta() {
    let sse = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":100,\"cache_read_input_tokens\":50,\"output_tokens\":2}}}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"input_tokens\":100,\"cache_creation_input_tokens\":7,\"output_tokens\":12}}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{},\"usage\":{\"output_tokens\":9}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let events = run(decoder().as_mut(), sse).unwrap();
    assert_eq!(
        events,
        vec![
            Event::Usage(Usage {
                prompt: 157,
                completion: 12,
                cache_hit: 50,
                cache_miss: 107,
                reasoning: 0
            }),
            Event::Done(Finish::Stop),
        ]
    );
}

#[test]
fn error_events_are_upstream_failures() {
    for (kind, retryable, status) in [
        ("overloaded_error", true, Some(529)),
        ("api_error", true, Some(500)),
        ("rate_limit_error", true, Some(429)),
        ("invalid_request_error", false, Some(400)),
    ] {
        let sse = format!(
            "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"usage\":{{\"input_tokens\":1}}}}}}\n\nevent: error\ndata: {{\"type\": \"error\", \"error\": {{\"type\": \"{kind}\", \"message\": \"Overloaded\"}}}}\n\n"
        );
        match run(decoder().as_mut(), &sse) {
            Err(Failure::Upstream {
                message,
                retryable: r,
                status: s,
            }) => {
                assert!(
                    message.contains("claude")
                        && message.contains(kind)
                        && message.contains("Overloaded"),
                    "{message}"
                );
                assert_eq!((r, s), (retryable, status), "{kind}");
            }
            other => panic!("{kind}: {other:?}"),
        }
    }
}

#[test]
fn non_json_data_is_a_bad_response_quoting_it() {
    let junk = format!("<html>{}</html>", "x".repeat(500));
    let sse = format!("event: message_start\ndata: {junk}\n\n");
    match run(decoder().as_mut(), &sse) {
        Err(Failure::BadResponse(message)) => {
            assert!(
                message.contains("claude") && message.contains("<html>xxx"),
                "{message}"
            );
            assert!(message.len() < 400, "quote is bounded: {}", message.len());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_message_stop_is_interrupted() {
    let cut = &THINKING_TOOL_STREAM[..THINKING_TOOL_STREAM.find("event: message_delta").unwrap()];
    assert_eq!(run(decoder().as_mut(), cut), Err(Failure::Interrupted));
    assert_eq!(run(decoder().as_mut(), ""), Err(Failure::Interrupted));
}

#[test]
fn events_after_message_stop_are_ignored() {
    let sse = format!(
        "{THINKING_TOOL_STREAM}data: [DONE]\n\nevent: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"late\"}}}}\n\n"
    );
    let events = run(decoder().as_mut(), &sse).unwrap();
    assert_eq!(events.last(), Some(&Event::Done(Finish::ToolCalls)));
    assert!(!events.contains(&Event::Text("late".into())));
}

proptest! {
    #[test]
    fn any_chunking_decodes_identically(sizes in proptest::collection::vec(1usize..64, 1..16), which in 0usize..2, crlf in any::<bool>()) {
        let sse = if which == 0 { THINKING_TOOL_STREAM.to_string() } else { two_tool_stream() };
        // CRLF framing (some proxies rewrite line ends) must not change anything either.
        let framed = if crlf { sse.replace('\n', "\r\n") } else { sse.clone() };
        let whole = run(decoder().as_mut(), &sse).unwrap();
        let chunked = run_chunked(decoder().as_mut(), &framed, &sizes).unwrap();
        prop_assert_eq!(chunked, whole);
    }
}

#[test]
fn images_go_inside_tool_results_and_user_turns_as_base64_blocks() {
    let image = |data: &str| crate::wire::Image {
        media_type: "image/jpeg".into(),
        data: data.into(),
    };
    let mut assistant = msg(Role::Assistant, "");
    assistant.tool_calls = vec![call("toolu_1", "shot", "{}")];
    let mut result = msg(Role::Tool, "[image: image/jpeg, about 3 bytes]");
    result.tool_call_id = Some("toolu_1".into());
    result.images = vec![image("AAAA")];
    let mut user = msg(Role::User, "compare");
    user.images = vec![image("BBBB")];
    let request = request(
        ReasoningProtocol::Anthropic,
        vec![msg(Role::User, "look"), assistant, result, user],
    );
    let body = body(&request);
    let block = |data: &str| json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": data}});
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "text", "text": "[image: image/jpeg, about 3 bytes]"},
                block("AAAA"),
            ]},
            {"type": "text", "text": "compare"},
            // The last block carries the prompt cache breakpoint, an image as any other.
            {"cache_control": {"type": "ephemeral"}, "type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "BBBB"}},
        ]})
    );
}
