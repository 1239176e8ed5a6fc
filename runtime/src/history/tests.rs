//! The tool as the agent calls it, over real session files written by [`SessionStore`].

use super::*;
use reasonix_agent::session::SessionStore;
use reasonix_core::types::{Message, Role};

fn context(workspace: &Path) -> ToolContext {
    ToolContext {
        call_id: "c1".into(),
        workspace: workspace.to_path_buf(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    }
}

/// A finished session of `workspace` saying `texts` (user, assistant, user, …).
fn saved(state: &Path, workspace: &Path, texts: &[&str]) -> String {
    let store = SessionStore::new(state, workspace);
    let mut writer = store.create("p", "m").unwrap();
    for (i, text) in texts.iter().enumerate() {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        writer.message(&Message::text(role, *text)).unwrap();
    }
    writer.id().to_string()
}

fn call(tool: &HistoryTool, workspace: &Path, args: &str) -> Result<String, CallError> {
    tool.invoke(args, &context(workspace))
}

#[test]
fn search_then_around_finds_an_earlier_decision() {
    let state = tempfile::tempdir().unwrap();
    let ws = Path::new("/work/alpha");
    saved(
        state.path(),
        ws,
        &[
            "how should we store the cache?",
            "Decision: keep the cache in SQLite, WAL mode, one file per workspace.",
            "ok",
        ],
    );
    let id = saved(
        state.path(),
        ws,
        &["fix the flaky test", "fixed by waiting for the port"],
    );
    let tool = HistoryTool::new(state.path());

    let out = call(
        &tool,
        ws,
        r#"{"operation":"search","query":"sqlite cache decision"}"#,
    )
    .unwrap();
    assert!(out.contains("#1 · "), "{out}");
    assert!(out.contains("keep the cache in SQLite"), "{out}");
    assert!(!out.contains("flaky"), "{out}");
    let hit = out
        .split_whitespace()
        .find(|w| w.contains("#1"))
        .unwrap()
        .to_string();

    let window = call(
        &tool,
        ws,
        &format!(r#"{{"operation":"around","hit":"{hit}","window":1}}"#),
    )
    .unwrap();
    assert!(
        window.contains("how should we store the cache?"),
        "{window}"
    );
    assert!(window.contains("#1 assistant"), "{window}");
    assert!(window.contains("(the hit)"), "{window}");
    assert!(window.contains("messages 0–2 of 3"), "{window}");

    // By session and message number too.
    let window = call(
        &tool,
        ws,
        &format!(r#"{{"operation":"around","session":"{id}","message":1,"window":0}}"#),
    )
    .unwrap();
    assert!(window.contains("waiting for the port"), "{window}");
    assert!(!window.contains("fix the flaky test"), "{window}");
}

#[test]
fn nothing_found_says_how_to_retry() {
    let state = tempfile::tempdir().unwrap();
    let ws = Path::new("/work/alpha");
    saved(state.path(), ws, &["hello there"]);
    let tool = HistoryTool::new(state.path());
    let out = call(&tool, ws, r#"{"operation":"search","query":"kubernetes"}"#).unwrap();
    assert!(out.starts_with("No matches"), "{out}");
    assert!(out.contains("rarer"), "{out}");
    assert!(out.contains("scope \"global\""), "{out}");
}

#[test]
fn project_scope_sees_only_this_workspace_and_global_sees_all() {
    let state = tempfile::tempdir().unwrap();
    let here = Path::new("/work/alpha");
    let there = Path::new("/work/beta");
    saved(
        state.path(),
        there,
        &["the beta deploy token lives in vault"],
    );
    let tool = HistoryTool::new(state.path());
    let out = call(
        &tool,
        here,
        r#"{"operation":"search","query":"vault token"}"#,
    )
    .unwrap();
    assert!(out.starts_with("No matches"), "{out}");
    let out = call(
        &tool,
        here,
        r#"{"operation":"search","query":"vault token","scope":"global"}"#,
    )
    .unwrap();
    assert!(out.contains("lives in vault"), "{out}");
    assert!(out.contains("workspace /work/beta"), "{out}");
    let hit = out.split_whitespace().find(|w| w.contains("#0")).unwrap();
    // A hit of another workspace is not readable with the project scope.
    let err = call(
        &tool,
        here,
        &format!(r#"{{"operation":"around","hit":"{hit}"}}"#),
    )
    .unwrap_err();
    assert!(err.to_string().contains("scope \"global\""), "{err}");
    assert!(
        call(
            &tool,
            here,
            &format!(r#"{{"operation":"around","hit":"{hit}","scope":"global"}}"#)
        )
        .is_ok()
    );
}

#[test]
fn the_session_being_written_is_not_searched_but_its_archive_is() {
    let state = tempfile::tempdir().unwrap();
    let ws = Path::new("/work/alpha");
    let store = SessionStore::new(state.path(), ws);
    let mut live = store.create("p", "m").unwrap();
    live.message(&Message::text(Role::User, "current zebra talk"))
        .unwrap();
    let archive = store.dir().join(format!("{}.archive.jsonl", live.id()));
    std::fs::write(
        &archive,
        "{\"type\":\"message\",\"role\":\"user\",\"content\":\"archived zebra talk\",\"at_ms\":1}\n",
    )
    .unwrap();
    let tool = HistoryTool::new(state.path());
    let out = call(&tool, ws, r#"{"operation":"search","query":"zebra"}"#).unwrap();
    assert!(out.contains("archived zebra talk"), "{out}");
    assert!(!out.contains("current zebra talk"), "{out}");
    assert!(out.contains("#archive-0"), "{out}");
    // Once the session is closed (another process's, or a later run), it is searched.
    drop(live);
    let out = call(&tool, ws, r#"{"operation":"search","query":"zebra"}"#).unwrap();
    assert!(out.contains("current zebra talk"), "{out}");
}

#[test]
fn results_are_bounded() {
    let state = tempfile::tempdir().unwrap();
    let ws = Path::new("/work/alpha");
    let huge = format!("needle {}", "word ".repeat(50_000));
    let texts: Vec<&str> = std::iter::repeat_n(huge.as_str(), 30).collect();
    saved(state.path(), ws, &texts);
    let tool = HistoryTool::new(state.path());
    let out = call(
        &tool,
        ws,
        r#"{"operation":"search","query":"needle","limit":100}"#,
    )
    .unwrap();
    assert!(out.len() <= 13 * 1024, "{}", out.len());
    assert_eq!(out.matches("\n[").count(), MAX_LIMIT, "{out}");
    let hit = out.split_whitespace().find(|w| w.contains('#')).unwrap();
    let window = call(
        &tool,
        ws,
        &format!(r#"{{"operation":"around","hit":"{hit}","window":50}}"#),
    )
    .unwrap();
    assert!(window.len() <= 25 * 1024, "{}", window.len());
    assert!(window.contains("more characters"), "{window}");
}

#[test]
fn bad_arguments_say_what_was_wrong() {
    let state = tempfile::tempdir().unwrap();
    let tool = HistoryTool::new(state.path());
    let ws = Path::new("/w");
    for (args, says) in [
        (r#"{"operation":"find","query":"x"}"#, "`operation` must be"),
        (r#"{"operation":"search"}"#, "needs a `query`"),
        (
            r#"{"operation":"search","query":"  ,, "}"#,
            "needs a `query`",
        ),
        (
            r#"{"operation":"search","query":"x","scope":"everywhere"}"#,
            "`scope` must be",
        ),
        (
            r#"{"operation":"search","query":"x","limit":-1}"#,
            "`limit` must be",
        ),
        (r#"{"operation":"around"}"#, "needs `hit`"),
        (r#"{"operation":"around","hit":"nohash"}"#, "`hit` must be"),
        (r#"{"operation":"around","session":"s"}"#, "needs `message`"),
        (
            r#"{"operation":"around","session":"../../etc","message":0}"#,
            "no saved session",
        ),
        ("not json", "not valid JSON"),
    ] {
        let err = call(&tool, ws, args).unwrap_err().to_string();
        assert!(err.contains(says), "{args}: {err}");
    }
}

#[test]
fn only_the_project_scope_is_read_only() {
    let state = tempfile::tempdir().unwrap();
    let tool = HistoryTool::new(state.path());
    assert!(tool.spec().read_only);
    for (args, read_only) in [
        (r#"{"operation":"search","query":"x"}"#, true),
        (
            r#"{"operation":"search","query":"x","scope":"project"}"#,
            true,
        ),
        (r#"{"operation":"search","query":"x","scope":null}"#, true),
        (
            r#"{"operation":"search","query":"x","scope":"global"}"#,
            false,
        ),
        (
            r#"{"operation":"search","query":"x","scope":"GLOBAL"}"#,
            false,
        ),
        (r#"{"operation":"search","query":"x","scope":1}"#, false),
    ] {
        let value: Value = serde_json::from_str(args).unwrap();
        assert_eq!(tool.wider_reach(&value).is_none(), read_only, "{args}");
    }
}

#[test]
fn cjk_queries_find_cjk_messages() {
    let state = tempfile::tempdir().unwrap();
    let ws = Path::new("/work/alpha");
    saved(state.path(), ws, &["我们决定使用数据库缓存", "好的"]);
    saved(state.path(), ws, &["今天天气很好"]);
    let tool = HistoryTool::new(state.path());
    let out = call(&tool, ws, r#"{"operation":"search","query":"数据库"}"#).unwrap();
    assert!(out.contains("我们决定使用数据库缓存"), "{out}");
    assert!(!out.contains("天气"), "{out}");
}
