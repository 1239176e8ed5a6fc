//! The second pass over a config file that serde has accepted: keys this build does not know
//! (warnings naming the file, the line and the key) and values serde cannot check (permission
//! rules). Keys and sections of the original Reasonix (Reasonix-Go) that this build does not
//! implement yet are valid configuration, but never silently dropped: one warning per file lists
//! them all (`ignored: [lsp] (line 3), [browser] (line 7) — not supported yet`), and each
//! `[[plugins]]` MCP server gets its own warning that it is not loaded.

use crate::error::StateError;
use reasonix_rules::rule::Rule;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Top-level keys this build reads.
const TOP: &[&str] = &[
    "default_model",
    "providers",
    "sandbox",
    "tools",
    "plugin",
    "agent",
    "permissions",
    "plugins",
    "mcp",
    "skills",
    "compositions",
    "lsp",
    "language",
];
/// Top-level keys and sections of the original Reasonix, not read here yet. Their contents are
/// not inspected; [`check`] names them in the file's `ignored:` warning.
const TOP_ORIGINAL: &[&str] = &[
    "browser",
    "config_version",
    "credentials_store",
    "ui",
    "desktop",
    "billing",
    "notifications",
    "environment",
    "statusline",
    "secrets",
    "bot",
    "serve",
    "remote",
    // Written by the original's own setup: not spelling mistakes.
    "network",
    "vision_models",
];

/// A section whose keys are checked: the keys read here, then the original's keys accepted as
/// they are.
struct Section {
    name: &'static str,
    ours: &'static [&'static str],
    original: &'static [&'static str],
}

const SECTIONS: &[Section] = &[
    Section {
        name: "skills",
        ours: &[
            "paths",
            "excluded_paths",
            "disabled_skills",
            "disable_implicit_invocation",
            "suppress_warnings",
        ],
        original: &[],
    },
    Section {
        name: "agent",
        ours: &[
            "system_prompt",
            "system_prompt_file",
            "temperature",
            "max_output_tokens",
            "max_steps",
            "tool_result_snip_ratio",
            "compact_ratio",
            "compact_force_ratio",
            "accept_cut_off_answer",
            "run_timeout",
            "subagent_model",
            "subagent_effort",
            "subagent_models",
            "subagent_efforts",
            "max_parallel_writers",
            "max_subagent_concurrency",
            "max_subagent_depth",
            "mode",
            "planner_model",
            "reasoning_language",
        ],
        original: &[
            "recovery_model",
            "output_style",
            "goal_token_budget",
            "task_cost_budget",
            "task_time_budget_minutes",
            "plan_mode_read_only_commands",
            // Retired in the original, still parseable there.
            "planner_max_steps",
            "auto_plan",
        ],
    },
    Section {
        name: "tools",
        ours: &[
            "enabled",
            "bash_timeout_seconds",
            "mcp_startup_timeout_seconds",
            "mcp_call_timeout_seconds",
            "mcp_schema_budget",
        ],
        original: &[
            "protect_changed_files",
            "browser_tools",
            "background_jobs",
            "shell",
            "search",
            "system_one",
        ],
    },
    Section {
        name: "sandbox",
        ours: &[
            "workspace_root",
            "allow_write",
            "forbid_read",
            "bash",
            "network",
        ],
        original: &[],
    },
    Section {
        name: "lsp",
        ours: &[
            "enabled",
            "startup_timeout",
            "request_timeout",
            "rust_build_scripts",
            "sandbox",
            "servers",
        ],
        original: &[],
    },
    Section {
        name: "permissions",
        ours: &["mode", "allow", "ask", "deny", "allow_dynamic_bash"],
        original: &[],
    },
];

