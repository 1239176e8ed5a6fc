//! How a run and the interactive session word the same facts, in one place.

use reasonix_agent::AgentEvent;

/// `compacted (summary, #2): ~9,100 → ~2,300 tokens`.
pub fn compacted(event: &AgentEvent) -> String {
    let AgentEvent::Compacted {
        tier,
        number,
        tokens_before,
        tokens_after,
        manual,
    } = event
    else {
        return String::new();
    };
    format!(
        "compacted the history ({}{}, #{number}): ~{tokens_before} → ~{tokens_after} tokens, ~{} saved",
        tier.as_str(),
        if *manual { ", /compact" } else { "" },
        tokens_before.saturating_sub(*tokens_after)
    )
}

/// `tools changed: +a +b -c` (the prefix cache starts over here).
pub fn tools_changed(event: &AgentEvent) -> String {
    let AgentEvent::ToolsChanged { added, removed } = event else {
        return String::new();
    };
    let mut text = String::from("tools changed between turns:");
    for name in added {
        text.push_str(&format!(" +{name}"));
    }
    for name in removed {
        text.push_str(&format!(" -{name}"));
    }
    text
}

/// What [`AgentEvent::StreamRestarted`] means, for people.
pub fn restarted(reasoning: bool) -> &'static str {
    if reasoning {
        "the stream was cut and the replay thinks differently: its reasoning again from the start"
    } else {
        "the stream was cut and the replay answers differently: the answer again from its start"
    }
}
