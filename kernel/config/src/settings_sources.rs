//! The `settings.json` files Reasonix reads besides its TOML config, in this order:
//!
//! 1. `~/.claude/settings.json` (Claude Code's user file; `$HOME`),
//! 2. `<home>/settings.json` (Reasonix's user file),
//! 3. `.claude/settings.json`, 4. `.claude/settings.local.json`, 5. `.reasonix/settings.json`
//!    (project files, in the project directory).
//!
//! Their hooks are listed in that order (array order within a file). Their `permissions` join
//! the TOML ones: `deny` and `ask` rules are added from every file; `allow` rules and
//! `additionalDirectories` (as `[sandbox] allow_write` roots) are added too, but from a project
//! file only when the workspace is trusted; `defaultMode` sets the fallback `mode` only when no
//! TOML file set one (the last settings file wins among themselves), and `bypassPermissions`
//! from a project file needs trust.
//!
//! A hook is a command, so a project file's hooks run only once the user trusted the workspace
//! with these very files (`reasonix trust`, pinned to their content; `--trust-workspace` for one
//! run). Untrusted hooks are still listed (`reasonix hooks list`), marked untrusted.
//!
//! A malformed file is an error naming file, line and key, except Claude Code's own
//! `~/.claude/settings.json`: a user who runs Reasonix may not use Claude Code, so a broken
//! file there is a warning and contributes nothing.

use super::settings_json::{self, MatcherStyle, SettingsDoc};
use super::trust::{PROJECT_SETTINGS, TrustCheck, TrustStore};
use super::{Config, Paths, read_text};
use crate::error::StateError;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One hook as the hooks component receives it (camelCase JSON) and `hooks list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookEntry {
    pub event: String,
    pub matcher: Option<String>,
    pub matcher_style: MatcherStyle,
    pub command: String,
    pub timeout_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Claude Code's `if`: a permission rule the tool call must match.
    #[serde(rename = "if", skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// `file:line`.
    pub source: String,
    /// `user` or `project`.
    pub scope: &'static str,
    /// Runs (user file, or project file of a trusted workspace).
    pub trusted: bool,
}

/// What one settings file contributed, for `doctor` and `hooks list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsSource {
    pub path: PathBuf,
    pub scope: &'static str,
    pub trusted: bool,
    pub hooks: usize,
    /// `allow: Bash(ls:*)`, `deny: …`, `mode: allow`, `additionalDirectories: …` as applied.
    pub rules: Vec<String>,
}

/// Which group of settings files a file belongs to (Claude Code's `--setting-sources`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingScope {
    /// `~/.claude/settings.json`, `<home>/settings.json`.
    User,
    /// `.claude/settings.json`, `.reasonix/settings.json`.
    Project,
    /// `.claude/settings.local.json`.
    Local,
}

impl SettingScope {
    pub fn parse(name: &str) -> Option<SettingScope> {
        match name {
            "user" => Some(SettingScope::User),
            "project" => Some(SettingScope::Project),
            "local" => Some(SettingScope::Local),
            _ => None,
        }
    }

    fn of(path: &Path, project: bool) -> SettingScope {
        match (project, path.ends_with(".claude/settings.local.json")) {
            (false, _) => SettingScope::User,
            (true, true) => SettingScope::Local,
            (true, false) => SettingScope::Project,
        }
    }
}

/// What settings a session reads besides the TOML files: the default is every file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsChoice {
    /// Only the files of these scopes; `None`: all of them.
    pub sources: Option<Vec<SettingScope>>,
    /// One more settings document, read after the files: (where it came from, its text). It
    /// is the user's own (given on their command line): its hooks run and its rules apply.
    pub extra: Option<(PathBuf, String)>,
}

/// The settings files to read for `project_dir`: (path, project file?).
pub fn settings_files(paths: &Paths, project_dir: &Path) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        out.push((PathBuf::from(home).join(".claude/settings.json"), false));
    }
    out.push((paths.home.join("settings.json"), false));
    for name in PROJECT_SETTINGS {
        out.push((project_dir.join(name), true));
    }
    out
}

