//! `reasonix acp` driven by a third-party client: the Agent Client Protocol's own Rust SDK
//! (`agent-client-protocol`, its client side), over the real binary's stdin/stdout, against the
//! mock LLM. initialize → session/new → a prompt whose write is rejected (the file stays) and
//! one whose write is allowed (the diff is shown first) → a prompt cancelled mid-stream → a
//! malformed frame answered with a JSON-RPC error while the agent keeps serving → the session
//! loaded again on a new connection, its history replayed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::Env;
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    CancelNotification, ClientCapabilities, ContentBlock, FileSystemCapabilities, ImageContent,
    InitializeRequest, LoadSessionRequest, NewSessionRequest, PromptRequest, ReadTextFileRequest,
    ReadTextFileResponse, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, SessionNotification,
    SetSessionModeRequest, StopReason, WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::{Agent, Client, Lines, v1};
use futures::{SinkExt as _, StreamExt as _};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// What the client saw and how it answers permission requests.
#[derive(Default)]
struct Seen {
    updates: Vec<Value>,
    questions: Vec<Value>,
    /// Option ids to answer with, in order.
    answers: VecDeque<&'static str>,
    /// Lines the agent wrote, as they came.
    wire: Vec<String>,
    /// The editor's open buffers (its text of a file, saved or not).
    buffers: std::collections::HashMap<PathBuf, String>,
    /// What the agent gave the editor with `fs/write_text_file`, in order.
    written: Vec<(PathBuf, String)>,
}

type Shared = Arc<Mutex<Seen>>;

