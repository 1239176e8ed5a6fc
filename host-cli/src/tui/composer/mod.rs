//! The composer: a multi-line input editor as a state machine, independent of the terminal.
//! Keys and pastes go in, [`ComposerAction`]s come out; it renders into a ratatui buffer.
//! It also drives the slash-command menu and `@path` completion shown above it.

pub mod editor;
pub mod history;
pub mod paste;

use crate::tui::mention::{self, Candidate};
use crate::tui::popup;
use crate::tui::slash::SlashRegistry;
use crate::tui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use editor::{Cell as EditCell, Editor};
#[allow(unused_imports)]
pub use history::{History, HistoryError};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::cell::Cell;
use std::path::PathBuf;
use std::sync::Arc;

/// Columns before the text: the prompt `› ` on the first row, indentation after.
const PREFIX: u16 = 2;
/// Rows the composer grows to before it scrolls.
pub const DEFAULT_MAX_ROWS: u16 = 8;
/// `@` completions listed at most.
const MENTION_LIMIT: usize = 200;

/// What a key or paste did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerAction {
    /// Consumed; nothing visible changed.
    None,
    /// Text, cursor or popup changed: redraw.
    Changed,
    /// Enter: the text (pastes expanded), already added to the history; the composer is empty.
    Submit(String),
    /// Not a composer key (Esc with no popup open, Ctrl+C, Ctrl+D on an empty composer,
    /// Shift+Tab, Tab outside an `@` token, …): the app handles it.
    Ignored,
}

#[derive(Debug, Clone)]
enum Popup {
    Slash {
        names: Vec<String>,
        selected: usize,
    },
    Mention {
        items: Vec<Candidate>,
        selected: usize,
    },
}

pub struct Composer {
    editor: Editor,
    history: History,
    /// While walking the history: the entry shown and the draft to come back to.
    browse: Option<(usize, Editor)>,
    popup: Option<Popup>,
    workspace: Option<PathBuf>,
    slash: Option<Arc<SlashRegistry>>,
    /// `@server:uri` completion (MCP resources), listed before paths.
    mcp_resources: crate::tui::mcp::resources::ResourceIndex,
    /// The column ↑/↓ aim for across rows of different lengths.
    goal_col: Option<usize>,
    max_rows: u16,
    placeholder: String,
    warning: Option<String>,
    /// Set while rendering (render takes `&self`): first visible row, and the width last laid
    /// out, which ↑/↓ use to move by screen rows.
    scroll: Cell<usize>,
    width: Cell<u16>,
}

impl Composer {
    pub fn new(history: History) -> Composer {
        Composer {
            editor: Editor::default(),
            history,
            browse: None,
            popup: None,
            workspace: None,
            slash: None,
            mcp_resources: Default::default(),
            goal_col: None,
            max_rows: DEFAULT_MAX_ROWS,
            placeholder: String::new(),
            warning: None,
            scroll: Cell::new(0),
            width: Cell::new(0),
        }
    }

    /// Enables `@path` completion relative to `workspace`.
    pub fn set_workspace(&mut self, workspace: PathBuf) {
        self.workspace = Some(workspace);
    }

    /// Enables the slash menu, which opens while the first word starts with `/`.
    pub fn set_slash_registry(&mut self, registry: Arc<SlashRegistry>) {
        self.slash = Some(registry);
    }

    /// The MCP resources `@server:` completes to.
    pub fn set_mcp_resources(&mut self, resources: crate::tui::mcp::resources::ResourceIndex) {
        self.mcp_resources = resources;
    }

    /// Dim text shown while empty.
    pub fn set_placeholder(&mut self, text: impl Into<String>) {
        self.placeholder = text.into();
    }

    /// Rows the composer grows to before scrolling (at least 1).
    pub fn set_max_rows(&mut self, rows: u16) {
        self.max_rows = rows.max(1);
    }

    #[cfg(test)]
    pub fn history(&self) -> &History {
        &self.history
    }

    /// A problem to show once (the history could not be written).
    pub fn take_warning(&mut self) -> Option<String> {
        self.warning.take()
    }

    #[cfg(test)]
    /// The text with pastes expanded.
    pub fn text(&self) -> String {
        self.editor.text()
    }

    /// Replaces the text (no folding); the cursor goes to the end (a rewind puts a prompt
    /// back).
    pub fn set_text(&mut self, text: &str) {
        self.editor = Editor::from_text(text);
        self.after_edit();
    }