/// Read every settings file into `config` (after its TOML files were merged).
pub(super) fn apply(
    config: &mut Config,
    paths: &Paths,
    project_dir: &Path,
    trust_for_this_run: bool,
    choice: &SettingsChoice,
) -> Result<(), StateError> {
    let toml_mode = config.permissions.mode.is_some();
    let mut settings_trust: Option<bool> = None;
    let claude_user = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".claude/settings.json"));
    // The project files are read once, before any is parsed: trust is judged on the very
    // bytes that are then parsed, not on a second read a swap in between could change.
    let mut project_texts = Vec::new();
    for name in PROJECT_SETTINGS {
        if let Some(text) = read_text(&project_dir.join(name))? {
            project_texts.push((*name, text));
        }
    }
    let project_sha = super::trust::settings_sha256_of(
        project_texts
            .iter()
            .map(|(name, text)| (*name, text.as_bytes())),
    );
    // The first trusted file with `disableAllHooks`.
    let mut disabled_by: Option<String> = None;
    for (path, project) in settings_files(paths, project_dir) {
        if let Some(sources) = &choice.sources
            && !sources.contains(&SettingScope::of(&path, project))
        {
            continue;
        }
        let text = if project {
            project_texts
                .iter()
                .find(|(name, _)| project_dir.join(name) == path)
                .map(|(_, text)| text.clone())
        } else {
            read_text(&path)?
        };
        let Some(text) = text else {
            continue;
        };
        let doc = match settings_json::parse(&path, &text) {
            Ok(doc) => doc,
            Err(e) if Some(&path) == claude_user.as_ref() => {
                config.file_warnings.push(format!(
                    "{e}; this Claude Code file contributes no hooks and no permission rules until it is fixed"
                ));
                continue;
            }
            Err(e) => {
                return Err(StateError::Format {
                    path,
                    message: format!(
                        "line {}: {}: {} (fix the file, or move it away)",
                        e.line, e.key, e.message
                    ),
                });
            }
        };
        let trusted = if project {
            *settings_trust.get_or_insert_with(|| {
                trust_for_this_run
                    || TrustStore::load(&paths.home).is_ok_and(|store| {
                        let check =
                            store.check_settings_content(project_dir, project_sha.as_deref());
                        if check == TrustCheck::Changed {
                            config.file_warnings.push(format!(
                                "{}: the project's settings files changed since you trusted this workspace, so their hooks do not run and their widening permissions do not apply; review them, then run `reasonix trust` again",
                                project_dir.display()
                            ));
                        }
                        check == TrustCheck::Trusted
                    })
            })
        } else {
            true
        };
        let pinned = if project && trusted && !trust_for_this_run {
            let store = TrustStore::load(&paths.home).unwrap_or_default();
            Some(store.hook_pins(project_dir).to_vec())
        } else {
            None
        };
        let scope = Scope {
            project_dir,
            project,
            trusted,
            pinned: pinned.as_deref(),
        };
        if let Some(line) = doc.disable_all_hooks {
            let at = format!("{}:{line}", path.display());
            // A narrowing, but an untrusted workspace must not switch off the user's own
            // guard hooks either.
            if trusted {
                disabled_by.get_or_insert(at);
            } else {
                config.file_warnings.push(format!(
                    "{at}: disableAllHooks: ignored: this workspace's settings files are not trusted"
                ));
            }
        }
        merge(config, &path, &scope, toml_mode, doc);
    }
    if let Some((path, text)) = &choice.extra {
        let doc = settings_json::parse(path, text).map_err(|e| StateError::Format {
            path: path.clone(),
            message: format!("line {}: {}: {}", e.line, e.key, e.message),
        })?;
        if let Some(line) = doc.disable_all_hooks {
            disabled_by.get_or_insert(format!("{}:{line}", path.display()));
        }
        let scope = Scope {
            project_dir,
            project: false,
            trusted: true,
            pinned: None,
        };
        merge(config, path, &scope, toml_mode, doc);
    }
    if let Some(at) = disabled_by {
        if !config.hooks.is_empty() {
            config.file_warnings.push(format!(
                "{at}: disableAllHooks: {} hook(s) switched off",
                config.hooks.len()
            ));
        }
        config.hooks.clear();
    }
    Ok(())
}

