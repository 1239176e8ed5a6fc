//! The terminal while the session owns it: raw mode, bracketed paste, the keyboard
//! enhancement that reports Shift+Enter where the terminal supports it, an inline viewport
//! whose height follows what the live area needs, and restoring everything on exit or panic.
//! No mouse capture: the terminal's own selection and scrollback keep working.

#![allow(clippy::disallowed_methods)] // ratatui writes the frames; spans are escaped already.

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::{cursor, execute, queue, terminal};
use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::Rect;
use ratatui::layout::{Position, Size};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Terminal, TerminalOptions, Viewport};
use std::io::{BufWriter, Stdout, stdout};

pub type Term = Terminal<InlineBackend>;

/// Bytes of output held before a write: a full 120×40 repaint with colours fits.
const FRAME_BUFFER: usize = 64 * 1024;

/// The crossterm backend, except that the cursor position is not asked of the terminal when
/// the session already knows it. ratatui asks (`ESC[6n`) to save and restore the cursor around
/// every insert into the scrollback, and when the live area changes height; the answer
/// travels through the input stream the reader thread polls, and waiting for it cost 25 ms a
/// time. The position last set is what ratatui restores to and what the session's own moves
/// leave; only a resize (when the terminal may have moved things) asks again.
///
/// Output is buffered and, inside a frame, written only at its end: a frame reaches the
/// terminal in one write instead of one per flush of ratatui (each insert into the scrollback,
/// the draw) and per 1 KiB of the standard output's own buffer.
pub struct InlineBackend {
    inner: CrosstermBackend<BufWriter<Stdout>>,
    /// Inside a frame: flushes wait for its end.
    in_frame: bool,
    known_cursor: Option<Position>,
    /// The cursor is hidden: a frame left it after its last cell, not where it was last set.
    hidden: bool,
}

impl Backend for InlineBackend {
    type Error = std::io::Error;

