//! Tiered compaction of a conversation that nears the model's context window (docs/COMPACTION.md).
//!
//! This module is the pure part: where the recent tail starts, how stale tool results are
//! snipped or pruned, which messages a summary folds and which it keeps verbatim. It never
//! talks to a provider; the agent loop ([`crate::agent_loop`]) decides when to compact, asks
//! for the summary and records the result. Every function here is deterministic: the same
//! history gives the same bytes, so a compaction replays identically.

#[cfg(test)]
mod tests;

use crate::types::{Message, Role};
use serde::Serialize;

pub use reasonix_config::Ratios;

/// Which tier a compaction reached (the highest one that changed something).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Stale tool results shortened to a head and a tail.
    Snip,
    /// Stale tool results replaced by a placeholder.
    Prune,
    /// Older assistant/tool work folded into one digest message.
    Summary,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Snip => "snip",
            Tier::Prune => "prune",
            Tier::Summary => "summary",
        }
    }
}

/// A tool result longer than this (in characters) is snipped.
pub const SNIP_OVER_CHARS: usize = 1_600;
/// Characters a snipped result keeps from its start …
pub const SNIP_HEAD_CHARS: usize = 600;
/// … and from its end.
pub const SNIP_TAIL_CHARS: usize = 300;
/// A tool result longer than this (in characters) is pruned.
pub const PRUNE_OVER_CHARS: usize = 200;
/// A user message up to this many tokens is kept verbatim by a summary (the reference's pin).
pub const PIN_EACH_TOKENS: u64 = 1_500;
/// The most tokens of user messages a summary keeps verbatim in total.
pub const PIN_TOTAL_TOKENS: u64 = 8_192;

const SNIP_MARK: &str = "characters cut by compaction";
const PRUNE_MARK: &str = "[tool result pruned by compaction:";
/// A digest message starts with this, then its number and `]`.
pub const DIGEST_MARK: &str = "[Reasonix compaction digest #";

/// What one image is counted as: about what a large image (~1.15 megapixels) costs on the
/// dearest of the common backends. Its base64 is not text the model reads.
pub const IMAGE_TOKENS: u64 = 1_600;

/// A rough token count of one message as sent (bytes / 4, plus a little per message, plus
/// [`IMAGE_TOKENS`] per image): the agent adds it to the provider's last reported
/// `prompt_tokens` for what was appended since.
pub fn estimate_tokens(message: &Message) -> u64 {
    let mut bytes = message.content.len() + 16;
    bytes += message.reasoning.as_deref().map_or(0, str::len);
    for call in &message.tool_calls {
        bytes += call.id.len() + call.name.len() + call.arguments.len() + 16;
    }
    bytes += message.tool_call_id.as_deref().map_or(0, str::len);
    (bytes as u64).div_ceil(4) + IMAGE_TOKENS * message.images.len() as u64
}

pub fn estimate_all(messages: &[Message]) -> u64 {
    messages.iter().map(estimate_tokens).sum()
}

/// Tokens of the recent tail that no tier rewrites: a tenth of the window, at most 96K.
pub fn tail_budget(window: u64) -> u64 {
    (window / 10).min(96_000)
}

/// Where the recent tail starts: the newest messages within `budget` tokens (at least the
/// last one), moved back so it never begins with a tool result (whose call would be folded
/// away).
pub fn tail_start(history: &[Message], budget: u64) -> usize {
    let mut start = history.len();
    let mut used = 0u64;
    while start > 0 {
        let cost = estimate_tokens(&history[start - 1]);
        if start < history.len() && used + cost > budget {
            break;
        }
        used += cost;
        start -= 1;
    }
    align_off_tool_results(history, start)
}

/// `start` moved back past tool results, onto the assistant message that called them.
pub fn align_off_tool_results(history: &[Message], mut start: usize) -> usize {
    while start > 0 && start < history.len() && history[start].role == Role::Tool {
        start -= 1;
    }
    start
}

/// An error or refusal the model got back: the prune tier keeps these (what failed is short
/// and worth remembering).
pub fn is_error_result(message: &Message) -> bool {
    let text = message.content.trim_start();
    [
        "Error:",
        "Blocked:",
        "The user denied",
        "Cancelled:",
        "Interrupted:",
    ]
    .iter()
    .any(|p| text.starts_with(p))
}

fn is_pruned(text: &str) -> bool {
    text.starts_with(PRUNE_MARK)
}

fn is_snipped(text: &str) -> bool {
    text.contains(SNIP_MARK)
}

/// A digest written by an earlier summary (kept verbatim, never re-summarised).
pub fn is_digest(message: &Message) -> bool {
    message.role == Role::User && message.content.starts_with(DIGEST_MARK)
}

