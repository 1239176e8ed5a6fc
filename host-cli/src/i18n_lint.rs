//! A test that fails when a user-facing literal of a translated screen bypasses the catalogue:
//! an English word in a string literal given straight to a rendering call (`Span::styled`,
//! `Span::raw`, `Line::from`, `Line::styled`, also through `format!`). The screens listed in
//! [`TRANSLATED`] are checked; a screen joins the list when its strings move to
//! `i18n/locales/*/ui.ftl` (docs/I18N.md).

/// The source files whose user-facing strings all come from the catalogue.
#[cfg(test)]
const TRANSLATED: &[&str] = &[
    "src/tui/status.rs",
    "src/tui/approval.rs",
    "src/tui/setup/render.rs",
    "src/tui/slash/registry.rs",
    "src/cli_text.rs",
    "src/tui/actions.rs",
    "src/tui/app.rs",
    "src/tui/transcript.rs",
    "src/tui/bang.rs",
    "src/tui/card.rs",
    "src/tui/picker.rs",
    "src/tui/turn_picker.rs",
    "src/tui/rewind.rs",
    "src/tui/goal.rs",
    "src/tui/children.rs",
    "src/tui/composer/history.rs",
    "src/tui/composer/paste.rs",
    "src/tui/mcp/mod.rs",
    "src/tui/mcp/listing.rs",
    "src/tui/mcp/question.rs",
    "src/tui/mcp/resources.rs",
    "src/commands/run/output/mod.rs",
    "src/wording.rs",
    "src/tui/diff.rs",
    "src/tui/mode.rs",
    "src/tui/calls.rs",
    "src/tui/draw.rs",
    "src/tui/setup/state.rs",
    "src/tui/setup/tester.rs",
];

/// The literals of `source` (tests left out) that reach the screen without the catalogue:
/// `(line, literal)`.
#[cfg(test)]
fn bypasses(source: &str) -> Vec<(usize, String)> {
    const CALLS: &[&str] = &[
        "Span::styled(",
        "Span::raw(",
        "Line::from(",
        "Line::styled(",
    ];
    let code = source.split("#[cfg(test)]").next().unwrap_or(source);
    let mut found = Vec::new();
    for call in CALLS {
        let mut from = 0;
        while let Some(at) = code[from..].find(call) {
            let start = from + at + call.len();
            from = start;
            let rest = code[start..].trim_start();
            let rest = rest
                .strip_prefix("format!(")
                .map(str::trim_start)
                .unwrap_or(rest);
            let Some(literal) = rest.strip_prefix('"') else {
                continue;
            };
            let Some(end) = literal.find('"') else {
                continue;
            };
            let text = &literal[..end];
            if has_word(text) {
                let line = code[..start].lines().count();
                found.push((line, text.to_string()));
            }
        }
    }
    found.sort();
    found
}

/// An English word of three letters or more, placeholders (`{name}`) aside.
#[cfg(test)]
fn has_word(text: &str) -> bool {
    let mut plain = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    plain
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| w.len() >= 3)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn translated_screens_take_every_string_from_the_catalogue() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut problems = Vec::new();
        for file in TRANSLATED {
            let source = std::fs::read_to_string(root.join(file)).unwrap();
            for (line, text) in bypasses(&source) {
                problems.push(format!(
                    "{file}:{line}: \"{text}\" bypasses the catalogue (use t!)"
                ));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn a_planted_literal_is_found() {
        let source = r#"
fn draw() {
    let a = Span::styled(t!("ok"), theme.dim());
    let b = Span::styled(
        "Allow this?",
        theme.dim(),
    );
    let c = Line::from(format!("{name}: saved {count}", name = n));
    let d = Span::raw("  ");
    let e = Span::raw(format!("{x} · {y}"));
}
#[cfg(test)]
mod tests { fn t() { Span::raw("English in a test is fine"); } }
"#;
        let found: Vec<String> = bypasses(source).into_iter().map(|(_, t)| t).collect();
        assert_eq!(found, ["Allow this?", "{name}: saved {count}"]);
    }
}
