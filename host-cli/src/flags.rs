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
        Posture::Plan => "plan",
    }
}

/// The values a list flag (`--allowed-tools`, `--disallowed-tools`) really took. clap gives
/// the flag every argument up to the next flag; like Claude Code's list flags, it keeps them
/// while each is a rule list (comma- or space-separated) whose every rule names a known tool
/// or a tool family (`Bash`, `Edit`, `Read`, `WebFetch` …). The first value that is not, and
/// every value after it, goes back to the task, in order. The first value is always kept, so
/// a bad rule right after the flag is reported, not run as the task.
pub fn rule_values(values: &[String], known: &[String], task: &mut Vec<String>) -> Vec<String> {
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

fn split_rules(values: &[String]) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Code;

    #[test]
    fn rules_split_outside_parentheses() {
        let values = vec![
            "Edit, Bash(npm run build)".to_string(),
            "Bash(go test:*) web_fetch".to_string(),
        ];
        assert_eq!(
            split_rules(&values),
            [
                "Edit",
                "Bash(npm run build)",
                "Bash(go test:*)",
                "web_fetch"
            ]
        );
        assert!(split_rules(&[" , ".to_string()]).is_empty());
    }

    #[test]
    fn bad_rules_are_usage_errors() {
        let err = parse_rule_values("--allowed-tools", &["Bash(".to_string()]).unwrap_err();
        assert_eq!(err.exit_code(), Code::Usage);
        assert!(err.to_string().contains("--allowed-tools"), "{err}");
    }

    #[test]
    fn list_flags_give_back_what_is_not_a_rule() {
        let known = vec!["read_file".to_string(), "bash".to_string()];
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut task = Vec::new();
        let kept = rule_values(
            &strings(&[
                "Bash(git status:*)",
                "Edit",
                "read_file, WebFetch",
                "fix the bug",
                "Edit",
            ]),
            &known,
            &mut task,
        );
        assert_eq!(
            kept,
            strings(&["Bash(git status:*)", "Edit", "read_file, WebFetch"])
        );
        // Everything from the first non-rule on is the task, in order.
        assert_eq!(task, strings(&["fix the bug", "Edit"]));

        // A one-word task that is not a tool name; an unknown lowercase name is not a rule.
        let mut task = strings(&["before"]);
        let kept = rule_values(
            &strings(&["Edit", "refactor", "grep_all"]),
            &known,
            &mut task,
        );
        assert_eq!(kept, strings(&["Edit"]));
        assert_eq!(task, strings(&["before", "refactor", "grep_all"]));

        // The first value stays with the flag even when it is not a rule (reported as bad).
        let mut task = Vec::new();
        let kept = rule_values(&strings(&["Bash("]), &known, &mut task);
        assert_eq!(kept, strings(&["Bash("]));
        assert!(task.is_empty());
        assert!(!is_rule_list("", &known));
        assert!(!is_rule_list("Bash(", &known));
        assert!(is_rule_list("mcp__git", &known));
    }

    #[test]
    fn mode_names_parse_back() {
        for posture in [
            Posture::Ask,
            Posture::AcceptEdits,
            Posture::Auto,
            Posture::DontAsk,
            Posture::Yolo,
            Posture::Plan,
        ] {
            assert_eq!(Posture::parse(mode_name(posture)), Ok(posture));
        }
    }
}