    pub fn clear(&mut self) {
        self.editor = Editor::default();
        self.browse = None;
        self.popup = None;
        self.goal_col = None;
        self.scroll.set(0);
    }

    pub fn is_empty(&self) -> bool {
        self.editor.is_empty()
    }

    #[cfg(test)]
    /// The cursor, in grapheme cells from the start (a folded paste is one cell).
    pub fn cursor(&self) -> usize {
        self.editor.cursor()
    }

    #[cfg(test)]
    pub fn set_cursor(&mut self, at: usize) {
        self.editor.set_cursor(at);
        self.goal_col = None;
    }

    /// Whether the slash menu or the `@` list is open (then Esc, Tab, Enter, ↑/↓ go to it).
    pub fn popup_open(&self) -> bool {
        self.popup.is_some()
    }

    /// A bracketed paste: large ones become one folded atom.
    pub fn handle_paste(&mut self, text: &str) -> ComposerAction {
        if text.is_empty() {
            return ComposerAction::None;
        }
        self.editor.paste(text);
        self.after_edit();
        ComposerAction::Changed
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> ComposerAction {
        if key.kind == KeyEventKind::Release {
            return ComposerAction::None;
        }
        if let Some(action) = self.popup_key(&key) {
            return action;
        }
        let m = key.modifiers;
        let ctrl = m.contains(KeyModifiers::CONTROL);
        let alt = m.contains(KeyModifiers::ALT);
        let shift = m.contains(KeyModifiers::SHIFT);
        let cursor = self.editor.cursor();
        let edited = match key.code {
            KeyCode::Enter if shift || alt => self.insert("\n"),
            // Left to the app (the original steers a running turn with it).
            KeyCode::Enter if ctrl => return ComposerAction::Ignored,
            KeyCode::Char('j') if ctrl && !alt => self.insert("\n"),
            KeyCode::Enter => {
                if cursor > 0 && self.editor.cells()[cursor - 1] == EditCell::Char('\\') {
                    self.editor.backspace();
                    self.insert("\n")
                } else {
                    return self.submit();
                }
            }
            KeyCode::Left if alt || ctrl => return self.move_to(self.editor.word_left()),
            KeyCode::Right if alt || ctrl => return self.move_to(self.editor.word_right()),
            KeyCode::Char('b') if alt && !ctrl => return self.move_to(self.editor.word_left()),
            KeyCode::Char('f') if alt && !ctrl => return self.move_to(self.editor.word_right()),
            KeyCode::Left => return self.move_to(cursor.saturating_sub(1)),
            KeyCode::Right => return self.move_to(cursor + 1),
            KeyCode::Home => return self.move_to(self.editor.line_start(cursor)),
            KeyCode::Char('a') if ctrl && !alt => {
                return self.move_to(self.editor.line_start(cursor));
            }
            KeyCode::End => return self.move_to(self.editor.line_end(cursor)),
            KeyCode::Char('e') if ctrl && !alt => {
                return self.move_to(self.editor.line_end(cursor));
            }
            KeyCode::Backspace if alt || ctrl => {
                let from = self.editor.shell_word_left();
                self.editor.delete_range(from, cursor)
            }
            KeyCode::Char('w') if ctrl && !alt => {
                let from = self.editor.shell_word_left();
                self.editor.delete_range(from, cursor)
            }
            KeyCode::Backspace => self.editor.backspace(),
            KeyCode::Char('h') if ctrl && !alt => self.editor.backspace(),
            KeyCode::Delete => self.editor.delete(),
            KeyCode::Char('d') if ctrl && !alt => {
                if self.editor.is_empty() {
                    return ComposerAction::Ignored;
                }
                self.editor.delete()
            }
            KeyCode::Char('u') if ctrl && !alt => {
                let start = self.editor.line_start(cursor);
                // At the start of a line, join it to the previous one.
                let from = if start == cursor {
                    cursor.saturating_sub(1)
                } else {
                    start
                };
                self.editor.delete_range(from, cursor)
            }
            KeyCode::Char('k') if ctrl && !alt => {
                let end = self.editor.line_end(cursor);
                let to = if end == cursor { cursor + 1 } else { end };
                self.editor.delete_range(cursor, to)
            }
            KeyCode::Up => return self.vertical(-1),
            KeyCode::Down => return self.vertical(1),
            KeyCode::Tab if m.is_empty() => return self.open_mentions(),
            // Ctrl+Alt is how AltGr arrives on some platforms (`@` on many layouts).
            KeyCode::Char(c) if (!ctrl && !alt) || (ctrl && alt) => {
                let mut buf = [0u8; 4];
                self.insert(c.encode_utf8(&mut buf))
            }
            _ => return ComposerAction::Ignored,
        };
        if edited {
            self.after_edit();
            ComposerAction::Changed
        } else {
            ComposerAction::None
        }
    }

    fn insert(&mut self, s: &str) -> bool {
        self.editor.insert_str(s);
        true
    }

    fn move_to(&mut self, at: usize) -> ComposerAction {
        let at = at.min(self.editor.cells().len());
        self.goal_col = None;
        if at == self.editor.cursor() {
            return ComposerAction::None;
        }
        self.editor.set_cursor(at);
        self.refresh_popup();
        ComposerAction::Changed
    }

    /// After any change of the text: leave the history walk, refresh the popups.
    fn after_edit(&mut self) {
        self.browse = None;
        self.goal_col = None;
        self.refresh_popup();
    }

    fn submit(&mut self) -> ComposerAction {
        let text = self.editor.text();
        if text.trim().is_empty() {
            return ComposerAction::None;
        }
        if let Err(e) = self.history.push(&text) {
            self.warning = Some(e.to_string());
        }
        self.clear();
        ComposerAction::Submit(text)
    }

    /// Columns available to the text, as last laid out (unknown before the first layout:
    /// then rows are whole lines).
    fn text_width(&self) -> usize {
        match self.width.get() {
            0 => usize::MAX / 2,
            w => w.saturating_sub(PREFIX).max(1) as usize,
        }
    }

    /// ↑/↓: to the row above/below at the same column; past the first/last row, through the
    /// history (an older entry opens with the cursor at its start, a newer one at its end).
    fn vertical(&mut self, dir: isize) -> ComposerAction {
        let rows = self.editor.layout(self.text_width());
        let (row, col) = self.editor.cursor_in(&rows);
        let target = row as isize + dir;
        if target >= 0 && (target as usize) < rows.len() {
            let goal = self.goal_col.unwrap_or(col);
            let at = self.editor.index_at(rows[target as usize], goal);
            self.editor.set_cursor(at);
            self.goal_col = Some(goal);
            self.refresh_popup();
            return ComposerAction::Changed;
        }
        let walked = if dir < 0 {
            self.history_older()
        } else {
            self.history_newer()
        };
        if walked {
            self.goal_col = None;
            self.popup = None;
            ComposerAction::Changed
        } else {
            ComposerAction::None
        }
    }

    fn history_older(&mut self) -> bool {
        let n = self.history.len();
        let index = match &self.browse {
            None if n > 0 => n - 1,
            Some((i, _)) if *i > 0 => i - 1,
            _ => return false,
        };
        let draft = match self.browse.take() {
            Some((_, draft)) => draft,
            None => std::mem::take(&mut self.editor),
        };
        self.editor = Editor::from_text(&self.history.entries()[index]);
        self.editor.set_cursor(0);
        self.browse = Some((index, draft));
        true
    }

    fn history_newer(&mut self) -> bool {
        let Some((index, draft)) = self.browse.take() else {
            return false;
        };
        if index + 1 < self.history.len() {
            self.editor = Editor::from_text(&self.history.entries()[index + 1]);
            self.browse = Some((index + 1, draft));
        } else {
            self.editor = draft;
        }
        true
    }

    /// Keys the open popup takes: ↑/↓ select, Tab/Enter accept, Esc closes.
    fn popup_key(&mut self, key: &KeyEvent) -> Option<ComposerAction> {
        let popup = self.popup.as_mut()?;
        let plain = key.modifiers.is_empty() || key.modifiers == KeyModifiers::SHIFT;
        let (len, selected) = match popup {
            Popup::Slash { names, selected } => (names.len(), selected),
            Popup::Mention { items, selected } => (items.len(), selected),
        };
        match key.code {
            KeyCode::Up if plain => *selected = (*selected + len.max(1) - 1) % len.max(1),
            KeyCode::Down if plain => *selected = (*selected + 1) % len.max(1),
            KeyCode::Esc => self.popup = None,
            KeyCode::Tab if key.modifiers.is_empty() => return Some(self.accept(false)),
            KeyCode::Enter if key.modifiers.is_empty() => return Some(self.accept(true)),
            _ => return None,
        }
        Some(ComposerAction::Changed)
    }

    fn accept(&mut self, enter: bool) -> ComposerAction {
        match self.popup.take() {
            Some(Popup::Slash { names, selected }) => {
                let Some(name) = names.get(selected) else {
                    return ComposerAction::None;
                };
                let end = self.first_word_end();
                let followed_by_space = end < self.editor.cells().len();
                if enter {
                    self.editor.replace_range(0, end, &format!("/{name}"));
                    return self.submit();
                }
                if followed_by_space {
                    self.editor.replace_range(0, end, &format!("/{name}"));
                    let after_space = self.editor.cursor() + 1;
                    self.editor.set_cursor(after_space);
                } else {
                    self.editor.replace_range(0, end, &format!("/{name} "));
                }
                self.browse = None;
                self.refresh_popup();
                ComposerAction::Changed
            }
            Some(Popup::Mention { items, selected }) => {
                let Some(c) = items.get(selected) else {
                    return ComposerAction::None;
                };
                self.accept_mention(c.clone())
            }
            None => ComposerAction::None,
        }
    }

    fn accept_mention(&mut self, c: Candidate) -> ComposerAction {
        let start = self.editor.token_start();
        let insert = if c.is_dir {
            c.insert
        } else {
            format!("{} ", c.insert)
        };
        self.editor
            .replace_range(start, self.editor.cursor(), &insert);
        self.browse = None;
        self.popup = None;
        if c.is_dir {
            self.refresh_mentions();
        }
        ComposerAction::Changed
    }

    /// Tab on an `@` token: the list, or the only candidate right away.
    fn open_mentions(&mut self) -> ComposerAction {
        if !self.at_token().is_some_and(|t| t.starts_with('@')) {
            return ComposerAction::Ignored;
        }
        self.refresh_mentions();
        if let Some(Popup::Mention { items, .. }) = &self.popup {
            if items.len() == 1 {
                let only = items[0].clone();
                return self.accept_mention(only);
            }
            return ComposerAction::Changed;
        }
        ComposerAction::None
    }

    /// The token before the cursor, when there is one.
    fn at_token(&self) -> Option<String> {
        let start = self.editor.token_start();
        (start < self.editor.cursor()).then(|| self.editor.text_of(start, self.editor.cursor()))
    }

    fn refresh_mentions(&mut self) {
        self.popup = None;
        let (Some(ws), Some(token)) = (&self.workspace, self.at_token()) else {
            return;
        };
        let Some(partial) = token.strip_prefix('@') else {
            return;
        };
        let mut items = self.mcp_resources.complete(partial, MENTION_LIMIT);
        if let Ok(paths) = mention::complete(ws, partial, MENTION_LIMIT) {
            items.extend(paths);
        }
        if !items.is_empty() {
            self.popup = Some(Popup::Mention { items, selected: 0 });
        }
    }

    fn first_word_end(&self) -> usize {
        let cells = self.editor.cells();
        cells
            .iter()
            .position(|c| {
                matches!(c, EditCell::Char(ch) if ch.is_whitespace())
                    || matches!(c, EditCell::Atom(_))
            })
            .unwrap_or(cells.len())
    }

    /// Keeps the open popup in step with the text: the `@` list follows its token, the slash
    /// menu is open while the cursor is in a first word starting with `/`.
    fn refresh_popup(&mut self) {
        if matches!(self.popup, Some(Popup::Mention { .. })) {
            self.refresh_mentions();
            return;
        }
        let previous = match &self.popup {
            Some(Popup::Slash { names, selected }) => names.get(*selected).cloned(),
            _ => None,
        };
        self.popup = None;
        let Some(registry) = &self.slash else {
            return;
        };
        let cursor = self.editor.cursor();
        if cursor == 0 || cursor > self.first_word_end() {
            return;
        }
        let word = self.editor.text_of(0, cursor);
        let Some(prefix) = word.strip_prefix('/') else {
            return;
        };
        if prefix.contains('/') {
            return;
        }
        let names: Vec<String> = registry
            .complete(prefix)
            .iter()
            .map(|c| c.name.clone())
            .collect();
        if names.is_empty() {
            return;
        }
        // A name typed in full is the one Enter runs; otherwise the selection stays put.
        let selected = names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(prefix))
            .or_else(|| previous.and_then(|p| names.iter().position(|n| *n == p)))
            .unwrap_or(0);
        self.popup = Some(Popup::Slash { names, selected });
    }

