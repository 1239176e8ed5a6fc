//! The only way `reasonix` writes to stdout and stderr.
//!
//! Much of what the CLI prints comes from outside: plugin names, versions, descriptions,
//! requested capabilities, log lines and errors; tool output; the model's answer; session
//! titles; provider error bodies. A terminal obeys the escape sequences in it (a plugin once
//! erased a line of the install question with `ESC[1A ESC[M`). So nothing is printed raw:
//! every write passes through [`reasonix_core::terminal`] here — text with its controls,
//! bidi and invisible characters escaped (newlines and tabs kept), JSON with them as `\uXXXX`
//! (still the same JSON). This holds whether or not the stream is a terminal: output that is
//! piped to a file or a pager reaches a terminal later.
//!
//! `clippy.toml` forbids `println!`, `eprintln!`, `print!`, `eprint!`,
//! `std::io::stdout` and `std::io::stderr` everywhere else, so the raw path cannot be taken by
//! accident. Fields that must stay on one line (a name, a version, a log line) are further
//! wrapped in [`reasonix_core::terminal::shown`] where they are formatted, so a newline in
//! them cannot start a line that looks like the host's.

#![allow(clippy::disallowed_methods)]

use reasonix_core::terminal;
use std::io::Write;

/// Whether stdin and stdout are both a terminal (the interactive session needs that).
pub fn terminal_attached() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// Whether stderr is a terminal (progress lines are for a person watching).
pub fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal()
}

/// Write `text` to stdout, escaped; errors (a closed pipe) are ignored.
pub fn write_out(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(terminal::text(text).as_bytes());
    let _ = out.flush();
}

/// Write `text` to stderr, escaped; errors are ignored.
pub fn write_err(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(terminal::text(text).as_bytes());
    let _ = err.flush();
}

/// Write a JSON document and a newline to stdout, with the characters a terminal would obey
/// as `\uXXXX` escapes.
pub fn json_out(document: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(terminal::json(document).as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// Pretty-print `value` as JSON on stdout through [`json_out`].
pub fn print_json(value: &impl serde::Serialize) -> Result<(), serde_json::Error> {
    json_out(&serde_json::to_string_pretty(value)?);
    Ok(())
}

/// Like `println!`, escaped.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::term::write_out("\n")
    };
    ($($arg:tt)*) => {{
        let mut line = format!($($arg)*);
        line.push('\n');
        $crate::term::write_out(&line)
    }};
}

/// Like `print!`, escaped.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::term::write_out(&format!($($arg)*))
    };
}

/// Like `eprintln!`, escaped.
#[macro_export]
macro_rules! errln {
    () => {
        $crate::term::write_err("\n")
    };
    ($($arg:tt)*) => {{
        let mut line = format!($($arg)*);
        line.push('\n');
        $crate::term::write_err(&line)
    }};
}

/// Like `eprint!`, escaped.
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::term::write_err(&format!($($arg)*))
    };
}

pub use crate::{err, errln, out, outln};
