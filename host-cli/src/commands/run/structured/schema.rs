//! A JSON Schema validator for `--json-schema`, covering the keywords structured-output
//! schemas use (types, objects, arrays, strings, numbers, `enum`/`const`, the combinators and
//! local `$ref`s). A schema using any other assertion keyword is refused when it is loaded,
//! never half-checked. Written here rather than taken from a crate: the maintained validators
//! (`jsonschema`, `boon`) bring a third `getrandom`, a second `wit-bindgen` and, for `boon`, an
//! `MIT-0` licence into a tree where duplicates and unreviewed licences fail `cargo deny`.

use fancy_regex::Regex;
use serde_json::{Map, Value};
use std::cell::Cell;
use std::collections::HashMap;

/// Keywords that only annotate: accepted, never asserted (`format` too, as JSON Schema 2020-12
/// leaves it to annotation by default).
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "title",
    "description",
    "default",
    "examples",
    "format",
    "readOnly",
    "writeOnly",
    "deprecated",
    "$defs",
    "definitions",
];

const ASSERTIONS: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "$ref",
];

/// Why a schema cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SchemaError {
    #[error(
        "`{keyword}` at {at} is not a keyword Reasonix checks (it checks: {})",
        ASSERTIONS.join(", ")
    )]
    Unsupported { keyword: String, at: String },
    #[error("{at}: {problem}")]
    Invalid { at: String, problem: String },
}

/// A loaded schema, ready to validate values.
#[derive(Debug)]
pub struct Schema {
    root: Value,
    /// Compiled `pattern` and `patternProperties` keys, by their source.
    regexes: HashMap<String, Regex>,
    /// Schema nodes visited by the validation in progress, bounded by [`MAX_WORK`].
    work: Cell<u32>,
}

/// Schema nodes one validation may visit: combinators over self-references can grow
/// exponentially, and a schema from the command line must not hang the run.
const MAX_WORK: u32 = 200_000;

impl Schema {
    /// Check that every keyword of `root` is one this validator knows, that its `$ref`s point
    /// inside it and its patterns compile.
    pub fn new(root: Value) -> Result<Schema, SchemaError> {
        let mut regexes = HashMap::new();
        check(&root, &root, "#", &mut regexes)?;
        Ok(Schema {
            root,
            regexes,
            work: Cell::new(0),
        })
    }

    pub fn source(&self) -> &Value {
        &self.root
    }

    /// Every way `value` fails the schema, as `<where>: <what>` (empty when it is valid).
    pub fn validate(&self, value: &Value) -> Vec<String> {
        let mut errors = Vec::new();
        self.work.set(0);
        self.at(&self.root, value, "", &mut errors, 0);
        errors
    }

