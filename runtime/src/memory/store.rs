//! Saved facts on disk: one Markdown file each, `<state>/memory/projects/<workspace key>/` for
//! a project's and `<state>/memory/user/` for the user's, with a small front matter (id,
//! revision, scope, times) and the fact as its body. Files are written whole (a temporary
//! file renamed over), so a crash leaves the old fact or the new one, never half of either.
//! What is saved passed the redactor: a key-shaped word never reaches the disk.

use reasonix_agent::session::workspace_key;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The longest fact saved (bytes): a fact is a sentence or a short paragraph, not a file.
pub const MAX_FACT_BYTES: usize = 2_000;

/// Whose a fact is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// This workspace's (the default).
    Project,
    /// The user's, in every workspace.
    User,
}

impl Scope {
    pub fn parse(text: &str) -> Option<Scope> {
        match text {
            "project" => Some(Scope::Project),
            "user" => Some(Scope::User),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// One saved fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub id: String,
    pub scope: Scope,
    pub revision: u32,
    pub created_ms: u64,
    pub updated_ms: u64,
    pub text: String,
}

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("the fact is empty")]
    Empty,
    #[error(
        "the fact is {0} bytes; at most {MAX_FACT_BYTES} (save a sentence or two, not a document)"
    )]
    TooLong(usize),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Where the facts of `workspace` and of the user are.
#[derive(Debug, Clone)]
pub struct Store {
    project: PathBuf,
    user: PathBuf,
}

/// What saving did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Saved {
    Created(Fact),
    /// The same text was saved already (in that scope).
    Known(Fact),
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MemoryError + '_ {
    move |source| MemoryError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Text compared for "the same fact": case and runs of white space do not count.
fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl Store {
    pub fn new(state: &Path, workspace: &Path) -> Store {
        let root = state.join("memory");
        Store {
            project: root.join("projects").join(workspace_key(workspace)),
            user: root.join("user"),
        }
    }

    fn dir(&self, scope: Scope) -> &Path {
        match scope {
            Scope::Project => &self.project,
            Scope::User => &self.user,
        }
    }

    /// The directories whose changes change what [`Store::all`] reads.
    pub fn dirs(&self) -> [&Path; 2] {
        [&self.project, &self.user]
    }

    /// The text as it would be saved (redacted, trimmed), checked.
    pub fn prepare(text: &str) -> Result<String, MemoryError> {
        let text = reasonix_sidecar::stderr_tail::redact(text.trim());
        let text = text.trim().to_string();
        if text.is_empty() {
            return Err(MemoryError::Empty);
        }
        if text.len() > MAX_FACT_BYTES {
            return Err(MemoryError::TooLong(text.len()));
        }
        Ok(text)
    }

    /// Save `text` as a new fact of `scope` (redacted first), or say it is there already.
    pub fn remember(&self, scope: Scope, text: &str) -> Result<Saved, MemoryError> {
        let known = self.read_scope(scope);
        self.remember_among(scope, text, &known)
    }

    /// [`Store::remember`], with the facts already saved given (from an index).
    pub fn remember_among(
        &self,
        scope: Scope,
        text: &str,
        known: &[Fact],
    ) -> Result<Saved, MemoryError> {
        let text = Store::prepare(text)?;
        let wanted = normalized(&text);
        if let Some(known) = known
            .iter()
            .find(|f| f.scope == scope && normalized(&f.text) == wanted)
        {
            return Ok(Saved::Known(known.clone()));
        }
        let at = now_ms();
        let fact = Fact {
            id: new_id(&text, at),
            scope,
            revision: 1,
            created_ms: at,
            updated_ms: at,
            text,
        };
        self.write(&fact)?;
        Ok(Saved::Created(fact))
    }

    fn write(&self, fact: &Fact) -> Result<(), MemoryError> {
        let dir = self.dir(fact.scope);
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let path = dir.join(format!("{}.md", fact.id));
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io(dir))?;
        std::io::Write::write_all(&mut file, render(fact).as_bytes()).map_err(io(&path))?;
        file.persist(&path).map_err(|e| MemoryError::Io {
            path: path.display().to_string(),
            source: e.error,
        })?;
        Ok(())
    }

    /// Take fact `id` out of use: its file moves to `archive/` beside the facts (kept, not
    /// searched or recalled). The fact forgotten, or `None` when there is no such fact.
    pub fn forget(&self, id: &str) -> Result<Option<Fact>, MemoryError> {
        for scope in [Scope::Project, Scope::User] {
            let Some(fact) = self.read_scope(scope).into_iter().find(|f| f.id == id) else {
                continue;
            };
            let dir = self.dir(scope);
            let archive = dir.join("archive");
            std::fs::create_dir_all(&archive).map_err(io(&archive))?;
            let from = dir.join(format!("{}.md", fact.id));
            let to = archive.join(format!("{}.r{}.md", fact.id, fact.revision));
            std::fs::rename(&from, &to).map_err(io(&from))?;
            return Ok(Some(fact));
        }
        Ok(None)
    }

    /// Every fact of this project and of the user, project facts first, each by id.
    pub fn all(&self) -> Vec<Fact> {
        let mut facts = self.read_scope(Scope::Project);
        facts.extend(self.read_scope(Scope::User));
        facts
    }

    fn read_scope(&self, scope: Scope) -> Vec<Fact> {
        let Ok(entries) = std::fs::read_dir(self.dir(scope)) else {
            return Vec::new();
        };
        let mut facts: Vec<Fact> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .filter_map(|text| parse(&text, scope))
            .collect();
        facts.sort_by(|a, b| a.id.cmp(&b.id));
        facts
    }
}

