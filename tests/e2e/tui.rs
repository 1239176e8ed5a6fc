//! The interactive session, driven in a pseudo-terminal against the mock LLM: what a person
//! sees and what ends up on disk.

use crate::support::Env;
use crate::support::pty::Pty;
use reasonix_mock_llm::{MockLlm, Reply};
use std::time::Duration;

pub const WAIT: Duration = Duration::from_secs(60);
/// Longer than the session's guard: keys sent after it are deliberate answers.
pub const ANSWER_PAUSE: Duration = Duration::from_millis(900);

pub struct Session {
    pub env: Env,
    pub mock: MockLlm,
}

impl Session {
    pub fn new() -> Session {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let config = env.mock_provider("openai", &mock.base_url(), "k", "");
        std::fs::write(env.home().join("config.toml"), config).unwrap();
        Session { env, mock }
    }

    fn open(&self, args: &[&str]) -> Pty {
        self.open_at(args, 100, 30)
    }

    /// The session in a `cols`×`rows` terminal, once its banner is up.
    pub fn open_at(&self, args: &[&str], cols: u16, rows: u16) -> Pty {
        let pty = self.env.pty(args, cols, rows, &[]);
        // The banner's second line; at 80 columns its end wraps.
        pty.wait_for("/help for commands", WAIT);
        pty
    }

    /// The user's config file, which `p` ("always") edits.
    pub fn user_config(&self) -> String {
        std::fs::read_to_string(self.env.home().join("config.toml")).unwrap()
    }
}

#[test]
fn a_prompt_streams_its_answer() {
    let s = Session::new();
    s.mock
        .enqueue(Reply::text(&["Hello ", "from the ", "mock.\nSecond line."]));
    let mut pty = s.open(&[]);
    pty.type_text("say hello");
    pty.send("\r");
    pty.wait_for("Hello from the mock.", WAIT);
    pty.wait_for("Second line.", WAIT);
    let body = s.mock.requests()[0].json();
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["content"], "say hello");
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

pub fn write_call(path: &str, content: &str) -> Reply {
    let args = serde_json::json!({ "path": path, "content": content }).to_string();
    Reply::tool_calls(&[("call_w", "write_file", &args)], 1)
}

/// The tool message the model received in request `i`.
fn tool_result(mock: &MockLlm, i: usize) -> String {
    let body = mock.requests()[i].json();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .expect("a tool message")
}

