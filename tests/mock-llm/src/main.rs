//! `mock-llm [--port N] script.json`: serves a script (a JSON array of replies, see README.md)
//! and prints the base URL on the first stdout line. Each request is logged to stderr.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use reasonix_mock_llm::{MockLlm, Reply};

const USAGE: &str = "usage: mock-llm [--port N] script.json   (script = JSON array of replies)";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mock-llm: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut port = 0u16;
    let mut script = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args
                    .next()
                    .ok_or(format!("--port needs a value\n{USAGE}"))?;
                port = value
                    .parse()
                    .map_err(|_| format!("--port {value}: not a port number\n{USAGE}"))?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            _ if script.is_none() && !arg.starts_with('-') => script = Some(arg),
            _ => return Err(format!("unexpected argument {arg:?}\n{USAGE}")),
        }
    }
    let script = script.ok_or(format!("missing the script file\n{USAGE}"))?;
    let text = std::fs::read_to_string(&script).map_err(|e| format!("{script}: {e}"))?;
    let replies: Vec<Reply> = serde_json::from_str(&text)
        .map_err(|e| format!("{script}: not a JSON array of replies: {e}"))?;

    let mock = MockLlm::start_on(SocketAddr::from(([127, 0, 0, 1], port)))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let count = replies.len();
    mock.enqueue_all(replies);
    println!("{}", mock.base_url());
    let _ = std::io::stdout().flush();
    eprintln!("mock-llm: serving {count} scripted replies; Ctrl-C to stop");

    let mut seen = 0;
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let requests = mock.requests();
        for request in requests.iter().skip(seen) {
            let wire = request
                .wire
                .map_or_else(|| "unknown".to_owned(), |w| format!("{w:?}"));
            eprintln!(
                "mock-llm: {} {} ({wire}, {} bytes); {} replies left",
                request.method,
                request.path,
                request.body.len(),
                mock.pending()
            );
        }
        seen = requests.len();
    }
}
