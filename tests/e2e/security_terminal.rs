//! Issue 11, items 8 and 9, end to end with the `hostile-term` component: every string it hands
//! the host carries terminal escape sequences, bidi overrides or newlines, and it asks for
//! 4 GiB and one hour per call. Nothing of it may reach stdout or stderr raw (install question,
//! install result, `plugin info/list`, `tools list/call`, its log lines, its errors, the model's
//! answer in `reasonix run`); the install question lists every capability and raised limit on
//! a line of its own; a request with an odd env name or network pattern is refused; limits
//! above the defaults apply only when granted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use reasonix_mock_llm::{MockLlm, Reply};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::{Env, fixture, shared_artifact_cache, stderr, stdout};

const ENV_PLACEHOLDER: &str = "ENV_PLACEHOLDER_AAAAAAAAAAAAAAAA";
const NET_PLACEHOLDER: &str = "https://netplaceholder-aaaaaaaaaaaa.example";
const TOOL_PLACEHOLDER: &str = "term-name-placeholder-aaaaaaa";
/// What hid "connect to *" from the install question: cursor up, delete line.
const ERASE_UP: &str = "\u{1b}[1A\u{1b}[M";

/// Fail if `bytes` hold anything a terminal would obey or that hides text: C0 controls other
/// than newline and tab (a CR only before a newline), DEL, C1 controls, bidi overrides and
/// isolates, zero-width and other invisible format characters.
fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let bad = match c {
            '\n' | '\t' => false,
            '\r' => chars.get(i + 1) != Some(&'\n'),
            c if c.is_control() => true,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}' => true,
            '\u{061c}' | '\u{feff}' | '\u{2028}' | '\u{2029}' => true,
            _ => false,
        };
        assert!(
            !bad,
            "{what}: raw {c:?} (U+{:04X}) at char {i} reached the terminal:\n{text}",
            u32::from(c)
        );
    }
}

fn assert_output_safe(what: &str, out: &Output) {
    assert_terminal_safe(&format!("{what} (stdout)"), &out.stdout);
    assert_terminal_safe(&format!("{what} (stderr)"), &out.stderr);
}

/// The fixture with `from` replaced by `to`, padded with `pad` to the same length (so the
/// component stays valid), written under the test's root.
fn patched(env: &Env, from: &str, to: &str, pad: char) -> PathBuf {
    assert!(to.len() <= from.len());
    let replacement = format!("{to}{}", pad.to_string().repeat(from.len() - to.len()));
    let bytes = std::fs::read(fixture("hostile_term")).unwrap();
    let at: Vec<usize> = bytes
        .windows(from.len())
        .enumerate()
        .filter(|(_, w)| *w == from.as_bytes())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 1, "`{from}` must occur once in the fixture");
    let mut bytes = bytes;
    bytes[at[0]..at[0] + from.len()].copy_from_slice(replacement.as_bytes());
    let path = env.root.path().join(format!("patched-{}.wasm", at[0]));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn install(env: &Env, source: &Path, grant: &[&str]) -> Output {
    let mut args = vec!["plugin", "install", source.to_str().unwrap()];
    args.extend_from_slice(grant);
    env.reasonix(&args)
}

fn installed(env: &Env) -> bool {
    let index = env.home().join("packages.json");
    std::fs::read_to_string(index).is_ok_and(|text| text.contains("hostile-term"))
}

/// Every line the install question must show, exactly, each on its own line.
const QUESTION_LINES: &[&str] = &[
    "plugin `hostile-term` asks to:",
    "  - read files in the workspace",
    "  - connect to https://api.hostile-term.example",
    "  - connect to https://netplaceholder-aaaaaaaaaaaa.example",
    "  - read the environment variable HOSTILE_TERM_TOKEN",
    "  - read the environment variable ENV_PLACEHOLDER_AAAAAAAAAAAAAAAA",
    "  - use up to 4096 MiB of memory per call (default 256 MiB)",
    "  - run up to 3600000 ms per call (default 60000 ms)",
];

fn assert_question(what: &str, text: &str) {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    for want in QUESTION_LINES {
        assert!(
            lines.contains(want),
            "{what}: the install question lacks the line {want:?}:\n{text}"
        );
    }
}

