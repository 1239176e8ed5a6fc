//! `reasonix serve` (docs/SERVE.md) through real HTTP: the token, the Host and Origin checks,
//! body limits, two sessions that never see each other's events, an approval answered over
//! HTTP, and a client that reconnects with `Last-Event-ID` getting exactly what it missed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Duration;

const TOKEN: &str = "e2e-token-0123456789abcdef";

struct Served {
    child: Child,
    base: String,
    http: reqwest::blocking::Client,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    fn start(env: &Env) -> Served {
        let mut child = env
            .command(&["serve", "--listen", "127.0.0.1:0", "--token", TOKEN])
            .env_remove("REASONIX_SERVE_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("reasonix serve: listening on ")
            .unwrap_or_else(|| panic!("{line}"))
            .to_string();
        let _ = rustls::crypto::ring::default_provider().install_default();
        Served {
            child,
            base: url,
            http: reqwest::blocking::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap(),
        }
    }

    fn get(&self, path: &str) -> reqwest::blocking::RequestBuilder {
        self.http
            .get(format!("{}{path}", self.base))
            .bearer_auth(TOKEN)
    }

    fn post(&self, path: &str, body: Value) -> reqwest::blocking::Response {
        self.http
            .post(format!("{}{path}", self.base))
            .bearer_auth(TOKEN)
            .body(body.to_string())
            .send()
            .unwrap()
    }

    fn open(&self, cwd: &std::path::Path) -> String {
        let response = self.post("/sessions", json!({ "cwd": cwd }));
        assert_eq!(response.status(), 201, "{}", response.text().unwrap());
        response.json::<Value>().unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn prompt(&self, id: &str, text: &str) {
        let response = self.post(
            &format!("/sessions/{id}/ops"),
            json!({"type": "prompt", "text": text}),
        );
        assert_eq!(response.status(), 202);
    }

    /// A session's events from after `last`, read until `until` says stop.
    fn events(&self, id: &str, last: u64, until: impl Fn(&Value) -> bool) -> Vec<(u64, Value)> {
        let mut request = self.get(&format!("/sessions/{id}/events"));
        if last > 0 {
            request = request.header("Last-Event-ID", last.to_string());
        }
        let response = request.send().unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let mut lines = BufReader::new(response).lines();
        let mut out = Vec::new();
        let mut seq = 0;
        while let Some(Ok(line)) = lines.next() {
            if let Some(id) = line.strip_prefix("id: ") {
                seq = id.parse().unwrap();
            } else if let Some(data) = line.strip_prefix("data: ") {
                let event: Value = serde_json::from_str(data).unwrap();
                let stop = until(&event);
                out.push((seq, event));
                if stop {
                    return out;
                }
            }
        }
        panic!("the stream ended before the awaited event: {out:?}");
    }
}

fn setup() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    (env, mock)
}

fn turn_finished(e: &Value) -> bool {
    e["type"] == "turn_finished"
}

#[test]
fn a_public_address_without_a_token_is_refused() {
    let env = Env::new();
    let out = env
        .command(&["serve", "--listen", "0.0.0.0:0"])
        .env_remove("REASONIX_SERVE_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("reachable from other machines") && stderr(&out).contains("--token"),
        "{}",
        stderr(&out)
    );
    // With a token, every address still needs the names clients use.
    let out = env
        .command(&["serve", "--listen", "0.0.0.0:0", "--token", TOKEN])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--allowed-host"), "{}", stderr(&out));
}

#[test]
fn requests_need_the_token_our_own_host_and_origin_and_a_bounded_body() {
    let (env, _mock) = setup();
    let s = Served::start(&env);
    let url = format!("{}/sessions", s.base);
    let none = s.http.get(&url).send().unwrap();
    assert_eq!(none.status(), 401);
    assert!(none.headers().contains_key("www-authenticate"));
    let wrong = s
        .http
        .get(&url)
        .bearer_auth("not-the-token-at-all")
        .send()
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert_eq!(s.get("/sessions").send().unwrap().status(), 200);
    // A page elsewhere, or a rebound DNS name, is refused even with the token.
    let port = s
        .base
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/api/v1");
    let rebound = s
        .get("/sessions")
        .header("Host", format!("evil.example:{port}"))
        .send()
        .unwrap();
    assert_eq!(rebound.status(), 403);
    let cross = s
        .get("/sessions")
        .header("Origin", "http://evil.example")
        .send()
        .unwrap();
    assert_eq!(cross.status(), 403);
    let own = s
        .get("/sessions")
        .header("Origin", format!("http://localhost:{port}"))
        .send()
        .unwrap();
    assert_eq!(own.status(), 200);
    // Bodies are bounded; a bad operation names the schema.
    let big = s
        .http
        .post(&url)
        .bearer_auth(TOKEN)
        .body(vec![b' '; 2 * 1024 * 1024])
        .send()
        .unwrap();
    assert_eq!(big.status(), 413);
    let id = s.open(&env.project().canonicalize().unwrap());
    let bad = s.post(
        &format!("/sessions/{id}/ops"),
        json!({"type": "launch_missiles"}),
    );
    assert_eq!(bad.status(), 400);
    assert!(bad.text().unwrap().contains("schema/op.json"));
    let schema = s.get("/schema/event.json").send().unwrap();
    assert_eq!(schema.status(), 200);
    assert!(schema.json::<Value>().unwrap().is_object());
}

#[test]
fn two_sessions_never_mix_and_a_reconnect_gets_exactly_what_it_missed() {
    let (env, mock) = setup();
    let s = Served::start(&env);
    let cwd = env.project().canonicalize().unwrap();
    let a = s.open(&cwd);
    let b = s.open(&cwd);
    assert_ne!(a, b);
    mock.enqueue(Reply::text(&["ANSWER-", "FOR-A"]));
    s.prompt(&a, "first");
    let a_events = s.events(&a, 0, turn_finished);
    mock.enqueue(Reply::text(&["ANSWER-", "FOR-B"]));
    s.prompt(&b, "second");
    let b_events = s.events(&b, 0, turn_finished);
    let text =
        |events: &[(u64, Value)]| -> String { events.iter().map(|(_, e)| e.to_string()).collect() };
    assert!(text(&a_events).contains("FOR-A") && !text(&a_events).contains("FOR-B"));
    assert!(text(&b_events).contains("FOR-B") && !text(&b_events).contains("FOR-A"));
    assert!(a_events.iter().all(|(_, e)| e["session_id"] == a.as_str()));
    assert_eq!(a_events[0].1["type"], "session_started");
    // Numbered from 1 without holes.
    let seqs: Vec<u64> = a_events.iter().map(|(n, _)| *n).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    // A client that saw up to the third event reconnects: exactly the rest, in order.
    let last = *seqs.last().unwrap();
    let resumed = s.events(&a, 3, |e| e == &a_events.last().unwrap().1);
    let resumed_seqs: Vec<u64> = resumed.iter().map(|(n, _)| *n).collect();
    assert_eq!(resumed_seqs, (4..=last).collect::<Vec<_>>());
    assert_eq!(resumed[0].1, a_events[3].1);
}

#[test]
fn a_question_is_answered_over_http() {
    let (env, mock) = setup();
    let s = Served::start(&env);
    let cwd = env.project().canonicalize().unwrap();
    std::fs::write(cwd.join("notes.txt"), "old\n").unwrap();
    let id = s.open(&cwd);
    let args = json!({"path": "notes.txt", "content": "new\n"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("w1", "write_file", &args)], 1));
    mock.enqueue(Reply::text(&["Written."]));
    s.prompt(&id, "update the notes");
    let asked = s.events(&id, 0, |e| e["type"] == "question");
    let (seq, question) = asked.last().unwrap().clone();
    assert_eq!(question["tool"], "write_file");
    assert_eq!(question["changes"][0]["new_text"], "new\n");
    assert_eq!(
        std::fs::read_to_string(cwd.join("notes.txt")).unwrap(),
        "old\n"
    );
    let answered = s.post(
        &format!("/sessions/{id}/ops"),
        json!({"type": "approve", "question_id": question["question_id"]}),
    );
    assert_eq!(answered.status(), 202);
    let rest = s.events(&id, seq, turn_finished);
    assert_eq!(rest.last().unwrap().1["status"], "success");
    assert_eq!(
        std::fs::read_to_string(cwd.join("notes.txt")).unwrap(),
        "new\n"
    );
    let closed = s
        .http
        .delete(format!("{}/sessions/{id}", s.base))
        .bearer_auth(TOKEN)
        .send()
        .unwrap();
    assert_eq!(closed.status(), 200);
    assert_eq!(
        s.get(&format!("/sessions/{id}/events"))
            .send()
            .unwrap()
            .status(),
        404
    );
}

