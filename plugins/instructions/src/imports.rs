//! `@path` imports: a line holding only `@relative/path` (after trimming) is replaced by that
//! file's text, itself expanded, up to [`MAX_DEPTH`] levels deep; an `@path` inside a line of
//! prose keeps the line and puts the file after it (an `@word` naming no file is prose there).
//! Code spans and fenced code blocks hold no imports.
//!
//! Nothing imported is trusted blindly. The path must be relative and stay in the importing
//! file's directory: absolute paths, `..`, symlinks on the way (which could lead anywhere),
//! files that cannot be read, cycles and imports nested too deep are refused, each with a
//! diagnostic line in place of the import so the user (and the model) see what was left out.
//! A file already included (directly or by an earlier import) is not included again.
//!
//! One import leaves the importing file's directory, as in Claude Code's own example:
//! `@~/.claude/<path>.md`, a Markdown file of the user's `~/.claude` ([`HomeImports`]), from
//! the user's own files always and from a workspace's files only once the user trusted that
//! workspace: a hostile repository must not pull the user's notes into its prompt.

use crate::MAX_TOTAL_BYTES;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Imports nest at most this deep (a top-level file is level 0).
pub const MAX_DEPTH: usize = 5;

/// Expands files, remembering what was included.
#[derive(Debug, Default)]
pub struct Expander {
    /// Files already included, as their lexical absolute paths.
    included: Vec<PathBuf>,
    home: HomeImports,
}

/// Where `@~/.claude/…` imports may come from.
#[derive(Debug, Default, Clone)]
pub struct HomeImports {
    /// The user's `~/.claude` (absolute), if the host lists it.
    pub claude_dir: Option<PathBuf>,
    /// Files under these directories may import from it: the user's own directories, and the
    /// workspace once the user trusted it.
    pub allowed_from: Vec<PathBuf>,
}

impl Expander {
    pub fn new(home: HomeImports) -> Expander {
        Expander {
            included: Vec::new(),
            home,
        }
    }
}

impl Expander {
    /// The text of the top-level file `path`, its imports expanded; `None` when it cannot be
    /// read or was already included (e.g. imported by an earlier file).
    pub fn expand_file(&mut self, path: &Path) -> Option<String> {
        if self.included.iter().any(|p| p == path) {
            return None;
        }
        let text = read_bounded(path)?;
        self.included.push(path.to_path_buf());
        let mut stack = vec![path.to_path_buf()];
        Some(self.expand(&text, path, 1, &mut stack))
    }

