use super::*;
use crate::wire::{Options, Tool};
use proptest::prelude::*;
use reasonix_sdk::sse::SseParser;

fn request(protocol: ReasoningProtocol) -> Request {
    Request {
        provider: "deepseek".into(),
        base_url: "https://api.deepseek.com".into(),
        model: "deepseek-chat".into(),
        messages: vec![message(Role::System, "be brief"), message(Role::User, "hi")],
        tools: Vec::new(),
        effort: None,
        max_output_tokens: None,
        options: Options {
            reasoning_protocol: protocol,
            ..Options::default()
        },
    }
}

fn message(role: Role, content: &str) -> Message {
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

fn assistant(content: &str, reasoning: Option<&str>, calls: usize) -> Message {
    Message {
        reasoning: reasoning.map(str::to_string),
        tool_calls: (0..calls)
            .map(|i| ToolCall {
                id: format!("call_{i}"),
                name: "ls".into(),
                arguments: r#"{"path":"."}"#.into(),
            })
            .collect(),
        ..message(Role::Assistant, content)
    }
}

fn built(request: &Request) -> (HttpRequest, Value) {
    let http = OpenAi.build(request).unwrap();
    let body = serde_json::from_slice(&http.body).unwrap();
    (http, body)
}

fn body_text(request: &Request) -> String {
    String::from_utf8(OpenAi.build(request).unwrap().body).unwrap()
}

#[test]
fn url_is_base_plus_path_or_request_url() {
    let mut req = request(ReasoningProtocol::Generic);
    req.base_url = "https://x.example/v1/".into();
    assert_eq!(built(&req).0.url, "https://x.example/v1/chat/completions");
    req.options.request_url = Some("https://gw.example/chat".into());
    assert_eq!(built(&req).0.url, "https://gw.example/chat");
}

#[test]
fn minimal_body_has_fixed_fields_in_order() {
    let text = body_text(&request(ReasoningProtocol::Deepseek));
    assert_eq!(
        text,
        r#"{"model":"deepseek-chat","messages":[{"content":"be brief","role":"system"},{"content":"hi","role":"user"}],"stream":true,"stream_options":{"include_usage":true}}"#
    );
}

#[test]
fn tools_are_embedded_verbatim_in_order() {
    let mut req = request(ReasoningProtocol::Generic);
    // Unsorted keys and odd spacing must survive byte for byte.
    let schema = r#"{"type":"object","properties":{"z":{"type":"integer"},"a":{"type":"number","minimum":1.0}}}"#;
    req.tools = vec![
        Tool {
            name: "b_tool".into(),
            description: "second \"quoted\"".into(),
            parameters: schema.into(),
        },
        Tool {
            name: "a_tool".into(),
            description: "first".into(),
            parameters: String::new(),
        },
    ];
    let text = body_text(&req);
    assert!(
        text.contains(&format!(
            r#""tools":[{{"type":"function","function":{{"name":"b_tool","description":"second \"quoted\"","parameters":{schema}}}}},{{"type":"function","function":{{"name":"a_tool","description":"first","parameters":{{"type":"object","properties":{{}}}}}}}}]"#
        )),
        "{text}"
    );
    assert_eq!(
        text,
        body_text(&req),
        "the same request gives the same bytes"
    );
}

#[test]
fn bad_tool_schema_names_the_tool() {
    let mut req = request(ReasoningProtocol::Generic);
    req.tools = vec![Tool {
        name: "broken".into(),
        description: String::new(),
        parameters: "{not json".into(),
    }];
    let err = OpenAi.build(&req).unwrap_err();
    assert!(
        err.contains("`broken`") && err.contains("not valid JSON"),
        "{err}"
    );
}

#[test]
fn sampling_and_limits_per_protocol() {
    let mut req = request(ReasoningProtocol::Deepseek);
    req.options.temperature = Some(0.5);
    req.max_output_tokens = Some(1000);
    req.effort = Some("max".into());
    req.options.thinking = Some("enabled".into());
    let (_, body) = built(&req);
    assert_eq!(body["temperature"], json!(0.5));
    assert_eq!(body["max_tokens"], json!(1000));
    assert!(body.get("max_completion_tokens").is_none());
    assert_eq!(body["reasoning_effort"], json!("max"));
    assert_eq!(body["thinking"], json!({"type": "enabled"}));

    req.options.reasoning_protocol = ReasoningProtocol::Openai;
    let (_, body) = built(&req);
    assert_eq!(body["max_completion_tokens"], json!(1000));
    assert!(body.get("max_tokens").is_none());
    assert_eq!(body["temperature"], json!(0.5));

    req.options.reasoning_protocol = ReasoningProtocol::KimiK3;
    let (_, body) = built(&req);
    assert_eq!(body["max_completion_tokens"], json!(1000));
    assert!(
        body.get("temperature").is_none(),
        "Kimi K3 takes no temperature"
    );

    for protocol in [
        ReasoningProtocol::Glm,
        ReasoningProtocol::Minimax,
        ReasoningProtocol::Ollama,
        ReasoningProtocol::Generic,
        ReasoningProtocol::None,
    ] {
        req.options.reasoning_protocol = protocol;
        let (_, body) = built(&req);
        assert_eq!(body["max_tokens"], json!(1000), "{protocol:?}");
        assert_eq!(body["temperature"], json!(0.5), "{protocol:?}");
    }

    let (_, body) = built(&request(ReasoningProtocol::Openai));
    for absent in [
        "temperature",
        "max_tokens",
        "max_completion_tokens",
        "reasoning_effort",
        "thinking",
        "tools",
    ] {
        assert!(body.get(absent).is_none(), "{absent} should be omitted");
    }
}

#[test]
fn extra_body_is_merged_but_protocol_fields_win() {
    let mut req = request(ReasoningProtocol::Generic);
    req.options.extra_body =
        serde_json::from_str(r#"{"top_k": 5, "model": "evil", "stream": false}"#).unwrap();
    let (_, body) = built(&req);
    assert_eq!(body["top_k"], json!(5));
    assert_eq!(body["model"], json!("deepseek-chat"));
    assert_eq!(body["stream"], json!(true));
    let text = body_text(&req);
    assert_eq!(text.matches("\"model\"").count(), 1, "{text}");
}

#[test]
fn headers_come_from_options() {
    let mut req = request(ReasoningProtocol::Generic);
    req.options.headers = vec![("x-extra".into(), "1".into())];
    assert_eq!(
        built(&req).0.headers,
        vec![("x-extra".to_string(), "1".to_string())]
    );
}

#[test]
fn message_mapping() {
    let mut req = request(ReasoningProtocol::Generic);
    req.messages.push(assistant("", None, 2));
    let mut tool = message(Role::Tool, "file.txt");
    tool.tool_call_id = Some("call_0".into());
    req.messages.push(tool);
    req.messages.push(assistant("done", None, 0));
    let (_, body) = built(&req);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(
        messages[2],
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": "ls", "arguments": "{\"path\":\".\"}"}},
                {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{\"path\":\".\"}"}},
            ],
        })
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_0", "content": "file.txt"})
    );
    assert_eq!(messages[4], json!({"role": "assistant", "content": "done"}));
}

