//! `web_fetch` of a local address (this machine, a private network) through `reasonix run`:
//! it asks like a writer instead of running as a reader, and only an allowed call reaches the
//! address. A `*` grant alone never does (issue #32 item 2, ADR 0007).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use reasonix_mock_llm::{MockLlm, Reply};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::Env;

const PAGE: &str = "local admin page: secret-token-4711";

/// A loopback HTTP server that answers every request with [`PAGE`] and counts connections.
fn local_server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            counter.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{PAGE}",
                PAGE.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (port, seen)
}

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    fn new() -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
        Setup { env, mock }
    }

    /// The model fetches `url`, then answers `done`.
    fn script_fetch(&self, url: &str) {
        let args = serde_json::json!({ "url": url }).to_string();
        self.mock
            .enqueue(Reply::tool_calls(&[("c1", "web_fetch", &args)], 2));
        self.mock.enqueue(Reply::text(&["done"]));
    }

    fn run(&self, flags: &[&str]) -> Output {
        let workspace = self.env.workspace();
        let mut args = vec!["run"];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["--dir", workspace.to_str().unwrap(), "read the page"]);
        self.env.reasonix(&args)
    }

    /// What the tool answered the model.
    fn tool_result(&self) -> String {
        let requests = self.mock.requests();
        let last = requests.last().expect("the model was asked");
        support::tool_results("openai", &last.json())
            .into_iter()
            .map(|(_, text)| text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[test]
fn a_fetch_of_a_local_address_asks_and_reaches_nothing_unless_allowed() {
    let (port, seen) = local_server();
    for host in ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]"] {
        let setup = Setup::new();
        setup.script_fetch(&format!("http://{host}:{port}/admin"));
        let out = setup.run(&[]);
        let result = setup.tool_result();
        assert!(
            result.contains("Permission needed") && result.contains("local address"),
            "{host}: {result}"
        );
        assert!(!result.contains("secret-token"), "{host}: {result}");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(seen.load(Ordering::SeqCst), 0, "nothing connected");

    // Allowed by a rule naming the host: the page reaches the model.
    let setup = Setup::new();
    setup.script_fetch(&format!("http://127.0.0.1:{port}/admin"));
    setup.run(&["--allowed-tools", "WebFetch(domain:127.0.0.1)"]);
    let result = setup.tool_result();
    assert!(result.contains("secret-token-4711"), "{result}");
    assert_eq!(seen.load(Ordering::SeqCst), 1);
}

/// A spelling of a local address the permission check does not recognise as one (a decimal
/// or shortened IPv4 that the resolver reads as loopback) is not asked about, and the host still refuses it
/// at connect time: the approval covers only the origin the user was shown.
#[test]
fn a_disguised_local_address_is_refused_at_connect_time() {
    let (port, seen) = local_server();
    for host in ["2130706433", "127.1", "0x7f000001"] {
        let url = format!("http://{host}:{port}/admin");
        let setup = Setup::new();
        setup.script_fetch(&url);
        setup.run(&["--auto"]);
        let result = setup.tool_result();
        assert!(!result.contains("secret-token"), "{url}: {result}");
        assert!(
            result.contains("may not reach without the user's approval"),
            "{url}: {result}"
        );
    }
    assert_eq!(seen.load(Ordering::SeqCst), 0, "nothing connected");
}
