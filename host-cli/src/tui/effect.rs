//! What a command asks of the interactive session. Commands (`/…`, `!…`) and the reports
//! they wait for read the [`super::app::App`] and return [`Effects`]; only
//! [`super::app::App::apply`] changes it, in the order the effects were pushed. A command is
//! then a function from the app's state and its arguments to a list that a test can read
//! without a terminal.

use super::mcp::question::Question;
use super::mcp::resources::ResourceIndex;
use super::overlay::Overlay;
use super::slash::SlashRegistry;
use ratatui::text::Line;
use reasonix_agent::completion::ProviderClient;
use reasonix_protocol::Op;
use std::sync::Arc;

/// One change to the session screen or the session.
pub enum Effect {
    /// Lines for the scrollback.
    Commit(Vec<Line<'static>>),
    /// A notice line.
    Notice(String),
    /// An error line.
    Error(String),
    /// A list to pick from, in place of the composer.
    Open(Overlay),
    /// An operation for the session service.
    Submit(Op),
    /// Compact the history, with this focus.
    Compact(String),
    /// Talk to another provider or model from the next turn.
    SwitchClient(Box<ProviderClient>),
    /// A message for the model, as if typed.
    Prompt(String),
    /// A custom command's expanded template, and the user's arguments (only their `@`
    /// references are read).
    CommandPrompt { prompt: String, args: String },
    /// The text an MCP server returned for a prompt command (no `@` reference read).
    ServerPrompt(String),
    /// The reasoning effort of the next requests (`None`: the provider's default).
    SetEffort(Option<String>),
    /// Start, pause, resume or end a goal.
    Goal(super::goal::Control),
    /// Switch the run mode.
    SetMode(reasonix_config::run_mode::RunMode),
    /// Take back a grant answered in this session.
    RevokeGrant(String),
    /// Text for the composer (the prompt of the turn rewound to).
    Compose(String),
    /// Whether the conversation holds messages.
    HasMessages(bool),
    /// Open the MCP approval question (`None`: there is nothing to approve).
    McpQuestion(Option<Question>),
    /// MCP servers asked to change: read their states at the next chance.
    ExpectMcp(Vec<String>),
    /// The MCP field of the status line (`MCP 2/3`; `None`: no server counts).
    McpStatus(Option<String>),
    /// The slash commands now (the MCP servers' prompts changed).
    Commands(Arc<SlashRegistry>),
    /// The `@server:uri` resources the composer completes.
    McpResources(ResourceIndex),
    /// End the session.
    Quit,
    /// End the session and start a new one under this agent composition.
    SwitchComposition(String),
}

/// The effects of one command, in order.
#[derive(Default)]
pub struct Effects(Vec<Effect>);

impl Effects {
    pub fn push(&mut self, effect: Effect) {
        self.0.push(effect);
    }

    pub fn notice(&mut self, text: impl Into<String>) {
        self.push(Effect::Notice(text.into()));
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.push(Effect::Error(text.into()));
    }

    pub fn commit(&mut self, lines: impl IntoIterator<Item = Line<'static>>) {
        self.push(Effect::Commit(lines.into_iter().collect()));
    }

    pub fn submit(&mut self, op: Op) {
        self.push(Effect::Submit(op));
    }

    /// These effects followed by `more`.
    pub fn extend(&mut self, more: Effects) {
        self.0.extend(more.0);
    }
}

impl From<Effect> for Effects {
    fn from(effect: Effect) -> Effects {
        Effects(vec![effect])
    }
}

impl IntoIterator for Effects {
    type Item = Effect;
    type IntoIter = std::vec::IntoIter<Effect>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
impl Effects {
    /// The effects, for a test to read.
    pub fn list(&self) -> &[Effect] {
        &self.0
    }
}
