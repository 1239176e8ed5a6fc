//! A prompt's content blocks as the text of one user turn. Text is kept as written; a
//! resource link becomes an `@path` reference when it names a file in the workspace (the
//! session reads it under the same rules as a typed `@path`), otherwise its URI; an embedded
//! text resource is quoted in a fenced block under its URI. Images and binary resources are
//! not offered (the prompt capabilities say so) and are refused if sent anyway.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};
use std::path::Path;

/// The largest embedded resource taken into a prompt.
pub const MAX_EMBEDDED_BYTES: usize = 256 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    #[error("prompt block {index}: {what} is not supported by this agent")]
    Unsupported { index: usize, what: &'static str },
    #[error(
        "prompt block {index}: the embedded resource {uri} is {len} bytes; at most {MAX_EMBEDDED_BYTES}"
    )]
    TooLarge {
        index: usize,
        uri: String,
        len: usize,
    },
    #[error("the prompt is empty")]
    Empty,
}

/// The turn's text for `blocks`, in a session whose workspace is `cwd`.
pub fn prompt_text(blocks: &[ContentBlock], cwd: &Path) -> Result<String, PromptError> {
    let mut parts: Vec<String> = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        match block {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::ResourceLink(link) => parts.push(reference(&link.uri, cwd)),
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(r) => {
                    if r.text.len() > MAX_EMBEDDED_BYTES {
                        return Err(PromptError::TooLarge {
                            index,
                            uri: r.uri.clone(),
                            len: r.text.len(),
                        });
                    }
                    let fence = fence_for(&r.text);
                    parts.push(format!("{}\n{fence}\n{}\n{fence}", r.uri, r.text));
                }
                _ => {
                    return Err(PromptError::Unsupported {
                        index,
                        what: "a binary resource",
                    });
                }
            },
            ContentBlock::Image(_) => {
                return Err(PromptError::Unsupported {
                    index,
                    what: "an image",
                });
            }
            ContentBlock::Audio(_) => {
                return Err(PromptError::Unsupported {
                    index,
                    what: "audio",
                });
            }
            _ => {
                return Err(PromptError::Unsupported {
                    index,
                    what: "this kind of block",
                });
            }
        }
    }
    let text = parts.join("\n\n");
    if text.trim().is_empty() {
        return Err(PromptError::Empty);
    }
    Ok(text)
}

/// `file://` inside the workspace → `@relative/path`; anything else as written.
fn reference(uri: &str, cwd: &Path) -> String {
    let Some(path) = uri.strip_prefix("file://") else {
        return uri.to_string();
    };
    match Path::new(path).strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() && !path.contains(char::is_whitespace) => {
            format!("@{}", rel.display())
        }
        _ => uri.to_string(),
    }
}

/// A backtick fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn blocks(json: serde_json::Value) -> Vec<ContentBlock> {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn links_in_the_workspace_become_references_and_embedded_text_is_fenced() {
        let cwd = Path::new("/ws");
        let b = blocks(serde_json::json!([
            {"type": "text", "text": "Look at"},
            {"type": "resource_link", "uri": "file:///ws/src/a.rs", "name": "a.rs"},
            {"type": "resource_link", "uri": "file:///etc/passwd", "name": "passwd"},
            {"type": "resource", "resource": {"uri": "file:///ws/b.md", "text": "has ``` inside"}}
        ]));
        let text = prompt_text(&b, cwd).unwrap();
        assert!(
            text.starts_with("Look at\n\n@src/a.rs\n\nfile:///etc/passwd\n\n"),
            "{text}"
        );
        assert!(
            text.ends_with("file:///ws/b.md\n````\nhas ``` inside\n````"),
            "{text}"
        );
    }

    #[test]
    fn images_binary_and_empty_prompts_are_refused_naming_the_block() {
        let cwd = Path::new("/ws");
        let image = blocks(serde_json::json!([
            {"type": "text", "text": "x"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"}
        ]));
        assert_eq!(
            prompt_text(&image, cwd).unwrap_err().to_string(),
            "prompt block 1: an image is not supported by this agent"
        );
        let empty = blocks(serde_json::json!([{"type": "text", "text": "  "}]));
        assert_eq!(prompt_text(&empty, cwd).unwrap_err(), PromptError::Empty);
        let big = "x".repeat(MAX_EMBEDDED_BYTES + 1);
        let large = blocks(serde_json::json!([
            {"type": "resource", "resource": {"uri": "file:///ws/big", "text": big}}
        ]));
        assert!(matches!(
            prompt_text(&large, cwd),
            Err(PromptError::TooLarge { index: 0, .. })
        ));
    }
}
