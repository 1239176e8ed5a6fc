//! `web_fetch` through the real `web` component against a real HTTP server on 127.0.0.1, and
//! the host's network policy: private and metadata addresses refused (also behind a redirect),
//! a plugin without a network grant cannot connect.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

use crate::support;

use reasonix_core::capability::Capabilities;
use reasonix_host::index::{IndexEntry, PluginIndex};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::{Env, stderr, stdout};

const HTML: &str = r#"<!DOCTYPE html>
<html><head><title>Fixture page</title>
<style>body { color: red; }</style>
<script>document.write("<p>SCRIPT TEXT</p>");</script>
</head><body>
<h1>Main heading</h1>
<p>Read <a href="https://example.com/docs">the docs</a> first.</p>
<h2>Steps</h2>
<ul><li>one</li><li>two</li></ul>
<pre>fn main() {
    println!("hi");
}</pre>
</body></html>"#;

/// A local HTTP/1.1 server with fixed routes. It serves at most `MAX_CONNECTIONS` connections
/// and every connection ends by itself, so nothing outlives the test by long.
struct Server {
    port: u16,
    connections: Arc<AtomicUsize>,
}

const MAX_CONNECTIONS: usize = 32;

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let counter = connections.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(MAX_CONNECTIONS) {
                let Ok(stream) = stream else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || serve(stream));
            }
        });
        Server { port, connections }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

