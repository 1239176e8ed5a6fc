//! The workspace files a project's commands execute (issue #32, ADR 0026).
//!
//! Approving a project `.mcp.json`, or trusting a workspace's hooks, is about what will run.
//! `python3 tool_server.py` runs `tool_server.py`, a file anyone who can write the workspace
//! (a model under `acceptEdits`, a `git pull`) can change after the approval. So an approval
//! also pins, by sha256, every workspace file its commands name; when one changes (or one is
//! added or removed) the approval no longer holds. The same files are protected paths for the
//! session: a tool write to one asks in every posture but `bypassPermissions`.
//!
//! "A file a command names" is found from the command line alone: every token (the command,
//! each argument, the value of a `--flag=value`) that leads to an existing regular file inside
//! the workspace, relative to the command's working directory. A bare command name (`python3`)
//! is looked up on `PATH`, not in the working directory, so it is not a workspace file.
//! What such a script loads in turn (`import helper`) is not found this way: the OS sandbox
//! project servers run in covers that (see docs/SECURITY.md).

use super::mcp::{self, SourceKind, Transport};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One workspace file a trusted command executes, pinned by content.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinnedFile {
    /// Relative to the workspace, `/`-separated.
    pub path: String,
    pub sha256: String,
}

/// The files an MCP server's `command` and `args` name, as real paths inside `workspace`
/// (relative ones against `cwd`, itself relative to the workspace), sorted.
pub fn command_files(
    workspace: &Path,
    cwd: Option<&str>,
    command: &str,
    args: &[String],
) -> Vec<PathBuf> {
    let mut tokens: Vec<&str> = Vec::new();
    if command.contains('/') {
        tokens.push(command);
    }
    tokens.extend(args.iter().map(String::as_str));
    files_named(workspace, cwd, tokens.into_iter())
}

/// The files a hook's shell command names (after `$CLAUDE_PROJECT_DIR` /
/// `$REASONIX_PROJECT_DIR`, which the hooks component sets to the workspace), as
/// [`command_files`] finds them.
pub fn hook_files(workspace: &Path, cwd: Option<&str>, command: &str) -> Vec<PathBuf> {
    let words = shell_words(command, &workspace.display().to_string());
    let mut tokens: Vec<&str> = Vec::new();
    for (word, command_position) in &words {
        // A command name without a `/` is looked up on PATH, not in the working directory.
        if !command_position || word.contains('/') {
            tokens.push(word);
        }
    }
    files_named(workspace, cwd, tokens.into_iter())
}

