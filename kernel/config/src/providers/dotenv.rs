//! `<home>/.env`: where API keys live (reference §5). Format:
//!
//! - `KEY=value`, optionally prefixed by `export `; `KEY` is a shell-style name;
//! - values unquoted (trimmed; ` #` starts a comment), in single quotes (literal), or in double
//!   quotes (`\n`, `\t`, `\r`, `\"`, `\\` escapes; other backslashes are kept);
//! - blank lines and `#` comments are ignored;
//! - `# reasonix-cleared KEY` is a tombstone: the key was deleted. It unsets earlier
//!   assignments in the file; a later assignment sets the key again (last line wins).
//!
//! Tombstones only concern the file. The original writes them so that legacy credential stores
//! are not re-imported; they do not hide a variable set in the process environment, which is an
//! explicit choice of whoever started Reasonix (see [`secret`]). Lines that cannot be parsed are
//! skipped with a warning naming the line number (never the value).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const TOMBSTONE: &str = "# reasonix-cleared ";

/// A parsed `.env` file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DotEnv {
    /// Assignments in effect (last wins).
    pub vars: BTreeMap<String, String>,
    /// Keys whose last mention is a tombstone.
    pub cleared: BTreeSet<String>,
    /// `line N: …` for every line skipped.
    pub warnings: Vec<String>,
}

impl DotEnv {
    /// The value of `name`, if assigned and not empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

fn is_key(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parse `.env` text. Never fails: bad lines become warnings.
pub fn parse(text: &str) -> DotEnv {
    let mut env = DotEnv::default();
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(key) = line.strip_prefix(TOMBSTONE) {
            let key = key.trim();
            if is_key(key) {
                env.vars.remove(key);
                env.cleared.insert(key.to_string());
                continue;
            }
        }
        if line.starts_with('#') {
            continue;
        }
        let line = line
            .strip_prefix("export")
            .filter(|rest| rest.starts_with(char::is_whitespace))
            .map_or(line, str::trim_start);
        let Some((key, value)) = line.split_once('=') else {
            env.warnings
                .push(format!("line {number}: expected KEY=value; line skipped"));
            continue;
        };
        let key = key.trim();
        if !is_key(key) {
            env.warnings.push(format!(
                "line {number}: `{}` is not a variable name (letters, digits and _, not starting with a digit); line skipped",
                key.chars().take(40).collect::<String>()
            ));
            continue;
        }
        match parse_value(value.trim_start()) {
            Ok(value) => {
                env.cleared.remove(key);
                env.vars.insert(key.to_string(), value);
            }
            Err(problem) => env
                .warnings
                .push(format!("line {number}: {key}: {problem}; line skipped")),
        }
    }
    env
}

fn parse_value(text: &str) -> Result<String, &'static str> {
    let rest_ok = |rest: &str| {
        let rest = rest.trim();
        rest.is_empty() || rest.starts_with('#')
    };
    if let Some(body) = text.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = body.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    return if rest_ok(&body[i + 1..]) {
                        Ok(out)
                    } else {
                        Err("unexpected text after the closing quote")
                    };
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, '"')) => out.push('"'),
                    Some((_, '\\')) => out.push('\\'),
                    Some((_, other)) => {
                        out.push('\\');
                        out.push(other);
                    }
                    None => return Err("unterminated double quote"),
                },
                c => out.push(c),
            }
        }
        return Err("unterminated double quote");
    }
    if let Some(body) = text.strip_prefix('\'') {
        let Some(end) = body.find('\'') else {
            return Err("unterminated single quote");
        };
        return if rest_ok(&body[end + 1..]) {
            Ok(body[..end].to_string())
        } else {
            Err("unexpected text after the closing quote")
        };
    }
    // Unquoted: a `#` preceded by whitespace starts a comment.
    let mut end = text.len();
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'#' && i > 0 && bytes[i - 1].is_ascii_whitespace() {
            end = i;
            break;
        }
    }
    Ok(text[..end].trim_end().to_string())
}

