use crate::Error;
use serde::de::DeserializeOwned;

/// Parse a tool's JSON arguments into a typed struct. A mismatch becomes `invalid-input` with
/// serde's message, which names the offending field, so the model can correct itself.
pub fn parse_args<T: DeserializeOwned>(tool: &str, arguments: &str) -> Result<T, Error> {
    serde_json::from_str(arguments)
        .map_err(|e| Error::InvalidInput(format!("{tool}: invalid arguments: {e}")))
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
    fn wrong_type_is_invalid_input() {
        assert!(matches!(
            parse_args::<Args>("demo", r#"{"path": 3}"#),
            Err(Error::InvalidInput(_))
        ));
    }
}
