//! Large payload fields leave the frame: a string over [`EXTERNALIZE_BYTES`] is replaced by
//! `null` and described by an `ExternalizedField` the sidecar can read through
//! `host/content/read` in [`PAGE_BYTES`] pages, for the duration of the one call. A replacement
//! that keeps such a field unchanged lists it in its own `externalized`, and the host puts the
//! original back.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Strings longer than this are externalised.
pub const EXTERNALIZE_BYTES: usize = 64 * 1024;
/// One `host/content/read` page.
pub const PAGE_BYTES: usize = 256 * 1024;
/// Largest content object.
pub const OBJECT_BYTES: usize = 8 * 1024 * 1024;

/// One field taken out of a payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExternalizedField {
    pub json_pointer: String,
    pub content_ref: String,
    pub total_bytes: u64,
    pub sha256: String,
}

/// Replace every large string in `value` by `null`; return the descriptions and the contents.
/// Refs are `<prefix>-<n>`. A field over [`OBJECT_BYTES`] cannot be served and is an error.
pub fn externalize(
    value: &mut Value,
    prefix: &str,
) -> Result<Vec<(ExternalizedField, String)>, String> {
    let mut out = Vec::new();
    walk(value, &mut String::new(), prefix, &mut out)?;
    Ok(out)
}

fn walk(
    value: &mut Value,
    pointer: &mut String,
    prefix: &str,
    out: &mut Vec<(ExternalizedField, String)>,
) -> Result<(), String> {
    match value {
        Value::String(text) if text.len() > EXTERNALIZE_BYTES => {
            if text.len() > OBJECT_BYTES {
                return Err(format!(
                    "the field at `{pointer}` is {} bytes, more than the {OBJECT_BYTES} bytes a sidecar may read",
                    text.len()
                ));
            }
            let text = std::mem::take(text);
            *value = Value::Null;
            out.push((
                ExternalizedField {
                    json_pointer: pointer.clone(),
                    content_ref: format!("{prefix}-{}", out.len() + 1),
                    total_bytes: text.len() as u64,
                    sha256: reasonix_core::sha256_hex(text.as_bytes()),
                },
                text,
            ));
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                walk(item, pointer, prefix, out)?;
                pointer.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                walk(item, pointer, prefix, out)?;
                pointer.truncate(len);
            }
        }
        _ => {}
    }
    Ok(())
}

/// Put back, in a replacement, the fields the sidecar says it kept (`echoed`, from its result's
/// `externalized`): only refs issued for this call, only where the replacement has `null`.
pub fn restore(
    replacement: &mut Value,
    echoed: &[Value],
    issued: &[(ExternalizedField, String)],
) -> Result<(), String> {
    for item in echoed {
        let field: ExternalizedField = serde_json::from_value(item.clone())
            .map_err(|e| format!("an `externalized` entry of the result: {e}"))?;
        let Some((_, text)) = issued.iter().find(|(f, _)| f == &field) else {
            return Err(format!(
                "the result lists content `{}` at `{}`, which the host did not externalise there for this call",
                reasonix_core::terminal::line(&field.content_ref),
                reasonix_core::terminal::line(&field.json_pointer)
            ));
        };
        match replacement.pointer_mut(&field.json_pointer) {
            Some(slot @ Value::Null) => *slot = Value::String(text.clone()),
            _ => {
                return Err(format!(
                    "the replacement has no `null` at `{}` to put content `{}` back",
                    reasonix_core::terminal::line(&field.json_pointer),
                    reasonix_core::terminal::line(&field.content_ref)
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn large_strings_leave_and_come_back() {
        let big = "x".repeat(EXTERNALIZE_BYTES + 1);
        let mut payload = json!({"name": "t", "result": big, "list": ["small", big], "a/b": big});
        let issued = externalize(&mut payload, "c7").unwrap();
        assert_eq!(issued.len(), 3);
        assert_eq!(payload["result"], Value::Null);
        let pointers: Vec<&str> = issued
            .iter()
            .map(|(f, _)| f.json_pointer.as_str())
            .collect();
        assert!(
            pointers.contains(&"/result")
                && pointers.contains(&"/list/1")
                && pointers.contains(&"/a~1b"),
            "{pointers:?}"
        );
        assert_eq!(payload["name"], "t");

        let mut replacement = payload.clone();
        let echoed: Vec<Value> = issued
            .iter()
            .map(|(f, _)| serde_json::to_value(f).unwrap())
            .collect();
        restore(&mut replacement, &echoed, &issued).unwrap();
        assert_eq!(
            replacement["result"].as_str().unwrap().len(),
            EXTERNALIZE_BYTES + 1
        );
        assert_eq!(
            replacement["a/b"].as_str().unwrap().len(),
            EXTERNALIZE_BYTES + 1
        );

        // A ref the host did not issue, or one moved to another place, is refused.
        let mut forged = serde_json::to_value(&issued[0].0).unwrap();
        forged["jsonPointer"] = "/name".into();
        assert!(restore(&mut payload.clone(), &[forged], &issued).is_err());
    }

    #[test]
    fn a_field_over_the_object_limit_is_an_error() {
        let mut payload = json!({"result": "y".repeat(OBJECT_BYTES + 1)});
        assert!(
            externalize(&mut payload, "c")
                .unwrap_err()
                .contains("/result")
        );
    }
}
