//! Compaction end to end (docs/COMPACTION.md): several `reasonix run -c` turns against the mock
//! with a small `context_window`, driven past it again and again. The mock's usage is its own
//! estimate (request bytes / 4), so the token counts follow the real requests. Summary requests
//! (no tools) take their replies from the mock's tool-free queue, so the script need not know
//! when one comes.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// The figures printed are numbers and fixed text, for a person reading the test's output.
#![allow(clippy::disallowed_macros)]

use crate::support::{Env, shared_artifact_cache, stderr};
use reasonix_mock_llm::{MockLlm, Reply, Step};
use serde_json::Value;
use std::collections::HashSet;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    fn new() -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let setup = Setup { env, mock };
        setup.configure(0);
        // A file worth reading: long enough to be snipped and pruned once stale.
        let text: String = (0..60)
            .map(|i| format!("line {i:02}: {}\n", "lorem ipsum dolor sit amet ".repeat(2)))
            .collect();
        std::fs::write(setup.env.workspace().join("big.txt"), text).unwrap();
        setup
    }

    /// The provider config with this `context_window` (0 = compaction off).
    fn configure(&self, window: u64) {
        self.env.project_config(&self.env.mock_provider(
            "openai",
            &self.mock.base_url(),
            "sk-test",
            &format!("stall_timeout_seconds = 5\ncontext_window = {window}\n"),
        ));
    }

    /// The provider config with no `context_window` (a model nobody knows the window of).
    fn configure_without_window(&self) {
        self.env.project_config(&self.env.mock_provider(
            "openai",
            &self.mock.base_url(),
            "sk-test",
            "stall_timeout_seconds = 5\n",
        ));
    }

    fn command(&self, args: &[&str]) -> Command {
        let ws = self.env.workspace();
        let mut all = vec!["run", "--dir", ws.to_str().unwrap()];
        all.extend_from_slice(args);
        let mut command = Command::new(env!("CARGO_BIN_EXE_reasonix"));
        command
            .args(&all)
            .current_dir(self.env.project())
            .env("REASONIX_HOME", self.env.home())
            .env("REASONIX_CACHE_HOME", shared_artifact_cache())
            .env_remove("REASONIX_STATE_HOME")
            .env_remove("REASONIX_LOG")
            .env_remove("MOCK_LLM_KEY")
            .stdin(Stdio::null());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// One turn's replies: read big.txt, then a long answer. The file changes each turn, so
    /// every read is new (a re-read of unchanged text would be answered with one line).
    fn script_turn(&self, turn: usize) {
        let text: String = (0..60)
            .map(|i| {
                format!(
                    "line {i:02} of turn {turn:03}: {}\n",
                    "lorem ipsum dolor sit amet ".repeat(2)
                )
            })
            .collect();
        std::fs::write(self.env.workspace().join("big.txt"), text).unwrap();
        let id = format!("call_{turn}");
        self.mock.enqueue(Reply::tool_calls(
            &[(id.as_str(), "read_file", r#"{"path":"big.txt"}"#)],
            1,
        ));
        let answer = format!(
            "Turn {turn} done. {}",
            "The analysis of the file shows the usual lines. ".repeat(60)
        );
        self.mock.enqueue(Reply::text(&[answer.as_str()]));
    }
}

fn user_text(turn: usize) -> String {
    format!(
        "fact {turn}: the code word of turn {turn} is KW-{turn}-{}",
        turn * 7919
    )
}

/// Turns of big.txt reads (at most 30) until a compaction happened and at least `min_turns`
/// ran: the compactions seen, and how many times the window was said to be unknown.
fn turns_until_compacted(setup: &Setup, min_turns: usize) -> (usize, usize) {
    let mut compacted = 0;
    let mut notices = 0;
    for turn in 1..=30 {
        setup.script_turn(turn);
        setup
            .mock
            .enqueue_tool_free(Reply::text(&["digest: big.txt was read before."]));
        let mut args = vec!["--yolo", "--output-format", "stream-json"];
        if turn > 1 {
            args.push("-c");
        }
        let prompt = user_text(turn);
        args.push(&prompt);
        let out = setup.run(&args);
        assert!(out.status.success(), "turn {turn}: {}", stderr(&out));
        compacted += compactions(&out).len();
        notices += String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains("is not known: compacting as if it were 32768 tokens"))
            .count();
        if compacted > 0 && turn >= min_turns {
            break;
        }
    }
    (compacted, notices)
}

/// Requests that offer tools (the agent's own) and those that do not (summaries).
fn offers_tools(body: &Value) -> bool {
    body["tools"].as_array().is_some_and(|t| !t.is_empty())
}

/// Every `tool` message answers a call of the nearest assistant message before it.
fn orphan_results(body: &Value) -> Vec<String> {
    let mut open: HashSet<String> = HashSet::new();
    let mut orphans = Vec::new();
    for m in body["messages"].as_array().unwrap() {
        match m["role"].as_str() {
            Some("assistant") => {
                open = m["tool_calls"]
                    .as_array()
                    .map(|calls| {
                        calls
                            .iter()
                            .map(|c| c["id"].as_str().unwrap_or_default().to_string())
                            .collect()
                    })
                    .unwrap_or_default();
            }
            Some("tool") => {
                let id = m["tool_call_id"].as_str().unwrap_or_default().to_string();
                if !open.remove(&id) {
                    orphans.push(id);
                }
            }
            _ => open.clear(),
        }
    }
    orphans
}

fn messages_bytes(body: &Value) -> String {
    serde_json::to_string(&body["messages"]).unwrap()
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// The `compaction` lines of a `stream-json` run, and how many `turn` lines came before each.
fn compactions(out: &Output) -> Vec<(usize, Value)> {
    let mut turns = 0;
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match v["type"].as_str() {
            Some("turn") => turns += 1,
            Some("compaction") => found.push((turns, v)),
            _ => {}
        }
    }
    found
}

#[test]
fn a_session_driven_past_the_window_three_times_keeps_facts_pairing_and_its_prefix() {
    let setup = Setup::new();
    // Turn 0 without a window measures what the fixed part (system prompt, tools) costs.
    setup.script_turn(0);
    let out = setup.run(&["--yolo", "--output-format", "stream-json", &user_text(0)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let fixed = setup.mock.requests()[0].body.len() as u64 / 4;
    // The compact threshold (0.8) sits ~6,000 tokens above the fixed part.
    let window = (fixed + 6_000) * 10 / 8;
    setup.configure(window);
    println!("fixed part ~{fixed} tokens; context_window = {window}");

    // Normal requests in order, each marked with whether a compaction came just before it.
    let mut after_compaction: Vec<bool> = vec![false, false];
    let mut tiers: Vec<String> = Vec::new();
    let mut summaries = 0;
    let mut turn = 0;
    while summaries < 3 {
        turn += 1;
        assert!(
            turn <= 40,
            "fewer than 3 summaries in 40 turns: tiers {tiers:?}"
        );
        setup.script_turn(turn);
        let digest = format!("digest {turn}: big.txt was read and analysed in earlier turns.");
        setup
            .mock
            .enqueue_tool_free(Reply::text(&[digest.as_str()]));
        let out = setup.run(&[
            "--yolo",
            "-c",
            "--output-format",
            "stream-json",
            &user_text(turn),
        ]);
        assert!(out.status.success(), "turn {turn}: {}", stderr(&out));
        let found = compactions(&out);
        let mut marks = vec![false, false];
        for (before_turn, line) in &found {
            marks[(*before_turn).min(1)] = true;
            let tier = line["tier"].as_str().unwrap().to_string();
            summaries += usize::from(tier == "summary");
            assert!(
                line["tokens_after"].as_u64() < line["tokens_before"].as_u64(),
                "{line}"
            );
            tiers.push(tier);
        }
        after_compaction.extend(marks);
    }
    println!("compactions over {turn} turns: {tiers:?}");

    let requests = setup.mock.requests();
    let (normal, summary): (Vec<_>, Vec<_>) =
        requests.iter().map(|r| r.json()).partition(offers_tools);
    assert_eq!(normal.len(), after_compaction.len());
    assert!(summary.len() >= 3, "{} summary requests", summary.len());
    for body in &summary {
        // The summary request carries no tools and folds no user fact away silently: its
        // input is the assistant/tool work as text.
        assert!(body["tools"].as_array().is_none_or(Vec::is_empty), "{body}");
        assert!(body.get("tool_choice").is_none(), "{body}");
    }

    let mut shares = Vec::new();
    for (i, body) in normal.iter().enumerate() {
        assert_eq!(orphan_results(body), Vec::<String>::new(), "request {i}");
        // Every fact a user stated before this request is still there, verbatim.
        let turn_of_request = i / 2;
        let users: Vec<&str> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user")
            .filter_map(|m| m["content"].as_str())
            .collect();
        for t in 0..=turn_of_request {
            assert!(
                users.contains(&user_text(t).as_str()),
                "request {i} lost `{}`",
                user_text(t)
            );
        }
        if i == 0 {
            continue;
        }
        let (prev, now) = (messages_bytes(&normal[i - 1]), messages_bytes(body));
        let prefix = common_prefix(prev.trim_end_matches(']'), &now);
        // The prompt a provider caches is the tools and the messages; the tools never change.
        let tools = serde_json::to_string(&body["tools"]).unwrap();
        assert_eq!(
            tools,
            serde_json::to_string(&normal[i - 1]["tools"]).unwrap()
        );
        let share = (prefix + tools.len()) as f64 / (now.len() + tools.len()) as f64;
        if after_compaction[i] {
            println!("request {i}: compaction before it, prefix share {share:.2}");
        } else {
            // Between compactions the history only grows: the previous request's messages are
            // a byte-exact prefix of this one's.
            assert_eq!(
                prefix,
                prev.len() - 1,
                "request {i}: the prefix changed without a compaction"
            );
            shares.push(share);
        }
    }
    let mean = shares.iter().sum::<f64>() / shares.len() as f64;
    let low = shares.iter().copied().fold(f64::MAX, f64::min);
    println!(
        "cache-hit share between compactions: mean {mean:.2}, lowest {low:.2} over {} requests",
        shares.len()
    );
    assert!(mean > 0.7, "mean prefix share {mean:.2}");

    // The archive beside the transcript holds the originals, with their compaction numbers.
    let sessions = setup.env.home().join("projects");
    let archive =
        find_file(&sessions, &|p: &str| p.ends_with(".archive.jsonl")).expect("an archive");
    let numbers: HashSet<u64> = std::fs::read_to_string(&archive)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["compaction"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(numbers.len(), tiers.len(), "{numbers:?}");
}

fn find_file(dir: &std::path::Path, wanted: &dyn Fn(&str) -> bool) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, wanted) {
                return Some(found);
            }
        } else if wanted(&path.to_string_lossy()) {
            return Some(path);
        }
    }
    None
}

