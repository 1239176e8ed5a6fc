//! Saving an API key to `<home>/.env` (mode 0600, in a 0700 home the first time): the line
//! for that variable is replaced, every other line — comments, other keys — kept as it was.
//! The OS keyring is not used (docs/tui/setup.md says why).

use super::write::{WriteError, atomic_write};
use reasonix_config::providers::dotenv;
use std::path::{Path, PathBuf};

/// `existing` with `name` set to `value`: the first assignment of `name` replaced in place,
/// later assignments and tombstones of `name` dropped (the last line would win), everything
/// else untouched; appended when `name` was not there.
pub fn updated_env_text(existing: &str, name: &str, value: &str) -> String {
    let line = dotenv::render_line(name, value);
    let mut out = String::with_capacity(existing.len() + line.len() + 1);
    let mut placed = false;
    for raw in existing.split_inclusive('\n') {
        if mentions(raw, name) {
            if !placed {
                out.push_str(&line);
                out.push('\n');
                placed = true;
            }
            continue;
        }
        out.push_str(raw);
    }
    if !placed {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Whether the line assigns `name` (`NAME=…`, `export NAME=…`) or is its tombstone.
fn mentions(raw: &str, name: &str) -> bool {
    let line = raw.trim();
    if let Some(rest) = line.strip_prefix("# reasonix-cleared ") {
        return rest.trim() == name;
    }
    let line = line
        .strip_prefix("export")
        .filter(|rest| rest.starts_with(char::is_whitespace))
        .map_or(line, str::trim_start);
    line.split_once('=')
        .is_some_and(|(key, _)| key.trim() == name)
}

/// Save `name=value` in `<home>/.env`; returns the file's path.
pub fn save_key(home: &Path, name: &str, value: &str) -> Result<PathBuf, WriteError> {
    let path = dotenv::path(home);
    ensure_home(home).map_err(|source| WriteError::Write {
        path: home.to_path_buf(),
        source,
    })?;
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(WriteError::Read { path, source }),
    };
    let text = updated_env_text(&existing, name, value);
    atomic_write(&path, text.as_bytes(), Some(0o600)).map_err(|source| WriteError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// Create `home` (0700: it holds the keys) when it does not exist yet.
pub fn ensure_home(home: &Path) -> std::io::Result<()> {
    if home.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(home)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn replaces_only_its_line_and_keeps_the_rest() {
        let before = "# my keys\nOPENAI_API_KEY=sk-o\nexport DEEPSEEK_API_KEY=old # note\n\nOTHER='x'\nDEEPSEEK_API_KEY=older\n# reasonix-cleared DEEPSEEK_API_KEY\n";
        let after = updated_env_text(before, "DEEPSEEK_API_KEY", "sk-new");
        assert_eq!(
            after,
            "# my keys\nOPENAI_API_KEY=sk-o\nDEEPSEEK_API_KEY=\"sk-new\"\n\nOTHER='x'\n"
        );
        let parsed = dotenv::parse(&after);
        assert_eq!(parsed.get("DEEPSEEK_API_KEY"), Some("sk-new"));
        assert_eq!(parsed.get("OPENAI_API_KEY"), Some("sk-o"));
    }

    #[test]
    fn appends_when_absent_and_handles_a_missing_newline() {
        assert_eq!(updated_env_text("", "K", "v"), "K=\"v\"\n");
        assert_eq!(updated_env_text("A=1", "K", "v"), "A=1\nK=\"v\"\n");
        // A similar name is another variable.
        assert_eq!(
            updated_env_text("KEY2=1\n", "KEY", "v"),
            "KEY2=1\nKEY=\"v\"\n"
        );
        // A value with quotes and backslashes reads back as it was.
        let text = updated_env_text("", "K", "a\"b\\c");
        assert_eq!(dotenv::parse(&text).get("K"), Some("a\"b\\c"));
    }

    #[cfg(unix)]
    #[test]
    fn file_is_0600_in_a_0700_home_and_written_atomically() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let path = save_key(&home, "DEEPSEEK_API_KEY", "sk-1").unwrap();
        assert_eq!(path, home.join(".env"));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&home), 0o700);
        // An existing file with looser permissions is tightened; its other lines stay.
        std::fs::write(&path, "# mine\nX=1\nDEEPSEEK_API_KEY=sk-1\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        save_key(&home, "DEEPSEEK_API_KEY", "sk-2").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# mine\nX=1\nDEEPSEEK_API_KEY=\"sk-2\"\n"
        );
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(&home)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec![".env".to_string()]);
    }

    #[cfg(unix)]
    #[test]
    fn an_unreadable_env_is_reported_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the file should be: cannot be read as text.
        std::fs::create_dir(dir.path().join(".env")).unwrap();
        let e = save_key(dir.path(), "K", "v").unwrap_err();
        assert!(e.to_string().contains(".env"), "{e}");
        assert!(dir.path().join(".env").is_dir());
    }
}
