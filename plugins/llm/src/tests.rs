//! `open` and the stream end to end over a scripted transport.

use super::*;
use reasonix_sdk::{FinishReason, StreamEvent, ToolSpec};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// A canned response: status, headers and body pieces (or a read error).
struct Scripted {
    status: u16,
    headers: Vec<(String, String)>,
    pieces: VecDeque<Result<Vec<u8>, HttpError>>,
}

impl Response for Scripted {
    fn status(&self) -> u16 {
        self.status
    }
    fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        self.pieces.pop_front().transpose()
    }
}

/// Answers every post with the next scripted result and records the requests.
#[derive(Default)]
struct Fake {
    answers: RefCell<VecDeque<Result<Scripted, HttpError>>>,
    sent: Rc<RefCell<Vec<wire::HttpRequest>>>,
}

impl Fake {
    fn answering(
        status: u16,
        headers: &[(&str, &str)],
        pieces: Vec<Result<&[u8], HttpError>>,
    ) -> Fake {
        let fake = Fake::default();
        fake.answers.borrow_mut().push_back(Ok(Scripted {
            status,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            pieces: pieces.into_iter().map(|p| p.map(<[u8]>::to_vec)).collect(),
        }));
        fake
    }

    fn failing(error: HttpError) -> Fake {
        let fake = Fake::default();
        fake.answers.borrow_mut().push_back(Err(error));
        fake
    }
}

impl Transport for Fake {
    fn post(&self, request: &wire::HttpRequest) -> Result<Box<dyn Response>, HttpError> {
        self.sent.borrow_mut().push(request.clone());
        match self.answers.borrow_mut().pop_front() {
            Some(Ok(scripted)) => Ok(Box::new(scripted)),
            Some(Err(e)) => Err(e),
            None => Err(HttpError::Transport("no scripted answer".into())),
        }
    }
}

fn request(kind: &str, options: &str) -> CompletionRequest {
    CompletionRequest {
        kind: kind.into(),
        provider: "my-deepseek".into(),
        base_url: "https://api.deepseek.com/".into(),
        model: "deepseek-chat".into(),
        messages: vec![reasonix_sdk::Message {
            role: reasonix_sdk::Role::User,
            content: "hi".into(),
            reasoning: None,
            reasoning_state: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            images: Vec::new(),
        }],
        tools: vec![ToolSpec {
            name: "ls".into(),
            description: "List".into(),
            parameters: r#"{"type":"object"}"#.into(),
            read_only: true,
            guidance: None,
        }],
        effort: None,
        max_output_tokens: None,
        options: options.into(),
    }
}

fn open(fake: &Fake, options: &str) -> Result<Box<dyn CompletionStream>, Error> {
    open_with(request("openai", options), fake)
}

fn open_err(fake: &Fake) -> Error {
    match open(fake, "{}") {
        Ok(_) => panic!("open should fail"),
        Err(e) => e,
    }
}

/// Every event until the stream ends (or the error).
fn drain(stream: &mut dyn CompletionStream) -> Result<Vec<StreamEvent>, Error> {
    let mut all = Vec::new();
    for _ in 0..1000 {
        let batch = stream.next()?;
        if batch.is_empty() {
            return Ok(all);
        }
        all.extend(batch);
    }
    panic!("the stream never ended");
}

fn other(error: &Error) -> &reasonix_sdk::ErrorDetail {
    match error {
        Error::Other(detail) => detail,
        other => panic!("expected other, got {other:?}"),
    }
}

const GOOD: &[u8] = b"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n\
data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n\
data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n\
data: [DONE]\n\n";

#[test]
fn info_and_kinds() {
    let info = Llm::info();
    assert_eq!(info.name, "llm");
    assert_eq!(info.version, "0.1.0");
    assert_eq!(info.capabilities.network, vec!["*".to_string()]);
    let kinds: Vec<_> = Llm::provider_kinds()
        .into_iter()
        .map(|k| (k.name, k.credential_header, k.credential_prefix))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("openai".into(), "authorization".into(), "Bearer ".into()),
            ("anthropic".into(), "x-api-key".into(), String::new()),
            ("responses".into(), "authorization".into(), "Bearer ".into()),
        ]
    );
}

