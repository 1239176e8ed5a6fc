//! MCP in the interactive session, in a pseudo-terminal against the mock LLM and the real
//! reference server (`@modelcontextprotocol/server-everything`) over stdio: server notices,
//! `/mcp`, tool cards, prompts as slash commands, `@server:uri` resources, the question for a
//! project's `.mcp.json`, and hostile server output.

use crate::support::pty::Pty;
use crate::support::{self, Env};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

fn everything() -> Option<PathBuf> {
    support::mcp::everything()
}

fn everything_server(entry: &std::path::Path) -> Value {
    json!({"command": "node", "args": [entry.to_str().unwrap(), "stdio"]})
}

struct Session {
    env: Env,
    mock: MockLlm,
}

impl Session {
    /// A session whose `<home>/mcp.json` holds `servers`.
    fn new(servers: Value) -> Session {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let config = env.mock_provider("openai", &mock.base_url(), "k", "");
        std::fs::write(env.home().join("config.toml"), config).unwrap();
        std::fs::write(
            env.home().join("mcp.json"),
            json!({ "mcpServers": servers }).to_string(),
        )
        .unwrap();
        Session { env, mock }
    }

    fn open(&self) -> Pty {
        let pty = self.env.pty(&[], 120, 40, &[]);
        pty.wait_for("Ctrl+D to leave", WAIT);
        pty
    }

    /// The content of the last user message of request `i`.
    fn user_message(&self, i: usize) -> String {
        let body = self.mock.requests()[i].json();
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .map(|m| m["content"].as_str().unwrap_or_default().to_string())
            .expect("a user message")
    }
}

