//! Reading transcripts and archives for the index: the complete lines past a byte offset, each
//! parsed leniently (a line that is not a header or a `message` record is skipped, never an
//! error), and the file's identity, so a replaced or shrunk file is noticed and read again.

use reasonix_core::types::{Role, ToolCall};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::fs::{File, Metadata};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The longest line read; a longer one (a runaway record) is skipped whole.
pub const MAX_LINE_BYTES: u64 = 16 * 1024 * 1024;
/// How much of one message is indexed and searched (tool output can be huge; a decision is
/// not in its 64th kilobyte).
pub const MAX_INDEXED_TEXT: usize = 64 * 1024;
/// Bytes hashed at the head of a file and before the end of what was read.
const FINGERPRINT_BYTES: u64 = 256;

/// What one line of a transcript or archive is, for the index.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Header {
        id: String,
        workspace: String,
        created_ms: u64,
    },
    Message {
        role: Role,
        text: String,
        at_ms: u64,
    },
    /// Usage, compaction, turn markers, records of newer kinds, lines that do not parse.
    Other,
}

/// The fields of any record the index cares about; everything else is ignored.
#[derive(Deserialize)]
struct RawLine {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    workspace: Option<String>,
    created_ms: Option<u64>,
    role: Option<Role>,
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolCall>,
    at_ms: Option<u64>,
}

/// Parse one line (without caring whether it ends in a newline).
pub fn parse_line(line: &[u8]) -> Entry {
    let Ok(raw) = serde_json::from_slice::<RawLine>(line) else {
        return Entry::Other;
    };
    match raw.kind.as_deref() {
        Some("session") => Entry::Header {
            id: raw.id.unwrap_or_default(),
            workspace: raw.workspace.unwrap_or_default(),
            created_ms: raw.created_ms.unwrap_or(0),
        },
        // An archive may hold bare messages, one per line, without a record tag.
        Some("message") | None => match raw.role {
            Some(role) => Entry::Message {
                role,
                text: message_text(raw.content.as_deref().unwrap_or(""), &raw.tool_calls),
                at_ms: raw.at_ms.unwrap_or(0),
            },
            None => Entry::Other,
        },
        Some(_) => Entry::Other,
    }
}

/// What of a message is searchable: its text, then each tool call's name and arguments (the
/// commands run and files touched are often what one looks for), bounded.
fn message_text(content: &str, calls: &[ToolCall]) -> String {
    let mut text = String::from(content);
    for call in calls {
        text.push('\n');
        text.push_str(&call.name);
        text.push(' ');
        text.push_str(&call.arguments);
    }
    if text.len() > MAX_INDEXED_TEXT {
        let mut cut = MAX_INDEXED_TEXT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

/// The complete lines of `path` from byte `offset` on, each with its offset; `end` is where
/// the last complete line ends (a torn last line is left for next time).
pub struct Lines {
    pub entries: Vec<(u64, Entry)>,
    pub end: u64,
}

pub fn read_from(path: &Path, offset: u64) -> io::Result<Lines> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = BufReader::new(file);
    let mut entries = Vec::new();
    let mut at = offset;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut reader)
            .take(MAX_LINE_BYTES)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        if line.last() != Some(&b'\n') {
            if n as u64 == MAX_LINE_BYTES {
                // Too long to index: skip to its end and go on.
                let rest = skip_line(&mut reader)?;
                match rest {
                    Some(skipped) => {
                        at += n as u64 + skipped;
                        continue;
                    }
                    None => break,
                }
            }
            // Torn: not complete yet.
            break;
        }
        entries.push((at, parse_line(&line)));
        at += n as u64;
    }
    Ok(Lines { entries, end: at })
}

/// Read up to and including the next newline; `None` when the file ends first.
fn skip_line(reader: &mut impl BufRead) -> io::Result<Option<u64>> {
    let mut skipped = 0u64;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        if let Some(i) = buf.iter().position(|b| *b == b'\n') {
            reader.consume(i + 1);
            return Ok(Some(skipped + i as u64 + 1));
        }
        let len = buf.len();
        reader.consume(len);
        skipped += len as u64;
    }
}

/// The one line that starts at `offset` (for snippets and windows).
pub fn line_at(path: &Path, offset: u64) -> io::Result<Entry> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut line = Vec::new();
    BufReader::new(file)
        .take(MAX_LINE_BYTES)
        .read_until(b'\n', &mut line)?;
    Ok(parse_line(&line))
}

/// Which file this is, beyond its name: a file replaced under the same name (rewritten, or
/// renamed over) gets another identity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Identity {
    pub device: u64,
    pub inode: u64,
    /// Modification time in nanoseconds: unchanged length and time mean nothing to read.
    pub modified_ns: u64,
}

#[cfg(unix)]
pub fn identity(meta: &Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity {
        device: meta.dev(),
        inode: meta.ino(),
        modified_ns: modified_ns(meta),
    }
}

#[cfg(not(unix))]
pub fn identity(meta: &Metadata) -> Identity {
    Identity {
        device: 0,
        inode: 0,
        modified_ns: modified_ns(meta),
    }
}

fn modified_ns(meta: &Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// A hash of the first bytes of the file and of the bytes just before `end`: when either
/// changed, what was indexed is no longer what the file says.
pub fn fingerprint(path: &Path, end: u64) -> io::Result<(u64, u64)> {
    let mut file = File::open(path)?;
    let head = hash_range(&mut file, 0, end.min(FINGERPRINT_BYTES))?;
    let start = end.saturating_sub(FINGERPRINT_BYTES);
    let tail = hash_range(&mut file, start, end - start)?;
    Ok((head, tail))
}

fn hash_range(file: &mut File, start: u64, len: u64) -> io::Result<u64> {
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(len).read_to_end(&mut bytes)?;
    let digest = Sha256::digest(&bytes);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    Ok(u64::from_le_bytes(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_leniently() {
        assert_eq!(
            parse_line(br#"{"type":"message","role":"user","content":"hi","at_ms":5}"#),
            Entry::Message {
                role: Role::User,
                text: "hi".into(),
                at_ms: 5
            }
        );
        assert_eq!(
            parse_line(br#"{"role":"assistant","content":"","tool_calls":[{"id":"c","name":"bash","arguments":"{\"command\":\"ls\"}"}]}"#),
            Entry::Message {
                role: Role::Assistant,
                text: "\nbash {\"command\":\"ls\"}".into(),
                at_ms: 0
            }
        );
        assert_eq!(parse_line(br#"{"type":"usage","usage":{}}"#), Entry::Other);
        assert_eq!(
            parse_line(br#"{"type":"compaction","messages":[]}"#),
            Entry::Other
        );
        assert_eq!(parse_line(b"not json"), Entry::Other);
        assert_eq!(
            parse_line(br#"{"type":"message","role":"wizard","content":"x"}"#),
            Entry::Other
        );
    }

    #[test]
    fn a_torn_last_line_is_left_for_later_and_offsets_are_exact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let first = "{\"type\":\"message\",\"role\":\"user\",\"content\":\"a\"}\n";
        std::fs::write(&path, format!("{first}{{\"type\":\"mess")).unwrap();
        let read = read_from(&path, 0).unwrap();
        assert_eq!(read.entries.len(), 1);
        assert_eq!(read.end, first.len() as u64);
        assert!(matches!(line_at(&path, 0).unwrap(), Entry::Message { .. }));
    }
}
