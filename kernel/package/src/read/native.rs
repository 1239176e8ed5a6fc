//! Reasonix's native `reasonix-plugin.json` v2, read strictly by the sidecar tier's parser (an
//! unknown field is an error naming its JSON path; paths must stay in the package). Discovery
//! is explicit: only what `contributes` (or the legacy top-level keys) names is used, never an
//! implicit `hooks/hooks.json` or `.mcp.json`.

use super::{compatibility, inside, servers, with_root};
use crate::{Kind, Package, PackageError};
use reasonix_config::settings_json::{HookDef, MatcherStyle};
use reasonix_sidecar::manifest::{self, Hook, Manifest};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(super) fn read(
    root: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Package, PackageError> {
    let m: Manifest = manifest::load(root).map_err(|e| PackageError::Source(e.to_string()))?;
    let file = root.join(manifest::MANIFEST_FILE);
    let c = m.contributes.clone().unwrap_or_default();
    let folders = |list: &[String], legacy: &[String]| -> Result<Vec<PathBuf>, PackageError> {
        let mut out = Vec::new();
        for rel in list.iter().chain(legacy) {
            let path = inside(root, rel).map_err(|e| PackageError::file(&file, e))?;
            if !out.contains(&path) {
                out.push(path);
            }
        }
        Ok(out)
    };
    let skills = folders(&c.skills, &m.skills)?;
    // Prompts are Markdown templates invoked by `/<package>:<name>`: what a command folder is.
    let commands = folders(&c.commands, &m.commands)?
        .into_iter()
        .chain(folders(&c.prompts, &[])?)
        .fold(Vec::new(), |mut all, dir| {
            if !all.contains(&dir) {
                all.push(dir);
            }
            all
        });
    let agents = folders(&c.agents, &[])?;
    let compositions = folders(&c.compositions, &[])?;
    let components = folders(&c.components, &[])?;
    for (i, rel) in c.components.iter().enumerate() {
        let path = root.join(rel);
        if path.extension().is_none_or(|e| e != "wasm") || !path.is_file() {
            return Err(PackageError::file(
                &file,
                format!(
                    "at `contributes.components[{i}]`: `{}` is not a `.wasm` file of the package",
                    reasonix_core::terminal::shown(rel)
                ),
            ));
        }
    }
    let mut notes = Vec::new();
    if !c.themes.is_empty() {
        notes.push("`contributes.themes` is not used by this build".to_string());
    }
    let mut hooks = Vec::new();
    for map in [&m.hooks, &c.hooks] {
        for (event, list) in map {
            for hook in list {
                hooks.push(hook_def(event, hook, root));
            }
        }
    }
    let mut mcp_doc = serde_json::Map::new();
    for map in [&m.mcp_servers, &c.mcp_servers] {
        for (name, server) in map {
            let mut entry = serde_json::Map::new();
            if let Some(kind) = &server.kind {
                entry.insert("type".into(), kind.clone().into());
            }
            if let Some(command) = &server.command {
                entry.insert("command".into(), command.clone().into());
            }
            if !server.args.is_empty() {
                entry.insert("args".into(), server.args.clone().into());
            }
            if !server.env.is_empty() {
                entry.insert("env".into(), serde_json::json!(server.env));
            }
            if let Some(url) = &server.url {
                entry.insert("url".into(), url.clone().into());
            }
            if !server.headers.is_empty() {
                entry.insert("headers".into(), serde_json::json!(server.headers));
            }
            mcp_doc.insert(name.clone(), entry.into());
        }
    }
    let mcp_servers = if mcp_doc.is_empty() {
        Vec::new()
    } else {
        let text = serde_json::json!({ "mcpServers": mcp_doc }).to_string();
        servers(&file, &text, &m.name, root, lookup)?
    };
    let sidecar = m.runtime.as_ref().map(|r| {
        with_root(
            &std::iter::once(&r.command)
                .chain(&r.args)
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
            root,
        )
    });
    let used = !(skills.is_empty()
        && commands.is_empty()
        && agents.is_empty()
        && hooks.is_empty()
        && mcp_servers.is_empty()
        && sidecar.is_none()
        && components.is_empty()
        && compositions.is_empty());
    Ok(Package {
        name: m.name.clone(),
        version: m.version.clone(),
        description: m.description.clone().unwrap_or_default(),
        kind: Kind::Reasonix,
        root: root.to_path_buf(),
        skills,
        commands,
        agents,
        hooks,
        mcp_servers,
        sidecar,
        components,
        compositions,
        compatibility: compatibility(notes, used),
    })
}

/// A native hook entry as the hooks component runs one: the exec form (`args` present) is
/// quoted into one command line.
fn hook_def(event: &str, hook: &Hook, root: &Path) -> HookDef {
    let program = hook
        .command
        .clone()
        .or_else(|| hook.shell_command.clone())
        .unwrap_or_default();
    let command = match &hook.args {
        Some(args) => std::iter::once(&program)
            .chain(args)
            .map(|a| quote(&with_root(a, root)))
            .collect::<Vec<_>>()
            .join(" "),
        None => with_root(&program, root),
    };
    let mut env: BTreeMap<String, String> = hook.env.clone();
    env.insert("REASONIX_PLUGIN_ROOT".into(), root.display().to_string());
    env.insert("CLAUDE_PLUGIN_ROOT".into(), root.display().to_string());
    HookDef {
        event: event.to_string(),
        matcher: hook.matcher.clone(),
        style: MatcherStyle::Reasonix,
        command,
        timeout_ms: hook.timeout,
        cwd: hook.cwd.clone(),
        env,
        description: hook.description.clone(),
        condition: None,
        line: 1,
    }
}

fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn contributes_is_read_and_an_unknown_field_names_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("skills/a")).unwrap();
        std::fs::write(
            root.join("skills/a/SKILL.md"),
            "---\ndescription: A\n---\nA",
        )
        .unwrap();
        let manifest = serde_json::json!({
            "apiVersion": "reasonix.io/plugin/v2", "name": "kit", "version": "2.0.0",
            "contributes": {
                "skills": ["skills"],
                "hooks": {"PreToolUse": [{"match": "bash", "command": "${REASONIX_PLUGIN_ROOT}/check", "args": ["a b"]}]},
                "mcpServers": {"db": {"command": "node", "args": ["${REASONIX_PLUGIN_ROOT}/db.js"]}}
            }
        });
        std::fs::write(root.join("reasonix-plugin.json"), manifest.to_string()).unwrap();
        let p = crate::read::read(&root, &|_| None).unwrap();
        assert_eq!(p.kind, Kind::Reasonix);
        assert_eq!(p.skills, [root.join("skills")]);
        assert_eq!(
            p.hooks[0].command,
            format!("{}/check 'a b'", root.display())
        );
        assert_eq!(p.mcp_servers[0].name, "plugin_kit_db");
        let mut bad = manifest.clone();
        bad["contributes"]["hooks"]["PreToolUse"][0]["bogus"] = true.into();
        std::fs::write(root.join("reasonix-plugin.json"), bad.to_string()).unwrap();
        let e = crate::read::read(&root, &|_| None).unwrap_err().to_string();
        assert!(
            e.contains("contributes.hooks.PreToolUse[0]") && e.contains("bogus"),
            "{e}"
        );
    }

    #[test]
    fn prompts_are_command_folders_and_components_must_be_wasm_files_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for sub in ["prompts", "compositions", "wasm"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join("wasm/t.wasm"), b"\0asm").unwrap();
        std::fs::write(root.join("wasm/notes.txt"), "x").unwrap();
        let write = |components: serde_json::Value| {
            let manifest = serde_json::json!({
                "apiVersion": "reasonix.io/plugin/v2", "name": "kit", "version": "1",
                "contributes": {"prompts": ["prompts"], "compositions": ["compositions"], "components": components}
            });
            std::fs::write(root.join("reasonix-plugin.json"), manifest.to_string()).unwrap();
        };
        write(serde_json::json!(["wasm/t.wasm"]));
        let p = crate::read::read(&root, &|_| None).unwrap();
        assert_eq!(p.commands, [root.join("prompts")]);
        assert_eq!(p.compositions, [root.join("compositions")]);
        assert_eq!(p.components, [root.join("wasm/t.wasm")]);
        assert_eq!(p.compatibility.level, crate::Level::Full);
        for (bad, why) in [
            ("wasm/notes.txt", "is not a `.wasm` file"),
            ("wasm/missing.wasm", "is not a `.wasm` file"),
            ("../t.wasm", "leaves the plugin root"),
        ] {
            write(serde_json::json!([bad]));
            let e = crate::read::read(&root, &|_| None).unwrap_err().to_string();
            assert!(
                e.contains("contributes.components[0]") && e.contains(why),
                "{bad}: {e}"
            );
        }
    }
}
