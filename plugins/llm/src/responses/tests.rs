use proptest::prelude::*;
use serde_json::{Value, json};

use super::Responses;
use crate::anthropic::tests::{call, merged, msg, run, run_chunked, tool, tool_result};
use crate::wire::{
    Decoder, Event, Failure, Finish, Message, Options, Protocol, ReasoningProtocol, Request, Role,
    Usage,
};

fn request(protocol: ReasoningProtocol, messages: Vec<Message>) -> Request {
    Request {
        provider: "oai".into(),
        base_url: "https://api.openai.com/v1/".into(),
        model: "gpt-5".into(),
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
    serde_json::from_slice(&Responses.build(request).expect("build").body).expect("body is JSON")
}

fn body_text(request: &Request) -> String {
    String::from_utf8(Responses.build(request).expect("build").body).expect("utf-8")
}

fn reasoning_item(encrypted: bool) -> Value {
    let mut item = json!({
        "id": "rs_1",
        "type": "reasoning",
        "status": "completed",
        "summary": [{"type": "summary_text", "text": "Checking the file."}],
    });
    if encrypted {
        item["encrypted_content"] = json!("gAAAAB-secret");
    }
    item
}

fn conversation(state: Option<Value>) -> Vec<Message> {
    vec![
        msg(Role::System, "You are Reasonix."),
        msg(Role::System, "Be brief."),
        msg(Role::User, "Read a.txt"),
        Message {
            reasoning: Some("Checking the file.".into()),
            reasoning_state: state.map(|s| s.to_string()),
            tool_calls: vec![call("call_1", "read_file", r#"{"path":"a.txt"}"#)],
            ..msg(Role::Assistant, "Reading.")
        },
        tool_result("call_1", "alpha"),
    ]
}

// ---- request ----

#[test]
fn url_and_headers() {
    let mut r = request(ReasoningProtocol::Openai, vec![msg(Role::User, "hi")]);
    let http = Responses.build(&r).unwrap();
    assert_eq!(http.url, "https://api.openai.com/v1/responses");
    assert!(
        http.headers
            .contains(&("content-type".into(), "application/json".into()))
    );
    r.options.request_url = Some("https://gw.example.com/r".into());
    r.options.headers = vec![("x-dashscope-session-cache".into(), "enable".into())];
    let http = Responses.build(&r).unwrap();
    assert_eq!(http.url, "https://gw.example.com/r");
    assert!(
        http.headers
            .contains(&("x-dashscope-session-cache".into(), "enable".into()))
    );
}

#[test]
fn body_shape() {
    let mut r = request(ReasoningProtocol::Generic, conversation(None));
    r.effort = Some("high".into());
    r.max_output_tokens = Some(8000);
    r.options.temperature = Some(0.2);
    r.options.extra_body.insert("store".into(), json!(true));
    r.options.extra_body.insert("top_p".into(), json!(0.9));
    let b = body(&r);
    assert_eq!(b["model"], "gpt-5");
    assert_eq!(b["instructions"], "You are Reasonix.\n\nBe brief.");
    assert_eq!(b["stream"], true);
    assert_eq!(b["store"], false, "protocol fields win over extra_body");
    assert_eq!(b["top_p"], 0.9);
    assert_eq!(b["reasoning"], json!({"effort": "high"}));
    assert_eq!(b["max_output_tokens"], 8000);
    assert_eq!(b["temperature"], 0.2);
    assert!(b.get("include").is_none(), "include only for OpenAI");
    assert!(b.get("previous_response_id").is_none());
    assert_eq!(
        b["tools"],
        json!([{"type": "function", "name": "read_file", "description": "read_file tool",
                "parameters": {"properties": {"path": {"type": "string"}}, "type": "object"}, "strict": false}])
    );
    assert_eq!(
        b["input"],
        json!([
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Read a.txt"}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Reading."}]},
            {"type": "function_call", "call_id": "call_1", "name": "read_file", "arguments": "{\"path\":\"a.txt\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "alpha"},
        ])
    );
}

#[test]
fn optional_fields_are_omitted_and_effort_maps_disabled_to_none() {
    let mut r = request(ReasoningProtocol::Openai, vec![msg(Role::User, "hi")]);
    let b = body(&r);
    for key in [
        "instructions",
        "reasoning",
        "max_output_tokens",
        "temperature",
        "include",
    ] {
        assert!(b.get(key).is_none(), "{key}");
    }
    for effort in ["disabled", "off"] {
        r.effort = Some(effort.into());
        let b = body(&r);
        assert_eq!(b["reasoning"], json!({"effort": "none"}));
        assert!(b.get("include").is_none());
    }
    r.effort = Some("medium".into());
    assert_eq!(body(&r)["include"], json!(["reasoning.encrypted_content"]));
}

#[test]
fn instructions_and_tools_are_byte_stable() {
    let short = request(ReasoningProtocol::Openai, conversation(None)[..3].to_vec());
    let long = request(ReasoningProtocol::Openai, conversation(None));
    let prefix = |text: String| text[..text.find("\"input\":").unwrap()].to_string();
    assert_eq!(prefix(body_text(&short)), prefix(body_text(&long)));
    let schema = r#"{"properties":{"n":{"minimum":1.50,"type":"number"}},"type":"object"}"#;
    let mut r = request(ReasoningProtocol::Openai, vec![msg(Role::User, "hi")]);
    r.tools = vec![tool("count", schema)];
    assert!(body_text(&r).contains(&format!("\"parameters\":{schema}")));
    r.tools = vec![tool("bad", "[1,2]")];
    assert!(Responses.build(&r).unwrap_err().contains("`bad`"));
}

#[test]
fn reasoning_items_are_replayed_before_the_assistant_output() {
    let state = json!({"items": [reasoning_item(true)]});
    let r = request(ReasoningProtocol::Openai, conversation(Some(state)));
    let input = body(&r)["input"].as_array().unwrap().clone();
    assert_eq!(
        input[1],
        json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAAB-secret",
               "summary": [{"type": "summary_text", "text": "Checking the file."}]})
    );
    assert_eq!(input[2]["type"], "message");
    assert_eq!(input[3]["type"], "function_call");
}

