//! What one source line of Markdown starts, decided from the line alone (the stream keeps the
//! context: open fence, table, list levels).

/// The kind of a complete source line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block<'a> {
    Blank,
    /// ```` ``` ```` or `~~~` with at least three characters; `info` is the first word after it.
    Fence {
        indent: usize,
        ch: char,
        len: usize,
        info: &'a str,
    },
    Heading {
        level: u8,
        text: &'a str,
    },
    Rule,
    /// `>` markers (`depth` of them) and the rest of the line.
    Quote {
        depth: usize,
        rest: &'a str,
    },
    Item {
        indent: usize,
        /// Where the item's text starts (continuation lines indented this far belong to it).
        content_indent: usize,
        marker: Marker<'a>,
        /// `Some(done)` for a task item (`[ ]`, `[x]`).
        task: Option<bool>,
        text: &'a str,
    },
    Text {
        indent: usize,
        text: &'a str,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marker<'a> {
    Bullet,
    /// The number and its delimiter as written (`3.`, `2)`).
    Ordered(&'a str),
}

/// Columns of leading whitespace (tabs to the next multiple of 4) and the rest.
pub fn indentation(line: &str) -> (usize, &str) {
    let mut cols = 0;
    for (i, c) in line.char_indices() {
        match c {
            ' ' => cols += 1,
            '\t' => cols += 4 - cols % 4,
            _ => return (cols, &line[i..]),
        }
    }
    (cols, "")
}

pub fn classify(line: &str) -> Block<'_> {
    let (indent, rest) = indentation(line);
    if rest.is_empty() {
        return Block::Blank;
    }
    if let Some(fence) = fence(indent, rest) {
        return fence;
    }
    if indent <= 3 {
        if let Some(h) = heading(rest) {
            return h;
        }
        if is_rule(rest) {
            return Block::Rule;
        }
        if rest.starts_with('>') {
            return quote(rest);
        }
    }
    if let Some(item) = item(indent, rest) {
        return item;
    }
    Block::Text { indent, text: rest }
}

fn fence(indent: usize, rest: &str) -> Option<Block<'_>> {
    let ch = rest.chars().next()?;
    if ch != '`' && ch != '~' {
        return None;
    }
    let len = rest.chars().take_while(|c| *c == ch).count();
    if len < 3 {
        return None;
    }
    let info = rest[len..].trim();
    if ch == '`' && info.contains('`') {
        return None;
    }
    let info = info.split_whitespace().next().unwrap_or("");
    // `{.rust}` and `rust,ignore` forms.
    let info = info.trim_start_matches(['{', '.']);
    let info = info.split([',', '}']).next().unwrap_or("");
    Some(Block::Fence {
        indent,
        ch,
        len,
        info,
    })
}

/// Whether `line` closes a fence opened with `len` times `ch`.
pub fn closes_fence(line: &str, ch: char, len: usize) -> bool {
    let rest = line.trim();
    let n = rest.chars().take_while(|c| *c == ch).count();
    n >= len && rest.len() == n * ch.len_utf8()
}

fn heading(rest: &str) -> Option<Block<'_>> {
    let level = rest.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let mut text = after.trim();
    // A closing sequence of #s, when separated by a space.
    let trimmed = text.trim_end_matches('#');
    if trimmed.is_empty() || trimmed.ends_with([' ', '\t']) {
        text = trimmed.trim_end();
    }
    Some(Block::Heading {
        level: level as u8,
        text,
    })
}

fn is_rule(rest: &str) -> bool {
    let Some(first) = rest.chars().next() else {
        return false;
    };
    if !matches!(first, '-' | '*' | '_') {
        return false;
    }
    let mut n = 0;
    for c in rest.chars() {
        if c == first {
            n += 1;
        } else if c != ' ' && c != '\t' {
            return false;
        }
    }
    n >= 3
}

fn quote(rest: &str) -> Block<'_> {
    let mut depth = 0;
    let mut s = rest;
    while let Some(after) = s.strip_prefix('>') {
        depth += 1;
        s = after.strip_prefix(' ').unwrap_or(after);
        let (_, t) = indentation(s);
        if t.starts_with('>') {
            s = t;
        }
    }
    Block::Quote { depth, rest: s }
}

