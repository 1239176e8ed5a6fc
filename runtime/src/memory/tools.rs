//! The `remember` and `memory` tools.
//!
//! `remember` saves a fact. A short fact for this project, with nothing in it that looks like
//! a secret, is saved without asking (like a reader: it changes no file of the workspace);
//! a fact for every workspace (`scope: "user"`), a long one, or one the redactor changes asks
//! like a writer ([`Tool::wider_reach`]). `memory` searches or lists the facts.

use super::store::{MAX_FACT_BYTES, Saved, Scope, Store};
use super::{Memory, RELATIVE_FLOOR};
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::tool::{Effects, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolSpec};
use serde_json::{Value, json};
use std::sync::Arc;

pub const REMEMBER: &str = "remember";
pub const MEMORY: &str = "memory";
/// A fact longer than this asks before it is saved.
const SHORT_FACT_CHARS: usize = 300;
/// Facts a search returns at most, and a listing.
const MAX_LIMIT: usize = 20;
const DEFAULT_LIMIT: usize = 5;

fn invalid(message: String) -> CallError {
    CallError::Plugin(PluginError::InvalidInput(message))
}

fn object_of(text: &str, tool: &str) -> Result<serde_json::Map<String, Value>, CallError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(invalid(format!(
            "{tool}: the arguments must be a JSON object"
        ))),
        Err(e) => Err(invalid(format!("{tool}: the arguments are not JSON: {e}"))),
    }
}

pub struct RememberTool {
    memory: Arc<Memory>,
    spec: ToolSpec,
}

impl RememberTool {
    pub fn new(memory: Arc<Memory>) -> RememberTool {
        let parameters = json!({
            "type": "object",
            "properties": {
                "fact": {
                    "type": "string",
                    "description": format!("The fact, in a sentence or two (at most {MAX_FACT_BYTES} bytes): a decision, a convention, where something is, what the user prefers.")
                },
                "scope": {
                    "type": "string",
                    "enum": ["project", "user"],
                    "description": "\"project\" (default): this workspace only. \"user\": every workspace (asks the user first)."
                }
            },
            "required": ["fact"],
            "additionalProperties": false
        });
        RememberTool {
            memory,
            spec: ToolSpec {
                name: REMEMBER.into(),
                description: "Save a fact worth knowing in later sessions: it is recalled when a later message matches it, and `memory` finds it. Save durable facts (decisions, conventions, locations, preferences), not the task at hand; never secrets (they are redacted). A fact already saved is not saved twice.".into(),
                parameters: parameters.to_string(),
                read_only: true,
                guidance: None,
            },
        }
    }
}

/// `(fact, scope)` of a `remember` call.
fn remember_args(text: &str) -> Result<(String, Scope), CallError> {
    let args = object_of(text, REMEMBER)?;
    if let Some(key) = args.keys().find(|k| *k != "fact" && *k != "scope") {
        return Err(invalid(format!(
            "remember: unknown argument `{key}` (the arguments are `fact` and `scope`)"
        )));
    }
    let fact = match args.get("fact") {
        Some(Value::String(f)) => f.clone(),
        Some(_) => return Err(invalid("remember: `fact` must be a string".into())),
        None => return Err(invalid("remember: `fact` is required".into())),
    };
    let scope = match args.get("scope") {
        None | Some(Value::Null) => Scope::Project,
        Some(Value::String(s)) => Scope::parse(s).ok_or_else(|| {
            invalid(format!(
                "remember: `scope` is \"project\" or \"user\", not {s:?}"
            ))
        })?,
        Some(_) => return Err(invalid("remember: `scope` must be a string".into())),
    };
    Ok((fact, scope))
}

impl Tool for RememberTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        "reasonix"
    }

    fn effects(&self) -> Effects {
        Effects::default()
    }

    fn wider_reach(&self, arguments: &Value) -> Option<String> {
        let Ok((fact, scope)) = remember_args(&arguments.to_string()) else {
            // A call that will fail anyway asks nothing.
            return None;
        };
        if scope != Scope::Project {
            return Some("saves a fact for every workspace (`scope: \"user\"`)".into());
        }
        if fact.chars().count() > SHORT_FACT_CHARS {
            return Some(format!(
                "saves a long fact ({} characters)",
                fact.chars().count()
            ));
        }
        if Store::prepare(&fact).is_ok_and(|saved| saved != fact.trim()) {
            return Some(
                "saves a fact holding what looks like a secret (it is saved redacted)".into(),
            );
        }
        None
    }

    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        let (fact, scope) = remember_args(arguments)?;
        match self.memory.remember(&context.workspace, scope, &fact) {
            Ok(Saved::Created(f)) => Ok(format!("Saved as {} ({} scope).", f.id, scope.name())),
            Ok(Saved::Known(f)) => Ok(format!(
                "Already saved as {} ({} scope); nothing changed.",
                f.id,
                scope.name()
            )),
            Err(e) => Err(invalid(format!("remember: {e}"))),
        }
    }

    fn preview(&self, _: &str, _: &ToolContext) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