#[test]
fn stripped_replay_keeps_id_and_encrypted_content_only() {
    let mut item = reasoning_item(true);
    item["content"] = json!([{"type": "reasoning_text", "text": "secret thoughts"}]);
    let mut r = request(
        ReasoningProtocol::Openai,
        conversation(Some(json!({"items": [item]}))),
    );
    r.options.strip_chain_of_thought = true;
    let text = body_text(&r);
    assert!(
        !text.contains("secret thoughts") && !text.contains("Checking the file."),
        "{text}"
    );
    assert_eq!(
        body(&r)["input"][1],
        json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAAB-secret", "summary": []})
    );
}

#[test]
fn openai_skips_items_it_could_not_resolve_but_stateless_vendors_get_them() {
    let state = json!({"items": [reasoning_item(false)]});
    let r = request(ReasoningProtocol::Openai, conversation(Some(state.clone())));
    assert_eq!(
        body(&r)["input"][1]["type"],
        "message",
        "no encrypted content → not replayed"
    );
    let r = request(ReasoningProtocol::Generic, conversation(Some(state)));
    assert_eq!(body(&r)["input"][1]["id"], "rs_1");
    let r = request(
        ReasoningProtocol::None,
        conversation(Some(json!({"items": [reasoning_item(true)]}))),
    );
    assert_eq!(
        body(&r)["input"][1]["type"],
        "message",
        "protocol none never replays"
    );
}

