//! What the user typed, turned into what the model gets, in one place for every front end:
//! a skill (`/name args`) sends its instructions, a custom command its template, an MCP prompt command
//! (`/mcp__server__prompt args`) the prompt's text, and `@server:uri` references in the user's
//! own words are read and appended. `reasonix run "/name args"`, a stream-json turn, a
//! protocol `prompt` and the interactive session expand alike.

pub mod commands;
pub mod mcp_prompt;
pub mod mention;
pub mod resources;
pub mod skill;
mod turn;

pub use resources::{resource_blocks, with_resources};
pub use turn::Turn;

use commands::{CommandDir, CustomCommands};
use reasonix_mcp::Servers;
use std::sync::{Arc, OnceLock};

/// A message for the model, already expanded by its front end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub text: String,
    /// The user's own words, whose `@server:uri` references are read and appended to `text`:
    /// what they typed. `None` for a text none of whose `@` words may be read (an MCP server's
    /// prompt), and a custom command's template gives only its arguments: neither a server
    /// nor a repository's command file can make Reasonix read the user's resources.
    pub references: Option<String>,
}

impl Outgoing {
    /// Text the user typed as it is: its references are read.
    pub fn typed(text: impl Into<String>) -> Outgoing {
        let text = text.into();
        Outgoing {
            references: Some(text.clone()),
            text,
        }
    }

    /// `text` with its references read (the server's answers, off the caller's thread).
    pub fn resolve(&self, servers: &Servers) -> Result<Turn, String> {
        match &self.references {
            Some(words) => with_resources(&self.text, words, servers),
            None => Ok(Turn::text(self.text.clone())),
        }
    }
}

/// Expands typed lines. The command files are read once, at the first line that starts with
/// `/` (a run whose task is not a command reads none).
pub struct Expander {
    dirs: Vec<CommandDir>,
    commands: OnceLock<CustomCommands>,
    servers: Servers,
    skills: Arc<reasonix_skills::Catalog>,
    only: Option<Vec<String>>,
}

impl Expander {
    pub fn new(dirs: Vec<CommandDir>, servers: Servers) -> Expander {
        Expander {
            dirs,
            commands: OnceLock::new(),
            servers,
            skills: Arc::default(),
            only: None,
        }
    }

    /// With the workspace's skills: `/name args` of a skill the user may invoke sends the
    /// skill (a skill wins over a custom command of the same name, as in Claude Code).
    pub fn with_skills(mut self, skills: Arc<reasonix_skills::Catalog>) -> Expander {
        self.skills = skills;
        self
    }

    /// The skills lines may invoke.
    pub fn skills(&self) -> &reasonix_skills::Catalog {
        &self.skills
    }

    /// The MCP servers whose prompts and resources lines may name.
    pub fn servers(&self) -> &Servers {
        &self.servers
    }

    /// Only these custom commands expand (a composition's `commands`).
    pub fn with_commands_only(mut self, only: Option<Vec<String>>) -> Expander {
        self.only = only;
        self
    }

    /// The custom commands (loaded now if they were not yet).
    pub fn commands(&self) -> &CustomCommands {
        self.commands.get_or_init(|| {
            let mut loaded = commands::load(&self.dirs);
            if let Some(only) = &self.only {
                loaded.commands.retain(|c| only.contains(&c.name));
            }
            loaded
        })
    }

    /// What `line` sends, before its references are read: a custom command's template, an
    /// MCP prompt's text, or the line itself; with the words whose references are read (the
    /// line the user typed, never the text it expanded to).
    pub fn outgoing(&self, line: &str) -> Result<Outgoing, String> {
        let trimmed = line.trim_start();
        let body = if !trimmed.starts_with('/') {
            None
        } else if trimmed.starts_with("/mcp__") {
            mcp_prompt::command::expand(trimmed, &self.servers)?
        } else if let Some((found, args)) = self.skills.invoked(trimmed) {
            Some(skill::invoked_text(found, args)?)
        } else {
            self.commands().expand_line(trimmed)
        };
        Ok(Outgoing {
            text: body.unwrap_or_else(|| line.to_string()),
            references: Some(line.to_string()),
        })
    }

    /// `line` expanded and its references read.
    pub fn expand(&self, line: &str) -> Result<Turn, String> {
        let mut turn = self.outgoing(line)?.resolve(&self.servers)?;
        turn.words = Some(line.to_string());
        Ok(turn)
    }

    /// `turn` (from a stream of turns, which may carry images) with its text expanded; its
    /// images are kept and the references' images follow them.
    pub fn expand_turn(&self, turn: Turn) -> Result<Turn, String> {
        let expanded = self.expand(&turn.text)?;
        let mut images = turn.images;
        images.extend(expanded.images);
        Ok(Turn {
            text: expanded.text,
            images,
            words: expanded.words,
        })
    }
}
