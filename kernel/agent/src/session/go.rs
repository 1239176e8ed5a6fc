//! Sessions of the original Reasonix (Go), found and converted into ours.
//!
//! The original keeps a session as `<id>.jsonl`, one `provider.Message` JSON object per line
//! (`role`, `content`, `reasoning_content`, `tool_calls[{id, name, arguments}]`,
//! `tool_call_id`, `local_only`, and many fields we do not need), beside sidecars
//! (`<id>.jsonl.meta`, `<id>.ckpt/` …) that are not converted. Its directories: `sessions-v4`
//! under the state root and under `projects/<project>/`, and the older `<state>/sessions`.
//!
//! These files are untrusted input: every line is checked, sizes are bounded, and an error
//! names the file and the line. Nothing here panics on any input (property-tested).

use super::{FORMAT_VERSION, Record, SessionStore, civil_from_days, now_ms};
use reasonix_core::types::{Message, Role, ToolCall};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The directory name of the original's current session store.
pub const GO_DIR: &str = "sessions-v4";
/// The original's older, global session directory (never written by this build).
const GO_OLD_DIR: &str = "sessions";
/// Largest transcript converted.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Longest line of a transcript.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;
/// Most messages in one transcript.
pub const MAX_MESSAGES: usize = 100_000;
/// Directory entries looked at per directory, and project directories looked into.
const MAX_ENTRIES: usize = 10_000;
const MAX_PROJECTS: usize = 2_000;

#[derive(Debug, thiserror::Error)]
pub enum GoSessionError {
    #[error("{file}:{line}: {message}")]
    Line {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    File { file: String, message: String },
    #[error("{file}: cannot read: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: cannot write the converted session: {source}")]
    Write {
        file: String,
        #[source]
        source: std::io::Error,
    },
}

/// One message of an original transcript, converted, with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub messages: Vec<Message>,
    /// Lines left out on purpose: system prompts and the original's local-only notes.
    pub skipped: usize,
}

/// Convert the text of one original transcript. `file` names it in errors.
pub fn parse(file: &Path, text: &str) -> Result<Converted, GoSessionError> {
    let shown = file.display().to_string();
    let mut messages = Vec::new();
    let mut skipped = 0;
    for (index, line) in text.split('\n').enumerate() {
        let number = index + 1;
        let at = |message: String| GoSessionError::Line {
            file: shown.clone(),
            line: number,
            message,
        };
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        if line.len() > MAX_LINE_BYTES {
            return Err(at(format!(
                "the line is longer than {} MiB",
                MAX_LINE_BYTES >> 20
            )));
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|e| at(format!("not JSON (column {}): {e}", e.column())))?;
        let Value::Object(object) = value else {
            return Err(at(
                "not a JSON object (expected one message per line)".into()
            ));
        };
        match message(&object).map_err(at)? {
            Some(message) => {
                if messages.len() == MAX_MESSAGES {
                    return Err(at(format!("more than {MAX_MESSAGES} messages")));
                }
                messages.push(message);
            }
            None => skipped += 1,
        }
    }
    Ok(Converted { messages, skipped })
}