    fn draw<'a, I>(&mut self, content: I) -> std::io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(skip_continuations(content))
    }
    fn append_lines(&mut self, n: u16) -> std::io::Result<()> {
        self.inner.append_lines(n)
    }
    fn hide_cursor(&mut self) -> std::io::Result<()> {
        self.hidden = true;
        self.inner.hide_cursor()
    }
    fn show_cursor(&mut self) -> std::io::Result<()> {
        self.hidden = false;
        self.inner.show_cursor()
    }
    fn get_cursor_position(&mut self) -> std::io::Result<Position> {
        match self.known_cursor {
            Some(position) => Ok(position),
            None => {
                // The terminal answers for what it has been sent: send what is held first.
                Backend::flush(&mut self.inner)?;
                let position = self.inner.get_cursor_position()?;
                self.known_cursor = Some(position);
                Ok(position)
            }
        }
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> std::io::Result<()> {
        let position = position.into();
        self.inner.set_cursor_position(position)?;
        self.known_cursor = Some(position);
        Ok(())
    }
    fn clear(&mut self) -> std::io::Result<()> {
        self.inner.clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> std::io::Result<()> {
        self.inner.clear_region(clear_type)
    }
    fn size(&self) -> std::io::Result<Size> {
        self.inner.size()
    }
    fn window_size(&mut self) -> std::io::Result<WindowSize> {
        self.inner.window_size()
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if self.in_frame {
            return Ok(());
        }
        Backend::flush(&mut self.inner)
    }
}

impl InlineBackend {
    /// Where the session's own commands go, in order with ratatui's output.
    fn out(&mut self) -> &mut impl std::io::Write {
        &mut self.inner
    }
}

/// Leaves out the cells a wide glyph (CJK, most emoji) covers after its first column. A frame's
/// diff leaves them out already, but `insert_before` hands over every cell of the lines it
/// writes into the scrollback: sent as a column each, they pushed every glyph after a wide one
/// a column right (a space after each CJK character, the line's end lost past the margin).
fn skip_continuations<'a>(
    cells: impl Iterator<Item = (u16, u16, &'a Cell)>,
) -> impl Iterator<Item = (u16, u16, &'a Cell)> {
    use unicode_width::UnicodeWidthStr;
    // (row, first column not covered) of the last wide glyph.
    let mut covered: Option<(u16, u16)> = None;
    cells.filter(move |&(x, y, cell)| {
        if let Some((row, free)) = covered
            && row == y
            && x < free
        {
            return false;
        }
        let width = u16::try_from(cell.symbol().width()).unwrap_or(1);
        if width > 1 {
            covered = Some((y, x.saturating_add(width)));
        }
        true
    })
}

pub struct Screen {
    terminal: Term,
    height: u16,
    enhanced: bool,
    /// The terminal's size when the viewport was last placed.
    size: Size,
}

impl Screen {
    /// Take over the terminal with a live area of `height` rows.
    pub fn enter(height: u16) -> std::io::Result<Screen> {
        terminal::enable_raw_mode()?;
        install_panic_restore();
        let mut out = stdout();
        execute!(out, EnableBracketedPaste)?;
        let enhanced = matches!(terminal::supports_keyboard_enhancement(), Ok(true));
        if enhanced {
            execute!(
                out,
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            )?;
        }
        let terminal = new_terminal(height, None)?;
        let size = terminal.size()?;
        Ok(Screen {
            terminal,
            height,
            enhanced,
            size,
        })
    }

    /// Draw the live area. Afterwards the cursor is where the session last put it: a frame
    /// that hides the cursor leaves it after its last cell, so it is put back on the live
    /// area's top row, where a resize looks for it.
    pub fn draw(&mut self, render: impl FnOnce(&mut ratatui::Frame)) -> std::io::Result<()> {
        self.terminal.draw(render)?;
        if self.terminal.backend().hidden {
            let top = self.terminal.get_frame().area().y;
            self.terminal
                .backend_mut()
                .set_cursor_position(Position::new(0, top))?;
        }
        Ok(())
    }

    /// Follow a change of the terminal's size before the next frame. ratatui's own resize
    /// clears the whole screen when the width shrinks, erasing the part of the transcript
    /// still on screen (it is not in the scrollback yet), and puts the live area on the top
    /// row. Here only the live area is cleared: it is found from where the terminal moved the
    /// cursor (a terminal that shrinks keeps the cursor's row and pushes rows above into the
    /// scrollback) and the cursor's row within the live area before the resize.
    pub fn follow_resize(&mut self, size: Size) -> std::io::Result<()> {
        if size == self.size {
            return Ok(());
        }
        let area = self.terminal.get_frame().area();
        let backend = self.terminal.backend_mut();
        let offset = backend
            .known_cursor
            .map_or(0, |cursor| cursor.y.saturating_sub(area.y));
        backend.known_cursor = None;
        let cursor = backend.get_cursor_position()?;
        let top = cursor
            .y
            .saturating_sub(offset)
            .min(size.height.saturating_sub(1));
        queue!(
            backend.out(),
            cursor::MoveTo(0, top),
            terminal::Clear(terminal::ClearType::FromCursorDown)
        )?;
        self.height = self.height.clamp(1, size.height.saturating_sub(1).max(1));
        self.replace_terminal(self.height, Position::new(0, top))?;
        self.size = size;
        Ok(())
    }

    pub fn size(&self) -> std::io::Result<ratatui::layout::Size> {
        self.terminal.size()
    }

    /// Start a frame: the terminal shows nothing of it until [`Screen::end_frame`] (synchronized
    /// update, CSI ?2026; terminals without it ignore the brackets), so committing lines and
    /// redrawing the live area never flickers half-done.
    pub fn begin_frame(&mut self) -> std::io::Result<()> {
        let backend = self.terminal.backend_mut();
        backend.in_frame = true;
        queue!(backend.out(), terminal::BeginSynchronizedUpdate)
    }

    /// End the frame and write all of it.
    pub fn end_frame(&mut self) -> std::io::Result<()> {
        let backend = self.terminal.backend_mut();
        backend.in_frame = false;
        queue!(backend.out(), terminal::EndSynchronizedUpdate)?;
        Backend::flush(backend)
    }

    /// A new viewport of `height` rows at `top`, taking over the old one's writer (and what it
    /// holds of this frame).
    fn replace_terminal(&mut self, height: u16, top: Position) -> std::io::Result<()> {
        let in_frame = self.terminal.backend().in_frame;
        Backend::flush(&mut self.terminal.backend_mut().inner)?;
        self.terminal = new_terminal(height, Some(top))?;
        self.terminal.backend_mut().in_frame = in_frame;
        Ok(())
    }

    /// Make the live area `height` rows, keeping its top row. It is kept a row shorter than
    /// the terminal: a live area as tall as the screen scrolls its own rows (menu, spinner,
    /// composer) into the scrollback when lines are inserted above it.
    pub fn set_height(&mut self, height: u16) -> std::io::Result<()> {
        let rows = self.terminal.size()?.height.saturating_sub(1).max(1);
        let height = height.clamp(1, rows);
        if height == self.height {
            return Ok(());
        }
        let area = self.terminal.get_frame().area();
        queue!(
            self.terminal.backend_mut().out(),
            cursor::MoveTo(0, area.y),
            terminal::Clear(terminal::ClearType::FromCursorDown)
        )?;
        self.replace_terminal(height, Position::new(0, area.y))?;
        self.height = height;
        Ok(())
    }

    /// Make the live area `height` rows for a frame that commits `committed` rows. A live area
    /// that reaches the bottom of the terminal shrinks only by the rows committed above it:
    /// shrinking keeps the top row, so shrinking further would make the composer float up with
    /// blank rows below it (after a question, a picker or a menu closes). The rows it keeps
    /// meanwhile stay blank above the live content, and commits fill them.
    pub fn fit(&mut self, height: u16, committed: usize) -> std::io::Result<()> {
        let rows = self.terminal.size()?.height;
        let height = height.clamp(1, rows.saturating_sub(1).max(1));
        let area = self.terminal.get_frame().area();
        let height = if height < self.height && area.bottom() >= rows {
            let committed = u16::try_from(committed).unwrap_or(u16::MAX);
            height.max(self.height.saturating_sub(committed))
        } else {
            height
        };
        self.set_height(height)
    }

    /// Write finished transcript lines above the live area, into the scrollback. Lines are
    /// wrapped to the terminal width here.
    pub fn commit(&mut self, lines: Vec<Line<'static>>) -> std::io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let width = self.terminal.size()?.width.max(1);
        let lines = super::wrap::wrap_lines(lines, usize::from(width));
        // insert_before renders into a buffer of that many rows: write in chunks so a huge
        // insert does not allocate a buffer for all of it at once.
        for chunk in lines.chunks(256) {
            let height = u16::try_from(chunk.len()).unwrap_or(u16::MAX);
            let chunk = chunk.to_vec();
            self.terminal.insert_before(height, |buf| {
                Paragraph::new(chunk).render(Rect { height, ..buf.area }, buf);
            })?;
        }
        Ok(())
    }

    /// Give the terminal back: the cursor below the live area, modes off.
    pub fn leave(mut self) -> std::io::Result<()> {
        let area = self.terminal.get_frame().area();
        let backend = self.terminal.backend_mut();
        backend.in_frame = false;
        let _ = queue!(
            backend.out(),
            cursor::MoveTo(0, area.y),
            terminal::Clear(terminal::ClearType::FromCursorDown)
        );
        let _ = Backend::flush(backend);
        self.restore()
    }

    fn restore(&mut self) -> std::io::Result<()> {
        restore_modes(self.enhanced)
    }
}

/// An inline viewport of `height` rows at the cursor (`cursor` when the caller knows where
/// it is, else asked of the terminal).
fn new_terminal(height: u16, cursor: Option<Position>) -> std::io::Result<Term> {
    Terminal::with_options(
        InlineBackend {
            inner: CrosstermBackend::new(BufWriter::with_capacity(FRAME_BUFFER, stdout())),
            in_frame: false,
            known_cursor: cursor,
            hidden: false,
        },
        TerminalOptions {
            viewport: Viewport::Inline(height),
        },
    )
}

fn restore_modes(enhanced: bool) -> std::io::Result<()> {
    let mut out = stdout();
    if enhanced {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(out, DisableBracketedPaste, cursor::Show);
    terminal::disable_raw_mode()
}

/// A panic must not leave the terminal in raw mode with the cursor hidden.
fn install_panic_restore() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = restore_modes(true);
        previous(info);
    }));
}
