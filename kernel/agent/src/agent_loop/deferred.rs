//! MCP tools past a schema budget, offered through one tool (issue #24 §3).
//!
//! Every offered tool's schema rides in every request: two server-everything instances add
//! ~12 KB to each. When the MCP tools' specs together pass `[tools] mcp_schema_budget` (bytes),
//! they are not offered one by one; the model gets [`PROXY`] instead, whose description lists
//! their names (sorted, so the prefix stays byte-stable) and which can `search` them (their
//! descriptions and argument schemas, on demand) and `call` one. A `call` is unwrapped by the
//! agent before anything judges it ([`unwrap`]): rules, postures, hooks, interceptors and the
//! user's question see the MCP tool itself, exactly as if it had been offered directly.

use crate::error::{CallError, PluginError};
use crate::tool::{Effects, Tool};
use crate::types::{FileChange, ToolCall, ToolContext, ToolSpec};
use serde_json::{Value, json};
use std::sync::Arc;

/// The one tool the deferred MCP tools are reached through.
pub const PROXY: &str = "mcp_tools";

/// The default budget: the bytes of MCP tool specs offered directly (one server-everything is
/// ~6 KB).
pub const DEFAULT_BUDGET: usize = 8 * 1024;

/// Tools a search returns at most.
const MAX_FOUND: usize = 8;

/// What a spec costs in every request, roughly: its name, description and schema.
fn spec_bytes(spec: &ToolSpec) -> usize {
    spec.name.len() + spec.description.len() + spec.parameters.len()
}

/// Split the external (MCP) tools off `tools` when their specs pass `budget`: `Some(proxy)`
/// then, the tool to offer in their place. `tools` is left whole (every tool stays callable
/// by name).
pub fn proxy_for(tools: &[Arc<dyn Tool>], budget: usize) -> Option<Arc<Proxy>> {
    let mut deferred: Vec<ToolSpec> = tools
        .iter()
        .filter(|t| t.effects().external)
        .map(|t| t.spec().clone())
        .collect();
    let bytes: usize = deferred.iter().map(spec_bytes).sum();
    if deferred.is_empty() || bytes <= budget {
        return None;
    }
    deferred.sort_by(|a, b| a.name.cmp(&b.name));
    Some(Arc::new(Proxy::new(deferred)))
}

/// The tool the deferred tools are reached through.
pub struct Proxy {
    spec: ToolSpec,
    /// Sorted by name.
    deferred: Vec<ToolSpec>,
}

impl Proxy {
    /// Whether `name` is offered through the proxy rather than directly.
    pub fn is_deferred(&self, name: &str) -> bool {
        self.deferred
            .binary_search_by(|s| s.name.as_str().cmp(name))
            .is_ok()
    }

    /// A `call` of the proxy, as the call of the tool it names (same id); `None` for anything
    /// else, a tool it does not defer included (the proxy itself answers, with an error for a
    /// malformed call).
    pub fn unwrap(&self, call: &ToolCall) -> Option<ToolCall> {
        if call.name != PROXY {
            return None;
        }
        let args: Value = serde_json::from_str(&call.arguments).ok()?;
        if args.get("action").and_then(Value::as_str) != Some("call") {
            return None;
        }
        let name = args.get("name").and_then(Value::as_str)?;
        if !self.is_deferred(name) {
            return None;
        }
        let arguments = match args.get("arguments") {
            None | Some(Value::Null) => "{}".to_string(),
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
        };
        Some(ToolCall {
            id: call.id.clone(),
            name: name.to_string(),
            arguments,
        })
    }