#[test]
fn approving_a_write_shows_its_diff_and_writes_the_file() {
    let s = Session::new();
    std::fs::write(s.env.project().join("notes.txt"), "old line\n").unwrap();
    s.mock.enqueue(write_call("notes.txt", "new line\n"));
    s.mock.enqueue(Reply::text(&["Updated notes.txt."]));
    let mut pty = s.open(&[]);
    pty.type_text("update the notes");
    pty.send("\r");
    // The question, with the exact rule "always" would write and where.
    let screen = pty.wait_for("Yes, once", WAIT);
    assert!(screen.contains("Allow write_file?"), "{screen}");
    assert!(screen.contains("config.toml"), "{screen}");
    // The diff of the change is on screen before the answer.
    assert!(
        screen.contains("- old line") || screen.contains("-old line"),
        "{screen}"
    );
    assert!(
        screen.contains("+ new line") || screen.contains("+new line"),
        "{screen}"
    );
    // Answer keys count once the question has been on screen a moment.
    std::thread::sleep(ANSWER_PAUSE);
    pty.send("y");
    pty.wait_for("Updated notes.txt.", WAIT);
    assert_eq!(
        std::fs::read_to_string(s.env.project().join("notes.txt")).unwrap(),
        "new line\n"
    );
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn denying_a_write_tells_the_model_the_note() {
    let s = Session::new();
    s.mock.enqueue(write_call("secret.txt", "x\n"));
    s.mock.enqueue(Reply::text(&["Understood."]));
    let mut pty = s.open(&[]);
    pty.type_text("write the file");
    pty.send("\r");
    pty.wait_for("Yes, once", WAIT);
    std::thread::sleep(ANSWER_PAUSE);
    pty.send("n");
    pty.wait_for("note to the model", WAIT);
    pty.type_text("use another name");
    pty.send("\r");
    let text = pty.wait_for("Understood.", WAIT);
    assert!(!s.env.project().join("secret.txt").exists());
    // Said by the answer's line and the denied card, not a third time by the agent's notice.
    assert!(!text.contains("not run:"), "{text}");
    let told = tool_result(&s.mock, 1);
    assert!(told.contains("use another name"), "{told}");
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn esc_cancels_a_running_command_promptly() {
    let s = Session::new();
    let args = serde_json::json!({ "command": "sleep 30" }).to_string();
    s.mock
        .enqueue(Reply::tool_calls(&[("call_s", "bash", &args)], 1));
    let mut pty = s.open(&["--yolo"]);
    pty.type_text("wait a while");
    pty.send("\r");
    pty.wait_for("sleep 30", WAIT);
    // Let the command start, then Esc.
    std::thread::sleep(Duration::from_millis(300));
    let pressed = std::time::Instant::now();
    pty.send("\x1b");
    pty.wait_for("cancelled", WAIT);
    let took = pressed.elapsed();
    // Generous bound (noisy CI): the command would otherwise run 30 s.
    assert!(took < Duration::from_secs(10), "cancel took {took:?}");
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn quit_then_continue_shows_the_transcript() {
    let s = Session::new();
    s.mock.enqueue(Reply::text(&["The answer is 42."]));
    let mut pty = s.open(&[]);
    pty.type_text("what is the answer");
    pty.send("\r");
    pty.wait_for("The answer is 42.", WAIT);
    // The answer can be on screen while the turn still ends (saving, the `Stop` point): a
    // Ctrl+C then cancels the turn, which is not what this test is about.
    pty.wait_gone("(Esc to cancel)", WAIT);
    pty.send("\x03");
    pty.wait_for("Ctrl+C again", WAIT);
    pty.send("\x03");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
    let text = pty.wait_for("continue it with `reasonix -c`", WAIT);
    // The hint was live only: nothing of it is left in the scrollback.
    assert!(!text.contains("Ctrl+C again"), "{text}");
    drop(pty);

    // A session opened and left without a word is not what `-c` continues.
    let mut idle = s.open(&[]);
    idle.send("\x04");
    assert_eq!(idle.wait_exit(WAIT), Some(0));
    drop(idle);

    s.mock.enqueue(Reply::text(&["Still 42."]));
    let mut again = s.open(&["-c"]);
    let text = again.wait_for("The answer is 42.", WAIT);
    assert!(text.contains("what is the answer"), "{text}");
    again.type_text("and now");
    again.send("\r");
    again.wait_for("Still 42.", WAIT);
    // The resumed request carries the earlier turn.
    let body = s.mock.requests()[1].json();
    let contents: Vec<String> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].to_string())
        .collect();
    assert!(
        contents.iter().any(|c| c.contains("what is the answer")),
        "{contents:?}"
    );
    again.send("\x04");
    assert_eq!(again.wait_exit(WAIT), Some(0));
}

#[test]
fn a_custom_command_expands_its_arguments() {
    let s = Session::new();
    let dir = s.env.project().join(".reasonix/commands/review");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("file.md"),
        "---\ndescription: Review one file\nargument-hint: <file> <focus>\n---\nReview $1 with a focus on $2. All: $ARGUMENTS. Cost: $$5.\n",
    )
    .unwrap();
    s.mock.enqueue(Reply::text(&["Reviewed."]));
    let mut pty = s.open(&[]);
    // The slash menu lists it, with its description.
    pty.type_text("/review:f");
    pty.wait_for("Review one file", WAIT);
    pty.type_text("ile src/main.rs \"error handling\"");
    pty.send("\r");
    pty.wait_for("Reviewed.", WAIT);
    let body = s.mock.requests()[0].json();
    let last = body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        last,
        "Review src/main.rs with a focus on error handling. All: src/main.rs \"error handling\". Cost: $5.",
        "{last}"
    );
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn first_run_opens_setup_and_a_key_in_the_environment_skips_it() {
    // Nothing configured, no key anywhere: the setup screen, not an error.
    let env = Env::new();
    let mut pty = env.pty(&[], 100, 30, &[]);
    let screen = pty.wait_for("DeepSeek", WAIT);
    assert!(!screen.contains("no providers are configured"), "{screen}");
    pty.send("\x03");
    pty.send("q");
    assert!(pty.wait_exit(WAIT).is_some());
    drop(pty);

    // A preset's key in the environment: that preset, straight to the prompt.
    let mut pty = env.pty(&[], 100, 30, &[("DEEPSEEK_API_KEY", "sk-test")]);
    let screen = pty.wait_for("Ctrl+D to leave", WAIT);
    assert!(screen.contains("deepseek/"), "{screen}");
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn slash_commands_answer_in_the_session() {
    let s = Session::new();
    let mut pty = s.open(&[]);
    pty.type_text("/help");
    pty.send("\r");
    pty.wait_for("/resume", WAIT);
    pty.type_text("/compact");
    pty.send("\r");
    // Nothing said yet: nothing to fold, and the notice says so.
    pty.wait_for("nothing was compacted", WAIT);
    pty.type_text("/status");
    pty.send("\r");
    let text = pty.wait_for("posture   ask", WAIT);
    // The mock model's window is not known: the one compaction assumes is named, not "?".
    assert!(text.contains("of 32.8k (assumed"), "{text}");
    // /plugins says what each plugin serves; /tools is one short line a tool.
    pty.type_text("/plugins");
    pty.send("\r");
    let text = pty.wait_for("tools: ", WAIT);
    assert!(
        text.lines()
            .any(|l| l.contains("fs-read") && l.contains("read_file")),
        "{text}"
    );
    pty.type_text("/tools");
    pty.send("\r");
    let text = pty.wait_for("  write_file ", WAIT);
    // After the /plugins listing (its last row names todo_write), up to the composer.
    let listing = &text[text.rfind("tools: todo_write").unwrap_or(0)..];
    let rows = listing
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('›'))
        .count();
    // One row a tool (there are under twenty), not a wrapped paragraph each.
    assert!(rows <= 25, "{rows} rows: {listing}");
    // Shift+Tab to acceptEdits, again to auto, again to plan, Ctrl+Y to yolo: always shown in
    // the status line.
    pty.send("\x1b[Z");
    pty.wait_for(" accept-edits ", WAIT);
    pty.send("\x1b[Z");
    pty.wait_for(" auto ", WAIT);
    pty.send("\x1b[Z");
    pty.wait_for(" plan ", WAIT);
    pty.send("\x19");
    pty.wait_for(" YOLO ", WAIT);
    pty.type_text("/nonsense");
    pty.send("\r");
    pty.wait_for("unknown command /nonsense", WAIT);
    pty.type_text("/quit");
    pty.send("\r");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn hostile_model_output_never_reaches_the_terminal_raw() {
    let s = Session::new();
    // Clear screen, set the window title, and an OSC 52 clipboard write.
    s.mock.enqueue(Reply::text(&[
        "before \x1b[2J\x1b]0;pwned\x07 \x1b]52;c;ZXZpbA==\x07after\n",
    ]));
    let mut pty = s.open(&[]);
    pty.type_text("hi");
    pty.send("\r");
    let text = pty.wait_for("after", WAIT);
    assert!(text.contains("before"), "the screen was cleared: {text}");
    assert!(text.contains("\\x1b"), "{text}");
    assert!(!pty.raw_contains(b"\x1b]0;pwned"));
    assert!(!pty.raw_contains(b"\x1b]52;"));
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn a_message_typed_during_a_turn_is_queued_and_sent_after_it() {
    let s = Session::new();
    s.mock.enqueue(
        Reply::text(&["first part, "])
            .then(reasonix_mock_llm::Step::Gate("hold".into()))
            .then(reasonix_mock_llm::Step::Text("first done".into())),
    );
    s.mock.enqueue(Reply::text(&["second done"]));
    let mut pty = s.open(&[]);
    pty.type_text("one");
    pty.send("\r");
    pty.wait_for("first part,", WAIT);
    pty.type_text("two");
    pty.send("\r");
    pty.wait_for("queued: two", WAIT);
    // Nothing is sent while the first turn runs.
    assert_eq!(s.mock.requests().len(), 1);
    s.mock.release("hold");
    pty.wait_for("second done", WAIT);
    let body = s.mock.requests()[1].json();
    let last = body["messages"].as_array().unwrap().last().unwrap()["content"].clone();
    assert_eq!(last, "two");
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn a_write_without_a_question_still_shows_its_diff() {
    let s = Session::new();
    std::fs::write(s.env.project().join("notes.txt"), "alpha\nbeta\n").unwrap();
    s.mock.enqueue(write_call("notes.txt", "alpha\ngamma\n"));
    s.mock.enqueue(Reply::text(&["Done."]));
    let mut pty = s.open(&["--permission-mode", "auto"]);
    pty.type_text("change beta");
    pty.send("\r");
    let text = pty.wait_for("Done.", WAIT);
    assert!(!text.contains("Yes, once"), "asked in auto: {text}");
    assert!(text.contains("- beta") || text.contains("-beta"), "{text}");
    assert!(
        text.contains("+ gamma") || text.contains("+gamma"),
        "{text}"
    );
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn a_plugin_writing_to_stderr_becomes_an_escaped_notice() {
    let s = Session::new();
    let source = crate::support::fixture("hostile_term");
    let out = s
        .env
        .reasonix(&["plugin", "install", source.to_str().unwrap(), "--yes"]);
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    s.mock
        .enqueue(Reply::tool_calls(&[("call_l", "term-log", "{}")], 1));
    s.mock.enqueue(Reply::text(&["Logged."]));
    let mut pty = s.open(&["--yolo"]);
    pty.type_text("log something");
    pty.send("\r");
    let text = pty.wait_for("Logged.", WAIT);
    // The plugin's warning went to stderr while the session owned the terminal: it is a
    // notice in the transcript, one line, its escapes visible, nothing obeyed.
    assert!(
        text.contains("· [hostile-term] warn: log line\\x1b[1A"),
        "{text}"
    );
    assert!(!pty.raw_contains(b"\x1b[1A\x1b[M"));
    assert!(
        !pty.raw_contains(b"\xe2\x80\xae"),
        "a bidi override reached the terminal"
    );
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn ctrl_t_shows_an_earlier_tool_call_in_full() {
    let s = Session::new();
    let first = serde_json::json!({ "command": "printf 'alpha\\nbeta\\n'; echo \"third\"\"-line-of-first\"" })
        .to_string();
    let second = serde_json::json!({ "command": "echo second-call" }).to_string();
    s.mock
        .enqueue(Reply::tool_calls(&[("call_1", "bash", &first)], 1));
    s.mock
        .enqueue(Reply::tool_calls(&[("call_2", "bash", &second)], 1));
    s.mock.enqueue(Reply::text(&["Both ran."]));
    let mut pty = s.open(&["--yolo"]);
    pty.type_text("run two commands");
    pty.send("\r");
    let text = pty.wait_for("Both ran.", WAIT);
    // Collapsed: the first line of the output only.
    assert!(!text.contains("third-line-of-first"), "{text}");
    pty.send("\x14");
    pty.wait_for("Tool calls of this session", WAIT);
    // Newest first: ↓ selects the first call.
    pty.send("\x1b[B");
    pty.send("\r");
    pty.wait_for("third-line-of-first", WAIT);
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

/// A long output's card says how many lines it hides and points at Ctrl+T; Ctrl+T then shows
/// them all, not the same first 200 again.
#[test]
fn ctrl_t_shows_every_line_the_card_hid() {
    let s = Session::new();
    let call = serde_json::json!({ "command": "seq 1 600 | sed 's/^/row-/'" }).to_string();
    s.mock
        .enqueue(Reply::tool_calls(&[("call_1", "bash", &call)], 1));
    s.mock.enqueue(Reply::text(&["Counted."]));
    let mut pty = s.open_at(&["--yolo"], 100, 30);
    pty.type_text("count");
    pty.send("\r");
    let text = pty.wait_for("Counted.", WAIT);
    assert!(!text.contains("row-600"), "{text}");
    pty.send("\x14");
    pty.wait_for("Tool calls of this session", WAIT);
    pty.send("\r");
    let text = pty.wait_for("row-600", WAIT);
    let shown = &text[text.rfind("row-1\n").unwrap_or(0)..];
    assert!(shown.contains("row-599"), "{shown}");
    assert!(!shown.contains("more lines (Ctrl+T"), "{shown}");
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn resume_without_a_match_opens_the_picker() {
    let s = Session::new();
    s.mock.enqueue(Reply::text(&["Blue."]));
    let mut pty = s.open(&[]);
    pty.type_text("what colour is the sky");
    pty.send("\r");
    pty.wait_for("Blue.", WAIT);
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
    drop(pty);

    // A query that names no session: the picker, filtered by it; edit the filter, Enter.
    let mut again = s.env.pty(&["-r", "skyz"], 100, 30, &[]);
    again.wait_for("Resume a session", WAIT);
    again.wait_for("no session matches", WAIT);
    again.send("\x7f");
    again.wait_for("what colour is the sky", WAIT);
    again.send("\r");
    let text = again.wait_for("resumed session", WAIT);
    assert!(text.contains("Blue."), "{text}");
    again.send("\x04");
    assert_eq!(again.wait_exit(WAIT), Some(0));
}

#[test]
fn sigterm_leaves_cleanly_and_restores_the_terminal() {
    let s = Session::new();
    let mut pty = s.open(&[]);
    let pid = pty.pid();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(pty.wait_exit(WAIT), Some(0));
    // Bracketed paste switched off again; nothing was said, so nothing to continue.
    assert!(pty.raw_contains(b"\x1b[?2004l"));
    assert!(!pty.transcript().contains("reasonix -c"));
}

/// Provider trouble is shown live, not piled into the scrollback: retries of a failing request
/// take one transient line (a persistent 500 left one permanent line per retry), and a stream
/// that goes silent says so on the live line instead of a bare spinner.
#[test]
fn provider_trouble_is_one_live_line() {
    use reasonix_mock_llm::Fault;
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    let config = env.mock_provider(
        "openai",
        &mock.base_url(),
        "k",
        "max_retries = 3\nstall_timeout_seconds = 60",
    );
    std::fs::write(env.home().join("config.toml"), config).unwrap();
    let s = Session { env, mock };
    for _ in 0..2 {
        s.mock.enqueue(Reply::default().with_fault(Fault::Status {
            status: 500,
            retry_after: None,
            body: String::new(),
        }));
    }
    s.mock.enqueue(Reply::text(&["Recovered."]));
    let mut pty = s.open_at(&[], 120, 40);
    pty.type_text("hello");
    pty.send("\r");
    pty.wait_for("retrying in", WAIT);
    let text = pty.wait_for("Recovered.", WAIT);
    assert!(!text.contains("retrying in"), "{text}");
    assert_eq!(s.mock.requests().len(), 3);

    // A stream that sends its first event and then nothing.
    s.mock
        .enqueue(Reply::text(&["never", " finished"]).with_fault(Fault::HangAfter { events: 1 }));
    pty.type_text("again");
    pty.send("\r");
    pty.wait_for("waiting for the provider (no data for 1", WAIT);
    pty.send("\x1b");
    pty.wait_for("cancelled", WAIT);
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

/// After `/compact`, the status line's context is what the compaction left, as its notice
/// says (it kept the last request's count until the next request).
#[test]
fn compact_and_the_status_line_agree_on_the_context() {
    let s = Session::new();
    let big: String = (0..200)
        .map(|i| format!("line {i:03}: {}\n", "lorem ipsum ".repeat(6)))
        .collect();
    std::fs::write(s.env.project().join("big.txt"), big).unwrap();
    for turn in 0..3 {
        let id = format!("call_{turn}");
        s.mock.enqueue(Reply::tool_calls(
            &[(id.as_str(), "read_file", r#"{"path":"big.txt"}"#)],
            1,
        ));
        s.mock
            .enqueue(Reply::text(&[&format!("Read it, turn {turn}.")]));
    }
    s.mock
        .enqueue_tool_free(Reply::text(&["digest: big.txt was read three times."]));
    let pty = s.open_at(&["--yolo"], 120, 40);
    for turn in 0..3 {
        pty.type_text(&format!("read big.txt ({turn})"));
        pty.send("\r");
        pty.wait_for(&format!("Read it, turn {turn}."), WAIT);
    }
    pty.type_text("/compact");
    pty.send("\r");
    let text = pty.wait_for("compacted the history", WAIT);
    let line = text
        .lines()
        .find(|l| l.contains("compacted the history"))
        .unwrap();
    let after: u64 = line
        .split(" → ~")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no figure in {line}"));
    let shown = if after < 1_000 {
        after.to_string()
    } else {
        format!("{:.1}k", after as f64 / 1_000.0)
    };
    pty.wait_for(&format!("ctx {shown} "), WAIT);
}

/// The folded reasoning line says Ctrl+O shows it: pressed after the turn, it shows that
/// turn's reasoning, not only the next turn's.
#[test]
fn ctrl_o_shows_the_reasoning_the_turn_folded() {
    let s = Session::new();
    s.mock.enqueue(
        Reply::text(&["Answered."])
            .with_reasoning("first thought\nsecond thought\nthe-hidden-third-line", None),
    );
    let mut pty = s.open(&[]);
    pty.type_text("think");
    pty.send("\r");
    let text = pty.wait_for("Answered.", WAIT);
    assert!(
        text.contains("3 lines of reasoning, Ctrl+O shows them"),
        "{text}"
    );
    assert!(!text.contains("the-hidden-third-line"), "{text}");
    pty.send("\x0f");
    let text = pty.wait_for("the-hidden-third-line", WAIT);
    assert!(text.contains("reasoning of the latest turn"), "{text}");
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}
