//! Claude Code's plugin layout (and Codex's, which follows it): `.claude-plugin/plugin.json`
//! (`name` required; `version`, `description`, and paths that add to or replace the convention
//! folders) with `commands/`, `agents/`, `skills/`, `hooks/hooks.json` and `.mcp.json` at the
//! root. The manifest is read leniently, as Claude Code does: keys this build does not use are
//! listed in the compatibility notes, never an error.

use super::{
    CLAUDE_MANIFEST, CODEX_MANIFEST, compatibility, hooks, inside, read_json_file, servers,
};
use crate::{Kind, Package, PackageError};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Keys of Claude Code's `plugin.json` that describe the package (used or shown).
const DESCRIPTIVE: &[&str] = &[
    "name",
    "version",
    "description",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
    "$schema",
    "interface",
];

pub(super) fn read(
    root: &Path,
    kind: Kind,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Package, PackageError> {
    let manifest_path = root.join(match kind {
        Kind::Codex => CODEX_MANIFEST,
        _ => CLAUDE_MANIFEST,
    });
    let text = read_json_file(&manifest_path)?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| {
        PackageError::file(
            &manifest_path,
            format!(
                "not valid JSON: {e} (line {}, column {})",
                e.line(),
                e.column()
            ),
        )
    })?;
    let Some(doc) = doc.as_object() else {
        return Err(PackageError::file(&manifest_path, "must be a JSON object"));
    };
    let text_of = |key: &str| doc.get(key).and_then(Value::as_str).map(str::to_string);
    let name =
        text_of("name").ok_or_else(|| PackageError::file(&manifest_path, "`name` is missing"))?;
    let at = |key: &str| format!("{}: `{key}`", manifest_path.display());
    let mut notes = Vec::new();

    let folders = |key: &str, default: &str| -> Result<Vec<PathBuf>, PackageError> {
        let mut out = Vec::new();
        let conventional = root.join(default);
        if conventional.is_dir() {
            out.push(conventional);
        }
        for rel in
            paths(doc.get(key)).map_err(|e| PackageError::Source(format!("{}: {e}", at(key))))?
        {
            let path = inside(root, &rel)
                .map_err(|e| PackageError::Source(format!("{}: {e}", at(key))))?;
            if !out.contains(&path) {
                out.push(path);
            }
        }
        Ok(out)
    };
    let commands = folders("commands", "commands")?;
    let agents = folders("agents", "agents")?;
    let skills = folders("skills", "skills")?;

    let mut hook_list = Vec::new();
    match doc.get("hooks") {
        None => {
            let file = root.join("hooks").join("hooks.json");
            if file.is_file() {
                hook_list = hooks(&file, &read_json_file(&file)?, root)?;
            }
        }
        Some(Value::String(rel)) => {
            let file = inside(root, rel)
                .map_err(|e| PackageError::Source(format!("{}: {e}", at("hooks"))))?;
            hook_list = hooks(&file, &read_json_file(&file)?, root)?;
        }
        Some(Value::Object(inline)) => {
            let text = serde_json::json!({ "hooks": inline.get("hooks").cloned().unwrap_or(Value::Object(inline.clone())) }).to_string();
            hook_list = hooks(&manifest_path, &text, root)?;
        }
        Some(_) => {
            return Err(PackageError::Source(format!(
                "{}: a path or an object",
                at("hooks")
            )));
        }
    }

    let mut mcp = Vec::new();
    match doc.get("mcpServers") {
        None => {
            let file = root.join(".mcp.json");
            if file.is_file() {
                mcp = servers(&file, &read_json_file(&file)?, &name, root, lookup)?;
            }
        }
        Some(Value::String(rel)) => {
            let file = inside(root, rel)
                .map_err(|e| PackageError::Source(format!("{}: {e}", at("mcpServers"))))?;
            mcp = servers(&file, &read_json_file(&file)?, &name, root, lookup)?;
        }
        Some(Value::Object(inline)) => {
            let text = serde_json::json!({ "mcpServers": inline }).to_string();
            mcp = servers(&manifest_path, &text, &name, root, lookup)?;
        }
        Some(_) => {
            return Err(PackageError::Source(format!(
                "{}: a path or an object",
                at("mcpServers")
            )));
        }
    }

    for key in doc.keys() {
        let used = DESCRIPTIVE.contains(&key.as_str())
            || matches!(
                key.as_str(),
                "commands" | "agents" | "skills" | "hooks" | "mcpServers"
            );
        if !used {
            notes.push(format!(
                "`{key}` in {} is not used by this build",
                manifest_path.display()
            ));
        }
    }
    if kind == Kind::Codex {
        if root.join("hooks").join("session-start-codex").exists() {
            notes.push("hooks/session-start-codex is not run by this build".into());
        }
        if root.join("CLAUDE.md").is_file() {
            notes.push("CLAUDE.md is not added as session context by this build".into());
        }
    }
    for dir in ["output-styles", "outputStyles"] {
        if root.join(dir).is_dir() {
            notes.push(format!("{dir}/ (output styles) is not used by this build"));
        }
    }
    let used = !(skills.is_empty()
        && commands.is_empty()
        && agents.is_empty()
        && hook_list.is_empty()
        && mcp.is_empty());
    Ok(Package {
        name,
        version: text_of("version").unwrap_or_else(|| "0.0.0".into()),
        description: text_of("description").unwrap_or_default(),
        kind,
        root: root.to_path_buf(),
        skills,
        commands,
        agents,
        hooks: hook_list,
        mcp_servers: mcp,
        sidecar: None,
        components: Vec::new(),
        compositions: Vec::new(),
        compatibility: compatibility(notes, used),
    })
}

