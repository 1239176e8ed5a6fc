//! Deny rules against the many spellings of one command (issue #26): every way the shell
//! would run `git push` is caught by `Bash(git push:*)`, in every posture.

use crate::rule::tests::kind;
use crate::rule::{Rule, Use};
use proptest::prelude::*;
use serde_json::json;
use std::path::Path;

fn denies(rule: &str, command: &str) -> bool {
    Rule::parse(rule).unwrap().matches(
        "bash",
        kind("bash"),
        &json!({ "command": command }),
        Path::new("/w"),
        Use::Deny,
    )
}

/// Spellings the shell runs as exactly `git push`.
const EXACTLY_GIT_PUSH: &[&str] = &[
    "git push",
    "git  push",
    "\tgit push ",
    "\"git\" push",
    "'git' 'push'",
    "git \"push\"",
    "g\"i\"t push",
    "g\\it push",
    "$'git' push",
    "$'\\x67it' push",
    "gi\\\nt push",
    "FOO=1 git push",
    "A=1 B=\"x y\" git push",
    "command git push",
    "builtin git push",
    "exec git push",
    "exec -a name git push",
    "env git push",
    "env -i FOO=1 git push",
    "env -u HOME -- git push",
    "env -S 'git push'",
    "nice git push",
    "nice -n 5 git push",
    "nohup git push",
    "time git push",
    "time -p git push",
    "sudo git push",
    "sudo -u root -E git push",
    "timeout 10 git push",
    "stdbuf -o0 git push",
    "setsid git push",
    "/usr/bin/git push",
    "./git push",
    "sudo FOO=1 nice -n 5 command /usr/bin/git push",
    "! git push",
    "(git push)",
    "( git push )",
    "{ git push; }",
    "ls; git push",
    "ls && git push",
    "false || git push",
    "echo x | git push",
    "git push &",
    "ls\ngit push",
    "if git push; then :; fi",
    "echo $(git push)",
    "echo \"$(git push)\"",
    "echo `git push`",
    "cat <(git push)",
    "x=$(git push)",
    "bash -c 'git push'",
    "sh -c \"git push\"",
    "bash -lc 'git push'",
    "bash -ec 'git push'",
    "zsh -o pipefail -c 'git push'",
    "/bin/bash -c 'git push'",
    "eval \"git push\"",
    "eval git push",
    "bash -c \"bash -c 'git push'\"",
    "sh -c 'eval \"git push\"'",
    "xargs git push",
    "find . -exec git push ';'",
    "git push 2>&1 > /dev/null",
    "\\git push",
    "g''it push",
    "g$'i't push",
    "git p\\ush",
    "git pu\"\"sh",
    "command -p git push",
    "sudo -- git push",
    "env --chdir=/ git push",
    "nice -n5 git push",
    "timeout --signal=KILL 5s git push",
    "coproc git push",
    "exec 3>&1; git push",
    "f() { git push; }; f",
    "for i in 1; do git push; done",
    "case $x in a) git push;; esac",
];

/// Commands that may run `git push` with more arguments, or something unknowable.
const MAY_RUN_GIT_PUSH: &[&str] = &[
    "git push origin main",
    "git push --force",
    "GIT_TRACE=1 git push -f origin HEAD",
    "bash -c 'git push origin main'",
    // Undecidable: the deny holds.
    "$G push",
    "$(echo git) push",
    "`echo git` push",
    "git $SUB",
    "\"$G\" push",
    "eval \"$X\"",
    "bash -c \"$X\"",
    "echo git push | sh",
    "git push 'unbalanced",
    "echo \"unbalanced && git status",
    "$X",
    "\"$(which git)\" push",
    "git${IFS}push",
    "IFS=,; x=git,push; $x",
    "g() { git \"$@\"; }; g push",
    "bash <<< 'git push'",
    "ls | xargs -0 git",
];

/// Commands that cannot run `git push`.
const NOT_GIT_PUSH: &[&str] = &[
    "git status",
    "git pull",
    "git pushx",
    "gitk push",
    "echo git push",
    "echo 'git push'",
    "printf '%s' \"git push\"",
    "ls $HOME",
    "echo $HOME",
    "ls -la | grep git",
    "command -v git",
    "git log --grep push",
    "cat <<'EOF' > notes.md\nit's not $(run)\nEOF",
    "bash script.sh",
    "time cargo test",
    "[ -f x ] && cargo build",
    "grep -r \"git push\" docs",
    "x=$(pwd); echo $x",
    "FOO=$(date) make",
    "\"$EDITOR\" file",
    "cd \"$REPO\" && git status",
    "git commit -m \"$(cat msg)\"",
    "for f in *.rs; do echo $f; done",
    "find . -name '*.rs' -exec grep -l foo {} +",
    "sh -c 'echo $HOME'",
    "cargo test 2>&1 | tail -20",
    "echo $((1+2)) && ls",
    "git stash push",
    "git push-all",
];