    /// Rows the composer needs at `width` columns: grows with the text up to the cap.
    pub fn height(&self, width: u16) -> u16 {
        self.width.set(width);
        let rows = self.editor.layout(self.text_width()).len();
        rows.clamp(1, self.max_rows as usize) as u16
    }

    /// The first visible row that keeps the cursor in view, remembered across frames.
    fn scroll_for(&self, cursor_row: usize, rows: usize, visible: usize) -> usize {
        let mut top = self.scroll.get();
        if cursor_row < top {
            top = cursor_row;
        }
        if visible > 0 && cursor_row >= top + visible {
            top = cursor_row + 1 - visible;
        }
        top.min(rows.saturating_sub(visible))
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        self.width.set(area.width);
        let text_w = self.text_width();
        let rows = self.editor.layout(text_w);
        let (cursor_row, _) = self.editor.cursor_in(&rows);
        let visible = area.height as usize;
        let top = self.scroll_for(cursor_row, rows.len(), visible);
        self.scroll.set(top);
        for (i, row) in rows.iter().enumerate().skip(top).take(visible) {
            let y = area.y + (i - top) as u16;
            let (prefix, style) = if i == 0 {
                ("› ", theme.accent())
            } else if i == top && top > 0 {
                ("↑ ", theme.dim())
            } else if i + 1 == top + visible && i + 1 < rows.len() {
                ("↓ ", theme.dim())
            } else {
                ("  ", theme.plain())
            };
            buf.set_stringn(area.x, y, prefix, area.width as usize, style);
            let mut x = PREFIX as usize;
            for cell in &self.editor.cells()[row.start..row.end] {
                let room = (area.width as usize).saturating_sub(x);
                if room == 0 {
                    break;
                }
                let shown = self.editor.display(cell);
                let style = match cell {
                    EditCell::Atom(_) => theme.accent(),
                    _ => theme.plain(),
                };
                let w = self.editor.cell_width(cell);
                let shown = crate::tui::text::truncate(&shown, room);
                buf.set_stringn(area.x + x as u16, y, &shown, room, style);
                x += w;
            }
        }
        if self.editor.is_empty() && !self.placeholder.is_empty() {
            let room = (area.width.saturating_sub(PREFIX)) as usize;
            let shown = crate::tui::text::truncate(&self.placeholder, room);
            buf.set_stringn(area.x + PREFIX, area.y, &shown, room, theme.dim());
        }
    }

