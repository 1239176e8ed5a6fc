//! The assistant's answer as Markdown, rendered while it streams (docs/tui/render.md).
//!
//! The renderer is line-oriented: each complete source line is classified on its own (with
//! the context the stream keeps: an open fence, a table, the list levels), and its inline
//! markup is rendered by pulldown-cmark. That is what makes streaming cheap and final:
//! a line's rendering never depends on lines after it, except where the stream says so and
//! holds the line back:
//!
//! - a line is committed when its newline arrives (the partial last line is only pending);
//! - a line with a `|` is held until the next line shows whether it is a table header;
//! - a table is held until it ends (its column widths depend on every row);
//! - a code block is committed line by line: its label when the fence opens, each code line
//!   when complete (highlighting carries its state forward, so a line never changes);
//!   at the end of the answer an unclosed fence is closed;
//! - blank lines are held until more content follows (runs collapse to one, none trail).
//!
//! Deviations from CommonMark, chosen for model output: soft line breaks stay line breaks;
//! inline markup does not span lines; `---` under a paragraph is a rule, not a setext
//! heading; list numbers are shown as written.

pub mod block;
mod inline;
pub mod spans;
mod table;
#[cfg(test)]
mod tests;

use self::block::{
    Align, Block, Marker, cells, classify, closes_fence, delimiter_row, indentation,
};
use self::inline::inline;
use self::spans::safe_span;
use super::highlight::CodeHighlighter;
use super::text;
use super::theme::Theme;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

/// Width used when the caller gives none (0).
const DEFAULT_WIDTH: u16 = 80;

/// An answer being streamed: [`push`](Self::push) the deltas, write what it returns into the
/// scrollback, show [`pending`](Self::pending) in the live viewport, and [`finish`](Self::finish)
/// at the end of the answer.
#[derive(Clone)]
pub struct MarkdownStream {
    theme: Theme,
    width: u16,
    /// The incomplete last source line.
    partial: String,
    mode: Mode,
    lists: Vec<ListLevel>,
    /// A blank line was seen; it is drawn only if more content follows.
    blank_pending: bool,
    /// Something was committed (no blank line before the first content).
    started: bool,
    prev: Prev,
    /// [`live_rows`](Self::live_rows) as last computed, with its arguments: a frame drawn
    /// for a key while the stream has not moved reuses it.
    live: std::cell::RefCell<Option<(LiveArgs, Vec<Line<'static>>)>>,
}

type LiveArgs = (u16, usize, usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prev {
    Start,
    Blank,
    List,
    IndentedCode,
    Other,
}

/// An open list item.
#[derive(Debug, Clone)]
struct ListLevel {
    /// Source column of the item's text: deeper lines belong to the item.
    content: usize,
    /// Rendered column where the item's text starts.
    pad: usize,
}

#[derive(Clone, Default)]
enum Mode {
    #[default]
    Flow,
    /// A line with a `|`: a table header if the next line is a delimiter row.
    Held(String),
    Table(TableBuf),
    Fence(FenceBuf),
}

#[derive(Clone)]
struct TableBuf {
    header: String,
    aligns: Vec<Align>,
    rows: Vec<String>,
    pad: usize,
}

#[derive(Clone)]
struct FenceBuf {
    fence: String,
    ch: char,
    len: usize,
    /// Source columns of indentation removed from each code line.
    strip: usize,
    pad: usize,
    code: CodeHighlighter,
}

impl MarkdownStream {
    /// `width`: the terminal's columns, used to lay out tables and rules (other lines are not
    /// wrapped here).
    pub fn new(theme: Theme, width: u16) -> MarkdownStream {
        MarkdownStream {
            theme,
            width: if width == 0 { DEFAULT_WIDTH } else { width },
            partial: String::new(),
            mode: Mode::Flow,
            lists: Vec::new(),
            blank_pending: false,
            started: false,
            prev: Prev::Start,
            live: std::cell::RefCell::new(None),
        }
    }

    /// For lines committed from now on (after a terminal resize).
    pub fn set_width(&mut self, width: u16) {
        self.width = if width == 0 { DEFAULT_WIDTH } else { width };
        self.live.take();
    }

    /// Adds a delta of the answer; returns the lines it completes, which are final.
    /// Cost: the delta, plus the open block when a line completes.
    pub fn push(&mut self, delta: &str) -> Vec<Line<'static>> {
        if !delta.is_empty() {
            self.live.take();
        }
        let mut out = Vec::new();
        let mut rest = delta;
        while let Some(nl) = rest.find('\n') {
            let piece = &rest[..nl];
            rest = &rest[nl + 1..];
            if self.partial.is_empty() {
                self.line(piece.strip_suffix('\r').unwrap_or(piece), &mut out);
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.push_str(piece);
                self.line(line.strip_suffix('\r').unwrap_or(&line), &mut out);
            }
        }
        self.partial.push_str(rest);
        out
    }

    /// The held-back tail (partial line, held line, open table), rendered provisionally.
    #[cfg(test)]
    pub fn pending(&self) -> Vec<Line<'static>> {
        self.pending_within(usize::MAX)
    }