#[test]
fn tool_message_without_call_id_is_refused() {
    let mut req = request(ReasoningProtocol::Generic);
    req.messages.push(message(Role::Tool, "x"));
    let err = OpenAi.build(&req).unwrap_err();
    assert!(
        err.contains("messages[2]") && err.contains("tool_call_id"),
        "{err}"
    );
}

/// `reasoning_content` of each assistant message (None = key absent).
fn replayed(req: &Request) -> Vec<Option<Value>> {
    let (_, body) = built(req);
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m.get("reasoning_content").cloned())
        .collect()
}

fn replay_request(protocol: ReasoningProtocol) -> Request {
    let mut req = request(protocol);
    req.messages.extend([
        assistant("", Some("thought a"), 1), // tool call with reasoning
        assistant("", None, 1),              // tool call, reasoning lost
        assistant("answer", Some("thought b"), 0),
        assistant("plain", None, 0),
    ]);
    req
}

#[test]
fn deepseek_replays_reasoning_on_every_tool_turn() {
    let req = replay_request(ReasoningProtocol::Deepseek);
    assert_eq!(
        replayed(&req),
        vec![
            Some(json!("thought a")),
            Some(json!("")),
            Some(json!("thought b")),
            None
        ]
    );
}

#[test]
fn kimi_and_glm_replay_verbatim_when_present() {
    for protocol in [ReasoningProtocol::KimiK3, ReasoningProtocol::Glm] {
        let req = replay_request(protocol);
        assert_eq!(
            replayed(&req),
            vec![
                Some(json!("thought a")),
                None,
                Some(json!("thought b")),
                None
            ],
            "{protocol:?}"
        );
    }
}

