//! The UI thread's one inbox: terminal input, the session (its agent's events and its
//! questions), and captured stderr, in arrival order.

use reasonix_session::SessionEvent;

#[derive(Debug)]
pub enum Msg {
    /// A terminal event and when the input thread read it (an answer key must come after
    /// its question was drawn).
    Input(crossterm::event::Event, std::time::Instant),
    Session(SessionEvent),
    /// A line written to stderr while the session owns the terminal (plugin logs, warnings).
    Stderr(String),
    /// The result of a `!cmd` run without the model.
    Shell(super::bang::Finished),
    /// An MCP request made off the UI thread answered (`/mcp__server__prompt`).
    Mcp(super::mcp::Event),
    /// A goal's checks after a turn (`/goal`).
    GoalChecked(Vec<reasonix_runtime::goal::Receipt>),
    /// The input reader stopped (the terminal is gone).
    InputClosed,
}