    fn at(&self, schema: &Value, value: &Value, path: &str, errors: &mut Vec<String>, depth: u32) {
        let shown = if path.is_empty() { "the value" } else { path };
        let mut fail = |what: String| errors.push(format!("{shown}: {what}"));
        // `$ref` cycles that never reach a value are cut (the check is bounded, not exact).
        self.work.set(self.work.get().saturating_add(1));
        if depth > 64 || self.work.get() > MAX_WORK {
            fail("the schema's `$ref`s nest too deeply to check".into());
            return;
        }
        let map = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return fail("no value is allowed here".into()),
            Value::Object(map) => map,
            _ => return,
        };
        if let Some(Value::String(r)) = map.get("$ref")
            && let Some(target) = resolve(&self.root, r)
        {
            self.at(target, value, path, errors, depth + 1);
        }
        let mut fail = |what: String| errors.push(format!("{shown}: {what}"));
        if let Some(t) = map.get("type") {
            let names: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if !names.iter().any(|n| is_type(value, n)) {
                fail(format!(
                    "expected {}, got {}",
                    names.join(" or "),
                    type_of(value)
                ));
            }
        }
        if let Some(Value::Array(options)) = map.get("enum")
            && !options.iter().any(|o| o == value)
        {
            fail(format!(
                "{} is not one of {}",
                clip(value),
                Value::Array(options.clone())
            ));
        }
        if let Some(c) = map.get("const")
            && c != value
        {
            fail(format!("expected {c}, got {}", clip(value)));
        }
        match value {
            Value::Object(object) => self.object(map, object, path, errors, depth),
            Value::Array(items) => self.array(map, items, path, errors, depth),
            Value::String(text) => self.string(map, text, shown, errors),
            Value::Number(n) => number(map, n.as_f64().unwrap_or(f64::NAN), shown, errors),
            _ => {}
        }
        self.combinators(map, value, path, shown, errors, depth);
    }

    fn combinators(
        &self,
        map: &Map<String, Value>,
        value: &Value,
        path: &str,
        shown: &str,
        errors: &mut Vec<String>,
        depth: u32,
    ) {
        let passes = |s: &Value| {
            let mut e = Vec::new();
            self.at(s, value, path, &mut e, depth + 1);
            e
        };
        if let Some(Value::Array(all)) = map.get("allOf") {
            for s in all {
                errors.extend(passes(s));
            }
        }
        if let Some(Value::Array(any)) = map.get("anyOf") {
            let results: Vec<Vec<String>> = any.iter().map(passes).collect();
            if results.iter().all(|e| !e.is_empty()) {
                errors.push(format!(
                    "{shown}: matches none of the `anyOf` schemas ({})",
                    results
                        .iter()
                        .flatten()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("; ")
                ));
            }
        }
        if let Some(Value::Array(one)) = map.get("oneOf") {
            let matching = one.iter().filter(|s| passes(s).is_empty()).count();
            if matching != 1 {
                errors.push(format!(
                    "{shown}: matches {matching} of the `oneOf` schemas, not exactly 1"
                ));
            }
        }
        if let Some(not) = map.get("not")
            && passes(not).is_empty()
        {
            errors.push(format!("{shown}: matches the schema under `not`"));
        }
    }

    fn object(
        &self,
        map: &Map<String, Value>,
        object: &Map<String, Value>,
        path: &str,
        errors: &mut Vec<String>,
        depth: u32,
    ) {
        let shown = if path.is_empty() { "the value" } else { path };
        if let Some(Value::Array(required)) = map.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    errors.push(format!("{shown}: the property `{name}` is missing"));
                }
            }
        }
        let count = object.len() as f64;
        if let Some(min) = map.get("minProperties").and_then(Value::as_f64)
            && count < min
        {
            errors.push(format!("{shown}: {count} properties, fewer than {min}"));
        }
        if let Some(max) = map.get("maxProperties").and_then(Value::as_f64)
            && count > max
        {
            errors.push(format!("{shown}: {count} properties, more than {max}"));
        }
        let properties = map.get("properties").and_then(Value::as_object);
        let patterns = map.get("patternProperties").and_then(Value::as_object);
        for (name, item) in object {
            let item_path = format!("{path}/{}", pointer_escape(name));
            let mut matched = false;
            if let Some(s) = properties.and_then(|p| p.get(name)) {
                matched = true;
                self.at(s, item, &item_path, errors, depth + 1);
            }
            for (pattern, s) in patterns.into_iter().flatten() {
                if self.matches(pattern, name) {
                    matched = true;
                    self.at(s, item, &item_path, errors, depth + 1);
                }
            }
            if !matched && let Some(extra) = map.get("additionalProperties") {
                if extra == &Value::Bool(false) {
                    errors.push(format!("{shown}: the property `{name}` is not allowed"));
                } else {
                    self.at(extra, item, &item_path, errors, depth + 1);
                }
            }
        }
    }

    fn array(
        &self,
        map: &Map<String, Value>,
        items: &[Value],
        path: &str,
        errors: &mut Vec<String>,
        depth: u32,
    ) {
        let shown = if path.is_empty() { "the value" } else { path };
        let count = items.len() as f64;
        if let Some(min) = map.get("minItems").and_then(Value::as_f64)
            && count < min
        {
            errors.push(format!("{shown}: {count} items, fewer than {min}"));
        }
        if let Some(max) = map.get("maxItems").and_then(Value::as_f64)
            && count > max
        {
            errors.push(format!("{shown}: {count} items, more than {max}"));
        }
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (i, a) in items.iter().enumerate() {
                if items[..i].contains(a) {
                    errors.push(format!("{shown}: item {i} repeats an earlier item"));
                }
            }
        }
        // `prefixItems` (2020-12), or `items` as an array (draft 7 and before), for the first
        // items; `items` as a schema for the rest.
        let prefix: &[Value] = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(p)), _) | (None, Some(Value::Array(p))) => p,
            _ => &[],
        };
        let rest = map.get("items").filter(|s| !s.is_array());
        for (i, item) in items.iter().enumerate() {
            let schema = prefix.get(i).or(rest);
            if let Some(schema) = schema {
                self.at(schema, item, &format!("{path}/{i}"), errors, depth + 1);
            }
        }
    }

    fn string(&self, map: &Map<String, Value>, text: &str, shown: &str, errors: &mut Vec<String>) {
        let length = text.chars().count() as f64;
        if let Some(min) = map.get("minLength").and_then(Value::as_f64)
            && length < min
        {
            errors.push(format!("{shown}: {length} characters, fewer than {min}"));
        }
        if let Some(max) = map.get("maxLength").and_then(Value::as_f64)
            && length > max
        {
            errors.push(format!("{shown}: {length} characters, more than {max}"));
        }
        if let Some(Value::String(pattern)) = map.get("pattern")
            && !self.matches(pattern, text)
        {
            errors.push(format!("{shown}: does not match the pattern `{pattern}`"));
        }
    }

    fn matches(&self, pattern: &str, text: &str) -> bool {
        self.regexes
            .get(pattern)
            .is_some_and(|r| r.is_match(text).unwrap_or(false))
    }
}

