//! Custom command files: the frontmatter block and `$`-expansion of the body.
//!
//! Untrusted input (a project's files): never panics, and expansion only substitutes text —
//! Claude Code's `!`cmd`` and `@file` forms are left as they are.

/// The two frontmatter keys we read; other keys are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontmatter {
    pub description: Option<String>,
    pub argument_hint: Option<String>,
}

/// Splits `---\n…\n---\n` off the start of `text`; without a closed block, no frontmatter and
/// the whole text is the body. Lines that are not `key: value` are skipped.
pub fn split_frontmatter(text: &str) -> (Frontmatter, &str) {
    let parsed = reasonix_core::frontmatter::parse(text);
    let fm = Frontmatter {
        description: parsed.get("description").map(|f| f.text.clone()),
        argument_hint: parsed
            .get("argument-hint")
            .map(|f| reasonix_core::frontmatter::unquote(&f.raw).to_string()),
    };
    (fm, parsed.body)
}

/// Shell-like words: whitespace separates, `'…'` and `"…"` group (no expansion inside),
/// a backslash outside single quotes takes the next character literally; an unclosed quote
/// runs to the end.
pub fn split_words(args: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = args.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `$ARGUMENTS` → the whole argument string (trimmed), `$1…$N` → the N-th word (empty when
/// missing), `$$` → `$`; any other `$` stays.
pub fn expand(template: &str, args: &str) -> String {
    if !template.contains('$') {
        return template.to_string();
    }
    let args = args.trim();
    let words = split_words(args);
    let mut out = String::with_capacity(template.len() + args.len());
    let mut rest = template;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            rest = tail;
        } else if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else {
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                out.push('$');
                rest = after;
            } else {
                let n: usize = after[..digits].parse().unwrap_or(usize::MAX);
                if let Some(word) = n.checked_sub(1).and_then(|i| words.get(i)) {
                    out.push_str(word);
                }
                rest = &after[digits..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_description_and_hint_only() {
        let (fm, body) = split_frontmatter(
            "---\ndescription: Review a file\nargument-hint: \"<path> [focus]\"\nallowed-tools: Bash(git:*)\n---\nBody $1\n",
        );
        assert_eq!(fm.description.as_deref(), Some("Review a file"));
        assert_eq!(fm.argument_hint.as_deref(), Some("<path> [focus]"));
        assert_eq!(body, "Body $1\n");
        let (fm, body) = split_frontmatter("---\ndescription: never closed\nbody");
        assert_eq!(fm, Frontmatter::default());
        assert_eq!(body, "---\ndescription: never closed\nbody");
        let (fm, body) = split_frontmatter("---\r\ndescription: crlf\r\n---\r\nx");
        assert_eq!(fm.description.as_deref(), Some("crlf"));
        assert_eq!(body, "x");
    }

    #[test]
    fn expands_arguments_positionals_and_dollars() {
        let t = "all=[$ARGUMENTS] one=[$1] two=[$2] ten=[$10] cost=$$5 lone=$ x=$HOME";
        assert_eq!(
            expand(t, r#"  "src/a b.rs" 'it''s' three  "#),
            "all=[\"src/a b.rs\" 'it''s' three] one=[src/a b.rs] two=[its] ten=[] cost=$5 lone=$ x=$HOME"
        );
        assert_eq!(expand("$0 $1", ""), " ");
        assert_eq!(split_words(r#"a\ b "c \" d" e"#), ["a b", "c \" d", "e"]);
        assert_eq!(
            split_words("unclosed 'quote here"),
            ["unclosed", "quote here"]
        );
    }

    #[test]
    fn shell_and_file_forms_are_left_as_text() {
        let t = "Run !`rm -rf /` and read @secrets.txt for $1";
        assert_eq!(
            expand(t, "x"),
            "Run !`rm -rf /` and read @secrets.txt for x"
        );
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC*", args in "\\PC*") {
            let (_, body) = split_frontmatter(&text);
            let _ = expand(body, &args);
            let _ = expand(&text, &args);
            let _ = split_words(&args);
        }

        #[test]
        fn frontmatter_like_input_never_panics(
            keys in proptest::collection::vec("(description|argument-hint|[a-z-]{0,8}):?[ -~]{0,20}\r?\n", 0..6),
            close in proptest::bool::ANY,
            body in "[ -~$\n]{0,40}",
        ) {
            let text = format!("---\n{}{}{}", keys.concat(), if close { "---\n" } else { "" }, body);
            let (_, b) = split_frontmatter(&text);
            prop_assert!(text.ends_with(b));
        }

        #[test]
        fn without_dollar_expansion_is_identity(template in "[^$]*", args in "\\PC*") {
            prop_assert_eq!(expand(&template, &args), template);
        }
    }
}
