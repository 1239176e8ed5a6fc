//! The text being composed: grapheme cells (a paste atom is one cell), a cursor between cells,
//! edits, moves, and the wrapped layout used for rendering and ↑/↓.

use super::paste;
use crate::tui::text;
use std::borrow::Cow;
use unicode_segmentation::UnicodeSegmentation;

/// Columns a tab takes on screen (the text keeps the tab).
const TAB_WIDTH: usize = 4;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    Char(char),
    /// A grapheme cluster of several chars (emoji sequences, combining marks).
    Cluster(Box<str>),
    /// A folded paste: index into [`Editor::pastes`].
    Atom(usize),
}

impl Cell {
    fn from_grapheme(g: &str) -> Cell {
        let mut chars = g.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Cell::Char(c),
            _ => Cell::Cluster(g.into()),
        }
    }

    fn is_newline(&self) -> bool {
        matches!(self, Cell::Char('\n'))
    }

    fn is_space(&self) -> bool {
        match self {
            Cell::Char(c) => c.is_whitespace(),
            _ => false,
        }
    }

    /// Letters, digits and `_` (Alt+←/→ stop at the edges of these).
    fn is_word(&self) -> bool {
        match self {
            Cell::Char(c) => c.is_alphanumeric() || *c == '_',
            Cell::Cluster(s) => s.chars().next().is_some_and(char::is_alphanumeric),
            Cell::Atom(_) => true,
        }
    }
}

/// One screen row of the wrapped text: cells `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub start: usize,
    pub end: usize,
    /// The row ends because the next cell did not fit (not at a newline or the end).
    pub wrapped: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Editor {
    cells: Vec<Cell>,
    cursor: usize,
    pastes: Vec<String>,
}