    /// [`pending`](Self::pending), with a partial line wider than `columns` display columns
    /// shortened to its start (which decides what it is: a quote, a list item, a heading),
    /// `…` and its last `columns` columns. The live area shows only the tail of an open
    /// paragraph; rendering all of it every frame made a frame's cost grow with the paragraph.
    pub fn pending_within(&self, columns: usize) -> Vec<Line<'static>> {
        let mut scratch = self.clone();
        if let Some(short) = shortened(&self.partial, columns) {
            scratch.partial = short;
        }
        let mut out = Vec::new();
        scratch.flush(&mut out, false);
        out
    }

    /// The rows the live area shows of the held tail at `width`: its last `lines` source lines,
    /// wrapped, at most the last `rows` of them. Computed once per change of the stream.
    pub fn live_rows(&self, width: u16, lines: usize, rows: usize) -> Vec<Line<'static>> {
        let args = (width, lines, rows);
        if let Some((cached, shown)) = &*self.live.borrow()
            && *cached == args
        {
            return shown.clone();
        }
        let columns = usize::from(width.max(1));
        let pending = self.pending_within(rows.saturating_mul(columns));
        let skip = pending.len().saturating_sub(lines);
        let wrapped = super::wrap::wrap_lines(pending.into_iter().skip(skip).collect(), columns);
        let skip = wrapped.len().saturating_sub(rows);
        let shown: Vec<Line<'static>> = wrapped.into_iter().skip(skip).collect();
        *self.live.borrow_mut() = Some((args, shown.clone()));
        shown
    }

    /// Everything still held, as final lines; the stream is then empty, ready for another answer.
    pub fn finish(&mut self) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        self.flush(&mut out, true);
        *self = MarkdownStream::new(self.theme, self.width);
        out
    }

    fn flush(&mut self, out: &mut Vec<Line<'static>>, last: bool) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.line(line.strip_suffix('\r').unwrap_or(&line), out);
        }
        match std::mem::take(&mut self.mode) {
            Mode::Flow => {}
            Mode::Held(line) => self.block(&line, out),
            Mode::Table(table) => self.table(table, out),
            Mode::Fence(fence) => {
                if last {
                    self.emit(out, fence_line(fence.pad, &fence.fence, self.theme));
                }
            }
        }
    }

    /// One complete source line.
    fn line(&mut self, line: &str, out: &mut Vec<Line<'static>>) {
        match std::mem::take(&mut self.mode) {
            Mode::Fence(mut fence) => {
                if closes_fence(line, fence.ch, fence.len) {
                    self.emit(out, fence_line(fence.pad, &fence.fence, self.theme));
                    self.prev = Prev::Other;
                } else {
                    let mut spans = vec![Span::raw(" ".repeat(fence.pad))];
                    spans.extend(fence.code.line(strip_columns(line, fence.strip)));
                    self.emit(out, Line::from(spans));
                    self.mode = Mode::Fence(fence);
                }
            }
            Mode::Table(mut table) => {
                if line.trim().is_empty() || !line.contains('|') {
                    self.table(table, out);
                    self.flow(line, out);
                } else {
                    table.rows.push(line.to_string());
                    self.mode = Mode::Table(table);
                }
            }
            Mode::Held(header) => {
                if let Some(aligns) = delimiter_row(line, cells(&header).len()) {
                    let (indent, _) = indentation(&header);
                    let pad = self.nest(indent);
                    self.mode = Mode::Table(TableBuf {
                        header,
                        aligns,
                        rows: Vec::new(),
                        pad,
                    });
                } else {
                    self.block(&header, out);
                    self.flow(line, out);
                }
            }
            Mode::Flow => self.flow(line, out),
        }
    }

    /// A line outside fences and tables: held if it may be a table header, else rendered.
    fn flow(&mut self, line: &str, out: &mut Vec<Line<'static>>) {
        if line.contains('|')
            && let Block::Text { indent, .. } = classify(line)
            && !self.indented_code(indent)
        {
            self.mode = Mode::Held(line.to_string());
            return;
        }
        self.block(line, out);
    }

    fn indented_code(&self, indent: usize) -> bool {
        indent >= 4
            && self.lists.is_empty()
            && matches!(self.prev, Prev::Start | Prev::Blank | Prev::IndentedCode)
    }

    /// The rendered indentation of a line at source `indent` inside the open lists (closing
    /// the items it is not part of).
    fn nest(&mut self, indent: usize) -> usize {
        if self.lists.first().is_some_and(|l| indent >= l.content) {
            while self.lists.last().is_some_and(|l| l.content > indent) {
                self.lists.pop();
            }
            self.lists.last().map_or(0, |l| l.pad)
        } else {
            self.lists.clear();
            0
        }
    }

    fn block(&mut self, line: &str, out: &mut Vec<Line<'static>>) {
        let theme = self.theme;
        match classify(line) {
            Block::Blank => {
                self.blank_pending = self.started;
                self.prev = Prev::Blank;
            }
            Block::Fence {
                indent,
                ch,
                len,
                info,
            } => {
                let pad = self.nest(indent);
                let fence = ch.to_string().repeat(len);
                let mut label = fence_line(pad, &fence, theme);
                if !info.is_empty() {
                    label.spans.push(safe_span(info, theme.dim()));
                }
                self.emit(out, label);
                self.mode = Mode::Fence(FenceBuf {
                    fence,
                    ch,
                    len,
                    strip: indent,
                    pad,
                    code: CodeHighlighter::new(info, theme),
                });
                self.prev = Prev::Other;
            }
            Block::Heading { level, text } => {
                self.lists.clear();
                let style = match level {
                    1 => theme.heading().add_modifier(Modifier::UNDERLINED),
                    2 => theme.heading(),
                    _ => theme.plain().add_modifier(Modifier::BOLD),
                };
                self.emit(out, Line::from(inline(text, style, theme)));
                self.prev = Prev::Other;
            }
            Block::Rule => {
                self.lists.clear();
                let rule = "─".repeat(usize::from(self.width));
                self.emit(out, Line::from(Span::styled(rule, theme.dim())));
                self.prev = Prev::Other;
            }
            Block::Quote { depth, rest } => {
                self.lists.clear();
                let mut spans = vec![Span::styled("│ ".repeat(depth), theme.dim())];
                spans.extend(self.quoted(rest));
                self.emit(out, Line::from(spans));
                self.prev = Prev::Other;
            }
            Block::Item {
                indent,
                content_indent,
                marker,
                task,
                text,
            } => {
                while self.lists.last().is_some_and(|l| l.content > indent) {
                    self.lists.pop();
                }
                let pad = self.lists.last().map_or(0, |l| l.pad);
                let marker = match marker {
                    Marker::Bullet => ["•", "◦", "▪"][self.lists.len() % 3].to_string(),
                    Marker::Ordered(n) => n.to_string(),
                };
                let mut spans = vec![
                    Span::raw(" ".repeat(pad)),
                    Span::styled(format!("{marker} "), theme.accent()),
                ];
                let mut body = theme.plain();
                match task {
                    Some(true) => {
                        spans.push(Span::styled("[x] ", theme.success()));
                        body = theme.dim();
                    }
                    Some(false) => spans.push(Span::styled("[ ] ", theme.dim())),
                    None => {}
                }
                spans.extend(inline(text, body, theme));
                self.emit(out, Line::from(spans));
                self.lists.push(ListLevel {
                    content: content_indent,
                    pad: pad + text::width(&marker) + 1,
                });
                self.prev = Prev::List;
            }
            Block::Text { indent, text } => {
                if self.indented_code(indent) {
                    let code = strip_columns(line, 4);
                    let mut spans = vec![Span::raw("    ")];
                    spans.push(safe_span(code, theme.code()));
                    self.emit(out, Line::from(spans));
                    self.prev = Prev::IndentedCode;
                    return;
                }
                let lazy = self.prev == Prev::List
                    && self.lists.first().is_some_and(|l| indent < l.content);
                let pad = if lazy {
                    self.lists.last().map_or(0, |l| l.pad)
                } else {
                    self.nest(indent)
                };
                let mut spans = vec![Span::raw(" ".repeat(pad))];
                spans.extend(inline(text, theme.plain(), theme));
                self.emit(out, Line::from(spans));
                self.prev = if self.lists.is_empty() {
                    Prev::Other
                } else {
                    Prev::List
                };
            }
        }
    }

    /// The content of a quote line: headings and items keep their look, the rest is text.
    fn quoted(&self, rest: &str) -> Vec<Span<'static>> {
        let theme = self.theme;
        let style = theme.plain().add_modifier(Modifier::ITALIC);
        match classify(rest) {
            Block::Heading { text, .. } => inline(text, theme.heading(), theme),
            Block::Item { marker, text, .. } => {
                let marker = match marker {
                    Marker::Bullet => "•".to_string(),
                    Marker::Ordered(n) => n.to_string(),
                };
                let mut spans = vec![Span::styled(format!("{marker} "), theme.accent())];
                spans.extend(inline(text, style, theme));
                spans
            }
            _ => inline(rest.trim(), style, theme),
        }
    }

    fn table(&mut self, t: TableBuf, out: &mut Vec<Line<'static>>) {
        for line in table::render(&t.header, &t.aligns, &t.rows, t.pad, self.width, self.theme) {
            self.emit(out, line);
        }
        self.prev = Prev::Other;
    }

    fn emit(&mut self, out: &mut Vec<Line<'static>>, line: Line<'static>) {
        if self.blank_pending {
            out.push(Line::default());
            self.blank_pending = false;
        }
        self.started = true;
        out.push(line);
    }
}

