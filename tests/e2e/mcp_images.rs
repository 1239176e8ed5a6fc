//! MCP images reach a model that reads images (issue #26 item 11): the reference server's
//! `get-tiny-image` tool (a PNG as MCP `image` content) through the real `reasonix run`, each
//! provider kind's wire checked in the request the mock LLM received. A model that does not
//! read images gets the text description only; the user's `vision` setting overrides what the
//! `llm` component knows about a model, both ways.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, mcp, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};

const TOOL: &str = "mcp__everything__get-tiny-image";

/// The image as the server sends it (its `MCP_TINY_IMAGE`), read from the installed package so
/// the test checks the very bytes that travelled.
fn tiny_image(entry: &std::path::Path) -> String {
    let source = entry
        .parent()
        .unwrap()
        .join("tools")
        .join("get-tiny-image.js");
    let text = std::fs::read_to_string(&source).unwrap();
    let start = text.find("MCP_TINY_IMAGE = \"").unwrap() + "MCP_TINY_IMAGE = \"".len();
    let end = start + text[start..].find('"').unwrap();
    text[start..end].to_string()
}

/// A home and project with the mock as provider `mock` (`kind`, `model`, `extra` keys) and
/// one MCP server of the user's (`name`, `command args…`); `reasonix run <args…>` with
/// `input` on stdin, which must succeed; the requests the model received.
fn run_with(
    (kind, model, extra): (&str, &str, &str),
    (name, command, server_args): (&str, &str, &[String]),
    replies: Vec<Reply>,
    args: &[&str],
    input: &str,
) -> Vec<Value> {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    std::fs::write(env.home().join(".env"), "MOCK_LLM_KEY=sk-test\n").unwrap();
    env.project_config(&format!(
        "default_model = \"mock\"\n[[providers]]\nname = \"mock\"\nkind = \"{kind}\"\nbase_url = \"{}\"\nmodel = \"{model}\"\napi_key_env = \"MOCK_LLM_KEY\"\n{extra}\n",
        mock.base_url()
    ));
    std::fs::write(
        env.home().join("config.toml"),
        mcp::plugin_stdio(name, command, server_args, ""),
    )
    .unwrap();
    mock.enqueue_all(replies);
    let ws = env.workspace();
    let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = env.reasonix_fed(&all, input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    mock.requests().iter().map(|r| r.json()).collect()
}

/// Run one task in which the model calls `get-tiny-image`, with this provider entry; the
/// body of the request that carried the result, and the image the server sent.
fn second_request(kind: &str, model: &str, extra: &str) -> Option<(Value, String)> {
    let (command, args) = mcp::everything_stdio()?;
    let image = tiny_image(&mcp::everything()?);
    let requests = run_with(
        (kind, model, extra),
        ("everything", &command, &args),
        vec![
            Reply::tool_calls(&[("call_img", TOOL, "{}")], 1),
            Reply::text(&["a tiny logo"]),
        ],
        &["--allowedTools", TOOL, "show me the image"],
        "",
    );
    assert_eq!(requests.len(), 2);
    Some((requests[1].clone(), image))
}

fn data_url(image: &str) -> String {
    format!("data:image/png;base64,{image}")
}

#[test]
fn anthropic_models_get_the_image_inside_the_tool_result() {
    let Some((body, image)) = second_request("anthropic", "claude-sonnet-4-5", "") else {
        return;
    };
    let result = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["type"] == "tool_result")
        .expect("a tool result");
    assert_eq!(result["tool_use_id"], "call_img");
    let blocks = result["content"].as_array().expect("content blocks");
    assert!(
        blocks[0]["text"]
            .as_str()
            .unwrap()
            .contains("Here's the image you requested:\n[image: image/png, about"),
        "{blocks:?}"
    );
    assert_eq!(
        blocks[1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}})
    );
}

#[test]
fn openai_models_get_the_image_in_a_user_message_after_the_results() {
    let Some((body, image)) = second_request("openai", "gpt-4o", "") else {
        return;
    };
    let messages = body["messages"].as_array().unwrap();
    let tool = messages.iter().position(|m| m["role"] == "tool").unwrap();
    assert!(messages[tool]["content"].is_string(), "{}", messages[tool]);
    assert_eq!(
        messages[tool + 1],
        json!({"role": "user", "content": [
            {"type": "text", "text": "The image(s) returned by tool call call_img:"},
            {"type": "image_url", "image_url": {"url": data_url(&image)}},
        ]})
    );
}

#[test]
fn responses_models_get_the_image_in_the_function_call_output() {
    let Some((body, image)) = second_request("responses", "gpt-5", "vision_detail = \"high\"")
    else {
        return;
    };
    let output = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .expect("a function_call_output")["output"]
        .clone();
    assert_eq!(
        output[1],
        json!({"type": "input_image", "image_url": data_url(&image), "detail": "high"})
    );
}

#[test]
fn a_model_that_does_not_read_images_gets_the_description_only() {
    for (kind, model, extra) in [
        // Unknown to the component: taken not to read images.
        ("openai", "deepseek-chat", ""),
        // Known to read them, but the user said no.
        ("anthropic", "claude-sonnet-4-5", "vision = false"),
    ] {
        let Some((body, image)) = second_request(kind, model, extra) else {
            return;
        };
        let text = body.to_string();
        assert!(!text.contains(&image[..64]), "{kind}: the image was sent");
        assert!(
            text.contains("[image: image/png, about"),
            "{kind}: no description: {text}"
        );
    }
    // And the user's `vision = true` sends images to a model the component does not know.
    let Some((body, image)) = second_request("openai", "my-local-vlm", "vision = true") else {
        return;
    };
    assert!(body.to_string().contains(&data_url(&image)));
}

/// `reasonix run <args…>` with `stdin`, an `anthropic` provider for `claude-sonnet-4-5` (which
/// reads images) and the FastMCP server; the body of the first request.
fn first_request_of_user_turn(args: &[&str], stdin: &str) -> Option<Value> {
    let (command, server_args) = mcp::fastmcp_stdio()?;
    let requests = run_with(
        ("anthropic", "claude-sonnet-4-5", ""),
        ("fastmcp", &command, &server_args),
        vec![Reply::text(&["seen"])],
        args,
        stdin,
    );
    requests.into_iter().next()
}

/// The blocks of the last user message of an Anthropic request.
fn last_user_blocks(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_array().cloned())
        .unwrap()
}

const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[test]
fn an_image_resource_named_in_the_task_is_attached_to_it() {
    let Some(body) = first_request_of_user_turn(&["what is in @fastmcp:notes://pixel.png"], "")
    else {
        return;
    };
    let blocks = last_user_blocks(&body);
    let text = blocks[0]["text"].as_str().unwrap();
    assert!(
        text.contains(
            "<resource ref=\"fastmcp:notes://pixel.png\">\n[notes://pixel.png: image/png, about"
        ),
        "{text}"
    );
    assert_eq!(blocks[1]["type"], "image");
    assert_eq!(
        blocks[1]["source"],
        json!({"type": "base64", "media_type": "image/png", "data": PIXEL})
    );
}

#[test]
fn stream_json_input_takes_claude_image_blocks() {
    let line = format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":"what colour?"}},{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{PIXEL}"}}}}]}}}}"#
    );
    let Some(body) = first_request_of_user_turn(
        &[
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
        ],
        &format!("{line}\n"),
    ) else {
        return;
    };
    let blocks = last_user_blocks(&body);
    assert_eq!(
        blocks[0]["text"],
        "what colour?\n[image: image/png, about 72 bytes]"
    );
    assert_eq!(blocks[1]["source"]["data"], PIXEL);
}
