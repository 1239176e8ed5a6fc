//! The interactive session: `reasonix` with no subcommand (docs/TUI.md, ADR 0020).
//!
//! Rendering model: an inline viewport at the bottom of the terminal (live answer, composer,
//! status line); finished transcript lines are inserted above it into the terminal's own
//! scrollback, so native selection, copying and scrolling keep working. Every string that
//! comes from outside (the model, tools, plugins, files) passes through [`text::safe`] before it
//! becomes a `Span`.

// Parts land one by one; the session entry point uses them all.
#![allow(dead_code)]

pub mod setup;
pub mod text;
pub mod theme;