fn number(map: &Map<String, Value>, n: f64, shown: &str, errors: &mut Vec<String>) {
    let bound = |key: &str| map.get(key).and_then(Value::as_f64);
    if let Some(min) = bound("minimum")
        && n < min
    {
        errors.push(format!("{shown}: {n} is less than the minimum {min}"));
    }
    if let Some(max) = bound("maximum")
        && n > max
    {
        errors.push(format!("{shown}: {n} is more than the maximum {max}"));
    }
    if let Some(min) = bound("exclusiveMinimum")
        && n <= min
    {
        errors.push(format!("{shown}: {n} is not more than {min}"));
    }
    if let Some(max) = bound("exclusiveMaximum")
        && n >= max
    {
        errors.push(format!("{shown}: {n} is not less than {max}"));
    }
    if let Some(step) = bound("multipleOf").filter(|s| *s > 0.0) {
        let ratio = n / step;
        if (ratio - ratio.round()).abs() > 1e-9 {
            errors.push(format!("{shown}: {n} is not a multiple of {step}"));
        }
    }
}

/// Walk a schema once at load: every keyword known, `$ref`s local and resolvable, patterns
/// compiled, keyword values of the right JSON type.
fn check(
    root: &Value,
    schema: &Value,
    at: &str,
    regexes: &mut HashMap<String, Regex>,
) -> Result<(), SchemaError> {
    let invalid = |problem: &str| SchemaError::Invalid {
        at: at.to_string(),
        problem: problem.to_string(),
    };
    let map = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(map) => map,
        _ => return Err(invalid("a schema is an object or true/false")),
    };
    for (keyword, value) in map {
        let here = format!("{at}/{}", pointer_escape(keyword));
        let sub = |regexes: &mut HashMap<String, Regex>, s: &Value, at: String| {
            check(root, s, &at, regexes)
        };
        match keyword.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                let Some(children) = value.as_object() else {
                    return Err(invalid(&format!("`{keyword}` must be an object")));
                };
                for (name, s) in children {
                    if keyword == "patternProperties" {
                        compile(name, &here, regexes)?;
                    }
                    sub(regexes, s, format!("{here}/{}", pointer_escape(name)))?;
                }
            }
            "additionalProperties" | "not" => sub(regexes, value, here)?,
            "items" => match value {
                Value::Array(list) => {
                    for (i, s) in list.iter().enumerate() {
                        sub(regexes, s, format!("{here}/{i}"))?;
                    }
                }
                s => sub(regexes, s, here)?,
            },
            "prefixItems" | "allOf" | "anyOf" | "oneOf" => {
                let Some(list) = value.as_array().filter(|l| !l.is_empty()) else {
                    return Err(invalid(&format!("`{keyword}` must be a non-empty array")));
                };
                for (i, s) in list.iter().enumerate() {
                    sub(regexes, s, format!("{here}/{i}"))?;
                }
            }
            "$ref" => {
                let target = value.as_str().and_then(|r| resolve(root, r));
                if target.is_none() {
                    return Err(SchemaError::Invalid {
                        at: here,
                        problem: format!(
                            "{value} does not point inside this schema (only `#…` references \
                             are followed)"
                        ),
                    });
                }
            }
            "pattern" => match value.as_str() {
                Some(p) => compile(p, &here, regexes)?,
                None => return Err(invalid("`pattern` must be a string")),
            },
            "type" => {
                let names: Vec<&Value> = match value {
                    Value::Array(a) => a.iter().collect(),
                    v => vec![v],
                };
                for name in names {
                    if !name.as_str().is_some_and(|n| {
                        matches!(
                            n,
                            "object"
                                | "array"
                                | "string"
                                | "number"
                                | "integer"
                                | "boolean"
                                | "null"
                        )
                    }) {
                        return Err(invalid(&format!("{name} is not a JSON Schema type")));
                    }
                }
            }
            k if ASSERTIONS.contains(&k) || ANNOTATIONS.contains(&k) => {}
            _ => {
                return Err(SchemaError::Unsupported {
                    keyword: keyword.clone(),
                    at: at.to_string(),
                });
            }
        }
    }
    Ok(())
}

