//! Sessions: one append-only JSONL transcript per conversation, under
//! `<state>/projects/<workspace key>/sessions/<id>.jsonl`.
//!
//! Every line is one complete [`Record`], written with a single `write` call as soon as it
//! exists, so a killed process loses at most the line being written — and a torn last line is
//! ignored on load and cut off before the next append. A lock file (`<id>.lock`, holding the
//! writer's pid) keeps two live processes from appending to one transcript; a lock left by a
//! dead process is taken over.

mod compaction;
pub mod go;
pub mod transfer;

use crate::cost::{Cost, Spend};
use crate::timeline::Timeline;
use crate::types::{Message, Role, Usage};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// Version of the transcript format, in the header line.
pub const FORMAT_VERSION: u32 = 1;

/// One line of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The first line.
    Session {
        version: u32,
        id: String,
        workspace: String,
        provider: String,
        model: String,
        created_ms: u64,
        /// A fork: the session it was forked from, and the turn it starts before.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_turn: Option<u32>,
    },
    /// A message of the conversation, in order.
    Message {
        #[serde(flatten)]
        message: Message,
        at_ms: u64,
    },
    /// Token usage of one model request.
    Usage {
        usage: Usage,
        at_ms: u64,
        /// The model that served it and its price then (absent in older transcripts).
        #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
        spent: Option<Spent>,
    },
    /// Written just before a user turn's message (its checkpoint is `<id>.ckpt/turn-<N>.json`).
    Turn { turn: u32, at_ms: u64 },
    /// The conversation went back to before turn `turn`: the first `keep` messages of the
    /// effective history stay (when `conversation`; a code-only rewind changes no message).
    Rewind {
        turn: u32,
        keep: usize,
        conversation: bool,
        at_ms: u64,
    },
    /// The last rewind was undone.
    RewindUndone { at_ms: u64 },
    /// `sessions rename`.
    Title { title: String, at_ms: u64 },
    /// A compaction: the first `replaced` messages of the effective history are replaced by
    /// `messages` (docs/COMPACTION.md); the originals are in `<id>.archive.jsonl`.
    Compaction {
        number: u32,
        tier: String,
        replaced: usize,
        messages: Vec<Message>,
        at_ms: u64,
    },
    /// A compaction that rewrote messages in place (snip, prune): only the rewritten ones, at
    /// their index in the effective history; the rest stay. Replays like a `compaction` whose
    /// head is the history up to the last edit with these messages in place (a fraction of
    /// its size: a long session's transcript was mostly whole rewritten histories).
    CompactionEdits {
        number: u32,
        tier: String,
        edits: Vec<Edit>,
        at_ms: u64,
    },
    /// What the agent's calls verifiably did, and the steps and task list accepted on it
    /// (`reasonix_core::evidence`): a resumed session has them back.
    Evidence {
        entry: reasonix_core::evidence::Entry,
        at_ms: u64,
    },
    /// The agent composition the session was started with (`--agent-composition`): its name
    /// and the sha256 of its definition then. `-c` and `-r` restore it.
    Composition {
        name: String,
        sha256: String,
        at_ms: u64,
    },
}

/// A session's composition: its name and the sha256 of its definition when it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Binding {
    pub name: String,
    pub sha256: String,
}

/// One message a `compaction_edits` record rewrites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edit {
    pub index: usize,
    #[serde(flatten)]
    pub message: Message,
}

/// Who served a request and what it cost, recorded with its usage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    pub provider: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

#[derive(Debug, Error)]
pub enum SessionError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: not a Reasonix transcript (line 1 is not a session header)")]
    NotATranscript { path: PathBuf },
    #[error(
        "session {id} is open in another Reasonix process (pid {pid}); close it first, or start a new session"
    )]
    Locked { id: String, pid: u32 },
    #[error("no session matches `{0}`; `reasonix sessions list` shows them")]
    NotFound(String),
    #[error("`{query}` matches several sessions: {}; give more of the id", matches.join(", "))]
    Ambiguous { query: String, matches: Vec<String> },
    #[error("no earlier session in this workspace to continue")]
    NoneToContinue,
    #[error("a session with the id {0} already exists in this workspace; choose another id")]
    Exists(String),
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> SessionError + '_ {
    move |source| SessionError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The sessions of one workspace.
