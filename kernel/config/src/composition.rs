//! Agent compositions: named presets (`[compositions.<name>]`) that bind a persona to a chosen
//! set of tools, skills, MCP servers and packages, and may tighten the permission and sandbox
//! policy — never loosen it. Every key that would allow more than the configuration already
//! does is refused, naming the key, before anything starts.

use crate::Config;
use reasonix_core::settings::ShellSandbox;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `[compositions.<name>]` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompositionFile {
    pub description: Option<String>,
    /// Added to the system prompt (after the guidance; stable for the session).
    pub persona: Option<String>,
    /// The tools offered, by name (among those the configuration offers).
    pub tools: Option<Vec<String>>,
    /// The skills the model is told about and `/name` invokes.
    pub skills: Option<Vec<String>>,
    /// The MCP servers started.
    pub mcp_servers: Option<Vec<String>>,
    /// The installed packages loaded.
    pub packages: Option<Vec<String>>,
    /// The hook events whose hooks run ([`SAFETY_EVENTS`] always run).
    pub hooks: Option<Vec<String>>,
    /// The custom commands `/name` expands (by name, `ns:name` for a folder's or a package's).
    pub commands: Option<Vec<String>>,
    pub permissions: Option<CompositionPermissions>,
    pub sandbox: Option<CompositionSandbox>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompositionPermissions {
    /// Only rules the configuration's `[permissions] allow` already holds.
    pub allow: Vec<String>,
    pub ask: Vec<String>,
    pub deny: Vec<String>,
    /// No looser than the configuration's (`deny` < `ask` < `allow`).
    pub mode: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompositionSandbox {
    /// `true` only when the configuration lets commands reach the network already.
    pub network: Option<bool>,
    /// Only roots the configuration's `allow_write` already holds.
    pub allow_write: Option<Vec<String>>,
    /// `off` only when the configuration's is off already.
    pub bash: Option<ShellSandbox>,
    /// More paths no reader or command may see (joined).
    pub forbid_read: Vec<String>,
}

/// Hook events that guard calls and prompts: a composition cannot leave their hooks out.
pub const SAFETY_EVENTS: &[&str] = &["PreToolUse", "UserPromptSubmit", "PermissionRequest"];

/// A composition as defined, with where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defined {
    pub name: String,
    pub file: CompositionFile,
    pub source: PathBuf,
}

impl Defined {
    /// sha256 of its definition (canonical JSON): what a session records with the name.
    pub fn sha256(&self) -> String {
        let text = serde_json::to_string(&self.file).unwrap_or_default();
        let canonical = reasonix_core::types::canonical_json(&text).unwrap_or(text);
        reasonix_core::sha256_hex(canonical.as_bytes())
    }
}

/// The largest composition file a package may bring.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// A composition a package brings (`<folder>/<name>.toml`, the body of a `[compositions.<name>]`
/// section), offered as `<package>:<name>`. A bad file is an error naming it and the problem.
pub fn read_package_file(
    package: &str,
    root: &std::path::Path,
    path: &std::path::Path,
) -> Result<Defined, String> {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{}: not a composition file name", path.display()))?;
    let text = reasonix_core::contained::read_within(root, path, MAX_FILE_BYTES)?;
    let file: CompositionFile = toml::from_str(&text).map_err(|e| {
        let at = e.to_string().lines().next().unwrap_or_default().to_string();
        format!("{}: {} ({at})", path.display(), e.message().trim())
    })?;
    Ok(Defined {
        name: format!("{package}:{stem}"),
        file,
        source: path.to_path_buf(),
    })
}

/// Why a composition cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompositionError {
    #[error("no composition `{name}`; defined: {defined}")]
    NotFound { name: String, defined: String },
    #[error(
        "{file}: `compositions.{name}.{key}` {why}; a composition can only narrow what your configuration allows"
    )]
    Widens {
        file: String,
        name: String,
        key: String,
        why: String,
    },
}

fn rank(mode: Option<&str>) -> u8 {
    match mode {
        Some("deny") => 0,
        Some("allow") => 2,
        _ => 1,
    }
}

impl Config {
    /// The composition `name`.
    pub fn composition(&self, name: &str) -> Result<&Defined, CompositionError> {
        self.compositions
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| CompositionError::NotFound {
                name: name.to_string(),
                defined: if self.compositions.is_empty() {
                    "none (add a [compositions.<name>] section, docs/CONFIG.md)".into()
                } else {
                    self.compositions
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            })
    }

