//! The terminal while the session owns it: raw mode, bracketed paste, the keyboard
//! enhancement that reports Shift+Enter where the terminal supports it, an inline viewport
//! whose height follows what the live area needs, and restoring everything on exit or panic.
//! No mouse capture: the terminal's own selection and scrollback keep working.

#![allow(clippy::disallowed_methods)] // ratatui writes the frames; spans are escaped already.

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::{cursor, execute, terminal};
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Terminal, TerminalOptions, Viewport};
use std::io::{Stdout, stdout};

pub type Term = Terminal<CrosstermBackend<Stdout>>;

pub struct Screen {
    terminal: Term,
    height: u16,
    enhanced: bool,
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
        let terminal = new_terminal(height)?;
        Ok(Screen {
            terminal,
            height,
            enhanced,
        })
    }

    pub fn terminal(&mut self) -> &mut Term {
        &mut self.terminal
    }

    pub fn size(&self) -> std::io::Result<ratatui::layout::Size> {
        self.terminal.size()
    }

    /// Make the live area `height` rows (bounded by the terminal), keeping its top row.
    pub fn set_height(&mut self, height: u16) -> std::io::Result<()> {
        let rows = self.terminal.size()?.height.max(1);
        let height = height.clamp(1, rows);
        if height == self.height {
            return Ok(());
        }
        let area = self.terminal.get_frame().area();
        let mut out = stdout();
        execute!(
            out,
            cursor::MoveTo(0, area.y),
            terminal::Clear(terminal::ClearType::FromCursorDown)
        )?;
        self.terminal = new_terminal(height)?;
        self.height = height;
        Ok(())
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
        let mut out = stdout();
        let _ = execute!(
            out,
            cursor::MoveTo(0, area.y),
            terminal::Clear(terminal::ClearType::FromCursorDown)
        );
        self.restore()
    }

    fn restore(&mut self) -> std::io::Result<()> {
        restore_modes(self.enhanced)
    }
}

fn new_terminal(height: u16) -> std::io::Result<Term> {
    Terminal::with_options(
        CrosstermBackend::new(stdout()),
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
