//! The host-side `history` tool end to end: earlier `reasonix run` sessions are saved by the
//! real binary; a later run's scripted model calls `history` (search, then around) and the
//! tool results the next request carries are checked. Global scope, which reaches other
//! workspaces' conversations, is refused headless without a rule and runs with
//! `--allowed-tools history`; `[tools] enabled` switches the tool off.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{self, Env, stderr};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const DECISION: &str =
    "Decision: the cache lives in SQLite with WAL journaling, one database file per workspace.";

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    fn new(extra_config: &str) -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        let config = env.mock_provider(
            "openai",
            &mock.base_url(),
            "sk-test",
            "stall_timeout_seconds = 5",
        );
        env.project_config(&format!("{config}{extra_config}"));
        Setup { env, mock }
    }

    /// `reasonix run --dir <workspace> <args…>`.
    fn run_in(&self, workspace: &Path, args: &[&str]) -> Output {
        let mut all = vec!["run", "--dir", workspace.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = self.env.reasonix(&all);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out
    }

    /// A second workspace beside the first.
    fn other_workspace(&self) -> PathBuf {
        let dir = self.env.root.path().join("other-workspace");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::canonicalize(dir).unwrap()
    }

    fn session_ids(&self, workspace: &Path) -> Vec<String> {
        let out = self.env.reasonix(&[
            "sessions",
            "list",
            "--json",
            "--dir",
            workspace.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let list: Value = serde_json::from_slice(&out.stdout).unwrap();
        list["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect()
    }

    /// The tool results of request `i`, in call order.
    fn results(&self, i: usize) -> Vec<String> {
        let body = self.mock.requests()[i].json();
        support::tool_results("openai", &body)
            .into_iter()
            .map(|(_, content)| content)
            .collect()
    }

    fn offered(&self, i: usize) -> Vec<String> {
        let body = self.mock.requests()[i].json();
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_string())
            .collect()
    }
}

#[test]
fn a_later_run_recalls_an_earlier_decision_with_search_then_around() {
    let s = Setup::new("");
    let ws = s.env.workspace();
    s.mock.enqueue(Reply::text(&[DECISION]));
    s.run_in(&ws, &["how should we store the cache?"]);
    s.mock.enqueue(Reply::text(&[
        "Fixed the typo in the README; nothing else changed.",
    ]));
    s.run_in(&ws, &["fix the typo in the readme"]);
    let ids = s.session_ids(&ws);
    assert_eq!(ids.len(), 2, "{ids:?}");
    // The third run: the model searches, then reads around the hit it was given.
    s.mock.enqueue(Reply::tool_calls(
        &[(
            "c1",
            "history",
            r#"{"operation":"search","query":"sqlite cache decision"}"#,
        )],
        1,
    ));
    // The decision is message 1 (after the user's question) of the first session.
    let first = ids
        .iter()
        .find(|id| transcript_has(&s.env, id, "WAL journaling"))
        .unwrap();
    let hit = format!("{first}#1");
    s.mock.enqueue(Reply::tool_calls(
        &[(
            "c2",
            "history",
            &format!(r#"{{"operation":"around","hit":"{hit}","window":2}}"#),
        )],
        1,
    ));
    s.mock.enqueue(Reply::text(&["We decided on SQLite."]));
    s.run_in(&ws, &["what did we decide about the cache?"]);

    assert!(
        s.offered(2).contains(&"history".to_string()),
        "{:?}",
        s.offered(2)
    );
    let search = &s.results(3)[0];
    assert!(search.contains("WAL journaling"), "{search}");
    assert!(
        search.contains(&hit),
        "the hit id the search gives: {search}"
    );
    assert!(
        !search.contains("typo"),
        "the unrelated session is not a hit: {search}"
    );
    let around = &s.results(4)[1];
    assert!(
        around.contains("how should we store the cache?"),
        "{around}"
    );
    assert!(around.contains("WAL journaling"), "{around}");
    assert!(around.contains("(the hit)"), "{around}");

    // The third run's own session (live while it searched) was not among the hits.
    assert!(!search.contains("what did we decide"), "{search}");
    // The index was stored under the state directory: one entry per saved transcript.
    let entries = index_entries(&s.env.home());
    assert!(entries >= 2, "{entries} index entries");
}

/// How many files an `index/history` directory under `dir` holds.
fn index_entries(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .map(|p| {
            if p.ends_with("index/history") {
                std::fs::read_dir(&p).map(|d| d.count()).unwrap_or(0)
            } else {
                index_entries(&p)
            }
        })
        .sum()
}

/// Whether session `id`'s transcript (anywhere under the home) contains `text`.
fn transcript_has(env: &Env, id: &str, text: &str) -> bool {
    fn walk(dir: &Path, name: &str, text: &str) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        entries.flatten().any(|e| {
            let path = e.path();
            if path.is_dir() {
                walk(&path, name, text)
            } else {
                path.file_name().is_some_and(|n| n == name)
                    && std::fs::read_to_string(&path).is_ok_and(|t| t.contains(text))
            }
        })
    }
    walk(&env.home(), &format!("{id}.jsonl"), text)
}

#[test]
fn global_scope_from_another_workspace_asks_and_runs_when_allowed() {
    let s = Setup::new("");
    let ws = s.env.workspace();
    s.mock.enqueue(Reply::text(&[
        "Noted: the staging deploy key rotates every ninety days.",
    ]));
    s.run_in(&ws, &["remember how the deploy key works"]);

    let other = s.other_workspace();
    let script = |mock: &MockLlm| {
        mock.enqueue(Reply::tool_calls(
            &[
                (
                    "p",
                    "history",
                    r#"{"operation":"search","query":"deploy key rotates"}"#,
                ),
                (
                    "g",
                    "history",
                    r#"{"operation":"search","query":"deploy key rotates","scope":"global"}"#,
                ),
            ],
            1,
        ));
        mock.enqueue(Reply::text(&["done"]));
    };

    // Headless, default permissions: the project scope (this other workspace has no sessions)
    // finds nothing and says how to widen; the global scope is refused, naming what allows it.
    script(&s.mock);
    s.run_in(&other, &["how does the deploy key rotate?"]);
    let results = s.results(2);
    assert!(results[0].starts_with("No matches"), "{}", results[0]);
    assert!(results[0].contains("scope \"global\""), "{}", results[0]);
    assert!(results[1].contains("Permission needed"), "{}", results[1]);
    assert!(
        results[1].contains("--allowed-tools 'history'"),
        "{}",
        results[1]
    );
    assert!(!results[1].contains("ninety"), "{}", results[1]);

    // `acceptEdits` lets file writers through, not this.
    script(&s.mock);
    s.run_in(
        &other,
        &["--permission-mode", "acceptEdits", "how does it rotate?"],
    );
    assert!(
        s.results(4)[1].contains("Permission needed"),
        "{:?}",
        s.results(4)
    );

    // Allowed by a rule: the other workspace's conversation is found.
    script(&s.mock);
    s.run_in(
        &other,
        &["--allowed-tools", "history", "how does it rotate?"],
    );
    let results = s.results(6);
    assert!(
        results[1].contains("rotates every ninety days"),
        "{}",
        results[1]
    );
    assert!(
        results[1].contains(ws.to_str().unwrap()),
        "names the workspace: {}",
        results[1]
    );
}

#[test]
fn tools_enabled_switches_it_off() {
    let s = Setup::new("\n[tools]\nenabled = [\"read_file\"]\n");
    s.mock.enqueue(Reply::text(&["ok"]));
    s.run_in(&s.env.workspace(), &["hi"]);
    assert_eq!(s.offered(0), ["read_file"]);
}