#[test]
fn every_spelling_of_git_push_is_denied() {
    for command in EXACTLY_GIT_PUSH {
        for rule in ["Bash(git push:*)", "Bash(git push)", "Bash(git p?sh*)"] {
            assert!(denies(rule, command), "{rule} lets through {command:?}");
        }
    }
    for command in MAY_RUN_GIT_PUSH {
        for rule in ["Bash(git push:*)", "Bash(git p?sh*)"] {
            assert!(denies(rule, command), "{rule} lets through {command:?}");
        }
    }
    // The legacy literal form is an exact command too.
    assert!(denies("bash=git push", "command 'git' push"));
}

#[test]
fn other_commands_are_not_denied() {
    for command in NOT_GIT_PUSH {
        for rule in ["Bash(git push:*)", "Bash(git push)", "Bash(git p?sh*)"] {
            // The glob matches `git pushx` and `git push-all`; and it matches the words joined
            // by spaces, so one unknown word (`"$EDITOR"`) could be `git push` itself.
            if rule == "Bash(git p?sh*)"
                && ["pushx", "push-all", "$EDITOR"]
                    .iter()
                    .any(|s| command.contains(s))
            {
                continue;
            }
            assert!(!denies(rule, command), "{rule} denies {command:?}");
        }
    }
    // An exact rule is about that command only.
    assert!(!denies("Bash(git push)", "git push origin main"));
    assert!(!denies("Bash(git push)", "bash -c 'git push -f'"));
}

#[test]
fn grants_are_not_widened() {
    let grant = |rule: &str, command: &str| {
        Rule::parse(rule).unwrap().matches(
            "bash",
            kind("bash"),
            &json!({ "command": command }),
            Path::new("/w"),
            Use::Grant,
        )
    };
    for command in [
        "\"git\" push",
        "FOO=1 git push",
        "command git push",
        "(git push)",
    ] {
        assert!(!grant("Bash(git push:*)", command), "{command}");
        assert!(!grant("Bash(git push)", command), "{command}");
    }
}

#[test]
fn pathological_lines_are_bounded() {
    let lines = [
        "$((".repeat(20_000),
        "$(".repeat(20_000),
        "${".repeat(20_000),
        "\"$(".repeat(20_000),
        "`".repeat(20_001),
        "$(( $(( ".repeat(2_000) + &") )".repeat(2_000),
        "(".repeat(50_000) + "git push",
        "a; ".repeat(40_000),
        "x".repeat(200_000),
        "sudo ".repeat(20_000) + "git push",
        "git $X ".repeat(15_000),
    ];
    for line in &lines {
        // Whatever it decides, it decides promptly; an unreadable line is denied.
        let started = std::time::Instant::now();
        let _ = denies("Bash(git push:*)", line);
        let _ = denies("Bash(git * main)", line);
        assert!(started.elapsed().as_secs() < 5, "{}", &line[..20]);
    }
    assert!(denies("Bash(git push:*)", &"$(".repeat(20_000)));
    assert!(denies(
        "Bash(git push:*)",
        &("(".repeat(50_000) + "git push")
    ));
}

/// Words the shell reads as `word`: plain, quoted, partly quoted, escaped.
fn spelled(word: String) -> impl Strategy<Value = String> {
    (0..6u8, any::<u64>()).prop_map(move |(style, bits)| {
        let split = (bits as usize) % (word.len() + 1);
        match style {
            0 => word.clone(),
            1 => format!("'{word}'"),
            2 => format!("\"{word}\""),
            3 => format!("{}\"{}\"", &word[..split], &word[split..]),
            4 => word
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if bits >> (i % 64) & 1 == 1 {
                        format!("\\{c}")
                    } else {
                        c.to_string()
                    }
                })
                .collect(),
            _ => format!("$'{word}'"),
        }
    })
}

