//! Words for the history index: lowercase runs of letters, digits and `_`; CJK text (which has
//! no spaces between words) as single characters plus every pair of neighbours, so a two-
//! character word matches as a bigram and a longer phrase still matches piecewise.

/// The longest word kept (in characters); longer runs are cut (base64, hashes).
const MAX_WORD_CHARS: usize = 48;

/// One term and the byte offset in the text where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub term: String,
    pub start: usize,
}

/// Every term of `text`, in order.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut word_start = 0;
    let mut word_chars = 0;
    // The previous character when it was CJK, for the bigram.
    let mut previous_cjk: Option<(char, usize)> = None;
    for (at, c) in text.char_indices() {
        if is_cjk(c) {
            flush(&mut out, &mut word, word_start);
            word_chars = 0;
            out.push(Token {
                term: c.to_string(),
                start: at,
            });
            if let Some((p, p_at)) = previous_cjk {
                out.push(Token {
                    term: format!("{p}{c}"),
                    start: p_at,
                });
            }
            previous_cjk = Some((c, at));
        } else if c.is_alphanumeric() || c == '_' {
            previous_cjk = None;
            if word.is_empty() {
                word_start = at;
            }
            if word_chars < MAX_WORD_CHARS {
                word.extend(c.to_lowercase());
                word_chars += 1;
            }
        } else {
            previous_cjk = None;
            flush(&mut out, &mut word, word_start);
            word_chars = 0;
        }
    }
    flush(&mut out, &mut word, word_start);
    out
}

/// Just the terms.
pub fn terms(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(|t| t.term).collect()
}

fn flush(out: &mut Vec<Token>, word: &mut String, start: usize) {
    if !word.is_empty() {
        out.push(Token {
            term: std::mem::take(word),
            start,
        });
    }
}

/// Han ideographs, kana and Hangul: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FFFF  // CJK Extensions B and later
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn words_are_lowercased_and_split_on_punctuation() {
        assert_eq!(
            terms("Use SQLite, not Postgres! snake_case v2.1"),
            ["use", "sqlite", "not", "postgres", "snake_case", "v2", "1"]
        );
    }

    #[test]
    fn cjk_text_gives_unigrams_and_bigrams() {
        assert_eq!(
            terms("数据库用SQLite"),
            ["数", "据", "数据", "库", "据库", "用", "库用", "sqlite"]
        );
        // A two-character query term matches the bigram of a longer text.
        let text = terms("我们决定使用数据库");
        assert!(text.contains(&"数据".to_string()), "{text:?}");
        assert!(text.contains(&"决定".to_string()), "{text:?}");
        // Kana and Hangul count too; punctuation between CJK characters breaks the pair.
        assert_eq!(terms("カナ。한"), ["カ", "ナ", "カナ", "한"]);
    }

    #[test]
    fn offsets_point_at_the_original_text() {
        let text = "Hello 世界";
        for token in tokens(text) {
            assert!(text.is_char_boundary(token.start));
        }
        assert_eq!(tokens(text)[1].start, "Hello ".len());
    }

    #[test]
    fn long_runs_are_cut() {
        let long = "a".repeat(500);
        assert_eq!(terms(&long)[0].chars().count(), MAX_WORD_CHARS);
    }

    proptest! {
        #[test]
        fn any_text_tokenises_without_panicking(text in "\\PC{0,200}") {
            for token in tokens(&text) {
                prop_assert!(text.is_char_boundary(token.start));
                prop_assert!(!token.term.is_empty());
            }
        }
    }
}
