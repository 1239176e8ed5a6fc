//! Talks real HTTP to the mock with a plain hyper client and checks what a client of each real
//! API would see.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use hyper::body::{Body, Bytes, Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use reasonix_mock_llm::{Fault, Finish, MockLlm, Reply, Step, Usage, Wire};
use serde_json::{Value, json};
use tokio::net::TcpStream;

/// A request body sent in several chunks with no length: hyper uses chunked encoding.
struct Chunked(VecDeque<Bytes>);

impl Body for Chunked {
    type Data = Bytes;
    type Error = std::io::Error;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        Poll::Ready(self.0.pop_front().map(|b| Ok(Frame::data(b))))
    }
}

async fn send(mock: &MockLlm, method: &str, path: &str, body: &str) -> Response<Incoming> {
    send_with(mock, method, path, body, &[]).await
}

async fn send_with(
    mock: &MockLlm,
    method: &str,
    path: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> Response<Incoming> {
    let stream = TcpStream::connect(mock.addr()).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    // Split the body in three chunks to exercise chunked request bodies.
    let bytes = body.as_bytes();
    let third = bytes.len() / 3;
    let chunks = [
        &bytes[..third],
        &bytes[third..2 * third],
        &bytes[2 * third..],
    ]
    .into_iter()
    .map(Bytes::copy_from_slice)
    .collect();
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", mock.addr().to_string())
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    sender
        .send_request(request.body(Chunked(chunks)).unwrap())
        .await
        .unwrap()
}

/// Reads the whole body; `Err` carries what arrived before the error.
async fn read_body(response: Response<Incoming>) -> Result<String, String> {
    let mut body = response.into_body();
    let mut text = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(10), body.frame()).await {
            Err(_) => panic!(
                "body stalled; got so far: {}",
                String::from_utf8_lossy(&text)
            ),
            Ok(None) => return Ok(String::from_utf8(text).unwrap()),
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    text.extend_from_slice(&data);
                }
            }
            Ok(Some(Err(_))) => return Err(String::from_utf8_lossy(&text).into_owned()),
        }
    }
}

/// One SSE event: the `event:` name (if any) and the `data:` payload.
#[derive(Debug)]
struct Sse {
    event: Option<String>,
    data: String,
}

fn parse_sse(text: &str) -> Vec<Sse> {
    assert!(
        text.is_empty() || text.ends_with("\n\n"),
        "stream does not end with a blank line: {text:?}"
    );
    text.split("\n\n")
        .filter(|block| !block.is_empty())
        .map(|block| {
            let mut event = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event: ") {
                    event = Some(v.to_owned());
                } else if let Some(v) = line.strip_prefix("data: ") {
                    assert!(data.is_none(), "two data lines in one event: {block:?}");
                    data = Some(v.to_owned());
                } else {
                    panic!("unexpected SSE line {line:?}");
                }
            }
            Sse {
                event,
                data: data.unwrap_or_else(|| panic!("event without data: {block:?}")),
            }
        })
        .collect()
}

fn json_events(events: &[Sse]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::from_str(&e.data).unwrap_or_else(|err| panic!("{:?}: {err}", e.data)))
        .collect()
}

/// For Anthropic and Responses: every event has `event:` equal to its JSON `type`.
fn typed_events(text: &str) -> Vec<Value> {
    let events = parse_sse(text);
    let values = json_events(&events);
    for (e, v) in events.iter().zip(&values) {
        assert_eq!(e.event.as_deref(), v["type"].as_str(), "event name vs type");
    }
    values
}

fn of_type<'a>(values: &'a [Value], kind: &str) -> Vec<&'a Value> {
    values.iter().filter(|v| v["type"] == kind).collect()
}

fn usage() -> Usage {
    Usage {
        prompt: 1000,
        completion: 50,
        cache_hit: 800,
        cache_miss: 200,
        reasoning: 20,
    }
}

/// The least a streaming request has.
const STREAM: &str = r#"{"stream":true}"#;

const OPENAI_REQUEST: &str = r#"{"model":"deepseek-chat","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}"#;

