//! Checkpoints and rewind end to end: real `reasonix run` turns against the mock change files
//! through the built-in writers; `reasonix sessions rewind` puts the tree back to each turn's
//! start byte for byte, its undo brings the later state back, and a symbolic link planted in
//! the workspace does not make the restore write outside it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, shared_artifact_cache, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) struct Setup {
    pub(crate) env: Env,
    pub(crate) mock: MockLlm,
}

impl Setup {
    pub(crate) fn new() -> Setup {
        let env = Env::new();
        let mock = MockLlm::start().unwrap();
        env.project_config(&env.mock_provider(
            "openai",
            &mock.base_url(),
            "sk-test",
            "stall_timeout_seconds = 5\n",
        ));
        Setup { env, mock }
    }

    pub(crate) fn reasonix(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_reasonix"))
            .args(args)
            .current_dir(self.env.project())
            .env("REASONIX_HOME", self.env.home())
            .env("REASONIX_CACHE_HOME", shared_artifact_cache())
            .env_remove("REASONIX_STATE_HOME")
            .env_remove("REASONIX_LOG")
            .env_remove("MOCK_LLM_KEY")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// `reasonix sessions <args…> --dir <workspace>`.
    pub(crate) fn sessions(&self, args: &[&str]) -> Output {
        let ws = self.env.workspace();
        let mut all = vec!["sessions"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--dir", ws.to_str().unwrap()]);
        self.reasonix(&all)
    }

    /// One headless turn in which the model makes `calls`, then answers "done".
    pub(crate) fn turn(&self, prompt: &str, continue_session: bool, calls: &[(&str, &str, &str)]) {
        if !calls.is_empty() {
            self.mock.enqueue(Reply::tool_calls(calls, 2));
        }
        self.mock.enqueue(Reply::text(&["done"]));
        let ws = self.env.workspace();
        let mut args = vec!["run", "--dir", ws.to_str().unwrap(), "--yolo"];
        if continue_session {
            args.push("--continue");
        }
        args.push(prompt);
        let out = self.reasonix(&args);
        assert!(out.status.success(), "{prompt}: {}", stderr(&out));
    }

    pub(crate) fn session_id(&self) -> String {
        let out = self.sessions(&["list", "--json"]);
        let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
        v["sessions"][0]["id"].as_str().unwrap().to_string()
    }
}

/// Every file (with its bytes) and directory under `root`, links as their targets' text.
fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, Some(format!("-> {}", target.display()).into_bytes()));
            } else if meta.is_dir() {
                out.insert(rel, None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn assert_tree(ws: &Path, expected: &BTreeMap<String, Option<Vec<u8>>>, when: &str) {
    let now = tree(ws);
    assert!(
        &now == expected,
        "{when}: tree differs\nnow:      {:?}\nexpected: {:?}",
        now.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
}

const LOGO: &[u8] = &[
    0x89, b'P', b'N', b'G', 0, 0, 0xff, 0xfe, 0x80, 0x00, 1, 2, 3,
];

fn write(path: &str, content: &str) -> String {
    serde_json::json!({ "path": path, "content": content }).to_string()
}

/// Three turns: create in a new directory and modify; move a binary file away (it is
/// deleted at its path) and modify again; modify, create, and run a shell command.
fn three_turns(s: &Setup) -> Vec<BTreeMap<String, Option<Vec<u8>>>> {
    let ws = s.env.workspace();
    std::fs::write(ws.join("keep.txt"), "original\n").unwrap();
    std::fs::write(ws.join("logo.png"), LOGO).unwrap();
    std::fs::write(ws.join("doc.md"), "# doc\n").unwrap();
    let mut starts = vec![tree(&ws)];
    s.turn(
        "turn one",
        false,
        &[
            (
                "c1",
                "write_file",
                &write("src/new/mod.rs", "pub fn a() {}\n"),
            ),
            ("c2", "write_file", &write("keep.txt", "changed in one\n")),
        ],
    );
    starts.push(tree(&ws));
    let mv = serde_json::json!({"source_path": "logo.png", "destination_path": "assets/logo.png"})
        .to_string();
    s.turn(
        "turn two",
        true,
        &[
            ("c3", "move_file", &mv),
            ("c4", "write_file", &write("keep.txt", "changed in two\n")),
        ],
    );
    starts.push(tree(&ws));
    let bash = serde_json::json!({"command": "true"}).to_string();
    s.turn(
        "turn three",
        true,
        &[
            (
                "c5",
                "write_file",
                &write("src/new/mod.rs", "pub fn b() {}\n"),
            ),
            ("c6", "write_file", &write("doc.md", "# doc, rewritten\n")),
            ("c7", "bash", &bash),
        ],
    );
    starts.push(tree(&ws));
    // Every turn changed something: the snapshots differ.
    for pair in starts.windows(2) {
        assert_ne!(pair[0], pair[1]);
    }
    assert!(!ws.join("logo.png").exists());
    starts
}

#[test]
fn rewind_to_each_turn_start_and_undo_round_trip_byte_for_byte() {
    let s = Setup::new();
    let ws = s.env.workspace();
    let states = three_turns(&s);
    let id = s.session_id();
    let fin = &states[3];
    for turn in [3u32, 2, 1] {
        let out = s.sessions(&["rewind", &id, "--turn", &turn.to_string(), "--code"]);
        assert!(out.status.success(), "turn {turn}: {}", stderr(&out));
        assert_tree(
            &ws,
            &states[turn as usize - 1],
            &format!("rewound to turn {turn}"),
        );
        // Turn 3 ran `bash`: every rewind over it says its effects are not tracked.
        assert!(
            stderr(&out).contains("turn 3 ran shell commands"),
            "{}",
            stderr(&out)
        );
        let undo = s.sessions(&["rewind", &id, "--undo"]);
        assert!(undo.status.success(), "undo {turn}: {}", stderr(&undo));
        assert_tree(&ws, fin, &format!("undid the rewind to turn {turn}"));
    }
    // Nothing left to undo.
    let again = s.sessions(&["rewind", &id, "--undo"]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("no rewind to undo"),
        "{}",
        stderr(&again)
    );
    // The objects are content-addressed: the binary file is stored once however often it was
    // snapshotted (turn 2 and the rewinds' own checkpoints).
    let ckpt = session_dir(&s).join(format!("{id}.ckpt"));
    let logos = std::fs::read_dir(ckpt.join("objects"))
        .unwrap()
        .filter(|e| std::fs::read(e.as_ref().unwrap().path()).unwrap() == LOGO)
        .count();
    assert_eq!(logos, 1);
}

/// Rewinds stack: three in a row (the last to before the first turn, which leaves no message)
/// are undone newest first, files and conversation, one step per undo; the emptied session is
/// still listed and found by its first prompt meanwhile.
#[test]
fn undo_walks_back_through_every_rewind_newest_first() {
    let s = Setup::new();
    let ws = s.env.workspace();
    let states = three_turns(&s);
    let id = s.session_id();
    let prompts = |s: &Setup| -> Vec<String> {
        let out = s.sessions(&["export", &id, "--format", "jsonl"]);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|m| m["role"] == "user")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect()
    };
    for turn in ["3", "2", "1"] {
        let out = s.sessions(&["rewind", &id, "--turn", turn]);
        assert!(out.status.success(), "turn {turn}: {}", stderr(&out));
    }
    assert_tree(&ws, &states[0], "rewound to turn 1");
    assert!(prompts(&s).is_empty());
    let listed = s.sessions(&["list"]);
    assert!(stdout(&listed).contains(&id[..8]), "{}", stdout(&listed));
    let found = s.sessions(&["show", "turn one"]);
    assert!(found.status.success(), "{}", stderr(&found));

    let expected: [(&[&str], usize); 3] = [
        (&["turn one"], 1),
        (&["turn one", "turn two"], 2),
        (&["turn one", "turn two", "turn three"], 3),
    ];
    for (want, state) in expected {
        let undo = s.sessions(&["rewind", &id, "--undo"]);
        assert!(undo.status.success(), "{}", stderr(&undo));
        assert_eq!(prompts(&s), want);
        assert_tree(&ws, &states[state], &format!("undone back to {want:?}"));
    }
    let again = s.sessions(&["rewind", &id, "--undo"]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
}

#[test]
fn a_conversation_rewind_drops_the_later_turns_and_its_undo_brings_them_back() {
    let s = Setup::new();
    let ws = s.env.workspace();
    let states = three_turns(&s);
    let id = s.session_id();
    let out = s.sessions(&["rewind", &id, "--turn", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("turn 2's prompt was: turn two"),
        "{}",
        stdout(&out)
    );
    assert_tree(&ws, &states[1], "both rewound to turn 2");
    let prompts = |s: &Setup| -> Vec<String> {
        let out = s.sessions(&["export", &id, "--format", "jsonl"]);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|m| m["role"] == "user")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(prompts(&s), ["turn one"]);
    let undo = s.sessions(&["rewind", &id, "--undo"]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(prompts(&s), ["turn one", "turn two", "turn three"]);
    assert_tree(&ws, &states[3], "undone");

    // Conversation only: the files stay; the next turn is sent without turns 2 and 3.
    let out = s.sessions(&["rewind", &id, "--turn", "2", "--conversation"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_tree(&ws, &states[3], "conversation-only rewind");
    let before = s.mock.requests().len();
    s.turn("turn four", true, &[]);
    let body = s.mock.requests()[before].json();
    let sent: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["turn one", "turn four"]);
    // The new turn got a fresh number: rewinding its files is turn 4, not a reused 2.
    let out = s.sessions(&["rewind", &id, "--turn", "4", "--code"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_link_planted_before_the_rewind_does_not_make_it_write_outside() {
    let s = Setup::new();
    let ws = s.env.workspace();
    let states = three_turns(&s);
    let id = s.session_id();
    let outside = s.env.user_home().join("outside");
    std::fs::create_dir_all(outside.join("new")).unwrap();
    std::fs::write(outside.join("victim"), "victim\n").unwrap();
    std::fs::write(outside.join("new/mod.rs"), "outside\n").unwrap();
    // keep.txt becomes a link to a file outside; src becomes a link to a directory outside.
    std::fs::remove_file(ws.join("keep.txt")).unwrap();
    symlink(outside.join("victim"), ws.join("keep.txt")).unwrap();
    std::fs::remove_dir_all(ws.join("src")).unwrap();
    symlink(&outside, ws.join("src")).unwrap();
    let before_outside = tree(&outside);

    let out = s.sessions(&["rewind", &id, "--turn", "1", "--code"]);
    // src/new/mod.rs goes through the link: not restored, and said so.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not restored: `src/new/mod.rs` goes through a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tree(&outside), before_outside, "nothing outside changed");
    // The link at keep.txt itself was replaced by the checkpointed file.
    let meta = std::fs::symlink_metadata(ws.join("keep.txt")).unwrap();
    assert!(meta.is_file());
    assert_eq!(std::fs::read(ws.join("keep.txt")).unwrap(), b"original\n");
    assert_eq!(std::fs::read(ws.join("logo.png")).unwrap(), LOGO);
    assert_eq!(
        std::fs::read(ws.join("doc.md")).unwrap(),
        states[0]["doc.md"].clone().unwrap()
    );
}

fn session_dir(s: &Setup) -> PathBuf {
    let out = s.sessions(&["list", "--json"]);
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    PathBuf::from(v["sessions"][0]["path"].as_str().unwrap())
        .parent()
        .unwrap()
        .to_path_buf()
}
