//! Sub-agents (`task`, `fleet`, `parallel_tasks`; ADR 0035) as a user meets them: the real
//! binary against the mock LLM, each child's requests told apart by its own system prompt
//! (the mock routes replies by what a request holds, so children running at once get theirs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::events::OpsClient;
use crate::support::{Env, result_of, stderr, stdout};
use reasonix_agent::session::SessionStore;
use reasonix_mock_llm::{MockLlm, Reply, Usage};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// What the built-in profiles' system prompts begin with: the child's requests carry it.
const EXPLORE: &str = "You are an explore sub-agent of Reasonix";
const GENERAL: &str = "You are a sub-agent of Reasonix";

fn setup() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    std::fs::create_dir_all(env.workspace().join("src")).unwrap();
    std::fs::write(env.workspace().join("src/lib.rs"), "pub fn entry() {}\n").unwrap();
    std::fs::write(env.workspace().join("README.md"), "# readme\n").unwrap();
    (env, mock)
}

fn run(env: &Env, args: &[&str]) -> std::process::Output {
    let ws = env.workspace();
    let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
    all.extend_from_slice(args);
    env.reasonix(&all)
}

fn call(id: &str, name: &str, args: Value) -> (String, String, String) {
    (id.to_string(), name.to_string(), args.to_string())
}

fn calls(list: &[(String, String, String)]) -> Reply {
    let refs: Vec<(&str, &str, &str)> = list
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    Reply::tool_calls(&refs, 2)
}