#[tokio::test]
async fn openai_text_reasoning_and_usage() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(
        Reply::text(&["Hel", "lo"])
            .with_reasoning("think", Some("sig-ignored"))
            .with_usage(usage()),
    );
    let response = send(&mock, "POST", "/v1/chat/completions", OPENAI_REQUEST).await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let events = parse_sse(&read_body(response).await.unwrap());
    assert!(events.iter().all(|e| e.event.is_none()));
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let chunks = json_events(&events[..events.len() - 1]);

    let mut content = String::new();
    let mut reasoning = String::new();
    let mut finish = Vec::new();
    for c in &chunks {
        assert_eq!(c["object"], "chat.completion.chunk");
        assert_eq!(c["model"], "deepseek-chat");
        assert_eq!(c["id"], chunks[0]["id"]);
        for choice in c["choices"].as_array().unwrap() {
            content += choice["delta"]["content"].as_str().unwrap_or("");
            reasoning += choice["delta"]["reasoning_content"].as_str().unwrap_or("");
            if !choice["finish_reason"].is_null() {
                finish.push(choice["finish_reason"].clone());
            }
        }
    }
    assert_eq!(content, "Hello");
    assert_eq!(reasoning, "think");
    assert_eq!(finish, vec![json!("stop")]);
    // Reasoning comes before the text.
    let first_text = chunks
        .iter()
        .position(|c| c["choices"][0]["delta"]["content"] == "Hel")
        .unwrap();
    let first_reasoning = chunks
        .iter()
        .position(|c| c["choices"][0]["delta"]["reasoning_content"] == "think")
        .unwrap();
    assert!(first_reasoning < first_text);

    // include_usage: a last chunk with no choices; every other chunk has usage null.
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"], json!([]));
    assert!(
        chunks[..chunks.len() - 1]
            .iter()
            .all(|c| c["usage"].is_null())
    );
    let u = &last["usage"];
    assert_eq!(u["prompt_tokens"], 1000);
    assert_eq!(u["completion_tokens"], 50);
    assert_eq!(u["total_tokens"], 1050);
    assert_eq!(u["prompt_cache_hit_tokens"], 800);
    assert_eq!(u["prompt_cache_miss_tokens"], 200);
    assert_eq!(u["prompt_tokens_details"]["cached_tokens"], 800);
    assert_eq!(u["completion_tokens_details"]["reasoning_tokens"], 20);
}

#[tokio::test]
async fn openai_interleaves_tool_call_fragments_by_index() {
    let mock = MockLlm::start().unwrap();
    let args0 = r#"{"path":"src/main.rs","limit":20}"#;
    let args1 = r#"{"pattern":"fn main"}"#;
    mock.enqueue(
        Reply::tool_calls(
            &[("call_a", "read_file", args0), ("call_b", "grep", args1)],
            4,
        )
        .then(Step::ToolCall {
            id: "call_c".into(),
            name: "ls".into(),
            arguments: "{}".into(),
            fragments: 1,
        }),
    );
    let body = r#"{"model":"m","stream":true,"messages":[]}"#;
    let response = send(&mock, "POST", "/chat/completions", body).await;
    let events = parse_sse(&read_body(response).await.unwrap());
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let chunks = json_events(&events[..events.len() - 1]);
    // No include_usage: no usage chunk, no usage key.
    assert!(chunks.iter().all(|c| c.get("usage").is_none()));
    assert!(
        chunks
            .iter()
            .all(|c| c["choices"].as_array().unwrap().len() == 1)
    );

    let mut order = Vec::new();
    let mut calls: Vec<(String, String, String)> = vec![Default::default(); 3];
    for c in &chunks {
        let delta = &c["choices"][0]["delta"];
        let Some(tool_calls) = delta["tool_calls"].as_array() else {
            continue;
        };
        for tc in tool_calls {
            let i = tc["index"].as_u64().unwrap() as usize;
            let first = !order.contains(&i);
            order.push(i);
            if first {
                assert_eq!(tc["type"], "function");
                calls[i].0 = tc["id"].as_str().unwrap().to_owned();
                calls[i].1 = tc["function"]["name"].as_str().unwrap().to_owned();
            } else {
                assert!(tc.get("id").is_none() && tc["function"].get("name").is_none());
            }
            calls[i].2 += tc["function"]["arguments"].as_str().unwrap();
        }
    }
    // One run of consecutive calls: round-robin by index; the one-fragment call is done
    // after the first round.
    assert_eq!(order, vec![0, 1, 2, 0, 1, 0, 1, 0, 1]);
    assert_eq!(
        calls[0],
        ("call_a".into(), "read_file".into(), args0.into())
    );
    assert_eq!(calls[1], ("call_b".into(), "grep".into(), args1.into()));
    assert_eq!(calls[2], ("call_c".into(), "ls".into(), "{}".into()));
    let finish = &chunks.last().unwrap()["choices"][0];
    assert_eq!(finish["finish_reason"], "tool_calls");
    assert_eq!(finish["delta"], json!({}));
}