impl Editor {
    pub fn from_text(s: &str) -> Editor {
        let mut e = Editor::default();
        e.insert_str(s);
        e
    }

    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn set_cursor(&mut self, at: usize) {
        self.cursor = at.min(self.cells.len());
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The text with pastes expanded.
    pub fn text(&self) -> String {
        self.text_of(0, self.cells.len())
    }

    pub fn text_of(&self, from: usize, to: usize) -> String {
        let mut out = String::new();
        for cell in &self.cells[from..to] {
            match cell {
                Cell::Char(c) => out.push(*c),
                Cell::Cluster(s) => out.push_str(s),
                Cell::Atom(i) => out.push_str(self.pastes.get(*i).map_or("", String::as_str)),
            }
        }
        out
    }

    /// Typed text at the cursor (line endings normalised, graphemes merged with the cell
    /// before the cursor when they combine with it).
    pub fn insert_str(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        let s = paste::normalize(s);
        let mut start = self.cursor;
        let mut joined = String::new();
        if let Some(prev @ (Cell::Char(_) | Cell::Cluster(_))) =
            start.checked_sub(1).map(|i| &self.cells[i])
            && !prev.is_newline()
        {
            joined.push_str(&self.text_of(start - 1, start));
            start -= 1;
        }
        joined.push_str(&s);
        let new: Vec<Cell> = joined.graphemes(true).map(Cell::from_grapheme).collect();
        let count = new.len();
        self.cells.splice(start..self.cursor, new);
        self.cursor = start + count;
    }

    /// A paste: folded into one atom when large, else inserted as typed text.
    pub fn paste(&mut self, s: &str) {
        let s = paste::normalize(s);
        if paste::should_fold(&s) {
            self.pastes.push(s);
            self.cells
                .insert(self.cursor, Cell::Atom(self.pastes.len() - 1));
            self.cursor += 1;
        } else {
            self.insert_str(&s);
        }
    }

    /// The label shown for an atom.
    pub fn atom_label(&self, index: usize) -> String {
        paste::label(index + 1, self.pastes.get(index).map_or("", String::as_str))
    }

    /// Removes cells `from..to` (clamped) and leaves the cursor at `from`.
    pub fn delete_range(&mut self, from: usize, to: usize) -> bool {
        let to = to.min(self.cells.len());
        if from >= to {
            return false;
        }
        self.cells.drain(from..to);
        self.cursor = from;
        true
    }

    /// Replaces cells `from..to` by typed text; the cursor ends after it.
    pub fn replace_range(&mut self, from: usize, to: usize, s: &str) {
        self.delete_range(from, to);
        self.cursor = from.min(self.cells.len());
        let new: Vec<Cell> = s.graphemes(true).map(Cell::from_grapheme).collect();
        let count = new.len();
        self.cells.splice(self.cursor..self.cursor, new);
        self.cursor += count;
    }

    pub fn backspace(&mut self) -> bool {
        self.cursor > 0 && self.delete_range(self.cursor - 1, self.cursor)
    }

    pub fn delete(&mut self) -> bool {
        self.delete_range(self.cursor, self.cursor + 1)
    }

    pub fn line_start(&self, at: usize) -> usize {
        self.cells[..at]
            .iter()
            .rposition(Cell::is_newline)
            .map_or(0, |i| i + 1)
    }

    pub fn line_end(&self, at: usize) -> usize {
        self.cells[at..]
            .iter()
            .position(Cell::is_newline)
            .map_or(self.cells.len(), |i| at + i)
    }

    /// Start of the word before the cursor (Alt+←).
    pub fn word_left(&self) -> usize {
        let mut i = self.cursor;
        while i > 0 && !self.cells[i - 1].is_word() {
            i -= 1;
        }
        while i > 0 && self.cells[i - 1].is_word() {
            i -= 1;
        }
        i
    }

    /// End of the word after the cursor (Alt+→).
    pub fn word_right(&self) -> usize {
        let mut i = self.cursor;
        let n = self.cells.len();
        while i < n && !self.cells[i].is_word() {
            i += 1;
        }
        while i < n && self.cells[i].is_word() {
            i += 1;
        }
        i
    }

    /// Start of the whitespace-delimited word before the cursor (Ctrl+W, as in a shell).
    pub fn shell_word_left(&self) -> usize {
        let mut i = self.cursor;
        while i > 0 && self.cells[i - 1].is_space() {
            i -= 1;
        }
        while i > 0 && !self.cells[i - 1].is_space() {
            i -= 1;
        }
        i
    }

    /// Where the whitespace-delimited token containing the cursor starts.
    pub fn token_start(&self) -> usize {
        let mut i = self.cursor;
        while i > 0 && !self.cells[i - 1].is_space() && !matches!(self.cells[i - 1], Cell::Atom(_))
        {
            i -= 1;
        }
        i
    }

    /// What a cell shows: escaped when it would be a control sequence, tabs as spaces.
    pub fn display(&self, cell: &Cell) -> Cow<'static, str> {
        match cell {
            Cell::Char('\t') => Cow::Borrowed("    "),
            Cell::Char(c) => {
                let mut buf = [0u8; 4];
                let s: &str = c.encode_utf8(&mut buf);
                Cow::Owned(text::safe(s).into_owned())
            }
            // Clusters keep their zero-width joiners; a newline is never inside one.
            Cell::Cluster(s) => Cow::Owned(text::safe(s).into_owned()),
            Cell::Atom(i) => Cow::Owned(self.atom_label(*i)),
        }
    }

    pub fn cell_width(&self, cell: &Cell) -> usize {
        match cell {
            Cell::Char('\t') => TAB_WIDTH,
            Cell::Char(c) if c.is_ascii_graphic() || *c == ' ' => 1,
            other => text::width(&self.display(other)),
        }
    }

