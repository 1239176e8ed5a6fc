//! What the permission rules need to know about a shell command line: whether it chains or
//! redirects (so a prefix grant cannot be stretched over a second command), its separate
//! commands (so a deny rule catches one hidden after `&&`), and whether it builds code at run
//! time (`$(…)`, `eval`, `sh -c`), which no prefix grant covers.
//!
//! Grants use the plain, conservative checks of this file. Deny rules also read the line the
//! way the shell would ([`lex`]), see through wrappers and inline shell code ([`unwrap`]) and
//! fail closed where that is not possible ([`deny`], [`glob`]).

mod deny;
mod glob;
mod lex;
mod unwrap;

pub use deny::{Pattern, may_run};

/// Operators that start another command, redirect, or substitute. Their presence anywhere
/// (even quoted — being conservative costs only a prompt) disqualifies a prefix or glob grant.
const OPERATORS: &[&str] = &[
    "&&", "||", ";", "|", "&", ">", "<", "`", "$(", "\n", "\r", "<(", ">(",
];

/// True when `command` contains any shell operator.
pub fn has_operators(command: &str) -> bool {
    OPERATORS.iter().any(|op| command.contains(op))
}

/// The simple commands of a command line, split at every operator and parenthesis, trimmed,
/// with runs of whitespace collapsed. Used for deny rules, which must match any part.
pub fn segments(command: &str) -> Vec<String> {
    let mut parts = vec![command.to_string()];
    for sep in [
        "&&", "||", "$(", "<(", ">(", ";", "|", "&", "`", "\n", "\r", "(", ")",
    ] {
        parts = parts
            .iter()
            .flat_map(|p| p.split(sep).map(str::to_string).collect::<Vec<_>>())
            .collect();
    }
    parts
        .iter()
        .map(|p| normalize(strip_redirections(p)))
        .filter(|p| !p.is_empty())
        .collect()
}

/// Drop `> file` / `< file` tails so `rm -rf x > log` still reads as `rm -rf x`.
fn strip_redirections(part: &str) -> &str {
    match part.find(['>', '<']) {
        Some(i) => &part[..i],
        None => part,
    }
}

/// Trim and collapse whitespace runs to one space.
pub fn normalize(command: &str) -> String {
    command.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Programs that run code given as an argument.
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("sh", &["-c"]),
    ("bash", &["-c"]),
    ("zsh", &["-c"]),
    ("dash", &["-c"]),
    ("fish", &["-c"]),
    ("python", &["-c"]),
    ("python3", &["-c"]),
    ("node", &["-e", "--eval", "-p"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("deno", &["eval"]),
];

/// True when the command builds and runs code at run time: command substitution, `eval`,
/// `source`, or an interpreter given inline code. Such commands are never covered by a prefix
/// or bare `Bash` grant in a headless run.
pub fn is_dynamic(command: &str) -> bool {
    if command.contains("$(") || command.contains('`') || command.contains("<(") {
        return true;
    }
    segments(command).iter().any(|segment| {
        let words: Vec<&str> = segment.split(' ').collect();
        // Skip `env VAR=x` / `VAR=x` prefixes and `sudo`, `exec`, `xargs`, `nohup`.
        let mut rest = words.as_slice();
        while let Some((first, tail)) = rest.split_first() {
            let wrapper = ["env", "sudo", "exec", "nohup", "xargs", "time", "command"]
                .contains(first)
                || (first.contains('=') && !first.starts_with('-'));
            if !wrapper {
                break;
            }
            rest = tail;
        }
        let Some((program, args)) = rest.split_first() else {
            return false;
        };
        let program = program.rsplit('/').next().unwrap_or(program);
        if ["eval", "source", "."].contains(&program) {
            return true;
        }
        INTERPRETERS
            .iter()
            .any(|(name, flags)| *name == program && args.iter().any(|a| flags.contains(a)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn operators_are_found() {
        for cmd in [
            "go test ./... && rm -rf x",
            "a || b",
            "a; b",
            "a | b",
            "a & b",
            "a > f",
            "a < f",
            "echo `id`",
            "echo $(id)",
            "a\nb",
        ] {
            assert!(has_operators(cmd), "{cmd}");
        }
        for cmd in [
            "go test ./...",
            "npm run build",
            "cargo test -- --nocapture",
        ] {
            assert!(!has_operators(cmd), "{cmd}");
        }
    }

    #[test]
    fn segments_split_every_command() {
        assert_eq!(
            segments("go test ./...  &&   rm -rf x > log; (cd a && ls)"),
            ["go test ./...", "rm -rf x", "cd a", "ls"]
        );
        assert_eq!(segments("echo $(rm -rf /)"), ["echo", "rm -rf /"]);
    }

    #[test]
    fn dynamic_commands() {
        for cmd in [
            "echo $(whoami)",
            "eval \"$X\"",
            "bash -c 'rm -rf x'",
            "FOO=1 sh -c 'x'",
            "sudo python3 -c 'import os'",
            "node -e 'x'",
            "ls && /bin/sh -c x",
            "source ./env.sh",
        ] {
            assert!(is_dynamic(cmd), "{cmd}");
        }
        for cmd in [
            "cargo test",
            "python3 script.py",
            "node index.js",
            "bash script.sh",
        ] {
            assert!(!is_dynamic(cmd), "{cmd}");
        }
    }

    proptest! {
        #[test]
        fn never_panics(cmd in "\\PC{0,80}") {
            let _ = segments(&cmd);
            let _ = is_dynamic(&cmd);
            let _ = has_operators(&cmd);
        }

        #[test]
        fn a_chained_command_is_never_operator_free(a in "[a-z ]{1,10}", b in "[a-z ]{1,10}") {
            let chained = format!("{a} && {b}");
            prop_assert!(has_operators(&chained));
        }
    }
}
