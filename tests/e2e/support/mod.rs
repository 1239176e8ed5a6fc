//! Shared helpers for the end-to-end tests: building the test components from source, temp
//! homes and workspaces, running the `reasonix` binary.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod mcp;
pub mod pty;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
}

/// Build `tests/fixtures` for wasm32-wasip2 once per test process; return the path of the
/// component `name`.
pub fn fixture(name: &str) -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    let dir = BUILT.get_or_init(|| {
        let target = target_dir().join("fixtures");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut command = Command::new(cargo);
        command
            .current_dir(repo_root().join("tests/fixtures"))
            // tests/fixtures/Cargo.lock is committed: build exactly what it pins.
            .args([
                "build",
                "--locked",
                "--release",
                "--target",
                "wasm32-wasip2",
                "--target-dir",
            ])
            .arg(&target);
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy().into_owned();
            if (key.starts_with("CARGO_") && key != "CARGO_HOME")
                || key.starts_with("RUSTC")
                || key == "RUSTFLAGS"
            {
                command.env_remove(key);
            }
        }
        let out = command.output().expect("run cargo for the fixtures");
        assert!(
            out.status.success(),
            "building test fixtures failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        target.join("wasm32-wasip2/release")
    });
    let path = dir.join(format!("{name}.wasm"));
    assert!(path.is_file(), "fixture {} missing", path.display());
    path
}

/// The compiled-artifact cache shared by the CLI tests of one target directory.
pub fn shared_artifact_cache() -> PathBuf {
    target_dir().join("test-artifact-cache")
}

/// A temporary Reasonix home, workspace and project directory for one test.
pub struct Env {
    pub root: tempfile::TempDir,
    /// Whether [`Env::project_config`] keeps the trust list pinned to what it writes.
    pub trusted: bool,
}

impl Env {
    /// A home whose trust list (`<home>/trust.json`) trusts the project directory, so its
    /// `reasonix.toml` (written with [`Env::project_config`]) applies in full, as for a user who
    /// ran `reasonix trust` there.
    pub fn new() -> Env {
        let mut env = Env::untrusted();
        env.trusted = true;
        env.trust_project();
        env
    }