#[tokio::test]
async fn anthropic_thinking_text_and_tool_use() {
    let mock = MockLlm::start().unwrap();
    let args = r#"{"command":"cargo test","timeout":60}"#;
    mock.enqueue(Reply {
        steps: vec![
            Step::Text("Let me run".into()),
            Step::Text(" the tests.".into()),
            Step::Reasoning {
                text: "The user wants".into(),
                signature: None,
            },
            Step::Reasoning {
                text: " tests.".into(),
                signature: Some("EqQBCgIYAhIM".into()),
            },
            Step::ToolCall {
                id: "toolu_01".into(),
                name: "bash".into(),
                arguments: args.into(),
                fragments: 3,
            },
        ],
        usage: Some(usage()),
        ..Reply::default()
    });
    let body = r#"{"model":"claude-x","max_tokens":1024,"stream":true,"messages":[]}"#;
    let response = send(&mock, "POST", "/v1/messages", body).await;
    assert_eq!(response.status(), 200);
    let events = typed_events(&read_body(response).await.unwrap());

    assert_eq!(events[0]["type"], "message_start");
    let start = &events[0]["message"];
    assert_eq!(start["model"], "claude-x");
    assert_eq!(start["content"], json!([]));
    assert_eq!(start["usage"]["input_tokens"], 200);
    assert_eq!(start["usage"]["cache_read_input_tokens"], 800);
    assert_eq!(start["usage"]["cache_creation_input_tokens"], 0);
    assert!(start["usage"]["output_tokens"].is_u64());
    assert_eq!(events.last().unwrap()["type"], "message_stop");
    assert!(!of_type(&events, "ping").is_empty());

    // Blocks: thinking 0, text 1, tool_use 2 — each start…deltas…stop, indices in order.
    let starts = of_type(&events, "content_block_start");
    let kinds: Vec<&str> = starts
        .iter()
        .map(|s| s["content_block"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["thinking", "text", "tool_use"]);
    for (i, s) in starts.iter().enumerate() {
        assert_eq!(s["index"], i);
    }
    assert_eq!(starts[2]["content_block"]["id"], "toolu_01");
    assert_eq!(starts[2]["content_block"]["name"], "bash");
    assert_eq!(starts[2]["content_block"]["input"], json!({}));
    let mut open: Option<u64> = None;
    let mut thinking = String::new();
    let mut signature = String::new();
    let mut text = String::new();
    let mut partial = String::new();
    for e in &events {
        match e["type"].as_str().unwrap() {
            "content_block_start" => {
                assert!(open.is_none());
                open = e["index"].as_u64();
            }
            "content_block_delta" => {
                assert_eq!(e["index"].as_u64(), open, "delta outside its block");
                let d = &e["delta"];
                match d["type"].as_str().unwrap() {
                    "thinking_delta" => thinking += d["thinking"].as_str().unwrap(),
                    "signature_delta" => signature += d["signature"].as_str().unwrap(),
                    "text_delta" => text += d["text"].as_str().unwrap(),
                    "input_json_delta" => partial += d["partial_json"].as_str().unwrap(),
                    other => panic!("unknown delta {other}"),
                }
            }
            "content_block_stop" => {
                assert_eq!(e["index"].as_u64(), open);
                open = None;
            }
            _ => assert!(open.is_none() || e["type"] == "ping"),
        }
    }
    assert_eq!(thinking, "The user wants tests.");
    assert_eq!(signature, "EqQBCgIYAhIM");
    assert_eq!(text, "Let me run the tests.");
    assert_eq!(partial, args);
    assert_eq!(of_type(&events, "input_json_delta").len(), 0);
    let deltas = of_type(&events, "content_block_delta");
    assert_eq!(
        deltas
            .iter()
            .filter(|d| d["delta"]["type"] == "input_json_delta")
            .count(),
        3
    );

    let message_delta = of_type(&events, "message_delta");
    assert_eq!(message_delta.len(), 1);
    assert_eq!(message_delta[0]["delta"]["stop_reason"], "tool_use");
    assert_eq!(message_delta[0]["usage"]["output_tokens"], 50);
}

#[tokio::test]
async fn anthropic_stop_reasons() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["a"]));
    mock.enqueue(Reply::text(&["b"]).with_finish(Finish::Length));
    for expected in ["end_turn", "max_tokens"] {
        let response = send(&mock, "POST", "/anthropic/v1/messages", STREAM).await;
        let events = typed_events(&read_body(response).await.unwrap());
        assert_eq!(
            of_type(&events, "message_delta")[0]["delta"]["stop_reason"],
            expected
        );
    }
}

