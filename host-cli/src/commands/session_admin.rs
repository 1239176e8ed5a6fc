//! `reasonix sessions show|export|rename|delete|fork|tree`: reading and managing saved
//! sessions. Loads no plugins. A session argument is an id, an id prefix or title text, as
//! for `--resume`.

use crate::clock::now_ms;
use crate::context::resolve_workspace;
use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use anyhow::anyhow;
use reasonix_agent::session::{Loaded, Record, SessionStore, Summary, load};
use reasonix_agent::types::{Message, Role};
use reasonix_config::Paths;
use reasonix_core::terminal::shown;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The longest title `rename` takes.
const MAX_TITLE_CHARS: usize = 200;

/// The session store of the workspace `dir` (or the configured / current one).
pub fn workspace_store(dir: Option<&Path>) -> Result<(SessionStore, PathBuf), Failure> {
    let paths = Paths::from_env();
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::usage(anyhow!("cannot read the current directory: {e}")))?;
    let config = crate::context::load_config(&paths, &cwd)?;
    let workspace = resolve_workspace(dir, config.sandbox.workspace_root.as_deref())?;
    Ok((SessionStore::new(&paths.state, &workspace), workspace))
}

/// The session `query` names, read back.
pub fn find(store: &SessionStore, query: &str) -> Result<(Summary, Loaded), Failure> {
    let summary = store.find(query).map_err(Failure::usage)?;
    let loaded = load(&summary.path).map_err(Failure::runtime)?;
    Ok((summary, loaded))
}

pub fn show(query: &str, dir: Option<&Path>) -> Outcome {
    let (store, _) = workspace_store(dir)?;
    let (summary, loaded) = find(&store, query)?;
    outln!("{}", heading(&summary));
    let mut turns = loaded.timeline.turns.iter().peekable();
    for (i, message) in loaded.messages.iter().enumerate() {
        if let Some(mark) = turns.next_if(|t| t.index == i) {
            outln!("\n── turn {} ──", mark.turn);
        }
        // `outln!` escapes what a terminal would obey; the text keeps its lines.
        match message.role {
            Role::User => outln!("user: {}", message.content),
            Role::Assistant => {
                if !message.content.is_empty() {
                    outln!("assistant: {}", message.content);
                }
                for call in &message.tool_calls {
                    outln!("  → {} {}", shown(&call.name), shown(&call.arguments));
                }
            }
            Role::Tool => outln!("  ← {}", indent(&message.content)),
            Role::System => outln!("system: {}", message.content),
        }
    }
    Ok(Code::Success)
}

fn heading(summary: &Summary) -> String {
    let mut text = format!(
        "session {} ({}/{}): {}",
        summary.id,
        shown(&summary.provider),
        shown(&summary.model),
        shown(&summary.title)
    );
    if let Some(parent) = &summary.parent {
        text.push_str(&format!("\nforked from {}", shown(parent)));
        if let Some(turn) = summary.parent_turn {
            text.push_str(&format!(" before turn {turn}"));
        }
    }
    text
}

fn indent(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join("\n    ")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Markdown,
    Jsonl,
    /// The transcript itself, for `sessions import` on another machine.
    Transcript,
}

pub fn export(
    query: &str,
    format: ExportFormat,
    output: Option<&Path>,
    dir: Option<&Path>,
) -> Outcome {
    let (store, _) = workspace_store(dir)?;
    let (summary, loaded) = find(&store, query)?;
    let text = match format {
        ExportFormat::Markdown => markdown(&summary, &loaded),
        ExportFormat::Jsonl => jsonl(&loaded.messages).map_err(Failure::runtime)?,
        ExportFormat::Transcript => transcript(&summary.path, loaded.valid_len)?,
    };
    match output {
        Some(path) => {
            write_file(path, text.as_bytes())?;
            crate::term::errln!("exported {} to {}", summary.id, path.display());
        }
        None => match format {
            ExportFormat::Markdown => crate::term::out!("{text}"),
            ExportFormat::Jsonl | ExportFormat::Transcript => {
                for line in text.lines() {
                    crate::term::json_out(line);
                }
            }
        },
    }
    Ok(Code::Success)
}

/// The transcript's complete lines (a torn tail left out), as `sessions import` reads them.
fn transcript(path: &Path, valid_len: u64) -> Result<String, Failure> {
    let bytes = std::fs::read(path).map_err(Failure::runtime)?;
    let end = usize::try_from(valid_len)
        .unwrap_or(usize::MAX)
        .min(bytes.len());
    String::from_utf8(bytes[..end].to_vec())
        .map_err(|e| Failure::runtime(anyhow::anyhow!("{}: {e}", path.display())))
}

/// The effective history, one message per line.
fn jsonl(messages: &[Message]) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    for message in messages {
        out.push_str(&serde_json::to_string(message)?);
        out.push('\n');
    }
    Ok(out)
}