    /// Like [`Env::new`], but nothing is trusted: the project's `reasonix.toml` can only narrow.
    pub fn untrusted() -> Env {
        let env = Env {
            root: tempfile::tempdir().unwrap(),
            trusted: false,
        };
        std::fs::create_dir_all(env.home().join("plugins")).unwrap();
        std::fs::create_dir_all(env.workspace()).unwrap();
        std::fs::create_dir_all(env.project()).unwrap();
        env
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// Canonical path, as the kernel preopens it.
    pub fn workspace(&self) -> PathBuf {
        let p = self.root.path().join("workspace");
        std::fs::create_dir_all(&p).unwrap();
        std::fs::canonicalize(p).unwrap()
    }

    /// `$HOME` of the processes a test starts (empty unless the test puts files there).
    pub fn user_home(&self) -> PathBuf {
        let p = self.root.path().join("user-home");
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    /// The directory `reasonix` runs in (where `./reasonix.toml` is read).
    pub fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    pub fn plugins_dir(&self) -> PathBuf {
        self.home().join("plugins")
    }

    pub fn install_raw(&self, file_name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.plugins_dir().join(file_name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    pub fn install_fixture(&self, name: &str) -> PathBuf {
        let bytes = std::fs::read(fixture(name)).unwrap();
        self.install_raw(&format!("{name}.wasm"), &bytes)
    }

    pub fn project_config(&self, text: &str) {
        std::fs::write(self.project().join("reasonix.toml"), text).unwrap();
        if self.trusted {
            self.trust_project();
        }
    }

    /// Write `<home>/trust.json` trusting the project directory with its current
    /// `reasonix.toml`, as `reasonix trust` does.
    pub fn trust_project(&self) {
        let project = std::fs::canonicalize(self.project()).unwrap();
        let sha = std::fs::read(project.join("reasonix.toml"))
            .ok()
            .map(|bytes| reasonix_host::cache::sha256_hex(&bytes));
        let trust = serde_json::json!({
            "version": 1,
            "workspaces": [{"path": project, "config_sha256": sha}],
        });
        std::fs::write(self.home().join("trust.json"), trust.to_string()).unwrap();
    }

    /// The `reasonix` binary with `args`, run in the project directory against this home, with
    /// nothing of the test process's own Reasonix environment and no stdin.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_reasonix"));
        command
            .args(args)
            .current_dir(self.project())
            .env("REASONIX_HOME", self.home())
            // Never the developer's own `~/.claude/settings.json` (hooks, rules) or other
            // dotfiles: a home of the test's own.
            .env("HOME", self.user_home())
            // One compiled-artifact cache for every test process: artifacts are keyed by
            // content hash and written atomically, so sharing is safe, and each test no longer
            // compiles every built-in from scratch.
            .env("REASONIX_CACHE_HOME", shared_artifact_cache())
            .env_remove("REASONIX_STATE_HOME")
            .env_remove("REASONIX_LOG")
            .env_remove("MOCK_LLM_KEY")
            // English whatever the machine's locale; a test of another language overrides it.
            .env("REASONIX_LANG", "en")
            .stdin(std::process::Stdio::null());
        command
    }

    pub fn reasonix(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `reasonix <args…>` with `input` on its stdin, then closed.
    pub fn reasonix_fed(&self, args: &[&str], input: &str) -> Output {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
        child.wait_with_output().unwrap()
    }

    /// `reasonix tools call <name> <args> --dir <workspace>`.
    pub fn call(&self, tool: &str, args: &str) -> Output {
        let ws = self.workspace();
        self.reasonix(&["tools", "call", tool, args, "--dir", ws.to_str().unwrap()])
    }
}

/// A `reasonix.toml` whose default model is provider `mock` (of `kind`, at `base_url`, its key
/// in `MOCK_LLM_KEY`); `extra` lines are appended to the `[[providers]]` entry.
pub fn mock_provider_config(kind: &str, base_url: &str, extra: &str) -> String {
    format!(
        r#"default_model = "mock"
[[providers]]
name = "mock"
kind = "{kind}"
base_url = "{base_url}"
model = "mock-model"
api_key_env = "MOCK_LLM_KEY"
{extra}
"#
    )
}

impl Env {
    /// Save `key` as `MOCK_LLM_KEY` in `<home>/.env` and return the config of
    /// [`mock_provider_config`], for the caller to write or parse.
    pub fn mock_provider(&self, kind: &str, base_url: &str, key: &str, extra: &str) -> String {
        std::fs::write(self.home().join(".env"), format!("MOCK_LLM_KEY={key}\n")).unwrap();
        mock_provider_config(kind, base_url, extra)
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every tool result in a request body, `(call id, content)` in order, read the way each wire
/// carries them: OpenAI `{"role":"tool","tool_call_id","content"}` messages, Anthropic
/// `tool_result` blocks inside user messages, Responses `function_call_output` input items.
pub fn tool_results(kind: &str, body: &serde_json::Value) -> Vec<(String, String)> {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    match kind {
        "openai" => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| (s(&m["tool_call_id"]), s(&m["content"])))
            .collect(),
        "anthropic" => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user")
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|b| b["type"] == "tool_result")
            .map(|b| (s(&b["tool_use_id"]), s(&b["content"])))
            .collect(),
        _ => body["input"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "function_call_output")
            .map(|i| (s(&i["call_id"]), s(&i["output"])))
            .collect(),
    }
}

/// The result of call `id` in an OpenAI-wire request body; panics naming the body when there
/// is none.
pub fn result_of(body: &serde_json::Value, id: &str) -> String {
    tool_results("openai", body)
        .into_iter()
        .find(|(call, _)| call == id)
        .map(|(_, content)| content)
        .unwrap_or_else(|| panic!("no result of {id} in {body}"))
}

/// A one-shot HTTP server on loopback answering `200 ok`; returns its authority.
pub fn one_shot_server() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let authority = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    authority
}

/// The entry of plugin `name` in `reasonix plugin list --json`.
pub fn listed_plugin(env: &Env, name: &str) -> serde_json::Value {
    let out = env.reasonix(&["plugin", "list", "--json"]);
    assert!(out.status.success(), "plugin list failed: {}", stderr(&out));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    list["plugins"]
        .as_array()
        .unwrap_or_else(|| panic!("plugin list --json has no `plugins` array: {list}"))
        .iter()
        .find(|p| p["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} missing from plugin list: {list}"))
}
