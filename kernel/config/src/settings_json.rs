//! One `settings.json` file, as Claude Code writes it (`~/.claude/settings.json`,
//! `.claude/settings.json`, `.claude/settings.local.json`) or as Reasonix reads its own
//! (`<home>/settings.json`, `.reasonix/settings.json`): the `hooks` and `permissions` keys.
//! Every other key (`env`, `model`, `statusLine` …) belongs to Claude Code and is ignored.
//!
//! Hooks come in two shapes, both accepted in every file:
//! - Claude Code's: `{"matcher": "Bash", "hooks": [{"type": "command", "command": "…",
//!   "timeout": 30}]}`, `timeout` in **seconds**;
//! - Reasonix's own flat entry: `{"match": "bash", "command": "…", "timeout": 5000, "cwd",
//!   "env", "description"}`, `timeout` in **milliseconds**.
//!
//! A value of the wrong type is an error naming the file, the line and the key; what this
//! build does not implement (a hook `type` other than `command`, an unknown event, a
//! `defaultMode` with no equivalent) is a warning and skipped.

use std::collections::BTreeMap;
use std::path::Path;

/// The hook events Claude Code defines (and the original Reasonix), in the order of a session.
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "Stop",
    "StopFailure",
    "SessionEnd",
];

/// The longest timeout a hook may ask for: ten minutes.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// How a hook's matcher is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatcherStyle {
    /// Claude Code's `matcher`: a regex or `A|B` list over Claude's tool names (`Bash`,
    /// `Edit` …), which the hooks component maps to this build's tools.
    Claude,
    /// Reasonix's `match`: an anchored regex over this build's tool names.
    Reasonix,
}

/// One hook as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookDef {
    pub event: String,
    /// `None`, `""` or `"*"`: every tool.
    pub matcher: Option<String>,
    pub style: MatcherStyle,
    pub command: String,
    /// As written, converted to milliseconds.
    pub timeout_ms: Option<u64>,
    pub cwd: Option<String>,
    pub env: BTreeMap<String, String>,
    pub description: Option<String>,
    /// Claude Code's `if`: a permission rule the tool call must match (checked at load).
    pub condition: Option<String>,
    /// 1-based line of the hook's command in the file.
    pub line: usize,
}

/// The `permissions` key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsPermissions {
    pub allow: Vec<String>,
    pub ask: Vec<String>,
    pub deny: Vec<String>,
    pub additional_directories: Vec<String>,
    /// The Reasonix fallback mode `defaultMode` maps to (`ask`, `allow`, `deny`), with the line.
    pub mode: Option<(String, usize)>,
}

/// What one file says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsDoc {
    pub hooks: Vec<HookDef>,
    /// `"disableAllHooks": true`, at this line.
    pub disable_all_hooks: Option<usize>,
    pub permissions: SettingsPermissions,
    pub warnings: Vec<String>,
}

/// A file that cannot be read as settings: `file:line: key: what is wrong`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {key}: {message}")]
pub struct SettingsError {
    pub file: String,
    pub line: usize,
    pub key: String,
    pub message: String,
}

use serde_json::Value;

struct Reader<'a> {
    file: String,
    text: &'a str,
    warnings: Vec<String>,
}