#[test]
fn deepseek_rebuilds_reasoning_from_text_without_state() {
    let mut r = request(ReasoningProtocol::Deepseek, conversation(None));
    assert_eq!(
        body(&r)["input"][1],
        json!({"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "Checking the file."}]})
    );
    r.options.strip_chain_of_thought = true;
    assert_eq!(body(&r)["input"][1]["content"][0]["text"], "");
}

#[test]
fn tool_result_without_id_is_rejected() {
    let r = request(
        ReasoningProtocol::Openai,
        vec![msg(Role::User, "go"), msg(Role::Tool, "x")],
    );
    let err = Responses.build(&r).unwrap_err();
    assert!(
        err.contains("message 1") && err.contains("tool_call_id"),
        "{err}"
    );
}

// ---- decoding ----

fn decoder() -> Box<dyn Decoder> {
    Responses.decoder(&request(ReasoningProtocol::Openai, vec![]))
}

/// Recorded-shape stream: reasoning summary, text, one function call, usage with caching.
const STREAM: &str = r#"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_1","status":"in_progress"}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","sequence_number":3,"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":4,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**Plan** "}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":5,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"read it"}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","sequence_number":6,"item_id":"rs_1","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":7,"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"then answer"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":8,"output_index":0,"item":{"id":"rs_1","type":"reasoning","encrypted_content":"gAAAAB-enc","summary":[{"type":"summary_text","text":"**Plan** read it"},{"type":"summary_text","text":"then answer"}]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":9,"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":10,"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":11,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Reading "}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":12,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"a.txt — ✓"}

event: response.output_text.done
data: {"type":"response.output_text.done","sequence_number":13,"item_id":"msg_1","output_index":1,"content_index":0,"text":"Reading a.txt — ✓"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":14,"output_index":1,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Reading a.txt — ✓","annotations":[]}]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":15,"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_AAA","name":"read_file"}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":16,"item_id":"fc_1","output_index":2,"delta":"{\"path\":"}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":17,"item_id":"fc_1","output_index":2,"delta":"\"a.txt\"}"}

event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","sequence_number":18,"item_id":"fc_1","output_index":2,"arguments":"{\"path\":\"a.txt\"}"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":19,"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"path\":\"a.txt\"}","call_id":"call_AAA","name":"read_file"}}

event: response.completed
data: {"type":"response.completed","sequence_number":20,"response":{"id":"resp_1","status":"completed","usage":{"input_tokens":1500,"input_tokens_details":{"cached_tokens":1024},"output_tokens":300,"output_tokens_details":{"reasoning_tokens":256},"total_tokens":1800}}}

"#;