/// One line as a message; `None` for what is not part of the conversation.
fn message(object: &Map<String, Value>) -> Result<Option<Message>, String> {
    let role = match object.get("role") {
        Some(Value::String(role)) => role.as_str(),
        Some(_) => return Err("`role` is not a string".into()),
        None => return Err("no `role`: not a message of the original's transcript".into()),
    };
    let role = match role {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        // Rebuilt by each session from its configuration; never replayed.
        "system" => return Ok(None),
        other => {
            return Err(format!(
                "unknown role `{}`",
                other.chars().take(40).collect::<String>()
            ));
        }
    };
    if object.get("local_only") == Some(&Value::Bool(true)) {
        return Ok(None);
    }
    let content = optional_string(object, "content")?.unwrap_or_default();
    let reasoning = optional_string(object, "reasoning_content")?.filter(|r| !r.is_empty());
    let tool_calls = match object.get("tool_calls") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(calls)) => calls
            .iter()
            .enumerate()
            .map(|(i, call)| tool_call(call).map_err(|e| format!("tool_calls[{i}]: {e}")))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`tool_calls` is not an array".into()),
    };
    if role != Role::Assistant && !tool_calls.is_empty() {
        return Err("only an assistant message may carry `tool_calls`".into());
    }
    let tool_call_id = optional_string(object, "tool_call_id")?.filter(|id| !id.is_empty());
    if role == Role::Tool && tool_call_id.is_none() {
        return Err("a tool message without `tool_call_id`".into());
    }
    let mut message = Message {
        role,
        content,
        reasoning: None,
        reasoning_state: None,
        tool_calls,
        tool_call_id: if role == Role::Tool {
            tool_call_id
        } else {
            None
        },
        raw_content: None,
        images: Vec::new(),
    };
    if role == Role::Assistant {
        message.reasoning = reasoning;
    }
    Ok(Some(message))
}

fn tool_call(call: &Value) -> Result<ToolCall, String> {
    let Value::Object(call) = call else {
        return Err("not an object".into());
    };
    let id = optional_string(call, "id")?.filter(|s| !s.is_empty());
    let name = optional_string(call, "name")?.filter(|s| !s.is_empty());
    let (Some(id), Some(name)) = (id, name) else {
        return Err("`id` and `name` must be non-empty strings".into());
    };
    let arguments = match call.get("arguments") {
        None | Some(Value::Null) => "{}".to_string(),
        Some(Value::String(text)) => text.clone(),
        Some(value @ Value::Object(_)) => value.to_string(),
        Some(_) => return Err("`arguments` is neither a JSON text nor an object".into()),
    };
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

fn optional_string(object: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("`{key}` is not a string")),
    }
}

/// The original's transcripts under the state root: `<state>/sessions-v4/*.jsonl`,
/// `<state>/projects/*/sessions-v4/*.jsonl` and `<state>/sessions/*.jsonl`, sorted. Bounded;
/// unreadable directories are passed over.
pub fn find(state: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![state.join(GO_DIR), state.join(GO_OLD_DIR)];
    if let Ok(projects) = std::fs::read_dir(state.join("projects")) {
        dirs.extend(
            projects
                .take(MAX_PROJECTS)
                .filter_map(Result::ok)
                .map(|entry| entry.path().join(GO_DIR)),
        );
    }
    let mut found: Vec<PathBuf> = dirs.iter().flat_map(|dir| transcripts_in(dir)).collect();
    found.sort();
    found
}

/// The `*.jsonl` files directly in `dir` (not the sidecars, not sub-agents' directories).
pub fn transcripts_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .take(MAX_ENTRIES)
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension().is_some_and(|e| e == "jsonl")
                && !path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().ends_with(".archive.jsonl"))
        })
        .collect();
    found.sort();
    found
}

/// What `sessions list` and `--continue` say when this workspace has no session but the
/// original's are there; `None` when there are none.
pub fn hint(state: &Path) -> Option<String> {
    let found = find(state);
    let count = found.len();
    if count == 0 {
        return None;
    }
    let mut dirs: Vec<String> = found
        .iter()
        .filter_map(|p| p.parent())
        .map(|d| d.display().to_string())
        .collect();
    dirs.dedup();
    let shown: Vec<String> = dirs.iter().take(3).cloned().collect();
    let more = match dirs.len().saturating_sub(3) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "{count} session{} of the original Reasonix (Go) {} in {}{more}; `reasonix sessions import` converts them into sessions of this workspace",
        if count == 1 { "" } else { "s" },
        if count == 1 { "is" } else { "are" },
        shown.join(", ")
    ))
}

/// What importing one transcript did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Imported {
    /// A new session of the workspace, with its message count.
    New { id: String, messages: usize },
    /// A session of that id is already there (imported before).
    Exists { id: String },
    /// Nothing said in it: not worth a session.
    Empty,
}

