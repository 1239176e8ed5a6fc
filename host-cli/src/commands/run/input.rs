//! `--input-format stream-json`: the user turns as JSON lines on stdin, in the shape Claude
//! Code's SDK writes them: `{"type":"user","message":{"role":"user","content":"…"}}`, the
//! content a string or a list of `{"type":"text","text":"…"}` and
//! `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"…"}}` blocks. One
//! agent turn per line, until end of input.

use reasonix_session::input::Turn;
use serde_json::Value;
use std::io::{BufRead, Read};

/// The longest line read; a longer one is an error, not a turn.
pub const MAX_LINE: usize = 1024 * 1024;

/// Why the input stopped being usable.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("--input-format stream-json: stdin line {line}: {problem}")]
    Bad { line: usize, problem: String },
    #[error(
        "--input-format stream-json: stdin line {line} is longer than {} KiB",
        MAX_LINE / 1024
    )]
    TooLong { line: usize },
    #[error("--input-format stream-json: cannot read stdin (line {line}): {source}")]
    Read { line: usize, source: std::io::Error },
}

/// The user turns of a reader, in order.
pub struct Turns<R> {
    reader: R,
    line: usize,
    done: bool,
}

impl<R: BufRead> Turns<R> {
    pub fn new(reader: R) -> Turns<R> {
        Turns {
            reader,
            line: 0,
            done: false,
        }
    }

    /// The next line's bytes, at most [`MAX_LINE`] of them; `None` at the end.
    fn next_line(&mut self) -> Result<Option<Vec<u8>>, InputError> {
        self.line += 1;
        let mut buf = Vec::new();
        let limit = u64::try_from(MAX_LINE).unwrap_or(u64::MAX) + 1;
        let read = (&mut self.reader)
            .take(limit)
            .read_until(b'\n', &mut buf)
            .map_err(|source| InputError::Read {
                line: self.line,
                source,
            })?;
        if read == 0 {
            return Ok(None);
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        } else if buf.len() > MAX_LINE {
            return Err(InputError::TooLong { line: self.line });
        }
        Ok(Some(buf))
    }
}

impl<R: BufRead> Iterator for Turns<R> {
    type Item = Result<Turn, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let bytes = match self.next_line() {
                Ok(Some(bytes)) => bytes,
                Ok(None) => break,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let line = self.line;
            let turn = std::str::from_utf8(&bytes)
                .map_err(|e| format!("not UTF-8: {e}"))
                .and_then(user_turn)
                .map_err(|problem| InputError::Bad { line, problem });
            self.done = turn.is_err();
            return Some(turn);
        }
        self.done = true;
        None
    }
}

/// The turn of one input line, or what is wrong with it.
fn user_turn(line: &str) -> Result<Turn, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    match value.get("type").and_then(Value::as_str) {
        Some("user") => {}
        Some(other) => {
            return Err(format!(
                "a message of type `{}`; only `user` messages are read",
                reasonix_core::terminal::shown(other)
            ));
        }
        None => return Err("no `type` (expected `\"type\":\"user\"`)".into()),
    }
    let content = value
        .pointer("/message/content")
        .ok_or("no `message.content`")?;
    let turn = match content {
        Value::String(text) => Turn::text(text.clone()),
        Value::Array(blocks) => {
            let mut parts = Vec::new();
            let mut images = Vec::new();
            for (i, block) in blocks.iter().enumerate() {
                match (block.get("type").and_then(Value::as_str), block.get("text")) {
                    (Some("text"), Some(Value::String(text))) => parts.push(text.clone()),
                    (Some("text"), _) => {
                        return Err(format!("content block {i} has no `text` string"));
                    }
                    (Some("image"), _) => {
                        let image = image_block(block)
                            .map_err(|why| format!("content block {i} (image): {why}"))?;
                        // The text says what the model may not be able to see.
                        parts.push(format!(
                            "[image: {}, about {} bytes]",
                            image.media_type,
                            image.data.len() / 4 * 3
                        ));
                        images.push(image);
                    }
                    (kind, _) => {
                        return Err(format!(
                            "content block {i} is of type `{}`; only `text` and `image` blocks are read",
                            reasonix_core::terminal::shown(kind.unwrap_or("(none)"))
                        ));
                    }
                }
            }
            Turn {
                text: parts.join("\n"),
                images,
                words: None,
            }
        }
        _ => return Err("`message.content` is neither a string nor a list of blocks".into()),
    };
    if turn.text.trim().is_empty() {
        return Err("the message is empty".into());
    }
    Ok(turn)
}