#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
    workspace: PathBuf,
}

/// What `sessions list` shows about one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub id: String,
    pub title: String,
    /// A fork's parent session and the turn it was forked before.
    pub parent: Option<String>,
    pub parent_turn: Option<u32>,
    pub provider: String,
    pub model: String,
    pub messages: usize,
    pub created_ms: u64,
    pub updated_ms: u64,
    pub path: PathBuf,
    /// The agent composition it was started with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub composition: Option<Binding>,
}

/// A transcript read back.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub header: Record,
    pub messages: Vec<Message>,
    pub usage: Vec<Usage>,
    /// Usage and cost by model, as recorded (requests of older transcripts count under the
    /// header's provider and model, unpriced).
    pub spend: Spend,
    /// Turns, rewinds and the title, as replayed.
    pub timeline: Timeline,
    /// Byte length of the complete lines; anything after is a torn write.
    pub valid_len: u64,
    /// `compaction` records replayed.
    pub compactions: u32,
    /// `evidence` records, in order.
    pub evidence: Vec<reasonix_core::evidence::Entry>,
    /// The `composition` record.
    pub composition: Option<Binding>,
}

impl SessionStore {
    /// `state` is the state root; the workspace decides the directory.
    pub fn new(state: &Path, workspace: &Path) -> SessionStore {
        SessionStore {
            dir: state
                .join("projects")
                .join(workspace_key(workspace))
                .join("sessions"),
            workspace: workspace.to_path_buf(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The workspace as a session header records it.
    pub fn workspace_text(&self) -> String {
        self.workspace.display().to_string()
    }

    /// Where this workspace's sub-agents keep their sessions (`<sessions>/subagents/`): apart,
    /// so `--continue`, `sessions list` and `/resume` see only the user's own sessions.
    pub fn subagents(&self) -> SessionStore {
        SessionStore {
            dir: self.dir.join("subagents"),
            workspace: self.workspace.clone(),
        }
    }

    /// Start a new session and write its header.
    pub fn create(&self, provider: &str, model: &str) -> Result<SessionWriter, SessionError> {
        self.create_with_parent(provider, model, None)
    }

    /// Start a new session; a fork names its parent session and turn in the header.
    pub fn create_with_parent(
        &self,
        provider: &str,
        model: &str,
        parent: Option<(&str, Option<u32>)>,
    ) -> Result<SessionWriter, SessionError> {
        self.create_as(&new_id(model), provider, model, parent)
    }

    /// Start a new session with the id the caller chose (`reasonix run --session-id`); an id
    /// already used in this workspace is refused. The caller checks the id's form: it becomes
    /// a file name.
    pub fn create_as(
        &self,
        id: &str,
        provider: &str,
        model: &str,
        parent: Option<(&str, Option<u32>)>,
    ) -> Result<SessionWriter, SessionError> {
        std::fs::create_dir_all(&self.dir).map_err(io_error(&self.dir))?;
        let now = now_ms();
        let id = id.to_string();
        let path = self.dir.join(format!("{id}.jsonl"));
        let lock = Lock::acquire(&self.dir, &id)?;
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)
            .map_err(|source| match source.kind() {
                io::ErrorKind::AlreadyExists => SessionError::Exists(id.clone()),
                _ => io_error(&path)(source),
            })?;
        let mut writer = SessionWriter {
            id: id.clone(),
            path,
            file,
            next_turn: 1,
            compactions: 0,
            _lock: lock,
        };
        writer.append(&Record::Session {
            version: FORMAT_VERSION,
            id,
            workspace: self.workspace.display().to_string(),
            provider: provider.to_string(),
            model: model.to_string(),
            created_ms: now,
            parent: parent.map(|(p, _)| p.to_string()),
            parent_turn: parent.and_then(|(_, t)| t),
        })?;
        Ok(writer)
    }

    /// Reopen a session to append to it; a torn last line is cut off first.
    pub fn open(&self, id: &str) -> Result<(SessionWriter, Loaded), SessionError> {
        let path = self.dir.join(format!("{id}.jsonl"));
        let lock = Lock::acquire(&self.dir, id)?;
        let loaded = load(&path)?;
        let file = OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(io_error(&path))?;
        file.set_len(loaded.valid_len).map_err(io_error(&path))?;
        let mut file = file;
        file.seek(SeekFrom::End(0)).map_err(io_error(&path))?;
        Ok((
            SessionWriter {
                id: id.to_string(),
                path,
                file,
                next_turn: loaded.timeline.last_turn + 1,
                compactions: loaded.compactions,
                _lock: lock,
            },
            loaded,
        ))
    }

    /// Every session of the workspace that holds a message, most recently updated first.
    pub fn list(&self) -> Result<Vec<Summary>, SessionError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&self.dir)(e)),
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
                continue;
            }
            // A file that is not a transcript is skipped, not fatal to the listing. So is a
            // session nothing was said in (an interactive session opened and left): it has
            // nothing to continue, and `--continue` must not pick it over the last real one.
            // A session rewound to before its first turn still is one: it was used, and its
            // rewind can be undone.
            let Ok(loaded) = load(&path) else { continue };
            if loaded.messages.is_empty() && loaded.timeline.first_prompt.is_none() {
                continue;
            }
            if let Some(summary) = summarize(path, loaded, entry.metadata().ok()) {
                out.push(summary);
            }
        }
        out.sort_by(|a, b| b.updated_ms.cmp(&a.updated_ms).then(b.id.cmp(&a.id)));
        Ok(out)
    }

    /// The transcript of session `id`.
    pub fn transcript(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.jsonl"))
    }

    /// Delete session `id`: its transcript, checkpoints (`<id>.ckpt/`) and archive
    /// (`<id>.archive.jsonl`). Refused while a live process holds the session.
    pub fn delete(&self, id: &str) -> Result<(), SessionError> {
        let _lock = Lock::acquire(&self.dir, id)?;
        let transcript = self.transcript(id);
        std::fs::remove_file(&transcript).map_err(io_error(&transcript))?;
        let archive = self.dir.join(format!("{id}.archive.jsonl"));
        let checkpoints = self.dir.join(format!("{id}.ckpt"));
        let gone = |path: &Path, result: io::Result<()>| match result {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(path)(e)),
            _ => Ok(()),
        };
        gone(&archive, std::fs::remove_file(&archive))?;
        gone(&checkpoints, std::fs::remove_dir_all(&checkpoints))
    }

    /// The most recently updated session (`--continue`).
    pub fn latest(&self) -> Result<Summary, SessionError> {
        self.list()?
            .into_iter()
            .next()
            .ok_or(SessionError::NoneToContinue)
    }

    /// A session by id, id prefix, or text in its title (`--resume`).
    pub fn find(&self, query: &str) -> Result<Summary, SessionError> {
        // An exact id finds its session even when nothing is left in it (a rewind to turn 1).
        let exact = self.transcript(query);
        if !query.contains(['/', '\\']) && !query.starts_with('.') && exact.is_file() {
            let metadata = std::fs::metadata(&exact).ok();
            if let Some(summary) = load(&exact)
                .ok()
                .and_then(|loaded| summarize(exact, loaded, metadata))
            {
                return Ok(summary);
            }
        }
        let all = self.list()?;
        if let Some(exact) = all.iter().find(|s| s.id == query) {
            return Ok(exact.clone());
        }
        let needle = query.to_lowercase();
        let mut matches: Vec<Summary> = all
            .iter()
            .filter(|s| s.id.starts_with(query))
            .cloned()
            .collect();
        if matches.is_empty() {
            matches = all
                .into_iter()
                .filter(|s| s.title.to_lowercase().contains(&needle))
                .collect();
        }
        match matches.len() {
            0 => Err(SessionError::NotFound(query.to_string())),
            1 => Ok(matches.remove(0)),
            _ => Err(SessionError::Ambiguous {
                query: query.to_string(),
                matches: matches.into_iter().map(|s| s.id).collect(),
            }),
        }
    }
}