/// `reasonix acp` as a child, driven by the SDK's client for as long as `main` runs (it also
/// gets a sender of raw lines to the agent's stdin); then stdin is closed and the agent exits.
async fn with_client<R>(
    env: &Env,
    seen: Shared,
    main: impl AsyncFnOnce(
        v1::ConnectionTo<Agent>,
        futures::channel::mpsc::UnboundedSender<String>,
    ) -> Result<R, agent_client_protocol::Error>,
) -> R {
    let mut command = tokio::process::Command::from(env.command(&["acp"]));
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, mut rx) = futures::channel::mpsc::unbounded::<String>();
    let writer = tokio::spawn(async move {
        while let Some(line) = rx.next().await {
            if stdin.write_all(line.as_bytes()).await.is_err()
                || stdin.write_all(b"\n").await.is_err()
                || stdin.flush().await.is_err()
            {
                break;
            }
        }
    });
    let wire = seen.clone();
    let incoming = futures::stream::unfold(BufReader::new(stdout).lines(), move |mut lines| {
        let wire = wire.clone();
        async move {
            match lines.next_line().await {
                Ok(Some(line)) => {
                    wire.lock().unwrap().wire.push(line.clone());
                    Some((Ok(line), lines))
                }
                Ok(None) => None,
                Err(e) => Some((Err(e), lines)),
            }
        }
    });
    let outgoing = tx.clone().sink_map_err(std::io::Error::other);
    let transport = Lines::new(outgoing, incoming);
    let on_update = seen.clone();
    let on_read = seen.clone();
    let on_write = seen.clone();
    let on_question = seen;
    let raw = tx.clone();
    let result = Client
        .v1()
        .name("e2e-client")
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                on_update
                    .lock()
                    .unwrap()
                    .updates
                    .push(serde_json::to_value(&n.update).unwrap());
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: RequestPermissionRequest,
                        responder: v1::Responder<RequestPermissionResponse>,
                        _cx| {
                let answer = {
                    let mut seen = on_question.lock().unwrap();
                    seen.questions.push(serde_json::to_value(&req).unwrap());
                    seen.answers.pop_front()
                };
                let outcome = match answer {
                    Some(id) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(
                        id.to_string(),
                    )),
                    None => RequestPermissionOutcome::Cancelled,
                };
                responder.respond(RequestPermissionResponse::new(outcome))
            },
            agent_client_protocol::on_receive_request!(),
        )
        // An editor's file methods: its buffer when one is open, else the file on disk; a
        // write goes into the buffer and is saved.
        .on_receive_request(
            async move |req: ReadTextFileRequest,
                        responder: v1::Responder<ReadTextFileResponse>,
                        _cx| {
                let open = on_read.lock().unwrap().buffers.get(&req.path).cloned();
                match open.or_else(|| std::fs::read_to_string(&req.path).ok()) {
                    Some(text) => responder.respond(ReadTextFileResponse::new(text)),
                    None => responder.respond_with_error(agent_client_protocol::Error::new(
                        agent_client_protocol::ErrorCode::INVALID_PARAMS,
                        format!("no file {}", req.path.display()),
                    )),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: WriteTextFileRequest,
                        responder: v1::Responder<WriteTextFileResponse>,
                        _cx| {
                let mut seen = on_write.lock().unwrap();
                seen.written.push((req.path.clone(), req.content.clone()));
                seen.buffers.insert(req.path.clone(), req.content.clone());
                std::fs::write(&req.path, &req.content).unwrap();
                responder.respond(WriteTextFileResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(transport, async move |cx: v1::ConnectionTo<Agent>| {
            main(cx, raw).await
        })
        .await
        .unwrap();
    drop(tx);
    let _ = writer.await;
    let exited = tokio::time::timeout(Duration::from_secs(30), child.wait()).await;
    assert!(
        matches!(exited, Ok(Ok(status)) if status.success()),
        "the agent did not exit cleanly when its stdin closed: {exited:?}"
    );
    result
}

fn setup() -> (Env, MockLlm, PathBuf) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    let cwd = env.project().canonicalize().unwrap();
    std::fs::write(cwd.join("notes.txt"), "old line\n").unwrap();
    (env, mock, cwd)
}

fn write_call(id: &str, content: &str) -> Reply {
    let args = serde_json::json!({"path": "notes.txt", "content": content}).to_string();
    Reply::tool_calls(&[(id, "write_file", &args)], 1)
}

fn updates_of(seen: &Shared, kind: &str) -> Vec<Value> {
    seen.lock()
        .unwrap()
        .updates
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .cloned()
        .collect()
}

#[test]
fn an_editor_session_streams_asks_cancels_survives_a_bad_frame_and_loads_again() {
    let (env, mock, cwd) = setup();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let seen: Shared = Arc::default();
    let session_id = runtime.block_on(with_client(&env, seen.clone(), {
        let cwd = cwd.clone();
        let seen_in = seen.clone();
        let mock = &mock;
        async move |cx: v1::ConnectionTo<Agent>,
                    raw: futures::channel::mpsc::UnboundedSender<String>| {
            let init = cx
                .send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            assert!(init.agent_capabilities.load_session);
            assert_eq!(init.agent_info.as_ref().unwrap().name, "reasonix");

            let new = cx
                .send_request(NewSessionRequest::new(cwd.clone()))
                .block_task()
                .await?;
            let sid = new.session_id.clone();
            assert_eq!(&*new.modes.unwrap().current_mode_id.0, "ask");
            let bad_mode = cx
                .send_request(SetSessionModeRequest::new(sid.clone(), "yolo"))
                .block_task()
                .await
                .unwrap_err();
            assert!(
                bad_mode.message.contains("no mode `yolo`"),
                "{}",
                bad_mode.message
            );

            // Rejected: the write does not happen, the model is told, the turn ends.
            mock.enqueue(write_call("w1", "rejected line\n"));
            mock.enqueue(Reply::text(&["Left it as it was."]));
            seen_in.lock().unwrap().answers.push_back("reject");
            let first = cx
                .send_request(PromptRequest::new(
                    sid.clone(),
                    vec![ContentBlock::from("update the notes")],
                ))
                .block_task()
                .await?;
            assert_eq!(first.stop_reason, StopReason::EndTurn);
            assert_eq!(
                std::fs::read_to_string(cwd.join("notes.txt")).unwrap(),
                "old line\n"
            );

            // Allowed: the question carried the diff; the file is written.
            mock.enqueue(write_call("w2", "new line\n"));
            mock.enqueue(Reply::text(&["Updated."]));
            seen_in.lock().unwrap().answers.push_back("allow_once");
            let second = cx
                .send_request(PromptRequest::new(
                    sid.clone(),
                    vec![ContentBlock::from("update them for real")],
                ))
                .block_task()
                .await?;
            assert_eq!(second.stop_reason, StopReason::EndTurn);
            assert_eq!(
                std::fs::read_to_string(cwd.join("notes.txt")).unwrap(),
                "new line\n"
            );

            // Cancelled while the answer streams.
            mock.enqueue(
                Reply::text(&["slow ", "answer ", "that ", "never ", "ends"])
                    .with_chunk_delay_ms(1500),
            );
            let pending = cx.send_request(PromptRequest::new(
                sid.clone(),
                vec![ContentBlock::from("talk slowly")],
            ));
            for _ in 0..400 {
                let streamed = seen_in.lock().unwrap().updates.iter().any(|u| {
                    u["sessionUpdate"] == "agent_message_chunk" && u["content"]["text"] == "slow "
                });
                if streamed {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.send_notification(CancelNotification::new(sid.clone()))?;
            let cancelled = pending.block_task().await?;
            assert_eq!(cancelled.stop_reason, StopReason::Cancelled);

            // A malformed frame: a JSON-RPC parse error, and the agent goes on serving.
            raw.unbounded_send("{not json".to_string()).unwrap();
            mock.enqueue(Reply::text(&["Still here."]));
            let after = cx
                .send_request(PromptRequest::new(
                    sid.clone(),
                    vec![ContentBlock::from("still there?")],
                ))
                .block_task()
                .await?;
            assert_eq!(after.stop_reason, StopReason::EndTurn);
            Ok(sid.0.to_string())
        }
    }));

    // What the editor was shown.
    let questions = seen.lock().unwrap().questions.clone();
    assert_eq!(questions.len(), 2, "{questions:?}");
    let q = &questions[1];
    let options: Vec<&str> = q["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["optionId"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["allow_once", "allow_session", "reject"]);
    assert_eq!(q["toolCall"]["content"][0]["type"], "diff");
    assert_eq!(q["toolCall"]["content"][0]["oldText"], "old line\n");
    assert_eq!(q["toolCall"]["content"][0]["newText"], "new line\n");
    assert_eq!(
        q["toolCall"]["locations"][0]["path"],
        cwd.join("notes.txt").display().to_string()
    );
    let calls = updates_of(&seen, "tool_call");
    assert!(
        calls.iter().any(|c| c["toolCallId"] == "w2"
            && c["kind"] == "edit"
            && c["title"] == "write_file notes.txt"),
        "{calls:?}"
    );
    let ends = updates_of(&seen, "tool_call_update");
    let status = |id: &str| {
        ends.iter()
            .rev()
            .filter(|u| u["toolCallId"] == id)
            .find_map(|u| u["status"].as_str())
            .map(str::to_string)
    };
    assert_eq!(status("w1").as_deref(), Some("failed"), "{ends:?}");
    assert_eq!(status("w2").as_deref(), Some("completed"), "{ends:?}");
    let text: String = updates_of(&seen, "agent_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
        .collect();
    assert!(
        text.contains("Updated.") && text.contains("Still here."),
        "{text}"
    );
    assert!(
        !text.contains("never ends"),
        "the cancelled stream went on: {text}"
    );
    let wire = seen.lock().unwrap().wire.clone();
    // Stdout is the protocol's alone: every line the agent wrote is a JSON-RPC message.
    for line in &wire {
        let v: Value = serde_json::from_str(line).unwrap_or_default();
        assert_eq!(v["jsonrpc"], "2.0", "not a JSON-RPC line on stdout: {line}");
    }
    assert!(
        wire.iter().any(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_default();
            v["id"].is_null() && v["error"]["code"] == -32700
        }),
        "no parse error for the malformed frame: {wire:?}"
    );
    assert!(
        !updates_of(&seen, "available_commands_update").is_empty(),
        "the slash commands were announced"
    );

    // A new connection loads the session: its history is replayed before the answer.
    let replayed: Shared = Arc::default();
    runtime.block_on(with_client(&env, replayed.clone(), {
        let cwd = cwd.clone();
        let sid = session_id.clone();
        async move |cx: v1::ConnectionTo<Agent>, _raw| {
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            cx.send_request(LoadSessionRequest::new(sid.clone(), cwd.clone()))
                .block_task()
                .await?;
            let missing = cx
                .send_request(LoadSessionRequest::new("no-such-session", cwd.clone()))
                .block_task()
                .await
                .unwrap_err();
            assert!(
                missing.message.contains("no-such-session"),
                "{}",
                missing.message
            );
            Ok(())
        }
    }));
    let users: Vec<String> = updates_of(&replayed, "user_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
        .collect();
    assert!(
        users.iter().any(|t| t.contains("update the notes"))
            && users.iter().any(|t| t.contains("update them for real")),
        "{users:?}"
    );
}

#[test]
fn an_image_from_the_editor_reaches_a_model_that_sees_and_a_bad_one_is_named() {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider(
        "openai",
        &mock.base_url(),
        "sk-test",
        "vision = true\n",
    ));
    let cwd = env.project().canonicalize().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    mock.enqueue(Reply::text(&["A one-pixel picture."]));
    runtime.block_on(with_client(&env, Arc::default(), {
        let cwd = cwd.clone();
        async move |cx: v1::ConnectionTo<Agent>, _raw| {
            let init = cx
                .send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            assert!(init.agent_capabilities.prompt_capabilities.image);
            let sid = cx
                .send_request(NewSessionRequest::new(cwd.clone()))
                .block_task()
                .await?
                .session_id;
            let image = |mime: &str, data: &str| {
                ContentBlock::Image(ImageContent::new(data.to_string(), mime.to_string()))
            };
            let answered = cx
                .send_request(PromptRequest::new(
                    sid.clone(),
                    vec![
                        ContentBlock::from("what is in this picture?"),
                        image("image/png", "iVBORw0KGgo="),
                    ],
                ))
                .block_task()
                .await?;
            assert_eq!(answered.stop_reason, StopReason::EndTurn);
            let refused = cx
                .send_request(PromptRequest::new(
                    sid.clone(),
                    vec![ContentBlock::from("and this?"), image("image/tiff", "AAAA")],
                ))
                .block_task()
                .await
                .unwrap_err();
            assert!(
                refused.message.contains("prompt block 1")
                    && refused.message.contains("image/tiff"),
                "{}",
                refused.message
            );
            Ok(())
        }
    }));
    let requests = mock.requests();
    assert_eq!(requests.len(), 1, "the refused prompt reached the model");
    let body = &requests[0].body;
    assert!(
        body.contains("data:image/png;base64,iVBORw0KGgo="),
        "the image is not in the request: {body}"
    );
    assert!(body.contains("what is in this picture?"), "{body}");
}

#[test]
fn the_editors_unsaved_buffer_is_read_never_written_over_and_an_edit_lands_in_it() {
    let (env, mock, cwd) = setup();
    let notes = cwd.join("notes.txt");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let seen: Shared = Arc::default();
    // The user typed a line into the editor and did not save.
    seen.lock()
        .unwrap()
        .buffers
        .insert(notes.clone(), "old line\nunsaved line\n".into());
    runtime.block_on(with_client(&env, seen.clone(), {
        let cwd = cwd.clone();
        let seen_in = seen.clone();
        let notes = notes.clone();
        let mock = &mock;
        async move |cx: v1::ConnectionTo<Agent>, _raw| {
            cx.send_request(
                InitializeRequest::new(ProtocolVersion::V1).client_capabilities(
                    ClientCapabilities::new().fs(FileSystemCapabilities::new()
                        .read_text_file(true)
                        .write_text_file(true)),
                ),
            )
            .block_task()
            .await?;
            let sid = cx
                .send_request(NewSessionRequest::new(cwd.clone()))
                .block_task()
                .await?
                .session_id;
            let prompt = |text: &str| {
                cx.send_request(PromptRequest::new(
                    sid.clone(),
                    vec![ContentBlock::from(text.to_string())],
                ))
                .block_task()
            };
            // A read sees the disk and the editor's difference.
            let read = serde_json::json!({"path": "notes.txt"}).to_string();
            mock.enqueue(Reply::tool_calls(&[("r1", "read_file", &read)], 1));
            mock.enqueue(Reply::text(&["Read."]));
            prompt("read the notes").await?;
            // A write over the unsaved buffer is refused after the user allowed it.
            mock.enqueue(write_call("w1", "agent line\n"));
            mock.enqueue(Reply::text(&["Could not."]));
            seen_in.lock().unwrap().answers.push_back("allow_once");
            prompt("rewrite the notes").await?;
            assert_eq!(std::fs::read_to_string(&notes).unwrap(), "old line\n");
            // Saved: the buffer is the disk's text, and the next write goes through and into
            // the editor.
            {
                let mut s = seen_in.lock().unwrap();
                s.buffers.insert(notes.clone(), "old line\n".into());
            }
            mock.enqueue(write_call("w2", "agent line\n"));
            mock.enqueue(Reply::text(&["Done."]));
            seen_in.lock().unwrap().answers.push_back("allow_once");
            prompt("rewrite them now").await?;
            Ok(())
        }
    }));
    let bodies: Vec<serde_json::Value> = mock
        .requests()
        .iter()
        .map(|r| serde_json::from_str(&r.body).unwrap())
        .collect();
    let read = crate::support::result_of(&bodies[1], "r1");
    assert!(
        read.contains("old line") && read.contains("unsaved changes to notes.txt"),
        "{read}"
    );
    assert!(read.contains("+unsaved line"), "{read}");
    let refused = crate::support::result_of(&bodies[3], "w1");
    assert!(
        refused.contains("notes.txt has unsaved changes in the user's editor"),
        "{refused}"
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "agent line\n");
    let written = seen.lock().unwrap().written.clone();
    assert_eq!(written, vec![(notes, "agent line\n".to_string())]);
}
