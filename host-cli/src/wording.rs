//! How a run and the interactive session word the same facts, in one place.

/// `compacted the history (summary, #2): ~9100 → ~2300 tokens, ~6800 saved`.
pub fn compacted(
    tier: &str,
    number: u32,
    tokens_before: u64,
    tokens_after: u64,
    manual: bool,
) -> String {
    format!(
        "compacted the history ({tier}{}, #{number}): ~{tokens_before} → ~{tokens_after} tokens, ~{} saved",
        if manual { ", /compact" } else { "" },
        tokens_before.saturating_sub(tokens_after)
    )
}

/// `tools changed between turns: +a +b -c` (the prefix cache starts over here).
pub fn tools_changed(added: &[String], removed: &[String]) -> String {
    let mut text = String::from("tools changed between turns:");
    for name in added {
        text.push_str(&format!(" +{name}"));
    }
    for name in removed {
        text.push_str(&format!(" -{name}"));
    }
    text
}

/// What a stream restarted by its replay means, for people.
pub fn restarted(reasoning: bool) -> &'static str {
    if reasoning {
        "the stream was cut and the replay thinks differently: its reasoning again from the start"
    } else {
        "the stream was cut and the replay answers differently: the answer again from its start"
    }
}

/// How `run` says a call was refused before running.
pub fn not_run(name: &str, reason: &str) -> String {
    format!("`{name}` not run: {reason}")
}