/// Characters kept from the start of a shortened partial line: enough for indentation, nested
/// quote bars and a list marker.
const LEAD_CHARS: usize = 24;

/// `partial` cut to its lead, ` … ` and its last `columns` display columns (starting after a
/// space when one is near), or None when it is not wider than that.
fn shortened(partial: &str, columns: usize) -> Option<String> {
    use unicode_width::UnicodeWidthChar;
    if partial.len() <= columns {
        return None;
    }
    let mut used = 0;
    let mut cut = None;
    for (i, c) in partial.char_indices().rev() {
        used += c.width().unwrap_or(0);
        if used >= columns {
            cut = Some(i);
            break;
        }
    }
    let cut = cut?;
    let lead_end = partial
        .char_indices()
        .nth(LEAD_CHARS)
        .map_or(partial.len(), |(i, _)| i);
    if cut <= lead_end {
        return None;
    }
    let tail = &partial[cut..];
    let tail = match tail.char_indices().take(32).find(|(_, c)| *c == ' ') {
        Some((i, _)) => &tail[i + 1..],
        None => tail,
    };
    Some(format!("{} … {tail}", &partial[..lead_end]))
}

/// A complete document (a resumed transcript): the same lines a stream commits in total.
pub fn render(text: &str, theme: Theme, width: u16) -> Vec<Line<'static>> {
    let mut stream = MarkdownStream::new(theme, width);
    let mut lines = stream.push(text);
    lines.extend(stream.finish());
    lines
}

fn fence_line(pad: usize, fence: &str, theme: Theme) -> Line<'static> {
    Line::from(vec![
        Span::raw(" ".repeat(pad)),
        Span::styled(fence.to_string(), theme.dim()),
    ])
}

/// `line` without up to `cols` columns of leading whitespace.
fn strip_columns(line: &str, cols: usize) -> &str {
    let mut used = 0;
    for (i, c) in line.char_indices() {
        if used >= cols {
            return &line[i..];
        }
        match c {
            ' ' => used += 1,
            '\t' => used += 4 - used % 4,
            _ => return &line[i..],
        }
    }
    ""
}