fn compile(
    pattern: &str,
    at: &str,
    regexes: &mut HashMap<String, Regex>,
) -> Result<(), SchemaError> {
    if regexes.contains_key(pattern) {
        return Ok(());
    }
    let regex = Regex::new(pattern).map_err(|e| SchemaError::Invalid {
        at: at.to_string(),
        problem: format!("the pattern `{pattern}` does not compile: {e}"),
    })?;
    regexes.insert(pattern.to_string(), regex);
    Ok(())
}

/// A local reference (`#`, `#/$defs/x`) inside `root`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

fn pointer_escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        _ => false,
    }
}

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Number(_) => "a number",
    }
}

fn clip(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, value: Value) -> Vec<String> {
        Schema::new(schema).unwrap().validate(&value)
    }

    #[test]
    fn objects_and_their_properties() {
        let schema = json!({
            "type": "object",
            "properties": {"name": {"type": "string", "minLength": 2}, "n": {"type": "integer"}},
            "required": ["name", "n"],
            "additionalProperties": false
        });
        assert!(errors(schema.clone(), json!({"name": "ab", "n": 3})).is_empty());
        assert!(errors(schema.clone(), json!({"name": "ab", "n": 3.0})).is_empty());
        let e = errors(schema, json!({"name": "a", "x": 1}));
        assert!(
            e.contains(&"the value: the property `n` is missing".to_string()),
            "{e:?}"
        );
        assert!(
            e.contains(&"the value: the property `x` is not allowed".to_string()),
            "{e:?}"
        );
        assert!(
            e.iter().any(|m| m.starts_with("/name: 1 characters")),
            "{e:?}"
        );
    }

    #[test]
    fn arrays_numbers_enums_and_patterns() {
        let schema = json!({
            "type": "array",
            "items": {"type": "number", "minimum": 0, "exclusiveMaximum": 10},
            "minItems": 1,
            "uniqueItems": true
        });
        assert!(errors(schema.clone(), json!([1, 2.5])).is_empty());
        assert_eq!(errors(schema.clone(), json!([])).len(), 1);
        assert_eq!(errors(schema.clone(), json!([1, 1])).len(), 1);
        assert_eq!(errors(schema, json!([-1, 10])).len(), 2);
        let schema = json!({"enum": ["a", "b"], "pattern": "^[ab]$"});
        assert!(errors(schema.clone(), json!("a")).is_empty());
        assert_eq!(errors(schema, json!("c")).len(), 2);
    }

    #[test]
    fn combinators_and_local_refs() {
        let schema = json!({
            "$defs": {"id": {"type": "string", "pattern": "^x"}},
            "anyOf": [{"$ref": "#/$defs/id"}, {"type": "null"}],
            "not": {"const": "xx"}
        });
        assert!(errors(schema.clone(), json!("xa")).is_empty());
        assert!(errors(schema.clone(), json!(null)).is_empty());
        assert_eq!(errors(schema.clone(), json!("y")).len(), 1);
        assert_eq!(errors(schema, json!("xx")).len(), 1);
        let one = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert_eq!(errors(one.clone(), json!(1)).len(), 1);
        assert!(errors(one, json!(1.5)).is_empty());
    }

    #[test]
    fn unknown_keywords_and_bad_refs_are_refused_at_load() {
        let e = Schema::new(json!({"properties": {"a": {"if": {}}}})).unwrap_err();
        assert!(
            matches!(&e, SchemaError::Unsupported { keyword, at } if keyword == "if" && at == "#/properties/a"),
            "{e}"
        );
        let e = Schema::new(json!({"$ref": "other.json#/x"})).unwrap_err();
        assert!(e.to_string().contains("does not point inside"), "{e}");
        assert!(Schema::new(json!({"pattern": "("})).is_err());
        assert!(Schema::new(json!({"type": "text"})).is_err());
        assert!(Schema::new(json!([1])).is_err());
    }

    #[test]
    fn a_ref_cycle_ends() {
        let e = errors(json!({"$ref": "#"}), json!(1));
        assert!(e.iter().any(|m| m.contains("nest too deeply")), "{e:?}");
        let e = errors(json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}), json!(1));
        assert!(!e.is_empty());
    }
}