/// Where a settings file sits and what its hooks may run.
struct Scope<'a> {
    project_dir: &'a Path,
    project: bool,
    trusted: bool,
    /// For a project file trusted through `<home>/trust.json`: the hook files pinned then.
    /// A hook runs only while every workspace file it executes is among them, unchanged.
    pinned: Option<&'a [super::PinnedFile]>,
}

impl Scope<'_> {
    /// Whether a hook of this file with `command` (in `cwd`) runs: a warning naming the
    /// script when its pin no longer holds.
    fn hook_runs(&self, config: &mut Config, command: &str, cwd: Option<&str>, at: &str) -> bool {
        if !self.project {
            return self.trusted;
        }
        let files = super::pins::hook_files(self.project_dir, cwd, command);
        config.executed_files.extend(files.iter().cloned());
        if !self.trusted {
            return false;
        }
        let Some(pinned) = self.pinned else {
            return true;
        };
        let now = super::pins::pin(self.project_dir, &files);
        let changed: Vec<String> = now
            .iter()
            .filter(|pin| !pinned.contains(pin))
            .map(|pin| pin.path.clone())
            .collect();
        if changed.is_empty() {
            return true;
        }
        config.file_warnings.push(format!(
            "{at}: this hook does not run: {} changed since you trusted this workspace (or was not pinned then); review it, then run `reasonix trust` again",
            changed.join(", ")
        ));
        false
    }
}

