//! The `history` tool: BM25 search over Reasonix's saved sessions, so the model can recall what
//! an earlier session decided or said. It reads Reasonix's own state
//! (`<state>/projects/<key>/sessions/*.jsonl` and the `<id>.archive.jsonl` files compaction
//! leaves beside them), which no plugin can see, so it is served by the host (ADR 0024).
//!
//! - `scope: "project"` (default) searches this workspace's sessions: a reader, it runs without
//!   asking. `scope: "global"` searches every workspace's — other projects' conversations and
//!   whatever secrets they hold — so such a call is not read-only for the permission policy
//!   ([`Tool::wider_reach`]) and asks like a writer (`ask`, `acceptEdits`; refused headless
//!   without a rule such as `--allowed-tools history`).
//! - The session this process is writing (its lock holds our pid) is not searched: it is in the
//!   model's context already. What compaction archived of it is.
//! - The index is built on first use, then brought up to date on each call by reading only what
//!   was appended ([`store`]); nothing happens at start-up.

mod index;
mod render;
mod scan;
mod store;
pub mod tokenize;

use reasonix_agent::session::workspace_key;
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::tool::{Effects, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolSpec};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use store::Store;

/// The tool's name (rules and `[tools] enabled` use it).
pub const NAME: &str = "history";
/// Hits returned when the call does not say; the most a call may ask for.
pub const DEFAULT_LIMIT: usize = 5;
pub const MAX_LIMIT: usize = 20;
/// Messages on each side of the one asked for in `around`, by default and at most.
pub const DEFAULT_WINDOW: usize = 3;
pub const MAX_WINDOW: usize = 8;
/// The longest query read (characters) and the most distinct terms scored.
pub const MAX_QUERY_CHARS: usize = 1_000;
pub const MAX_QUERY_TERMS: usize = 32;
/// After the best hit, hits scoring below this share of it are dropped.
pub const RELATIVE_FLOOR: f64 = 0.3;

/// The `history` tool over the state directory `state`.
pub struct HistoryTool {
    spec: ToolSpec,
    state: PathBuf,
    store: Mutex<Store>,
}

/// What a call asks for.
#[derive(Debug, Clone, PartialEq)]
enum Request {
    Search {
        query: String,
        global: bool,
        limit: usize,
    },
    Around {
        session: String,
        message: usize,
        archive: bool,
        global: bool,
        window: usize,
    },
}

impl HistoryTool {
    pub fn new(state: &Path) -> HistoryTool {
        HistoryTool {
            spec: spec(),
            state: state.to_path_buf(),
            store: Mutex::new(Store::new(state.join("index").join("history"))),
        }
    }

    /// The session directories a scope covers.
    fn session_dirs(&self, workspace: &Path, global: bool) -> Vec<PathBuf> {
        let projects = self.state.join("projects");
        if !global {
            return vec![projects.join(workspace_key(workspace)).join("sessions")];
        }
        let Ok(entries) = std::fs::read_dir(&projects) else {
            return Vec::new();
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path().join("sessions"))
            .collect();
        dirs.sort();
        dirs
    }

    fn run(&self, request: &Request, workspace: &Path) -> Result<String, CallError> {
        let global = match request {
            Request::Search { global, .. } | Request::Around { global, .. } => *global,
        };
        let dirs = self.session_dirs(workspace, global);
        let mut store = self.store.lock().unwrap_or_else(|e| e.into_inner());
        let sources: BTreeSet<PathBuf> = store.refresh(&dirs).into_iter().collect();
        let live = live_sessions(&dirs);
        let in_scope = |f: &index::FileIndex| {
            sources.contains(&f.source) && (f.archive || !live.contains(&f.source))
        };
        match request {
            Request::Search { query, limit, .. } => {
                let hits = store.index.search(query, &in_scope, *limit, RELATIVE_FLOOR);
                Ok(render::search(&store.index, &hits, query, global))
            }
            Request::Around {
                session,
                message,
                archive,
                window,
                ..
            } => {
                let file = store
                    .index
                    .files()
                    .map(|(_, f)| f)
                    .find(|f| in_scope(f) && f.session == *session && f.archive == *archive)
                    .ok_or_else(|| {
                        CallError::Plugin(PluginError::NotFound(format!(
                            "no saved session `{session}`{} in {}; use an id from a search{}",
                            if *archive { " archive" } else { "" },
                            if global { "any workspace" } else { "this project" },
                            if global {
                                ""
                            } else {
                                " (a hit found with scope \"global\" needs scope \"global\" here too)"
                            }
                        )))
                    })?;
                render::around(file, *message, *window)
            }
        }
    }
}

/// Transcripts a live process of ours is writing (their `<id>.lock` holds our pid): the
/// current session, already in the model's context.
fn live_sessions(dirs: &[PathBuf]) -> BTreeSet<PathBuf> {
    let ours = std::process::id().to_string();
    let mut live = BTreeSet::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "lock")
                && entry.file_type().is_ok_and(|t| t.is_file())
                && std::fs::read_to_string(&path).is_ok_and(|pid| pid.trim() == ours)
            {
                live.insert(path.with_extension("jsonl"));
            }
        }
    }
    live
}

