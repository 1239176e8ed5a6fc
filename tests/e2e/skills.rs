//! Skills (docs/SKILLS.md): a `SKILL.md` folder in `.claude/skills` is one line of the `skill`
//! tool's index in the first request; its instructions (and the files it bundles) reach the
//! model only when it loads the skill, or when the user types `/name args`. The prefix bytes do
//! not move between runs; a manual skill stays out of the index; an untrusted workspace's skill
//! is marked; a sub-agent skill runs as a child.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, result_of, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::path::Path;

const PDF_NOTES: &str = "---\nname: pdf-notes\ndescription: Take notes from a PDF file. Use when the user hands you a PDF.\nargument-hint: [file]\n---\n\n# PDF notes\n\nBODY-MARKER-7f3: run `python3 scripts/extract.py $ARGUMENTS`, then write the notes.\n";

fn skill(root: &Path, name: &str, text: &str) {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    std::fs::write(dir.join("scripts/extract.py"), "print('text')\n").unwrap();
}

fn setup(env: Env) -> (Env, MockLlm) {
    let mock = MockLlm::start().unwrap();
    let provider = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
    if env.trusted {
        env.project_config(&provider);
    } else {
        // Only the user's own file may name an endpoint for a key in an untrusted workspace.
        std::fs::write(env.home().join("config.toml"), provider).unwrap();
    }
    skill(
        &env.workspace().join(".claude/skills"),
        "pdf-notes",
        PDF_NOTES,
    );
    (env, mock)
}

fn run(env: &Env, task: &str) -> std::process::Output {
    let ws = env.workspace();
    let out = env.reasonix(&["run", "--dir", ws.to_str().unwrap(), task]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out
}

fn skill_tool(request: &Value) -> Option<Value> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "skill")
        .cloned()
}

#[test]
fn the_index_is_in_the_first_request_and_the_body_only_after_the_skill_call() {
    let (env, mock) = setup(Env::new());
    let args = json!({"name": "pdf-notes", "arguments": "report.pdf"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("s1", "skill", &args)], 1));
    mock.enqueue(Reply::text(&["notes written"]));
    run(&env, "summarise report.pdf");
    mock.enqueue(Reply::text(&["hi"]));
    run(&env, "hello");

    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 3);
    let first = &requests[0];
    let tool = skill_tool(first).expect("the skill tool is offered");
    let description = tool["function"]["description"].as_str().unwrap();
    assert!(
        description.contains(
            "\n- pdf-notes: Take notes from a PDF file. Use when the user hands you a PDF."
        ),
        "{description}"
    );
    assert!(
        !first.to_string().contains("BODY-MARKER-7f3"),
        "the body is not sent before the skill is used"
    );
    let loaded = result_of(&requests[1], "s1");
    assert!(
        loaded.contains("BODY-MARKER-7f3: run `python3 scripts/extract.py report.pdf`"),
        "{loaded}"
    );
    assert!(
        loaded.contains("Files: SKILL.md, scripts/extract.py"),
        "{loaded}"
    );
    let folder = env.workspace().join(".claude/skills/pdf-notes");
    let folder = folder.canonicalize().unwrap();
    assert!(loaded.contains(folder.to_str().unwrap()), "{loaded}");
    assert!(
        loaded.contains("shell tool"),
        "scripts run through the shell tool: {loaded}"
    );

    // Two starts, one prefix: the same tools and system prompt bytes.
    assert_eq!(
        requests[0]["tools"].to_string(),
        requests[2]["tools"].to_string()
    );
    assert_eq!(requests[0]["messages"][0], requests[2]["messages"][0]);
}

#[test]
fn a_typed_slash_name_sends_the_skill_with_its_arguments() {
    let (env, mock) = setup(Env::new());
    mock.enqueue(Reply::text(&["on it"]));
    let out = run(&env, "/pdf-notes x.pdf");
    assert_eq!(stdout(&out).trim(), "on it");
    let request = mock.requests()[0].json();
    let messages = request["messages"].as_array().unwrap();
    let user = messages.last().unwrap()["content"].to_string();
    assert!(
        user.contains("BODY-MARKER-7f3: run `python3 scripts/extract.py x.pdf`"),
        "{user}"
    );
    assert!(user.contains("scripts/extract.py"), "{user}");
}

#[test]
fn a_manual_skill_is_left_out_of_the_index_and_refused_to_the_model() {
    let (env, mock) = setup(Env::new());
    skill(
        &env.workspace().join(".reasonix/skills"),
        "release",
        "---\ndescription: Cut a release.\ndisable-model-invocation: true\n---\nRELEASE-BODY $ARGUMENTS\n",
    );
    let args = json!({"name": "release"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("s1", "skill", &args)], 1));
    mock.enqueue(Reply::text(&["ok"]));
    run(&env, "make a release");
    mock.enqueue(Reply::text(&["released"]));
    run(&env, "/release 1.2.0");
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    let description = skill_tool(&requests[0]).unwrap()["function"]["description"].to_string();
    assert!(!description.contains("release"), "{description}");
    let refused = result_of(&requests[1], "s1");
    assert!(refused.contains("is for the user to invoke"), "{refused}");
    assert!(!refused.contains("RELEASE-BODY"), "{refused}");
    let typed = requests[2]["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(typed.contains("RELEASE-BODY 1.2.0"), "{typed}");
}

