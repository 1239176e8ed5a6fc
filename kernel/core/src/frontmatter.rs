//! The `---` block at the top of a Markdown file (custom commands, sub-agent profiles, skills):
//! the subset of YAML these files use in practice, read without a YAML engine.
//!
//! Read: `key: value` (plain, `"…"` or `'…'`), flow lists `[a, b]`, block lists (`- item` lines
//! under a key), block scalars (`|`, `>`, with `-`/`+` chomping) and one level of nested map
//! (`metadata:` then indented `key: value` lines, read as `metadata.key`). Anchors, aliases and
//! tags are not YAML here but text, so a small file can never expand into a large one.
//!
//! Untrusted input (a cloned repository brings its own files): never panics, and every problem
//! names its line in the file.

/// One `key: value` of the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The key; a nested one is `parent.key`.
    pub key: String,
    /// The value as text: unquoted, a block scalar's lines joined, a list's items joined with
    /// `, `.
    pub text: String,
    /// A list's items; for a scalar, its comma-separated parts.
    pub items: Vec<String>,
    /// Whether the value was written as a list (flow or block).
    pub is_list: bool,
    /// The value as written after the colon, trimmed (`[file]` stays `[file]`: a hint a
    /// human reads, though YAML would call it a list).
    pub raw: String,
    /// Its line in the file (1-based).
    pub line: usize,
}

/// A problem with one line of the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "frontmatter line {}: {}", self.line, self.message)
    }
}

/// A file split into its frontmatter and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<'a> {
    pub fields: Vec<Field>,
    /// The text after the closing `---`; the whole text when there is no block (or it is not
    /// closed).
    pub body: &'a str,
    /// What could not be read; the fields that could are kept.
    pub problems: Vec<Problem>,
}

impl Parsed<'_> {
    /// The field `key` (the first, when it is repeated).
    pub fn get(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// `key`'s text, trimmed; `None` when absent or empty.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key)
            .map(|f| f.text.trim())
            .filter(|t| !t.is_empty())
    }

    /// `key` as a boolean (`true`/`false`, `yes`/`no`, any case); an absent key is `None`,
    /// anything else a problem naming the line.
    pub fn flag(&self, key: &str) -> Result<Option<bool>, Problem> {
        let Some(field) = self.get(key) else {
            return Ok(None);
        };
        match field.text.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Ok(Some(true)),
            "false" | "no" | "off" | "" => Ok(Some(false)),
            other => Err(Problem {
                line: field.line,
                message: format!(
                    "`{key}` is `{}`, not true or false",
                    crate::terminal::shown(other)
                ),
            }),
        }
    }
}

/// Split `text` into frontmatter and body. A block that is never closed is reported and the
/// whole text is the body.
pub fn parse(text: &str) -> Parsed<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Parsed {
            fields: Vec::new(),
            body: text,
            problems: Vec::new(),
        };
    };
    let mut lines: Vec<&str> = Vec::new();
    let mut offset = 0;
    let mut body = None;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim_end() == "---" {
            body = Some(&rest[offset..]);
            break;
        }
        lines.push(line);
    }
    let Some(body) = body else {
        return Parsed {
            fields: Vec::new(),
            body: text,
            problems: vec![Problem {
                line: 1,
                message: "the block is not closed with `---`".into(),
            }],
        };
    };
    let (fields, problems) = read_block(&lines);
    Parsed {
        fields,
        body,
        problems,
    }
}

/// Reads the block's lines (the first is line 2 of the file).
fn read_block(lines: &[&str]) -> (Vec<Field>, Vec<Problem>) {
    let mut fields: Vec<Field> = Vec::new();
    let mut problems = Vec::new();
    // The top-level key whose indented lines follow (a block list or a nested map).
    let mut parent: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let number = i + 2;
        i += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if let Some(item) = trimmed
            .strip_prefix('-')
            .filter(|r| r.is_empty() || r.starts_with(' '))
        {
            match parent.and_then(|p| fields.get_mut(p)) {
                Some(field) if field.items.is_empty() || field.is_list => {
                    field.is_list = true;
                    field.items.push(unquote(item.trim()).to_string());
                    field.text = field.items.join(", ");
                }
                _ => problems.push(Problem {
                    line: number,
                    message: "a list item without a key above it".into(),
                }),
            }
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            problems.push(Problem {
                line: number,
                message: "expected `key: value`".into(),
            });
            continue;
        };
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) {
            problems.push(Problem {
                line: number,
                message: format!("`{}` is not a key", crate::terminal::shown(key)),
            });
            continue;
        }
        let value = value.trim();
        let full_key = match (indented, parent.and_then(|p| fields.get(p))) {
            (true, Some(p)) if !p.is_list => format!("{}.{key}", p.key),
            (true, _) => {
                problems.push(Problem {
                    line: number,
                    message: format!(
                        "`{}` is indented but no key above it takes nested keys",
                        crate::terminal::shown(key)
                    ),
                });
                continue;
            }
            (false, _) => key.to_string(),
        };
        if fields.iter().any(|f| f.key == full_key) {
            problems.push(Problem {
                line: number,
                message: format!("`{}` is given twice", crate::terminal::shown(&full_key)),
            });
            continue;
        }
        let mut field = Field {
            key: full_key,
            text: String::new(),
            items: Vec::new(),
            is_list: false,
            raw: value.to_string(),
            line: number,
        };
        if let Some(style) = block_scalar(value) {
            let indent = line.len() - line.trim_start().len();
            let (text, used) = block_text(&lines[i..], indent, style);
            i += used;
            field.items = vec![text.clone()];
            field.text = text;
        } else if let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
            field.is_list = true;
            field.items = split_items(inner);
            field.text = field.items.join(", ");
        } else {
            field.text = unquote(value).to_string();
            field.items = split_items(value);
        }
        if !indented {
            parent = value.is_empty().then_some(fields.len());
        }
        fields.push(field);
    }
    (fields, problems)
}