/// An id that sorts by time: `m` + milliseconds in base 36 + four characters of the text's
/// hash.
fn new_id(text: &str, at_ms: u64) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    at_ms.hash(&mut hasher);
    std::process::id().hash(&mut hasher);
    let tail = hasher.finish() % (36u64.pow(4));
    format!("m{}{}", base36(at_ms, 9), base36(tail, 4))
}

fn base36(mut n: u64, width: usize) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = vec![b'0'; width];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(n % 36) as usize];
        n /= 36;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn render(fact: &Fact) -> String {
    format!(
        "---\nid: {}\nscope: {}\nrevision: {}\ncreated_ms: {}\nupdated_ms: {}\n---\n{}\n",
        fact.id,
        fact.scope.name(),
        fact.revision,
        fact.created_ms,
        fact.updated_ms,
        fact.text
    )
}

/// A fact file, or `None` when it is not one (a stray file is skipped, not fatal).
fn parse(text: &str, scope: Scope) -> Option<Fact> {
    let rest = text.strip_prefix("---\n")?;
    let (head, body) = rest.split_once("\n---\n")?;
    let field = |name: &str| {
        head.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
            .map(str::trim)
    };
    let id = field("id")?;
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some(Fact {
        id: id.to_string(),
        scope,
        revision: field("revision")?.parse().ok()?,
        created_ms: field("created_ms")?.parse().ok()?,
        updated_ms: field("updated_ms")?.parse().ok()?,
        text: body.trim().to_string(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_saved_once_redacted_and_read_back_by_scope() {
        let state = tempfile::tempdir().unwrap();
        let store = Store::new(state.path(), Path::new("/ws/a"));
        let Saved::Created(first) = store
            .remember(Scope::Project, "The build uses  cargo nextest")
            .unwrap()
        else {
            panic!("not created");
        };
        assert_eq!(first.revision, 1);
        // The same words again (case and spacing aside) are known, not saved twice.
        assert!(matches!(
            store.remember(Scope::Project, "the build uses cargo NEXTEST").unwrap(),
            Saved::Known(f) if f.id == first.id
        ));
        let Saved::Created(secret) = store
            .remember(Scope::User, "my key is sk-abcdefghijklmnop1234")
            .unwrap()
        else {
            panic!("not created");
        };
        assert!(
            !secret.text.contains("sk-abcdefghijklmnop1234"),
            "{}",
            secret.text
        );
        let on_disk = std::fs::read_to_string(
            state
                .path()
                .join("memory/user")
                .join(format!("{}.md", secret.id)),
        )
        .unwrap();
        assert!(!on_disk.contains("abcdefghijklmnop"), "{on_disk}");
        let all = store.all();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].scope, Scope::Project);
        // Another workspace sees the user's fact only.
        let other = Store::new(state.path(), Path::new("/ws/b"));
        assert_eq!(other.all().len(), 1);
        // Forgotten: archived, no longer read.
        assert_eq!(store.forget(&first.id).unwrap().unwrap().id, first.id);
        assert_eq!(store.all().len(), 1);
        assert!(store.forget(&first.id).unwrap().is_none());
        assert!(
            state
                .path()
                .join("memory/projects")
                .join(workspace_key(Path::new("/ws/a")))
                .join(format!("archive/{}.r1.md", first.id))
                .is_file()
        );
    }

    #[test]
    fn empty_long_and_stray_files_are_refused_or_skipped() {
        let state = tempfile::tempdir().unwrap();
        let store = Store::new(state.path(), Path::new("/ws"));
        assert!(matches!(
            store.remember(Scope::Project, "  "),
            Err(MemoryError::Empty)
        ));
        let long = "word ".repeat(MAX_FACT_BYTES);
        assert!(matches!(
            store.remember(Scope::Project, &long),
            Err(MemoryError::TooLong(_))
        ));
        std::fs::create_dir_all(state.path().join("memory/user")).unwrap();
        std::fs::write(state.path().join("memory/user/x.md"), "not a fact").unwrap();
        std::fs::write(
            state.path().join("memory/user/y.md"),
            "---\nid: ../evil\nscope: user\nrevision: 1\ncreated_ms: 1\nupdated_ms: 1\n---\nx\n",
        )
        .unwrap();
        assert!(store.all().is_empty());
    }

    proptest::proptest! {
        /// Whatever a fact says, it reads back as saved (redacted and trimmed).
        #[test]
        fn a_saved_fact_reads_back(text in "\\PC{1,200}") {
            let state = tempfile::tempdir().unwrap();
            let store = Store::new(state.path(), Path::new("/ws"));
            if let Ok(Saved::Created(fact)) = store.remember(Scope::Project, &text) {
                let all = store.all();
                proptest::prop_assert_eq!(all.len(), 1);
                proptest::prop_assert_eq!(&all[0], &fact);
            }
        }
    }
}