pub struct MemoryTool {
    memory: Arc<Memory>,
    spec: ToolSpec,
}

impl MemoryTool {
    pub fn new(memory: Arc<Memory>) -> MemoryTool {
        let parameters = json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words to look for; rare, specific words work best. Leave out to list the newest facts."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "The most facts to return (default 5)."
                }
            },
            "additionalProperties": false
        });
        MemoryTool {
            memory,
            spec: ToolSpec {
                name: MEMORY.into(),
                description: "Search the facts saved with `remember` (this project's and the user's), or list the newest without a query. Facts can be out of date; for what was said or done exactly, use `history`.".into(),
                parameters: parameters.to_string(),
                read_only: true,
                guidance: None,
            },
        }
    }
}

impl Tool for MemoryTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        "reasonix"
    }

    fn effects(&self) -> Effects {
        Effects::default()
    }

    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        let args = object_of(arguments, MEMORY)?;
        if let Some(key) = args.keys().find(|k| *k != "query" && *k != "limit") {
            return Err(invalid(format!(
                "memory: unknown argument `{key}` (the arguments are `query` and `limit`)"
            )));
        }
        let query = match args.get("query") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(q)) => q.trim().to_string(),
            Some(_) => return Err(invalid("memory: `query` must be a string".into())),
        };
        let limit = match args.get("limit") {
            None | Some(Value::Null) => DEFAULT_LIMIT,
            Some(v) => match v.as_u64() {
                Some(n) if (1..=MAX_LIMIT as u64).contains(&n) => n as usize,
                _ => {
                    return Err(invalid(format!(
                        "memory: `limit` must be a whole number from 1 to {MAX_LIMIT}"
                    )));
                }
            },
        };
        let facts = self.memory.with_index(&context.workspace, |index| {
            if query.is_empty() {
                let mut all = index.facts().to_vec();
                all.sort_by(|a, b| b.updated_ms.cmp(&a.updated_ms).then(a.id.cmp(&b.id)));
                all.truncate(limit);
                all
            } else {
                index
                    .search(&query, limit, RELATIVE_FLOOR)
                    .into_iter()
                    .map(|h| h.fact)
                    .collect()
            }
        });
        if facts.is_empty() {
            return Ok(if query.is_empty() {
                "No facts are saved yet.".into()
            } else {
                format!(
                    "No saved fact matches {query:?}. Try rarer words, list the facts without a query, or search earlier conversations with `history`."
                )
            });
        }
        let mut out = String::new();
        for f in facts {
            out.push_str(&format!(
                "- [{}] ({}) {}\n",
                f.id,
                f.scope.name(),
                f.text.replace('\n', " ")
            ));
        }
        Ok(out)
    }

    fn preview(&self, _: &str, _: &ToolContext) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn only_short_plain_project_facts_stay_within_a_readers_reach() {
        let state = tempfile::tempdir().unwrap();
        let tool = RememberTool::new(Memory::new(state.path()));
        assert_eq!(
            tool.wider_reach(&json!({"fact": "tests use nextest"})),
            None
        );
        assert!(
            tool.wider_reach(&json!({"fact": "x", "scope": "user"}))
                .unwrap()
                .contains("every workspace")
        );
        assert!(
            tool.wider_reach(&json!({"fact": "word ".repeat(100)}))
                .unwrap()
                .contains("long fact")
        );
        assert!(
            tool.wider_reach(&json!({"fact": "the key is sk-abcdefghijklmnop1234"}))
                .unwrap()
                .contains("secret")
        );
        assert!(remember_args(r#"{"fact": "x", "scope": "team"}"#).is_err());
        assert!(remember_args(r#"{"fact": "x", "why": 1}"#).is_err());
    }
}