/// A manifest path field: one string or a list of strings.
fn paths(value: Option<&Value>) -> Result<Vec<String>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| "every entry must be a path".to_string())
            })
            .collect(),
        Some(_) => Err("a path or a list of paths".into()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::Level;

    fn none(_: &str) -> Option<String> {
        None
    }

    /// A plugin as Claude Code's plugin documentation lays one out.
    pub(crate) fn claude_plugin(root: &Path) {
        std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
        std::fs::write(
            root.join(".claude-plugin/plugin.json"),
            r#"{"name": "notes-kit", "version": "1.2.0", "description": "Notes", "author": {"name": "A"}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(root.join("commands")).unwrap();
        std::fs::write(
            root.join("commands/hello.md"),
            "---\ndescription: Greet\n---\nSay hello to $ARGUMENTS\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("agents")).unwrap();
        std::fs::write(
            root.join("agents/rev.md"),
            "---\nname: rev\ndescription: r\n---\nReview.\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("skills/tidy/scripts")).unwrap();
        std::fs::write(
            root.join("skills/tidy/SKILL.md"),
            "---\nname: tidy\ndescription: Tidy notes\n---\nTidy.\n",
        )
        .unwrap();
        std::fs::write(root.join("skills/tidy/scripts/run.sh"), "echo tidy\n").unwrap();
        std::fs::create_dir_all(root.join("hooks")).unwrap();
        std::fs::write(
            root.join("hooks/hooks.json"),
            r#"{"hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/format.sh"}]}]}}"#,
        )
        .unwrap();
        std::fs::write(
            root.join(".mcp.json"),
            r#"{"mcpServers": {"notes": {"command": "python3", "args": ["${CLAUDE_PLUGIN_ROOT}/server.py"]}}}"#,
        )
        .unwrap();
    }

    #[test]
    fn a_claude_plugin_reads_every_part() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        claude_plugin(&root);
        let p = crate::read::read(&root, &none).unwrap();
        assert_eq!(
            (p.name.as_str(), p.version.as_str(), p.kind),
            ("notes-kit", "1.2.0", Kind::Claude)
        );
        assert_eq!(p.commands, [root.join("commands")]);
        assert_eq!(p.agents, [root.join("agents")]);
        assert_eq!(p.skills, [root.join("skills")]);
        assert_eq!(p.hooks.len(), 1);
        assert_eq!(
            p.hooks[0].command,
            format!("{}/scripts/format.sh", root.display())
        );
        assert_eq!(p.mcp_servers[0].name, "plugin_notes-kit_notes");
        let reasonix_config::mcp::Transport::Stdio { args, .. } = &p.mcp_servers[0].transport
        else {
            panic!("stdio");
        };
        assert_eq!(args, &[format!("{}/server.py", root.display())]);
        assert_eq!(
            p.compatibility.level,
            Level::Full,
            "{:?}",
            p.compatibility.notes
        );
    }

    #[test]
    fn unused_keys_make_it_partial_and_escaping_paths_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        claude_plugin(&root);
        std::fs::write(
            root.join(".claude-plugin/plugin.json"),
            r#"{"name": "x", "lspServers": {}}"#,
        )
        .unwrap();
        let p = crate::read::read(&root, &none).unwrap();
        assert_eq!(p.compatibility.level, Level::Partial);
        assert!(p.compatibility.notes[0].contains("`lspServers`"));
        std::fs::write(
            root.join(".claude-plugin/plugin.json"),
            r#"{"name": "x", "commands": "../../etc"}"#,
        )
        .unwrap();
        let e = crate::read::read(&root, &none).unwrap_err().to_string();
        assert!(
            e.contains("`commands`") && e.contains("out of the package"),
            "{e}"
        );
        std::fs::write(
            root.join(".claude-plugin/plugin.json"),
            r#"{"version": "1"}"#,
        )
        .unwrap();
        let e = crate::read::read(&root, &none).unwrap_err().to_string();
        assert!(
            e.contains("plugin.json") && e.contains("`name` is missing"),
            "{e}"
        );
    }
}