#[derive(Debug, Clone, Copy)]
enum Style {
    Literal,
    Folded,
}

/// `|`, `>` with an optional chomping or indentation indicator.
fn block_scalar(value: &str) -> Option<Style> {
    let style = match value.chars().next()? {
        '|' => Style::Literal,
        '>' => Style::Folded,
        _ => return None,
    };
    value[1..]
        .chars()
        .all(|c| matches!(c, '-' | '+') || c.is_ascii_digit())
        .then_some(style)
}

/// The lines of a block scalar (those more indented than its key, and blank ones) and how
/// many lines it took.
fn block_text(lines: &[&str], key_indent: usize, style: Style) -> (String, usize) {
    let mut taken: Vec<&str> = Vec::new();
    for line in lines {
        let indent = line.len() - line.trim_start().len();
        if !line.trim().is_empty() && indent <= key_indent {
            break;
        }
        taken.push(line);
    }
    while taken.last().is_some_and(|l| l.trim().is_empty()) {
        taken.pop();
    }
    let used = taken.len();
    let common = taken
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let stripped: Vec<&str> = taken
        .iter()
        .map(|l| l.get(common..).unwrap_or("").trim_end())
        .collect();
    let text = match style {
        Style::Literal => stripped.join("\n"),
        Style::Folded => {
            let mut out = String::new();
            for line in stripped {
                if line.is_empty() {
                    out.push('\n');
                } else {
                    if !out.is_empty() && !out.ends_with('\n') {
                        out.push(' ');
                    }
                    out.push_str(line);
                }
            }
            out
        }
    };
    // Trailing blank lines are left to the caller, which skips them.
    (text, used)
}

/// `a, "b", c` → its parts, unquoted, empty ones dropped.
fn split_items(text: &str) -> Vec<String> {
    text.split(',')
        .map(|v| unquote(v.trim()).to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

/// `s` without one pair of surrounding `"` or `'`.
pub fn unquote(s: &str) -> &str {
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn scalars_lists_and_body() {
        let p = parse(
            "---\nname: pdf-notes\ndescription: \"Take notes: from PDFs\"\ntools: Read, Grep\nflow: [a, 'b']\nblock:\n  - x\n  - \"y\"\n---\n# Body\n",
        );
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.text("name"), Some("pdf-notes"));
        assert_eq!(p.text("description"), Some("Take notes: from PDFs"));
        assert_eq!(p.get("tools").unwrap().items, ["Read", "Grep"]);
        assert!(!p.get("tools").unwrap().is_list);
        assert_eq!(p.get("flow").unwrap().items, ["a", "b"]);
        assert_eq!(p.get("block").unwrap().items, ["x", "y"]);
        assert!(p.get("block").unwrap().is_list);
        assert_eq!(p.get("block").unwrap().line, 6);
        assert_eq!(p.body, "# Body\n");
    }

    #[test]
    fn block_scalars_and_nested_maps() {
        let p = parse(
            "---\ndescription: >-\n  Folded text\n  goes on.\n\n  New paragraph.\nliteral: |\n  one\n    two\nmetadata:\n  author: me\n  version: \"1.0\"\nname: last\n---\nB",
        );
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(
            p.text("description"),
            Some("Folded text goes on.\nNew paragraph.")
        );
        assert_eq!(p.text("literal"), Some("one\n  two"));
        assert_eq!(p.text("metadata.author"), Some("me"));
        assert_eq!(p.text("metadata.version"), Some("1.0"));
        assert_eq!(p.text("name"), Some("last"));
        assert_eq!(p.body, "B");
    }

    #[test]
    fn problems_name_their_lines_and_keep_the_rest() {
        let p = parse("---\nname: a\nno colon here\nname: b\n  - stray\n---\nB");
        let lines: Vec<usize> = p.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [3, 4, 5], "{:?}", p.problems);
        assert_eq!(p.text("name"), Some("a"));
        let unclosed = parse("---\nname: a\n");
        assert_eq!(unclosed.problems.len(), 1);
        assert_eq!(unclosed.body, "---\nname: a\n");
        assert!(unclosed.fields.is_empty());
        assert_eq!(parse("no block").body, "no block");
    }

    #[test]
    fn flags() {
        let p = parse("---\na: true\nb: No\nc: maybe\n---\n");
        assert_eq!(p.flag("a"), Ok(Some(true)));
        assert_eq!(p.flag("b"), Ok(Some(false)));
        assert_eq!(p.flag("z"), Ok(None));
        assert_eq!(p.flag("c").unwrap_err().line, 4);
    }

    #[test]
    fn aliases_are_text() {
        let p = parse("---\na: &x [1, 2]\nb: *x\n---\n");
        assert_eq!(p.text("b"), Some("*x"));
    }

    proptest! {
        #[test]
        fn never_panics_and_the_body_is_a_suffix(text in "(---\n)?([-a-z:|> \\[\\]\"'#\n]{0,200})(\n---\n)?[a-z\n]{0,20}") {
            let p = parse(&text);
            prop_assert!(text.ends_with(p.body));
            for problem in &p.problems {
                prop_assert!(problem.line >= 1 && problem.line <= text.lines().count().max(1) + 1);
            }
        }
    }
}