fn markdown(summary: &Summary, loaded: &Loaded) -> String {
    let mut out = format!("# {}\n\n", one_line(&summary.title));
    out.push_str(&format!(
        "- session: `{}`\n- model: `{}/{}`\n",
        summary.id,
        one_line(&summary.provider),
        one_line(&summary.model)
    ));
    if let Some(parent) = &summary.parent {
        out.push_str(&format!("- forked from: `{}`\n", one_line(parent)));
    }
    let mut turns = loaded.timeline.turns.iter().peekable();
    for (i, message) in loaded.messages.iter().enumerate() {
        if let Some(mark) = turns.next_if(|t| t.index == i) {
            out.push_str(&format!("\n## Turn {}\n", mark.turn));
        }
        match message.role {
            Role::User => out.push_str(&format!("\n**User**\n\n{}\n", message.content)),
            Role::Assistant => {
                out.push_str("\n**Assistant**\n\n");
                if !message.content.is_empty() {
                    out.push_str(&format!("{}\n", message.content));
                }
                for call in &message.tool_calls {
                    out.push_str(&format!(
                        "\n`{}`\n\n{}",
                        one_line(&call.name),
                        fenced("json", &call.arguments)
                    ));
                }
            }
            Role::Tool => {
                out.push_str(&format!("\n**Result**\n\n{}", fenced("", &message.content)))
            }
            Role::System => out.push_str(&format!("\n**System**\n\n{}\n", message.content)),
        }
    }
    out
}

/// A code block whose fence is longer than any backtick run inside.
fn fenced(lang: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}\n", text.trim_end_matches('\n'))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Write `bytes` to `path` through a temporary file beside it: a failed export leaves what
/// was there.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let fail = |e: std::io::Error| Failure::runtime(anyhow!("{}: {e}", path.display()));
    let mut temp = tempfile::NamedTempFile::new_in(&dir).map_err(fail)?;
    temp.write_all(bytes).map_err(fail)?;
    temp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// A session title as given (`sessions rename`, `run --name`): on one line, not empty, not
/// too long.
pub(crate) fn checked_title(title: &str) -> Result<String, Failure> {
    let title = one_line(title);
    if title.is_empty() {
        return Err(Failure::usage(anyhow!("the new title is empty")));
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(Failure::usage(anyhow!(
            "the new title is longer than {MAX_TITLE_CHARS} characters"
        )));
    }
    Ok(title)
}

pub fn rename(query: &str, title: &str, dir: Option<&Path>) -> Outcome {
    let title = checked_title(title)?;
    let (store, _) = workspace_store(dir)?;
    let summary = store.find(query).map_err(Failure::usage)?;
    let (mut writer, _) = store.open(&summary.id).map_err(Failure::runtime)?;
    writer
        .append(&Record::Title {
            title: title.clone(),
            at_ms: now_ms(),
        })
        .map_err(Failure::runtime)?;
    outln!("renamed {} to {}", summary.id, shown(&title));
    Ok(Code::Success)
}

pub fn delete(query: &str, dir: Option<&Path>) -> Outcome {
    let (store, _) = workspace_store(dir)?;
    let summary = store.find(query).map_err(Failure::usage)?;
    store.delete(&summary.id).map_err(Failure::runtime)?;
    outln!(
        "deleted session {} (transcript, checkpoints, archive)",
        summary.id
    );
    Ok(Code::Success)
}

pub fn fork(query: &str, turn: Option<u32>, dir: Option<&Path>) -> Outcome {
    let (store, _) = workspace_store(dir)?;
    let summary = store.find(query).map_err(Failure::usage)?;
    let id = reasonix_agent::fork::fork(&store, &summary.id, turn).map_err(Failure::usage)?;
    match turn {
        Some(turn) => outln!("forked {} before turn {turn} as {id}", summary.id),
        None => outln!("forked {} as {id}", summary.id),
    }
    outln!("continue it with: reasonix run --resume {id} \"…\"");
    Ok(Code::Success)
}

pub fn tree(dir: Option<&Path>) -> Outcome {
    let (store, workspace) = workspace_store(dir)?;
    let mut sessions = store.list().map_err(Failure::runtime)?;
    if sessions.is_empty() {
        outln!("no sessions for {}", workspace.display());
        return Ok(Code::Success);
    }
    sessions.sort_by_key(|s| s.created_ms);
    let ids: Vec<String> = sessions.iter().map(|s| s.id.clone()).collect();
    let mut children: BTreeMap<Option<String>, Vec<&Summary>> = BTreeMap::new();
    for s in &sessions {
        // A fork whose parent was deleted is shown as a root.
        let parent = s.parent.clone().filter(|p| ids.contains(p));
        children.entry(parent).or_default().push(s);
    }
    let mut lines = Vec::new();
    tree_lines(&children, None, 0, &mut lines);
    outln!("{}", lines.join("\n"));
    Ok(Code::Success)
}

fn tree_lines(
    children: &BTreeMap<Option<String>, Vec<&Summary>>,
    parent: Option<String>,
    depth: usize,
    out: &mut Vec<String>,
) {
    for s in children.get(&parent).into_iter().flatten() {
        let mut line = "  ".repeat(depth);
        if depth > 0 {
            line.push_str("└─ ");
        }
        line.push_str(&s.id);
        if let Some(turn) = s.parent_turn {
            line.push_str(&format!(" (before turn {turn})"));
        }
        line.push_str(&format!("  {}", shown(&s.title)));
        out.push(line);
        // Depth is bounded by the number of sessions: a parent link cycle cannot recur
        // forever because every session is visited once per parent chain from a root.
        if depth < 64 {
            tree_lines(children, Some(s.id.clone()), depth + 1, out);
        }
    }
}