/// Checks the Responses event grammar and returns (reasoning, text, calls, final response).
fn check_responses(events: &[Value]) -> (String, String, Vec<Value>, Value) {
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["sequence_number"], i, "sequence_number");
    }
    assert_eq!(events[0]["type"], "response.created");
    assert_eq!(events[0]["response"]["status"], "in_progress");
    let last = events.last().unwrap();
    assert!(
        last["type"] == "response.completed" || last["type"] == "response.incomplete",
        "{last}"
    );
    let mut reasoning = String::new();
    let mut text = String::new();
    let mut args = std::collections::HashMap::<String, String>::new();
    let mut done_items = Vec::new();
    let mut open: Option<String> = None;
    for e in events {
        let kind = e["type"].as_str().unwrap();
        match kind {
            "response.output_item.added" => {
                assert!(open.is_none());
                assert_eq!(e["output_index"], done_items.len());
                open = Some(e["item"]["id"].as_str().unwrap().to_owned());
            }
            "response.output_item.done" => {
                assert_eq!(open.take().as_deref(), e["item"]["id"].as_str());
                done_items.push(e["item"].clone());
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                assert_eq!(open.as_deref(), e["item_id"].as_str());
                reasoning += e["delta"].as_str().unwrap();
            }
            "response.output_text.delta" => {
                assert_eq!(open.as_deref(), e["item_id"].as_str());
                text += e["delta"].as_str().unwrap();
            }
            "response.function_call_arguments.delta" => {
                let id = e["item_id"].as_str().unwrap().to_owned();
                assert_eq!(open.as_deref(), Some(id.as_str()));
                *args.entry(id).or_default() += e["delta"].as_str().unwrap();
            }
            "response.function_call_arguments.done" => {
                let id = e["item_id"].as_str().unwrap();
                assert_eq!(args[id], e["arguments"].as_str().unwrap());
            }
            _ => {}
        }
    }
    assert!(open.is_none());
    let calls: Vec<Value> = done_items
        .iter()
        .filter(|i| i["type"] == "function_call")
        .cloned()
        .collect();
    for c in &calls {
        assert_eq!(
            args[c["id"].as_str().unwrap()],
            c["arguments"].as_str().unwrap()
        );
    }
    let response = last["response"].clone();
    assert_eq!(response["output"], Value::Array(done_items));
    (reasoning, text, calls, response)
}