    /// Expand the import lines of `text`, which is the content of `file` (imports at `depth`).
    fn expand(
        &mut self,
        text: &str,
        file: &Path,
        depth: usize,
        stack: &mut Vec<PathBuf>,
    ) -> String {
        let mut out = String::with_capacity(text.len());
        let mut fence: Option<&str> = None;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            // Nothing inside a fenced code block is an import.
            let trimmed = line.trim_start();
            if let Some(open) = fence {
                if trimmed.starts_with(open) {
                    fence = None;
                }
                out.push_str(line);
                continue;
            }
            if let Some(open) = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f)) {
                fence = Some(open);
                out.push_str(line);
                continue;
            }
            let newline = if line.ends_with('\n') { "\n" } else { "" };
            let Some(target) = import_target(line) else {
                // Imports inside a line of prose (`See @README for …`): the line stays, and
                // what it imports follows it.
                out.push_str(line);
                for target in inline_targets(line) {
                    match self.resolve(target, file, depth, stack) {
                        Ok(Some((path, imported))) => {
                            stack.push(path.clone());
                            let expanded = self.expand(&imported, &path, depth + 1, stack);
                            stack.pop();
                            if !out.ends_with('\n') {
                                out.push('\n');
                            }
                            out.push_str(expanded.trim_end_matches('\n'));
                            out.push('\n');
                        }
                        Ok(None) => {}
                        // `@name` in prose that names no file is prose (a mention, a handle).
                        Err(Refusal::Missing(_)) => {}
                        Err(why) => {
                            if !out.ends_with('\n') {
                                out.push('\n');
                            }
                            out.push_str(&refusal_line(target, file, i, &why));
                            out.push('\n');
                        }
                    }
                }
                continue;
            };
            match self.resolve(target, file, depth, stack) {
                Ok(Some((path, imported))) => {
                    stack.push(path.clone());
                    let expanded = self.expand(&imported, &path, depth + 1, stack);
                    stack.pop();
                    out.push_str(expanded.trim_end_matches('\n'));
                    out.push_str(newline);
                }
                Ok(None) => {}
                Err(why) => {
                    out.push_str(&refusal_line(target, file, i, &why));
                    out.push_str(newline);
                }
            }
        }
        if !text.ends_with('\n') && out.ends_with('\n') && !text.is_empty() {
            out.pop();
        }
        out
    }

    /// The file an import names and its text; `Ok(None)` when it was included already.
    fn resolve(
        &mut self,
        target: &str,
        file: &Path,
        depth: usize,
        stack: &[PathBuf],
    ) -> Result<Option<(PathBuf, String)>, Refusal> {
        if depth > MAX_DEPTH {
            return Err(Refusal::Refused(format!(
                "imports nest at most {MAX_DEPTH} levels deep"
            )));
        }
        let (dir, target) = match target.strip_prefix("~/.claude/") {
            Some(rest) => (self.home_dir(file)?, rest),
            None => match file.parent() {
                Some(dir) => (dir.to_path_buf(), target),
                None => {
                    return Err(Refusal::Refused(
                        "the importing file has no directory".into(),
                    ));
                }
            },
        };
        let relative = Path::new(target);
        if relative.is_absolute() || target.starts_with('~') {
            return Err(Refusal::Refused(
                "only paths relative to the importing file, and `~/.claude/…` Markdown files, are imported".into(),
            ));
        }
        if !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(Refusal::Refused(
                "the path leaves the importing file's directory".into(),
            ));
        }
        // Every step below the importing file's directory must be a real directory or file:
        // a symlink could point anywhere.
        let mut path = dir;
        for part in relative.components() {
            if let Component::Normal(name) = part {
                path.push(name);
                match std::fs::symlink_metadata(&path) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        return Err(Refusal::Refused("the path goes through a symlink".into()));
                    }
                    Ok(_) => {}
                    Err(_) => return Err(Refusal::Missing("the file cannot be read".into())),
                }
            }
        }
        if self
            .home
            .claude_dir
            .as_ref()
            .is_some_and(|c| path.starts_with(c))
            && path.extension().is_none_or(|e| e != "md")
        {
            return Err(Refusal::Refused(
                "only Markdown files (`.md`) are imported from `~/.claude`".into(),
            ));
        }
        if stack.contains(&path) {
            return Err(Refusal::Refused("it imports itself (a cycle)".into()));
        }
        if self.included.contains(&path) {
            return Ok(None);
        }
        if !path.is_file() {
            return Err(Refusal::Missing("it is not a file".into()));
        }
        let text = read_bounded(&path)
            .ok_or_else(|| Refusal::Refused("the file cannot be read".into()))?;
        self.included.push(path.clone());
        Ok(Some((path, text)))
    }
}

impl Expander {
    /// `~/.claude` for an import from `file`, or why `file` may not import from it.
    fn home_dir(&self, file: &Path) -> Result<PathBuf, Refusal> {
        let Some(claude) = &self.home.claude_dir else {
            return Err(Refusal::Refused(
                "there is no `~/.claude` directory to import from".into(),
            ));
        };
        if !self.home.allowed_from.iter().any(|d| file.starts_with(d)) {
            return Err(Refusal::Refused(
                "a workspace's file imports from your home only once you trust the workspace (`reasonix trust`)".into(),
            ));
        }
        Ok(claude.clone())
    }
}

/// Why an import was not made. `Missing`: nothing by that name (in prose, a mention).
#[derive(Debug)]
enum Refusal {
    Missing(String),
    Refused(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Missing(why) | Refusal::Refused(why) => f.write_str(why),
        }
    }
}

/// The diagnostic that takes a refused import's place.
fn refusal_line(target: &str, file: &Path, index: usize, why: &Refusal) -> String {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    format!(
        "[Reasonix did not import @{target} ({name}, line {}): {why}]",
        index + 1
    )
}

/// `@path` words inside a line, as Claude Code finds them: after the start or a space, outside
/// `code spans`, without trailing punctuation.
fn inline_targets(line: &str) -> Vec<&str> {
    let mut targets = Vec::new();
    let mut in_code = false;
    let mut word_start = true;
    for (i, c) in line.char_indices() {
        if c == '`' {
            in_code = !in_code;
            word_start = false;
            continue;
        }
        if c.is_whitespace() {
            word_start = true;
            continue;
        }
        if word_start && c == '@' && !in_code {
            let rest = &line[i + 1..];
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '`')
                .unwrap_or(rest.len());
            let target =
                rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '"', '\'']);
            if !target.is_empty() {
                targets.push(target);
            }
        }
        word_start = false;
    }
    targets
}

/// The target of an import line: the line is `@` and a path, nothing else.
fn import_target(line: &str) -> Option<&str> {
    let target = line.trim().strip_prefix('@')?;
    (!target.is_empty() && !target.contains(char::is_whitespace)).then_some(target)
}

/// A file's text (lossy UTF-8), read no further than the total budget allows.
fn read_bounded(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_TOTAL_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