#[test]
fn install_with_yes_shows_every_capability_and_limit_escaped() {
    let env = Env::new();
    let out = install(&env, &fixture("hostile_term"), &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_output_safe("plugin install --yes", &out);
    assert_question("plugin install --yes", &stderr(&out));
    let so = stdout(&out);
    assert!(
        so.contains("hostile-term 6.6.6\\x1b]0;pwned\\x07\\x1b[2J installed"),
        "{so}"
    );
    assert!(
        so.contains("memory_mib=4096, call_timeout_ms=3600000"),
        "{so}"
    );
}

#[test]
fn install_without_a_grant_still_shows_the_question_and_refuses() {
    let env = Env::new();
    let out = env
        .reasonix_command(&[
            "plugin",
            "install",
            fixture("hostile_term").to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_output_safe("plugin install (no grant)", &out);
    assert_question("plugin install (no grant)", &stderr(&out));
    assert!(stderr(&out).contains("memory_mib=MiB"), "{}", stderr(&out));
    assert!(!installed(&env));
}

/// The question asked on a real terminal (a pty from `script`), answered `y` on stdin.
#[test]
fn interactive_install_asks_on_the_terminal_with_every_line() {
    let env = Env::new();
    let command = format!(
        "{} plugin install {}",
        env!("CARGO_BIN_EXE_reasonix"),
        fixture("hostile_term").display()
    );
    let mut child = env
        .plain_command("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("`script` (util-linux) runs the install on a pty");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"y\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{text}\n{}", stderr(&out));
    assert!(text.contains("Grant these? [y/N]"), "not asked: {text}");
    assert_output_safe("interactive plugin install", &out);
    assert_question("interactive plugin install", &text);
    assert!(installed(&env), "{text}");
}

/// The attack of the issue: an env name (or a network pattern) that erases the line above it.
/// Refused at install, naming the plugin and the entry, escaped; nothing is installed.
#[test]
fn requests_with_escape_sequences_are_refused_at_install() {
    let env = Env::new();
    for (from, to, pad, kind) in [
        (
            ENV_PLACEHOLDER,
            format!("E{ERASE_UP}\u{202e}"),
            'A',
            "environment variable",
        ),
        (
            NET_PLACEHOLDER,
            format!("https://x.example{ERASE_UP}"),
            'a',
            "network pattern",
        ),
        (
            NET_PLACEHOLDER,
            "*\n  - nothing else".to_string(),
            ' ',
            "network pattern",
        ),
    ] {
        let source = patched(&env, from, &to, pad);
        let out = install(&env, &source, &["--yes"]);
        assert!(!out.status.success(), "{kind} {to:?} was accepted");
        assert_output_safe(&format!("install refusing {kind} {to:?}"), &out);
        let err = stderr(&out);
        assert!(
            err.contains("plugin `hostile-term`") && err.contains(kind),
            "the refusal names neither the plugin nor the entry: {err}"
        );
        assert!(
            err.contains("\\x1b[1A\\x1b[M") || err.contains("\\n  - nothing else"),
            "the bad entry is not shown escaped: {err}"
        );
        assert!(!installed(&env), "installed despite {kind} {to:?}");
        // A plugin with such a request is not loaded either, even when dropped in by hand.
        let dropped = env.install_raw("hostile-term.wasm", &std::fs::read(&source).unwrap());
        let out = env.reasonix(&["tools", "list"]);
        assert_output_safe("tools list with a hand-dropped bad component", &out);
        assert!(!stdout(&out).contains("term-echo"), "{}", stdout(&out));
        std::fs::remove_file(dropped).unwrap();
    }
}

#[test]
fn plugin_and_tool_listings_escape_what_the_plugin_says() {
    let env = Env::new();
    let out = install(&env, &fixture("hostile_term"), &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let info = env.reasonix(&["plugin", "info", "hostile-term"]);
    assert!(info.status.success(), "{}", stderr(&info));
    assert_output_safe("plugin info", &info);
    let text = stdout(&info);
    assert!(
        text.contains("limits:    4096 MiB, 3600000 ms per call"),
        "{text}"
    );
    // The description's newline does not make a `granted:` line of its own.
    let granted: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("granted:"))
        .collect();
    assert_eq!(
        granted.len(),
        2,
        "one granted line for the plugin, one for the index entry: {text}"
    );
    // Tool descriptions stay under their tool: no line of the listing is forged.
    assert!(
        !text.lines().any(|l| l.starts_with("  tool forged")),
        "{text}"
    );

    for args in [
        &["plugin", "list"][..],
        &["plugin", "list", "--json"],
        &["plugin", "info", "hostile-term", "--json"],
        &["tools", "list"],
        &["tools", "list", "--json"],
        &["tools", "doc"],
        &["doctor"],
    ] {
        let out = env.reasonix(args);
        assert_output_safe(&args.join(" "), &out);
    }
    // JSON output is escaped the JSON way: the same strings come back.
    let json: serde_json::Value = serde_json::from_slice(
        &env.reasonix(&["plugin", "info", "hostile-term", "--json"])
            .stdout,
    )
    .unwrap();
    assert_eq!(
        json["plugin"]["version"],
        "6.6.6\u{1b}]0;pwned\u{7}\u{1b}[2J"
    );
    assert!(
        json["plugin"]["description"]
            .as_str()
            .unwrap()
            .contains('\u{202e}')
    );

    // Tool output keeps its lines and tabs, loses its controls.
    let echo = env.call("term-echo", "{}");
    assert!(echo.status.success(), "{}", stderr(&echo));
    assert_output_safe("tools call term-echo", &echo);
    let text = stdout(&echo);
    assert!(
        text.contains("first line\\x1b[2J") && text.contains("\nsecond\tline"),
        "{text}"
    );

    let fail = env.call("term-fail", "{}");
    assert!(!fail.status.success());
    assert_output_safe("tools call term-fail", &fail);
    assert!(
        stderr(&fail).contains("failure\\x1b[1A"),
        "{}",
        stderr(&fail)
    );

    // Log lines: one line each, escaped, so no line of another plugin can be faked.
    let log = env.call("term-log", "{}");
    assert!(log.status.success(), "{}", stderr(&log));
    assert_output_safe("tools call term-log", &log);
    let err = stderr(&log);
    let logged: Vec<&str> = err.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(logged.len(), 1, "{err}");
    assert!(
        logged[0].starts_with("[hostile-term] warn: log line\\x1b[1A"),
        "{err}"
    );
    assert!(logged[0].contains("\\n[fs-read] warn: forged"), "{err}");
}

/// Tool names are not (yet) restricted by the loader: a name with escape sequences is either
/// refused, or listed escaped.
#[test]
fn a_tool_name_with_escape_sequences_never_reaches_the_terminal_raw() {
    let env = Env::new();
    let source = patched(
        &env,
        TOOL_PLACEHOLDER,
        &format!("t{ERASE_UP}\u{1b}[8m\u{202e}"),
        'x',
    );
    let out = install(&env, &source, &["--yes"]);
    assert_output_safe("install with an escaped tool name", &out);
    for args in [
        &["tools", "list"][..],
        &["tools", "list", "--json"],
        &["plugin", "info", "hostile-term"],
        &["plugin", "list"],
    ] {
        let out = env.reasonix(args);
        assert_output_safe(&args.join(" "), &out);
    }
}

/// The model's answer in text mode is printed with escape sequences escaped, its lines kept;
/// stream-json stays valid JSON with the same text.
#[test]
fn run_output_escapes_the_model_and_the_tools() {
    let env = Env::new();
    let out = install(&env, &fixture("hostile_term"), &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    let answer = format!("answer{ERASE_UP}\u{1b}]52;c;cHduZWQ=\u{7}\u{202e}\nline two\ttab");
    for format in ["text", "stream-json"] {
        mock.enqueue_all([
            Reply::tool_calls(&[("c1", "term-echo", "{}")], 1),
            Reply::text(&[&answer[..10], &answer[10..]]),
        ]);
        let ws = env.workspace();
        let out = env
            .reasonix_command(&[
                "run",
                "--dir",
                ws.to_str().unwrap(),
                "--output-format",
                format,
                "go",
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{format}: {}", stderr(&out));
        assert_output_safe(&format!("run --output-format {format}"), &out);
        let text = stdout(&out);
        if format == "text" {
            assert!(text.contains("answer\\x1b[1A\\x1b[M"), "{text}");
            assert!(text.contains("\nline two\ttab"), "{text}");
        } else {
            let lines: Vec<serde_json::Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert!(
                lines.iter().any(|l| l.to_string().contains("line two")),
                "{text}"
            );
            let joined: String = lines
                .iter()
                .filter(|l| l["type"] == "result")
                .filter_map(|l| l["result"].as_str())
                .collect();
            assert_eq!(joined, answer, "{text}");
        }
    }
}

/// 4 GiB and an hour are shown and need the grant; without it the defaults apply (a 300 MiB
/// allocation fails under 256 MiB); with it the allocation succeeds. An untrusted project file
/// cannot raise the limits; the user's own config can.
#[test]
fn limits_above_the_defaults_apply_only_when_granted() {
    let env = Env::untrusted();
    let source = fixture("hostile_term");
    let hog = r#"{"mib": 300}"#;

    let out = install(&env, &source, &["--grant", "workspace=read"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_question("install --grant workspace=read", &stderr(&out));
    assert!(
        stderr(&out).contains("not granted:") && stderr(&out).contains("use up to 4096 MiB"),
        "{}",
        stderr(&out)
    );
    let info = stdout(&env.reasonix(&["plugin", "info", "hostile-term"]));
    assert!(
        info.contains("limits:    256 MiB, 60000 ms per call"),
        "{info}"
    );
    let out = env.call("term-hog", hog);
    assert!(!out.status.success(), "300 MiB fit in the default limit");
    assert!(
        stderr(&out).contains("memory limit of 256 MiB"),
        "{}",
        stderr(&out)
    );

    // An (untrusted) project file asking for more changes nothing.
    env.project_config("[plugin.hostile-term]\nmemory_mib = 4096\ncall_timeout_ms = 3600000\n");
    let info = stdout(&env.reasonix(&["plugin", "info", "hostile-term"]));
    assert!(
        info.contains("limits:    256 MiB, 60000 ms per call"),
        "{info}"
    );
    assert!(!env.call("term-hog", hog).status.success());
    env.project_config("");

    // The user's own config may raise.
    std::fs::write(
        env.home().join("config.toml"),
        "[plugin.hostile-term]\nmemory_mib = 512\n",
    )
    .unwrap();
    let info = stdout(&env.reasonix(&["plugin", "info", "hostile-term"]));
    assert!(
        info.contains("limits:    512 MiB, 60000 ms per call"),
        "{info}"
    );
    std::fs::remove_file(env.home().join("config.toml")).unwrap();

    // Granting the limits (an update with --grant) lets the plugin have them.
    let out = install(
        &env,
        &source,
        &[
            "--grant",
            "workspace=read",
            "--grant",
            "memory_mib=4096",
            "--grant",
            "call_timeout_ms=3600000",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let info = stdout(&env.reasonix(&["plugin", "info", "hostile-term"]));
    assert!(
        info.contains("limits:    4096 MiB, 3600000 ms per call"),
        "{info}"
    );
    let out = env.call("term-hog", hog);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("allocated 300 MiB"),
        "{}",
        stdout(&out)
    );
}

impl EnvExt for Env {
    fn reasonix_command(&self, args: &[&str]) -> Command {
        let mut command = self.plain_command(env!("CARGO_BIN_EXE_reasonix"));
        command.args(args);
        command
    }

    fn plain_command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(self.project())
            .env("REASONIX_HOME", self.home())
            .env("REASONIX_CACHE_HOME", shared_artifact_cache())
            .env_remove("REASONIX_STATE_HOME")
            .env_remove("REASONIX_LOG")
            .env_remove("MOCK_LLM_KEY");
        command
    }
}

trait EnvExt {
    /// `reasonix <args>` as [`Env::reasonix`] runs it, for a caller that sets stdin.
    fn reasonix_command(&self, args: &[&str]) -> Command;
    /// Any program with the test's Reasonix environment.
    fn plain_command(&self, program: &str) -> Command;
}

/// A grant of the variable that holds a provider's key is a grant of the key: the install
/// question says so (issue #32 item 7).
#[test]
fn the_install_question_says_when_a_variable_holds_a_provider_key() {
    let env = Env::new();
    std::fs::write(
        env.home().join("config.toml"),
        "[[providers]]\nname = \"mine\"\nkind = \"openai\"\nbase_url = \"https://api.example.com/v1\"\nmodel = \"m\"\napi_key_env = \"ENV_PLACEHOLDER_AAAAAAAAAAAAAAAA\"\n",
    )
    .unwrap();
    let out = install(&env, &fixture("hostile_term"), &["--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.contains("  ! ENV_PLACEHOLDER_AAAAAAAAAAAAAAAA holds the API key of provider `mine`"),
        "{text}"
    );
    assert!(
        !text.contains("HOSTILE_TERM_TOKEN holds"),
        "a variable no provider reads was called a key: {text}"
    );
}