#[tokio::test]
async fn responses_reasoning_summary_text_and_function_calls() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(
        Reply::tool_calls(
            &[
                ("call_1", "read_file", r#"{"path":"a.rs"}"#),
                ("call_2", "ls", r#"{"path":"."}"#),
            ],
            2,
        )
        .with_reasoning("I should ", None)
        .then(Step::Reasoning {
            text: "look".into(),
            signature: Some("gAAAAB-opaque".into()),
        })
        .with_usage(usage()),
    );
    let body = r#"{"model":"gpt-5","stream":true,"input":[],"reasoning":{"effort":"high","summary":"auto"}}"#;
    let response = send(&mock, "POST", "/v1/responses", body).await;
    assert_eq!(response.status(), 200);
    let events = typed_events(&read_body(response).await.unwrap());
    let (reasoning, text, calls, response) = check_responses(&events);
    assert_eq!(reasoning, "I should look");
    assert_eq!(text, "");
    assert!(!of_type(&events, "response.reasoning_summary_text.delta").is_empty());
    assert!(of_type(&events, "response.reasoning_text.delta").is_empty());

    assert_eq!(response["status"], "completed");
    assert_eq!(response["model"], "gpt-5");
    let output = response["output"].as_array().unwrap();
    assert_eq!(output[0]["type"], "reasoning");
    assert_eq!(output[0]["encrypted_content"], "gAAAAB-opaque");
    assert_eq!(output[0]["summary"][0]["text"], "I should look");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["call_id"], "call_1");
    assert_eq!(calls[0]["name"], "read_file");
    assert_eq!(calls[0]["arguments"], r#"{"path":"a.rs"}"#);
    assert_eq!(calls[1]["call_id"], "call_2");
    assert_eq!(
        of_type(&events, "response.function_call_arguments.delta").len(),
        4
    );
    let u = &response["usage"];
    assert_eq!(u["input_tokens"], 1000);
    assert_eq!(u["input_tokens_details"]["cached_tokens"], 800);
    assert_eq!(u["output_tokens"], 50);
    assert_eq!(u["output_tokens_details"]["reasoning_tokens"], 20);
    assert_eq!(u["total_tokens"], 1050);
}

#[tokio::test]
async fn responses_reasoning_text_message_and_incomplete() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(
        Reply::text(&["Hi", " there"])
            .with_reasoning("plan", None)
            .with_finish(Finish::Length),
    );
    // No reasoning.summary requested: reasoning streams as reasoning_text (DeepSeek style).
    let response = send(
        &mock,
        "POST",
        "/responses",
        r#"{"model":"m","input":"x","stream":true}"#,
    )
    .await;
    let events = typed_events(&read_body(response).await.unwrap());
    let (reasoning, text, calls, response) = check_responses(&events);
    assert_eq!(reasoning, "plan");
    assert_eq!(text, "Hi there");
    assert!(calls.is_empty());
    assert!(!of_type(&events, "response.reasoning_text.delta").is_empty());
    assert_eq!(events.last().unwrap()["type"], "response.incomplete");
    assert_eq!(response["status"], "incomplete");
    assert_eq!(
        response["incomplete_details"]["reason"],
        "max_output_tokens"
    );
    let message = &response["output"][1];
    assert_eq!(message["type"], "message");
    assert_eq!(message["content"][0]["type"], "output_text");
    assert_eq!(message["content"][0]["text"], "Hi there");
    // Estimated usage when none is scripted.
    assert!(response["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert!(response["usage"]["output_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn status_faults_and_retry_after() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::rate_limited("2"));
    mock.enqueue(Reply::rate_limited("Wed, 21 Oct 2026 07:28:00 GMT"));
    mock.enqueue(Reply::status(503, r#"{"error":{"message":"overloaded"}}"#));
    mock.enqueue(Reply::status(401, ""));

    let response = send(&mock, "POST", "/v1/chat/completions", OPENAI_REQUEST).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "2");
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: Value = serde_json::from_str(&read_body(response).await.unwrap()).unwrap();
    assert_eq!(body["error"]["type"], "rate_limit_error");
    assert_eq!(body["error"]["code"], "rate_limit_exceeded");

    let response = send(&mock, "POST", "/v1/messages", STREAM).await;
    assert_eq!(response.status(), 429);
    assert_eq!(
        response.headers()["retry-after"],
        "Wed, 21 Oct 2026 07:28:00 GMT"
    );
    let body: Value = serde_json::from_str(&read_body(response).await.unwrap()).unwrap();
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "rate_limit_error");

    let response = send(&mock, "POST", "/responses", STREAM).await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().get("retry-after").is_none());
    assert_eq!(
        read_body(response).await.unwrap(),
        r#"{"error":{"message":"overloaded"}}"#
    );

    let response = send(&mock, "POST", "/chat/completions", STREAM).await;
    assert_eq!(response.status(), 401);
    let body: Value = serde_json::from_str(&read_body(response).await.unwrap()).unwrap();
    assert_eq!(body["error"]["type"], "authentication_error");
}

#[tokio::test]
async fn cut_after_ends_the_body_with_an_error() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["a", "b", "c", "d"]).with_fault(Fault::CutAfter { events: 3 }));
    mock.enqueue(Reply::text(&["a"]).with_fault(Fault::CutAfter { events: usize::MAX }));
    let response = send(&mock, "POST", "/v1/messages", STREAM).await;
    assert_eq!(response.status(), 200);
    let partial = read_body(response)
        .await
        .expect_err("the body must not end cleanly");
    let events = typed_events(&partial);
    assert_eq!(events.len(), 3, "{partial}");
    assert_eq!(events[0]["type"], "message_start");

    // Past the last event: everything arrives, but the body still does not end.
    let response = send(&mock, "POST", "/v1/chat/completions", OPENAI_REQUEST).await;
    let partial = read_body(response).await.expect_err("cut at the end");
    assert!(partial.ends_with("data: [DONE]\n\n"));
}