    /// Where the terminal cursor goes for `area` (as last rendered).
    pub fn cursor_position(&self, area: Rect) -> (u16, u16) {
        self.width.set(area.width);
        let text_w = self.text_width();
        let rows = self.editor.layout(text_w);
        let (row, col) = self.editor.cursor_in(&rows);
        let top = self.scroll_for(row, rows.len(), area.height as usize);
        let col = col.min(text_w.saturating_sub(1));
        let x = area.x.saturating_add(PREFIX).saturating_add(col as u16);
        let y = area.y.saturating_add(row.saturating_sub(top) as u16);
        (
            x.min(area.right().saturating_sub(1)),
            y.min(area.bottom().saturating_sub(1)),
        )
    }

    /// Rows the open popup needs (0 when closed).
    pub fn popup_height(&self) -> u16 {
        match &self.popup {
            Some(Popup::Slash { names, .. }) => popup::height(names.len()),
            Some(Popup::Mention { items, .. }) => popup::height(items.len()),
            None => 0,
        }
    }

    /// Draws the open popup (the app places `area` just above the composer).
    pub fn render_popup(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        match &self.popup {
            Some(Popup::Slash { names, selected }) => {
                let Some(registry) = &self.slash else {
                    return;
                };
                let items: Vec<_> = names.iter().filter_map(|n| registry.get(n)).collect();
                popup::render_slash_menu(area, buf, theme, &items, *selected);
            }
            Some(Popup::Mention { items, selected }) => {
                popup::render_mentions(area, buf, theme, items, *selected);
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests;
