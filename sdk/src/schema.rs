//! Tool argument schemas derived from Rust types, so the schema the model sees and the struct
//! the tool parses cannot drift apart.

use crate::ToolSpec;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The JSON Schema of `T`, in the plain form models read best. Doc comments on fields become
/// their `description`s (lines of one paragraph are joined with spaces; a blank line starts a
/// new paragraph); non-`Option` fields without `#[serde(default)]` are `required`;
/// `#[serde(deny_unknown_fields)]` gives `additionalProperties: false`; enums become `enum`s.
///
/// What the model does not need is left out, which also keeps the bytes stable: no `$schema`,
/// no `title`, no `default`, no Rust number `format` (`int64`, `uint32` …), subschemas inlined
/// (no `$ref`), and an optional field is just not `required` (no `null` alternative). Say a
/// default in the field's description.
pub fn schema_for<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12().for_deserialize();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Some(object) = value.as_object_mut() {
        object.remove("title");
    }
    tidy(&mut value);
    value
}

/// A [`ToolSpec`] whose parameter schema is derived from the arguments type `T`, for
/// [`ToolSet::with_raw`](crate::ToolSet::with_raw); a [`Tool`](crate::Tool) gets its spec
/// from its `Args` by itself.
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

/// Keywords whose value is one schema.
const SUBSCHEMA: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
];
/// Keywords whose value is a list of schemas.
const SUBSCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const SUBSCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

fn tidy(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    object.remove("default");
    if is_numeric(object) {
        object.remove("format");
    }
    if let Some(Value::String(text)) = object.get_mut("description") {
        *text = join_lines(text);
    }
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                drop_null(property);
            }
        }
    }
    for key in SUBSCHEMA {
        if let Some(sub) = object.get_mut(*key) {
            tidy(sub);
        }
    }
    for key in SUBSCHEMA_LISTS {
        if let Some(Value::Array(subs)) = object.get_mut(*key) {
            subs.iter_mut().for_each(tidy);
        }
    }
    for key in SUBSCHEMA_MAPS {
        if let Some(Value::Object(subs)) = object.get_mut(*key) {
            subs.values_mut().for_each(tidy);
        }
    }
}

fn is_numeric(object: &Map<String, Value>) -> bool {
    let numeric = |t: &Value| matches!(t.as_str(), Some("integer" | "number"));
    match object.get("type") {
        Some(Value::Array(types)) => types.iter().any(numeric),
        Some(t) => numeric(t),
        None => false,
    }
}

/// An optional field may be left out, which is all `Option` means to a caller; the `null`
/// that schemars adds for it only lengthens the schema.
fn drop_null(property: &mut Value) {
    let Some(object) = property.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            object.insert("type".to_string(), only);
        }
    }
    if let Some(Value::Array(choices)) = object.get_mut("enum") {
        choices.retain(|c| !c.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alternatives)) = object.get(key) else {
            continue;
        };
        let is_null = |s: &Value| s.get("type").is_some_and(|t| t == "null");
        let rest: Vec<&Value> = alternatives.iter().filter(|s| !is_null(s)).collect();
        if let ([Value::Object(only)], true) = (rest.as_slice(), rest.len() < alternatives.len()) {
            let only = only.clone();
            object.remove(key);
            for (k, v) in only {
                object.entry(k).or_insert(v);
            }
        }
    }
}

/// Doc comments arrive one source line per line; a paragraph is one line for the model.
fn join_lines(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| {
            paragraph
                .lines()
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
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
        /// Whether to follow
        /// symbolic links.
        ///
        /// Default false.
        #[serde(default)]
        follow: bool,
        /// How to render it.
        style: Option<Style>,
        /// Ranges to read.
        #[schemars(length(min = 1))]
        ranges: Option<Vec<Range>>,
    }

    #[derive(Debug, Default, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        #[default]
        Text,
        Bytes,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Style {
        Plain,
        Numbered,
    }

    // No doc comment: it would become the description of `items`.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Range {
        /// First line.
        #[schemars(range(min = 1))]
        start: i64,
        /// Last line, if any.
        end: Option<f64>,
    }

    #[test]
    fn schema_is_derived_from_the_type() {
        let schema = schema_for::<Args>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["path"]["type"], "string");
        assert_eq!(schema["properties"]["path"]["description"], "File to read.");
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
    fn optional_fields_are_plain_and_numbers_carry_no_rust_format() {
        let schema = schema_for::<Args>();
        let properties = &schema["properties"];
        assert_eq!(
            properties["offset"],
            json!({"description": "First line, 1-based.", "minimum": 0, "type": "integer"})
        );
        assert_eq!(
            properties["style"],
            json!({"description": "How to render it.", "enum": ["plain", "numbered"], "type": "string"})
        );
        assert_eq!(properties["ranges"]["type"], "array", "{schema}");
        assert_eq!(properties["ranges"]["minItems"], 1, "{schema}");
        let range = &properties["ranges"]["items"];
        assert_eq!(
            range["properties"]["start"],
            json!({"description": "First line.", "minimum": 1, "type": "integer"})
        );
        assert_eq!(
            range["properties"]["end"],
            json!({"description": "Last line, if any.", "type": "number"})
        );
        assert_eq!(range["required"], json!(["start"]));
        assert!(range.get("description").is_none(), "{range}");
    }

    #[test]
    fn defaults_are_left_to_the_description() {
        let schema = schema_for::<Args>();
        assert_eq!(
            schema["properties"]["follow"],
            json!({
                "description": "Whether to follow symbolic links.\n\nDefault false.",
                "type": "boolean"
            })
        );
        assert!(schema["properties"]["mode"].get("default").is_none());
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
        assert_eq!(spec.guidance, None);
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