#[test]
fn streams_events_then_nothing() {
    // The body arrives in awkward pieces.
    let first_event = GOOD.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    let (a, b) = GOOD.split_at(first_event + 5);
    let fake = Fake::answering(200, &[], vec![Ok(a), Ok(b)]);
    let mut stream = open(&fake, "{}").unwrap();
    let first = stream.next().unwrap();
    assert_eq!(
        first,
        vec![StreamEvent::Text("Hel".into())],
        "text is passed on as it arrives"
    );
    let rest = drain(stream.as_mut()).unwrap();
    assert_eq!(
        rest,
        vec![
            StreamEvent::Text("lo".into()),
            StreamEvent::Usage(reasonix_sdk::Usage {
                prompt_tokens: 3,
                completion_tokens: 2,
                cache_hit_tokens: 0,
                cache_miss_tokens: 3,
                reasoning_tokens: 0,
            }),
            StreamEvent::Done(FinishReason::Stop),
        ]
    );
    assert_eq!(stream.next().unwrap(), vec![]);
}

#[test]
fn request_goes_to_the_kind_url_with_standard_headers() {
    let fake = Fake::answering(200, &[], vec![Ok(GOOD)]);
    let options = r#"{"headers": {"x-extra": "1"}, "reasoning_protocol": "deepseek"}"#;
    open(&fake, options).unwrap();
    let sent = fake.sent.borrow();
    assert_eq!(sent[0].url, "https://api.deepseek.com/chat/completions");
    assert_eq!(
        sent[0].headers,
        vec![
            ("content-type".to_string(), "application/json".to_string()),
            ("accept".to_string(), "text/event-stream".to_string()),
            ("x-extra".to_string(), "1".to_string()),
        ]
    );
    let body: Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(body["tools"][0]["function"]["name"], "ls");
}

#[test]
fn every_kind_is_wired() {
    for kind in ["openai", "anthropic", "responses"] {
        let fake = Fake::failing(HttpError::Transport("down".into()));
        let err = match open_with(request(kind, "{}"), &fake) {
            Ok(_) => panic!("{kind}: should fail"),
            Err(e) => e,
        };
        assert_eq!(other(&err).code, "transport", "{kind}");
        assert_eq!(fake.sent.borrow().len(), 1, "{kind} sent a request");
    }
    let err = match open_with(request("gemini", "{}"), &Fake::default()) {
        Ok(_) => panic!("unknown kind"),
        Err(e) => e,
    };
    assert!(
        matches!(&err, Error::Unsupported(m) if m.starts_with("my-deepseek: ") && m.contains("`gemini`")),
        "{err:?}"
    );
}