#[test]
fn other_protocols_never_replay() {
    for protocol in [
        ReasoningProtocol::Openai,
        ReasoningProtocol::Generic,
        ReasoningProtocol::Minimax,
        ReasoningProtocol::Ollama,
        ReasoningProtocol::Anthropic,
        ReasoningProtocol::None,
    ] {
        let req = replay_request(protocol);
        assert_eq!(replayed(&req), vec![None, None, None, None], "{protocol:?}");
    }
}

#[test]
fn strip_chain_of_thought_sends_empty_reasoning() {
    let mut req = replay_request(ReasoningProtocol::Deepseek);
    req.options.strip_chain_of_thought = true;
    assert_eq!(
        replayed(&req),
        vec![Some(json!("")), Some(json!("")), Some(json!("")), None]
    );
    req.options.reasoning_protocol = ReasoningProtocol::KimiK3;
    assert_eq!(
        replayed(&req),
        vec![Some(json!("")), None, Some(json!("")), None]
    );
}

// ---- decoding ----

fn sse(data: &str) -> SseEvent {
    SseEvent {
        event: None,
        data: data.into(),
    }
}

/// Decode `chunks` (SSE data payloads) and `[DONE]`.
fn decode(chunks: &[String]) -> Result<Vec<Event>, Failure> {
    let mut decoder = ChatDecoder::default();
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend(decoder.feed(&sse(chunk))?);
    }
    out.extend(decoder.finish()?);
    Ok(out)
}

fn content(text: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]})
        .to_string()
}

fn done() -> String {
    "[DONE]".into()
}

#[test]
fn text_and_reasoning_deltas_stream_in_order() {
    let chunks = vec![
        json!({"choices": [{"delta": {"role": "assistant", "reasoning_content": "hmm"}}]})
            .to_string(),
        json!({"choices": [{"delta": {"reasoning": " ok"}}]}).to_string(),
        content("Hel"),
        content("lo"),
        json!({"choices": [{"delta": {}, "finish_reason": "stop"}]}).to_string(),
        done(),
    ];
    assert_eq!(
        decode(&chunks).unwrap(),
        vec![
            Event::Reasoning("hmm".into()),
            Event::Reasoning(" ok".into()),
            Event::Text("Hel".into()),
            Event::Text("lo".into()),
            Event::Done(Finish::Stop),
        ]
    );
}

#[test]
fn finish_reasons_map() {
    for (reason, finish) in [
        ("stop", Finish::Stop),
        ("length", Finish::Length),
        ("content_filter", Finish::ContentFilter),
        ("weird", Finish::Other),
    ] {
        let chunks = vec![
            json!({"choices": [{"delta": {}, "finish_reason": reason}]}).to_string(),
            done(),
        ];
        assert_eq!(
            decode(&chunks).unwrap(),
            vec![Event::Done(finish)],
            "{reason}"
        );
    }
}

/// Two tool calls whose argument strings arrive one byte per chunk, interleaved.
fn interleaved_tool_call_chunks() -> Vec<String> {
    let a = r#"{"path":"src/ü.rs"}"#;
    let b = r#"{"pattern":"fn main"}"#;
    let mut chunks = vec![
        json!({"choices": [{"delta": {"tool_calls": [
            {"index": 0, "id": "call_A", "type": "function", "function": {"name": "read_file", "arguments": ""}}
        ]}}]})
        .to_string(),
        // The second call has no id: one is synthesised from its index.
        json!({"choices": [{"delta": {"tool_calls": [
            {"index": 1, "type": "function", "function": {"name": "grep"}}
        ]}}]})
        .to_string(),
    ];
    let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    for i in 0..ca.len().max(cb.len()) {
        if let Some(c) = cb.get(i) {
            chunks.push(
                json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "function": {"arguments": c.to_string()}}]}}]})
                    .to_string(),
            );
        }
        if let Some(c) = ca.get(i) {
            chunks.push(
                json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": c.to_string()}}]}}]})
                    .to_string(),
            );
        }
    }
    chunks.push(json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}).to_string());
    chunks.push(
        json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
            .to_string(),
    );
    chunks.push(done());
    chunks
}

