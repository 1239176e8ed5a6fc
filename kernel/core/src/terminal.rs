//! Untrusted text made safe to show on a terminal.
//!
//! Plugins, servers, models and files choose strings that end up on the user's terminal: a
//! plugin's name, version and description, the capabilities it requests, its log lines and
//! error messages, a tool's output, the model's answer. A terminal obeys the control sequences
//! in what it prints: `ESC[1A ESC[M` moves up and deletes a line, OSC sequences set the title
//! or write the clipboard, a bidi override (U+202E) displays `exe.txt` as `txt.exe`, invisible
//! format characters make two different names look the same. So every such string is rendered
//! through one of the functions here before it is printed; each control, bidi and invisible
//! format character becomes a visible escape (`\x1b`, `\u{202e}`) and the rest is kept as it
//! is (backslashes included: the escapes only need to be visible, not reversible).
//!
//! - [`line`] (and the [`shown`] `Display` wrapper): a one-line field (a name, a version, an
//!   env name, a network pattern, a log line). Newlines and tabs are escaped too, so the field
//!   cannot start a line of its own that looks like the host's.
//! - [`text`]: multi-line text (a tool's output, the model's answer): newlines, tabs and
//!   CR LF are kept; zero-width joiners are kept (scripts and emoji need them).
//! - [`json`]: a JSON document about to be printed: the same characters become `\uXXXX`
//!   escapes, so the document stays valid and means the same.
//!
//! Text without anything to escape is returned borrowed; the scan is the only cost.

use std::borrow::Cow;
use std::fmt;

/// How much of the text's layout is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// One line: nothing that moves the cursor or hides is kept.
    Line,
    /// Several lines: `\n`, `\t`, CR LF and the zero-width joiners are kept.
    Text,
}

/// Bidirectional formatting characters: marks, embeddings, overrides and isolates.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Characters that take no visible space (Unicode format characters, category Cf, and the
/// invisible fillers), other than the bidi ones and the zero-width joiners.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{034f}'
            | '\u{0600}'..='\u{0605}'
            | '\u{06dd}'
            | '\u{070f}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08e2}'
            | '\u{115f}'..='\u{1160}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'
            | '\u{2028}'..='\u{2029}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206a}'..='\u{206f}'
            | '\u{3164}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

/// Whether `c` (followed by `next`) must be escaped in `mode`.
fn must_escape(c: char, next: Option<char>, mode: Mode) -> bool {
    match c {
        '\n' | '\t' => mode == Mode::Line,
        // A carriage return alone rewrites the line it is on; before a newline it is harmless.
        '\r' => mode == Mode::Line || next != Some('\n'),
        '\u{200c}' | '\u{200d}' => mode == Mode::Line,
        // Cc: C0, DEL and C1 (U+0080–U+009F, which some terminals obey as CSI, OSC …).
        c if c.is_control() => true,
        c => is_bidi(c) || is_invisible(c),
    }
}

fn escape_char(c: char, out: &mut String) {
    use std::fmt::Write;
    let _ = match c {
        '\n' => write!(out, "\\n"),
        '\t' => write!(out, "\\t"),
        '\r' => write!(out, "\\r"),
        c if c.is_ascii() => write!(out, "\\x{:02x}", u32::from(c)),
        c => write!(out, "\\u{{{:x}}}", u32::from(c)),
    };
}

fn escape(s: &str, mode: Mode) -> Cow<'_, str> {
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        if must_escape(c, next, mode) {
            let mut out = String::with_capacity(s.len() + 8);
            out.push_str(&s[..i]);
            let mut rest = s[i..].chars().peekable();
            while let Some(c) = rest.next() {
                if must_escape(c, rest.peek().copied(), mode) {
                    escape_char(c, &mut out);
                } else {
                    out.push(c);
                }
            }
            return Cow::Owned(out);
        }
    }
    Cow::Borrowed(s)
}

/// A one-line field, safe to print: controls (newline and tab included), bidi and invisible
/// characters escaped.
pub fn line(s: &str) -> Cow<'_, str> {
    escape(s, Mode::Line)
}

/// Multi-line text, safe to print: like [`line`], but newlines, tabs, CR LF and zero-width
/// joiners are kept.
pub fn text(s: &str) -> Cow<'_, str> {
    escape(s, Mode::Text)
}

