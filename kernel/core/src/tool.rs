//! The `Tool` trait: what the agent sees of a tool, whatever tier serves it.

use crate::capability::{Capabilities, WorkspaceAccess};
use crate::error::CallError;
use crate::types::{FileChange, ToolContext, ToolOutput, ToolSpec};

pub use crate::types::ProgressSink;

/// A tool the agent can call, whatever tier serves it.
pub trait Tool: Send + Sync {
    /// Name, description, canonical schema and read-only flag.
    fn spec(&self) -> &ToolSpec;
    /// Name of the plugin (or server) serving it.
    fn source(&self) -> &str;
    /// What the tool is able to do, from what its plugin was granted (not from what the tool
    /// says about itself): the permission class is at least this.
    fn effects(&self) -> Effects;
    /// Run it. Errors are for the model to read; they are never fatal.
    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError>;
    /// Run it, keeping the images a tool may return beside its text (MCP image content).
    /// Tools that only return text need not implement it.
    fn invoke_output(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<ToolOutput, CallError> {
        self.invoke(arguments, context).map(ToolOutput::from)
    }
    /// The file changes `invoke` would make with the same arguments.
    fn preview(&self, arguments: &str, context: &ToolContext)
    -> Result<Vec<FileChange>, CallError>;
    /// Why a call with these arguments reaches beyond what the spec's `read_only` claim
    /// covers, in words for the user (`None`: it stays within). A tool whose reach depends on
    /// its arguments (`history` with `scope: "global"` reads other workspaces' conversations)
    /// says so for the wider calls; the permission policy decides those like a tool that is
    /// not read-only and gives this reason when it asks.
    fn wider_reach(&self, arguments: &serde_json::Value) -> Option<String> {
        let _ = arguments;
        None
    }
    /// The tool starts sub-agents through [`ToolContext::agents`]. Only the composition root's
    /// own tools say so: the agent gives no other tool a host, whatever it claims.
    fn delegates(&self) -> bool {
        false
    }
}

/// What a tool can do to the world, as its plugin's effective grant allows. A tool's own
/// `read_only` claim counts only when these back it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effects {
    /// May run commands (the `process` grant).
    pub runs_commands: bool,
    /// May change the workspace (a read-write workspace grant).
    pub writes_workspace: bool,
    /// May reach the network.
    pub fetches: bool,
    /// Served from outside Reasonix's plugin model (an MCP server), which grants bound
    /// nothing: only rules that name it (`mcp__server`, `mcp__server__tool`) cover it, never
    /// the families by kind (`Bash`, `Edit`, `Read`, `WebFetch`) — Claude Code's convention,
    /// and a `Bash` grant for sandboxed commands must not reach an unconfined server. Such a
    /// tool is offered beside `[tools] enabled` (the original's rule; a deny rule turns it
    /// off), and its schema may wait behind the deferred-tools proxy.
    pub external: bool,
}

impl Effects {
    /// The effects an effective grant allows.
    pub fn of_grant(granted: &Capabilities) -> Effects {
        Effects {
            runs_commands: granted.process,
            writes_workspace: granted.workspace == WorkspaceAccess::ReadWrite,
            fetches: !granted.network.is_empty(),
            external: false,
        }
    }

    /// Whether a tool claiming `read_only` can be believed: its plugin can neither run commands
    /// nor write the workspace.
    pub fn backs_read_only(&self) -> bool {
        !self.runs_commands && !self.writes_workspace
    }
}
