//! A prompt's content blocks as the text of one user turn. Text is kept as written; a
//! resource link becomes an `@path` reference when it names a file in the workspace (the
//! session reads it under the same rules as a typed `@path`), otherwise its URI; an embedded
//! text resource is quoted in a fenced block under its URI. An image goes to the model with
//! the turn (checked like every image: type, size, base64), and the text names it for a
//! model that cannot see it. Audio and binary resources are not offered (the prompt
//! capabilities say so) and are refused if sent anyway.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};
use reasonix_core::types::Image;
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
    #[error("prompt block {index}: {why}")]
    BadImage { index: usize, why: String },
    #[error("the prompt is empty")]
    Empty,
}

/// One user turn from an editor: its text and the images attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    pub images: Vec<Image>,
}

/// The turn for `blocks`, in a session whose workspace is `cwd`.
pub fn prompt(blocks: &[ContentBlock], cwd: &Path) -> Result<Prompt, PromptError> {
    let mut parts: Vec<String> = Vec::new();
    let mut images: Vec<Image> = Vec::new();
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
            ContentBlock::Image(image) => {
                let image = reasonix_core::image::checked(&image.mime_type, &image.data)
                    .map_err(|why| PromptError::BadImage { index, why })?;
                // The text says what the model may not be able to see.
                parts.push(format!(
                    "[image: {}, about {} bytes]",
                    image.media_type,
                    image.data.len() / 4 * 3
                ));
                images.push(image);
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
    Ok(Prompt { text, images })
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
        let text = prompt(&b, cwd).unwrap().text;
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
    fn images_go_with_the_turn_and_bad_ones_audio_and_empty_prompts_are_refused() {
        let cwd = Path::new("/ws");
        let image = blocks(serde_json::json!([
            {"type": "text", "text": "what is this?"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
        ]));
        let turn = prompt(&image, cwd).unwrap();
        assert_eq!(turn.images.len(), 1);
        assert_eq!(turn.images[0].media_type, "image/png");
        assert_eq!(
            turn.text,
            "what is this?\n\n[image: image/png, about 9 bytes]"
        );
        for (mime, data, why) in [
            ("image/tiff", "AAAA", "image type `image/tiff`"),
            ("image/png", "not base64!", "not standard padded base64"),
            ("image/png", "", "has no data"),
        ] {
            let bad = blocks(serde_json::json!([
                {"type": "text", "text": "x"},
                {"type": "image", "data": data, "mimeType": mime}
            ]));
            let message = prompt(&bad, cwd).unwrap_err().to_string();
            assert!(
                message.starts_with("prompt block 1: ") && message.contains(why),
                "{message}"
            );
        }
        let audio = blocks(serde_json::json!([
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}
        ]));
        assert_eq!(
            prompt(&audio, cwd).unwrap_err().to_string(),
            "prompt block 0: audio is not supported by this agent"
        );
        let empty = blocks(serde_json::json!([{"type": "text", "text": "  "}]));
        assert_eq!(prompt(&empty, cwd).unwrap_err(), PromptError::Empty);
        let big = "x".repeat(MAX_EMBEDDED_BYTES + 1);
        let large = blocks(serde_json::json!([
            {"type": "resource", "resource": {"uri": "file:///ws/big", "text": big}}
        ]));
        assert!(matches!(
            prompt(&large, cwd),
            Err(PromptError::TooLarge { index: 0, .. })
        ));
    }
}
