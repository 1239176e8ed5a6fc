//! What a package can run or reach, one line per thing, computed from the model (never from a
//! layout's reader): the install question shows it, the index records it as granted, `update`
//! asks again when it grows, `show` and `doctor` print it.

use crate::{Package, PackageError};
use reasonix_config::mcp::Transport;
use std::path::Path;

/// What a WebAssembly component is and asks for, in one line: its name and version, what it
/// serves, the capabilities and raised limits it requests. The plugin host describes it (this
/// crate has no engine); an error refuses the package.
pub type DescribeComponent<'a> = &'a dyn Fn(&Path) -> Result<String, String>;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Review {
    /// What runs or reaches something: every hook command, MCP server command or URL, sidecar
    /// command, WebAssembly component (with what it asks for), and each skill that bundles
    /// scripts (with them).
    pub runs: Vec<String>,
    /// What it adds by name: skills, commands, agents.
    pub brings: Vec<String>,
}

impl Review {
    /// The lines of `self.runs` that `granted` did not have: what an update would newly run.
    pub fn grown_from(&self, granted: &[String]) -> Vec<String> {
        self.runs
            .iter()
            .filter(|l| !granted.contains(l))
            .cloned()
            .collect()
    }
}

pub fn review(p: &Package, describe: DescribeComponent) -> Result<Review, PackageError> {
    let mut runs = Vec::new();
    let mut brings = Vec::new();
    for hook in &p.hooks {
        let matcher = hook
            .matcher
            .as_deref()
            .filter(|m| !m.is_empty() && *m != "*")
            .map(|m| format!(" ({m})"))
            .unwrap_or_default();
        let line = format!("hook {}{matcher}: {}", hook.event, hook.command);
        runs.push(pinned(&p.root, line));
    }
    for server in &p.mcp_servers {
        let line = match &server.transport {
            Transport::Stdio {
                command, args, env, ..
            } => {
                let mut line = format!("MCP server {}: {}", server.name, command);
                for a in args {
                    line.push(' ');
                    line.push_str(a);
                }
                if !env.is_empty() {
                    let keys: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    line.push_str(&format!(" (env {})", keys.join(", ")));
                }
                line
            }
            Transport::Http { url, headers } | Transport::Sse { url, headers } => {
                let mut line = format!("MCP server {}: {url}", server.name);
                if !headers.is_empty() {
                    let keys: Vec<String> =
                        headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                    line.push_str(&format!(" (headers {})", keys.join(", ")));
                }
                line
            }
        };
        runs.push(pinned(&p.root, line));
    }
    if let Some(command) = &p.sidecar {
        runs.push(pinned(&p.root, format!("sidecar process: {command}")));
    }
    for path in &p.components {
        let what = describe(path).map_err(|e| PackageError::file(path, e))?;
        runs.push(pinned(
            &p.root,
            format!("wasm component {}: {what}", path.display()),
        ));
    }
    let catalog = skills(p);
    for skill in &catalog.skills {
        brings.push(format!("skill {}", skill.name));
        if skill.has_scripts {
            let (files, _) = reasonix_skills::files(&skill.dir.join("scripts"));
            runs.push(format!(
                "skill {} bundles scripts (run only through the shell tool, with its permissions): {}",
                skill.name,
                files.join(", ")
            ));
        }
    }
    for dir in &p.commands {
        for name in markdown_names(dir) {
            brings.push(format!("command /{}:{name}", p.name));
        }
    }
    for dir in &p.agents {
        for name in markdown_names(dir) {
            brings.push(format!("agent {}:{name}", p.name));
        }
    }
    for dir in &p.compositions {
        for name in composition_names(dir) {
            brings.push(format!("composition {}:{name}", p.name));
        }
    }
    brings.sort();
    brings.dedup();
    Ok(Review { runs, brings })
}

/// The `<name>.toml` files of a compositions folder, as names.
pub fn composition_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".toml"))
                .map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

/// `line` with the content of each package file it names pinned (`[run.sh sha256:…]`): a
/// script changed by an update changes the line, so the update asks again, though the command
/// text stayed the same.
fn pinned(root: &std::path::Path, line: String) -> String {
    let prefix = root.display().to_string();
    let mut pins = Vec::new();
    for word in line.split_whitespace() {
        let word = word
            .trim_matches(|c| c == '"' || c == '\'')
            .trim_end_matches([':', ',', ';']);
        let Some(rel) = word
            .strip_prefix(&prefix)
            .map(|r| r.trim_start_matches('/'))
        else {
            continue;
        };
        if let Ok(bytes) = std::fs::read(root.join(rel))
            && !rel.is_empty()
        {
            let sha = reasonix_core::sha256_hex(&bytes);
            pins.push(format!("{rel} sha256:{}", &sha[..12]));
        }
    }
    if pins.is_empty() {
        line
    } else {
        format!("{line} [{}]", pins.join(", "))
    }
}

/// The package's skills, namespaced `package:skill`.
pub fn skills(p: &Package) -> reasonix_skills::Catalog {
    let roots: Vec<reasonix_skills::Root> = p
        .skills
        .iter()
        .map(|dir| reasonix_skills::Root {
            namespace: Some(p.name.clone()),
            within: Some(p.root.clone()),
            ..reasonix_skills::Root::new(dir.clone(), reasonix_skills::Scope::Package)
        })
        .collect();
    reasonix_skills::discover(
        &roots,
        &reasonix_skills::Options {
            workspace_trusted: true,
            ..Default::default()
        },
    )
}

/// The `*.md` files of a folder and its subfolders, as command names (`a/b.md` → `a:b`).
fn markdown_names(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new(), 0)];
    while let Some((at, prefix, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() && depth < 2 && !name.starts_with('.') {
                stack.push((path, format!("{prefix}{name}:"), depth + 1));
            } else if let Some(stem) = name.strip_suffix(".md") {
                out.push(format!("{prefix}{stem}"));
            }
        }
    }
    out.sort();
    out
}