impl Reader<'_> {
    fn error(&self, line: usize, key: &str, message: impl Into<String>) -> SettingsError {
        SettingsError {
            file: self.file.clone(),
            line,
            key: key.to_string(),
            message: message.into(),
        }
    }

    fn warn(&mut self, line: usize, key: &str, message: &str) {
        self.warnings
            .push(format!("{}:{line}: {key}: {message}", self.file));
    }

    /// The line of the first `"name"` key at or after `from` (1-based), else `from`.
    fn line_of(&self, name: &str, from: usize) -> usize {
        let needle = format!("\"{name}\"");
        self.text
            .lines()
            .enumerate()
            .skip(from.saturating_sub(1))
            .find(|(_, l)| l.contains(&needle))
            .map_or(from.max(1), |(i, _)| i + 1)
    }

    fn string(&self, value: &Value, line: usize, key: &str) -> Result<String, SettingsError> {
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| self.error(line, key, format!("must be a string, not {}", kind(value))))
    }

    fn strings(&self, value: &Value, line: usize, key: &str) -> Result<Vec<String>, SettingsError> {
        let Some(list) = value.as_array() else {
            return Err(self.error(
                line,
                key,
                format!("must be a list of strings, not {}", kind(value)),
            ));
        };
        list.iter()
            .enumerate()
            .map(|(i, v)| self.string(v, line, &format!("{key}[{i}]")))
            .collect()
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Parse one settings file.
pub fn parse(path: &Path, text: &str) -> Result<SettingsDoc, SettingsError> {
    let mut r = Reader {
        file: path.display().to_string(),
        text,
        warnings: Vec::new(),
    };
    let root: Value = serde_json::from_str(text).map_err(|e| {
        r.error(
            e.line().max(1),
            "(file)",
            format!("not valid JSON: {e} (column {})", e.column()),
        )
    })?;
    let Some(root) = root.as_object() else {
        return Err(r.error(1, "(file)", "must be a JSON object"));
    };
    let mut doc = SettingsDoc::default();
    match root.get("disableAllHooks") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => doc.disable_all_hooks = Some(r.line_of("disableAllHooks", 1)),
        Some(other) => {
            return Err(r.error(
                r.line_of("disableAllHooks", 1),
                "disableAllHooks",
                format!("must be true or false, not {}", kind(other)),
            ));
        }
    }
    if let Some(hooks) = root.get("hooks") {
        doc.hooks = parse_hooks(&mut r, hooks)?;
    }
    if let Some(permissions) = root.get("permissions") {
        doc.permissions = parse_permissions(&mut r, permissions)?;
    }
    doc.warnings = r.warnings;
    Ok(doc)
}

fn parse_hooks(r: &mut Reader<'_>, hooks: &Value) -> Result<Vec<HookDef>, SettingsError> {
    let line = r.line_of("hooks", 1);
    let Some(events) = hooks.as_object() else {
        return Err(r.error(
            line,
            "hooks",
            format!(
                "must be an object of events (\"PreToolUse\": […]), not {}",
                kind(hooks)
            ),
        ));
    };
    let mut out = Vec::new();
    for (event, entries) in events {
        let event_line = r.line_of(event, line);
        let key = format!("hooks.{event}");
        if !EVENTS.contains(&event.as_str()) {
            r.warn(
                event_line,
                &key,
                &format!("unknown hook event, ignored (known: {})", EVENTS.join(", ")),
            );
            continue;
        }
        let Some(entries) = entries.as_array() else {
            return Err(r.error(
                event_line,
                &key,
                format!("must be a list of hook groups, not {}", kind(entries)),
            ));
        };
        let mut cursor = event_line;
        for (i, entry) in entries.iter().enumerate() {
            let key = format!("{key}[{i}]");
            let Some(entry) = entry.as_object() else {
                return Err(r.error(
                    cursor,
                    &key,
                    format!("must be an object, not {}", kind(entry)),
                ));
            };
            if let Some(inner) = entry.get("hooks") {
                // Claude Code's group: a matcher and its commands.
                warn_unknown(r, entry, GROUP_KEYS, &key, cursor);
                let matcher = match entry.get("matcher") {
                    None | Some(Value::Null) => None,
                    Some(m) => Some(r.string(m, cursor, &format!("{key}.matcher"))?),
                };
                let Some(inner) = inner.as_array() else {
                    return Err(r.error(
                        cursor,
                        &format!("{key}.hooks"),
                        format!("must be a list of hooks, not {}", kind(inner)),
                    ));
                };
                for (j, hook) in inner.iter().enumerate() {
                    let key = format!("{key}.hooks[{j}]");
                    // Its line: that of its `command` (or, without one, of its first key).
                    let anchor = match hook.as_object() {
                        Some(h) if !h.contains_key("command") => {
                            h.keys().next().map_or("command", String::as_str)
                        }
                        _ => "command",
                    };
                    let hook_line = r.line_of(anchor, cursor);
                    let Some(hook) = hook.as_object() else {
                        return Err(r.error(
                            hook_line,
                            &key,
                            format!("must be an object, not {}", kind(hook)),
                        ));
                    };
                    let kind_of = match hook.get("type") {
                        None => "command".to_string(),
                        Some(t) => r.string(t, hook_line, &format!("{key}.type"))?,
                    };
                    if kind_of != "command" {
                        r.warn(
                            hook_line,
                            &format!("{key}.type"),
                            &format!(
                                "hooks of type `{kind_of}` are not supported by Reasonix, skipped (only `command`)"
                            ),
                        );
                        cursor = hook_line + 1;
                        continue;
                    }
                    warn_unknown(r, hook, HOOK_KEYS, &key, hook_line);
                    let def = command_hook(r, event, hook, &key, hook_line, 1000)?;
                    warn_condition_off_tool_events(r, &def, &key);
                    out.push(HookDef {
                        matcher: matcher.clone(),
                        style: MatcherStyle::Claude,
                        ..def
                    });
                    cursor = hook_line + 1;
                }
            } else {
                // Reasonix's flat entry.
                let hook_line = r.line_of("command", cursor);
                let matcher = match entry.get("match") {
                    None | Some(Value::Null) => None,
                    Some(m) => Some(r.string(m, hook_line, &format!("{key}.match"))?),
                };
                let def = command_hook(r, event, entry, &key, hook_line, 1)?;
                warn_condition_off_tool_events(r, &def, &key);
                out.push(HookDef {
                    matcher,
                    style: MatcherStyle::Reasonix,
                    ..def
                });
                cursor = hook_line + 1;
            }
        }
    }
    Ok(out)
}

