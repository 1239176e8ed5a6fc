//! Custom slash commands: Markdown files under the command directories, one command per file,
//! namespaced by subfolder (`frontend/component.md` → `/frontend:component`). One loader and one
//! expansion for every front end: the session's `/name args` and `reasonix run "/name args"`
//! send the same text.

pub mod template;

use std::fs;
use std::path::{Path, PathBuf};

/// A bigger file is skipped.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// Commands loaded in all; the rest are skipped.
pub const MAX_COMMANDS: usize = 500;
/// Levels below a command directory (`a/b/c.md` is the deepest).
pub const MAX_DEPTH: usize = 3;
/// A description taken from the body's first line is cut to this many characters.
const DESCRIPTION_CHARS: usize = 80;

/// Where a custom command comes from; the order is the precedence on a name clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `<workspace>/.reasonix/commands/`
    Project,
    /// `<workspace>/.claude/commands/`
    ProjectClaude,
    /// `<home>/commands/` (Reasonix's home)
    User,
    /// `~/.claude/commands/`
    UserClaude,
    /// An installed package's `commands/` (named `/<package>:<command>`).
    Package,
}

impl Scope {
    pub fn label(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::ProjectClaude => "project, .claude",
            Scope::User => "user",
            Scope::UserClaude => "user, ~/.claude",
            Scope::Package => "package",
        }
    }
}

/// One command file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// Without the `/`; namespaced ones contain `:`.
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
    pub source: PathBuf,
    /// The template (frontmatter removed).
    pub body: String,
    pub scope: Scope,
}

impl CustomCommand {
    /// The prompt this command sends for `args`.
    pub fn expand(&self, args: &str) -> String {
        template::expand(&self.body, args)
    }
}

/// A directory to load commands from, with the scope its commands get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandDir {
    pub path: PathBuf,
    pub scope: Scope,
    /// A package's name: its commands are `/<package>:<command>`.
    pub namespace: Option<String>,
}

impl CommandDir {
    /// The commands folder of package `name`.
    pub fn package(path: PathBuf, name: String) -> CommandDir {
        CommandDir {
            path,
            scope: Scope::Package,
            namespace: Some(name),
        }
    }
}

impl CommandDir {
    /// The standard directories, highest precedence first: `<workspace>/.reasonix/commands`,
    /// `<workspace>/.claude/commands`, `<home>/commands` (Reasonix's home), and
    /// `<user_home>/.claude/commands` when the user's home directory is known.
    pub fn standard(
        workspace: &Path,
        reasonix_home: &Path,
        user_home: Option<&Path>,
    ) -> Vec<CommandDir> {
        let mut dirs = vec![
            CommandDir {
                path: workspace.join(".reasonix").join("commands"),
                scope: Scope::Project,
                namespace: None,
            },
            CommandDir {
                path: workspace.join(".claude").join("commands"),
                scope: Scope::ProjectClaude,
                namespace: None,
            },
            CommandDir {
                path: reasonix_home.join("commands"),
                scope: Scope::User,
                namespace: None,
            },
        ];
        if let Some(home) = user_home {
            dirs.push(CommandDir {
                path: home.join(".claude").join("commands"),
                scope: Scope::UserClaude,
                namespace: None,
            });
        }
        dirs
    }
}

/// What loading found: the commands (in precedence order, names unique) and what was skipped.
#[derive(Debug, Clone, Default)]
pub struct CustomCommands {
    pub commands: Vec<CustomCommand>,
    pub warnings: Vec<String>,
}

/// Loads every directory (a missing one is fine). On a name clash the command from the
/// higher-precedence scope wins (`Scope` order, then the order of `dirs`).
pub fn load(dirs: &[CommandDir]) -> CustomCommands {
    let mut ordered: Vec<&CommandDir> = dirs.iter().collect();
    ordered.sort_by_key(|d| d.scope);
    let mut out = CustomCommands::default();
    for dir in ordered {
        let Ok(root) = dir.path.canonicalize() else {
            continue;
        };
        let mut files = Vec::new();
        collect(&root, &root, 1, &mut files, &mut out.warnings);
        files.sort();
        for (path, segments) in files {
            let name = match &dir.namespace {
                Some(ns) => format!("{ns}:{}", segments.join(":")),
                None => segments.join(":"),
            };
            if let Some(existing) = out.commands.iter().find(|c| c.name == name) {
                out.warnings.push(format!(
                    "{}: /{name} is already defined by {} (which wins)",
                    path.display(),
                    existing.source.display()
                ));
                continue;
            }
            if out.commands.len() >= MAX_COMMANDS {
                out.warnings.push(format!(
                    "{}: more than {MAX_COMMANDS} custom commands; the rest are skipped",
                    path.display()
                ));
                return out;
            }
            // A file linking out of its command folder is refused: a repository's
            // `review.md -> ~/.aws/credentials` would send the secret as a prompt.
            match reasonix_core::contained::read_within(&root, &path, MAX_FILE_BYTES) {
                Ok(text) => out.commands.push(spec(name, &text, path, dir.scope)),
                Err(why) => out.warnings.push(why),
            }
        }
    }
    out
}