impl Tool for HistoryTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        "reasonix"
    }

    fn effects(&self) -> Effects {
        Effects::default()
    }

    fn wider_reach(&self, arguments: &Value) -> Option<String> {
        // Anything but the project scope (misspelt included) is decided as the wider call.
        let project = match arguments.get("scope") {
            None | Some(Value::Null) => true,
            Some(scope) => scope.as_str() == Some("project"),
        };
        (!project).then(|| {
            "`scope: \"global\"` searches the saved sessions of every workspace (other projects' conversations)".to_string()
        })
    }

    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        let request = parse(arguments)?;
        self.run(&request, &context.workspace)
    }

    fn preview(
        &self,
        _arguments: &str,
        _context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

fn spec() -> ToolSpec {
    let parameters = json!({
        "type": "object",
        "properties": {
            "operation": {
                "type": "string",
                "enum": ["search", "around"],
                "description": "\"search\" ranks saved messages for `query`; \"around\" reads the messages around one hit."
            },
            "query": {
                "type": "string",
                "description": "search: the words to look for; rare, specific words (names, identifiers, error text) work best."
            },
            "scope": {
                "type": "string",
                "enum": ["project", "global"],
                "description": "\"project\" (default): this workspace's saved sessions. \"global\": every workspace's (asks the user first)."
            },
            "hit": {
                "type": "string",
                "description": "around: a hit id from a search, like `<session>#12`."
            },
            "session": {
                "type": "string",
                "description": "around: a session id (with `message`), instead of `hit`."
            },
            "message": {
                "type": "integer",
                "minimum": 0,
                "description": "around: the message number in that session."
            },
            "window": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_WINDOW,
                "description": "around: messages to show on each side (default 3)."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": "search: the most hits to return (default 5)."
            }
        },
        "required": ["operation"]
    });
    ToolSpec {
        name: NAME.into(),
        description: "Search the saved Reasonix sessions (earlier conversations of this project, or of every workspace with scope \"global\") to recall what was decided or said, then read a bounded window of messages around a hit. The current session is not searched: it is already in your context (what compaction took out of it is). A search finding nothing: retry with rarer terms, or widen the scope.".into(),
        parameters: parameters.to_string(),
        read_only: true,
        guidance: None,
    }
}

/// The call's arguments, checked; errors say what was wrong.
fn parse(arguments: &str) -> Result<Request, CallError> {
    let bad = invalid;
    let args: Value = serde_json::from_str(arguments)
        .map_err(|e| bad(format!("the arguments are not valid JSON: {e}")))?;
    let text = |key: &str| -> Result<Option<&str>, CallError> {
        match args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(bad(format!("`{key}` must be a string, got {other}"))),
        }
    };
    let number = |key: &str, max: usize| -> Result<Option<usize>, CallError> {
        match args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(|n| Some(n.min(max)))
                .ok_or_else(|| bad(format!("`{key}` must be a whole number ≥ 0, got {v}"))),
        }
    };
    let global = match text("scope")? {
        None | Some("project") => false,
        Some("global") => true,
        Some(other) => {
            return Err(bad(format!(
                "`scope` must be \"project\" or \"global\", got \"{other}\""
            )));
        }
    };
    match text("operation")?.unwrap_or("search") {
        "search" => {
            let query = text("query")?.unwrap_or("").trim();
            if tokenize::terms(query).is_empty() {
                return Err(bad(
                    "search needs a `query` with at least one word to look for".into(),
                ));
            }
            let query: String = query.chars().take(MAX_QUERY_CHARS).collect();
            let limit = number("limit", MAX_LIMIT)?.unwrap_or(DEFAULT_LIMIT).max(1);
            Ok(Request::Search {
                query,
                global,
                limit,
            })
        }
        "around" => {
            let window = number("window", MAX_WINDOW)?.unwrap_or(DEFAULT_WINDOW);
            let (session, message, archive) = match text("hit")? {
                Some(hit) => parse_hit(hit).ok_or_else(|| {
                    bad(format!(
                        "`hit` must be an id from a search, like `<session>#12`, got \"{hit}\""
                    ))
                })?,
                None => {
                    let session = text("session")?.ok_or_else(|| {
                        bad(
                            "around needs `hit` (an id from a search) or `session` and `message`"
                                .into(),
                        )
                    })?;
                    let message = number("message", usize::MAX)?.ok_or_else(|| {
                        bad("around with `session` needs `message` (a message number)".into())
                    })?;
                    (session.to_string(), message, false)
                }
            };
            Ok(Request::Around {
                session,
                message,
                archive,
                global,
                window,
            })
        }
        other => Err(bad(format!(
            "`operation` must be \"search\" or \"around\", got \"{other}\""
        ))),
    }
}

fn invalid(message: String) -> CallError {
    CallError::Plugin(PluginError::InvalidInput(message))
}

/// `<session>#<n>` (a transcript message) or `<session>#archive-<n>` (an archived one).
fn parse_hit(hit: &str) -> Option<(String, usize, bool)> {
    let (session, at) = hit.trim().rsplit_once('#')?;
    let (archive, n) = match at.strip_prefix("archive-") {
        Some(n) => (true, n),
        None => (false, at),
    };
    let n = n.parse().ok()?;
    (!session.is_empty()).then(|| (session.to_string(), n, archive))
}

/// The id a hit is shown with (what `around` takes back).
pub(crate) fn hit_id(session: &str, n: u32, archive: bool) -> String {
    if archive {
        format!("{session}#archive-{n}")
    } else {
        format!("{session}#{n}")
    }
}

#[cfg(test)]
mod bench;
#[cfg(test)]
mod tests;