/// One `KEY="value"` line that [`parse`] reads back as `value` (for writers).
pub fn render_line(key: &str, value: &str) -> String {
    let mut out = String::with_capacity(key.len() + value.len() + 3);
    out.push_str(key);
    out.push_str("=\"");
    for c in value.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Where the provider keys are kept: `<home>/.env`.
pub fn path(home: &Path) -> std::path::PathBuf {
    home.join(".env")
}

/// Read `<home>/.env`; a missing file is an empty one.
pub fn load(home: &Path) -> std::io::Result<DotEnv> {
    match std::fs::read_to_string(path(home)) {
        Ok(text) => Ok(parse(&text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(DotEnv::default()),
        Err(e) => Err(e),
    }
}

/// Where a secret was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretSource {
    Environment,
    DotEnv,
}

/// The value of the secret `name`: the process environment first, then `<home>/.env` (issue
/// #4: "environment or <home>/.env"). Empty values count as unset. An unreadable `.env` counts
/// as empty.
pub fn secret(name: &str, home: &Path) -> Option<String> {
    secret_with_source(name, home).map(|(value, _)| value)
}

/// [`secret`] and where it came from (for `doctor`, which must never print the value).
pub fn secret_with_source(name: &str, home: &Path) -> Option<(String, SecretSource)> {
    lookup_secret(
        name,
        |n| std::env::var(n).ok(),
        || load(home).unwrap_or_default(),
    )
}

fn lookup_secret(
    name: &str,
    env: impl Fn(&str) -> Option<String>,
    dotenv: impl FnOnce() -> DotEnv,
) -> Option<(String, SecretSource)> {
    if let Some(v) = env(name).filter(|v| !v.is_empty()) {
        return Some((v, SecretSource::Environment));
    }
    dotenv()
        .get(name)
        .map(|v| (v.to_string(), SecretSource::DotEnv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_the_documented_forms() {
        let env = parse(
            "# keys\n\nDEEPSEEK_API_KEY=sk-1\nexport OPENAI_API_KEY = sk-2 \nQ1='a b # c'\nQ2=\"x\\ny\\\"z\\\\w\"\nPLAIN=abc # comment\nHASH=a#b\nEMPTY=\n",
        );
        assert_eq!(env.get("DEEPSEEK_API_KEY"), Some("sk-1"));
        assert_eq!(env.get("OPENAI_API_KEY"), Some("sk-2"));
        assert_eq!(env.get("Q1"), Some("a b # c"));
        assert_eq!(env.get("Q2"), Some("x\ny\"z\\w"));
        assert_eq!(env.get("PLAIN"), Some("abc"));
        assert_eq!(env.get("HASH"), Some("a#b"));
        assert_eq!(env.get("EMPTY"), None);
        assert!(env.vars.contains_key("EMPTY"));
        assert!(env.warnings.is_empty(), "{:?}", env.warnings);
    }

    #[test]
    fn last_assignment_and_tombstones() {
        let env = parse(
            "A=1\nA=2\nB=1\n# reasonix-cleared B\nC=1\n# reasonix-cleared C\nC=3\n# reasonix-cleared D\n",
        );
        assert_eq!(env.get("A"), Some("2"));
        assert_eq!(env.get("B"), None);
        assert_eq!(env.get("C"), Some("3"));
        assert!(env.cleared.contains("B") && env.cleared.contains("D"));
        assert!(!env.cleared.contains("C"));
    }

    #[test]
    fn bad_lines_are_skipped_with_line_numbers() {
        let env = parse("GOOD=1\nno equals here\n1BAD=x\nQ=\"open\nS='x' y\nexportX=1\n");
        assert_eq!(env.get("GOOD"), Some("1"));
        assert_eq!(env.get("exportX"), Some("1"));
        assert_eq!(env.vars.len(), 2);
        let w = env.warnings.join("\n");
        for line in ["line 2", "line 3", "line 4", "line 5"] {
            assert!(w.contains(line), "{w}");
        }
        assert!(!w.contains("open"), "warnings must not quote values: {w}");
    }

    #[test]
    fn environment_wins_then_dotenv() {
        let file = || parse("K=from-file\nE=\n");
        let none = |_: &str| None;
        assert_eq!(
            lookup_secret("K", none, file),
            Some(("from-file".into(), SecretSource::DotEnv))
        );
        let env = |n: &str| (n == "K").then(|| "from-env".to_string());
        assert_eq!(
            lookup_secret("K", env, file),
            Some(("from-env".into(), SecretSource::Environment))
        );
        let empty_env = |_: &str| Some(String::new());
        assert_eq!(
            lookup_secret("K", empty_env, file).map(|s| s.1),
            Some(SecretSource::DotEnv)
        );
        assert_eq!(lookup_secret("E", none, file), None);
        // A tombstone does not hide the environment.
        let tomb = || parse("# reasonix-cleared K\n");
        assert_eq!(
            lookup_secret("K", env, tomb).map(|s| s.1),
            Some(SecretSource::Environment)
        );
        assert_eq!(lookup_secret("K", none, tomb), None);
    }

    #[test]
    fn loads_from_home() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), DotEnv::default());
        std::fs::write(
            dir.path().join(".env"),
            "REASONIX_TEST_DOTENV_ONLY_KEY=v1\n",
        )
        .unwrap();
        assert_eq!(
            secret("REASONIX_TEST_DOTENV_ONLY_KEY", dir.path()).as_deref(),
            Some("v1")
        );
        assert_eq!(secret("REASONIX_TEST_DOTENV_MISSING", dir.path()), None);
    }

    proptest! {
        #[test]
        fn parse_never_panics(text in "\\PC{0,200}(\n\\PC{0,40}){0,5}") {
            let _ = parse(&text);
        }

        #[test]
        fn rendered_pairs_round_trip(
            pairs in proptest::collection::btree_map("[A-Z_][A-Z0-9_]{0,12}", "\\PC{0,30}", 0..8)
        ) {
            let text: String = pairs.iter().map(|(k, v)| render_line(k, v) + "\n").collect();
            let env = parse(&text);
            prop_assert!(env.warnings.is_empty(), "{:?}", env.warnings);
            prop_assert_eq!(env.vars, pairs);
        }

        #[test]
        fn unquoted_plain_values_round_trip(key in "[A-Za-z_][A-Za-z0-9_]{0,12}", value in "[A-Za-z0-9_./:+=-]{0,30}") {
            let env = parse(&format!("{key}={value}\n"));
            prop_assert_eq!(env.vars.get(&key).map(String::as_str), Some(value.as_str()));
        }
    }
}
