//! `reasonix setup` in a pseudo-terminal: the custom endpoint pointed at the mock LLM, a
//! pasted key, a passing test, the files on disk, and `reasonix run` working with them.
//! Also: no terminal → exit 2; a missing config names the real home directory.

use crate::support::{Env, shared_artifact_cache, stderr, stdout};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use reasonix_mock_llm::{MockLlm, Reply};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Every key variable a preset or setup reads: none may leak in from the test's environment.
const KEY_VARS: &[&str] = &[
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "KIMI_API_KEY",
    "QWEN_API_KEY",
    "GLM_API_KEY",
    "MINIMAX_API_KEY",
    "OPENROUTER_API_KEY",
    "CUSTOM_API_KEY",
    "MOCK_LLM_KEY",
];

/// A generous bound that only stops a hung test; never a timing assertion.
const PATIENCE: Duration = Duration::from_secs(180);

/// `reasonix <args>` on a pseudo-terminal, its screen kept by a vt100 parser.
struct Pty {
    screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Pty {
    fn spawn(env: &Env, args: &[&str]) -> Pty {
        let (rows, cols) = (30, 110);
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_reasonix"));
        cmd.args(args);
        cmd.cwd(env.project());
        cmd.env("REASONIX_HOME", env.home());
        cmd.env("HOME", env.user_home());
        cmd.env("REASONIX_CACHE_HOME", shared_artifact_cache());
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("REASONIX_STATE_HOME");
        cmd.env_remove("REASONIX_LOG");
        for var in KEY_VARS {
            cmd.env_remove(var);
        }
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZeroU16::new(rows).unwrap(),
            std::num::NonZeroU16::new(cols).unwrap(),
            0,
        )));
        let feed = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                feed.lock().unwrap().process(&buf[..n]);
            }
        });
        Pty {
            screen,
            writer,
            child,
            _master: pair.master,
        }
    }

    fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.contents();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "never saw {text:?}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn send(&mut self, bytes: &str) {
        self.writer.write_all(bytes.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    fn paste(&mut self, text: &str) {
        self.send(&format!("\x1b[200~{text}\x1b[201~"));
    }

    fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "setup did not exit:\n{}",
                self.contents()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[cfg(unix)]
#[test]
fn custom_endpoint_with_a_pasted_key_then_run_works() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::text(&["OK"]));
    mock.enqueue(Reply::text(&["Hello from the configured mock."]));
    let key = "sk-setup-test-0123456789";

    let mut pty = Pty::spawn(&env, &["setup"]);
    pty.wait_for("Which LLM provider");
    pty.send("\x1b[A"); // Up wraps to the last entry: the custom endpoint.
    pty.wait_for("▸ custom");
    pty.send("\r");
    pty.wait_for("Base URL");
    pty.paste(&format!("{}\n", mock.base_url()));
    pty.send("\r");
    pty.wait_for("Model id");
    pty.send("mock-model\r");
    pty.wait_for("API key");
    pty.paste(key);
    let screen = pty.wait_for("6789");
    assert!(
        !screen.contains("sk-setup-test"),
        "the key is masked:\n{screen}"
    );
    pty.send("\r");
    let screen = pty.wait_for("The provider answered");
    assert!(
        screen.contains("custom/mock-model answered: OK"),
        "{screen}"
    );
    pty.send("\r");
    let screen = pty.wait_for("Setup is complete");
    let config_path = env.home().join("config.toml");
    let env_path = env.home().join(".env");
    assert!(
        screen.contains(&config_path.display().to_string()),
        "{screen}"
    );
    assert!(screen.contains(&env_path.display().to_string()), "{screen}");
    pty.send("\r");
    assert!(pty.wait_exit().success());

    // The test went through the real provider path with the pasted key, a few tokens at most.
    let request = &mock.requests()[0];
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {key}").as_str())
    );
    let body = request.json();
    assert_eq!(body["model"], "mock-model");
    let limit = body["max_tokens"]
        .as_u64()
        .or_else(|| body["max_completion_tokens"].as_u64())
        .unwrap_or_else(|| panic!("no output limit in {body}"));
    assert!(limit <= 16, "{body}");

    let config = std::fs::read_to_string(&config_path).unwrap();
    assert!(
        config.starts_with("default_model = \"custom\"\n"),
        "{config}"
    );
    assert!(
        config.contains(&format!("base_url = \"{}\"", mock.base_url())),
        "{config}"
    );
    assert!(
        config.contains("api_key_env = \"CUSTOM_API_KEY\""),
        "{config}"
    );
    let dotenv = std::fs::read_to_string(&env_path).unwrap();
    assert_eq!(dotenv, format!("CUSTOM_API_KEY=\"{key}\"\n"));
    let mode = std::fs::metadata(&env_path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    let ws = env.workspace();
    let mut run = env.command(&["run", "--dir", ws.to_str().unwrap(), "-p", "say hello"]);
    for var in KEY_VARS {
        run.env_remove(var);
    }
    let out = run.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Hello from the configured mock."),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        mock.requests()[1].header("authorization"),
        Some(format!("Bearer {key}").as_str())
    );
}