    /// This configuration narrowed by `c`: its rules and sandbox tightened, its MCP servers
    /// and packages chosen. Refused, naming the key, where `c` would allow more.
    pub fn narrow_by(&mut self, c: &Defined) -> Result<(), CompositionError> {
        let widens = |key: String, why: String| CompositionError::Widens {
            file: c.source.display().to_string(),
            name: c.name.clone(),
            key,
            why,
        };
        if let Some(p) = &c.file.permissions {
            for (i, rule) in p.allow.iter().enumerate() {
                if !self.permissions.allow.contains(rule) {
                    return Err(widens(
                        format!("permissions.allow[{i}]"),
                        format!("= \"{rule}\" is not among your [permissions] allow rules"),
                    ));
                }
            }
            if let Some(mode) = &p.mode {
                if !matches!(mode.as_str(), "ask" | "allow" | "deny") {
                    return Err(widens(
                        "permissions.mode".into(),
                        format!("= \"{mode}\" is not ask, allow or deny"),
                    ));
                }
                if rank(Some(mode)) > rank(self.permissions.mode.as_deref()) {
                    return Err(widens(
                        "permissions.mode".into(),
                        format!(
                            "= \"{mode}\" is looser than your configuration's `{}`",
                            self.permissions.mode.as_deref().unwrap_or("ask")
                        ),
                    ));
                }
                self.permissions.mode = Some(mode.clone());
            }
            // Only rules the configuration allows already: the allow list becomes that subset.
            if !p.allow.is_empty() {
                self.permissions.allow = p.allow.clone();
            }
            for (list, rules) in [
                (&mut self.permissions.ask, &p.ask),
                (&mut self.permissions.deny, &p.deny),
            ] {
                for rule in rules {
                    if !list.contains(rule) {
                        list.push(rule.clone());
                    }
                }
            }
        }
        if let Some(s) = &c.file.sandbox {
            if s.network == Some(true) && self.sandbox.network != Some(true) {
                return Err(widens(
                    "sandbox.network".into(),
                    "= true, but your [sandbox] keeps commands off the network".into(),
                ));
            }
            if let Some(network) = s.network {
                self.sandbox.network = Some(network);
            }
            if let Some(roots) = &s.allow_write {
                let own = self.sandbox.allow_write.clone().unwrap_or_default();
                for (i, root) in roots.iter().enumerate() {
                    if !own.contains(root) {
                        return Err(widens(
                            format!("sandbox.allow_write[{i}]"),
                            format!("= \"{root}\" is not among your [sandbox] allow_write roots"),
                        ));
                    }
                }
                self.sandbox.allow_write = Some(roots.clone());
            }
            if s.bash == Some(ShellSandbox::Off) && self.sandbox.bash != Some(ShellSandbox::Off) {
                return Err(widens(
                    "sandbox.bash".into(),
                    "= \"off\", but your [sandbox] runs commands in the OS sandbox".into(),
                ));
            }
            if let Some(bash) = s.bash {
                self.sandbox.bash = Some(bash);
            }
            let forbid = self.sandbox.forbid_read.get_or_insert_with(Vec::new);
            for path in &s.forbid_read {
                if !forbid.contains(path) {
                    forbid.push(path.clone());
                }
            }
        }
        if let Some(servers) = &c.file.mcp_servers {
            self.mcp_servers.retain(|s| servers.contains(&s.name));
            self.mcp_only = Some(servers.clone());
        }
        if let Some(packages) = &c.file.packages {
            self.package_filter = Some(packages.clone());
        }
        if let Some(skills) = &c.file.skills {
            self.skills.only = Some(skills.clone());
        }
        if let Some(events) = &c.file.hooks {
            self.hook_events = Some(events.clone());
            self.hooks.retain(|h| hook_kept(events, &h.event));
        }
        if let Some(commands) = &c.file.commands {
            self.commands_only = Some(commands.clone());
        }
        Ok(())
    }
}

