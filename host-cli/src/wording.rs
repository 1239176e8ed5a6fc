//! How a run and the interactive session word the same facts, in one place, in the user's
//! language (the machine-readable formats ask for English with [`english`]).

use reasonix_i18n::{Language, t, with_language};

/// `f`'s wording in English: for the machine-readable output formats, whatever the user's
/// language.
pub fn english<R>(f: impl FnOnce() -> R) -> R {
    with_language(Language::En, f)
}

/// `compacted the history (summary, #2): ~9100 → ~2300 tokens, ~6800 saved`.
pub fn compacted(
    tier: &str,
    number: u32,
    tokens_before: u64,
    tokens_after: u64,
    manual: bool,
) -> String {
    t!(
        "wording-compacted",
        tier = tier,
        manual = if manual { "yes" } else { "no" },
        number = number.to_string(),
        before = tokens_before.to_string(),
        after = tokens_after.to_string(),
        saved = tokens_before.saturating_sub(tokens_after).to_string()
    )
}

/// `tools changed between turns: +a +b -c` (the prefix cache starts over here).
pub fn tools_changed(added: &[String], removed: &[String]) -> String {
    let mut changes = String::new();
    for name in added {
        changes.push_str(&format!(" +{name}"));
    }
    for name in removed {
        changes.push_str(&format!(" -{name}"));
    }
    t!("wording-tools-changed", changes = changes)
}

/// What a stream restarted by its replay means, for people.
pub fn restarted_text(reasoning: bool) -> String {
    if reasoning {
        t!("wording-restarted-reasoning")
    } else {
        t!("wording-restarted-answer")
    }
}

/// How `run` says a call was refused before running.
pub fn not_run(name: &str, reason: &str) -> String {
    t!("wording-not-run", name = name, reason = reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_words_it_as_before_in_english() {
        english(|| {
            assert_eq!(
                compacted("summary", 2, 9100, 2300, false),
                "compacted the history (summary, #2): ~9100 → ~2300 tokens, ~6800 saved"
            );
            assert_eq!(
                compacted("summary", 3, 100, 40, true),
                "compacted the history (summary, /compact, #3): ~100 → ~40 tokens, ~60 saved"
            );
            assert_eq!(
                tools_changed(&["a".into()], &["b".into()]),
                "tools changed between turns: +a -b"
            );
            assert_eq!(
                restarted_text(true),
                "the stream was cut and the replay thinks differently: its reasoning again from the start"
            );
            assert_eq!(
                restarted_text(false),
                "the stream was cut and the replay answers differently: the answer again from its start"
            );
            assert_eq!(not_run("bash", "denied"), "`bash` not run: denied");
        });
        let zh = with_language(Language::ZhCn, || compacted("summary", 3, 100, 40, true));
        assert_eq!(
            zh,
            "已压缩历史（summary，/compact，第 3 次）：约 100 → 约 40 token，节省约 60"
        );
    }
}