#[test]
fn without_a_terminal_setup_says_so_and_exits_2() {
    let env = Env::new();
    let out = env.reasonix(&["setup"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("run `reasonix setup` in a terminal"), "{err}");
    assert!(!env.home().join("config.toml").exists());
}

#[test]
fn a_missing_config_names_the_real_home() {
    let env = Env::new();
    let ws = env.workspace();
    let mut run = env.command(&["run", "--dir", ws.to_str().unwrap(), "-p", "hi"]);
    for var in KEY_VARS {
        run.env_remove(var);
    }
    let out = run.output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("<home>"), "{err}");
    let home = env.home().display().to_string();
    assert!(err.contains(&format!("{home}/config.toml")), "{err}");
    assert!(err.contains(&format!("{home}/.env")), "{err}");
}

#[test]
fn doctor_and_presets_name_the_real_home() {
    let env = Env::new();
    std::fs::write(
        env.home().join("config.toml"),
        "[[providers]]\npreset = \"deepseek\"\napi_key_env = \"sk-not-a-name\"\n",
    )
    .unwrap();
    let home = env.home().display().to_string();
    let out = env.reasonix(&["doctor"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    let line = text
        .lines()
        .find(|l| l.contains("must be the NAME of an environment variable"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&format!("{home}/.env")), "{line}");
    assert!(!line.contains("<home>"), "{line}");

    let out = env.reasonix(&["providers", "presets"]);
    let text = stdout(&out);
    assert!(
        text.contains(&format!("environment or {home}/.env")),
        "{text}"
    );
    assert!(!text.contains("<home>"), "{text}");
}

/// A rejected key: the provider's error is shown, `e` goes back to the key, a corrected key
/// passes, and only the corrected key is saved.
#[cfg(unix)]
#[test]
fn a_rejected_key_can_be_edited_and_retested() {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    mock.enqueue(Reply::status(
        401,
        r#"{"error":{"message":"Invalid API key \u001b[31mred"}}"#,
    ));
    mock.enqueue(Reply::text(&["OK"]));
    // An existing config keeps its comment and other settings.
    std::fs::write(
        env.home().join("config.toml"),
        "# mine\n[agent]\nmax_steps = 7\n",
    )
    .unwrap();

    let mut pty = Pty::spawn(&env, &["setup"]);
    pty.wait_for("Which LLM provider");
    pty.send("\x1b[A");
    pty.wait_for("▸ custom");
    pty.send("\r");
    pty.wait_for("Base URL");
    pty.paste(&mock.base_url());
    pty.send("\r");
    pty.wait_for("Model id");
    pty.send("mock-model\r");
    pty.wait_for("API key");
    pty.paste("sk-wrong-key-00000000");
    pty.wait_for("0000");
    pty.send("\r");
    let screen = pty.wait_for("The test failed");
    assert!(screen.contains("Invalid API key"), "{screen}");
    assert!(!screen.contains('\u{1b}'), "{screen}");
    pty.send("e");
    pty.wait_for("leave empty");
    pty.send("\x15"); // Ctrl-U clears the field.
    pty.paste("sk-right-key-11111111");
    pty.wait_for("1111");
    pty.send("\r");
    pty.wait_for("The provider answered");
    pty.send("\r");
    pty.wait_for("Setup is complete");
    pty.send("\r");
    assert!(pty.wait_exit().success());

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].header("authorization"),
        Some("Bearer sk-right-key-11111111")
    );
    let dotenv = std::fs::read_to_string(env.home().join(".env")).unwrap();
    assert_eq!(dotenv, "CUSTOM_API_KEY=\"sk-right-key-11111111\"\n");
    let config = std::fs::read_to_string(env.home().join("config.toml")).unwrap();
    // The new root key goes above the first table, whose comment stays with it.
    assert!(
        config.starts_with("default_model = \"custom\"\n# mine\n[agent]\nmax_steps = 7\n"),
        "{config}"
    );
    assert!(config.contains("base_url"), "{config}");
}
