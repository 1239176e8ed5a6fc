//! The words after `/mcp__<server>__<prompt>` bound to the prompt's arguments: in order, one
//! word each, the last argument taking the rest of the line; quotes group words.

use reasonix_mcp::PromptArgumentInfo;

/// A word of the line: its text (quotes removed) and where it starts in the line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    text: String,
    start: usize,
}

/// Whitespace separates words; `"…"` or `'…'` at the start of a word groups up to the
/// matching quote (an unclosed quote runs to the end of the line).
fn words(line: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut text = String::new();
        if c == '"' || c == '\'' {
            chars.next();
            for (_, next) in chars.by_ref() {
                if next == c {
                    break;
                }
                text.push(next);
            }
        } else {
            while let Some(&(_, next)) = chars.peek() {
                if next.is_whitespace() {
                    break;
                }
                text.push(next);
                chars.next();
            }
        }
        out.push(Word { text, start });
    }
    out
}

/// `<required> [optional]` for each argument, as `/help` and errors show them.
pub fn usage(arguments: &[PromptArgumentInfo]) -> String {
    arguments
        .iter()
        .map(|a| {
            if a.required {
                format!("<{}>", a.name)
            } else {
                format!("[{}]", a.name)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The values for `arguments` from `line` (by name, only those given), or what is wrong,
/// naming `command` and its arguments.
pub fn bind(
    command: &str,
    arguments: &[PromptArgumentInfo],
    line: &str,
) -> Result<Vec<(String, String)>, String> {
    let line = line.trim();
    let words = words(line);
    if arguments.is_empty() {
        if words.is_empty() {
            return Ok(Vec::new());
        }
        return Err(format!("/{command} takes no arguments"));
    }
    let last = arguments.len() - 1;
    let mut values: Vec<(String, String)> = Vec::new();
    for (i, argument) in arguments.iter().enumerate() {
        let value = if i < last {
            words.get(i).map(|w| w.text.clone())
        } else {
            match &words[i.min(words.len())..] {
                [] => None,
                [only] => Some(only.text.clone()),
                [first, ..] => Some(line[first.start..].trim().to_string()),
            }
        };
        match value {
            Some(value) if !value.is_empty() => values.push((argument.name.clone(), value)),
            _ if argument.required => {
                return Err(format!(
                    "/{command}: the argument `{}` is required; it takes {}",
                    argument.name,
                    usage(arguments)
                ));
            }
            _ => {}
        }
    }
    Ok(values)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arg(name: &str, required: bool) -> PromptArgumentInfo {
        PromptArgumentInfo {
            name: name.into(),
            description: String::new(),
            required,
        }
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn words_map_in_order_and_the_last_takes_the_rest() {
        let args = [arg("city", true), arg("state", false)];
        assert_eq!(
            bind("p", &args, "Paris Île de France").unwrap(),
            pairs(&[("city", "Paris"), ("state", "Île de France")])
        );
        assert_eq!(
            bind("p", &args, r#""New York" "New York State""#).unwrap(),
            pairs(&[("city", "New York"), ("state", "New York State")])
        );
        assert_eq!(
            bind("p", &args, "  Lyon  ").unwrap(),
            pairs(&[("city", "Lyon")])
        );
        // The rest of the line is kept as typed, quotes and all, when it is several words.
        assert_eq!(
            bind("p", &[arg("text", true)], r#"say "hi" twice"#).unwrap(),
            pairs(&[("text", r#"say "hi" twice"#)])
        );
        assert_eq!(
            bind("p", &[arg("a", false), arg("b", false)], "").unwrap(),
            pairs(&[])
        );
    }

    #[test]
    fn a_missing_required_argument_names_it_and_lists_the_arguments() {
        let args = [arg("city", true), arg("state", false)];
        let err = bind("mcp__everything__args-prompt", &args, "").unwrap_err();
        assert!(err.contains("`city` is required"), "{err}");
        assert!(err.contains("<city> [state]"), "{err}");
        assert!(err.contains("/mcp__everything__args-prompt"), "{err}");
        let err = bind("p", &[arg("a", false), arg("b", true)], "x").unwrap_err();
        assert!(err.contains("`b` is required"), "{err}");
        let err = bind("p", &args, r#""""#).unwrap_err();
        assert!(err.contains("`city`"), "{err}");
    }

    #[test]
    fn words_for_a_prompt_without_arguments_are_an_error() {
        assert_eq!(bind("p", &[], " ").unwrap(), pairs(&[]));
        let err = bind("simple", &[], "x").unwrap_err();
        assert!(err.contains("/simple takes no arguments"), "{err}");
    }

    #[test]
    fn an_unclosed_quote_runs_to_the_end() {
        assert_eq!(
            bind("p", &[arg("a", true), arg("b", true)], r#""one two three"#).unwrap_err(),
            "/p: the argument `b` is required; it takes <a> <b>"
        );
        assert_eq!(
            bind("p", &[arg("a", true), arg("b", true)], r#"x 'y z"#).unwrap(),
            pairs(&[("a", "x"), ("b", "y z")])
        );
    }

    proptest! {
        #[test]
        fn never_panics_and_binds_only_known_names(line in "\\PC{0,80}", n in 0usize..4, req in any::<bool>()) {
            let args: Vec<PromptArgumentInfo> = (0..n).map(|i| arg(&format!("a{i}"), req)).collect();
            if let Ok(bound) = bind("p", &args, &line) {
                prop_assert!(bound.len() <= n);
                for (name, value) in &bound {
                    prop_assert!(args.iter().any(|a| &a.name == name));
                    prop_assert!(!value.is_empty());
                }
            }
        }

        #[test]
        fn plain_words_round_trip(ws in proptest::collection::vec("[a-zA-Z0-9._-]{1,8}", 1..6), n in 1usize..4) {
            let args: Vec<PromptArgumentInfo> = (0..n).map(|i| arg(&format!("a{i}"), false)).collect();
            let bound = bind("p", &args, &ws.join(" ")).unwrap();
            for (i, (_, value)) in bound.iter().enumerate() {
                if i + 1 < n {
                    prop_assert_eq!(value, &ws[i]);
                } else {
                    prop_assert_eq!(value, &ws[i..].join(" "));
                }
            }
            prop_assert_eq!(bound.len(), n.min(ws.len()));
        }
    }
}