fn wait_for(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > timeout {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

fn kill(mut child: Child) {
    child.kill().unwrap();
    assert!(!child.wait().unwrap().success());
}

#[test]
fn sigkill_during_a_summary_then_continue_loses_nothing() {
    let setup = Setup::new();
    setup.script_turn(0);
    let out = setup.run(&["--yolo", &user_text(0)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let fixed = setup.mock.requests()[0].body.len() as u64 / 4;
    setup.configure((fixed + 3_000) * 10 / 8);

    // The summary's stream holds at a gate that never opens.
    setup.mock.enqueue_tool_free(Reply {
        steps: vec![
            Step::Text("digest: partial ".into()),
            Step::Gate("never".into()),
            Step::Text("rest".into()),
        ],
        ..Reply::default()
    });
    let mut turn = 0;
    loop {
        turn += 1;
        assert!(turn <= 30, "no summary request in 30 turns");
        setup.script_turn(turn);
        let child = setup
            .command(&["--yolo", "-c", &user_text(turn)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut child = Some(child);
        let summarising = wait_for(Duration::from_secs(60), || {
            let asked = setup
                .mock
                .requests()
                .iter()
                .any(|r| !offers_tools(&r.json()));
            let exited = child
                .as_mut()
                .is_some_and(|c| c.try_wait().unwrap().is_some());
            asked || exited
        }) && setup
            .mock
            .requests()
            .iter()
            .any(|r| !offers_tools(&r.json()));
        if summarising {
            kill(child.take().unwrap());
            break;
        }
        let status = child.take().unwrap().wait().unwrap();
        assert!(status.success(), "turn {turn} failed");
    }

    // Continue: the transcript loads, the compaction is done now, every fact is still sent.
    turn += 1;
    setup.script_turn(turn);
    setup
        .mock
        .enqueue_tool_free(Reply::text(&["digest: big.txt was read several times."]));
    let before = setup.mock.requests().len();
    let out = setup.run(&[
        "--yolo",
        "-c",
        "--output-format",
        "stream-json",
        &user_text(turn),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = setup.mock.requests();
    let last = requests[before..]
        .iter()
        .map(|r| r.json())
        .rfind(offers_tools)
        .unwrap();
    let sent = serde_json::to_string(&last["messages"]).unwrap();
    for t in 0..=turn {
        assert!(sent.contains(&user_text(t)), "lost `{}`", user_text(t));
    }
    assert_eq!(orphan_results(&last), Vec::<String>::new());
    // The transcript holds the killed turn's user message once, and every compaction record
    // in it is complete (the one being made at the kill is either all there or absent).
    let transcript = find_file(&setup.env.home().join("projects"), &|p: &str| {
        p.ends_with(".jsonl") && !p.ends_with(".archive.jsonl")
    })
    .map(|p| std::fs::read_to_string(p).unwrap());
    {
        let text = transcript.expect("the transcript");
        let killed = user_text(turn - 1);
        let records: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            records
                .iter()
                .filter(|r| r["type"] == "message" && r["content"] == killed.as_str())
                .count(),
            1
        );
    }
}

/// What a 49-turn session at a 16k window cost: the compactions (`turn:tier:before→after`),
/// the share of request bytes a provider's prefix cache can serve, and the bytes of the
/// transcript's `compaction` and `compaction_edits` records. Each turn reads a 4 KB file
/// (default ratios, ~1.4k tokens of growth a turn when the read is new); with `changing`, the
/// file differs every turn, else it is the same file every time. The window is 16k for the
/// conversation: 16,600 with the ~600 tokens the `remember` and `memory` schemas take in the
/// prefix (the scenario was calibrated before they were offered).
fn long_session(changing: bool) -> (Vec<String>, f64, usize, usize) {
    let setup = Setup::new();
    let text = |turn: usize| -> String {
        (0..64)
            .map(|i| {
                let tag = if changing { turn } else { 0 };
                format!("row {i:02}: {tag:03} {}\n", "x".repeat(51))
            })
            .collect()
    };
    assert_eq!(text(1).len(), 64 * 64);
    std::fs::write(setup.env.workspace().join("data.txt"), text(1)).unwrap();
    setup.configure(16_600);
    let mut compactions_seen = Vec::new();
    for turn in 1..=49 {
        std::fs::write(setup.env.workspace().join("data.txt"), text(turn)).unwrap();
        let id = format!("call_{turn}");
        setup.mock.enqueue(Reply::tool_calls(
            &[(id.as_str(), "read_file", r#"{"path":"data.txt"}"#)],
            1,
        ));
        let answer = format!(
            "Turn {turn}: the rows are as expected. {}",
            "ok ".repeat(40)
        );
        setup.mock.enqueue(Reply::text(&[answer.as_str()]));
        let digest = format!("digest {turn}: data.txt was read in earlier turns.");
        setup
            .mock
            .enqueue_tool_free(Reply::text(&[digest.as_str()]));
        let mut args = vec!["--yolo", "--output-format", "stream-json"];
        if turn > 1 {
            args.push("-c");
        }
        let prompt = user_text(turn);
        args.push(&prompt);
        let out = setup.run(&args);
        assert!(out.status.success(), "turn {turn}: {}", stderr(&out));
        for (_, line) in compactions(&out) {
            compactions_seen.push(format!(
                "{turn}:{}:{}→{}",
                line["tier"].as_str().unwrap_or("?"),
                line["tokens_before"],
                line["tokens_after"]
            ));
        }
    }
    // Cached share: per request, its tools then its messages, and the longest prefix it
    // shares with any earlier request (a provider's prefix cache keeps several; a summary
    // request in between does not evict the conversation's).
    let (mut cached, mut total) = (0usize, 0usize);
    let mut earlier: Vec<String> = Vec::new();
    for request in setup.mock.requests() {
        let body = request.json();
        let sent = format!("{}{}", body["tools"], messages_bytes(&body));
        total += sent.len();
        cached += earlier
            .iter()
            .map(|e| common_prefix(e, &sent))
            .max()
            .unwrap_or(0);
        earlier.push(sent);
    }
    let share = cached as f64 / total as f64;
    println!(
        "49 turns at a 16k window: {} compactions {compactions_seen:?}; {:.1}% of request bytes a cached prefix",
        compactions_seen.len(),
        share * 100.0
    );
    // Snips and prunes are recorded as the messages they rewrote, not the whole history again.
    let transcript = find_file(&setup.env.home(), &|p| {
        p.ends_with(".jsonl") && !p.ends_with(".archive.jsonl")
    })
    .unwrap();
    let text = std::fs::read_to_string(&transcript).unwrap();
    let record_bytes = |kind: &str| -> usize {
        text.lines()
            .filter(|l| l.starts_with(&format!("{{\"type\":\"{kind}\"")))
            .map(str::len)
            .sum()
    };
    let whole = text
        .lines()
        .filter(|l| l.starts_with("{\"type\":\"compaction\""))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["tier"] != "summary")
        .count();
    println!(
        "transcript {} bytes: compaction records {} bytes, compaction_edits records {} bytes",
        text.len(),
        record_bytes("compaction"),
        record_bytes("compaction_edits")
    );
    assert_eq!(whole, 0, "a snip or prune recorded the whole history");
    (
        compactions_seen,
        share,
        record_bytes("compaction"),
        record_bytes("compaction_edits"),
    )
}

/// Issue 24's session: the model reads the same 4 KB file every turn. A re-read that returns
/// what the model already has is answered with a line pointing at the earlier result
/// (`agent_loop/unchanged.rs`), so the session grows by the answers only: at most 5
/// compactions (it was 23, then 13 with the compaction rule of docs/COMPACTION.md), and at
/// least 93% of the bytes sent are a prefix sent before.
#[test]
fn a_long_session_compacts_rarely_and_keeps_its_prefix_cached() {
    let (compactions, share, _, _) = long_session(false);
    assert!(
        compactions.len() <= 5,
        "compacted {} times: {compactions:?}",
        compactions.len()
    );
    assert!(share >= 0.93, "cached share {share:.3}");
}

/// The same session with a file that changes every turn, so every read is new (~1.4k tokens of
/// growth a turn): a compaction must bring the context to half the window, so it happens about
/// every four turns (13 here, where taking every snip that saved a tenth of the window made 23),
/// and snips and prunes are recorded as the messages they rewrote, never the whole history.
#[test]
fn a_growing_session_compacts_every_few_turns_and_records_only_edits() {
    let (compactions, share, _, edits) = long_session(true);
    assert!(edits > 0, "no snip or prune was recorded as edits");
    assert!(
        compactions.len() <= 14,
        "compacted {} times: {compactions:?}",
        compactions.len()
    );
    assert!(share >= 0.88, "cached share {share:.3}");
}

/// A model whose context window nobody stated is compacted as if it had a conservative one,
/// and the session says so once, instead of growing until each request is megabytes.
#[test]
fn a_model_without_a_known_window_is_compacted_and_says_so_once() {
    let setup = Setup::new();
    setup.configure_without_window();
    let (compacted, notices) = turns_until_compacted(&setup, 1);
    assert!(compacted > 0, "never compacted in 30 turns");
    // Once for the run that reached the threshold (each run is its own process).
    assert_eq!(notices, 1);
    // Every request stayed within the assumed window.
    for request in setup.mock.requests() {
        assert!(
            request.body.len() / 4 < 32_768,
            "{} bytes",
            request.body.len()
        );
    }
}

/// A model with no configured window whose endpoint's model list says it (OpenRouter's
/// `context_length` here): compacted at that window, not the assumed one, without the
/// "not known" notice; the list is asked once, with the provider's key, and the answer kept.
#[test]
fn a_window_the_endpoints_model_list_gives_is_used_and_asked_once() {
    let setup = Setup::new();
    setup.configure_without_window();
    setup.mock.serve_models(serde_json::json!({"data": [
        {"id": "other-model", "context_length": 1_000_000},
        {"id": "mock-model", "context_length": 16_000}
    ]}));
    let (compacted, notices) = turns_until_compacted(&setup, 3);
    assert!(compacted > 0, "never compacted");
    assert_eq!(notices, 0, "the window was still called unknown");
    let requests = setup.mock.requests();
    let asked = setup.mock.model_lists();
    assert_eq!(asked.len(), 1, "the list was not asked exactly once");
    assert_eq!(
        asked[0].header("authorization"),
        Some("Bearer sk-test"),
        "the list was not asked with the provider's key"
    );
    // Compacted well before the 32k assumed window: every request fits the list's 16k.
    for request in requests.iter().filter(|r| r.method == "POST") {
        assert!(
            request.body.len() / 4 < 16_000,
            "{} bytes: compacted at the assumed window, not the endpoint's",
            request.body.len()
        );
    }
}
