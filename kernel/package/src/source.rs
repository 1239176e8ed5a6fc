//! Where a package comes from: a local folder, a git repository pinned to a commit (a branch or
//! tag is resolved once and recorded as its commit), a folder inside either, or a marketplace
//! entry (`name@marketplace`). `git` runs with no hooks, no submodules and no prompts, in a
//! temporary folder, bounded in time; nothing from the package runs.

use crate::PackageError;
use crate::index::Origin;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest a `git` command may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(300);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Dir(PathBuf),
    Git(String),
    /// `entry@marketplace`.
    Marketplace {
        entry: String,
        market: String,
    },
}

impl Source {
    /// Read what the user typed: a URL (`https://`, `ssh://`, `file://`, `git@host:path`) is
    /// git, `name@market` (no `/` or `:`) a marketplace entry, anything else a folder.
    pub fn parse(text: &str) -> Source {
        let t = text.trim();
        if t.starts_with("https://")
            || t.starts_with("http://")
            || t.starts_with("ssh://")
            || t.starts_with("file://")
            || t.starts_with("git@")
            || t.starts_with("git+")
        {
            return Source::Git(t.trim_start_matches("git+").to_string());
        }
        if let Some((entry, market)) = t.split_once('@')
            && !t.contains(['/', ':', '\\'])
            && !entry.is_empty()
            && !market.is_empty()
        {
            return Source::Marketplace {
                entry: entry.to_string(),
                market: market.to_string(),
            };
        }
        Source::Dir(PathBuf::from(t))
    }
}

/// Whether `text` is a full commit id (40 hex digits).
pub fn is_full_commit(text: &str) -> bool {
    text.len() == 40 && text.chars().all(|c| c.is_ascii_hexdigit())
}

/// A checkout of `url` at `reference` (a commit, branch or tag; default the remote's HEAD) in
/// a new temporary folder, and the full commit checked out.
pub fn checkout(
    url: &str,
    reference: Option<&str>,
) -> Result<(tempfile::TempDir, PathBuf, String), PackageError> {
    if url.starts_with("http://") {
        return Err(PackageError::Source(format!(
            "{url}: plain http is not used for packages; use https://, ssh or file://"
        )));
    }
    if url.starts_with('-') {
        return Err(PackageError::Source(format!(
            "`{url}` is not a repository URL"
        )));
    }
    let temp = tempfile::Builder::new()
        .prefix("reasonix-package-")
        .tempdir()
        .map_err(|e| PackageError::Source(format!("cannot make a temporary folder: {e}")))?;
    let repo = temp.path().join("repo");
    let repo_arg = repo.display().to_string();
    git(
        None,
        &["clone", "--quiet", "--no-checkout", "--", url, &repo_arg],
    )
    .map_err(|e| PackageError::Source(format!("{url}: {e}")))?;
    let wanted = reference.unwrap_or("HEAD");
    if wanted.starts_with('-') {
        return Err(PackageError::Source(format!(
            "`{wanted}` is not a commit, branch or tag"
        )));
    }
    let target = match git(
        Some(&repo),
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{wanted}^{{commit}}"),
        ],
    ) {
        Ok(sha) => sha,
        Err(_) => git(
            Some(&repo),
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("origin/{wanted}^{{commit}}"),
            ],
        )
        .map_err(|_| PackageError::Source(format!("{url}: no commit, branch or tag `{wanted}`")))?,
    };
    git(Some(&repo), &["checkout", "--quiet", "--detach", &target])
        .map_err(|e| PackageError::Source(format!("{url}: {e}")))?;
    let commit = git(Some(&repo), &["rev-parse", "HEAD"])
        .map_err(|e| PackageError::Source(format!("{url}: {e}")))?;
    if let Some(reference) = reference
        && is_full_commit(reference)
        && !commit.eq_ignore_ascii_case(reference)
    {
        return Err(PackageError::Source(format!(
            "{url}: checked out {commit}, not the commit {reference} asked for"
        )));
    }
    Ok((temp, repo, commit))
}

/// `sub` (a folder named by the user or a marketplace) inside `root`.
pub fn subfolder(root: &Path, sub: Option<&str>) -> Result<PathBuf, PackageError> {
    let Some(sub) = sub.filter(|s| !s.is_empty() && *s != ".") else {
        return Ok(root.to_path_buf());
    };
    let root = root
        .canonicalize()
        .map_err(|e| PackageError::file(root, e.to_string()))?;
    let dir = crate::read::inside(&root, sub).map_err(PackageError::Source)?;
    if !dir.is_dir() {
        return Err(PackageError::Source(format!(
            "`{sub}` is not a folder of the repository"
        )));
    }
    Ok(dir)
}

/// The origin recorded for a git checkout.
pub fn git_origin(url: &str, sub: Option<&str>, commit: &str) -> Origin {
    Origin {
        kind: "git".into(),
        location: url.to_string(),
        subdir: sub.map(str::to_string),
        commit: Some(commit.to_string()),
        entry: None,
    }
}

/// Run `git` (in `dir`) with no hooks, no prompts, no submodules; its trimmed stdout, or what
/// it said on stderr.
fn git(dir: Option<&Path>, args: &[&str]) -> Result<String, String> {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.arg("-C").arg(dir);
    }
    command
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "protocol.ext.allow=never",
            "-c",
            "submodule.recurse=false",
            "-c",
            "core.fsmonitor=false",
        ])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "/bin/false")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run git (is it installed?): {e}"))?;
    let deadline = Instant::now() + GIT_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "git {} took longer than {} s and was stopped",
                    args.first().unwrap_or(&""),
                    GIT_TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        let said = String::from_utf8_lossy(&out.stderr);
        let said: String = said.trim().chars().take(600).collect();
        Err(format!(
            "git {} failed: {}",
            args.first().unwrap_or(&""),
            reasonix_core::terminal::shown(&said)
        ))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn what_the_user_typed() {
        assert_eq!(
            Source::parse("https://x/y.git"),
            Source::Git("https://x/y.git".into())
        );
        assert_eq!(
            Source::parse("git@github.com:o/r.git"),
            Source::Git("git@github.com:o/r.git".into())
        );
        assert_eq!(
            Source::parse("notes@team"),
            Source::Marketplace {
                entry: "notes".into(),
                market: "team".into()
            }
        );
        assert_eq!(Source::parse("./pkg"), Source::Dir("./pkg".into()));
        assert_eq!(Source::parse("dir/a@b"), Source::Dir("dir/a@b".into()));
        assert!(is_full_commit(&"a".repeat(40)));
        assert!(!is_full_commit("abc123"));
    }
}
