//! Claude Code compatible hooks, end to end: real hook scripts from `settings.json` files run
//! by the built-in `hooks` component (through the host `process` service, in the OS sandbox)
//! during a real `reasonix run` against the mock LLM, which records what the model was sent.
//! Also the `settings.json` permissions (`deny` from an untrusted project applies, `allow`
//! does not) and trust for project hooks.

use crate::support::{Env, stderr, stdout, tool_results};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    /// A trusted `reasonix.toml` (the mock as default model, `extra` appended), and a `$HOME`
    /// of the test's own, so the machine's `~/.claude/settings.json` is never read.
    fn new(extra: &str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let config = env.mock_provider("openai", &mock.base_url(), "sk-test", "");
        env.project_config(&format!("{config}\n{extra}"));
        std::fs::create_dir_all(env.root.path().join("userhome")).unwrap();
        std::fs::create_dir_all(env.root.path().join("scripts")).unwrap();
        Setup { env, mock }
    }

    fn user_home(&self) -> PathBuf {
        self.env.root.path().join("userhome")
    }

    /// Write a hook script; returns the command that runs it.
    fn script(&self, name: &str, body: &str) -> String {
        let path = self.env.root.path().join("scripts").join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        format!("sh {}", path.display())
    }

    fn write(&self, path: &Path, value: &Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    }

    /// `<home>/settings.json`: the user's own Reasonix settings (no trust needed).
    fn user_settings(&self, value: &Value) {
        self.write(&self.env.home().join("settings.json"), value);
    }

    /// `<project>/.claude/settings.json`.
    fn project_settings(&self, value: &Value) {
        self.write(&self.env.project().join(".claude/settings.json"), value);
    }

    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut command = self.env.command(args);
        command.env("HOME", self.user_home());
        command
    }

    fn reasonix(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `reasonix run --dir <workspace> <task>`, killed if it outlives `limit` (a hang is a
    /// failure, not a stuck test).
    fn run_within(&self, task: &str, limit: Duration) -> Output {
        let ws = self.env.workspace();
        let mut child = self
            .command(&["run", "--dir", ws.to_str().unwrap(), task])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > limit {
                child.kill().unwrap();
                let out = child.wait_with_output().unwrap();
                panic!(
                    "reasonix run did not finish within {limit:?}; stderr: {}",
                    stderr(&out)
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        child.wait_with_output().unwrap()
    }

    fn run(&self, task: &str) -> Output {
        self.run_within(task, Duration::from_secs(240))
    }

    fn result(&self, request: usize, id: &str) -> String {
        tool_results("openai", &self.mock.requests()[request].json())
            .into_iter()
            .find(|(call, _)| call == id)
            .map(|(_, content)| content)
            .unwrap_or_else(|| panic!("no result for {id} in request {request}"))
    }

    /// The user messages of request `i`.
    fn user_messages(&self, i: usize) -> Vec<String> {
        self.mock.requests()[i].json()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user")
            .map(|m| m["content"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

/// `{"hooks": {event: [{"matcher": m, "hooks": [{"type": "command", "command": c, …}]}]}}`.
fn claude_hook(event: &str, matcher: &str, command: &str, timeout_secs: Option<u64>) -> Value {
    let mut hook = serde_json::json!({"type": "command", "command": command});
    if let Some(t) = timeout_secs {
        hook["timeout"] = t.into();
    }
    serde_json::json!({"hooks": {event: [{"matcher": matcher, "hooks": [hook]}]}})
}

/// The Claude Code documentation's kind of guard: JSON on stdin, a JSON deny on stdout.
const RM_GUARD: &str = r#"input=$(cat)
case "$input" in *'"tool_name":"Bash"'*) ;; *) exit 0;; esac
case "$input" in
  *'rm -rf'*)
    printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is forbidden here; delete files one by one"}}'
    ;;
esac
exit 0"#;

#[test]
fn a_pre_tool_use_hook_denies_rm_rf_and_the_model_reads_why() {
    let s = Setup::new("[permissions]\nallow = [\"Bash\"]\n");
    let guard = s.script("guard.sh", RM_GUARD);
    s.user_settings(&claude_hook("PreToolUse", "Bash", &guard, None));
    let ws = s.env.workspace();
    std::fs::create_dir_all(ws.join("build")).unwrap();
    std::fs::write(ws.join("build/keep.txt"), "kept").unwrap();
    s.mock.enqueue(Reply::tool_calls(
        &[
            ("c1", "bash", r#"{"command":"rm -rf build"}"#),
            ("c2", "bash", r#"{"command":"echo still-fine"}"#),
        ],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));

    let out = s.run("clean up");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let denied = s.result(1, "c1");
    assert!(
        denied.contains("a PreToolUse hook blocked this call: rm -rf is forbidden here"),
        "{denied}"
    );
    assert!(ws.join("build/keep.txt").exists(), "the command ran");
    assert!(s.result(1, "c2").contains("still-fine"));
}

#[test]
fn exit_code_two_blocks_with_stderr_for_the_model() {
    let s = Setup::new("[permissions]\nallow = [\"Bash\"]\n");
    let guard = s.script(
        "exit2.sh",
        "cat >/dev/null; echo 'no network tools, please' >&2; exit 2",
    );
    s.user_settings(&claude_hook("PreToolUse", "Bash|Write", &guard, None));
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "bash", r#"{"command":"curl example.com"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["ok"]));
    let out = s.run("fetch");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        s.result(1, "c1").contains("no network tools, please"),
        "{}",
        s.result(1, "c1")
    );
}

#[test]
fn a_session_start_hook_adds_context_the_model_sees_once() {
    let s = Setup::new("[permissions]\nallow = [\"Bash\"]\n");
    let hook = s.script(
        "start.sh",
        r#"input=$(cat)
case "$input" in *'"source":"startup"'*) echo "BRANCH-CONTEXT-4711 (from SessionStart)";; esac"#,
    );
    s.user_settings(&claude_hook("SessionStart", "", &hook, None));
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "bash", r#"{"command":"echo hi"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("what branch?");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = s.user_messages(0);
    assert_eq!(first.len(), 1);
    assert!(
        first[0].starts_with("<hook-context event=\"SessionStart\">\nBRANCH-CONTEXT-4711"),
        "{}",
        first[0]
    );
    assert!(first[0].ends_with("what branch?"), "{}", first[0]);
    // The second request of the run carries it once: in the first user message, not again.
    let body = &s.mock.requests()[1].body;
    assert_eq!(body.matches("BRANCH-CONTEXT-4711").count(), 1, "{body}");
}

#[test]
fn a_user_prompt_submit_hook_blocks_the_prompt_before_any_request() {
    let s = Setup::new("");
    let hook = s.script(
        "prompt.sh",
        r#"input=$(cat)
case "$input" in *password*) echo '{"decision":"block","reason":"prompts must not contain passwords"}';; esac"#,
    );
    s.user_settings(&claude_hook("UserPromptSubmit", "", &hook, None));
    s.mock.enqueue(Reply::text(&["never"]));
    let out = s.run("my password is hunter2");
    assert_ne!(out.status.code(), Some(0));
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(all.contains("prompts must not contain passwords"), "{all}");
    assert!(s.mock.requests().is_empty(), "the prompt reached the model");
    // A harmless prompt goes through.
    let out = s.run("hello");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(s.mock.requests().len(), 1);
}

/// Issue #26 item 2: Claude Code's top-level `"disableAllHooks": true` switches every hook
/// off, from the user's own settings; an untrusted workspace cannot switch off the user's
/// hooks. Keys that would change what runs and are not read are named, not ignored.
#[test]
fn disable_all_hooks_is_obeyed_from_the_user_and_not_from_an_untrusted_workspace() {
    let s = Setup::new("");
    let hook = s.script("block.sh", "echo 'blocked by the guard' >&2; exit 2");
    let mut settings = claude_hook("UserPromptSubmit", "", &hook, None);
    // A key that is not read: said, with file, line and key.
    settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["async"] = true.into();
    s.user_settings(&settings);

    // An untrusted project asking to switch hooks off: the user's hook still runs.
    s.project_settings(&serde_json::json!({"disableAllHooks": true}));
    s.mock.enqueue(Reply::text(&["never"]));
    let out = s.run("hello");
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("blocked by the guard"), "{err}");
    assert!(
        err.contains("disableAllHooks: ignored: this workspace's settings files are not trusted"),
        "{err}"
    );
    assert!(
        err.contains("settings.json:") && err.contains(".hooks[0].async: background hooks"),
        "{err}"
    );
    assert!(s.mock.requests().is_empty());

    // The user's own `disableAllHooks`: no hook runs, and that is said.
    std::fs::remove_file(s.env.project().join(".claude/settings.json")).unwrap();
    settings["disableAllHooks"] = true.into();
    s.user_settings(&settings);
    let out = s.run("hello");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("disableAllHooks: 1 hook(s) switched off"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        s.mock.requests().len(),
        1,
        "the prompt did not reach the model"
    );
}

/// Claude Code's guide, "log each Bash command": verbatim.
const GUIDE_COMMAND_LOG: &str = r#"jq -r '"\(.tool_input.command) - \(.tool_input.description // "No description")"' >> ~/.claude/bash-command-log.txt"#;

#[test]
fn the_guides_command_log_hook_works_from_the_users_settings_and_stays_confined_in_a_project() {
    let s = Setup::new("[permissions]\nallow = [\"Bash\"]\n");
    let claude_dir = s.user_home().join(".claude");
    let log = claude_dir.join("bash-command-log.txt");
    let settings = claude_hook("PreToolUse", "Bash", GUIDE_COMMAND_LOG, None);
    s.write(&claude_dir.join("settings.json"), &settings);
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "bash", r#"{"command":"echo first-call"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::tool_calls(
        &[(
            "c2",
            "bash",
            r#"{"command":"echo second-call","description":"Say hi"}"#,
        )],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("log these");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        s.result(1, "c1").contains("first-call"),
        "{}",
        s.result(1, "c1")
    );
    assert!(
        s.result(2, "c2").contains("second-call"),
        "{}",
        s.result(2, "c2")
    );
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(
        logged, "echo first-call - No description\necho second-call - Say hi\n",
        "the user's hook appends to ~/.claude as in Claude Code"
    );
    // What decides what runs stays read-only, even for the user's own hook.
    let sneaky = r#"echo '{}' > ~/.claude/settings.json"#;
    s.write(
        &claude_dir.join("settings.json"),
        &claude_hook("PreToolUse", "Bash", sneaky, None),
    );
    s.mock.enqueue(Reply::tool_calls(
        &[("c3", "bash", r#"{"command":"echo x"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("again");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let kept = std::fs::read_to_string(claude_dir.join("settings.json")).unwrap();
    assert!(
        kept.contains("PreToolUse"),
        "a hook rewrote ~/.claude/settings.json: {kept}"
    );
    let failed = s.result(4, "c3");
    assert!(failed.contains("failed to run"), "{failed}");

    // The same hook from a (trusted) project file keeps the workspace's sandbox: the write to
    // the home fails, and that is reported as the hook failing, not as its verdict.
    std::fs::remove_file(claude_dir.join("settings.json")).unwrap();
    s.project_settings(&settings);
    let trust = s.reasonix(&["trust", s.env.project().to_str().unwrap()]);
    assert!(trust.status.success(), "{}", stderr(&trust));
    s.mock.enqueue(Reply::tool_calls(
        &[("c4", "bash", r#"{"command":"echo third-call"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("log this too");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = s.result(6, "c4");
    assert!(result.contains("failed to run"), "{result}");
    assert!(result.contains("not a decision"), "{result}");
    assert!(
        !result.contains("third-call"),
        "the guarded call still does not run: {result}"
    );
    assert!(stderr(&out).contains("failed to run"), "{}", stderr(&out));
    assert!(
        !std::fs::read_to_string(&log)
            .unwrap()
            .contains("third-call"),
        "a project hook wrote the home"
    );
}

/// Claude Code's guide, "auto-format code after edits": verbatim.
const GUIDE_PRETTIER: &str = "jq -r '.tool_input.file_path' | xargs npx prettier --write";

#[test]
#[allow(clippy::disallowed_macros)] // a fixed note for a person running the tests locally
fn the_guides_prettier_hook_formats_what_the_model_wrote() {
    // A pinned prettier, installed by `.ci/run` (`REASONIX_PRETTIER_MODULES`): the workspace
    // gets it as its own `node_modules`, where `npx` finds it as in a real project.
    let Some(modules) = std::env::var_os("REASONIX_PRETTIER_MODULES") else {
        assert!(
            std::env::var_os("REASONIX_REQUIRE_PRETTIER").is_none(),
            "REASONIX_PRETTIER_MODULES is not set"
        );
        eprintln!("skipped: REASONIX_PRETTIER_MODULES is not set (.ci/run installs prettier)");
        return;
    };
    let s = Setup::new("[permissions]\nallow = [\"Edit\"]\n");
    let ws = s.env.workspace();
    std::os::unix::fs::symlink(&modules, ws.join("node_modules")).unwrap();
    let settings = claude_hook("PostToolUse", "Edit|Write", GUIDE_PRETTIER, None);
    s.write(&s.user_home().join(".claude/settings.json"), &settings);
    s.mock.enqueue(Reply::tool_calls(
        &[(
            "c1",
            "write_file",
            r#"{"path":"src/point.ts","content":"const  point = {x:1,y:2}\n"}"#,
        )],
        1,
    ));
    s.mock.enqueue(Reply::text(&["written"]));
    let out = s.run("write a point");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(ws.join("src/point.ts")).unwrap(),
        "const point = { x: 1, y: 2 };\n",
        "the hook formatted the file; {}",
        stderr(&out)
    );
}

#[test]
fn a_users_stop_hook_reaches_a_local_listener_and_a_projects_does_not() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sender, received) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
                if request.windows(4).any(|w| w == b"}\n\r\n") || request.ends_with(b"}\n") {
                    break;
                }
            }
            let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
            let _ = sender.send(String::from_utf8_lossy(&request).into_owned());
        }
    });
    let notify = format!(
        "curl -s -m 5 -X POST -H 'Content-Type: application/json' --data-binary @- http://127.0.0.1:{port}/notify"
    );
    let s = Setup::new("");
    s.user_settings(&claude_hook("Stop", "", &notify, None));
    s.mock.enqueue(Reply::text(&["all done"]));
    let out = s.run("finish");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = received
        .recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("the Stop hook's curl never arrived: {}", stderr(&out)));
    assert!(request.starts_with("POST /notify"), "{request}");
    assert!(request.contains(r#""hook_event_name":"Stop""#), "{request}");

    // A project's hook has no network unless the user's `[sandbox] network` says so.
    std::fs::remove_file(s.env.home().join("settings.json")).unwrap();
    s.project_settings(&claude_hook("Stop", "", &notify, None));
    let trust = s.reasonix(&["trust", s.env.project().to_str().unwrap()]);
    assert!(trust.status.success(), "{}", stderr(&trust));
    s.mock.enqueue(Reply::text(&["all done"]));
    let out = s.run("finish");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        received.recv_timeout(Duration::from_secs(3)).is_err(),
        "a project hook reached the network"
    );
}

#[test]
fn an_if_condition_runs_the_commit_guard_for_commits_only() {
    let s = Setup::new("[permissions]\nallow = [\"Bash\"]\n");
    let counter = s.env.workspace().join("guard-runs");
    let guard = s.script(
        "commit-guard.sh",
        &format!(
            "cat >/dev/null; echo ran >> {}; echo 'run the tests before committing' >&2; exit 2",
            counter.display()
        ),
    );
    let mut settings = claude_hook("PreToolUse", "Bash", &guard, None);
    settings["hooks"]["PreToolUse"][0]["hooks"][0]["if"] = "Bash(git commit*)".into();
    s.user_settings(&settings);
    s.mock.enqueue(Reply::tool_calls(
        &[
            ("c1", "bash", r#"{"command":"echo git status"}"#),
            ("c2", "bash", r#"{"command":"echo hi"}"#),
            ("c3", "bash", r#"{"command":"true && git commit -m wip"}"#),
            ("c4", "bash", r#"{"command":"FOO=1 \"git\" commit -m wip"}"#),
        ],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("commit");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        s.result(1, "c1").contains("git status"),
        "{}",
        s.result(1, "c1")
    );
    assert!(s.result(1, "c2").contains("hi"), "{}", s.result(1, "c2"));
    for id in ["c3", "c4"] {
        assert!(
            s.result(1, id).contains("run the tests before committing"),
            "{id}: {}",
            s.result(1, id)
        );
    }
    let runs = std::fs::read_to_string(&counter).unwrap_or_default();
    assert_eq!(
        runs.lines().count(),
        2,
        "the guard ran for the two commits only"
    );

    // An `if` that is not a rule stops the run, naming file, line and key.
    settings["hooks"]["PreToolUse"][0]["hooks"][0]["if"] = "Bash(git commit*".into();
    s.user_settings(&settings);
    let out = s.run("commit");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("settings.json") && err.contains("hooks.PreToolUse[0].hooks[0].if"),
        "{err}"
    );
}

#[test]
fn a_hanging_hook_is_killed_at_its_timeout_and_the_call_is_blocked() {
    let s = Setup::new("[permissions]\nallow = [\"Bash\"]\n");
    let hang = s.script("hang.sh", "cat >/dev/null; sleep 600 & sleep 600");
    s.user_settings(&claude_hook("PreToolUse", "Bash", &hang, Some(2)));
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "bash", r#"{"command":"echo should-not-run"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    // Generous: far below the hang, far above the 2 s timeout.
    let out = s.run_within("go", Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = s.result(1, "c1");
    assert!(
        result.contains("was killed") && result.contains("timed out"),
        "{result}"
    );
    assert!(!result.contains("should-not-run"));
}

#[test]
fn project_hooks_run_only_once_the_workspace_settings_are_trusted() {
    let s = Setup::new("");
    // In the workspace: hooks run in the OS sandbox, where little else is writable.
    let marker = s.env.workspace().join("marker");
    let hook = s.script(
        "project.sh",
        &format!(
            "cat >/dev/null; echo ran > {}; echo 'blocked by the project' >&2; exit 2",
            marker.display()
        ),
    );
    s.project_settings(&claude_hook("UserPromptSubmit", "", &hook, None));

    // Untrusted: listed, not run, and said so.
    let list = s.reasonix(&["hooks", "list", "--json"]);
    assert!(list.status.success(), "{}", stderr(&list));
    let listed: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(listed["hooks"][0]["event"], "UserPromptSubmit");
    assert_eq!(listed["hooks"][0]["trusted"], false);
    assert_eq!(listed["hooks"][0]["runs"], false);
    s.mock.enqueue(Reply::text(&["answered"]));
    let out = s.run("hello");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!marker.exists(), "an untrusted project hook ran");
    assert!(
        stderr(&out).contains("none of them runs"),
        "{}",
        stderr(&out)
    );

    // The user reviews and trusts the workspace: now it runs.
    let trust = s.reasonix(&["trust", s.env.project().to_str().unwrap()]);
    assert!(trust.status.success(), "{}", stderr(&trust));
    let listed: Value =
        serde_json::from_slice(&s.reasonix(&["hooks", "list", "--json"]).stdout).unwrap();
    assert_eq!(listed["hooks"][0]["runs"], true);
    let out = s.run("hello again");
    assert!(
        marker.exists(),
        "the trusted project hook did not run: {}",
        stderr(&out)
    );
    assert!(
        format!("{}{}", stdout(&out), stderr(&out)).contains("blocked by the project"),
        "{}",
        stderr(&out)
    );

    // A change to the settings file untrusts its hooks again.
    std::fs::remove_file(&marker).unwrap();
    let mut changed = claude_hook("UserPromptSubmit", "", &hook, None);
    changed["model"] = "x".into();
    s.project_settings(&changed);
    s.mock.enqueue(Reply::text(&["answered"]));
    let out = s.run("third");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !marker.exists(),
        "a changed project hook ran without review"
    );
}

#[test]
fn claude_settings_deny_rules_apply_and_untrusted_allow_rules_do_not() {
    let s = Setup::new("[permissions]\nallow = [\"Bash(echo:*)\"]\n");
    s.project_settings(&serde_json::json!({
        "permissions": {"deny": ["Bash(echo secret:*)"], "allow": ["Bash(touch:*)"]}
    }));
    s.mock.enqueue(Reply::tool_calls(
        &[
            ("c1", "bash", r#"{"command":"echo secret stuff"}"#),
            ("c2", "bash", r#"{"command":"echo public"}"#),
            ("c3", "bash", r#"{"command":"touch made-by-allow"}"#),
        ],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("go");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let denied = s.result(1, "c1");
    assert!(!denied.contains("secret stuff\n"), "{denied}");
    assert!(denied.to_lowercase().contains("deny"), "{denied}");
    assert!(s.result(1, "c2").contains("public"));
    assert!(
        !s.env.workspace().join("made-by-allow").exists(),
        "an untrusted project allow rule ran a command"
    );
    assert!(
        stderr(&out).contains("permissions.allow"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_malformed_settings_file_names_file_line_and_key() {
    let s = Setup::new("");
    std::fs::write(
        s.env.home().join("settings.json"),
        "{\n  \"hooks\": {\n    \"PreToolUse\": [ { \"hooks\": [ { \"command\": \"x\", \"timeout\": \"soon\" } ] } ]\n  }\n}\n",
    )
    .unwrap();
    let out = s.run("hi");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("settings.json"), "{err}");
    assert!(err.contains("line 3"), "{err}");
    assert!(
        err.contains("hooks.PreToolUse[0].hooks[0].timeout"),
        "{err}"
    );
    // A broken Claude Code user file only warns.
    std::fs::remove_file(s.env.home().join("settings.json")).unwrap();
    let claude = s.user_home().join(".claude/settings.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    std::fs::write(&claude, "{ not json").unwrap();
    s.mock.enqueue(Reply::text(&["fine"]));
    let out = s.run("hi");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("contributes no hooks"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn post_tool_use_feedback_reaches_the_model_with_the_result() {
    let s = Setup::new("[permissions]\nallow = [\"Bash\"]\n");
    let hook = s.script(
        "post.sh",
        r#"input=$(cat)
printf '%s' "$input" > "$CLAUDE_PROJECT_DIR/hook-input.json"
case "$input" in *'"tool_response"'*'HELLO-OUT'*)
  echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 2 warnings in main.rs"}}';;
esac"#,
    );
    s.user_settings(&claude_hook("PostToolUse", "Bash", &hook, None));
    s.mock.enqueue(Reply::tool_calls(
        &[("c1", "bash", r#"{"command":"echo HELLO-OUT"}"#)],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("go");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = s.result(1, "c1");
    assert!(result.contains("HELLO-OUT"), "{result}");
    assert!(
        result.contains(
            "<hook-context event=\"PostToolUse\">\nlint: 2 warnings in main.rs\n</hook-context>"
        ),
        "{result}"
    );
    // What the hook read on stdin: Claude Code's shape.
    let input: Value = serde_json::from_str(
        &std::fs::read_to_string(s.env.workspace().join("hook-input.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"]["command"], "echo HELLO-OUT");
    assert_eq!(input["tool_use_id"], "c1");
    assert_eq!(input["cwd"], s.env.workspace().to_str().unwrap());
    assert!(
        input["tool_response"]["stdout"]
            .as_str()
            .unwrap()
            .contains("HELLO-OUT")
    );
    let session = input["session_id"].as_str().unwrap();
    assert!(
        !session.is_empty() && session.contains("mock-model"),
        "{input}"
    );
}

#[test]
fn a_permission_request_hook_allows_what_the_fallback_would_refuse_but_never_a_deny_rule() {
    // No allow rule: a headless run in the default posture refuses `bash`.
    let s = Setup::new("[permissions]\ndeny = [\"Bash(echo denied:*)\"]\n");
    let hook = s.script(
        "perm.sh",
        r#"cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'"#,
    );
    s.user_settings(&claude_hook("PermissionRequest", "Bash", &hook, None));
    s.mock.enqueue(Reply::tool_calls(
        &[
            ("c1", "bash", r#"{"command":"echo allowed-by-hook"}"#),
            ("c2", "bash", r#"{"command":"echo denied by rule"}"#),
        ],
        1,
    ));
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("go");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        s.result(1, "c1").contains("allowed-by-hook"),
        "{}",
        s.result(1, "c1")
    );
    assert!(
        !s.result(1, "c2").contains("denied by rule\n"),
        "{}",
        s.result(1, "c2")
    );
    assert!(stderr(&out).contains("allowed `bash`"), "{}", stderr(&out));
}

#[test]
fn doctor_and_hooks_list_show_what_each_settings_file_contributed() {
    let s = Setup::new("");
    s.user_settings(&claude_hook("PreToolUse", "Bash", "true", Some(5)));
    s.project_settings(&serde_json::json!({
        "permissions": {"deny": ["Bash(rm:*)"]},
        "hooks": {
            "StopFailure": [{"hooks": [{"type": "command", "command": "true"}]}],
            "SubagentStop": [{"hooks": [{"type": "command", "command": "true"}]}]
        }
    }));
    let out = s.reasonix(&["doctor", "--json"]);
    let report = stdout(&out);
    assert!(
        report.contains(".claude/settings.json: deny: Bash(rm:*)"),
        "{report}"
    );
    assert!(
        report.contains("settings.json (user): 1 hook(s)"),
        "{report}"
    );
    let list = s.reasonix(&["hooks", "list"]);
    let text = stdout(&list);
    assert!(
        text.contains("PreToolUse [tool.before] matcher Bash: true"),
        "{text}"
    );
    assert!(text.contains("StopFailure [-]"), "{text}");
    assert!(text.contains("SubagentStop [session.save]"), "{text}");
    assert!(
        text.contains(
            "active (your own hook: in the sandbox with the network and `~/.claude` writable)"
        ),
        "{text}"
    );
}

#[test]
fn what_a_hook_says_reaches_the_terminal_escaped() {
    let s = Setup::new("");
    let hook = s.script(
        "loud.sh",
        r#"cat >/dev/null; printf 'bad \033[2J\033]0;owned\007 news\n' >&2; exit 2"#,
    );
    s.user_settings(&claude_hook("UserPromptSubmit", "", &hook, None));
    let out = s.run("hello");
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(err.contains("bad"), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    // And in `hooks list`: a command with control characters is shown escaped.
    s.user_settings(&claude_hook("Stop", "", "echo \u{1b}[31mred", None));
    let list = stdout(&s.reasonix(&["hooks", "list"]));
    assert!(list.contains("Stop [session.save]"), "{list}");
    assert!(!list.contains('\u{1b}'), "{list:?}");
}

/// The per-hook-process cost: `N` PreToolUse hooks of `true` on one call, against none.
/// `cargo test -p reasonix --test e2e -- hooks::hook_process_cost --ignored --nocapture`.
#[test]
#[ignore = "prints figures; run by hand"]
#[allow(clippy::disallowed_macros)] // figures for a person, from fixed text
fn hook_process_cost() {
    const N: usize = 20;
    let time = |hooks: usize| -> Duration {
        let s = Setup::new("[permissions]\nallow = [\"Bash\"]\n");
        let list: Vec<Value> = (0..hooks)
            .map(|_| serde_json::json!({"type": "command", "command": "true"}))
            .collect();
        s.user_settings(
            &serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": list}]}}),
        );
        s.mock.enqueue(Reply::tool_calls(
            &[("c1", "bash", r#"{"command":"true"}"#)],
            1,
        ));
        s.mock.enqueue(Reply::text(&["done"]));
        // Warm the artifact cache first.
        let _ = s.reasonix(&["tools", "list"]);
        let started = Instant::now();
        let out = s.run("go");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        started.elapsed()
    };
    let base = time(0);
    let with = time(N);
    let per = with.saturating_sub(base) / N as u32;
    println!(
        "run with no hooks: {base:?}; with {N} PreToolUse hooks of `true`: {with:?}; per hook process: {per:?}"
    );
}

/// A sub-agent fires `SubagentStart` (its context goes into the child's task) and
/// `SubagentStop`, matched on its profile; the user's `UserPromptSubmit` and `Stop` hooks are
/// about the main agent only and fire once each.
#[test]
fn sub_agents_fire_subagent_start_and_stop_and_not_the_main_agents_hooks() {
    let s = Setup::new("");
    let log = s.env.workspace().join("hook.log");
    let logger = |name: &str, word: &str| {
        s.script(
            name,
            &format!(
                r#"input=$(cat)
kind=$(printf '%s' "$input" | sed -n 's/.*"agent_type":"\([a-z]*\)".*/\1/p')
echo "{word} $kind" >> {log}
case "{word}" in start) echo '{{"hookSpecificOutput":{{"hookEventName":"SubagentStart","additionalContext":"SUBAGENT-CONTEXT-42"}}}}';; esac"#,
                log = log.display()
            ),
        )
    };
    let hook = |command: String, matcher: &str| serde_json::json!([{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]);
    s.user_settings(&serde_json::json!({"hooks": {
        "UserPromptSubmit": hook(logger("prompt.sh", "prompt"), ""),
        "SubagentStart": hook(logger("start.sh", "start"), "explore"),
        "SubagentStop": hook(logger("stop.sh", "stop"), "explore|general"),
        "Stop": hook(logger("mainstop.sh", "mainstop"), ""),
    }}));
    s.mock.enqueue(Reply::tool_calls(
        &[(
            "t1",
            "task",
            r#"{"profile":"explore","prompt":"Find the entry point."}"#,
        )],
        1,
    ));
    s.mock.enqueue_when(
        "You are an explore sub-agent",
        Reply::text(&["the entry is main.rs"]),
    );
    s.mock.enqueue(Reply::text(&["done"]));
    let out = s.run("delegate a search");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| l.trim().to_string())
        .collect();
    assert_eq!(
        lines,
        ["prompt", "start explore", "stop explore", "mainstop"],
        "{}",
        stderr(&out)
    );
    let child = s.user_messages(1);
    assert_eq!(child.len(), 1);
    assert!(
        child[0].starts_with("Find the entry point."),
        "{}",
        child[0]
    );
    assert!(
        child[0].contains("<hook-context event=\"SubagentStart\">\nSUBAGENT-CONTEXT-42"),
        "{}",
        child[0]
    );
    assert!(!s.mock.requests()[0].body.contains("SUBAGENT-CONTEXT-42"));
}
