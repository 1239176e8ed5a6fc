//! A provider component consuming a long stream from the mock LLM server, against a plain
//! reqwest read of the same stream, in the same run: end-to-end time and time to the first
//! delta. The component does everything a real completion does (host HTTP with the endpoint
//! policy, SSE parsing and decoding inside wasm, events copied out to the kernel); reqwest only
//! reads the bytes.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements and messages, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use reasonix_runtime::builtins::BUILTINS;

use common::{median, ms};
use reasonix_agent::completion::{ChatRequest, ProviderClient};
use reasonix_config::providers::resolve_providers;
use reasonix_config::{Config, Paths};
use reasonix_core::cancel::CancelToken;
use reasonix_core::types::{Message, Role, StreamEvent};
use reasonix_host::Registry;
use reasonix_mock_llm::{MockLlm, Reply, Step};
use std::io::Read;
use std::time::{Duration, Instant};

const RUNS: usize = 7;

fn long_reply(deltas: usize) -> Reply {
    Reply {
        steps: (0..deltas)
            .map(|i| Step::Text(format!("token {i:06} ")))
            .collect(),
        ..Reply::default()
    }
}

struct Timing {
    first: Duration,
    total: Duration,
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths {
        home: dir.path().join("home"),
        cache: dir.path().join("cache"),
        state: dir.path().join("home"),
    };
    let registry = Registry::load(BUILTINS, &paths, &Default::default(), None).unwrap();
    let mock = MockLlm::start().unwrap();
    let config = Config::parse(
        &dir.path().join("reasonix.toml"),
        &format!(
            "[[providers]]\nname = \"bench\"\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\n",
            mock.base_url()
        ),
    )
    .unwrap();
    let providers = resolve_providers(&config).unwrap();
    let client = ProviderClient::new(&registry, &providers, None, None, None, &paths.home).unwrap();
    let request = ChatRequest {
        messages: vec![Message::text(Role::User, "stream")],
        ..ChatRequest::default()
    };
    let wire_body = {
        // One request through the component, to copy its exact body for reqwest.
        mock.enqueue(long_reply(1));
        let events = client
            .stream(&request, &CancelToken::new(), &mut |_| {})
            .unwrap()
            .collect()
            .unwrap();
        assert!(events.iter().any(|e| matches!(e, StreamEvent::Text(_))));
        mock.requests()[0].body.clone()
    };
    let http = reqwest::blocking::Client::new();
    let url = format!("{}/chat/completions", mock.base_url());

    println!("| stream | reader | first delta ms | whole stream ms | ratio |");
    println!("|---|---|---|---|---|");
    for deltas in [2_000usize, 20_000] {
        let mut component = Vec::new();
        let mut plain = Vec::new();
        let mut bytes = 0usize;
        for _ in 0..RUNS {
            mock.enqueue(long_reply(deltas));
            let started = Instant::now();
            let mut completion = client
                .stream(&request, &CancelToken::new(), &mut |_| {})
                .unwrap();
            let mut first = None;
            let mut texts = 0usize;
            loop {
                let batch = completion.next_events().unwrap();
                if batch.is_empty() {
                    break;
                }
                for event in &batch {
                    if matches!(event, StreamEvent::Text(_)) {
                        first.get_or_insert_with(|| started.elapsed());
                        texts += 1;
                    }
                }
            }
            assert_eq!(texts, deltas);
            component.push(Timing {
                first: first.unwrap(),
                total: started.elapsed(),
            });

            mock.enqueue(long_reply(deltas));
            let started = Instant::now();
            let mut response = http
                .post(&url)
                .header("content-type", "application/json")
                .body(wire_body.clone())
                .send()
                .unwrap();
            let mut buffer = vec![0u8; 64 * 1024];
            let mut first = None;
            let mut total = 0usize;
            loop {
                let n = response.read(&mut buffer).unwrap();
                if n == 0 {
                    break;
                }
                first.get_or_insert_with(|| started.elapsed());
                total += n;
            }
            bytes = total;
            plain.push(Timing {
                first: first.unwrap(),
                total: started.elapsed(),
            });
        }
        let med = |timings: &[Timing], pick: fn(&Timing) -> Duration| {
            let mut values: Vec<Duration> = timings.iter().map(pick).collect();
            values.sort();
            median(&values)
        };
        let (c_first, c_total) = (med(&component, |t| t.first), med(&component, |t| t.total));
        let (p_first, p_total) = (med(&plain, |t| t.first), med(&plain, |t| t.total));
        let label = format!("{deltas} deltas, {:.1} MB", bytes as f64 / 1e6);
        println!(
            "| {label} | `llm` component (openai kind) | {} | {} | {:.2}× |",
            ms(c_first),
            ms(c_total),
            c_total.as_secs_f64() / p_total.as_secs_f64()
        );
        println!(
            "| {label} | reqwest, bytes only | {} | {} | 1.00× |",
            ms(p_first),
            ms(p_total)
        );
    }
}
