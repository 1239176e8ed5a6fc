use crate::Error;
use serde::de::DeserializeOwned;

/// Parse a tool's JSON arguments into a typed struct. A mismatch becomes `invalid-input` naming
/// the offending field (its path, e.g. `edits[2].old_text`, for a wrong value; serde's message
/// for a missing or unknown one), so the model can correct itself.
pub fn parse_args<T: DeserializeOwned>(tool: &str, arguments: &str) -> Result<T, Error> {
    let mut deserializer = serde_json::Deserializer::from_str(arguments);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path.is_empty() || path == "." {
            Error::InvalidInput(format!("{tool}: invalid arguments: {inner}"))
        } else {
            Error::InvalidInput(format!(
                "{tool}: invalid arguments: field `{path}`: {inner}"
            ))
        }
    })?;
    deserializer
        .end()
        .map_err(|e| Error::InvalidInput(format!("{tool}: invalid arguments: {e}")))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct Args {
        #[allow(dead_code)]
        path: String,
    }

    #[test]
    fn missing_field_is_named() {
        match parse_args::<Args>("demo", "{}") {
            Err(Error::InvalidInput(m)) => assert!(m.contains("`path`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn wrong_type_is_invalid_input_naming_the_field() {
        match parse_args::<Args>("demo", r#"{"path": 3}"#) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("field `path`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn trailing_garbage_and_non_json_are_invalid_input() {
        assert!(matches!(
            parse_args::<Args>("demo", r#"{"path": "a"} x"#),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            parse_args::<Args>("demo", "not json"),
            Err(Error::InvalidInput(_))
        ));
        assert_eq!(
            parse_args::<Args>("demo", r#" {"path": "a"} "#).map(|a| a.path),
            Ok("a".to_string())
        );
    }
}