/// Keys of a Claude Code hook group that Reasonix reads.
const GROUP_KEYS: &[&str] = &["matcher", "hooks"];
/// Keys of one Claude Code hook that Reasonix reads.
const HOOK_KEYS: &[&str] = &[
    "type",
    "command",
    "timeout",
    "cwd",
    "env",
    "description",
    "if",
];

/// A key Reasonix does not read may change what runs or when (`async`): said, naming the
/// file, line and key, instead of ignored.
fn warn_unknown(
    r: &mut Reader<'_>,
    object: &serde_json::Map<String, Value>,
    known: &[&str],
    key: &str,
    from: usize,
) {
    for name in object.keys().filter(|k| !known.contains(&k.as_str())) {
        let line = r.line_of(name, from);
        let what = match name.as_str() {
            "async" => {
                "background hooks are not supported yet: this hook runs before the call and can block it"
            }
            "statusMessage" => "not shown by Reasonix (ignored)",
            _ => "unknown key, ignored",
        };
        r.warn(line, &format!("{key}.{name}"), what);
    }
}

/// Events whose subject is a tool call: the only ones where `if` is evaluated.
const TOOL_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
];

/// As in Claude Code, a hook with `if` at an event that is not about a tool call never runs:
/// said, so the user is not left wondering.
fn warn_condition_off_tool_events(r: &mut Reader<'_>, def: &HookDef, key: &str) {
    if def.condition.is_some() && !TOOL_EVENTS.contains(&def.event.as_str()) {
        let line = r.line_of("if", def.line);
        r.warn(
            line,
            &format!("{key}.if"),
            &format!(
                "`if` is evaluated only at tool events ({}); at `{}` this hook never runs",
                TOOL_EVENTS.join(", "),
                def.event
            ),
        );
    }
}