/// Convert the transcript `file` into a session of `store`'s workspace. The session keeps the
/// original's id when it is one this build can use, so importing again finds it there. The
/// new transcript is written to a temporary file and renamed without replacing anything.
pub fn import(store: &SessionStore, file: &Path) -> Result<Imported, GoSessionError> {
    let shown = file.display().to_string();
    let read_error = |source| GoSessionError::Read {
        file: shown.clone(),
        source,
    };
    let size = std::fs::metadata(file).map_err(read_error)?.len();
    if size > MAX_FILE_BYTES {
        return Err(GoSessionError::File {
            file: shown,
            message: format!("larger than {} MiB; not converted", MAX_FILE_BYTES >> 20),
        });
    }
    let bytes = std::fs::read(file).map_err(read_error)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        GoSessionError::Line {
            file: shown.clone(),
            line,
            message: "not UTF-8 text".into(),
        }
    })?;
    if text
        .lines()
        .next()
        .is_some_and(|first| first.contains("\"type\":\"session\""))
    {
        return Err(GoSessionError::File {
            file: shown,
            message: "already a Reasonix session (this build's format), not the original's".into(),
        });
    }
    let converted = parse(file, &text)?;
    if !converted.messages.iter().any(|m| m.role == Role::User) {
        return Ok(Imported::Empty);
    }
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let id = usable_id(&stem)
        .unwrap_or_else(|| format!("go-{}", &reasonix_core::sha256_hex(stem.as_bytes())[..16]));
    let created_ms = created_from_id(&id).unwrap_or_else(now_ms);
    let model = model_from_id(&id).unwrap_or_else(|| "unknown".into());
    let target = store.dir().join(format!("{id}.jsonl"));
    if target.exists() {
        return Ok(Imported::Exists { id });
    }
    let mut out = String::new();
    let mut push = |record: &Record| {
        if let Ok(line) = serde_json::to_string(record) {
            out.push_str(&line);
            out.push('\n');
        }
    };
    push(&Record::Session {
        version: FORMAT_VERSION,
        id: id.clone(),
        workspace: store.workspace.display().to_string(),
        provider: "reasonix-go".into(),
        model,
        created_ms,
        parent: None,
        parent_turn: None,
    });
    let mut turn = 0;
    for message in &converted.messages {
        if message.role == Role::User {
            turn += 1;
            push(&Record::Turn {
                turn,
                at_ms: created_ms,
            });
        }
        push(&Record::Message {
            message: message.clone(),
            at_ms: created_ms,
        });
    }
    let write_error = |source| GoSessionError::Write {
        file: shown.clone(),
        source,
    };
    std::fs::create_dir_all(store.dir()).map_err(write_error)?;
    let mut tmp = tempfile::NamedTempFile::new_in(store.dir()).map_err(write_error)?;
    std::io::Write::write_all(&mut tmp, out.as_bytes()).map_err(write_error)?;
    tmp.as_file().sync_all().map_err(write_error)?;
    match tmp.persist_noclobber(&target) {
        Ok(_) => Ok(Imported::New {
            id,
            messages: converted.messages.len(),
        }),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            Ok(Imported::Exists { id })
        }
        Err(e) => Err(write_error(e.error)),
    }
}

/// The original's id when it can name one of our files: letters, digits, `.`, `-`, `_`.
pub(crate) fn usable_id(stem: &str) -> Option<String> {
    let ok = !stem.is_empty()
        && stem.len() <= 120
        && !stem.starts_with('.')
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    ok.then(|| stem.to_string())
}