fn item(indent: usize, rest: &str) -> Option<Block<'_>> {
    let marker_len;
    let marker;
    if rest.starts_with(['-', '*', '+']) {
        marker_len = 1;
        marker = Marker::Bullet;
    } else {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || digits > 9 || !rest[digits..].starts_with(['.', ')']) {
            return None;
        }
        marker_len = digits + 1;
        marker = Marker::Ordered(&rest[..marker_len]);
    }
    let after = &rest[marker_len..];
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let spaces = after.chars().take_while(|c| *c == ' ').count();
    let text = after.trim_start();
    // Five or more spaces: the item text starts after one (the rest is indented code in
    // CommonMark; here it is just text).
    let gap = if text.is_empty() || spaces > 4 || spaces == 0 {
        1
    } else {
        spaces
    };
    let (task, text) = task(text);
    Some(Block::Item {
        indent,
        content_indent: indent + marker_len + gap,
        marker,
        task,
        text,
    })
}

fn task(text: &str) -> (Option<bool>, &str) {
    for (box_, done) in [("[ ]", false), ("[x]", true), ("[X]", true)] {
        if let Some(rest) = text.strip_prefix(box_)
            && (rest.is_empty() || rest.starts_with([' ', '\t']))
        {
            return (Some(done), rest.trim_start());
        }
    }
    (None, text)
}

/// Cells of a table row: split on `|` not escaped by a backslash, outer pipes dropped.
pub fn cells(row: &str) -> Vec<&str> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = match row.strip_suffix('|') {
        Some(r) if !r.ends_with('\\') => r,
        _ => row,
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in row.char_indices() {
        match c {
            '\\' => escaped = !escaped,
            '|' if !escaped => {
                out.push(row[start..i].trim());
                start = i + 1;
            }
            _ => escaped = false,
        }
    }
    out.push(row[start..].trim());
    out
}

/// Column alignment from a delimiter row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

/// The alignments, when `row` is a delimiter row (`|---|:-:|`) for a header of `columns` cells.
pub fn delimiter_row(row: &str, columns: usize) -> Option<Vec<Align>> {
    if !row.contains('-') {
        return None;
    }
    let cells = cells(row);
    if cells.len() != columns || (columns == 1 && !row.contains('|')) {
        return None;
    }
    cells
        .iter()
        .map(|cell| {
            let left = cell.starts_with(':');
            let right = cell.ends_with(':') && cell.len() > 1;
            let dashes = cell.trim_start_matches(':').trim_end_matches(':');
            if dashes.is_empty() || !dashes.chars().all(|c| c == '-') {
                return None;
            }
            Some(match (left, right) {
                (true, true) => Align::Center,
                (false, true) => Align::Right,
                _ => Align::Left,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_lines() {
        assert_eq!(classify("   "), Block::Blank);
        assert_eq!(
            classify("## Title ##"),
            Block::Heading {
                level: 2,
                text: "Title"
            }
        );
        assert!(matches!(classify("#hashtag"), Block::Text { .. }));
        assert_eq!(classify("- - -"), Block::Rule);
        assert_eq!(classify("***"), Block::Rule);
        assert!(matches!(classify("**bold**"), Block::Text { .. }));
        assert!(matches!(
            classify("```rust,ignore"),
            Block::Fence {
                ch: '`',
                len: 3,
                info: "rust",
                ..
            }
        ));
        assert!(matches!(
            classify("  - [x] done"),
            Block::Item {
                indent: 2,
                content_indent: 4,
                task: Some(true),
                text: "done",
                ..
            }
        ));
        assert!(matches!(
            classify("10. ten"),
            Block::Item {
                marker: Marker::Ordered("10."),
                content_indent: 4,
                ..
            }
        ));
        assert!(matches!(classify("2024.05 was"), Block::Text { .. }));
        assert_eq!(
            classify("> > deep"),
            Block::Quote {
                depth: 2,
                rest: "deep"
            }
        );
        assert!(closes_fence("  ````  ", '`', 3));
        assert!(!closes_fence("``` x", '`', 3));
        assert!(!closes_fence("``", '`', 3));
    }

    #[test]
    fn table_rows() {
        assert_eq!(cells("| a | b \\| c |"), ["a", "b \\| c"]);
        assert_eq!(cells("a|b"), ["a", "b"]);
        assert_eq!(
            delimiter_row("|:--|--:|:-:|", 3),
            Some(vec![Align::Left, Align::Right, Align::Center])
        );
        assert_eq!(delimiter_row("|--|--|", 3), None);
        assert_eq!(delimiter_row("| a | b |", 2), None);
    }
}