#[test]
fn fragmented_interleaved_tool_calls_complete_in_index_order() {
    let events = decode(&interleaved_tool_call_chunks()).unwrap();
    assert_eq!(
        events,
        vec![
            Event::ToolCall(ToolCall {
                id: "call_A".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"src/ü.rs"}"#.into(),
            }),
            Event::ToolCall(ToolCall {
                id: "call_1".into(),
                name: "grep".into(),
                arguments: r#"{"pattern":"fn main"}"#.into(),
            }),
            Event::Usage(Usage {
                prompt: 10,
                completion: 5,
                cache_hit: 0,
                cache_miss: 10,
                reasoning: 0,
            }),
            Event::Done(Finish::ToolCalls),
        ]
    );
}

#[test]
fn tool_call_deltas_without_index_follow_their_ids() {
    let delta = |call: Value| json!({"choices": [{"delta": {"tool_calls": [call]}}]}).to_string();
    let chunks = vec![
        delta(json!({"id": "a", "function": {"name": "ls", "arguments": "{\"p\""}})),
        delta(json!({"function": {"arguments": ":1}"}})),
        delta(json!({"id": "b", "function": {"name": "grep", "arguments": "{}"}})),
        delta(json!({"id": "b", "function": {"arguments": ""}})),
        done(),
    ];
    let calls: Vec<_> = decode(&chunks)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            Event::ToolCall(c) => Some((c.id, c.name, c.arguments)),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            ("a".into(), "ls".into(), r#"{"p":1}"#.into()),
            ("b".into(), "grep".into(), "{}".into()),
        ]
    );
}

#[test]
fn tool_calls_mean_tool_calls_finish_even_if_the_reason_says_stop() {
    let chunks = vec![
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "x", "function": {"name": "ls", "arguments": "{}"}}]}}]}).to_string(),
        json!({"choices": [{"delta": {}, "finish_reason": "stop"}]}).to_string(),
        done(),
    ];
    let events = decode(&chunks).unwrap();
    assert_eq!(events.last(), Some(&Event::Done(Finish::ToolCalls)));
}

#[test]
fn inline_think_block_becomes_reasoning() {
    let chunks: Vec<String> = [
        "\n<thi",
        "nk>plan ",
        "a</th",
        "ink>\n\nAns",
        "wer <think>not</think>",
    ]
    .iter()
    .map(|c| content(c))
    .chain([done()])
    .collect();
    let events = decode(&chunks).unwrap();
    let (reasoning, text) = split_text(&events);
    assert_eq!(reasoning, "plan a");
    assert_eq!(text, "Answer <think>not</think>");
    assert_eq!(events.last(), Some(&Event::Done(Finish::Stop)));
}

#[test]
fn unterminated_think_block_is_all_reasoning_and_plain_text_passes() {
    let chunks = vec![content("<think>still thinking</thi"), done()];
    let (reasoning, text) = split_text(&decode(&chunks).unwrap());
    assert_eq!(
        (reasoning.as_str(), text.as_str()),
        ("still thinking</thi", "")
    );

    let chunks = vec![content("<thin"), done()];
    let (reasoning, text) = split_text(&decode(&chunks).unwrap());
    assert_eq!((reasoning.as_str(), text.as_str()), ("", "<thin"));

    let chunks = vec![content("  <b>bold</b>"), done()];
    let (_, text) = split_text(&decode(&chunks).unwrap());
    assert_eq!(text, "  <b>bold</b>");
}

/// Concatenated reasoning and text.
fn split_text(events: &[Event]) -> (String, String) {
    let (mut reasoning, mut text) = (String::new(), String::new());
    for event in events {
        match event {
            Event::Reasoning(r) => reasoning.push_str(r),
            Event::Text(t) => text.push_str(t),
            _ => {}
        }
    }
    (reasoning, text)
}

#[test]
fn usage_normalisation_deepseek_shape() {
    let usage = json!({
        "prompt_tokens": 1000, "completion_tokens": 300, "total_tokens": 1300,
        "prompt_cache_hit_tokens": 700, "prompt_cache_miss_tokens": 300,
        "completion_tokens_details": {"reasoning_tokens": 120},
    });
    assert_eq!(
        normalise_usage(&usage),
        Usage {
            prompt: 1000,
            completion: 300,
            cache_hit: 700,
            cache_miss: 300,
            reasoning: 120,
        }
    );
}