/// `YYYYMMDD-HHMMSS…` at the start of an id, as milliseconds since 1970.
fn created_from_id(id: &str) -> Option<u64> {
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = id.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    if id.as_bytes().get(8) != Some(&b'-') {
        return None;
    }
    let (y, m, d) = (digits(0..4)?, digits(4..6)?, digits(6..8)?);
    let (hh, mm, ss) = (digits(9..11)?, digits(11..13)?, digits(13..15)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    // Days from civil (the inverse of `civil_from_days`), checked by round trip.
    let (yy, mp) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let (ry, rm, rd) = civil_from_days(days);
    if (ry, i64::from(rm), i64::from(rd)) != (y, m, d) || days < 0 {
        return None;
    }
    let secs = days * 86_400 + hh * 3600 + mm * 60 + ss;
    u64::try_from(secs).ok()?.checked_mul(1000)
}

/// The model label at the end of an id `YYYYMMDD-HHMMSS.<nanoseconds>-<model label>`.
fn model_from_id(id: &str) -> Option<String> {
    let (_, rest) = id.split_once('.')?;
    let (nanos, label) = rest.split_once('-')?;
    (nanos.bytes().all(|b| b.is_ascii_digit()) && !label.is_empty()).then(|| label.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_text(text: &str) -> Result<Converted, GoSessionError> {
        parse(Path::new("/s/x.jsonl"), text)
    }

    #[test]
    fn converts_messages_tool_calls_and_results() {
        let text = concat!(
            r#"{"role":"system","content":"you are"}"#,
            "\n",
            r#"{"role":"user","content":"list files","createdAt":"2026-01-01T00:00:00Z","images":[]}"#,
            "\r\n\n",
            r#"{"role":"assistant","content":"","reasoning_content":"think","tool_calls":[{"id":"c1","name":"ls","arguments":"{\"path\":\".\"}","resolved_read_only":true}]}"#,
            "\n",
            r#"{"role":"tool","tool_call_id":"c1","name":"ls","content":"a.txt"}"#,
            "\n",
            r#"{"role":"assistant","content":"one file","local_only":false}"#,
            "\n",
            r#"{"role":"assistant","content":"(note)","local_only":true}"#,
            "\n",
        );
        let converted = parse_text(text).unwrap();
        assert_eq!(converted.skipped, 2);
        let m = &converted.messages;
        assert_eq!(m.len(), 4);
        assert_eq!(
            (m[0].role, m[0].content.as_str()),
            (Role::User, "list files")
        );
        assert_eq!(m[1].reasoning.as_deref(), Some("think"));
        assert_eq!(
            m[1].tool_calls,
            vec![ToolCall {
                id: "c1".into(),
                name: "ls".into(),
                arguments: r#"{"path":"."}"#.into()
            }]
        );
        assert_eq!(m[2].tool_call_id.as_deref(), Some("c1"));
        assert_eq!(m[3].content, "one file");
    }

    #[test]
    fn errors_name_the_file_and_the_line() {
        for (text, line, what) in [
            (
                "{\"role\":\"user\",\"content\":\"a\"}\n{oops",
                2,
                "not JSON",
            ),
            ("\n\n[1,2]", 3, "not a JSON object"),
            (r#"{"type":"turn","turn":1}"#, 1, "no `role`"),
            (r#"{"role":"wizard"}"#, 1, "unknown role `wizard`"),
            (
                r#"{"role":"user","content":5}"#,
                1,
                "`content` is not a string",
            ),
            (
                r#"{"role":"tool","content":"x"}"#,
                1,
                "without `tool_call_id`",
            ),
            (
                r#"{"role":"assistant","tool_calls":[{"id":"","name":"x"}]}"#,
                1,
                "tool_calls[0]: `id` and `name`",
            ),
            (
                r#"{"role":"user","tool_calls":[{"id":"a","name":"x"}]}"#,
                1,
                "only an assistant",
            ),
        ] {
            let error = parse_text(text).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("/s/x.jsonl:{line}: ")) && error.contains(what),
                "{text:?}: {error}"
            );
        }
    }

    #[test]
    fn ids_give_the_date_and_the_model() {
        let id = "20260105-093000.123456789-deepseek-v4-flash";
        assert_eq!(created_from_id(id), Some(1_767_605_400_000));
        assert_eq!(model_from_id(id).as_deref(), Some("deepseek-v4-flash"));
        assert_eq!(created_from_id("20261305-093000.1-x"), None);
        assert_eq!(created_from_id("20260230-000000.1-x"), None);
        assert_eq!(created_from_id("short"), None);
        assert_eq!(usable_id("../etc/passwd"), None);
        assert_eq!(usable_id(".hidden"), None);
        assert_eq!(usable_id(id).as_deref(), Some(id));
    }

    #[test]
    fn import_writes_a_session_once_and_leaves_nothing_half_written() {
        let state = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let go = state.path().join("projects").join("p").join(GO_DIR);
        std::fs::create_dir_all(&go).unwrap();
        let file = go.join("20260105-093000.5-deepseek-v4-flash.jsonl");
        std::fs::write(
            &file,
            "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"hello\"}\n",
        )
        .unwrap();
        std::fs::write(go.join("x.jsonl.meta"), "{}").unwrap();
        assert_eq!(find(state.path()), vec![file.clone()]);
        assert!(
            hint(state.path())
                .unwrap()
                .contains("1 session of the original")
        );

        let store = SessionStore::new(state.path(), workspace.path());
        let id = "20260105-093000.5-deepseek-v4-flash".to_string();
        assert_eq!(
            import(&store, &file).unwrap(),
            Imported::New {
                id: id.clone(),
                messages: 2
            }
        );
        assert_eq!(
            import(&store, &file).unwrap(),
            Imported::Exists { id: id.clone() }
        );
        let listed = store.list().unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].id.as_str(), listed[0].messages),
            (id.as_str(), 2)
        );
        assert_eq!(listed[0].title, "hi");
        assert_eq!(listed[0].model, "deepseek-v4-flash");
        let loaded = super::super::load(&store.transcript(&id)).unwrap();
        assert_eq!(loaded.timeline.last_turn, 1);

        // A broken file converts nothing and leaves no file behind.
        let bad = go.join("bad.jsonl");
        std::fs::write(&bad, "{\"role\":\"user\",\"content\":\"a\"}\nnot json\n").unwrap();
        let error = import(&store, &bad).unwrap_err().to_string();
        assert!(error.contains("bad.jsonl:2: not JSON"), "{error}");
        assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), 1);
        // Our own transcript is not taken for the original's.
        let ours = store.transcript(&id);
        assert!(
            import(&store, &ours)
                .unwrap_err()
                .to_string()
                .contains("already a Reasonix session")
        );
    }

    proptest! {
        #[test]
        fn parsing_never_panics(text in "\\PC{0,400}") {
            let _ = parse_text(&text);
        }

        #[test]
        fn parsing_message_like_lines_never_panics_and_keeps_what_it_accepts(
            lines in proptest::collection::vec(
                (
                    prop_oneof![Just("user"), Just("assistant"), Just("tool"), Just("system"), Just("x")],
                    proptest::option::of("\\PC{0,20}"),
                    proptest::option::of("[a-z0-9]{0,4}"),
                    any::<bool>(),
                ),
                0..12,
            ),
        ) {
            let text: String = lines
                .iter()
                .map(|(role, content, call, local)| {
                    let mut m = serde_json::json!({"role": role, "local_only": local});
                    if let Some(c) = content { m["content"] = Value::from(c.clone()); }
                    if let Some(id) = call {
                        m["tool_call_id"] = Value::from(id.clone());
                        m["tool_calls"] = serde_json::json!([{"id": id, "name": "t", "arguments": {"a": 1}}]);
                    }
                    m.to_string() + "\n"
                })
                .collect();
            if let Ok(converted) = parse_text(&text) {
                prop_assert!(converted.messages.len() + converted.skipped <= lines.len());
                for m in &converted.messages {
                    prop_assert!(m.role != Role::System);
                    prop_assert!(m.role == Role::Assistant || m.tool_calls.is_empty());
                    prop_assert!(m.role != Role::Tool || m.tool_call_id.is_some());
                }
            }
        }
    }
}