    /// The text wrapped at `width` columns (at least one row): after the last space that
    /// fits, or inside a word longer than the row.
    pub fn layout(&self, width: usize) -> Vec<Row> {
        let width = width.max(1);
        let mut rows = Vec::new();
        let mut start = 0;
        let mut col = 0;
        // Where the row could break (after a space), and the columns before that point.
        let mut space: Option<(usize, usize)> = None;
        for (i, cell) in self.cells.iter().enumerate() {
            if cell.is_newline() {
                rows.push(Row {
                    start,
                    end: i,
                    wrapped: false,
                });
                start = i + 1;
                col = 0;
                space = None;
                continue;
            }
            let w = self.cell_width(cell);
            if col + w > width && col > 0 && !cell.is_space() {
                let (end, before) = space.filter(|(at, _)| *at > start).unwrap_or((i, col));
                rows.push(Row {
                    start,
                    end,
                    wrapped: true,
                });
                start = end;
                col -= before;
                space = None;
                if col + w > width && col > 0 {
                    rows.push(Row {
                        start,
                        end: i,
                        wrapped: true,
                    });
                    start = i;
                    col = 0;
                }
            }
            col += w;
            if cell.is_space() {
                space = Some((i + 1, col));
            }
        }
        rows.push(Row {
            start,
            end: self.cells.len(),
            wrapped: false,
        });
        rows
    }

    /// The row holding the cursor and its column in it.
    pub fn cursor_in(&self, rows: &[Row]) -> (usize, usize) {
        let row = rows
            .iter()
            .rposition(|r| r.start <= self.cursor)
            .unwrap_or(0);
        let r = rows[row];
        let col = self.cells[r.start..self.cursor.min(r.end.max(r.start))]
            .iter()
            .map(|c| self.cell_width(c))
            .sum();
        (row, col)
    }

    /// The position in `row` closest to column `goal` without passing it.
    pub fn index_at(&self, row: Row, goal: usize) -> usize {
        let last = if row.wrapped && row.end > row.start {
            row.end - 1
        } else {
            row.end
        };
        let mut col = 0;
        let mut i = row.start;
        while i < last {
            let w = self.cell_width(&self.cells[i]);
            if col + w > goal {
                break;
            }
            col += w;
            i += 1;
        }
        i
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn graphemes_are_single_cells() {
        let mut e = Editor::from_text("e\u{301}日👩‍👩‍👧");
        assert_eq!(e.cells().len(), 3);
        assert!(e.backspace());
        assert_eq!(e.text(), "e\u{301}日");
        // A combining mark typed after a letter joins it.
        let mut e = Editor::from_text("a");
        e.insert_str("\u{308}");
        assert_eq!(e.cells().len(), 1);
        e.set_cursor(0);
        assert!(e.delete());
        assert!(e.is_empty());
    }

    #[test]
    fn wraps_wide_characters_by_columns() {
        let e = Editor::from_text("日本語日本");
        let rows = e.layout(4);
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].start, rows[0].end), (0, 2));
        assert_eq!(e.cursor_in(&rows), (2, 2));
        // Column 3 on the first row falls inside 本: the cursor stays before it.
        assert_eq!(e.index_at(rows[0], 3), 1);
    }

    #[test]
    fn wraps_after_spaces_and_inside_long_words() {
        let e = Editor::from_text("aaa bbb ccccccccc d");
        let rows: Vec<String> = e
            .layout(6)
            .iter()
            .map(|r| e.text_of(r.start, r.end))
            .collect();
        assert_eq!(rows, ["aaa ", "bbb ", "cccccc", "ccc d"]);
        // Spaces may hang past the edge rather than start a row.
        let e = Editor::from_text("abcdef   g");
        let rows: Vec<String> = e
            .layout(6)
            .iter()
            .map(|r| e.text_of(r.start, r.end))
            .collect();
        assert_eq!(rows, ["abcdef   ", "g"]);
    }

    #[test]
    fn controls_are_shown_escaped() {
        let e = Editor::from_text("a\u{1b}[2J");
        assert_eq!(e.display(&e.cells()[1]), "\\x1b");
        assert_eq!(e.cell_width(&e.cells()[1]), 4);
    }
}
