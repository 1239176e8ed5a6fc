//! Large pastes: kept byte-for-byte (line endings normalised) and shown folded as one atom.

use reasonix_i18n::t;

/// A paste over this many lines is folded.
pub const FOLD_LINES: usize = 5;
/// A paste over this many characters is folded.
pub const FOLD_CHARS: usize = 1_000;

/// CRLF and lone CR become LF (terminals and Windows clipboards send both).
pub fn normalize(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_string();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Lines as the user sees them (a trailing newline does not start a new line).
pub fn line_count(text: &str) -> usize {
    text.lines().count().max(1)
}

/// Whether a (normalised) paste is shown folded.
pub fn should_fold(text: &str) -> bool {
    line_count(text) > FOLD_LINES || text.chars().count() > FOLD_CHARS
}

/// The atom's label: `[Pasted text #N +L lines]`, or `+C chars` for one long line.
pub fn label(number: usize, text: &str) -> String {
    let lines = line_count(text);
    if lines > 1 {
        t!("composer-paste-lines", number = number, lines = lines)
    } else {
        t!(
            "composer-paste-chars",
            number = number,
            chars = text.chars().count()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_only_past_the_thresholds() {
        assert!(!should_fold("a\nb\nc\nd\ne"));
        assert!(should_fold("a\nb\nc\nd\ne\nf"));
        assert!(!should_fold(&"x".repeat(1_000)));
        assert!(should_fold(&"x".repeat(1_001)));
        // Characters, not bytes: 600 CJK characters are 1,800 bytes.
        assert!(!should_fold(&"日".repeat(600)));
    }

    #[test]
    fn normalises_line_endings() {
        assert_eq!(normalize("a\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(label(2, "a\nb\nc\n"), "[Pasted text #2 +3 lines]");
        assert_eq!(label(1, &"x".repeat(1200)), "[Pasted text #1 +1200 chars]");
    }

    #[test]
    fn the_label_is_translated() {
        let zh =
            reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || label(2, "a\nb\nc\n"));
        assert_eq!(zh, "[粘贴文本 #2 +3 行]");
    }
}