#[test]
fn usage_normalisation_openai_shape() {
    let usage = json!({
        "prompt_tokens": 2006, "completion_tokens": 300,
        "prompt_tokens_details": {"cached_tokens": 1920},
        "completion_tokens_details": {"reasoning_tokens": 64},
    });
    assert_eq!(
        normalise_usage(&usage),
        Usage {
            prompt: 2006,
            completion: 300,
            cache_hit: 1920,
            cache_miss: 86,
            reasoning: 64,
        }
    );
}

#[test]
fn usage_normalisation_anthropic_shape() {
    let usage = json!({
        "input_tokens": 50, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 1000,
        "output_tokens": 70,
    });
    assert_eq!(
        normalise_usage(&usage),
        Usage {
            prompt: 1250,
            completion: 70,
            cache_hit: 1000,
            cache_miss: 250,
            reasoning: 0,
        }
    );
}

#[test]
fn missing_done_is_interrupted() {
    let mut decoder = ChatDecoder::default();
    decoder.feed(&sse(&content("partial"))).unwrap();
    assert_eq!(decoder.finish(), Err(Failure::Interrupted));
}

#[test]
fn events_after_done_are_ignored() {
    let mut decoder = ChatDecoder::default();
    assert_eq!(
        decoder.feed(&sse("[DONE]")).unwrap(),
        vec![Event::Done(Finish::Stop)]
    );
    assert_eq!(decoder.feed(&sse(&content("late"))).unwrap(), vec![]);
    assert_eq!(decoder.finish(), Ok(vec![]));
}

#[test]
fn non_json_chunk_is_bad_response_quoting_it() {
    let mut decoder = ChatDecoder::default();
    let long = format!("<html>{}", "x".repeat(500));
    match decoder.feed(&sse(&long)) {
        Err(Failure::BadResponse(message)) => {
            assert!(message.contains("<html>xxx"), "{message}");
            assert!(
                message.chars().count() < 320,
                "quotes at most 200 chars: {message}"
            );
        }
        other => panic!("expected BadResponse, got {other:?}"),
    }
}

#[test]
fn error_chunk_is_upstream() {
    let mut decoder = ChatDecoder::default();
    let chunk =
        json!({"error": {"message": "Server overloaded", "type": "server_error", "code": 503}});
    assert_eq!(
        decoder.feed(&sse(&chunk.to_string())),
        Err(Failure::Upstream {
            message: "Server overloaded".into(),
            retryable: true,
            status: Some(503),
        })
    );
    let chunk = json!({"error": {"message": "bad tool schema", "type": "invalid_request_error"}});
    assert_eq!(
        decoder.feed(&sse(&chunk.to_string())),
        Err(Failure::Upstream {
            message: "bad tool schema".into(),
            retryable: false,
            status: None,
        })
    );
}

// ---- recorded stream through the SSE parser ----

/// A DeepSeek-style recorded body: reasoning, text, a tool call, usage, `[DONE]`.
fn recorded_body() -> Vec<u8> {
    let mut chunks = vec![
        json!({"choices": [{"delta": {"role": "assistant", "reasoning_content": "Let me look — 先看看"}}]}).to_string(),
        content("I'll list the files."),
    ];
    chunks.extend(interleaved_tool_call_chunks());
    let mut body = Vec::new();
    body.extend_from_slice(b": keep-alive\r\n\r\n");
    for chunk in chunks {
        body.extend_from_slice(format!("data: {chunk}\r\n\r\n").as_bytes());
    }
    body
}

fn decode_pieces(pieces: &[&[u8]]) -> Result<Vec<Event>, Failure> {
    let mut parser = SseParser::new();
    let mut decoder = ChatDecoder::default();
    let mut out = Vec::new();
    for piece in pieces {
        for event in parser.push(piece) {
            out.extend(decoder.feed(&SseEvent {
                event: event.event,
                data: event.data,
            })?);
        }
    }
    out.extend(decoder.finish()?);
    Ok(out)
}

#[test]
fn recorded_stream_decodes() {
    let body = recorded_body();
    let events = decode_pieces(&[&body]).unwrap();
    assert_eq!(events[0], Event::Reasoning("Let me look — 先看看".into()));
    assert_eq!(events[1], Event::Text("I'll list the files.".into()));
    assert_eq!(events.len(), 6);
    assert_eq!(events[5], Event::Done(Finish::ToolCalls));
}