/// An Anthropic-style image block with a base64 `source`.
fn image_block(block: &Value) -> Result<reasonix_core::types::Image, String> {
    let source = block.get("source").ok_or("no `source`")?;
    match source.get("type").and_then(Value::as_str) {
        Some("base64") => {}
        Some(other) => {
            return Err(format!(
                "a `{}` source; only `base64` sources are read",
                reasonix_core::terminal::shown(other)
            ));
        }
        None => return Err("the source has no `type`".into()),
    }
    let media_type = source
        .get("media_type")
        .and_then(Value::as_str)
        .ok_or("the source has no `media_type`")?;
    let data = source
        .get("data")
        .and_then(Value::as_str)
        .ok_or("the source has no `data`")?;
    reasonix_core::image::checked(media_type, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(input: &str) -> Vec<Result<String, String>> {
        Turns::new(input.as_bytes())
            .map(|t| t.map(|t| t.text).map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn lines_become_turns_until_a_bad_one() {
        let input = concat!(
            r#"{"type":"user","message":{"role":"user","content":"one"}}"#,
            "\n\n",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"two"},{"type":"text","text":"lines"}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"never"}}"#,
        );
        let got = turns(input);
        assert_eq!(got[0], Ok("one".to_string()));
        assert_eq!(got[1], Ok("two\nlines".to_string()));
        let e = got[2].clone().unwrap_err();
        assert!(
            e.contains("stdin line 4: a message of type `assistant`"),
            "{e}"
        );
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn image_blocks_are_attached_and_described() {
        let line = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}}"#;
        let turn = Turns::new(line.as_bytes()).next().unwrap().unwrap();
        assert_eq!(
            turn.text,
            "what is this?\n[image: image/png, about 9 bytes]"
        );
        assert_eq!(turn.images.len(), 1);
        assert_eq!(turn.images[0].data, "iVBORw0KGgo=");
    }

    #[test]
    fn bad_lines_say_what_and_where() {
        let e = turns("{nope\n")[0].clone().unwrap_err();
        assert!(e.contains("stdin line 1: not JSON"), "{e}");
        let e = turns(r#"{"type":"user","message":{"content":[{"type":"document"}]}}"#)[0]
            .clone()
            .unwrap_err();
        assert!(e.contains("content block 0 is of type `document`"), "{e}");
        for (source, why) in [
            (r#"{}"#, "content block 1 (image): the source has no `type`"),
            (
                r#"{"type":"url","url":"http://x"}"#,
                "a `url` source; only `base64` sources are read",
            ),
            (
                r#"{"type":"base64","media_type":"image/tiff","data":"AAAA"}"#,
                "image type `image/tiff` is not one a model takes",
            ),
            (
                r#"{"type":"base64","media_type":"image/png","data":"%%%%"}"#,
                "not standard padded base64",
            ),
        ] {
            let line = format!(
                r#"{{"type":"user","message":{{"content":[{{"type":"text","text":"see"}},{{"type":"image","source":{source}}}]}}}}"#
            );
            let e = turns(&line)[0].clone().unwrap_err();
            assert!(e.contains("stdin line 1: ") && e.contains(why), "{e}");
        }
        let long = format!("{}\n", "x".repeat(MAX_LINE + 1));
        let e = turns(&long)[0].clone().unwrap_err();
        assert!(e.contains("stdin line 1 is longer than 1024 KiB"), "{e}");
        assert!(turns("").is_empty());
    }
}