/// Appends records to one transcript; holds its lock.
#[derive(Debug)]
pub struct SessionWriter {
    id: String,
    path: PathBuf,
    file: File,
    /// The number the next user turn gets.
    next_turn: u32,
    /// `compaction` records in the transcript (the next one gets this + 1).
    compactions: u32,
    _lock: Lock,
}

impl SessionWriter {
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write one record as one line, in one `write`.
    pub fn append(&mut self, record: &Record) -> Result<(), SessionError> {
        let mut line = serde_json::to_vec(record)
            .map_err(|e| io_error(&self.path)(io::Error::new(io::ErrorKind::InvalidData, e)))?;
        line.push(b'\n');
        self.file.write_all(&line).map_err(io_error(&self.path))?;
        self.file.flush().map_err(io_error(&self.path))
    }

    /// Ledger entries (`Record::Evidence`), one line each, in one write: a batch of tool
    /// calls costs one more write, not one per call.
    pub fn evidence(
        &mut self,
        entries: Vec<reasonix_core::evidence::Entry>,
    ) -> Result<(), SessionError> {
        let at_ms = now_ms();
        let mut lines = Vec::new();
        for entry in entries {
            serde_json::to_writer(&mut lines, &Record::Evidence { entry, at_ms })
                .map_err(|e| io_error(&self.path)(io::Error::new(io::ErrorKind::InvalidData, e)))?;
            lines.push(b'\n');
        }
        self.file.write_all(&lines).map_err(io_error(&self.path))?;
        self.file.flush().map_err(io_error(&self.path))
    }

