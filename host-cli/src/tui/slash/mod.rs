//! Slash commands: one registry of built-ins and custom Markdown commands that drives the
//! completion menu, `/help` and dispatch.

pub mod registry;
pub(crate) use reasonix_session::input::commands as custom;

// The app's entry points; re-exported for it (unused until the app loop lands).
#[allow(unused_imports)]
pub use reasonix_session::input::commands::{CommandDir, CustomCommands};
#[allow(unused_imports)]
pub use registry::{
    ALIASES, BUILTINS, Builtin, CommandKind, CommandSpec, Invocation, Scope, SlashRegistry,
    builtin_specs, message_text,
};