/// The command, timeout (`unit_ms` milliseconds per unit), cwd, env and description of one hook.
fn command_hook(
    r: &Reader<'_>,
    event: &str,
    hook: &serde_json::Map<String, Value>,
    key: &str,
    line: usize,
    unit_ms: u64,
) -> Result<HookDef, SettingsError> {
    let command = match hook.get("command") {
        Some(c) => r.string(c, line, &format!("{key}.command"))?,
        None => return Err(r.error(line, key, "has no `command`")),
    };
    if command.trim().is_empty() {
        return Err(r.error(line, &format!("{key}.command"), "is empty"));
    }
    let timeout_ms = match hook.get("timeout") {
        None | Some(Value::Null) => None,
        Some(t) => {
            let unit = if unit_ms == 1 {
                "milliseconds"
            } else {
                "seconds"
            };
            let n = t
                .as_f64()
                .filter(|n| n.is_finite() && *n > 0.0)
                .ok_or_else(|| {
                    r.error(
                        line,
                        &format!("{key}.timeout"),
                        format!("must be a positive number of {unit}, not {t}"),
                    )
                })?;
            // Saturating float-to-int conversion, then the cap.
            let ms = (n * unit_ms as f64).ceil() as u64;
            Some(ms.clamp(1, MAX_TIMEOUT_MS))
        }
    };
    let cwd = match hook.get("cwd") {
        None | Some(Value::Null) => None,
        Some(c) => Some(r.string(c, line, &format!("{key}.cwd"))?),
    };
    let description = match hook.get("description") {
        None | Some(Value::Null) => None,
        Some(d) => Some(r.string(d, line, &format!("{key}.description"))?),
    };
    let condition = match hook.get("if") {
        None | Some(Value::Null) => None,
        Some(c) => {
            let at = r.line_of("if", line);
            let key = format!("{key}.if");
            let rule = r.string(c, at, &key)?;
            if let Err(e) = reasonix_rules::rule::Rule::parse(&rule) {
                return Err(r.error(
                    at,
                    &key,
                    format!(
                        "is not a permission rule ({}), so it cannot say when this hook runs",
                        e.reason
                    ),
                ));
            }
            Some(rule)
        }
    };
    let mut env = BTreeMap::new();
    if let Some(vars) = hook.get("env") {
        let Some(vars) = vars.as_object() else {
            return Err(r.error(
                line,
                &format!("{key}.env"),
                format!("must be an object of strings, not {}", kind(vars)),
            ));
        };
        for (name, value) in vars {
            env.insert(
                name.clone(),
                r.string(value, line, &format!("{key}.env.{name}"))?,
            );
        }
    }
    Ok(HookDef {
        event: event.to_string(),
        matcher: None,
        style: MatcherStyle::Claude,
        command,
        timeout_ms,
        cwd,
        env,
        description,
        condition,
        line,
    })
}