const WRAPPERS: &[&str] = &[
    "command",
    "builtin",
    "env",
    "env -i",
    "env -u HOME",
    "nice",
    "nice -n 5",
    "nohup",
    "time",
    "time -p",
    "exec",
    "exec -a x",
    "sudo",
    "sudo -u root",
    "timeout 5",
    "timeout -s KILL 5",
    "stdbuf -o0",
    "setsid",
    "xargs",
];

fn blank() -> impl Strategy<Value = String> {
    "[ \t]{1,3}"
}

/// Lines the shell runs as `git push <args>` (among other things).
fn git_push_line() -> impl Strategy<Value = String> {
    let program = prop_oneof![Just("git".to_string()), Just("/usr/bin/git".to_string())];
    (
        prop::collection::vec("[A-Z_]{1,5}=[a-z0-9]{0,4}", 0..3),
        prop::collection::vec(prop::sample::select(WRAPPERS), 0..3),
        program.prop_flat_map(spelled),
        spelled("push".to_string()),
        prop::collection::vec("[a-z0-9][a-z0-9./_-]{0,6}".prop_flat_map(spelled), 0..3),
        prop::collection::vec(blank(), 12),
        prop::sample::select(&["", "true && ", "ls; ", "false || ", "echo x | ", "ls\n"][..]),
        0..7u8,
    )
        .prop_map(|(assigns, wrappers, git, push, args, gaps, chain, wrap)| {
            let words: Vec<String> = assigns
                .into_iter()
                .chain(wrappers.into_iter().map(str::to_string))
                .chain([git, push])
                .chain(args)
                .collect();
            let mut line = gaps[0].clone();
            for (i, word) in words.iter().enumerate() {
                line.push_str(word);
                line.push_str(&gaps[(i + 1) % gaps.len()]);
            }
            let line = format!("{chain}{line}");
            match wrap {
                0 => line,
                1 => format!("bash -c '{}'", line.replace('\'', "'\\''")),
                2 => format!(
                    "sh -c \"{}\"",
                    line.replace('\\', "\\\\")
                        .replace('"', "\\\"")
                        .replace('$', "\\$")
                        .replace('`', "\\`")
                ),
                3 => format!("({line})"),
                4 => format!("{{ {line}; }}"),
                5 => format!("echo $({line})"),
                _ => format!("eval '{}'", line.replace('\'', "'\\''")),
            }
        })
}

/// Names that run (or may run) the command in their arguments.
const RUNNERS: &[&str] = &[
    "git",
    "command",
    "builtin",
    "exec",
    "env",
    "nice",
    "ionice",
    "nohup",
    "setsid",
    "time",
    "sudo",
    "doas",
    "stdbuf",
    "timeout",
    "xargs",
    "noglob",
    "nocorrect",
    "busybox",
    "caffeinate",
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "yash",
    "posh",
    "fish",
    "eval",
    "source",
    "su",
    "runuser",
    "watch",
    "find",
    "if",
    "then",
    "else",
    "elif",
    "while",
    "until",
    "do",
    "coproc",
];

proptest! {
    #[test]
    fn any_spelling_of_git_push_is_denied(line in git_push_line()) {
        prop_assert!(denies("Bash(git push:*)", &line), "{:?}", line);
        prop_assert!(denies("Bash(git p?sh*)", &line), "{:?}", line);
    }

    #[test]
    fn other_programs_are_not_denied(
        program in "[a-z]{1,8}",
        args in "[a-z0-9 ./-]{0,20}",
        tail in prop::sample::select(&["", " git push", " git push origin", " 'git push'"][..]),
    ) {
        prop_assume!(!RUNNERS.contains(&program.as_str()));
        let line = format!("{program} {args}{tail}");
        prop_assert!(!denies("Bash(git push:*)", &line), "{:?}", line);
        prop_assert!(!denies("Bash(git push)", &line), "{:?}", line);
    }

    #[test]
    fn deny_matching_never_panics(line in "\\PC{0,200}") {
        for rule in ["Bash(git push:*)", "Bash(git push)", "Bash(git * main)", "bash=git push"] {
            let _ = denies(rule, &line);
        }
    }

    #[test]
    fn deny_matching_never_panics_on_shell_syntax(
        line in "[a-z $'\"`\\\\(){};|&<>\n#=*?,.\\[\\]-]{0,120}",
    ) {
        for rule in ["Bash(git push:*)", "Bash(git * main)"] {
            let _ = denies(rule, &line);
        }
    }
}