/// Raw HTTP/1.1 over a std socket: the bytes until EOF (or the read timeout).
fn raw_post(mock: &MockLlm, path: &str, body: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(mock.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("EOF, not a timeout");
    String::from_utf8(raw).unwrap()
}

#[test]
fn cut_after_closes_the_socket_without_the_last_chunk() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["a", "b"]).with_fault(Fault::CutAfter { events: 2 }));
    mock.enqueue(Reply::text(&["a", "b"]));
    let raw = raw_post(&mock, "/v1/chat/completions", STREAM);
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(raw.contains("transfer-encoding: chunked"), "{raw}");
    assert!(raw.contains(r#""content":"a""#), "{raw}");
    assert!(!raw.contains(r#""content":"b""#), "{raw}");
    assert!(
        !raw.ends_with("0\r\n\r\n"),
        "the body must not be terminated: {raw:?}"
    );
    // Control: a normal reply ends with the terminating chunk.
    let raw = raw_post(&mock, "/v1/chat/completions", STREAM);
    assert!(raw.ends_with("data: [DONE]\n\n\r\n0\r\n\r\n"), "{raw:?}");
}

#[tokio::test]
async fn malformed_after_sends_a_line_that_is_not_json() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["a", "b"]).with_fault(Fault::MalformedAfter { events: 2 }));
    let response = send(&mock, "POST", "/v1/chat/completions", OPENAI_REQUEST).await;
    let body = read_body(response).await.expect("ends normally");
    let events = parse_sse(&body);
    assert_eq!(events[2].data, r#"{"choices": ["#);
    assert!(serde_json::from_str::<Value>(&events[2].data).is_err());
    // Everything else is still valid and the stream finishes.
    json_events(&events[..2]);
    json_events(&events[3..events.len() - 1]);
    assert_eq!(events.last().unwrap().data, "[DONE]");

    // Anthropic: under an event name a client must parse; the rest still follows.
    mock.enqueue(Reply::text(&["a"]).with_fault(Fault::MalformedAfter { events: 3 }));
    let response = send(&mock, "POST", "/v1/messages", STREAM).await;
    let events = parse_sse(&read_body(response).await.expect("ends normally"));
    assert_eq!(events[3].event.as_deref(), Some("content_block_delta"));
    assert_eq!(events[3].data, r#"{"choices": ["#);
    assert_eq!(
        events.last().unwrap().event.as_deref(),
        Some("message_stop")
    );
}

#[tokio::test]
async fn error_after_sends_the_wire_error_event_and_ends() {
    let mock = MockLlm::start().unwrap();
    let fault = || Fault::ErrorAfter {
        events: 2,
        status: 529,
        message: "Overloaded".into(),
    };
    mock.enqueue(Reply::text(&["a", "b"]).with_fault(fault()));
    mock.enqueue(Reply::text(&["a", "b"]).with_fault(fault()));
    mock.enqueue(Reply::text(&["a", "b"]).with_fault(fault()));

    let body = read_body(send(&mock, "POST", "/v1/chat/completions", OPENAI_REQUEST).await)
        .await
        .expect("ends normally");
    let events = parse_sse(&body);
    assert_eq!(events.len(), 3, "{body}");
    let error = &json_events(&events)[2]["error"];
    assert_eq!(error["message"], "Overloaded");
    assert_eq!(error["type"], "server_error");

    let body = read_body(send(&mock, "POST", "/v1/messages", STREAM).await)
        .await
        .expect("ends normally");
    let events = typed_events(&body);
    assert_eq!(events.len(), 3, "{body}");
    assert_eq!(events[2]["error"]["type"], "overloaded_error");
    assert_eq!(events[2]["error"]["message"], "Overloaded");

    let body = read_body(send(&mock, "POST", "/v1/responses", STREAM).await)
        .await
        .expect("ends normally");
    let events = typed_events(&body);
    assert_eq!(events.len(), 3, "{body}");
    assert_eq!(events[2]["type"], "response.failed");
    assert_eq!(events[2]["sequence_number"], 2);
    assert_eq!(events[2]["response"]["status"], "failed");
    assert_eq!(events[2]["response"]["error"]["code"], "server_error");
}

#[tokio::test]
async fn a_request_without_stream_true_is_refused_and_consumes_nothing() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["kept"]));
    for body in [r#"{"model":"m"}"#, r#"{"stream":false}"#, "not json"] {
        let response = send(&mock, "POST", "/v1/messages", body).await;
        assert_eq!(response.status(), 400);
        let text = read_body(response).await.unwrap();
        assert!(text.contains(r#"\"stream\": true"#), "{text}");
    }
    assert_eq!(mock.pending(), 1);
    assert_eq!(mock.requests().len(), 3);
    let body = read_body(send(&mock, "POST", "/v1/messages", STREAM).await)
        .await
        .unwrap();
    assert!(body.contains("kept"));
}

#[test]
fn render_events_matches_what_is_served() {
    let reply = Reply::tool_calls(&[("c1", "ls", r#"{"path":"."}"#)], 3);
    let events = reasonix_mock_llm::render_events(Wire::Anthropic, &reply, "{}");
    let kinds: Vec<String> = events
        .iter()
        .map(|e| {
            e.lines()
                .next()
                .unwrap()
                .trim_start_matches("event: ")
                .to_owned()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "ping",
            "message_delta",
            "message_stop"
        ]
    );
    let openai = reasonix_mock_llm::render_events(Wire::OpenAi, &reply, OPENAI_REQUEST);
    // role, 3 fragments, finish, usage, [DONE]
    assert_eq!(openai.len(), 7);
    assert_eq!(openai[6], "data: [DONE]\n\n");
}

#[tokio::test]
async fn hang_after_sends_nothing_more_and_keeps_the_connection() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["a", "b"]).with_fault(Fault::HangAfter { events: 2 }));
    let response = send(&mock, "POST", "/responses", STREAM).await;
    let mut body = response.into_body();
    let mut got = String::new();
    while parse_sse_count(&got) < 2 {
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("the first two events arrive")
            .unwrap()
            .unwrap();
        got += std::str::from_utf8(&frame.into_data().unwrap()).unwrap();
    }
    assert_eq!(parse_sse_count(&got), 2);
    let next = tokio::time::timeout(Duration::from_millis(400), body.frame()).await;
    assert!(next.is_err(), "expected silence, got {next:?}");
    // Dropping the server closes the hanging connection.
    drop(mock);
    let end = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("the connection closes when the server is dropped");
    assert!(!matches!(end, Some(Ok(_))), "{end:?}");
}

fn parse_sse_count(text: &str) -> usize {
    text.matches("\n\n").count()
}

#[tokio::test]
async fn gate_holds_the_stream_until_released() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply {
        steps: vec![
            Step::Text("before".into()),
            Step::Gate("g1".into()),
            Step::Text("after".into()),
        ],
        ..Reply::default()
    });
    let response = send(&mock, "POST", "/v1/chat/completions", OPENAI_REQUEST).await;
    let mut body = response.into_body();
    let mut got = String::new();
    while !got.contains("before") {
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        got += std::str::from_utf8(&frame.into_data().unwrap()).unwrap();
    }
    let held = tokio::time::timeout(Duration::from_millis(300), body.frame()).await;
    assert!(held.is_err(), "the gate must hold: {held:?}");
    mock.release("g1");
    let rest = read_body(Response::new(body)).await.unwrap();
    assert!(rest.contains("after"));
    assert!(rest.ends_with("data: [DONE]\n\n"));
}

