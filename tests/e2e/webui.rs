//! The web UI of `reasonix serve` in a real headless Chromium, driven by playwright-core
//! (`tests/browser/webui.mjs`): the page opens with the address the server printed, completes
//! `@` paths and `/` commands, streams a Markdown answer whose markup stays text, shows the
//! status line, asks for a write with its diff, writes it when approved, works at phone width,
//! rebuilds the transcript on reload, and its cookie serves no other page — not even one on
//! another port of this machine. Screenshots go to `target/browser-artifacts/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, repo_root, target_dir};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const TOKEN: &str = "webui-e2e-token-0123456789abcdef";

/// playwright-core's `node_modules` and the browser, installed by `.ci/run` (target/browser,
/// Debian's chromium); `None` skips, unless `REASONIX_REQUIRE_BROWSER` is set.
fn browser() -> Option<(PathBuf, PathBuf)> {
    let modules = std::env::var_os("REASONIX_BROWSER_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("browser/node_modules"));
    let chromium = std::env::var_os("REASONIX_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let found = modules.join("playwright-core").is_dir() && chromium.is_file();
    if !found {
        assert!(
            std::env::var_os("REASONIX_REQUIRE_BROWSER").is_none(),
            "no browser test tools: {} or {} is missing (see .ci/run)",
            modules.join("playwright-core").display(),
            chromium.display()
        );
        #[allow(clippy::disallowed_macros)] // a fixed note for a person running the tests locally
        {
            eprintln!("skipped: no playwright-core or chromium (see .ci/run)");
        }
        return None;
    }
    Some((modules, chromium))
}

struct Served {
    child: Child,
    api: String,
    page: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(env: &Env) -> Served {
    let mut child = env
        .command(&["serve", "--listen", "127.0.0.1:0", "--token", TOKEN])
        .env_remove("REASONIX_SERVE_TOKEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let api = lines.next().unwrap().unwrap();
    let page = lines.next().unwrap().unwrap();
    Served {
        child,
        api: api
            .strip_prefix("reasonix serve: listening on ")
            .unwrap_or_else(|| panic!("{api}"))
            .to_string(),
        page: page
            .strip_prefix("reasonix serve: web UI at ")
            .unwrap_or_else(|| panic!("{page}"))
            .to_string(),
    }
}

/// A page on another port of 127.0.0.1 — the same *site* as the server, so the browser sends
/// a `SameSite=Strict` cookie along — that tries to use the UI's cookie: it reads the sessions,
/// opens one, and posts a prompt to the session named in its `?sid=` (a `fetch` and a form).
fn hostile_page(api: &str) -> String {
    let html = format!(
        r#"<!doctype html><html><body><iframe name="sink"></iframe>
<script>
const api = {api:?};
const sid = new URLSearchParams(location.search).get('sid');
window.results = {{}};
async function attempt(name, run) {{
  try {{ const r = await run(); window.results[name] = r.type === 'opaque' ? 'opaque' : r.status; }}
  catch (e) {{ window.results[name] = 'blocked'; }}
}}
(async () => {{
  await attempt('read_sessions', () => fetch(api + '/sessions', {{ credentials: 'include' }}));
  await attempt('open_session', () => fetch(api + '/sessions', {{ method: 'POST', credentials: 'include', mode: 'no-cors', body: '{{}}' }}));
  await attempt('post_prompt', () => fetch(api + '/sessions/' + sid + '/ops', {{ method: 'POST', credentials: 'include', mode: 'no-cors', headers: {{ 'Content-Type': 'text/plain' }}, body: JSON.stringify({{ type: 'prompt', text: 'PWNED-BY-FETCH' }}) }}));
  const form = document.createElement('form');
  form.method = 'POST'; form.enctype = 'text/plain'; form.target = 'sink';
  form.action = api + '/sessions/' + sid + '/ops';
  const field = document.createElement('input');
  field.name = '{{"type":"prompt","text":"PWNED-BY-FORM","x":"';
  field.value = '"}}';
  form.append(field); document.body.append(form); form.submit();
  setTimeout(() => {{ window.done = true; }}, 1500);
}})();
</script></body></html>"#
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}/", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
    address
}

/// Width and height of a PNG file.
fn png_size(path: &std::path::Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is not a PNG",
        path.display()
    );
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn the_web_ui_streams_asks_with_a_diff_writes_on_approval_and_keeps_its_cookie_to_itself() {
    let Some((modules, chromium)) = browser() else {
        return;
    };
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider(
        "openai",
        &mock.base_url(),
        "sk-test",
        "context_window = 131072\n\
         price = { input = 2.0, output = 8.0, cache_hit = 0.5, currency = \"$\" }\n",
    ));
    let project = env.project().canonicalize().unwrap();
    std::fs::write(project.join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    let commands = project.join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("greet.md"),
        "---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS\n",
    )
    .unwrap();

    // The answer streams in pieces, with Markdown, a link that must not run and markup that
    // must stay text.
    mock.enqueue(
        Reply::text(&[
            "The notes hold three words. This is a **bold claim**",
            " and here is code:\n\n```rust\nfn main() {}\n```\n\n",
            "- one\n- two\n\n",
            "Raw markup: <img src=x onerror=alert(1)> stays text. ",
            "[docs](https://example.com/docs) and [bad](javascript:alert(1)).\n\n",
            "END-OF-ANSWER",
        ])
        .with_chunk_delay_ms(250),
    );
    let args = json!({"path": "notes.txt", "content": "alpha\nBETA\ngamma\ndelta\n"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("w1", "write_file", &args)], 1));
    mock.enqueue(Reply::text(&["Written."]));
    let more = json!({"path": "more.txt", "content": "more\n"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("w2", "write_file", &more)], 1));
    mock.enqueue(Reply::text(&["Added."]));

    let served = serve(&env);
    assert!(
        served.page.ends_with(&format!("/#token={TOKEN}")),
        "{}",
        served.page
    );
    let evil = hostile_page(&served.api);
    let artifacts = target_dir().join("browser-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    for name in [
        "webui-1280x800.png",
        "webui-390x844.png",
        "webui-390x844-sessions.png",
        "webui-1280x800-done.png",
    ] {
        let _ = std::fs::remove_file(artifacts.join(name));
    }

    let run = Command::new("node")
        .arg(repo_root().join("tests/browser/webui.mjs"))
        .env("REASONIX_BROWSER_MODULES", &modules)
        .env("REASONIX_CHROMIUM", &chromium)
        .env("WEBUI_URL", &served.page)
        .env("WEBUI_EVIL", &evil)
        .env("WEBUI_OUT", &artifacts)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&run.stdout).to_string();
    assert!(
        run.status.success(),
        "the browser test failed:\n{}\n{report}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seen: Value = serde_json::from_str(report.trim()).unwrap();
    assert!(seen["partial_lengths"].as_u64().unwrap() >= 3, "{seen}");

    // What the page did happened on the server: the file is written, the first request
    // carried the prompt, the second the write's result.
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt")).unwrap(),
        "alpha\nBETA\ngamma\ndelta\n"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("more.txt")).unwrap(),
        "more\n"
    );
    let bodies: Vec<String> = mock.requests().into_iter().map(|r| r.body).collect();
    assert!(bodies[0].contains("Tell me about the notes"), "{bodies:?}");

    // The hostile page got nothing through: no prompt of its reached the model, it opened no
    // session, and the reads it tried were refused or unreadable.
    assert!(
        bodies.iter().all(|b| !b.contains("PWNED")),
        "a prompt from another page reached the model"
    );
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::blocking::Client::new();
    let sessions: Value = http
        .get(format!("{}/sessions", served.api))
        .bearer_auth(TOKEN)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(
        sessions["sessions"].as_array().unwrap().len(),
        1,
        "{sessions}"
    );
    for attempt in ["read_sessions", "open_session", "post_prompt"] {
        let got = &seen["evil"][attempt];
        assert!(
            got == "blocked" || got == "opaque",
            "{attempt}: {got} ({seen})"
        );
    }
    let events = http
        .get(format!(
            "{}/sessions/{}/events",
            served.api,
            sessions["sessions"][0]["id"].as_str().unwrap()
        ))
        .bearer_auth(TOKEN)
        .timeout(Duration::from_secs(2))
        .send()
        .unwrap();
    let mut text = String::new();
    let _ = BufReader::new(events).read_to_string(&mut text);
    assert!(text.contains("Written."), "{text}");
    assert!(
        !text.contains("PWNED"),
        "a hostile prompt reached the session"
    );

    // The screenshots CI keeps, at the sizes asked.
    assert_eq!(png_size(&artifacts.join("webui-1280x800.png")), (1280, 800));
    assert_eq!(png_size(&artifacts.join("webui-390x844.png")), (390, 844));
    assert_eq!(
        png_size(&artifacts.join("webui-1280x800-done.png")),
        (1280, 800)
    );
}