    pub fn message(&mut self, message: &Message) -> Result<(), SessionError> {
        self.append(&Record::Message {
            message: message.clone(),
            at_ms: now_ms(),
        })
    }

    /// Record that a user turn starts (before its message); returns its number.
    pub fn begin_turn(&mut self) -> Result<u32, SessionError> {
        let turn = self.next_turn;
        self.append(&Record::Turn {
            turn,
            at_ms: now_ms(),
        })?;
        self.next_turn += 1;
        Ok(turn)
    }

    /// Record turn `turn` as it stood in another transcript (a fork copies its parent's).
    pub fn copy_turn(&mut self, turn: u32) -> Result<(), SessionError> {
        self.append(&Record::Turn {
            turn,
            at_ms: now_ms(),
        })?;
        self.next_turn = self.next_turn.max(turn + 1);
        Ok(())
    }

    pub fn usage(&mut self, usage: &Usage) -> Result<(), SessionError> {
        self.append(&Record::Usage {
            usage: *usage,
            at_ms: now_ms(),
            spent: None,
        })
    }

    /// Usage of one request with the model that served it and its cost.
    pub fn usage_of(&mut self, usage: &Usage, spent: Spent) -> Result<(), SessionError> {
        self.append(&Record::Usage {
            usage: *usage,
            at_ms: now_ms(),
            spent: Some(spent),
        })
    }
}

/// Read a transcript. Lines after the first bad one are a torn tail and ignored.
pub fn load(path: &Path) -> Result<Loaded, SessionError> {
    let file = File::open(path).map_err(io_error(path))?;
    let mut reader = BufReader::new(file);
    let mut header = None;
    let mut messages = Vec::new();
    let mut usage = Vec::new();
    let mut spend = Spend::default();
    let mut timeline = Timeline::default();
    let mut valid_len = 0u64;
    let mut compactions = 0;
    let mut evidence = Vec::new();
    let mut composition = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(io_error(path))?;
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        let Ok(record) = serde_json::from_slice::<Record>(&line) else {
            // A complete record of a kind this build does not know (written by a newer one)
            // is kept and skipped: cutting it off as a torn tail would lose it on the next
            // append.
            if is_foreign_record(&line) {
                valid_len += n as u64;
                continue;
            }
            break;
        };
        match record {
            Record::Session { .. } if header.is_none() => header = Some(record),
            Record::Message { message, .. } if header.is_some() => {
                timeline.message();
                if timeline.first_prompt.is_none() && message.role == Role::User {
                    timeline.first_prompt = Some(message.content.clone());
                }
                messages.push(message)
            }
            Record::Usage {
                usage: u, spent, ..
            } if header.is_some() => {
                count_spend(&mut spend, header.as_ref(), &u, spent.as_ref());
                usage.push(u);
            }
            Record::Turn { turn, .. } if header.is_some() => timeline.turn(turn, messages.len()),
            Record::Rewind {
                keep, conversation, ..
            } if header.is_some() => timeline.rewind(&mut messages, keep, conversation),
            Record::RewindUndone { .. } if header.is_some() => timeline.undo(&mut messages),
            Record::Title { title, .. } if header.is_some() => timeline.title = Some(title),
            Record::Compaction {
                replaced,
                messages: head,
                ..
            } if header.is_some() => {
                let head_len = head.len();
                compaction::replay(&mut messages, replaced, head);
                timeline.compacted(replaced, head_len);
                compactions += 1;
            }
            Record::CompactionEdits { edits, .. } if header.is_some() => {
                if let Some(replaced) = compaction::replay_edits(&mut messages, edits) {
                    timeline.compacted(replaced, replaced);
                }
                compactions += 1;
            }
            Record::Evidence { entry, .. } if header.is_some() => evidence.push(entry),
            Record::Composition { name, sha256, .. } if header.is_some() => {
                composition = Some(Binding { name, sha256 })
            }
            _ => break,
        }
        valid_len += n as u64;
    }
    let header = header.ok_or_else(|| SessionError::NotATranscript {
        path: path.to_path_buf(),
    })?;
    Ok(Loaded {
        header,
        messages,
        usage,
        spend,
        timeline,
        valid_len,
        compactions,
        evidence,
        composition,
    })
}

