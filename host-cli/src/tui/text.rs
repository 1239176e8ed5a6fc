//! Outside text made safe for the transcript, and measured in terminal columns.

use reasonix_core::terminal;
use std::borrow::Cow;
use unicode_width::UnicodeWidthStr;

/// Multi-line text from outside (an answer, a tool result): controls, bidi and invisible
/// characters become visible escapes; newlines and tabs are kept (tabs are expanded by the
/// caller that lays out lines).
pub fn safe(s: &str) -> Cow<'_, str> {
    terminal::text(s)
}

/// A one-line field from outside (a tool name, a path, a title): newlines and tabs escaped too.
pub fn safe_line(s: &str) -> Cow<'_, str> {
    terminal::line(s)
}

/// One line of prose from outside (an answer, an output line): escaped like [`safe_line`],
/// except that the zero-width joiners stay. Emoji sequences, Persian and Indic text need them,
/// and they can neither move nor hide text.
pub fn safe_prose(s: &str) -> Cow<'_, str> {
    let text = terminal::text(s);
    if !text.contains(['\n', '\t']) {
        return text;
    }
    Cow::Owned(text.replace('\n', "\\n").replace('\t', "\\t"))
}

/// Display width in terminal columns.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` cut to at most `max` columns, with `…` when something was cut.
pub fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    if width(s) <= max {
        return Cow::Borrowed(s);
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_cuts() {
        assert_eq!(safe("a\x1b[2Jb\n"), "a\\x1b[2Jb\n");
        assert_eq!(safe_line("a\nb"), "a\\nb");
        assert_eq!(safe_prose("a\nb\x1b"), "a\\nb\\x1b");
        // A family emoji and a Persian word keep their joiners; a bidi override does not pass.
        assert_eq!(
            safe_prose("👨\u{200d}👩 می\u{200c}خواهم"),
            "👨\u{200d}👩 می\u{200c}خواهم"
        );
        assert_eq!(safe_prose("\u{202e}x"), "\\u{202e}x");
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("hi", 6), "hi");
        assert_eq!(truncate("日本語テキスト", 5), "日本…");
    }
}