#[test]
fn an_untrusted_workspaces_skill_is_marked_and_a_users_own_wins_its_name() {
    let (env, mock) = setup(Env::untrusted());
    skill(
        &env.user_home().join(".claude/skills"),
        "pdf-notes",
        "---\ndescription: My own PDF notes.\n---\nMINE\n",
    );
    skill(
        &env.workspace().join(".claude/skills"),
        "lint",
        "---\ndescription: Lint the repository.\n---\nLINT\n",
    );
    mock.enqueue(Reply::text(&["hi"]));
    run(&env, "hello");
    let request = mock.requests()[0].json();
    let description = skill_tool(&request).unwrap()["function"]["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        description
            .contains("- lint: Lint the repository. (from this workspace, which is not trusted)"),
        "{description}"
    );
    assert!(
        description.contains("- pdf-notes: My own PDF notes.")
            && !description.contains("Take notes from a PDF"),
        "the user's own skill wins the name: {description}"
    );

    let ws = env.workspace();
    let listed = env
        .command(&["skills", "list", "--json"])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let lint = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "lint")
        .unwrap();
    assert_eq!(lint["trusted"], false);
    assert!(
        listed["warnings"][0]
            .as_str()
            .unwrap()
            .contains("`pdf-notes` is also in"),
        "{listed}"
    );
}

#[test]
fn a_subagent_skill_runs_as_a_child_with_its_instructions_as_the_task() {
    let (env, mock) = setup(Env::new());
    skill(
        &env.workspace().join(".claude/skills"),
        "audit",
        "---\ndescription: Audit the code.\ncontext: fork\nagent: explore\n---\nCHILD-TASK-MARKER audit $ARGUMENTS\n",
    );
    let args = json!({"name": "audit", "arguments": "src/"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("s1", "skill", &args)], 1));
    mock.enqueue_when("CHILD-TASK-MARKER", Reply::text(&["child found nothing"]));
    mock.enqueue(Reply::text(&["audit done"]));
    let out = run(&env, "audit src");
    assert_eq!(stdout(&out).trim(), "audit done");
    let requests: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    let child = requests
        .iter()
        .find(|r| {
            r["messages"].as_array().unwrap().iter().any(|m| {
                m["role"] == "user"
                    && m["content"]
                        .to_string()
                        .contains("CHILD-TASK-MARKER audit src/")
            })
        })
        .expect("a child request carries the skill as its task");
    let system = child["messages"][0]["content"].to_string();
    assert!(system.contains("explore sub-agent"), "{system}");
    let child_tools: Vec<&str> = child["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        !child_tools.contains(&"write_file"),
        "explore only reads: {child_tools:?}"
    );
    let parent = requests.last().unwrap();
    assert_eq!(result_of(parent, "s1"), "child found nothing");
}

#[test]
fn no_skills_no_tool() {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    mock.enqueue(Reply::text(&["hi"]));
    run(&env, "hello");
    assert!(skill_tool(&mock.requests()[0].json()).is_none());
}

#[test]
fn the_terminal_session_offers_the_skill_in_the_slash_menu_and_sends_it() {
    let s = crate::tui::Session::new();
    skill(
        &s.env.project().join(".claude/skills"),
        "pdf-notes",
        PDF_NOTES,
    );
    s.mock.enqueue(Reply::text(&["Notes follow."]));
    let mut pty = s.open_at(&[], 100, 30);
    pty.type_text("/pdf-n");
    pty.wait_for("Take notes from a PDF file", crate::tui::WAIT);
    pty.type_text("otes x.pdf");
    pty.send("\r");
    pty.wait_for("Notes follow.", crate::tui::WAIT);
    let body = s.mock.requests()[0].json();
    let last = body["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(
        last.contains("BODY-MARKER-7f3: run `python3 scripts/extract.py x.pdf`"),
        "{last}"
    );
    pty.type_text("/help");
    pty.send("\r");
    let screen = pty.wait_for("Skills", crate::tui::WAIT);
    assert!(screen.contains("/pdf-notes [file]"), "{screen}");
    pty.type_text("/skills");
    pty.send("\r");
    let screen = pty.wait_for("Skills (1)", crate::tui::WAIT);
    assert!(screen.contains("project, .claude"), "{screen}");
    pty.send("\x04");
    assert_eq!(pty.wait_exit(crate::tui::WAIT), Some(0));
}