/// Whether a hook of `event` runs under a composition keeping `events`.
pub fn hook_kept(events: &[String], event: &str) -> bool {
    SAFETY_EVENTS.contains(&event) || events.iter().any(|e| e == event)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::Config;
    use std::path::Path;

    fn config(text: &str) -> Config {
        Config::parse(Path::new("/u/config.toml"), text).unwrap()
    }

    const USER: &str = "[permissions]\nmode = \"ask\"\nallow = [\"Bash(git status:*)\", \"Read\"]\n[sandbox]\nnetwork = false\nallow_write = [\"/tmp/out\"]\n";

    #[test]
    fn a_narrowing_composition_applies() {
        let mut c = config(&format!(
            "{USER}[compositions.reviewer]\npersona = \"Review only.\"\ntools = [\"read_file\"]\n[compositions.reviewer.permissions]\nallow = [\"Read\"]\ndeny = [\"Bash\"]\nmode = \"deny\"\n[compositions.reviewer.sandbox]\nallow_write = []\nforbid_read = [\"/secret\"]\n"
        ));
        assert!(c.warnings().is_empty(), "{:?}", c.warnings());
        let defined = c.composition("reviewer").unwrap().clone();
        assert_eq!(defined.sha256().len(), 64);
        c.narrow_by(&defined).unwrap();
        assert_eq!(c.permissions.allow, ["Read"]);
        assert!(c.permissions.deny.contains(&"Bash".to_string()));
        assert_eq!(c.permissions.mode.as_deref(), Some("deny"));
        assert_eq!(c.sandbox.allow_write, Some(vec![]));
        assert_eq!(c.sandbox.forbid_read, Some(vec!["/secret".to_string()]));
    }

    #[test]
    fn hooks_keep_the_safety_events_whatever_the_list() {
        let keep = vec!["Stop".to_string()];
        assert!(super::hook_kept(&keep, "Stop"));
        assert!(super::hook_kept(&keep, "PreToolUse"));
        assert!(super::hook_kept(&[], "UserPromptSubmit"));
        assert!(!super::hook_kept(&keep, "PostToolUse"));
    }

    #[test]
    fn every_widening_key_is_refused_by_name() {
        for (body, key) in [
            (
                "[compositions.x.permissions]\nallow = [\"Bash\"]\n",
                "compositions.x.permissions.allow[0]",
            ),
            (
                "[compositions.x.permissions]\nmode = \"allow\"\n",
                "compositions.x.permissions.mode",
            ),
            (
                "[compositions.x.sandbox]\nnetwork = true\n",
                "compositions.x.sandbox.network",
            ),
            (
                "[compositions.x.sandbox]\nallow_write = [\"/etc\"]\n",
                "compositions.x.sandbox.allow_write[0]",
            ),
            (
                "[compositions.x.sandbox]\nbash = \"off\"\n",
                "compositions.x.sandbox.bash",
            ),
        ] {
            let mut c = config(&format!("{USER}{body}"));
            let defined = c.composition("x").unwrap().clone();
            let e = c.narrow_by(&defined).unwrap_err().to_string();
            assert!(
                e.contains(&format!("`{key}`")) && e.contains("/u/config.toml"),
                "{e}"
            );
        }
        let c = config(USER);
        let e = c.composition("nope").unwrap_err().to_string();
        assert!(e.contains("no composition `nope`"), "{e}");
    }

    #[test]
    fn an_unknown_key_in_a_composition_is_an_error_naming_it() {
        let e = Config::parse(
            Path::new("/u/config.toml"),
            "[compositions.x]\ntoolz = []\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("toolz"), "{e}");
    }

    #[test]
    fn a_package_composition_is_namespaced_and_a_bad_one_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let good = root.join("reader.toml");
        std::fs::write(&good, "persona = \"P\"\ntools = [\"read_file\"]\n").unwrap();
        let d = super::read_package_file("kit", &root, &good).unwrap();
        assert_eq!(d.name, "kit:reader");
        assert_eq!(
            d.file.tools.as_deref(),
            Some(&["read_file".to_string()][..])
        );
        let bad = root.join("loose.toml");
        std::fs::write(&bad, "persona = \"P\"\nallow_everything = true\n").unwrap();
        let e = super::read_package_file("kit", &root, &bad).unwrap_err();
        assert!(
            e.contains("loose.toml") && e.contains("allow_everything") && e.contains("line 2"),
            "{e}"
        );
        // A file linking out of the package is not read.
        let outside = tempfile::tempdir().unwrap();
        let link = root.join("linked.toml");
        std::fs::write(outside.path().join("x.toml"), "persona = \"P\"\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("x.toml"), &link).unwrap();
        let e = super::read_package_file("kit", &root, &link).unwrap_err();
        assert!(e.contains("leads out of"), "{e}");
    }
}