#[test]
fn the_page_comes_with_a_strict_policy_and_its_cookie_serves_only_the_page() {
    let (env, _mock) = setup();
    let s = Served::start(&env);
    let root = s.base.trim_end_matches("/api/v1").to_string();
    // The page holds no data: it is served without the token, under a policy that runs only
    // its own script and cannot be framed.
    let page = s.http.get(format!("{root}/")).send().unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    let policy = page.headers()["content-security-policy"].to_str().unwrap();
    assert!(
        policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"),
        "{policy}"
    );
    assert_eq!(page.headers()["x-frame-options"], "DENY");
    assert_eq!(page.headers()["referrer-policy"], "no-referrer");
    assert!(page.text().unwrap().contains("/app.js"));
    let script = s.http.get(format!("{root}/app.js")).send().unwrap();
    assert_eq!(
        script.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    let missing = s.http.get(format!("{root}/secrets")).send().unwrap();
    assert_eq!(missing.status(), 404);
    assert!(missing.text().unwrap().contains("/api/v1"));
    assert_eq!(
        s.http.post(format!("{root}/")).send().unwrap().status(),
        405
    );
    // A rebound name gets no page either.
    let port = root.rsplit(':').next().unwrap();
    let rebound = s
        .http
        .get(format!("{root}/"))
        .header("Host", format!("evil.example:{port}"))
        .send()
        .unwrap();
    assert_eq!(rebound.status(), 403);

    // The token, once, for the cookie.
    let refused = s.http.post(format!("{}/login", s.base)).send().unwrap();
    assert_eq!(refused.status(), 401);
    let login = s
        .http
        .post(format!("{}/login", s.base))
        .bearer_auth(TOKEN)
        .send()
        .unwrap();
    assert_eq!(login.status(), 200);
    let cookie = login.headers()["set-cookie"].to_str().unwrap().to_string();
    for part in [
        &format!("reasonix_token={TOKEN}"),
        "HttpOnly",
        "SameSite=Strict",
        "Path=/api/",
    ] {
        assert!(cookie.contains(part), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "{cookie}");
    let proxied = s
        .http
        .post(format!("{}/login", s.base))
        .bearer_auth(TOKEN)
        .header("X-Forwarded-Proto", "https")
        .send()
        .unwrap();
    assert!(
        proxied.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .ends_with("; Secure")
    );
    // The cookie alone is the page's: a request another page started (`same-site` is another
    // port of this machine) is refused, even without an Origin header.
    let with_cookie = |site: Option<&str>| {
        let mut request = s
            .http
            .get(format!("{}/sessions", s.base))
            .header("Cookie", format!("reasonix_token={TOKEN}"));
        if let Some(site) = site {
            request = request.header("Sec-Fetch-Site", site);
        }
        request.send().unwrap().status()
    };
    assert_eq!(with_cookie(Some("same-origin")), 200);
    assert_eq!(with_cookie(None), 200);
    assert_eq!(with_cookie(Some("same-site")), 403);
    assert_eq!(with_cookie(Some("cross-site")), 403);
    let logout = s
        .http
        .post(format!("{}/logout", s.base))
        .bearer_auth(TOKEN)
        .send()
        .unwrap();
    assert!(
        logout.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
}

#[test]
fn the_page_completes_paths_inside_the_workspace_and_lists_its_commands() {
    let (env, _mock) = setup();
    let cwd = env.project().canonicalize().unwrap();
    std::fs::write(cwd.join("notes.txt"), "n\n").unwrap();
    std::fs::create_dir_all(cwd.join(".claude/commands")).unwrap();
    std::fs::write(
        cwd.join(".claude/commands/greet.md"),
        "---\ndescription: Say hello\nargument-hint: <name>\n---\nHello $ARGUMENTS\n",
    )
    .unwrap();
    let s = Served::start(&env);
    let id = s.open(&cwd);
    let info: Value = s
        .get(&format!("/sessions/{id}"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(info["cwd"], cwd.display().to_string());
    assert_eq!(info["model"], "mock/mock-model");
    let found: Value = s
        .get(&format!("/sessions/{id}/complete?path=no"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(found["candidates"][0]["insert"], "@notes.txt", "{found}");
    for outside in ["../", "%2Fetc%2F", "~%2F"] {
        let refused = s
            .get(&format!("/sessions/{id}/complete?path={outside}"))
            .send()
            .unwrap();
        assert_eq!(refused.status(), 400, "{outside}");
        assert!(refused.text().unwrap().contains("inside the workspace"));
    }
    let commands: Value = s
        .get(&format!("/sessions/{id}/commands"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let greet = commands["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "greet")
        .unwrap_or_else(|| panic!("{commands}"));
    assert_eq!(greet["description"], "Say hello");
    assert_eq!(greet["hint"], "<name>");
}

#[test]
fn a_client_switches_the_mode_and_a_resumed_session_shows_its_conversation() {
    let (env, mock) = setup();
    let s = Served::start(&env);
    let cwd = env.project().canonicalize().unwrap();
    let id = s.open(&cwd);
    let bad = s.post(&format!("/sessions/{id}/mode"), json!({"mode": "yolo"}));
    assert_eq!(bad.status(), 400);
    assert!(
        bad.text().unwrap().contains("ask, acceptEdits, auto, plan"),
        "the modes are not named"
    );
    let switched = s.post(&format!("/sessions/{id}/mode"), json!({"mode": "auto"}));
    assert_eq!(switched.status(), 200);
    let info: Value = s
        .get(&format!("/sessions/{id}"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(info["mode"], "auto");
    // In auto a write runs without a question.
    let args = json!({"path": "auto.txt", "content": "written in auto\n"}).to_string();
    mock.enqueue(Reply::tool_calls(&[("w1", "write_file", &args)], 1));
    mock.enqueue(Reply::text(&["REMEMBERED-ANSWER"]));
    s.prompt(&id, "FIRST-QUESTION");
    let events = s.events(&id, 0, turn_finished);
    assert!(events.iter().all(|(_, e)| e["type"] != "question"));
    assert_eq!(
        std::fs::read_to_string(cwd.join("auto.txt")).unwrap(),
        "written in auto\n"
    );
    // Ended, then resumed: the conversation comes first in the new stream.
    let closed = s
        .http
        .delete(format!("{}/sessions/{id}", s.base))
        .bearer_auth(TOKEN)
        .send()
        .unwrap();
    assert_eq!(closed.status(), 200);
    let resumed = s.post("/sessions", json!({"cwd": cwd, "resume": id}));
    assert_eq!(resumed.status(), 201, "{}", resumed.text().unwrap());
    let again = s.get("/sessions").send().unwrap().json::<Value>().unwrap()["sessions"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let replayed = s.events(&again, 0, |e| e["type"] == "assistant_message");
    let kinds: Vec<&str> = replayed
        .iter()
        .map(|(_, e)| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds[0], "session_started", "{kinds:?}");
    assert!(
        replayed
            .iter()
            .any(|(_, e)| e["type"] == "user_message" && e["text"] == "FIRST-QUESTION"),
        "{replayed:?}"
    );
    assert_eq!(replayed.last().unwrap().1["text"], "REMEMBERED-ANSWER");
}