    fn new(deferred: Vec<ToolSpec>) -> Proxy {
        let names: Vec<&str> = deferred.iter().map(|s| s.name.as_str()).collect();
        let description = format!(
            "The tools of the connected MCP servers, reached through this one tool so that every request stays small. `search` (with `query`: words, or a tool's full name) returns matching tools with their descriptions and argument schemas; `call` (with `name` and `arguments`) runs one exactly as if it were offered directly (the same permissions apply). Search before the first call of a tool. The tools: {}.",
            names.join(", ")
        );
        let parameters = json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["search", "call"]},
                "query": {"type": "string", "description": "search: words to look for, or a tool's full name"},
                "name": {"type": "string", "description": "call: the tool's full name, like mcp__server__tool"},
                "arguments": {"type": "object", "description": "call: the tool's arguments, as its schema says"}
            },
            "required": ["action"],
            "additionalProperties": false
        });
        Proxy {
            spec: ToolSpec {
                name: PROXY.to_string(),
                description,
                parameters: parameters.to_string(),
                read_only: true,
                guidance: None,
            },
            deferred,
        }
    }

    fn search(&self, query: &str) -> String {
        let query = query.trim().to_lowercase();
        let words: Vec<&str> = query.split_whitespace().collect();
        let mut scored: Vec<(usize, &ToolSpec)> = self
            .deferred
            .iter()
            .filter_map(|spec| {
                if spec.name.to_lowercase() == query {
                    return Some((usize::MAX, spec));
                }
                let text = format!("{} {}", spec.name, spec.description).to_lowercase();
                let score = words.iter().filter(|w| text.contains(*w)).count();
                (score > 0).then_some((score, spec))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
        if scored.is_empty() {
            return format!(
                "No MCP tool matches `{query}`. The tools: {}.",
                self.deferred
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let mut out = String::new();
        for (_, spec) in scored.iter().take(MAX_FOUND) {
            out.push_str(&format!(
                "{}\n  {}\n  arguments: {}\n",
                spec.name,
                spec.description.replace('\n', "\n  "),
                spec.parameters
            ));
        }
        if scored.len() > MAX_FOUND {
            out.push_str(&format!(
                "({} more match; narrow the query)\n",
                scored.len() - MAX_FOUND
            ));
        }
        out
    }
}

impl Tool for Proxy {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        "reasonix"
    }

    fn effects(&self) -> Effects {
        Effects::default()
    }

    fn invoke(&self, arguments: &str, _context: &ToolContext) -> Result<String, CallError> {
        let args: Value = serde_json::from_str(arguments)
            .map_err(|e| invalid(format!("{PROXY}: the arguments are not JSON: {e}")))?;
        match args.get("action").and_then(Value::as_str) {
            Some("search") => Ok(self.search(
                args.get("query")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            )),
            // A well-formed call never reaches here: the agent runs the tool it names.
            Some("call") => Err(invalid(format!(
                "{PROXY}: `call` needs `name`, the full name of one of these tools: {}",
                self.deferred
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
            _ => Err(invalid(format!("{PROXY}: `action` is `search` or `call`"))),
        }
    }

    fn preview(
        &self,
        _arguments: &str,
        _context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

fn invalid(message: String) -> CallError {
    CallError::Plugin(PluginError::InvalidInput(message))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn spec(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters: r#"{"type":"object"}"#.into(),
            read_only: false,
            guidance: None,
        }
    }

    #[test]
    fn a_call_is_the_call_of_the_tool_it_names() {
        let call = |args: Value| ToolCall {
            id: "c1".into(),
            name: PROXY.into(),
            arguments: args.to_string(),
        };
        let proxy = Proxy::new(vec![spec("mcp__s__echo", "Echoes")]);
        let inner = proxy
            .unwrap(&call(json!({"action": "call", "name": "mcp__s__echo",
                "arguments": {"message": "hi"}})))
            .unwrap();
        assert_eq!(inner.id, "c1");
        assert_eq!(inner.name, "mcp__s__echo");
        assert_eq!(inner.arguments, r#"{"message":"hi"}"#);
        // Only the tools it defers are reached this way, whatever their names, and only by
        // `call`.
        assert!(
            proxy
                .unwrap(&call(json!({"action": "call", "name": "bash"})))
                .is_none()
        );
        let unknown = json!({"action": "call", "name": "mcp__s__other"});
        assert!(proxy.unwrap(&call(unknown)).is_none());
        assert!(
            proxy
                .unwrap(&call(json!({"action": "search", "query": "x"})))
                .is_none()
        );
    }

    #[test]
    fn search_finds_by_words_and_by_name_and_lists_all_when_nothing_matches() {
        let proxy = Proxy::new(vec![
            spec("mcp__a__echo", "Echoes back the input"),
            spec("mcp__a__add", "Adds two numbers"),
        ]);
        assert!(proxy.spec.description.contains("mcp__a__echo, mcp__a__add"));
        let found = proxy.search("echo input");
        assert!(found.starts_with("mcp__a__echo\n"), "{found}");
        assert!(!found.contains("mcp__a__add"), "{found}");
        assert!(proxy.search("MCP__A__ADD").starts_with("mcp__a__add\n"));
        assert!(
            proxy
                .search("weather")
                .contains("mcp__a__echo, mcp__a__add")
        );
    }
}