fn merge(config: &mut Config, path: &Path, place: &Scope<'_>, toml_mode: bool, doc: SettingsDoc) {
    let (project, trusted) = (place.project, place.trusted);
    let scope = if project { "project" } else { "user" };
    let file = path.display().to_string();
    config.file_warnings.extend(doc.warnings);
    let untrusted = |what: &str, line: Option<usize>| {
        let at = line.map_or(file.clone(), |l| format!("{file}:{l}"));
        format!(
            "{at}: {what}: this workspace's settings files are not trusted. Trust them with `reasonix trust` (or `--trust-workspace` for one run) if you trust everyone who can change this repository"
        )
    };
    let mut source = SettingsSource {
        path: path.to_path_buf(),
        scope,
        trusted,
        hooks: doc.hooks.len(),
        rules: Vec::new(),
    };
    if !trusted && !doc.hooks.is_empty() {
        config.file_warnings.push(untrusted(
            &format!("{} hook(s) found, none of them runs", doc.hooks.len()),
            doc.hooks.first().map(|h| h.line),
        ));
    }
    for hook in doc.hooks {
        let source = format!("{file}:{}", hook.line);
        let trusted = place.hook_runs(config, &hook.command, hook.cwd.as_deref(), &source);
        config.hooks.push(HookEntry {
            event: hook.event,
            matcher: hook.matcher,
            matcher_style: hook.style,
            command: hook.command,
            timeout_ms: hook.timeout_ms,
            cwd: hook.cwd,
            env: hook.env,
            description: hook.description,
            condition: hook.condition,
            source,
            scope,
            trusted,
        });
    }
    let perms = doc.permissions;
    let p = &mut config.permissions;
    for (list, rules) in [("deny", perms.deny), ("ask", perms.ask)] {
        let target = if list == "deny" {
            &mut p.deny
        } else {
            &mut p.ask
        };
        for rule in rules {
            p.origins
                .entry((list.to_string(), rule.clone()))
                .or_insert_with(|| path.to_path_buf());
            if !target.contains(&rule) {
                target.push(rule.clone());
            }
            source.rules.push(format!("{list}: {rule}"));
        }
    }
    if !perms.allow.is_empty() {
        if trusted {
            for rule in perms.allow {
                p.origins
                    .entry(("allow".to_string(), rule.clone()))
                    .or_insert_with(|| path.to_path_buf());
                if !p.allow.contains(&rule) {
                    p.allow.push(rule.clone());
                }
                source.rules.push(format!("allow: {rule}"));
            }
        } else {
            config.file_warnings.push(untrusted(
                "`permissions.allow` is ignored (its rules run tools without asking)",
                None,
            ));
        }
    }
    if !perms.additional_directories.is_empty() {
        if trusted {
            let base = path
                .parent()
                .and_then(|d| if project { d.parent() } else { Some(d) })
                .unwrap_or(Path::new(""));
            let list = config.sandbox.allow_write.get_or_insert_with(Vec::new);
            for dir in perms.additional_directories {
                let resolved = if dir.starts_with('/') || dir.starts_with('~') {
                    dir.clone()
                } else {
                    base.join(&dir).display().to_string()
                };
                if !list.contains(&resolved) {
                    list.push(resolved.clone());
                }
                source
                    .rules
                    .push(format!("additionalDirectories: {resolved}"));
            }
        } else {
            config.file_warnings.push(untrusted(
                "`permissions.additionalDirectories` is ignored (it adds writable roots)",
                None,
            ));
        }
    }
    if let Some((mode, line)) = perms.mode {
        if toml_mode {
            config.file_warnings.push(format!(
                "{file}:{line}: permissions.defaultMode is ignored: `[permissions] mode` in the TOML config takes precedence"
            ));
        } else if mode == "allow" && !trusted {
            config.file_warnings.push(untrusted(
                "`permissions.defaultMode = \"bypassPermissions\"` is ignored (it runs writers and commands without asking)",
                Some(line),
            ));
        } else {
            config.permissions.mode = Some(mode.clone());
            source.rules.push(format!("mode: {mode}"));
        }
    }
    config.settings.push(source);
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::settings_json::parse;

    fn doc(text: &str) -> SettingsDoc {
        parse(Path::new("/p/.claude/settings.json"), text).unwrap()
    }

    fn apply_doc(config: &mut Config, project: bool, trusted: bool, text: &str) {
        let toml_mode = config.permissions.mode.is_some();
        let place = Scope {
            project_dir: Path::new("/p"),
            project,
            trusted,
            pinned: None,
        };
        merge(
            config,
            Path::new("/p/.claude/settings.json"),
            &place,
            toml_mode,
            doc(text),
        );
    }

    const WIDE: &str = r#"{"permissions": {"allow": ["Bash(make:*)"], "deny": ["Bash(rm:*)"],
        "ask": ["Edit"], "additionalDirectories": ["../lib"], "defaultMode": "bypassPermissions"},
        "hooks": {"Stop": [{"hooks": [{"command": "true"}]}]}}"#;

    #[test]
    fn an_untrusted_project_file_only_narrows() {
        let mut config = Config::default();
        apply_doc(&mut config, true, false, WIDE);
        let p = &config.permissions;
        assert_eq!(p.deny, vec!["Bash(rm:*)"]);
        assert_eq!(p.ask, vec!["Edit"]);
        assert!(p.allow.is_empty());
        assert_eq!(p.mode, None);
        assert_eq!(config.sandbox.allow_write, None);
        assert!(!config.hooks[0].trusted);
        let warnings = config.file_warnings.join("\n");
        for key in [
            "permissions.allow",
            "additionalDirectories",
            "bypassPermissions",
            "none of them runs",
        ] {
            assert!(warnings.contains(key), "{key}: {warnings}");
        }
        assert_eq!(
            config.settings[0].rules,
            vec!["deny: Bash(rm:*)", "ask: Edit"]
        );
    }

    #[test]
    fn a_trusted_project_file_widens_and_the_toml_mode_wins() {
        let mut config = Config::default();
        apply_doc(&mut config, true, true, WIDE);
        let p = &config.permissions;
        assert_eq!(p.allow, vec!["Bash(make:*)"]);
        assert_eq!(p.mode.as_deref(), Some("allow"));
        assert_eq!(
            config.sandbox.allow_write,
            Some(vec!["/p/../lib".to_string()])
        );
        assert!(config.hooks[0].trusted);
        assert_eq!(config.hooks[0].source, "/p/.claude/settings.json:3");

        let mut config = Config::default();
        config.permissions.mode = Some("ask".into());
        config.permissions.deny = vec!["Bash(rm:*)".into()];
        apply_doc(&mut config, false, true, WIDE);
        assert_eq!(config.permissions.mode.as_deref(), Some("ask"));
        assert_eq!(
            config.permissions.deny,
            vec!["Bash(rm:*)"],
            "joined, no duplicate"
        );
        assert!(config.file_warnings.join("\n").contains("takes precedence"));
    }
}
