//! Moving a session to another machine (a fleet worker's result, a laptop's session on a
//! server): `sessions export --format transcript` writes the transcript as it is, and
//! `sessions import` adds it to a workspace there — its header pointed at the new workspace,
//! everything else byte for byte, so `-r <id>` continues it with the same prefix. A file that
//! is not a whole transcript, or whose id could name a path, is refused; an id already there
//! is left alone. File checkpoints stay on the machine they were taken on.

use super::go::{Imported, MAX_FILE_BYTES, usable_id};
use super::{Record, SessionStore, load};
use std::io::Write;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error("{file}: {message}")]
    File { file: String, message: String },
    #[error(transparent)]
    Session(#[from] super::SessionError),
}

fn refuse(file: &Path, message: impl Into<String>) -> TransferError {
    TransferError::File {
        file: file.display().to_string(),
        message: message.into(),
    }
}

/// Whether `first_line` is this build's session header (not the original Reasonix's).
pub fn is_transcript(first_line: &str) -> bool {
    serde_json::from_str::<Record>(first_line).is_ok_and(|r| matches!(r, Record::Session { .. }))
}

/// Add the transcript `file` to `store`'s workspace.
pub fn import(store: &SessionStore, file: &Path) -> Result<Imported, TransferError> {
    let size = std::fs::metadata(file)
        .map_err(|e| refuse(file, e.to_string()))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(refuse(
            file,
            format!("larger than {} MiB; not imported", MAX_FILE_BYTES >> 20),
        ));
    }
    let loaded = load(file)?;
    if loaded.valid_len != size {
        return Err(refuse(
            file,
            format!(
                "cut off after byte {} of {size} (a torn or changed transcript); not imported",
                loaded.valid_len
            ),
        ));
    }
    let Record::Session { id, .. } = &loaded.header else {
        return Err(refuse(file, "line 1 is not a session header"));
    };
    let Some(id) = usable_id(id) else {
        return Err(refuse(
            file,
            format!(
                "the session id `{}` is not a file name this build uses (letters, digits, `.`, `-`, `_`); not imported",
                reasonix_core::terminal::shown(id)
            ),
        ));
    };
    if !loaded
        .messages
        .iter()
        .any(|m| m.role == crate::types::Role::User)
    {
        return Ok(Imported::Empty);
    }
    let target = store.dir().join(format!("{id}.jsonl"));
    if target.exists() {
        return Ok(Imported::Exists { id });
    }
    let bytes = std::fs::read(file).map_err(|e| refuse(file, e.to_string()))?;
    let end = bytes
        .iter()
        .position(|b| *b == b'\n')
        .ok_or_else(|| refuse(file, "no complete line"))?;
    let mut header: serde_json::Value =
        serde_json::from_slice(&bytes[..end]).map_err(|e| refuse(file, format!("line 1: {e}")))?;
    header["workspace"] = store.workspace_text().into();
    let mut out = serde_json::to_vec(&header).map_err(|e| refuse(file, e.to_string()))?;
    out.extend_from_slice(&bytes[end..]);
    std::fs::create_dir_all(store.dir()).map_err(|e| refuse(store.dir(), e.to_string()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(store.dir())
        .map_err(|e| refuse(store.dir(), e.to_string()))?;
    tmp.write_all(&out)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| refuse(tmp.path(), e.to_string()))?;
    // Never over a session that appeared meanwhile.
    tmp.persist_noclobber(&target)
        .map_err(|e| refuse(&target, e.error.to_string()))?;
    Ok(Imported::New {
        id,
        messages: loaded.messages.len(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::types::{Message, Role};

    fn session(dir: &Path) -> (SessionStore, std::path::PathBuf) {
        let store = SessionStore::new(&dir.join("state-a"), &dir.join("ws-a"));
        let mut w = store.create("p", "m").unwrap();
        w.message(&Message::text(Role::User, "hello there"))
            .unwrap();
        w.message(&Message::text(Role::Assistant, "hi")).unwrap();
        let path = w.path().to_path_buf();
        (store, path)
    }

    #[test]
    fn a_transcript_moves_to_another_workspace_with_its_header_pointed_there() {
        let dir = tempfile::tempdir().unwrap();
        let (_, file) = session(dir.path());
        let there = SessionStore::new(&dir.path().join("state-b"), &dir.path().join("ws-b"));
        let Imported::New { id, messages } = import(&there, &file).unwrap() else {
            panic!("not imported");
        };
        assert_eq!(messages, 2);
        let copy = there.dir().join(format!("{id}.jsonl"));
        let loaded = load(&copy).unwrap();
        let Record::Session { workspace, .. } = &loaded.header else {
            panic!()
        };
        assert_eq!(workspace, &there.workspace_text());
        assert_eq!(loaded.messages[0].content, "hello there");
        // The lines after the header are the original's bytes.
        let original = std::fs::read_to_string(&file).unwrap();
        let moved = std::fs::read_to_string(&copy).unwrap();
        assert_eq!(
            original.split_once('\n').unwrap().1,
            moved.split_once('\n').unwrap().1
        );
        assert!(matches!(
            import(&there, &file).unwrap(),
            Imported::Exists { .. }
        ));
    }

    #[test]
    fn a_torn_file_and_an_id_that_names_a_path_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (_, file) = session(dir.path());
        let there = SessionStore::new(&dir.path().join("state-b"), &dir.path().join("ws-b"));
        let mut torn = std::fs::read(&file).unwrap();
        torn.extend_from_slice(b"{\"type\":\"message\"");
        let torn_file = dir.path().join("torn.jsonl");
        std::fs::write(&torn_file, &torn).unwrap();
        let e = import(&there, &torn_file).unwrap_err().to_string();
        assert!(e.contains("cut off after byte"), "{e}");

        let text = std::fs::read_to_string(&file).unwrap();
        let (first, rest) = text.split_once('\n').unwrap();
        let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
        header["id"] = "../../escape".into();
        let hostile = dir.path().join("hostile.jsonl");
        std::fs::write(&hostile, format!("{header}\n{rest}")).unwrap();
        let e = import(&there, &hostile).unwrap_err().to_string();
        assert!(e.contains("not a file name"), "{e}");
        assert!(!dir.path().join("escape.jsonl").exists());
        assert!(!there.dir().join("../../escape.jsonl").exists());
    }
}