#[tokio::test]
async fn gate_released_before_it_is_reached_does_not_hold() {
    let mock = MockLlm::start().unwrap();
    mock.release("early");
    mock.enqueue(Reply::text(&["x"]).then(Step::Gate("early".into())));
    let response = send(&mock, "POST", "/v1/messages", STREAM).await;
    let started = Instant::now();
    read_body(response).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn chunk_delay_streams_each_event_as_it_is_produced() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["a", "b", "c"]).with_chunk_delay_ms(150));
    let started = Instant::now();
    let response = send(&mock, "POST", "/v1/chat/completions", OPENAI_REQUEST).await;
    let mut body = response.into_body();
    let mut arrivals = Vec::new();
    while let Some(frame) = body.frame().await {
        let data = frame.unwrap().into_data().unwrap();
        arrivals.push((started.elapsed(), String::from_utf8(data.to_vec()).unwrap()));
    }
    // 7 events (role, a, b, c, finish, usage, [DONE]), each its own chunk (a chunk split by
    // the network could only add frames).
    assert!(arrivals.len() >= 7, "{arrivals:?}");
    let joined: String = arrivals.iter().map(|(_, d)| d.as_str()).collect();
    assert_eq!(parse_sse(&joined).len(), 7);
    // The first event arrived long before the last one: the body is not buffered.
    let (first, last) = (arrivals[0].0, arrivals[arrivals.len() - 1].0);
    assert!(last >= Duration::from_millis(6 * 150), "{arrivals:?}");
    assert!(last - first >= Duration::from_millis(450), "{arrivals:?}");
}