/// `text` shortened to its head and tail with a marker saying how much was cut, or `None`
/// when it is short enough or already snipped or pruned.
pub fn snip_text(text: &str) -> Option<String> {
    let total = text.chars().count();
    if total <= SNIP_OVER_CHARS || is_snipped(text) || is_pruned(text) {
        return None;
    }
    let head_end = text
        .char_indices()
        .nth(SNIP_HEAD_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(total - SNIP_TAIL_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let cut = total - SNIP_HEAD_CHARS - SNIP_TAIL_CHARS;
    Some(format!(
        "{}\n[… {cut} of {total} {SNIP_MARK} …]\n{}",
        &text[..head_end],
        &text[tail_start..]
    ))
}

/// A tool result snipped ([`snip_text`]), or `None` when it is short, already shortened, or an
/// error (kept whole: what failed is short and worth remembering).
pub fn snip_result(message: &Message) -> Option<String> {
    if is_error_result(message) {
        return None;
    }
    snip_text(&message.content)
}

/// The placeholder a pruned result becomes, or `None` when it is short (and has no images),
/// already pruned, or an error (kept).
pub fn prune_text(message: &Message) -> Option<String> {
    let text = &message.content;
    let short = text.chars().count() <= PRUNE_OVER_CHARS && message.images.is_empty();
    if short || is_pruned(text) || is_error_result(message) {
        return None;
    }
    let images = match message.images.len() {
        0 => String::new(),
        n => format!(" and {n} image(s)"),
    };
    Some(format!(
        "{PRUNE_MARK} {} characters{images}; the original is in the session archive]",
        text.chars().count()
    ))
}

/// Rewrite the tool results before `end` with `rewrite`; returns the indices changed. Never
/// removes or reorders a message, so calls and results stay paired. A rewritten result loses
/// its images: a tier that shortens a result is there to save what it costs.
pub fn rewrite_results(
    history: &mut [Message],
    end: usize,
    rewrite: impl Fn(&Message) -> Option<String>,
) -> Vec<usize> {
    let mut changed = Vec::new();
    for (i, message) in history.iter_mut().enumerate().take(end) {
        if message.role != Role::Tool {
            continue;
        }
        if let Some(text) = rewrite(message) {
            message.content = text;
            message.images.clear();
            changed.push(i);
        }
    }
    changed
}

/// What a summary does with the messages before the tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldPlan {
    /// Where the recent tail starts; everything before is either kept or folded.
    pub boundary: usize,
    /// Indices kept verbatim (user messages within the pin budget, earlier digests), in order.
    pub kept: Vec<usize>,
    /// Indices folded into the new digest, in order.
    pub folded: Vec<usize>,
}

/// Which of `history[..boundary]` a summary keeps and which it folds. User messages of normal
/// size are pinned newest first while `pin_total` lasts; digests are always kept.
pub fn plan_fold(history: &[Message], boundary: usize, pin_total: u64) -> FoldPlan {
    let boundary = align_off_tool_results(history, boundary.min(history.len()));
    let mut pinned = vec![false; boundary];
    let mut budget = pin_total;
    for i in (0..boundary).rev() {
        let m = &history[i];
        if is_digest(m) {
            pinned[i] = true;
        } else if m.role == Role::User {
            let cost = estimate_tokens(m);
            if cost <= PIN_EACH_TOKENS && cost <= budget {
                budget -= cost;
                pinned[i] = true;
            }
        }
    }
    let (kept, folded) = (0..boundary).partition(|&i| pinned[i]);
    FoldPlan {
        boundary,
        kept,
        folded,
    }
}

/// The digest message for summary `number`.
pub fn digest_message(number: u32, summary: &str) -> Message {
    Message::text(
        Role::User,
        format!(
            "{DIGEST_MARK}{number}] Summary of earlier work in this session (the originals are in the session archive):\n\n{}",
            summary.trim()
        ),
    )
}

/// The new head a fold produces: the kept messages in order, then the digest.
pub fn folded_head(history: &[Message], plan: &FoldPlan, digest: Message) -> Vec<Message> {
    let mut head: Vec<Message> = plan.kept.iter().map(|&i| history[i].clone()).collect();
    head.push(digest);
    head
}

/// The instructions of the summary request.
pub const SUMMARY_INSTRUCTIONS: &str = "You compact the working history of a coding agent. \
You get the part of a session that is about to be replaced by your summary: the assistant's \
messages, the tool calls it made and their results. Write one dense summary that lets the agent \
continue the task without the originals: the goal and the decisions taken, the files read or \
changed (paths) and what was found or done in them, commands run and their outcomes, errors and \
how they were resolved, and what is still open. Keep exact names, paths, identifiers and \
numbers. Do not invent anything. The user's own messages are kept separately; do not repeat \
them. Answer with the summary only.";

/// The conversation a summary request folds, as plain text: no tool messages are sent (the
/// request offers no tools, and some providers reject tool messages without them).
pub fn render_for_summary(messages: &[Message], guidance: &str) -> String {
    let mut out = String::new();
    for m in messages {
        let who = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool result",
            Role::System => "system",
        };
        out.push_str(&format!("### {who}\n"));
        if !m.content.is_empty() {
            out.push_str(&m.content);
            out.push('\n');
        }
        for call in &m.tool_calls {
            out.push_str(&format!("→ {}({})\n", call.name, call.arguments));
        }
        out.push('\n');
    }
    let guidance = guidance.trim();
    if !guidance.is_empty() {
        out.push_str("### focus for the summary\n");
        out.push_str(guidance);
        out.push('\n');
    }
    out
}