proptest! {
    #[test]
    fn any_split_of_a_recorded_stream_gives_the_same_events(
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let body = recorded_body();
        let whole = decode_pieces(&[&body]).unwrap();
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(body.len() + 1)).collect();
        points.sort_unstable();
        let mut pieces: Vec<&[u8]> = Vec::new();
        let mut start = 0;
        for point in points {
            pieces.push(&body[start..point]);
            start = point;
        }
        pieces.push(&body[start..]);
        prop_assert_eq!(decode_pieces(&pieces).unwrap(), whole);
    }

    #[test]
    fn any_rechunking_of_content_gives_the_same_text_and_reasoning(
        think in "[a-z <>/]{0,20}",
        answer in "[a-z <>/\n]{0,20}",
        sizes in proptest::collection::vec(1usize..5, 1..40),
    ) {
        let full = format!("<think>{think}</think>\n\n{answer}");
        let mut chunks = Vec::new();
        let chars: Vec<char> = full.chars().collect();
        let (mut at, mut i) = (0, 0);
        while at < chars.len() {
            let n = sizes[i % sizes.len()].min(chars.len() - at);
            chunks.push(content(&chars[at..at + n].iter().collect::<String>()));
            at += n;
            i += 1;
        }
        chunks.push(done());
        let (reasoning, text) = split_text(&decode(&chunks).unwrap());
        // The reasoning ends at the first `</think>`, as the backend means it.
        let (expect_reasoning, rest) = match think.find("</think>") {
            Some(end) => (&think[..end], format!("{}</think>\n\n{answer}", &think[end + 8..])),
            None => (think.as_str(), format!("\n\n{answer}")),
        };
        prop_assert_eq!(reasoning, expect_reasoning);
        prop_assert_eq!(text, rest.trim_start_matches(['\r', '\n']).to_string());
    }
}

fn png(data: &str) -> crate::wire::Image {
    crate::wire::Image {
        media_type: "image/png".into(),
        data: data.into(),
    }
}

#[test]
fn tool_images_follow_the_run_of_tool_results_in_one_user_message() {
    let mut req = request(ReasoningProtocol::Generic);
    req.options.vision_detail = Some("low".into());
    req.messages.push(assistant("", None, 2));
    for (id, images) in [
        ("call_0", vec![png("AAAA")]),
        ("call_1", vec![png("BBBB"), png("CCCC")]),
    ] {
        let mut tool = message(Role::Tool, "[image: image/png, about 3 bytes]");
        tool.tool_call_id = Some(id.into());
        tool.images = images;
        req.messages.push(tool);
    }
    let mut user = message(Role::User, "and this one?");
    user.images = vec![png("DDDD")];
    req.messages.push(user);
    let (_, body) = built(&req);
    let messages = body["messages"].as_array().unwrap();
    // Tool messages stay text (Chat Completions takes images only from users) and stay
    // right after the assistant message, as the API requires.
    assert_eq!(
        messages[3]["content"],
        json!("[image: image/png, about 3 bytes]")
    );
    assert_eq!(messages[4]["role"], json!("tool"));
    let image = |data: &str| json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{data}"), "detail": "low"}});
    assert_eq!(
        messages[5],
        json!({"role": "user", "content": [
            {"type": "text", "text": "The image(s) returned by tool call call_0:"},
            image("AAAA"),
            {"type": "text", "text": "The image(s) returned by tool call call_1:"},
            image("BBBB"),
            image("CCCC"),
        ]})
    );
    assert_eq!(
        messages[6],
        json!({"role": "user", "content": [{"type": "text", "text": "and this one?"}, image("DDDD")]})
    );
    assert_eq!(messages.len(), 7);
}

#[test]
fn messages_without_images_keep_their_plain_shape() {
    let mut req = request(ReasoningProtocol::Generic);
    req.messages.push(assistant("", None, 1));
    let mut tool = message(Role::Tool, "x");
    tool.tool_call_id = Some("call_0".into());
    req.messages.push(tool);
    let (_, body) = built(&req);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "no extra user message: {messages:?}");
    assert_eq!(messages[1], json!({"role": "user", "content": "hi"}));
}