fn parse_permissions(
    r: &mut Reader<'_>,
    permissions: &Value,
) -> Result<SettingsPermissions, SettingsError> {
    let line = r.line_of("permissions", 1);
    let Some(map) = permissions.as_object() else {
        return Err(r.error(
            line,
            "permissions",
            format!("must be an object, not {}", kind(permissions)),
        ));
    };
    let mut out = SettingsPermissions::default();
    for (name, value) in map {
        let at = r.line_of(name, line);
        let key = format!("permissions.{name}");
        match name.as_str() {
            "allow" => out.allow = r.strings(value, at, &key)?,
            "ask" => out.ask = r.strings(value, at, &key)?,
            "deny" => out.deny = r.strings(value, at, &key)?,
            "additionalDirectories" => out.additional_directories = r.strings(value, at, &key)?,
            "defaultMode" => {
                let mode = r.string(value, at, &key)?;
                match mode.as_str() {
                    "default" => out.mode = Some(("ask".into(), at)),
                    "bypassPermissions" => out.mode = Some(("allow".into(), at)),
                    "dontAsk" => out.mode = Some(("deny".into(), at)),
                    other => r.warn(
                        at,
                        &key,
                        &format!(
                            "`{other}` has no Reasonix equivalent and is ignored (mapped: default = ask, bypassPermissions = allow, dontAsk = deny)"
                        ),
                    ),
                }
            }
            _ => r.warn(at, &key, "not read by Reasonix, ignored"),
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(text: &str) -> Result<SettingsDoc, SettingsError> {
        parse(Path::new("/p/.claude/settings.json"), text)
    }

    #[test]
    fn claude_and_reasonix_hook_shapes() {
        let doc = p(r#"{
  "model": "x",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash|Edit",
        "hooks": [
          { "type": "command", "command": "guard.sh", "timeout": 30 },
          { "type": "prompt", "prompt": "x" }
        ]
      },
      { "match": "bash", "command": "native.sh", "timeout": 5000, "env": {"K": "V"} }
    ],
    "SessionStart": [ { "hooks": [ { "command": "echo hi" } ] } ]
  }
}"#)
        .unwrap();
        assert_eq!(doc.hooks.len(), 3);
        let h = &doc.hooks[0];
        assert_eq!(
            (h.event.as_str(), h.matcher.as_deref(), h.timeout_ms, h.line),
            ("PreToolUse", Some("Bash|Edit"), Some(30_000), 8)
        );
        assert_eq!(h.style, MatcherStyle::Claude);
        let native = &doc.hooks[1];
        assert_eq!(native.style, MatcherStyle::Reasonix);
        assert_eq!(native.timeout_ms, Some(5000));
        assert_eq!(native.env.get("K").map(String::as_str), Some("V"));
        assert_eq!(native.line, 12);
        assert_eq!(doc.hooks[2].event, "SessionStart");
        assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
        assert!(doc.warnings[0].contains("type `prompt`"));
    }

    #[test]
    fn wrong_types_name_file_line_and_key() {
        let err = p("{\n \"hooks\": {\n  \"PreToolUse\": [ { \"hooks\": [ { \"command\": \"x\", \"timeout\": \"5\" } ] } ]\n }\n}")
            .unwrap_err();
        assert_eq!(err.line, 3);
        assert_eq!(err.key, "hooks.PreToolUse[0].hooks[0].timeout");
        assert!(
            err.to_string().starts_with("/p/.claude/settings.json:3: "),
            "{err}"
        );
        let err = p("{\"permissions\": {\"deny\": \"Bash\"}}").unwrap_err();
        assert_eq!(err.key, "permissions.deny");
        let err = p("{\n\n  \"hooks\": [1,").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.message.contains("not valid JSON"));
    }

    #[test]
    fn disable_all_hooks_and_keys_that_are_not_read() {
        let doc = p("{\n  \"disableAllHooks\": true\n}").unwrap();
        assert_eq!(doc.disable_all_hooks, Some(2));
        assert_eq!(
            p(r#"{"disableAllHooks": false}"#)
                .unwrap()
                .disable_all_hooks,
            None
        );
        let err = p(r#"{"disableAllHooks": "yes"}"#).unwrap_err();
        assert_eq!(err.key, "disableAllHooks");
        assert!(err.message.contains("true or false"), "{err}");

        let doc = p(r#"{"hooks": {"PreToolUse": [{
  "matcher": "Bash",
  "when": "always",
  "hooks": [{
    "type": "command",
    "command": "./check.sh",
    "if": "Bash(git commit*)",
    "async": true
  }]
}]}}"#)
        .unwrap();
        assert_eq!(doc.hooks.len(), 1, "the hook is still read");
        let warnings = doc.warnings.join("\n");
        assert!(
            warnings.contains("settings.json:3: hooks.PreToolUse[0].when: unknown key"),
            "{warnings}"
        );
        assert_eq!(
            doc.hooks[0].condition.as_deref(),
            Some("Bash(git commit*)"),
            "`if` is read"
        );
        assert!(!warnings.contains(".if"), "{warnings}");
        assert!(
            warnings.contains("settings.json:8: hooks.PreToolUse[0].hooks[0].async:"),
            "{warnings}"
        );
    }

    #[test]
    fn an_if_that_is_not_a_rule_is_an_error_and_off_tool_events_a_warning() {
        let err = p(r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command",
   "command": "./check.sh",
   "if": "Bash(git commit*"}
]}]}}"#)
        .unwrap_err();
        assert_eq!(err.key, "hooks.PreToolUse[0].hooks[0].if");
        assert_eq!(err.line, 4);
        assert!(err.message.contains("not a permission rule"), "{err}");
        let err = p(r#"{"hooks": {"PreToolUse": [{"hooks": [{"command": "x", "if": 3}]}]}}"#)
            .unwrap_err();
        assert_eq!(err.key, "hooks.PreToolUse[0].hooks[0].if");
        let doc =
            p(r#"{"hooks": {"Stop": [{"hooks": [{"command": "x", "if": "Bash"}]}]}}"#).unwrap();
        assert_eq!(doc.hooks.len(), 1);
        assert!(
            doc.warnings[0].contains("at `Stop` this hook never runs"),
            "{:?}",
            doc.warnings
        );
    }

    #[test]
    fn permissions_and_modes() {
        let doc = p(
            r#"{"permissions": {"allow": ["Bash(ls:*)"], "deny": ["Bash(rm:*)"], "ask": ["Edit"],
            "additionalDirectories": ["../lib"], "defaultMode": "bypassPermissions", "other": 1}}"#,
        )
        .unwrap();
        assert_eq!(doc.permissions.deny, vec!["Bash(rm:*)"]);
        assert_eq!(
            doc.permissions.mode.as_ref().map(|m| m.0.as_str()),
            Some("allow")
        );
        assert_eq!(doc.permissions.additional_directories, vec!["../lib"]);
        assert_eq!(doc.warnings.len(), 1);
        let doc = p(r#"{"permissions": {"defaultMode": "plan"}}"#).unwrap();
        assert_eq!(doc.permissions.mode, None);
        assert!(doc.warnings[0].contains("`plan` has no Reasonix equivalent"));
    }

    #[test]
    fn unknown_events_warn_and_timeouts_are_capped() {
        let doc = p(
            r#"{"hooks": {"Bogus": [], "Stop": [{"hooks": [{"command": "x", "timeout": 1e30}]}]}}"#,
        )
        .unwrap();
        assert_eq!(doc.hooks[0].timeout_ms, Some(MAX_TIMEOUT_MS));
        assert!(doc.warnings[0].contains("unknown hook event"));
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(Value::from),
            "[a-zA-Z|*. ]{0,8}".prop_map(Value::String),
            prop::sample::select(vec![
                "PreToolUse",
                "hooks",
                "command",
                "matcher",
                "timeout",
                "allow",
                "deny",
                "defaultMode",
                "type"
            ])
            .prop_map(|s| Value::String(s.to_string())),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            let key = prop::sample::select(vec![
                "hooks",
                "PreToolUse",
                "SessionStart",
                "matcher",
                "match",
                "command",
                "timeout",
                "type",
                "env",
                "cwd",
                "permissions",
                "allow",
                "deny",
                "ask",
                "defaultMode",
                "additionalDirectories",
                "x",
            ]);
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(key, inner, 0..4).prop_map(|m| {
                    Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                }),
            ]
        })
    }

    /// Documents shaped like settings files, with wrong types and odd values mixed in.
    fn settings_doc() -> impl Strategy<Value = Value> {
        let text = "[a-zA-Z|*. ]{0,8}".prop_map(Value::String);
        let scalar = prop_oneof![
            text.clone(),
            any::<i32>().prop_map(Value::from),
            (-1e6f64..1e12).prop_map(Value::from),
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
        ];
        let field = prop_oneof![
            3 => scalar.clone(),
            1 => json_value(),
        ];
        let command = prop_oneof![
            4 => "[a-z]{1,6}( [a-z]{1,4})?".prop_map(Value::String),
            1 => field.clone(),
        ];
        let hook = (
            command,
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "type",
                    "timeout",
                    "env",
                    "cwd",
                    "description",
                    "match",
                    "x",
                ]),
                prop_oneof![3 => Just(Value::Null), 1 => field.clone()],
                0..3,
            ),
        )
            .prop_map(|(command, m)| {
                let mut map: serde_json::Map<String, Value> =
                    m.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
                map.insert("command".into(), command);
                Value::Object(map)
            });
        let group = prop_oneof![
            (field.clone(), prop::collection::vec(hook.clone(), 0..3))
                .prop_map(|(m, hooks)| serde_json::json!({"matcher": m, "hooks": hooks})),
            hook.clone(),
            field.clone(),
        ];
        let event = prop::sample::select(vec![
            "PreToolUse",
            "SessionStart",
            "Stop",
            "Bogus",
            "Notification",
        ]);
        let hooks = prop_oneof![
            3 => prop::collection::btree_map(event, prop_oneof![3 => prop::collection::vec(group, 0..3).prop_map(Value::Array), 1 => field.clone()], 0..3)
                .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
            1 => field.clone(),
        ];
        let list = prop_oneof![
            3 => prop::collection::vec(prop_oneof![4 => text.clone(), 1 => scalar.clone()], 0..3).prop_map(Value::Array),
            1 => field.clone(),
        ];
        let permissions = prop::collection::btree_map(
            prop::sample::select(vec![
                "allow",
                "deny",
                "ask",
                "additionalDirectories",
                "defaultMode",
                "x",
            ]),
            list,
            0..4,
        )
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
        (
            prop::option::of(hooks),
            prop::option::of(permissions),
            prop::option::of(field),
        )
            .prop_map(|(h, p, other)| {
                let mut root = serde_json::Map::new();
                if let Some(h) = h {
                    root.insert("hooks".into(), h);
                }
                if let Some(p) = p {
                    root.insert("permissions".into(), p);
                }
                if let Some(o) = other {
                    root.insert("model".into(), o);
                }
                Value::Object(root)
            })
    }

    proptest! {
        #[test]
        fn settings_shaped_documents_parse_or_name_a_line_and_key(value in settings_doc()) {
            let text = serde_json::to_string_pretty(&value).unwrap();
            let lines = text.lines().count().max(1);
            match p(&text) {
                Ok(doc) => {
                    for h in &doc.hooks {
                        prop_assert!(!h.command.trim().is_empty());
                        prop_assert!(h.line >= 1 && h.line <= lines);
                        prop_assert!(text.lines().nth(h.line - 1).unwrap().contains("\"command\""));
                        prop_assert!(h.timeout_ms.is_none_or(|t| (1..=MAX_TIMEOUT_MS).contains(&t)));
                    }
                    for w in &doc.warnings {
                        prop_assert!(w.starts_with("/p/.claude/settings.json:"), "{}", w);
                    }
                }
                Err(e) => {
                    prop_assert!(e.line >= 1 && e.line <= lines, "{} in {} lines", e, lines);
                    prop_assert!(e.key.starts_with("hooks") || e.key.starts_with("permissions") || e.key == "(file)", "{}", e.key);
                }
            }
        }

        #[test]
        fn arbitrary_text_never_panics(text in ".{0,200}") {
            let _ = p(&text);
        }

        #[test]
        fn structured_input_parses_or_names_a_line_in_the_file(value in json_value()) {
            let text = serde_json::to_string_pretty(&value).unwrap();
            let lines = text.lines().count().max(1);
            match p(&text) {
                Ok(doc) => {
                    for h in &doc.hooks {
                        prop_assert!(!h.command.trim().is_empty());
                        prop_assert!(h.line >= 1 && h.line <= lines);
                        prop_assert!(h.timeout_ms.is_none_or(|t| (1..=MAX_TIMEOUT_MS).contains(&t)));
                    }
                }
                Err(e) => {
                    prop_assert!(e.line >= 1 && e.line <= lines, "{e} in {lines} lines");
                    prop_assert!(!e.key.is_empty());
                }
            }
        }
    }
}