#[test]
fn bad_options_name_the_key() {
    let cases = [
        (r#"{"thinking": "maybe"}"#, "options.thinking"),
        (
            r#"{"reasoning_protocol": "magic"}"#,
            "options.reasoning_protocol",
        ),
        (r#"{"supported_efforts": {}}"#, "options.supported_efforts"),
        (r#"{"default_effort": 1}"#, "options.default_effort"),
        (r#"{"temperature": "hot"}"#, "options.temperature"),
        (r#"{"headers": {"x": 1}}"#, "options.headers.x"),
        (r#"{"extra_body": []}"#, "options.extra_body"),
        (
            r#"{"strip_chain_of_thought": "yes"}"#,
            "options.strip_chain_of_thought",
        ),
        (r#"{"request_url": 5}"#, "options.request_url"),
        ("[1]", "options must be a JSON object"),
        ("{", "options is not valid JSON"),
    ];
    for (options, key) in cases {
        let fake = Fake::default();
        match open(&fake, options) {
            Err(Error::InvalidInput(message)) => {
                assert!(
                    message.starts_with("provider `my-deepseek` (model deepseek-chat): "),
                    "{message}"
                );
                assert!(message.contains(key), "{options}: {message}");
            }
            Err(other) => panic!("{options}: expected invalid-input, got {other:?}"),
            Ok(_) => panic!("{options}: expected invalid-input"),
        }
        assert!(
            fake.sent.borrow().is_empty(),
            "nothing is sent for {options}"
        );
    }
}

#[test]
fn options_parse() {
    let (options, reasoning) = parse_options(
        r#"{"request_url": "https://gw/x", "reasoning_protocol": "kimi-k3", "thinking": "Adaptive",
            "supported_efforts": ["low", "max"], "default_effort": "max",
            "temperature": 0.3, "headers": {"a": "b"}, "extra_body": {"top_k": 5},
            "strip_chain_of_thought": true, "future_key": 1}"#,
    )
    .unwrap();
    assert_eq!(options.request_url.as_deref(), Some("https://gw/x"));
    assert_eq!(reasoning.protocol, Some(ReasoningProtocol::KimiK3));
    assert_eq!(reasoning.thinking.as_deref(), Some("adaptive"));
    assert_eq!(reasoning.supported_efforts, ["low", "max"]);
    assert_eq!(reasoning.default_effort.as_deref(), Some("max"));
    assert_eq!(options.temperature, Some(0.3));
    assert_eq!(options.headers, vec![("a".to_string(), "b".to_string())]);
    assert_eq!(options.extra_body.get("top_k"), Some(&Value::from(5)));
    assert!(options.strip_chain_of_thought);
    assert_eq!(
        parse_options("").unwrap(),
        (Options::default(), ReasoningConfig::default())
    );
    let (legacy, _) = parse_options(r#"{"chat_url": "https://old/chat"}"#).unwrap();
    assert_eq!(legacy.request_url.as_deref(), Some("https://old/chat"));
    // `auto` (or nothing) leaves the protocol to detection.
    let (_, auto) = parse_options(r#"{"reasoning_protocol": "auto"}"#).unwrap();
    assert_eq!(auto.protocol, None);
}

#[test]
fn unauthorised_is_auth() {
    for status in [401, 403] {
        let fake = Fake::answering(status, &[], vec![Ok(br#"{"error":"invalid api key"}"#)]);
        match open_err(&fake) {
            Error::Auth(message) => assert_eq!(
                message,
                format!(r#"my-deepseek: HTTP {status}: {{"error":"invalid api key"}}"#)
            ),
            other => panic!("expected auth, got {other:?}"),
        }
    }
}

#[test]
fn too_many_requests_is_rate_limited_with_retry_after() {
    let fake = Fake::answering(429, &[("Retry-After", "7")], vec![Ok(b"slow down")]);
    match open_err(&fake) {
        Error::RateLimited(limit) => {
            assert_eq!(limit.retry_after_ms, Some(7000));
            assert_eq!(limit.message, "my-deepseek: HTTP 429: slow down");
        }
        other => panic!("expected rate-limited, got {other:?}"),
    }
    let fake = Fake::answering(429, &[], vec![]);
    match open_err(&fake) {
        Error::RateLimited(limit) => assert_eq!(limit.retry_after_ms, None),
        other => panic!("expected rate-limited, got {other:?}"),
    }
}

#[test]
fn retry_after_takes_seconds_or_an_http_date() {
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480); // 21 Oct 2015 07:28:00 GMT
    assert_eq!(retry_after_ms("120", now), Some(120_000));
    assert_eq!(retry_after_ms(" 1.5 ", now), Some(1500));
    assert_eq!(
        retry_after_ms("Wed, 21 Oct 2015 07:28:30 GMT", now),
        Some(30_000)
    );
    assert_eq!(
        retry_after_ms("Wed, 21 Oct 2015 07:00:00 GMT", now),
        Some(0),
        "past dates wait 0"
    );
    assert_eq!(retry_after_ms("-3", now), None);
    assert_eq!(retry_after_ms("soon", now), None);
}

#[test]
fn other_statuses_are_http_with_at_most_4_kib_of_body() {
    let big = vec![b'e'; 10_000];
    let fake = Fake::answering(500, &[], vec![Ok(&big[..3000]), Ok(&big[3000..])]);
    match open_err(&fake) {
        Error::Http(failure) => {
            assert_eq!(failure.status, 500);
            assert_eq!(failure.body.len(), 4096);
        }
        other => panic!("expected http, got {other:?}"),
    }
    let fake = Fake::answering(400, &[], vec![Ok(b"bad request")]);
    assert!(
        matches!(open_err(&fake), Error::Http(f) if f.status == 400 && f.body == "bad request")
    );
}

#[test]
fn failures_before_the_head() {
    let fake = Fake::failing(HttpError::Transport(
        "the server closed the connection".into(),
    ));
    let err = open_err(&fake);
    let detail = other(&err);
    assert_eq!(detail.code, "transport");
    assert!(detail.retryable);
    assert!(
        detail
            .message
            .starts_with("my-deepseek: POST https://api.deepseek.com/chat/completions"),
        "{}",
        detail.message
    );
    assert!(detail.message.contains("closed"));

    // Nothing listening, no such host: its own code, not retried on the transport schedule.
    let fake = Fake::failing(HttpError::Unreachable("the connection was refused".into()));
    let detail = other(&open_err(&fake)).clone();
    assert_eq!(detail.code, "unreachable");
    assert!(!detail.retryable);
    assert_eq!(
        detail.message,
        "my-deepseek: POST https://api.deepseek.com/chat/completions: the connection was refused"
    );

    let fake = Fake::failing(HttpError::Timeout("no answer".into()));
    assert_eq!(
        other(&open_err(&fake)).code,
        "transport",
        "a timeout before the head is transport"
    );

    let fake = Fake::failing(HttpError::Denied("not granted".into()));
    assert!(matches!(open_err(&fake), Error::Denied(m) if m.starts_with("my-deepseek: ")));

    let fake = Fake::failing(HttpError::Cancelled);
    assert!(matches!(open_err(&fake), Error::Cancelled));
}

#[test]
fn body_ending_without_done_is_stream_interrupted() {
    let fake = Fake::answering(200, &[], vec![Ok(&GOOD[..60])]);
    let mut stream = open(&fake, "{}").unwrap();
    let err = drain(stream.as_mut()).unwrap_err();
    let detail = other(&err);
    assert_eq!(detail.code, "stream-interrupted");
    assert!(detail.retryable);
    assert!(
        detail.message.starts_with("my-deepseek: "),
        "{}",
        detail.message
    );
    assert_eq!(
        stream.next().unwrap(),
        vec![],
        "the stream is over after an error"
    );
}

#[test]
fn connection_cut_is_stream_interrupted() {
    let fake = Fake::answering(
        200,
        &[],
        vec![
            Ok(&GOOD[..60]),
            Err(HttpError::Transport(
                "the server closed the connection".into(),
            )),
        ],
    );
    let mut stream = open(&fake, "{}").unwrap();
    let err = drain(stream.as_mut()).unwrap_err();
    assert_eq!(other(&err).code, "stream-interrupted");
    assert!(other(&err).retryable);
}

#[test]
fn stall_is_timeout() {
    let fake = Fake::answering(200, &[], vec![Err(HttpError::Timeout("no data".into()))]);
    let mut stream = open(&fake, "{}").unwrap();
    match stream.next() {
        Err(Error::Timeout(message)) => {
            assert!(message.starts_with("my-deepseek: no data for"), "{message}")
        }
        other => panic!("expected timeout, got {other:?}"),
    }
}

#[test]
fn garbage_is_bad_response() {
    let fake = Fake::answering(200, &[], vec![Ok(b"data: <html>oops</html>\n\n")]);
    let mut stream = open(&fake, "{}").unwrap();
    let err = stream.next().unwrap_err();
    let detail = other(&err);
    assert_eq!(detail.code, "bad-response");
    assert!(!detail.retryable);
    assert!(
        detail.message.contains("<html>oops</html>"),
        "{}",
        detail.message
    );
}

#[test]
fn error_event_is_upstream_error_with_status() {
    let body = br#"data: {"error":{"message":"overloaded","code":529}}

"#;
    let fake = Fake::answering(200, &[], vec![Ok(body)]);
    let mut stream = open(&fake, "{}").unwrap();
    let err = stream.next().unwrap_err();
    let detail = other(&err);
    assert_eq!(detail.code, "upstream-error");
    assert!(detail.retryable);
    assert_eq!(detail.detail.as_deref(), Some(r#"{"status":529}"#));
    assert!(detail.message.starts_with("my-deepseek: ") && detail.message.contains("overloaded"));
}

#[test]
fn unterminated_final_done_still_completes() {
    let fake = Fake::answering(
        200,
        &[],
        vec![Ok(
            b"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]",
        )],
    );
    let mut stream = open(&fake, "{}").unwrap();
    let events = drain(stream.as_mut()).unwrap();
    assert_eq!(events.last(), Some(&StreamEvent::Done(FinishReason::Stop)));
}

/// A 2xx non-streamed JSON completion of each kind is read as the answer it is.
#[test]
fn a_non_streamed_json_completion_is_the_answer() {
    let bodies = [
        (
            "openai",
            r#"{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"pong","reasoning_content":"hm","tool_calls":[{"id":"t1","type":"function","function":{"name":"ls","arguments":"{\"p\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":3}}"#,
        ),
        (
            "anthropic",
            r#"{"id":"m1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"text","text":"pong"},{"type":"tool_use","id":"t1","name":"ls","input":{"p":1}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":3}}"#,
        ),
        (
            "responses",
            r#"{"id":"r1","object":"response","status":"completed","output":[{"type":"reasoning","id":"rs1","summary":[{"type":"summary_text","text":"hm"}]},{"type":"message","id":"m1","role":"assistant","content":[{"type":"output_text","text":"pong"}]},{"type":"function_call","id":"fc1","call_id":"t1","name":"ls","arguments":"{\"p\":1}"}],"usage":{"input_tokens":10,"output_tokens":3}}"#,
        ),
    ];
    for (kind, body) in bodies {
        let fake = Fake::answering(
            200,
            &[("content-type", "application/json; charset=utf-8")],
            vec![Ok(body.as_bytes())],
        );
        let mut stream = open_with(request(kind, "{}"), &fake).unwrap();
        let events = drain(stream.as_mut()).unwrap();
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "pong", "{kind}: {events:?}");
        assert!(
            events
                .iter()
                .any(|e| matches!(e, StreamEvent::Reasoning(r) if r == "hm")),
            "{kind}: {events:?}"
        );
        assert!(
            events.iter().any(
                |e| matches!(e, StreamEvent::ToolCall(c) if c.id == "t1" && c.name == "ls" && c.arguments.contains("\"p\":1"))
            ),
            "{kind}: {events:?}"
        );
        assert!(
            events.iter().any(|e| matches!(e, StreamEvent::Usage(u) if u.prompt_tokens == 10 && u.completion_tokens == 3)),
            "{kind}: {events:?}"
        );
        assert_eq!(
            events.last(),
            Some(&StreamEvent::Done(FinishReason::ToolCalls)),
            "{kind}"
        );
    }
}

/// A JSON object that is not a completion, and a JSON error object, fail without a retry.
#[test]
fn a_non_streamed_json_that_is_no_completion_is_not_retried() {
    for kind in ["openai", "anthropic", "responses"] {
        let fake = Fake::answering(
            200,
            &[("content-type", "application/json")],
            vec![Ok(br#"{"status":"ok"}"#.as_slice())],
        );
        let err = match open_with(request(kind, "{}"), &fake) {
            Ok(_) => panic!("{kind}: should fail"),
            Err(e) => e,
        };
        let detail = other(&err);
        assert_eq!(detail.code, "bad-response", "{kind}");
        assert!(!detail.retryable);
        assert!(
            detail.message.contains(r#"{"status":"ok"}"#),
            "{}",
            detail.message
        );
    }
    let fake = Fake::answering(
        200,
        &[("content-type", "application/json")],
        vec![Ok(
            br#"{"error":{"message":"no such model","type":"invalid_request_error"}}"#.as_slice(),
        )],
    );
    let mut stream = open_with(request("openai", "{}"), &fake).unwrap();
    let err = drain(stream.as_mut()).unwrap_err();
    assert!(format!("{err:?}").contains("no such model"), "{err:?}");
}

/// An event stream labelled `application/json` is still read as a stream.
#[test]
fn a_stream_labelled_json_is_read_as_a_stream() {
    let fake = Fake::answering(
        200,
        &[("content-type", "application/json")],
        vec![Ok(
            b"data: {\"choices\":[{\"delta\":{\"content\":\"pong\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
                .as_slice(),
        )],
    );
    let mut stream = open(&fake, "{}").unwrap();
    let events = drain(stream.as_mut()).unwrap();
    assert_eq!(events[0], StreamEvent::Text("pong".into()));
}

/// A 2xx HTML page is named as one, its start quoted on one line, and not retried.
#[test]
fn an_html_page_is_named_and_not_retried() {
    let fake = Fake::answering(
        200,
        &[("content-type", "text/html; charset=UTF-8")],
        vec![Ok(
            b"<!DOCTYPE html>\n<html><title>Hotel Wi-Fi\x1b[2J</title>".as_slice(),
        )],
    );
    let detail = other(&open_err(&fake)).clone();
    assert_eq!(detail.code, "bad-response");
    assert!(!detail.retryable);
    assert!(
        detail
            .message
            .contains("an HTML page (text/html), not a model stream")
            && detail.message.contains(
                "first bytes: <!DOCTYPE html> <html><title>Hotel Wi-Fi\\u{1b}[2J</title>"
            ),
        "{}",
        detail.message
    );
}