fn count_spend(spend: &mut Spend, header: Option<&Record>, usage: &Usage, spent: Option<&Spent>) {
    match (spent, header) {
        (Some(s), _) => spend.add(&s.provider, &s.model, usage, s.cost.as_ref()),
        (
            None,
            Some(Record::Session {
                provider, model, ..
            }),
        ) => spend.add(provider, model, usage, None),
        (None, _) => {}
    }
}

/// What `sessions list` shows of a loaded transcript.
fn summarize(
    path: PathBuf,
    loaded: Loaded,
    metadata: Option<std::fs::Metadata>,
) -> Option<Summary> {
    let Record::Session {
        id,
        provider,
        model,
        created_ms,
        parent,
        parent_turn,
        ..
    } = loaded.header
    else {
        return None;
    };
    let updated_ms = metadata
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(created_ms);
    Some(Summary {
        title: match (&loaded.timeline.title, &loaded.timeline.first_prompt) {
            (Some(given), _) => given.clone(),
            (None, Some(first)) => one_line_title(first),
            (None, None) => title(&loaded.messages),
        },
        parent,
        parent_turn,
        messages: loaded.messages.len(),
        id,
        provider,
        model,
        created_ms,
        updated_ms,
        path,
        composition: loaded.composition.clone(),
    })
}

/// A JSON object line with a `type` this build has no record for.
fn is_foreign_record(line: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Tagged {
        #[serde(rename = "type")]
        kind: String,
    }
    serde_json::from_slice::<Tagged>(line).is_ok_and(|t| {
        !matches!(
            t.kind.as_str(),
            "session"
                | "message"
                | "usage"
                | "turn"
                | "rewind"
                | "rewind_undone"
                | "evidence"
                | "title"
                | "compaction"
                | "compaction_edits"
        )
    })
}

/// The first user message, on one line, at most 80 characters.
fn title(messages: &[Message]) -> String {
    messages
        .iter()
        .find(|m| m.role == Role::User)
        .map(|m| one_line_title(&m.content))
        .unwrap_or_default()
}

/// A prompt on one line, at most 80 characters.
fn one_line_title(prompt: &str) -> String {
    let text = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A directory name for a workspace: its path made filename-safe, plus a short hash so two
/// paths that sanitise alike stay apart.
pub fn workspace_key(workspace: &Path) -> String {
    let text = workspace.to_string_lossy();
    let safe: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let safe: String = safe
        .chars()
        .rev()
        .take(60)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let hash = Sha256::digest(text.as_bytes());
    let short: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{safe}-{short}")
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// `YYYYMMDD-HHMMSS.<nanoseconds>-<model label>`, as the original names sessions.
fn new_id(model: &str) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (y, m, d) = civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0));
    let rem = secs % 86_400;
    let label: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}.{:09}-{label}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_nanos()
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `<id>.lock` holding the writer's pid; removed on drop.
#[derive(Debug)]
struct Lock {
    path: PathBuf,
}

