//! `--json-schema`: structured output. The model is told to end with one JSON value that
//! validates against the schema; its final answer is parsed and validated, and when it does not
//! validate the model is asked again (at most [`RETRIES`] times) with what was wrong. The
//! validated value is the result object's `structured_output`.

mod schema;

pub use schema::{Schema, SchemaError};
use serde_json::Value;
use std::path::Path;

/// Corrections asked for after the first answer, before the run fails.
pub const RETRIES: u32 = 2;
/// At most this many problems are quoted back to the model.
const PROBLEMS_SHOWN: usize = 10;
/// A schema file larger than this is refused.
const MAX_FILE: u64 = 256 * 1024;

/// Why `--json-schema` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    #[error("--json-schema {file}: cannot read it: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("--json-schema {file}: {size} bytes, more than the {} KiB a schema file may have", MAX_FILE / 1024)]
    TooLarge { file: String, size: u64 },
    #[error("--json-schema {origin}: not JSON: {source}")]
    NotJson {
        origin: String,
        source: serde_json::Error,
    },
    #[error("--json-schema {origin}: {source}")]
    Schema { origin: String, source: SchemaError },
}

/// The schema a `--json-schema` value gives: the schema itself (JSON starting with `{`, as
/// Claude Code takes it) or the path of a file holding it.
pub fn load(value: &str) -> Result<Schema, FlagError> {
    let (text, origin) = if value.trim_start().starts_with('{') {
        (value.to_string(), "(inline)".to_string())
    } else {
        let file = reasonix_core::terminal::shown(value).to_string();
        let path = Path::new(value);
        let size = std::fs::metadata(path)
            .map_err(|source| FlagError::Read {
                file: file.clone(),
                source,
            })?
            .len();
        if size > MAX_FILE {
            return Err(FlagError::TooLarge { file, size });
        }
        let text = std::fs::read_to_string(path).map_err(|source| FlagError::Read {
            file: file.clone(),
            source,
        })?;
        (text, file)
    };
    let root: Value = serde_json::from_str(&text).map_err(|source| FlagError::NotJson {
        origin: origin.clone(),
        source,
    })?;
    Schema::new(root).map_err(|source| FlagError::Schema { origin, source })
}

/// What the system prompt gains: how the final answer must look.
pub fn instruction(schema: &Schema) -> String {
    format!(
        "# Structured output\n\nThe caller reads your final answer as data. When you give it \
         (your last message, with no tool calls), it must be exactly one JSON value that \
         validates against the JSON Schema below: no other text before or after it, no code \
         fence.\n\n{}",
        schema.source()
    )
}

/// The answer's JSON value when it validates, else every problem found.
pub fn check(schema: &Schema, answer: &str) -> Result<Value, Vec<String>> {
    let value =
        parse_answer(answer).map_err(|e| vec![format!("the answer is not one JSON value: {e}")])?;
    let problems = schema.validate(&value);
    if problems.is_empty() {
        Ok(value)
    } else {
        Err(problems)
    }
}

/// The JSON in an answer: the whole text, or the inside of the one code fence that wraps it
/// (models add them despite being told not to).
fn parse_answer(answer: &str) -> Result<Value, serde_json::Error> {
    let text = answer.trim();
    let unfenced = text
        .strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .unwrap_or(text);
    serde_json::from_str(unfenced.trim())
}

/// The message that asks the model to answer again.
pub fn correction(problems: &[String]) -> String {
    let mut text =
        String::from("Your final answer does not validate against the required JSON Schema:\n");
    for p in problems.iter().take(PROBLEMS_SHOWN) {
        text.push_str(&format!("- {p}\n"));
    }
    if problems.len() > PROBLEMS_SHOWN {
        text.push_str(&format!(
            "- … and {} more\n",
            problems.len() - PROBLEMS_SHOWN
        ));
    }
    text.push_str("Answer again with only the corrected JSON value.");
    text
}

/// The run's error when the last answer still does not validate.
pub fn failure(problems: &[String]) -> String {
    format!(
        "the final answer did not validate against --json-schema after {} corrections: {}",
        RETRIES,
        problems
            .iter()
            .take(PROBLEMS_SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_parsed_with_or_without_a_fence() {
        let schema = Schema::new(json!({"type": "object", "required": ["a"]})).unwrap();
        assert_eq!(check(&schema, " {\"a\": 1}\n").unwrap(), json!({"a": 1}));
        assert_eq!(
            check(&schema, "```json\n{\"a\": 2}\n```").unwrap(),
            json!({"a": 2})
        );
        let problems = check(&schema, "Here it is: {\"a\": 1}").unwrap_err();
        assert!(problems[0].starts_with("the answer is not one JSON value"));
        let problems = check(&schema, "{}").unwrap_err();
        assert_eq!(problems, ["the value: the property `a` is missing"]);
        assert!(correction(&problems).contains("- the value: the property `a` is missing"));
    }

    #[test]
    fn the_flag_takes_json_or_a_file() {
        assert!(load("{\"type\": \"string\"}").is_ok());
        let e = load("{\"type\": ").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--json-schema (inline): not JSON"),
            "{e}"
        );
        let e = load("/nonexistent/schema.json").unwrap_err();
        assert!(
            e.to_string()
                .contains("/nonexistent/schema.json: cannot read it"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.json");
        std::fs::write(&file, "{\"if\": true}").unwrap();
        let e = load(file.to_str().unwrap()).unwrap_err();
        assert!(e.to_string().contains("`if` at #"), "{e}");
    }
}
