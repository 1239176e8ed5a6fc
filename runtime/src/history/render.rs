//! What the model reads back: ranked hits with bounded snippets, and bounded windows of a
//! transcript. Every piece is cut to a size, so one call's result stays small whatever the
//! saved sessions hold (the agent's result bounding and redaction then apply as to any tool).

use super::index::{FileIndex, Hit, Index};
use super::scan::{self, Entry};
use super::{hit_id, tokenize};
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::types::Role;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Characters of one hit's snippet.
const SNIPPET_CHARS: usize = 280;
/// Characters shown of one message in a window.
const WINDOW_MESSAGE_CHARS: usize = 1_500;
/// The most bytes one search or window result takes.
const MAX_SEARCH_BYTES: usize = 12 * 1024;
const MAX_AROUND_BYTES: usize = 24 * 1024;

pub fn search(index: &Index, hits: &[Hit], query: &str, global: bool) -> String {
    let place = if global {
        "the saved sessions of every workspace"
    } else {
        "this project's saved sessions"
    };
    if hits.is_empty() {
        let widen = if global {
            "use fewer words"
        } else {
            "widen the search with scope \"global\" (every workspace's sessions)"
        };
        return format!(
            "No matches for \"{query}\" in {place}. Retry with rarer, more specific terms (a name, an identifier, an error message, a file name), or {widen}."
        );
    }
    let terms: BTreeSet<String> = tokenize::terms(query).into_iter().collect();
    let mut out = format!(
        "{} {} for \"{query}\" in {place}, best first:\n",
        hits.len(),
        if hits.len() == 1 { "hit" } else { "hits" }
    );
    let mut shown = 0;
    for (rank, hit) in hits.iter().enumerate() {
        let Some(file) = index.file(hit.file) else {
            continue;
        };
        let Some(doc) = file.docs.get(hit.doc) else {
            continue;
        };
        let text = match scan::line_at(&file.source, doc.offset) {
            Ok(Entry::Message { text, .. }) => text,
            _ => continue,
        };
        let mut entry = format!(
            "\n[{}] {} · {} · {} · score {:.2}",
            rank + 1,
            hit_id(&file.session, doc.n, file.archive),
            date(doc.at_ms),
            role(doc.role),
            hit.score
        );
        if file.archive {
            entry.push_str(" · archived by compaction");
        }
        if global && !file.workspace.is_empty() {
            let _ = write!(entry, " · workspace {}", file.workspace);
        }
        let _ = write!(entry, "\n    {}\n", snippet(&text, &terms));
        if out.len() + entry.len() > MAX_SEARCH_BYTES {
            break;
        }
        out.push_str(&entry);
        shown += 1;
    }
    if shown < hits.len() {
        let _ = writeln!(
            out,
            "\n({} more hits left out for size)",
            hits.len() - shown
        );
    }
    out.push_str(
        "\nRead the conversation around a hit with {\"operation\":\"around\",\"hit\":\"<id>\"} (same scope).",
    );
    out
}

pub fn around(file: &FileIndex, message: usize, window: usize) -> Result<String, CallError> {
    let total = file.docs.len();
    if message >= total {
        return Err(CallError::Plugin(PluginError::InvalidInput(format!(
            "session `{}` has messages 0–{} ; message {message} is past its end",
            file.session,
            total.saturating_sub(1)
        ))));
    }
    let lo = message.saturating_sub(window);
    let hi = (message + window).min(total - 1);
    let mut out = format!(
        "Session {}{} (workspace {}, started {}), messages {lo}–{hi} of {total}:\n",
        file.session,
        if file.archive {
            ", messages compaction archived"
        } else {
            ""
        },
        if file.workspace.is_empty() {
            "unknown"
        } else {
            &file.workspace
        },
        date(file.created_ms)
    );
    for doc in &file.docs[lo..=hi] {
        let text = match scan::line_at(&file.source, doc.offset) {
            Ok(Entry::Message { text, .. }) => text,
            _ => "(this message could not be read back)".to_string(),
        };
        let mark = if doc.n as usize == message {
            " (the hit)"
        } else {
            ""
        };
        let entry = format!(
            "\n--- #{} {} · {}{mark}\n{}\n",
            doc.n,
            role(doc.role),
            date(doc.at_ms),
            cut(text.trim(), WINDOW_MESSAGE_CHARS)
        );
        if out.len() + entry.len() > MAX_AROUND_BYTES {
            out.push_str(
                "\n(the rest of the window is left out for size; ask for a smaller window)\n",
            );
            break;
        }
        out.push_str(&entry);
    }
    Ok(out)
}

/// About [`SNIPPET_CHARS`] of `text` on one line, around the first query term in it.
fn snippet(text: &str, terms: &BTreeSet<String>) -> String {
    let start = tokenize::tokens(text)
        .into_iter()
        .find(|t| terms.contains(&t.term))
        .map_or(0, |t| t.start);
    // Some context before the match: back up a third of the snippet, on a char boundary.
    let before: usize = text[..start]
        .chars()
        .rev()
        .take(SNIPPET_CHARS / 3)
        .map(char::len_utf8)
        .sum();
    let from = start - before;
    let piece: String = text[from..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut shown = cut(&piece, SNIPPET_CHARS);
    if from > 0 {
        shown.insert(0, '…');
    }
    shown
}

/// At most `max` characters, saying how many more there were.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => {
            let rest = text[at..].chars().count();
            format!("{}… ({rest} more characters)", &text[..at])
        }
        None => text.to_string(),
    }
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool result",
    }
}

/// `YYYY-MM-DD HH:MM UTC`.
fn date(ms: u64) -> String {
    if ms == 0 {
        return "unknown date".into();
    }
    let secs = ms / 1000;
    let (y, m, d) =
        reasonix_agent::session::civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0));
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_start_near_the_match_and_are_bounded() {
        let terms: BTreeSet<String> = ["sqlite".to_string()].into();
        let text = format!(
            "{} we chose SQLite\n\nfor   the cache {}",
            "x ".repeat(400),
            "y ".repeat(400)
        );
        let s = snippet(&text, &terms);
        assert!(s.starts_with('…'), "{s}");
        assert!(s.contains("we chose SQLite for the cache"), "{s}");
        assert!(
            s.chars().count() < SNIPPET_CHARS + 40,
            "{}",
            s.chars().count()
        );
        // CJK offsets stay on character boundaries.
        let terms: BTreeSet<String> = ["数据".to_string()].into();
        let s = snippet(
            &"字".repeat(200).to_string().replace("字字字字", "字数据库"),
            &terms,
        );
        assert!(s.contains("数据"), "{s}");
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(date(0), "unknown date");
        assert_eq!(date(1_796_000_000_000), "2026-11-30 00:53 UTC");
    }
}
