//! Tool argument schemas derived from Rust types, so the schema the model sees and the struct
//! the tool parses cannot drift apart.

use crate::ToolSpec;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;

/// The JSON Schema of `T` as a plain object: no `$schema`, no `title`, subschemas inlined (the
/// model reads the schema; `$ref`s only make it harder). Doc comments on fields become their
/// `description`s; non-`Option` fields without `#[serde(default)]` are `required`.
pub fn schema_for<T: JsonSchema>() -> serde_json::Value {
    let mut settings = SchemaSettings::draft2020_12().for_deserialize();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Some(object) = value.as_object_mut() {
        object.remove("title");
    }
    value
}

/// A [`ToolSpec`] whose parameter schema is derived from the arguments type `T`; parse the
/// arguments with [`parse_args::<T>`](crate::parse_args) in `invoke`.
///
/// ```ignore
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Args {
///     /// The text to count words in.
///     text: String,
/// }
/// let spec = reasonix_sdk::typed_tool::<Args>("word_count", "Count the words in a text", true);
/// ```
pub fn typed_tool<T: JsonSchema>(name: &str, description: &str, read_only: bool) -> ToolSpec {
    crate::tool_spec(name, description, &schema_for::<T>(), read_only)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Error, parse_args};
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        /// File to read.
        path: String,
        /// First line, 1-based.
        offset: Option<u32>,
        #[serde(default)]
        mode: Mode,
    }

    #[derive(Debug, Default, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        #[default]
        Text,
        Bytes,
    }

    #[test]
    fn schema_is_derived_from_the_type() {
        let schema = schema_for::<Args>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["path"]["type"], "string");
        assert_eq!(schema["properties"]["path"]["description"], "File to read.");
        assert_eq!(
            schema["properties"]["offset"]["type"],
            json!(["integer", "null"])
        );
        assert_eq!(
            schema["properties"]["mode"]["enum"],
            json!(["text", "bytes"])
        );
        assert_eq!(schema["additionalProperties"], false);
        assert!(schema.get("$schema").is_none(), "{schema}");
        assert!(schema.get("title").is_none(), "{schema}");
        assert!(
            schema.get("$defs").is_none(),
            "subschemas are inlined: {schema}"
        );
    }

    #[test]
    fn only_fields_without_a_default_are_required() {
        let schema = schema_for::<Args>();
        assert_eq!(schema["required"], json!(["path"]));
    }

    #[test]
    fn typed_tool_carries_the_schema_and_flags() {
        let spec = typed_tool::<Args>("read", "Read a file", true);
        assert_eq!(spec.name, "read");
        assert!(spec.read_only);
        let parameters: serde_json::Value = serde_json::from_str(&spec.parameters).unwrap();
        assert_eq!(parameters, schema_for::<Args>());
    }

    #[test]
    fn a_bad_argument_names_the_field() {
        match parse_args::<Args>("read", r#"{"path": "a", "offset": "ten"}"#) {
            Err(Error::InvalidInput(m)) => {
                assert!(m.contains("field `offset`"), "{m}")
            }
            other => panic!("unexpected {other:?}"),
        }
        match parse_args::<Args>("read", r#"{"offset": 1}"#) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("`path`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
        match parse_args::<Args>("read", r#"{"path": "a", "mode": "hex"}"#) {
            Err(Error::InvalidInput(m)) => {
                assert!(m.contains("field `mode`") && m.contains("hex"), "{m}")
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