fn quit(mut pty: Pty) {
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn a_tool_of_the_server_runs_as_a_card_and_mcp_lists_it_ready() {
    let Some(entry) = everything() else { return };
    let s = Session::new(json!({ "everything": everything_server(&entry) }));
    let args = json!({ "message": "hello from the mcp tier" }).to_string();
    s.mock.enqueue(Reply::tool_calls(
        &[("call_e", "mcp__everything__echo", &args)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["Echoed it."]));
    let pty = s.open();
    // One notice when it is ready, with its tool count; the status line counts it.
    let text = pty.wait_for("MCP server `everything` ready: ", WAIT);
    assert_eq!(text.matches("MCP server `everything` ready").count(), 1);
    pty.wait_for("MCP 1/1", WAIT);

    pty.type_text("/mcp");
    pty.send("\r");
    let text = pty.wait_for("MCP servers: 1 of 1 ready", WAIT);
    assert!(text.contains("everything  ready · "), "{text}");
    assert!(text.contains("stdio: node "), "{text}");
    assert!(text.contains("(user mcp.json)"), "{text}");

    pty.type_text("echo something");
    pty.send("\r");
    // MCP tools are writers unless trusted: the usual question.
    pty.wait_for("Allow mcp__everything__echo?", WAIT);
    // Answer keys count once the question has been on screen a moment.
    std::thread::sleep(crate::tui::ANSWER_PAUSE);
    pty.send("y");
    let text = pty.wait_for("Echoed it.", WAIT);
    assert!(text.contains("mcp__everything__echo"), "{text}");
    let body = s.mock.requests()[1].json();
    let results = support::tool_results("openai", &body);
    assert!(
        results
            .iter()
            .any(|(_, out)| out.contains("hello from the mcp tier")),
        "{results:?}"
    );
    quit(pty);
}

#[test]
fn a_prompt_command_sends_the_expanded_prompt() {
    let Some(entry) = everything() else { return };
    let s = Session::new(json!({ "everything": everything_server(&entry) }));
    s.mock.enqueue(Reply::text(&["Sunny all week."]));
    let pty = s.open();
    pty.wait_for("MCP server `everything` ready", WAIT);
    // A required argument missing: named, with the arguments, and nothing sent.
    pty.type_text("/mcp__everything__args-prompt");
    pty.send("\r");
    let text = pty.wait_for("is required", WAIT);
    assert!(text.contains("`city` is required"), "{text}");
    assert!(text.contains("<city> [state]"), "{text}");
    // Quotes group words; the last argument takes the rest of the line.
    pty.type_text("/mcp__everything__args-prompt \"New York\" New York State");
    pty.send("\r");
    let text = pty.wait_for("Sunny all week.", WAIT);
    let expanded = "What's weather in New York, New York State?";
    assert!(text.contains(expanded), "{text}");
    assert_eq!(s.mock.requests().len(), 1);
    assert_eq!(s.user_message(0), expanded);
    quit(pty);
}

#[test]
fn a_resource_named_in_a_prompts_arguments_is_sent_with_it() {
    let Some(entry) = everything() else { return };
    let s = Session::new(json!({ "everything": everything_server(&entry) }));
    s.mock.enqueue(Reply::text(&["Noted."]));
    let pty = s.open();
    pty.wait_for("MCP server `everything` ready", WAIT);
    pty.type_text("/mcp__everything__args-prompt Paris @everything:demo://resource/dynamic/text/2");
    pty.send("\r");
    pty.wait_for("Noted.", WAIT);
    let sent = s.user_message(0);
    assert!(sent.starts_with("What's weather in Paris, "), "{sent}");
    assert!(
        sent.contains("Resource 2: This is a plaintext resource"),
        "the resource the user named was not read: {sent}"
    );
    quit(pty);
}

#[test]
fn a_resource_reference_is_completed_and_sends_its_content() {
    let Some(entry) = everything() else { return };
    let s = Session::new(json!({ "everything": everything_server(&entry) }));
    s.mock.enqueue(Reply::text(&["Read it."]));
    let pty = s.open();
    pty.wait_for("MCP server `everything` ready", WAIT);
    // `@ev` Tab: the server (the only candidate) — then its URIs, filtered by what is typed.
    pty.type_text("summarize @ev");
    pty.send("\t");
    pty.wait_for("summarize @everything:", WAIT);
    pty.type_text("demo://resource/static/document/featu");
    pty.send("\t");
    pty.wait_for(
        "@everything:demo://resource/static/document/features.md",
        WAIT,
    );
    pty.send("\r");
    pty.wait_for("Read it.", WAIT);
    let sent = s.user_message(0);
    assert!(
        sent.starts_with("summarize @everything:demo://resource/static/document/features.md"),
        "{sent}"
    );
    assert!(
        sent.contains("<resource ref=\"everything:demo://resource/static/document/features.md\">"),
        "{sent}"
    );
    assert!(sent.contains("# Everything Server - Features"), "{sent}");

    // A reference that cannot be read: an error, and nothing reaches the model.
    pty.type_text("and @everything:demo://resource/static/document/no-such.md");
    pty.send("\r");
    pty.wait_for(
        "not sent: @everything:demo://resource/static/document/no-such.md",
        WAIT,
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.mock.requests().len(), 1);
    quit(pty);
}

/// The project's `.mcp.json` names the reference server; nothing in `<home>`.
fn project_session(entry: &std::path::Path) -> Session {
    let s = Session::new(json!({}));
    std::fs::write(
        s.env.project().join(".mcp.json"),
        json!({ "mcpServers": { "proj": everything_server(entry) } }).to_string(),
    )
    .unwrap();
    s
}

#[test]
fn a_projects_servers_start_only_after_the_question() {
    let Some(entry) = everything() else { return };
    let s = project_session(&entry);
    let pty = s.open();
    let text = pty.wait_for("Start 1 MCP server from this project?", WAIT);
    // The full command line is shown before anything runs.
    assert!(text.contains("proj  stdio: node"), "{text}");
    assert!(text.contains("server-everything"), "{text}");
    assert!(text.contains("(project .mcp.json)"), "{text}");
    assert!(!text.contains("MCP server `proj` ready"), "{text}");
    // A key typed as the question appears does not answer it: the programs stay stopped.
    pty.send("y");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        !pty.transcript().contains("starting MCP servers"),
        "{}",
        pty.transcript()
    );
    // Answer keys count once the question has been on screen a moment.
    std::thread::sleep(crate::tui::ANSWER_PAUSE);
    pty.send("y");
    pty.wait_for("starting MCP servers: proj", WAIT);
    pty.wait_for("MCP server `proj` ready: ", WAIT);
    // The early key went to the composer; empty it to leave.
    pty.send("\x7f");
    quit(pty);
}

#[test]
fn always_remembers_the_approval_of_exactly_that_file() {
    let Some(entry) = everything() else { return };
    let s = project_session(&entry);
    let pty = s.open();
    pty.wait_for("Start 1 MCP server from this project?", WAIT);
    std::thread::sleep(crate::tui::ANSWER_PAUSE);
    pty.send("a");
    // Always is permanent: it takes a second deliberate key.
    pty.wait_for("press a again", WAIT);
    std::thread::sleep(std::time::Duration::from_millis(1200));
    assert!(!pty.transcript().contains("for later sessions"));
    std::thread::sleep(crate::tui::ANSWER_PAUSE);
    pty.send("a");
    pty.wait_for("for later sessions", WAIT);
    pty.wait_for("MCP server `proj` ready: ", WAIT);
    quit(pty);

    // The next session starts it without asking.
    let pty = s.open();
    let text = pty.wait_for("MCP server `proj` ready: ", WAIT);
    assert!(!text.contains("from this project?"), "{text}");
    quit(pty);

    // An edited file is a new question: the approval was of the bytes shown.
    let mcp_json = s.env.project().join(".mcp.json");
    let edited = std::fs::read_to_string(&mcp_json)
        .unwrap()
        .replace("stdio", "stdio ");
    std::fs::write(&mcp_json, edited).unwrap();
    let pty = s.open();
    pty.wait_for("Start 1 MCP server from this project?", WAIT);
    std::thread::sleep(crate::tui::ANSWER_PAUSE);
    pty.send("n");
    pty.wait_for("MCP servers left stopped: proj", WAIT);
    quit(pty);
}

#[test]
fn declining_the_question_leaves_the_servers_stopped() {
    let Some(entry) = everything() else { return };
    let s = project_session(&entry);
    s.mock.enqueue(Reply::text(&["Fine."]));
    let pty = s.open();
    pty.wait_for("Start 1 MCP server from this project?", WAIT);
    std::thread::sleep(crate::tui::ANSWER_PAUSE);
    pty.send("n");
    pty.wait_for("MCP servers left stopped: proj", WAIT);
    // The session goes on without them.
    pty.type_text("hello");
    pty.send("\r");
    pty.wait_for("Fine.", WAIT);
    pty.type_text("/mcp");
    pty.send("\r");
    let text = pty.wait_for("MCP servers: 0 of 1 ready", WAIT);
    assert!(text.contains("proj  not approved"), "{text}");
    assert!(!text.contains("MCP server `proj` ready"), "{text}");
    quit(pty);
}

#[test]
fn a_failing_servers_reason_and_stderr_cannot_drive_the_terminal() {
    let s = Session::new(json!({
        "broken": {
            "command": "sh",
            "args": ["-c", "printf 'oops \\033]0;pwned\\007 \\033[2J end\\n' >&2; exit 3"]
        }
    }));
    let pty = s.open();
    pty.wait_for("MCP server `broken` failed: ", WAIT);
    let text = pty.wait_for(" end", WAIT);
    assert!(text.contains("oops"), "{text}");
    // Said as what happened, not as the MCP library's internals.
    assert!(
        text.contains("the process exited") || text.contains("it exited"),
        "{text}"
    );
    assert!(!text.contains("reasonix_mcp::"), "{text}");
    assert!(!text.contains("Send message error"), "{text}");
    assert!(
        !pty.raw_contains(b"\x1b]0;pwned"),
        "an OSC reached the terminal"
    );
    assert!(
        !pty.raw_contains(b"\x1b[2J end"),
        "a CSI reached the terminal"
    );
    pty.type_text("/mcp");
    pty.send("\r");
    pty.wait_for("broken  failed", WAIT);
    assert!(!pty.raw_contains(b"\x1b]0;pwned"));
    quit(pty);
}