impl CustomCommands {
    /// The text `line` sends when it invokes one of these commands (`/name args`), trimmed;
    /// `None` when it names none of them.
    pub fn expand_line(&self, line: &str) -> Option<String> {
        let rest = line.trim_start().strip_prefix('/')?;
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let command = self.commands.iter().find(|c| c.name == rest[..end])?;
        Some(command.expand(rest[end..].trim()).trim().to_string())
    }
}

fn spec(name: String, text: &str, source: PathBuf, scope: Scope) -> CustomCommand {
    let (fm, body) = template::split_frontmatter(text);
    let description = fm.description.unwrap_or_else(|| {
        let first = body
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        first.chars().take(DESCRIPTION_CHARS).collect()
    });
    CustomCommand {
        name,
        description,
        argument_hint: fm.argument_hint.filter(|h| !h.is_empty()),
        source,
        body: body.to_string(),
        scope,
    }
}

/// `.md` files under `dir` with their name segments; symlinks that lead out of `root` are
/// ignored, bad names and too-deep files reported.
fn collect(
    root: &Path,
    dir: &Path,
    depth: usize,
    files: &mut Vec<(PathBuf, Vec<String>)>,
    warnings: &mut Vec<String>,
) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        let target_is_dir = if meta.file_type().is_symlink() {
            match path.canonicalize() {
                Ok(t) if t.starts_with(root) => t.is_dir(),
                _ => continue,
            }
        } else {
            meta.is_dir()
        };
        if target_is_dir {
            if depth < MAX_DEPTH {
                collect(root, &path, depth + 1, files, warnings);
            } else {
                warnings.push(format!(
                    "{}: deeper than {MAX_DEPTH} levels, skipped",
                    path.display()
                ));
            }
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let mut segments = Vec::new();
        let mut ok = true;
        for (i, part) in rel.iter().enumerate() {
            let part = part.to_string_lossy();
            let part = if i + 1 == rel.iter().count() {
                part.strip_suffix(".md").unwrap_or(&part).to_string()
            } else {
                part.into_owned()
            };
            ok &= valid_name(&part);
            segments.push(part);
        }
        if ok {
            files.push((path, segments));
        } else {
            warnings.push(format!(
                "{}: command names use only a-z, 0-9, _ and -; skipped",
                path.display()
            ));
        }
    }
}

fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn a_command_file_linking_out_of_its_folder_is_not_read() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("credentials"), "aws_secret=abc").unwrap();
        let dir = ws.path().join("cmds");
        write(&dir, "fine.md", "Fine $ARGUMENTS");
        std::os::unix::fs::symlink(outside.path().join("credentials"), dir.join("leak.md"))
            .unwrap();
        let loaded = load(&[CommandDir {
            path: dir,
            scope: Scope::Project,
            namespace: None,
        }]);
        let names: Vec<&str> = loaded.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["fine"]);
        assert!(!format!("{loaded:?}").contains("aws_secret"));
    }

    fn names(c: &CustomCommands) -> Vec<&str> {
        c.commands.iter().map(|c| c.name.as_str()).collect()
    }

    fn scope_of(c: &CustomCommands, name: &str) -> Scope {
        c.commands.iter().find(|c| c.name == name).unwrap().scope
    }

    #[test]
    fn loads_namespaces_and_frontmatter() {
        let ws = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let cmds = ws.path().join(".reasonix/commands");
        write(
            &cmds,
            "review.md",
            "---\ndescription: Review code\nargument-hint: <path>\n---\nReview $1 please\n",
        );
        write(
            &cmds,
            "frontend/component.md",
            "Make a component named $ARGUMENTS\n",
        );
        write(&cmds, "a/b/deep.md", "ok");
        write(&cmds, "a/b/c/too-deep.md", "no");
        write(&cmds, "Bad Name.md", "no");
        write(&cmds, "notes.txt", "ignored");
        write(&cmds, "big.md", &"x".repeat(MAX_FILE_BYTES as usize + 1));
        let loaded = load(&CommandDir::standard(ws.path(), home.path(), None));
        assert_eq!(names(&loaded), ["a:b:deep", "frontend:component", "review"]);
        let review = loaded.commands.iter().find(|c| c.name == "review").unwrap();
        assert_eq!(review.description, "Review code");
        assert_eq!(review.argument_hint.as_deref(), Some("<path>"));
        assert_eq!(review.expand("src/x.rs"), "Review src/x.rs please\n");
        // A whole line, as `reasonix run` and the session get it.
        assert_eq!(
            loaded.expand_line("/review src/x.rs").as_deref(),
            Some("Review src/x.rs please")
        );
        assert_eq!(
            loaded
                .expand_line("/frontend:component  Nav bar ")
                .as_deref(),
            Some("Make a component named Nav bar")
        );
        assert_eq!(loaded.expand_line("/reviews x"), None);
        assert_eq!(loaded.expand_line("review x"), None);
        let comp = loaded
            .commands
            .iter()
            .find(|c| c.name == "frontend:component")
            .unwrap();
        assert_eq!(comp.description, "Make a component named $ARGUMENTS");
        let w = loaded.warnings.join("\n");
        assert!(w.contains("big.md") && w.contains("64 KiB"), "{w}");
        assert!(w.contains("Bad Name.md"), "{w}");
        assert!(w.contains("deeper than"), "{w}");
    }

    #[test]
    fn precedence_project_reasonix_then_claude_then_user() {
        let ws = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        write(
            &ws.path().join(".reasonix/commands"),
            "a.md",
            "from project",
        );
        write(
            &ws.path().join(".claude/commands"),
            "a.md",
            "from project claude",
        );
        write(
            &ws.path().join(".claude/commands"),
            "b.md",
            "from project claude",
        );
        write(&home.path().join("commands"), "b.md", "from user");
        write(&home.path().join("commands"), "c.md", "from user");
        write(
            &user.path().join(".claude/commands"),
            "c.md",
            "from user claude",
        );
        write(
            &user.path().join(".claude/commands"),
            "d.md",
            "from user claude",
        );
        // The order of `dirs` does not matter, the scope does.
        let mut dirs = CommandDir::standard(ws.path(), home.path(), Some(user.path()));
        dirs.reverse();
        let loaded = load(&dirs);
        assert_eq!(scope_of(&loaded, "a"), Scope::Project);
        assert_eq!(scope_of(&loaded, "b"), Scope::ProjectClaude);
        assert_eq!(scope_of(&loaded, "c"), Scope::User);
        assert_eq!(scope_of(&loaded, "d"), Scope::UserClaude);
        assert_eq!(loaded.commands.len(), 4);
        assert_eq!(loaded.warnings.len(), 3, "{:?}", loaded.warnings);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_directory_are_ignored() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "leak.md", "outside");
        write(outside.path(), "sub/x.md", "outside");
        let cmds = ws.path().join(".reasonix/commands");
        write(&cmds, "real.md", "inside");
        std::os::unix::fs::symlink(outside.path().join("leak.md"), cmds.join("leak.md")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("sub"), cmds.join("sub")).unwrap();
        std::os::unix::fs::symlink(cmds.join("real.md"), cmds.join("alias.md")).unwrap();
        let loaded = load(&[CommandDir {
            path: cmds,
            scope: Scope::Project,
            namespace: None,
        }]);
        assert_eq!(names(&loaded), ["alias", "real"]);
    }

    #[test]
    fn at_most_max_commands() {
        let ws = tempfile::tempdir().unwrap();
        for i in 0..(MAX_COMMANDS + 3) {
            write(ws.path(), &format!("c{i:04}.md"), "x");
        }
        let loaded = load(&[CommandDir {
            path: ws.path().to_path_buf(),
            scope: Scope::User,
            namespace: None,
        }]);
        assert_eq!(loaded.commands.len(), MAX_COMMANDS);
        assert!(loaded.warnings[0].contains("more than 500"));
    }
}