impl Lock {
    fn acquire(dir: &Path, id: &str) -> Result<Lock, SessionError> {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        let path = dir.join(format!("{id}.lock"));
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    file.write_all(std::process::id().to_string().as_bytes())
                        .map_err(io_error(&path))?;
                    return Ok(Lock { path });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path)
                        .ok()
                        .and_then(|t| t.trim().parse::<u32>().ok());
                    match holder {
                        Some(pid) if process_alive(pid) => {
                            return Err(SessionError::Locked {
                                id: id.to_string(),
                                pid,
                            });
                        }
                        // Left by a dead process (or unreadable): take it over.
                        _ => {
                            let _ = std::fs::remove_file(&path);
                        }
                    }
                }
                Err(e) => return Err(io_error(&path)(e)),
            }
        }
        Err(SessionError::Locked {
            id: id.to_string(),
            pid: 0,
        })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn process_alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists() || !Path::new("/proc/self").exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn msg(role: Role, text: &str) -> Message {
        Message {
            role,
            content: text.into(),
            reasoning: None,
            reasoning_state: None,
            tool_calls: vec![],
            tool_call_id: None,
            raw_content: None,
            images: Vec::new(),
        }
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_787), (2026, 11, 30));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn write_reopen_continue_and_list() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path(), Path::new("/work/proj"));
        let mut w = store.create("deepseek", "deepseek-chat").unwrap();
        w.message(&msg(Role::User, "fix the   failing\ntest"))
            .unwrap();
        w.message(&msg(Role::Assistant, "done")).unwrap();
        w.usage(&Usage {
            prompt_tokens: 10,
            ..Usage::default()
        })
        .unwrap();
        let id = w.id().to_string();
        // Locked while the writer lives.
        let err = store.open(&id).unwrap_err();
        assert!(matches!(err, SessionError::Locked { .. }), "{err}");
        drop(w);

        let (mut w, loaded) = store.open(&id).unwrap();
        assert_eq!(loaded.messages.len(), 2);
        assert_eq!(loaded.usage[0].prompt_tokens, 10);
        w.message(&msg(Role::User, "again")).unwrap();
        drop(w);

        let list = store.list().unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].title, "fix the failing test");
        assert_eq!(list[0].messages, 3);
        assert_eq!(store.latest().unwrap().id, id);
        assert_eq!(store.find("failing").unwrap().id, id);
        assert_eq!(store.find(&id[..8]).unwrap().id, id);
        assert!(matches!(store.find("nope"), Err(SessionError::NotFound(_))));
    }

    #[test]
    fn a_lock_left_by_a_dead_process_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path(), Path::new("/w"));
        let w = store.create("p", "m").unwrap();
        let id = w.id().to_string();
        drop(w);
        // A lock file left by a process that no longer exists.
        std::fs::write(store.dir().join(format!("{id}.lock")), "999999999").unwrap();
        assert!(store.open(&id).is_ok());
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_cut_before_appending() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path(), Path::new("/w"));
        let mut w = store.create("p", "m").unwrap();
        w.message(&msg(Role::User, "complete")).unwrap();
        let id = w.id().to_string();
        let path = w.path().to_path_buf();
        drop(w);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"type":"message","role":"assis"#).unwrap();
        drop(f);

        let (mut w, loaded) = store.open(&id).unwrap();
        assert_eq!(loaded.messages.len(), 1);
        w.message(&msg(Role::Assistant, "after the tear")).unwrap();
        drop(w);
        let loaded = load(&path).unwrap();
        assert_eq!(
            loaded
                .messages
                .iter()
                .map(|m| m.content.as_str())
                .collect::<Vec<_>>(),
            ["complete", "after the tear"]
        );
    }

    #[test]
    fn a_record_of_a_newer_kind_is_kept_and_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path(), Path::new("/w"));
        let mut w = store.create("p", "m").unwrap();
        w.message(&msg(Role::User, "before")).unwrap();
        let id = w.id().to_string();
        let path = w.path().to_path_buf();
        drop(w);
        let foreign = "{\"type\":\"from_the_future\",\"x\":1}\n";
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(foreign.as_bytes()).unwrap();
        drop(f);

        let (mut w, loaded) = store.open(&id).unwrap();
        assert_eq!(loaded.messages.len(), 1);
        w.message(&msg(Role::Assistant, "after")).unwrap();
        drop(w);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(foreign), "{text}");
        assert_eq!(load(&path).unwrap().messages.len(), 2);
    }

    #[test]
    fn turns_rewinds_and_titles_replay_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path(), Path::new("/w"));
        let mut w = store.create("p", "m").unwrap();
        for (i, text) in ["one", "two", "three"].iter().enumerate() {
            assert_eq!(w.begin_turn().unwrap(), i as u32 + 1);
            w.message(&msg(Role::User, text)).unwrap();
            w.message(&msg(Role::Assistant, "ok")).unwrap();
        }
        let id = w.id().to_string();
        drop(w);
        let loaded = load(&store.transcript(&id)).unwrap();
        assert_eq!(loaded.timeline.start_of(2), Some(2));
        let (mut w, _) = store.open(&id).unwrap();
        w.append(&Record::Rewind {
            turn: 2,
            keep: 2,
            conversation: true,
            at_ms: 0,
        })
        .unwrap();
        w.append(&Record::Title {
            title: "renamed".into(),
            at_ms: 0,
        })
        .unwrap();
        let rewound = load(w.path()).unwrap();
        assert_eq!(rewound.messages.len(), 2);
        assert_eq!(rewound.timeline.turns.len(), 1);
        w.append(&Record::RewindUndone { at_ms: 0 }).unwrap();
        // Numbers are never reused, even for turns a rewind dropped.
        assert_eq!(w.begin_turn().unwrap(), 4);
        drop(w);
        let back = load(&store.transcript(&id)).unwrap();
        assert_eq!(back.messages.len(), 6);
        assert_eq!(back.timeline.last_turn, 4);
        assert_eq!(store.find("renamed").unwrap().id, id);
        store.delete(&id).unwrap();
        assert!(store.list().unwrap().is_empty());
    }

    #[test]
    fn a_session_rewound_to_nothing_is_still_listed_and_found_by_its_first_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path(), Path::new("/w"));
        // Opened and left: not listed.
        drop(store.create("p", "m").unwrap());
        assert!(store.list().unwrap().is_empty());
        let mut w = store.create("p", "m").unwrap();
        w.begin_turn().unwrap();
        w.message(&msg(Role::User, "fix the   parser")).unwrap();
        w.message(&msg(Role::Assistant, "done")).unwrap();
        w.append(&Record::Rewind {
            turn: 1,
            keep: 0,
            conversation: true,
            at_ms: 0,
        })
        .unwrap();
        let id = w.id().to_string();
        drop(w);
        let listed = store.list().unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].id, id);
        assert_eq!(listed[0].messages, 0);
        assert_eq!(listed[0].title, "fix the parser");
        assert_eq!(store.find("parser").unwrap().id, id);
        assert_eq!(store.latest().unwrap().id, id);
    }

    #[test]
    fn workspaces_get_separate_directories() {
        assert_ne!(
            workspace_key(Path::new("/a/b-c")),
            workspace_key(Path::new("/a/b/c"))
        );
        assert!(workspace_key(Path::new("/a/b")).starts_with("-a-b-"));
    }

    proptest! {
        #[test]
        fn loading_garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("x.jsonl");
            std::fs::write(&path, &bytes).unwrap();
            let _ = load(&path);
        }

        #[test]
        fn messages_round_trip(texts in proptest::collection::vec("\\PC{0,40}", 0..8)) {
            let dir = tempfile::tempdir().unwrap();
            let store = SessionStore::new(dir.path(), Path::new("/w"));
            let mut w = store.create("p", "m").unwrap();
            for t in &texts {
                w.message(&msg(Role::User, t)).unwrap();
            }
            let loaded = load(w.path()).unwrap();
            let back: Vec<String> = loaded.messages.into_iter().map(|m| m.content).collect();
            prop_assert_eq!(back, texts);
        }
    }
}
