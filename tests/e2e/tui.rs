//! The interactive session, driven in a pseudo-terminal against the mock LLM: what a person
//! sees and what ends up on disk.

use crate::support::Env;
use crate::support::pty::Pty;
use reasonix_mock_llm::{MockLlm, Reply};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

struct Session {
    env: Env,
    mock: MockLlm,
}

impl Session {
    fn new() -> Session {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let config = env.mock_provider("openai", &mock.base_url(), "k", "");
        std::fs::write(env.home().join("config.toml"), config).unwrap();
        Session { env, mock }
    }

    fn open(&self, args: &[&str]) -> Pty {
        let pty = self.env.pty(args, 100, 30, &[]);
        pty.wait_for("Ctrl+D to leave", WAIT);
        pty
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