#[test]
fn decodes_reasoning_text_function_call_and_usage() {
    let events = run(decoder().as_mut(), STREAM).unwrap();
    let item = json!({"id":"rs_1","type":"reasoning","encrypted_content":"gAAAAB-enc","summary":[{"type":"summary_text","text":"**Plan** read it"},{"type":"summary_text","text":"then answer"}]});
    assert_eq!(
        events,
        vec![
            Event::Reasoning("**Plan** ".into()),
            Event::Reasoning("read it".into()),
            Event::Reasoning("\n\n".into()),
            Event::Reasoning("then answer".into()),
            Event::Text("Reading ".into()),
            Event::Text("a.txt — ✓".into()),
            Event::ToolCall(call("call_AAA", "read_file", r#"{"path":"a.txt"}"#)),
            Event::ReasoningState(json!({"items": [item]}).to_string()),
            Event::Usage(Usage {
                prompt: 1500,
                completion: 300,
                cache_hit: 1024,
                cache_miss: 476,
                reasoning: 256
            }),
            Event::Done(Finish::ToolCalls),
        ]
    );
}

#[test]
fn captured_state_round_trips_into_the_next_request() {
    let events = run(decoder().as_mut(), STREAM).unwrap();
    let state = events.iter().find_map(|e| match e {
        Event::ReasoningState(s) => Some(serde_json::from_str::<Value>(s).unwrap()),
        _ => None,
    });
    let r = request(ReasoningProtocol::Openai, conversation(state));
    let input = body(&r)["input"].as_array().unwrap().clone();
    assert_eq!(input[1]["type"], "reasoning");
    assert_eq!(input[1]["id"], "rs_1");
    assert_eq!(input[1]["encrypted_content"], "gAAAAB-enc");
}

/// Two function calls with arguments in many fragments, interleaved by output index, keyed only
/// by item id on the deltas; the done items carry no arguments (accumulated ones are used).
fn two_call_stream() -> String {
    let mut sse = String::new();
    let mut ev = |value: Value| {
        sse.push_str(&format!(
            "event: {}\ndata: {value}\n\n",
            value["type"].as_str().unwrap()
        ));
    };
    let args = [
        r#"{"path":"docs/ARCHITECTURE.md","limit":200}"#,
        r#"{"command":"cargo test","timeout":30}"#,
    ];
    for (i, (id, name)) in [("call_A", "read_file"), ("call_B", "bash")]
        .iter()
        .enumerate()
    {
        ev(
            json!({"type": "response.output_item.added", "output_index": i,
                  "item": {"id": format!("fc_{i}"), "type": "function_call", "arguments": "", "call_id": id, "name": name}}),
        );
    }
    let pieces: Vec<Vec<String>> = args
        .iter()
        .map(|a| {
            a.chars()
                .collect::<Vec<_>>()
                .chunks(4)
                .map(|c| c.iter().collect())
                .collect()
        })
        .collect();
    for step in 0..pieces[0].len().max(pieces[1].len()) {
        for (i, p) in pieces.iter().enumerate() {
            if let Some(piece) = p.get(step) {
                ev(
                    json!({"type": "response.function_call_arguments.delta", "item_id": format!("fc_{i}"), "delta": piece}),
                );
            }
        }
    }
    for (i, (id, name)) in [("call_A", "read_file"), ("call_B", "bash")]
        .iter()
        .enumerate()
    {
        ev(
            json!({"type": "response.output_item.done", "output_index": i,
                  "item": {"id": format!("fc_{i}"), "type": "function_call", "call_id": id, "name": name}}),
        );
    }
    ev(
        json!({"type": "response.completed", "response": {"status": "completed",
              "usage": {"input_tokens": 10, "output_tokens": 5}}}),
    );
    sse
}

#[test]
fn two_function_calls_with_fragmented_arguments() {
    let events = run(decoder().as_mut(), &two_call_stream()).unwrap();
    assert_eq!(
        events,
        vec![
            Event::ToolCall(call(
                "call_A",
                "read_file",
                r#"{"path":"docs/ARCHITECTURE.md","limit":200}"#
            )),
            Event::ToolCall(call(
                "call_B",
                "bash",
                r#"{"command":"cargo test","timeout":30}"#
            )),
            Event::Usage(Usage {
                prompt: 10,
                completion: 5,
                cache_hit: 0,
                cache_miss: 10,
                reasoning: 0
            }),
            Event::Done(Finish::ToolCalls),
        ]
    );
}

#[test]
fn plain_answer_stops_and_reasoning_text_deltas_count() {
    let sse = concat!(
        "data: {\"type\":\"response.reasoning_text.delta\",\"delta\":\"think\"}\n\n",
        "data: {\"type\":\"response.output_text.delta\",\"delta\":\"Hello\"}\n\n",
        "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n",
    );
    let events = run(decoder().as_mut(), sse).unwrap();
    assert_eq!(
        events,
        vec![
            Event::Reasoning("think".into()),
            Event::Text("Hello".into()),
            Event::Done(Finish::Stop)
        ]
    );
}

#[test]
fn incomplete_maps_to_length_or_content_filter() {
    for (reason, finish) in [
        ("max_output_tokens", Finish::Length),
        ("content_filter", Finish::ContentFilter),
    ] {
        let sse = format!(
            "event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"delta\":\"partial\"}}\n\nevent: response.incomplete\ndata: {{\"type\":\"response.incomplete\",\"response\":{{\"status\":\"incomplete\",\"incomplete_details\":{{\"reason\":\"{reason}\"}},\"usage\":{{\"input_tokens\":7,\"output_tokens\":100}}}}}}\n\n"
        );
        let events = run(decoder().as_mut(), &sse).unwrap();
        assert_eq!(events.len(), 3, "{events:?}");
        assert_eq!(events[2], Event::Done(finish), "{reason}");
    }
}

#[test]
fn failures_are_upstream_errors() {
    let cases = [
        (
            r#"{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The server had an error"}}}"#,
            true,
            Some(500),
            "server_error",
        ),
        (
            r#"{"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached","param":null,"sequence_number":3}"#,
            true,
            Some(429),
            "rate_limit_exceeded",
        ),
        (
            r#"{"type":"error","error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Too long"}}"#,
            false,
            None,
            "context_length_exceeded",
        ),
    ];
    for (data, retryable, status, label) in cases {
        match run(decoder().as_mut(), &format!("data: {data}\n\n")) {
            Err(Failure::Upstream {
                message,
                retryable: r,
                status: s,
            }) => {
                assert!(
                    message.starts_with("oai: ") && message.contains(label),
                    "{message}"
                );
                assert_eq!((r, s), (retryable, status), "{label}");
            }
            other => panic!("{label}: {other:?}"),
        }
    }
}

#[test]
fn non_json_is_a_bad_response() {
    match run(decoder().as_mut(), "data: [DONE]\n\n") {
        Err(Failure::BadResponse(message)) => assert!(message.contains("[DONE]"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_terminal_event_is_interrupted() {
    let cut = &STREAM[..STREAM.find("event: response.completed").unwrap()];
    assert_eq!(run(decoder().as_mut(), cut), Err(Failure::Interrupted));
}

proptest! {
    #[test]
    fn any_chunking_decodes_identically(sizes in proptest::collection::vec(1usize..64, 1..16), which in 0usize..2, crlf in any::<bool>()) {
        let sse = if which == 0 { STREAM.to_string() } else { two_call_stream() };
        // CRLF framing (some proxies rewrite line ends) must not change anything either.
        let framed = if crlf { sse.replace('\n', "\r\n") } else { sse.clone() };
        let whole = run(decoder().as_mut(), &sse).unwrap();
        let chunked = run_chunked(decoder().as_mut(), &framed, &sizes).unwrap();
        prop_assert_eq!(merged(chunked), merged(whole));
    }
}

#[test]
fn images_go_into_function_call_outputs_and_user_messages_as_input_images() {
    let image = crate::wire::Image {
        media_type: "image/webp".into(),
        data: "UklGRg==".into(),
    };
    let mut messages = conversation(None);
    let last = messages
        .iter_mut()
        .rev()
        .find(|m| m.role == Role::Tool)
        .expect("a tool result");
    last.images = vec![image.clone()];
    let text = last.content.clone();
    let id = last.tool_call_id.clone();
    let mut user = messages[0].clone();
    user.role = Role::User;
    user.content = "and?".into();
    user.images = vec![image];
    messages.push(user);
    let body = body(&request(ReasoningProtocol::Openai, messages));
    let input = body["input"].as_array().unwrap();
    let part = json!({"type": "input_image", "image_url": "data:image/webp;base64,UklGRg==", "detail": "auto"});
    let output = input
        .iter()
        .find(|i| i["type"] == "function_call_output" && i["call_id"] == json!(id))
        .unwrap();
    assert_eq!(
        output["output"],
        json!([{"type": "input_text", "text": text}, part])
    );
    assert_eq!(
        input.last().unwrap()["content"],
        json!([{"type": "input_text", "text": "and?"}, part])
    );
}