#[tokio::test]
async fn requests_are_recorded_in_order_with_headers_and_body() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["ok"]));
    let response = send_with(
        &mock,
        "POST",
        "/v1/chat/completions?trace=1",
        OPENAI_REQUEST,
        &[("Authorization", "Bearer sk-test"), ("X-Extra", "1")],
    )
    .await;
    read_body(response).await.unwrap();
    let response = send(&mock, "GET", "/v1/files", "").await;
    assert_eq!(response.status(), 404);
    let body = read_body(response).await.unwrap();
    assert!(body.contains("unknown path /v1/files"), "{body}");
    // A model list is answered (404 until one is set) and kept apart from the completions.
    let response = send(&mock, "GET", "/v1/models", "").await;
    assert_eq!(response.status(), 404);
    mock.serve_models(serde_json::json!({"data": [{"id": "m", "context_length": 8}]}));
    let response = send(&mock, "GET", "/v1/models", "").await;
    assert_eq!(response.status(), 200);
    assert!(
        read_body(response)
            .await
            .unwrap()
            .contains("context_length")
    );
    assert_eq!(mock.model_lists().len(), 2);

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!(first.method, "POST");
    assert_eq!(first.path, "/v1/chat/completions?trace=1");
    assert_eq!(first.wire, Some(Wire::OpenAi));
    assert_eq!(first.body, OPENAI_REQUEST);
    assert_eq!(first.json()["model"], "deepseek-chat");
    assert_eq!(first.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(first.header("X-EXTRA"), Some("1"));
    assert!(first.headers.iter().any(|(n, _)| n == "x-extra"));
    assert_eq!(first.header("transfer-encoding"), Some("chunked"));
    let second = &requests[1];
    assert_eq!((second.method.as_str(), second.wire), ("GET", None));
    assert_eq!(second.json(), Value::Null);
    assert!(second.at >= first.at);
    // The unknown path consumed no reply.
    assert_eq!(mock.pending(), 0);
}

#[tokio::test]
async fn empty_queue_answers_500_and_says_so() {
    let mock = MockLlm::start().unwrap();
    let response = send(&mock, "POST", "/v1/messages", STREAM).await;
    assert_eq!(response.status(), 500);
    let body = read_body(response).await.unwrap();
    assert!(body.contains("mock-llm: no scripted reply left"), "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["type"], "error");
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test]
async fn replies_are_consumed_fifo_across_wires() {
    let mock = MockLlm::start().unwrap();
    mock.enqueue_all([Reply::text(&["one"]), Reply::text(&["two"])]);
    let first = read_body(send(&mock, "POST", "/v1/messages", STREAM).await)
        .await
        .unwrap();
    let second = read_body(send(&mock, "POST", "/responses", STREAM).await)
        .await
        .unwrap();
    assert!(first.contains("\"one\"") && !first.contains("\"two\""));
    assert!(second.contains("\"two\""));
    assert_eq!(mock.wait_for_requests(2, Duration::from_secs(1)).len(), 2);
}

#[tokio::test]
async fn drop_stops_the_server() {
    let mock = MockLlm::start().unwrap();
    let addr = mock.addr();
    drop(mock);
    assert!(TcpStream::connect(addr).await.is_err());
}

#[test]
fn bin_serves_a_script_file() {
    use std::io::{BufRead, BufReader, Read, Write};
    let dir = std::env::temp_dir().join(format!("mock-llm-bin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        r#"[{"steps": [{"text": "from the script"}], "usage": {"prompt": 5, "completion": 2}}]"#,
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mock-llm"))
        .arg(&script)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let base = line.trim().to_owned();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");

    let mut stream = std::net::TcpStream::connect(base.trim_start_matches("http://")).unwrap();
    let body = r#"{"model":"m","stream":true,"stream_options":{"include_usage":true}}"#;
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(raw.contains("\"from the script\""), "{raw}");
    assert!(raw.contains("\"prompt_tokens\":5"), "{raw}");
    assert!(raw.contains("data: [DONE]"), "{raw}");
}