fn serve(mut stream: TcpStream) {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.first() == Some(&0x16) {
            // A TLS ClientHello: this server speaks plain HTTP only, so hang up.
            return;
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let respond = |stream: &mut TcpStream, status: &str, headers: &str, body: &[u8]| {
        let head = format!(
            "HTTP/1.1 {status}\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(body);
    };
    match path.as_str() {
        "/text" => respond(
            &mut stream,
            "200 OK",
            "content-type: text/plain; charset=utf-8\r\n",
            b"hello from plain text\n",
        ),
        "/json" => respond(
            &mut stream,
            "200 OK",
            "content-type: application/json\r\n",
            br#"{"ok": true, "items": [1, 2, 3]}"#,
        ),
        "/html" => respond(
            &mut stream,
            "200 OK",
            "content-type: text/html; charset=utf-8\r\n",
            HTML.as_bytes(),
        ),
        "/big" => {
            let body = vec![b'a'; 3 * 1024 * 1024];
            respond(&mut stream, "200 OK", "content-type: text/plain\r\n", &body);
        }
        "/missing" => respond(
            &mut stream,
            "404 Not Found",
            "content-type: text/plain\r\n",
            b"no such page",
        ),
        "/moved" => respond(&mut stream, "302 Found", "location: /text\r\n", b""),
        "/to-metadata" => respond(
            &mut stream,
            "302 Found",
            "location: http://169.254.169.254/latest/meta-data/\r\n",
            b"",
        ),
        "/to-private" => respond(
            &mut stream,
            "301 Moved Permanently",
            "location: http://10.0.0.1/admin\r\n",
            b"",
        ),
        "/hang" => {
            // Read the request, then say nothing until well past the tool's 15 s budget.
            std::thread::sleep(Duration::from_secs(20));
        }
        _ => respond(&mut stream, "404 Not Found", "", b""),
    }
}

fn fetch(env: &Env, url: &str) -> std::process::Output {
    env.call("web_fetch", &serde_json::json!({ "url": url }).to_string())
}

#[test]
fn fetches_plain_text_verbatim() {
    let server = Server::start();
    let env = Env::new();
    let out = fetch(&env, &server.url("/text"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim_end(),
        "status 200 OK · text/plain · 22 bytes\n\nhello from plain text"
    );
}

#[test]
fn fetches_json_verbatim() {
    let server = Server::start();
    let env = Env::new();
    let out = fetch(&env, &server.url("/json"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("status 200 OK · application/json · 32 bytes\n\n"),
        "{text}"
    );
    assert!(
        text.contains(r#"{"ok": true, "items": [1, 2, 3]}"#),
        "{text}"
    );
}

#[test]
fn html_becomes_readable_text() {
    let server = Server::start();
    let env = Env::new();
    let out = fetch(&env, &server.url("/html"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("status 200 OK · text/html · "), "{text}");
    for expected in [
        "Fixture page",
        "# Main heading",
        "Read the docs (https://example.com/docs) first.",
        "## Steps",
        "- one\n- two",
        "```\nfn main() {\n    println!(\"hi\");\n}\n```",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    for dropped in ["SCRIPT TEXT", "color: red", "<p>", "<h1>"] {
        assert!(!text.contains(dropped), "{dropped:?} leaked into:\n{text}");
    }
}

#[test]
fn redirects_are_followed_and_errors_statuses_shown() {
    let server = Server::start();
    let env = Env::new();
    let out = fetch(&env, &server.url("/moved"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!("redirected to {}", server.url("/text"))),
        "{text}"
    );
    assert!(text.contains("hello from plain text"), "{text}");

    let out = fetch(&env, &server.url("/missing"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("status 404 Not Found · text/plain · 12 bytes"));
}

#[test]
fn reads_at_most_one_mebibyte() {
    let server = Server::start();
    let env = Env::new();
    let out = fetch(&env, &server.url("/big"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("status 200 OK · text/plain · 1048576 bytes (truncated)\n"),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(
        text.trim_end()
            .ends_with("only the first 1048576 bytes (1 MiB) of the response were read]"),
        "{}",
        &text[text.len().saturating_sub(200)..]
    );
    let body_len = text.bytes().filter(|b| *b == b'a').count();
    assert!(body_len <= 1024 * 1024 + 16, "{body_len} bytes of body");
}

#[test]
fn a_failed_tls_handshake_is_reported() {
    let server = Server::start();
    let env = Env::new();
    let url = server.url("/text").replacen("http://", "https://", 1);
    let out = fetch(&env, &url);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("TLS handshake failed"), "{err}");
    assert!(err.contains(&url), "{err}");
}

#[test]
fn a_server_that_never_answers_times_out() {
    let server = Server::start();
    let env = Env::new();
    // Warm the compiled-component cache so the timing below is the fetch alone.
    assert_eq!(fetch(&env, &server.url("/text")).status.code(), Some(0));
    let started = Instant::now();
    let out = fetch(&env, &server.url("/hang"));
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("timed out"), "{err}");
    assert!(err.contains("15 s"), "{err}");
    assert!(
        took >= Duration::from_secs(14) && took < Duration::from_secs(30),
        "took {took:?}"
    );
}

#[test]
fn private_and_metadata_addresses_are_refused() {
    // `tools call` is the user's own call, so it may fetch the local address it names (this
    // machine, a private network); metadata and the other special ranges stay refused.
    let env = Env::new();
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://0.0.0.0:80/",
    ] {
        let out = fetch(&env, url);
        assert_eq!(out.status.code(), Some(1), "{url}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("denied"), "{url}: {err}");
        assert!(err.contains("may not reach"), "{url}: {err}");
        // The host says so too, naming the plugin and the URL.
        assert!(
            err.contains("[web] warn: network: refused GET http://"),
            "{url}: {err}"
        );
    }
}

#[test]
fn a_redirect_to_a_private_address_is_refused() {
    let server = Server::start();
    let env = Env::new();
    for (path, target) in [
        ("/to-metadata", "http://169.254.169.254/latest/meta-data/"),
        ("/to-private", "http://10.0.0.1/admin"),
    ] {
        let out = fetch(&env, &server.url(path));
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("denied"), "{path}: {err}");
        assert!(
            err.contains(&format!("redirected to {target}")),
            "{path}: {err}"
        );
        assert!(
            err.contains(&format!("network: refused GET {target}")),
            "{path}: {err}"
        );
    }
}

#[test]
fn non_http_urls_are_invalid_input() {
    let env = Env::new();
    for url in ["file:///etc/passwd", "ftp://example.com/x", "example.com"] {
        let out = fetch(&env, url);
        assert_eq!(out.status.code(), Some(1), "{url}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("invalid input"), "{url}: {err}");
        assert!(err.contains("url"), "{url}: {err}");
    }
    let out = env.call("web_fetch", "{}");
    assert!(stderr(&out).contains("`url`"), "{}", stderr(&out));
}

#[test]
fn a_plugin_without_a_network_grant_cannot_connect() {
    let server = Server::start();
    let env = Env::new();
    let path = env.install_fixture("netprobe");
    let args =
        serde_json::json!({"authority": format!("127.0.0.1:{}", server.port), "path": "/text"})
            .to_string();

    // Not in the plugin index: it runs with no capabilities, whatever it requested.
    let out = env.call("http_get", &args);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("HttpRequestDenied"), "{err}");
    assert!(
        err.contains("[netprobe] warn: network: refused GET http://127.0.0.1:")
            && err.contains("granted no network access"),
        "{err}"
    );
    assert_eq!(
        server.connections(),
        0,
        "the server must not have been reached"
    );

    // Granted only another host (so nothing of what it requested): still refused.
    let bytes = std::fs::read(&path).unwrap();
    let grant = |network: &[&str]| {
        let mut index = PluginIndex::default();
        index.upsert(IndexEntry {
            file: "netprobe.wasm".into(),
            name: "netprobe".into(),
            version: "0.1.0".into(),
            source: path.display().to_string(),
            sha256: reasonix_host::cache::sha256_hex(&bytes),
            granted: Capabilities {
                network: network.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            },
            granted_limits: Default::default(),
            enabled: true,
        });
        index.save(&env.plugins_dir()).unwrap();
    };
    grant(&["https://api.example.com"]);
    let out = env.call("http_get", &args);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("HttpRequestDenied"), "{err}");
    assert_eq!(server.connections(), 0);

    // Granted everything (`*`): still not this machine (issue #32 item 2).
    grant(&["*"]);
    let out = env.call("http_get", &args);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("DestinationIpProhibited") && err.contains("never through `*`"),
        "{err}"
    );
    assert_eq!(server.connections(), 0);

    // The user's own fetch of that address goes through: the refusals were the policy's doing.
    let out = fetch(&env, &server.url("/text"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.connections(), 1);
}