/// A JSON document, safe to print and still the same JSON: the characters [`text`] escapes
/// become `\uXXXX` escapes (they can only occur inside strings, where such an escape means the
/// same character). Structural newlines and indentation are kept.
pub fn json(s: &str) -> Cow<'_, str> {
    use std::fmt::Write;
    let dangerous = |c: char, next| c != '\n' && c != '\r' && must_escape(c, next, Mode::Text);
    let mut chars = s.chars().peekable();
    let mut found = false;
    while let Some(c) = chars.next() {
        if dangerous(c, chars.peek().copied()) {
            found = true;
            break;
        }
    }
    if !found {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if dangerous(c, chars.peek().copied()) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Displays a one-line field through [`line`]: `format!("plugin {}", shown(&name))`.
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a>(pub &'a str);

/// Wrap an untrusted one-line field for formatting.
pub fn shown(s: &str) -> Shown<'_> {
    Shown(s)
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so width and alignment (`{:<12}`) work as for a `str`.
        f.pad(&line(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn escapes_by_table() {
        let cases: &[(&str, &str, &str)] = &[
            // input, line, text
            ("plain text", "plain text", "plain text"),
            ("a\x1b[1Ab", "a\\x1b[1Ab", "a\\x1b[1Ab"),
            ("bell\x07", "bell\\x07", "bell\\x07"),
            ("del\x7f", "del\\x7f", "del\\x7f"),
            ("csi\u{9b}2J", "csi\\u{9b}2J", "csi\\u{9b}2J"),
            ("two\nlines", "two\\nlines", "two\nlines"),
            ("tab\there", "tab\\there", "tab\there"),
            ("crlf\r\n", "crlf\\r\\n", "crlf\r\n"),
            ("over\rwrite", "over\\rwrite", "over\\rwrite"),
            ("txt\u{202e}exe", "txt\\u{202e}exe", "txt\\u{202e}exe"),
            (
                "\u{2066}iso\u{2069}",
                "\\u{2066}iso\\u{2069}",
                "\\u{2066}iso\\u{2069}",
            ),
            ("zw\u{200b}sp", "zw\\u{200b}sp", "zw\\u{200b}sp"),
            ("zwj\u{200d}", "zwj\\u{200d}", "zwj\u{200d}"),
            ("bom\u{feff}", "bom\\u{feff}", "bom\\u{feff}"),
            ("tag\u{e0041}", "tag\\u{e0041}", "tag\\u{e0041}"),
            ("ls\u{2028}", "ls\\u{2028}", "ls\\u{2028}"),
            ("nul\0", "nul\\x00", "nul\\x00"),
            ("back\\slash", "back\\slash", "back\\slash"),
            ("中文 ünï €", "中文 ünï €", "中文 ünï €"),
        ];
        for (input, want_line, want_text) in cases {
            assert_eq!(line(input), *want_line, "line({input:?})");
            assert_eq!(text(input), *want_text, "text({input:?})");
            assert_eq!(shown(input).to_string(), *want_line, "shown({input:?})");
        }
    }

    #[test]
    fn shown_pads_like_a_str() {
        assert_eq!(format!("[{:<6}]", shown("a\nb")), "[a\\nb  ]");
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(line("fs-read 0.1.0"), Cow::Borrowed(_)));
        assert!(matches!(text("a\nb\tc\r\n"), Cow::Borrowed(_)));
        assert!(matches!(
            json("{\n  \"a\": \"\\u001b\"\n}"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn json_stays_the_same_json() {
        let value = serde_json::json!({
            "name": "x\u{202e}y\u{1b}[2J\u{7f}\u{9b}\u{e0041}",
            "nested": ["a\nb", "\u{200d}"],
        });
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        let safe = json(&pretty);
        assert!(!safe.contains('\u{202e}') && !safe.contains('\u{7f}') && !safe.contains('\u{9b}'));
        assert!(
            safe.contains("\\u202e") && safe.contains("\\udb40\\udc41"),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }

    fn bad_for_terminal(c: char) -> bool {
        c.is_control() || is_bidi(c) || is_invisible(c)
    }

    proptest! {
        #[test]
        fn line_output_has_no_control_or_invisible(s in "\\PC*|[\\x00-\\x1f\\x7f-\\u{9f}\\u{200b}-\\u{200f}\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}a-z\\\\]{0,40}") {
            let out = line(&s);
            prop_assert!(!out.chars().any(|c| bad_for_terminal(c) || c == '\u{200c}' || c == '\u{200d}'), "{out:?}");
            // Escaping is stable: safe text is left as it is.
            prop_assert_eq!(line(&out), out.clone());
        }

        #[test]
        fn text_output_keeps_only_newlines_and_tabs(s in "[\\x00-\\x1f\\x7f-\\u{9f}\\u{200b}-\\u{200f}\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}a-z\\\\]{0,40}") {
            let out = text(&s);
            let chars: Vec<char> = out.chars().collect();
            for (i, &c) in chars.iter().enumerate() {
                let allowed = c == '\n' || c == '\t' || c == '\u{200c}' || c == '\u{200d}'
                    || (c == '\r' && chars.get(i + 1) == Some(&'\n'));
                prop_assert!(allowed || !bad_for_terminal(c), "{out:?}");
            }
            prop_assert_eq!(s.matches('\n').count(), out.matches('\n').count());
        }

        #[test]
        fn json_output_parses_to_the_same_value(s in "\\PC*|[\\x00-\\x1f\\x7f-\\u{9f}\\u{202a}-\\u{202e}a-z]{0,40}") {
            let value = serde_json::json!({ "s": s });
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            let safe = json(&pretty);
            prop_assert!(!safe.chars().any(|c| c != '\n' && bad_for_terminal(c)), "{safe:?}");
            let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
            prop_assert_eq!(back, value);
        }
    }
}