/// The tool names a request offered.
fn offered(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| {
                    t["function"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn system(body: &Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Tool results of a request, by call id.

#[test]
fn two_children_of_one_answer_work_apart_and_their_answers_and_spend_return() {
    let (env, mock) = setup();
    let usage = |p| Usage::new(p, 10);
    mock.enqueue(
        calls(&[
            call(
                "call_explore",
                "task",
                json!({"profile": "explore", "description": "find the entry", "prompt": "Where is the entry point?"}),
            ),
            call(
                "call_writer",
                "task",
                json!({"description": "add a module", "prompt": "Add src/new.rs.", "write_paths": ["src/"]}),
            ),
        ])
        .with_usage(usage(1000)),
    );
    mock.enqueue_when(
        EXPLORE,
        calls(&[call("e1", "read_file", json!({"path": "src/lib.rs"}))]).with_usage(usage(100)),
    );
    mock.enqueue_when(
        EXPLORE,
        Reply::text(&["EXPLORE-ANSWER: src/lib.rs defines entry()"]).with_usage(usage(100)),
    );
    mock.enqueue_when(
        GENERAL,
        calls(&[
            call(
                "g1",
                "write_file",
                json!({"path": "src/new.rs", "content": "pub fn new() {}\n"}),
            ),
            call(
                "g2",
                "write_file",
                json!({"path": "README.md", "content": "overwritten\n"}),
            ),
        ])
        .with_usage(usage(100)),
    );
    mock.enqueue_when(
        GENERAL,
        Reply::text(&["GENERAL-ANSWER: wrote src/new.rs; README.md was outside my claim"])
            .with_usage(usage(100)),
    );
    mock.enqueue(Reply::text(&["Both done."]).with_usage(usage(1000)));

    let out = run(
        &env,
        &[
            "--permission-mode",
            "auto",
            "--output-format",
            "stream-json",
            "add a module and find the entry",
        ],
    );
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));

    // The writer's write inside its claim landed; the one outside was refused.
    let ws = env.workspace();
    assert_eq!(
        std::fs::read_to_string(ws.join("src/new.rs")).unwrap(),
        "pub fn new() {}\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("README.md")).unwrap(),
        "# readme\n"
    );

    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 6, "two for the parent, two per child");
    let explore: Vec<&Value> = requests
        .iter()
        .filter(|b| system(b).starts_with(EXPLORE))
        .collect();
    let general: Vec<&Value> = requests
        .iter()
        .filter(|b| system(b).starts_with(GENERAL))
        .collect();
    assert_eq!((explore.len(), general.len()), (2, 2));
    // Each child has its own prompt and tool subset: explore only reads.
    let explore_tools = offered(explore[0]);
    assert!(
        explore_tools.contains(&"read_file".to_string()),
        "{explore_tools:?}"
    );
    for writer in ["write_file", "edit_file", "bash", "task", "fleet"] {
        assert!(
            !explore_tools.iter().any(|t| t == writer),
            "{explore_tools:?}"
        );
    }
    let general_tools = offered(general[0]);
    for tool in ["write_file", "bash", "read_file", "task"] {
        assert!(general_tools.iter().any(|t| t == tool), "{general_tools:?}");
    }
    // Nothing of the parent's conversation reaches a child: its only user message is its task.
    let users: Vec<&Value> = general[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .collect();
    assert_eq!(users.len(), 1);
    assert_eq!(users[0]["content"], "Add src/new.rs.");
    // The refused write told the child why, naming its claim.
    let refused = result_of(general[1], "g2");
    assert!(
        refused.contains("outside this sub-agent's write claim (`src/`)"),
        "{refused}"
    );

    // Both answers came back to the parent's next request, and only the answers.
    let parent_next = requests
        .iter()
        .rfind(|b| !system(b).starts_with(EXPLORE) && !system(b).starts_with(GENERAL))
        .unwrap();
    assert!(result_of(parent_next, "call_explore").starts_with("EXPLORE-ANSWER"));
    assert!(result_of(parent_next, "call_writer").starts_with("GENERAL-ANSWER"));

    // stream-json: the children's messages carry the `task` call that started them.
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let child_assistant: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "assistant" && !l["parent_tool_use_id"].is_null())
        .collect();
    let parents: std::collections::BTreeSet<&str> = child_assistant
        .iter()
        .map(|l| l["parent_tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        parents.into_iter().collect::<Vec<_>>(),
        ["call_explore", "call_writer"]
    );
    assert!(
        lines.iter().any(|l| l["type"] == "assistant"
            && l["parent_tool_use_id"].is_null()
            && l["message"]["content"][0]["text"] == "Both done."),
        "the parent's own answer has no parent"
    );
    // The session's spend includes the children's: 2×1000 + 4×100 prompt tokens.
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result", "{result}");
    assert_eq!(result["usage"]["input_tokens"], 2400, "{result}");

    // Each child kept its own transcript, apart from the user's sessions, naming its parent.
    let store = SessionStore::new(&env.home(), &ws);
    let sessions = store.list().unwrap();
    assert_eq!(sessions.len(), 1, "children are not the user's sessions");
    let children = store.subagents().list().unwrap();
    assert_eq!(children.len(), 2, "{children:?}");
    for child in &children {
        assert_eq!(child.parent.as_deref(), Some(sessions[0].id.as_str()));
    }
}

#[test]
fn a_third_level_is_refused_and_overlapping_writers_never_start() {
    let (env, mock) = setup();
    let nested = |id: &str| {
        calls(&[call(
            id,
            "task",
            json!({"prompt": format!("go deeper from {id}")}),
        )])
    };
    // main → child → grandchild; the grandchild's own `task` is refused.
    mock.enqueue(nested("t1"));
    mock.enqueue_when(GENERAL, nested("t2"));
    mock.enqueue_when(GENERAL, nested("t3"));
    mock.enqueue_when(GENERAL, Reply::text(&["grandchild: could not go deeper"]));
    mock.enqueue_when(GENERAL, Reply::text(&["child: done"]));
    mock.enqueue(Reply::text(&["main: done"]));
    let out = run(&env, &["--permission-mode", "auto", "nest"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 6);
    let refused = result_of(&requests[3], "t3");
    assert!(
        refused.contains("nest at most 2 deep") && refused.contains("depth 2"),
        "{refused}"
    );
    assert_eq!(
        result_of(&requests[4], "t2"),
        "grandchild: could not go deeper"
    );

    // A fleet whose writers claim overlapping paths starts none of them.
    let (env, mock) = setup();
    mock.enqueue(calls(&[call(
        "f1",
        "fleet",
        json!({"tasks": [
            {"prompt": "edit the sources", "write_paths": ["src"]},
            {"prompt": "edit lib.rs", "write_paths": ["src/lib.rs"], "description": "lib"},
        ]}),
    )]));
    mock.enqueue(Reply::text(&["understood"]));
    let out = run(&env, &["--permission-mode", "auto", "fleet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 2, "no child made a request");
    let refused = result_of(&requests[1], "f1");
    assert!(
        refused.starts_with("Error: the write claims") && refused.contains("overlap"),
        "{refused}"
    );
    assert!(
        refused.contains("`general` (`src`)") && refused.contains("`general: lib` (`src/lib.rs`)"),
        "{refused}"
    );
}

#[test]
fn a_fleet_runs_its_children_at_once_and_answers_in_order() {
    let (env, mock) = setup();
    mock.enqueue(calls(&[call(
        "p1",
        "parallel_tasks",
        json!({"tasks": [
            {"prompt": "question one", "description": "one"},
            {"prompt": "question two", "description": "two"},
        ]}),
    )]));
    // Both children wait at a gate until both have asked: they run at the same time.
    mock.enqueue_when(
        "question one",
        Reply::text(&["answer one"]).then(reasonix_mock_llm::Step::Gate("both".into())),
    );
    mock.enqueue_when("question two", Reply::text(&["answer two"]));
    mock.enqueue(Reply::text(&["summary"]));
    let (out, concurrent) = std::thread::scope(|scope| {
        let mock = &mock;
        let watcher = scope.spawn(move || {
            // Child one holds its answer open at the gate: child two's request can only come
            // if the two run at the same time.
            let seen = mock.wait_for_requests(3, Duration::from_secs(30)).len();
            mock.release("both");
            seen >= 3
        });
        let out = run(&env, &["parallel"]);
        (out, watcher.join().unwrap())
    });
    assert!(
        concurrent,
        "the second child asked only after the first had answered"
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    let result = result_of(requests.last().unwrap(), "p1");
    let one = result.find("answer one").unwrap();
    let two = result.find("answer two").unwrap();
    assert!(one < two, "answers in task order: {result}");
    assert!(result.contains("## Task 1 (answered)"), "{result}");
}

#[test]
fn a_claude_code_reviewer_profile_works_unchanged() {
    let (env, mock) = setup();
    // Claude Code's documented example, saved as a Claude Code project has it.
    let agents = env.workspace().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: code-reviewer\ndescription: Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.\ntools: Read, Grep, Glob, Bash\nmodel: inherit\n---\n\nYou are a senior code reviewer ensuring high standards of code quality and security.\n\nWhen invoked:\n1. Run git diff to see recent changes\n2. Focus on modified files\n3. Begin review immediately\n",
    )
    .unwrap();
    mock.enqueue(calls(&[call(
        "r1",
        "task",
        json!({"profile": "code-reviewer", "prompt": "Review src/lib.rs."}),
    )]));
    mock.enqueue_when(
        "You are a senior code reviewer",
        Reply::text(&["REVIEW: looks fine"]),
    );
    mock.enqueue(Reply::text(&["reviewed"]));
    let out = run(&env, &["review it"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 3);
    let child = &requests[1];
    assert!(system(child).starts_with("You are a senior code reviewer"));
    let mut tools = offered(child);
    tools.sort();
    assert_eq!(
        tools,
        [
            "bash",
            "bash_output",
            "glob",
            "grep",
            "kill_shell",
            "read_file",
            "wait"
        ]
    );
    assert_eq!(result_of(&requests[2], "r1"), "REVIEW: looks fine");
    // The parent's prefix names no profile: its schemas and prompt are the same bytes with
    // or without the project's profiles.
    assert!(!requests[0].to_string().contains("code-reviewer"));
}

#[test]
fn an_interrupt_during_a_childs_command_ends_the_command_and_the_child() {
    let (env, mock) = setup();
    // A duration nobody else uses marks the child's `sleep` in the host's process list.
    let marker = format!("300.{}", crate::shell::unique());
    mock.enqueue(calls(&[call(
        "t1",
        "task",
        json!({"prompt": "wait a while", "write_paths": ["src"]}),
    )]));
    mock.enqueue_when(
        GENERAL,
        calls(&[call(
            "b1",
            "bash",
            json!({"command": format!("sleep {marker}")}),
        )]),
    );
    let ws = env.workspace();
    let child = env
        .command(&[
            "run",
            "--dir",
            ws.to_str().unwrap(),
            "--permission-mode",
            "auto",
            "--output-format",
            "stream-json",
            "wait",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while crate::shell::processes_with(&marker).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the child's command never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let interrupted = Instant::now();
    // SIGINT, as Ctrl-C in a terminal sends it.
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert!(
        interrupted.elapsed() < Duration::from_secs(20),
        "the run ended {:?} after the interrupt",
        interrupted.elapsed()
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    // The sleeping command is gone.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !crate::shell::processes_with(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        crate::shell::processes_with(&marker),
        Vec::<String>::new(),
        "the child's `sleep` outlived the interrupt"
    );
    // The child ended cancelled, and the parent recorded its call so.
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let task_result = lines
        .iter()
        .find_map(|l| {
            let block = &l["message"]["content"][0];
            (block["type"] == "tool_result" && block["tool_use_id"] == "t1")
                .then(|| block["content"].as_str().unwrap().to_string())
        })
        .unwrap_or_else(|| panic!("no result of the task call in {text}"));
    assert!(task_result.contains("cancelled"), "{task_result}");
    let result = lines.last().unwrap();
    assert_eq!(result["subtype"], "cancelled", "{result}");
}

#[test]
fn a_childs_question_names_the_child_and_its_answer_reaches_it() {
    let (env, mock) = setup();
    mock.enqueue(calls(&[call(
        "t1",
        "task",
        json!({"description": "write notes", "prompt": "Write notes.txt.", "write_paths": ["notes.txt"]}),
    )]));
    mock.enqueue_when(
        GENERAL,
        calls(&[call(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "from the child\n"}),
        )]),
    );
    mock.enqueue_when(GENERAL, Reply::text(&["wrote notes.txt"]));
    mock.enqueue(Reply::text(&["the child wrote it"]));
    let mut client = OpsClient::start(&env);
    client.send(r#"{"type":"prompt","text":"delegate the notes"}"#);
    let question = client.until("question");
    assert_eq!(question["tool"], "write_file", "{question}");
    assert_eq!(question["agent"], "general: write notes", "{question}");
    let id = question["question_id"].as_str().unwrap().to_string();
    client.send(&format!(r#"{{"type":"approve","question_id":"{id}"}}"#));
    let finished = client.until("turn_finished");
    assert_eq!(finished["status"], "success", "{finished}");
    let (_, events) = client.finish();
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("notes.txt")).unwrap(),
        "from the child\n"
    );
    // The child's events are its own agent's, numbered in the one stream.
    let child_events: Vec<&Value> = events
        .iter()
        .filter(|e| e["agent_id"] == "main/t1")
        .collect();
    assert!(
        child_events.iter().all(|e| e["parent_agent_id"] == "main"),
        "{child_events:?}"
    );
    let kinds: Vec<&str> = child_events
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"subagent_started"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"subagent_finished"), "{kinds:?}");
    assert!(kinds.contains(&"tool_finished"), "{kinds:?}");
}

/// The interactive session: a running child is a card; ↓ selects it, Esc stops that child
/// only (its command ends), and the parent's turn goes on with the child's call answered.
#[test]
fn esc_on_a_childs_card_stops_that_child_and_the_turn_goes_on() {
    use crate::tui::{Session, WAIT};
    for (cols, rows) in [(80, 24), (120, 40)] {
        let s = Session::new();
        let marker = format!("300.{}", crate::shell::unique());
        s.mock.enqueue(calls(&[call(
            "t1",
            "task",
            json!({"description": "waiter", "prompt": "wait a while", "write_paths": ["src"]}),
        )]));
        s.mock.enqueue_when(
            GENERAL,
            calls(&[call(
                "b1",
                "bash",
                json!({"command": format!("sleep {marker}")}),
            )]),
        );
        s.mock.enqueue(Reply::text(&[
            "The child was stopped; going on without it.",
        ]));
        let pty = s.open_at(&["--permission-mode", "auto"], cols, rows);
        pty.type_text("delegate the wait");
        pty.send("\r");
        let screen = pty.wait_on_screen("sub-agent general: waiter", WAIT);
        assert!(
            screen.contains("sub-agent general: waiter"),
            "no card:\n{screen}"
        );
        let started = Instant::now();
        while crate::shell::processes_with(&marker).is_empty() {
            assert!(
                started.elapsed() < WAIT,
                "the child's command never started"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        pty.send("\x1b[B");
        let screen = pty.wait_on_screen("Esc stops it", WAIT);
        assert!(screen.contains("Esc stops it"), "not selected:\n{screen}");
        pty.send("\x1b");
        pty.wait_for("going on without it", WAIT);
        let deadline = Instant::now() + Duration::from_secs(5);
        while !crate::shell::processes_with(&marker).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(
            crate::shell::processes_with(&marker),
            Vec::<String>::new(),
            "the child's `sleep` outlived Esc"
        );
        let requests: Vec<Value> = s.mock.requests().iter().map(|r| r.json()).collect();
        let last = requests.last().unwrap();
        let answered = result_of(last, "t1");
        assert!(answered.contains("cancelled"), "{answered}");
        // Only the child stopped: the turn itself was not cancelled.
        let transcript = pty.transcript();
        assert!(
            transcript.contains("sub-agent general: waiter: cancelled"),
            "{transcript}"
        );
        assert!(!transcript.contains("· cancelled\n"), "{transcript}");
    }
}
