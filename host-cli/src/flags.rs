//! Flag values shared by `reasonix run` and the interactive session: permission modes and the
//! rule lists of `--allowed-tools` / `--disallowed-tools`.

use crate::exit::Failure;
use anyhow::anyhow;
use reasonix_agent::permissions::{Posture, Rule};

/// The `--permission-mode` spelling of a posture.
pub fn mode_name(posture: Posture) -> &'static str {
    match posture {
        Posture::Ask => "ask",
        Posture::AcceptEdits => "acceptEdits",
        Posture::Auto => "auto",
        Posture::DontAsk => "dontAsk",
        Posture::Yolo => "bypassPermissions",
    }
}

/// The values a list flag (`--allowed-tools`, `--disallowed-tools`) really took. clap gives
/// the flag every argument up to the next flag; like Claude Code's list flags, it keeps them
/// while each is a rule list (comma- or space-separated) whose every rule names a known tool
/// or a tool family (`Bash`, `Edit`, `Read`, `WebFetch` …). The first value that is not, and
/// every value after it, goes back to the task, in order. The first value is always kept, so
/// a bad rule right after the flag is reported, not run as the task.
pub fn rule_values(
    values: &[String],
    known: &[String],
    task: &mut Vec<String>,
) -> Vec<String> {
    let cut = values
        .iter()
        .enumerate()
        .position(|(i, v)| i > 0 && !is_rule_list(v, known))
        .unwrap_or(values.len());
    task.extend(values[cut..].iter().cloned());
    values[..cut].to_vec()
}

fn is_rule_list(value: &str, known: &[String]) -> bool {
    let rules = split_rules(std::slice::from_ref(&value.to_string()));
    !rules.is_empty()
        && rules
            .iter()
            .all(|r| Rule::parse(r).is_ok_and(|rule| rule.names_known_tool(known)))
}

/// Rules separated by commas or whitespace outside parentheses, so `Bash(npm run build), Edit`
/// is two rules.
pub fn parse_rule_values(flag: &str, values: &[String]) -> Result<Vec<Rule>, Failure> {
    split_rules(values)
        .iter()
        .map(|text| {
            Rule::parse(text).map_err(|e| {
                Failure::usage(anyhow!(
                    "{flag}: `{}`: {}; rules look like `Edit`, `Edit(src/**)`, `Bash(cargo test:*)` or `web_fetch`",
                    e.rule,
                    e.reason
                ))
            })
        })
        .collect()
}

pub(crate) fn split_rules(values: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for value in values {
        let mut depth = 0usize;
        let mut current = String::new();
        for c in value.chars() {
            match c {
                '(' => {
                    depth += 1;
                    current.push(c);
                }
                ')' => {
                    depth = depth.saturating_sub(1);
                    current.push(c);
                }
                c if depth == 0 && (c == ',' || c.is_whitespace()) => {
                    if !current.is_empty() {
                        out.push(std::mem::take(&mut current));
                    }
                }
                c => current.push(c),
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
    }
    out
}