/// Warnings for unknown keys, sorted by line; an error for a permission rule that does not
/// parse. `text` has already been deserialized successfully.
pub(super) fn check(path: &Path, text: &str) -> Result<Checked, StateError> {
    let Ok(doc) = DeTable::parse(text) else {
        // serde accepted the text, so this does not happen; nothing more to say if it does.
        return Ok(Checked::default());
    };
    let file = path.display();
    let mut found: Vec<(usize, String)> = Vec::new();
    // The original's keys this build does not read: (line, `[section]` or `key`).
    let mut ignored: Vec<(usize, String)> = Vec::new();
    let known_top: Vec<&str> = TOP.iter().chain(TOP_ORIGINAL).copied().collect();
    for (key, value) in doc.get_ref().iter() {
        let name = key.get_ref().as_ref();
        let line = line_col(text, key.span().start).0;
        if TOP_ORIGINAL.contains(&name) {
            match (name, value.get_ref()) {
                (_, DeValue::Table(_)) => ignored.push((line, format!("[{name}]"))),
                (_, DeValue::Array(items))
                    if !items.is_empty()
                        && items
                            .iter()
                            .all(|i| matches!(i.get_ref(), DeValue::Table(_))) =>
                {
                    ignored.push((line, format!("[[{name}]]")));
                }
                _ => ignored.push((line, format!("`{name}`"))),
            }
            continue;
        }
        if known_top.contains(&name) {
            continue;
        }
        let message = match value.get_ref() {
            DeValue::Table(_) => format!(
                "{file}:{line}: unknown section `[{name}]` is ignored{}",
                suggest(name, &known_top, true)
            ),
            _ => format!(
                "{file}:{line}: unknown key `{name}` is ignored{}",
                suggest(name, &known_top, false)
            ),
        };
        found.push((line, message));
    }
    for section in SECTIONS {
        let Some(table) = doc
            .get_ref()
            .get(section.name)
            .and_then(|v| v.get_ref().as_table())
        else {
            continue;
        };
        let known: Vec<&str> = section
            .ours
            .iter()
            .chain(section.original)
            .copied()
            .collect();
        for key in table.keys() {
            let name = key.get_ref().as_ref();
            let line = line_col(text, key.span().start).0;
            if section.original.contains(&name) {
                ignored.push((line, format!("`{}.{name}`", section.name)));
                continue;
            }
            if known.contains(&name) {
                continue;
            }
            found.push((
                line,
                format!(
                    "{file}:{line}: unknown key `{name}` in [{}] is ignored{}",
                    section.name,
                    suggest(name, section.ours, false)
                ),
            ));
        }
    }
    if let Some(permissions) = doc
        .get_ref()
        .get("permissions")
        .and_then(|v| v.get_ref().as_table())
    {
        check_rules(path, text, permissions)?;
    }
    let mut original = None;
    if !ignored.is_empty() {
        ignored.sort_by_key(|(line, _)| *line);
        let first = ignored[0].0;
        let list = ignored
            .iter()
            .map(|(line, what)| format!("{what} (line {line})"))
            .collect::<Vec<_>>()
            .join(", ");
        let message = format!(
            "{file}: ignored: {list} — not supported yet (settings of the original Reasonix; docs/CONFIG.md lists what this build reads)"
        );
        original = Some(message.clone());
        found.push((first, message));
    }
    found.sort_by_key(|(line, _)| *line);
    Ok(Checked {
        warnings: found.into_iter().map(|(_, m)| m).collect(),
        original,
    })
}

/// What [`check`] found.
#[derive(Debug, Default)]
pub(super) struct Checked {
    /// Every warning, sorted by line.
    pub warnings: Vec<String>,
    /// The one naming the original Reasonix's keys this build ignores (also in `warnings`):
    /// the same file says the same thing on every start, so it is shown once per content.
    pub original: Option<String>,
}

/// Every rule of `allow`, `ask` and `deny` must parse: an error names the line, the list and the
/// index, and says what is wrong with the rule.
fn check_rules(path: &Path, text: &str, permissions: &DeTable<'_>) -> Result<(), StateError> {
    for list in ["allow", "ask", "deny"] {
        let Some(items) = permissions.get(list).and_then(|v| v.get_ref().as_array()) else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let Some(rule) = item.get_ref().as_str() else {
                continue;
            };
            if let Err(e) = Rule::parse(rule) {
                let (line, column) = line_col(text, item.span().start);
                return Err(StateError::Format {
                    path: path.to_path_buf(),
                    message: format!(
                        "line {line}, column {column}: permissions.{list}[{i}]: {e}. See docs/CONFIG.md (\"[permissions]\") for the rule syntax."
                    ),
                });
            }
        }
    }
    Ok(())
}

/// 1-based line and column of a byte offset.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

/// ` (did you mean `x`?)` for the closest known key within a small edit distance.
fn suggest(name: &str, known: &[&str], section: bool) -> String {
    let limit = (name.chars().count() / 3).clamp(1, 3);
    known
        .iter()
        .map(|k| (edit_distance(name, k), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| {
            if section {
                format!(" (did you mean `[{k}]`?)")
            } else {
                format!(" (did you mean `{k}`?)")
            }
        })
        .unwrap_or_else(|| " (check the spelling; see docs/CONFIG.md)".to_string())
}

/// Levenshtein distance with adjacent transpositions counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(prev2[j - 2] + 1);
            }
        }
        prev2 = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

/// The span of a spanned value as `line L, column C` (for messages about values).
pub(super) fn describe_at<T>(text: &str, value: &Spanned<T>) -> String {
    let (line, column) = line_col(text, value.span().start);
    format!("line {line}, column {column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_transpositions_once() {
        assert_eq!(edit_distance("max_stpes", "max_steps"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("agent", "agent"), 0);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn line_col_is_one_based_and_safe_inside_a_character() {
        let text = "a\nbé\nc";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 2), (2, 1));
        assert_eq!(line_col(text, 4), (2, 2)); // inside `é`: moved back to its start
        assert_eq!(line_col(text, 99), (3, 2));
    }
}