/// The stdio servers of a project `.mcp.json` text: the files all of them execute, real and
/// sorted. Entries that do not parse start nothing, so they pin nothing.
pub fn mcp_json_files(
    workspace: &Path,
    file: &Path,
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Vec<PathBuf> {
    let Ok(entries) = mcp::mcp_json_entries(file, text, SourceKind::ProjectMcpJson, lookup) else {
        return Vec::new();
    };
    let specs: Vec<mcp::ServerSpec> = entries.into_iter().filter_map(Result::ok).collect();
    server_files(workspace, &specs)
}

/// The files the stdio servers among `specs` execute, real and sorted.
pub fn server_files(workspace: &Path, specs: &[mcp::ServerSpec]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = specs
        .iter()
        .filter_map(|spec| match &spec.transport {
            Transport::Stdio {
                command, args, cwd, ..
            } => Some(command_files(workspace, cwd.as_deref(), command, args)),
            _ => None,
        })
        .flatten()
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Pin `files` (real paths inside `workspace`): each read once, its sha256 taken from those
/// bytes. A file that cannot be read is pinned as unreadable (`sha256` empty), so it still
/// counts as a change when it becomes readable.
pub fn pin(workspace: &Path, files: &[PathBuf]) -> Vec<PinnedFile> {
    let root = crate::sandbox::real_path(workspace);
    let mut pins: Vec<PinnedFile> = files
        .iter()
        .map(|file| PinnedFile {
            path: relative(&root, file),
            sha256: std::fs::read(file)
                .map(|bytes| reasonix_core::sha256_hex(&bytes))
                .unwrap_or_default(),
        })
        .collect();
    pins.sort();
    pins.dedup();
    pins
}

/// What differs between the pins of an approval and the files as they are now, one phrase
/// per file (`tool_server.py changed since`, `run.sh is new`, …), for messages.
pub fn changes(approved: &[PinnedFile], now: &[PinnedFile]) -> Vec<String> {
    let mut out = Vec::new();
    for pin in now {
        match approved.iter().find(|a| a.path == pin.path) {
            Some(a) if a.sha256 == pin.sha256 => {}
            Some(_) => out.push(format!("{} changed", pin.path)),
            None => out.push(format!("{} is not covered by the approval", pin.path)),
        }
    }
    for pin in approved {
        if !now.iter().any(|n| n.path == pin.path) {
            out.push(format!("{} is no longer run", pin.path));
        }
    }
    out
}

fn relative(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap_or(file);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn files_named<'a>(
    workspace: &Path,
    cwd: Option<&str>,
    tokens: impl Iterator<Item = &'a str>,
) -> Vec<PathBuf> {
    let root = crate::sandbox::real_path(workspace);
    let dir = match cwd {
        Some(dir) => workspace.join(dir),
        None => workspace.to_path_buf(),
    };
    let mut files = Vec::new();
    for token in tokens {
        let mut candidates = vec![token];
        if let Some((_, value)) = token.split_once('=') {
            candidates.push(value);
        }
        for candidate in candidates {
            if candidate.is_empty() || candidate.starts_with('-') && !candidate.contains('/') {
                continue;
            }
            let path = dir.join(candidate);
            let Ok(real) = std::fs::canonicalize(&path) else {
                continue;
            };
            if real.starts_with(&root) && real.is_file() && !files.contains(&real) {
                files.push(real);
            }
        }
    }
    files.sort();
    files
}

/// The words of a shell command line, quotes removed, `$CLAUDE_PROJECT_DIR` and
/// `$REASONIX_PROJECT_DIR` (bare or braced) replaced by `project`; other variables are kept
/// as written (they name no workspace file this can know of). Operators (`;`, `&`, `|`,
/// `(`, `)`, `<`, `>`) and newlines end a word; each word comes with whether it stands where
/// a command name does (first of the line or after `;`, `&`, `|`, `(`, `)`, a newline).
fn shell_words(line: &str, project: &str) -> Vec<(String, bool)> {
    const VARS: &[&str] = &["CLAUDE_PROJECT_DIR", "REASONIX_PROJECT_DIR"];
    let mut words = Vec::new();
    let mut command_position = true;
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), _) => word.push(c),
            (_, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                in_word = true;
            }
            (_, '$') => {
                let rest: String = chars.clone().collect();
                let found = VARS.iter().find_map(|var| {
                    if rest.starts_with(&format!("{{{var}}}")) {
                        Some(var.len() + 2)
                    } else if rest.starts_with(var)
                        && !rest[var.len()..]
                            .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    {
                        Some(var.len())
                    } else {
                        None
                    }
                });
                match found {
                    Some(skip) => {
                        word.push_str(project);
                        for _ in 0..skip {
                            chars.next();
                        }
                    }
                    None => word.push('$'),
                }
                in_word = true;
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() || ";&|()<>".contains(c) => {
                if in_word || !word.is_empty() {
                    words.push((std::mem::take(&mut word), command_position));
                    command_position = false;
                }
                in_word = false;
                if c == '\n' || ";&|()".contains(c) {
                    command_position = true;
                }
            }
            (_, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word || !word.is_empty() {
        words.push((word, command_position));
    }
    words
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn the_files_a_command_line_names_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(ws.join("srv")).unwrap();
        std::fs::create_dir_all(ws.join(".claude/hooks")).unwrap();
        for f in [
            "tool_server.py",
            "srv/index.js",
            "run.sh",
            ".claude/hooks/fmt.sh",
            "python3",
        ] {
            std::fs::write(ws.join(f), "x").unwrap();
        }
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("o.py"), "x").unwrap();
        let o = outside.path().join("o.py").display().to_string();
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            command_files(&ws, None, "python3", &args(&["tool_server.py", "-v"])),
            vec![ws.join("tool_server.py")]
        );
        assert_eq!(
            command_files(&ws, Some("srv"), "node", &args(&["./index.js", &o])),
            vec![ws.join("srv/index.js")]
        );
        assert_eq!(
            command_files(&ws, None, "./run.sh", &args(&["--config=srv/index.js"])),
            vec![ws.join("run.sh"), ws.join("srv/index.js")]
        );
        assert!(command_files(&ws, None, "node", &args(&["missing.js", "srv"])).is_empty());
        assert_eq!(
            hook_files(&ws, None, "bash .claude/hooks/fmt.sh && echo ok"),
            vec![ws.join(".claude/hooks/fmt.sh")]
        );
        assert_eq!(
            hook_files(&ws, None, "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/fmt.sh"),
            vec![ws.join(".claude/hooks/fmt.sh")]
        );
        assert_eq!(
            hook_files(
                &ws,
                None,
                "${REASONIX_PROJECT_DIR}/run.sh;python3 'tool_server.py'"
            ),
            vec![ws.join("run.sh"), ws.join("tool_server.py")]
        );
        assert_eq!(
            hook_files(&ws, None, "cd srv && node index.js"),
            Vec::<PathBuf>::new(),
            "relative to the hook's cwd, which is the workspace"
        );
        assert_eq!(
            hook_files(&ws, Some("srv"), "node index.js"),
            vec![ws.join("srv/index.js")]
        );
    }

    #[test]
    fn pins_name_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(ws.join("a.py"), "1").unwrap();
        let before = pin(&ws, &[ws.join("a.py")]);
        assert_eq!(before[0].path, "a.py");
        std::fs::write(ws.join("a.py"), "2").unwrap();
        std::fs::write(ws.join("b.sh"), "2").unwrap();
        let after = pin(&ws, &[ws.join("a.py"), ws.join("b.sh")]);
        assert_eq!(
            changes(&before, &after),
            vec!["a.py changed", "b.sh is not covered by the approval"]
        );
        assert_eq!(changes(&after, &[]).len(), 2);
        assert!(changes(&after, &after).is_empty());
    }
}
