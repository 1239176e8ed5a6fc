//! Could a command line run something a deny rule names? Every argv it may run
//! ([`super::unwrap::argvs`]) is compared word by word with the rule's words; a word known
//! only at run time stands for any one word (`"$X"`), any run of words (`$X`, which the shell
//! splits), or any assignment to its name (`X=$(…)`), and an argv that cannot be read at all
//! matches every rule. So a deny rule fails closed, but only for commands whose unknown parts
//! could spell the rule: `$X push` is denied by `git push:*`, `echo $HOME` is not.

use super::glob;
use super::lex::{self, Word};
use super::unwrap::{Argv, argvs};
use globset::GlobMatcher;

/// The command part of a `Bash(…)` deny rule.
#[derive(Debug, Clone, Copy)]
pub enum Pattern<'a> {
    /// `Bash(git push)`: the command is exactly these words.
    Exact(&'a str),
    /// `Bash(git push:*)`: the command starts with these words.
    Prefix(&'a str),
    /// `Bash(git * main)`: the command's words, joined by spaces, match the glob.
    Glob(&'a GlobMatcher),
}

/// Whether `command` may run a command `pattern` names.
pub fn may_run(command: &str, pattern: Pattern<'_>) -> bool {
    let words = match pattern {
        Pattern::Exact(text) | Pattern::Prefix(text) => rule_words(text),
        Pattern::Glob(_) => Vec::new(),
    };
    argvs(command).iter().any(|argv| match (argv, pattern) {
        (Argv::Anything, _) => true,
        (Argv::Words(argv), Pattern::Exact(_)) => could_spell(argv, &words, false),
        (Argv::Words(argv), Pattern::Prefix(_)) => could_spell(argv, &words, true),
        (Argv::Words(argv), Pattern::Glob(glob)) if argv.iter().all(|w| w.known) => {
            let text: Vec<&str> = argv.iter().map(|w| w.text.as_str()).collect();
            glob.is_match(text.join(" "))
        }
        (Argv::Words(argv), Pattern::Glob(glob)) => {
            glob::could_match(&glob::of_argv(argv), &glob::of_glob(glob.glob().glob()))
        }
    })
}

/// A rule's words, its quotes removed like a command's (`Bash("git" push)` is `git push`).
fn rule_words(text: &str) -> Vec<String> {
    match lex::commands(text) {
        Ok(commands) if commands.len() == 1 && commands[0].iter().all(|w| w.known) => {
            commands[0].iter().map(|w| w.text.clone()).collect()
        }
        _ => text.split_whitespace().map(str::to_string).collect(),
    }
}

/// Could `argv` be exactly `rule` (or, with `prefix`, start with it)?
fn could_spell(argv: &[Word], rule: &[String], prefix: bool) -> bool {
    // reach[j]: the argv words read so far can spell `rule[..j]`.
    let mut reach = vec![false; rule.len() + 1];
    reach[0] = true;
    for word in argv {
        if prefix && reach[rule.len()] {
            return true;
        }
        let mut next = vec![false; rule.len() + 1];
        if word.splits {
            let mut any = false;
            for j in 0..=rule.len() {
                any |= reach[j];
                next[j] = any;
            }
        } else {
            for j in 0..rule.len() {
                next[j + 1] = reach[j] && could_be(word, &rule[j]);
            }
        }
        if next.iter().all(|r| !r) {
            return false;
        }
        reach = next;
    }
    reach[rule.len()]
}

/// Could one (non-splitting) `word` be the rule word `want`?
fn could_be(word: &Word, want: &str) -> bool {
    if word.known {
        return word.text == want;
    }
    match word.text.split_once('=') {
        Some((name, _)) if word.assignment => {
            want.strip_prefix(name).is_some_and(|v| v.starts_with('='))
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `?` any run of words, `?1` one unknown word.
    fn words(spec: &[&str]) -> Vec<Word> {
        spec.iter()
            .map(|w| match *w {
                "?" => Word::unknown(),
                "?1" => Word {
                    splits: false,
                    ..Word::unknown()
                },
                _ => Word::literal(w),
            })
            .collect()
    }

    fn rule(text: &str) -> Vec<String> {
        rule_words(text)
    }

    #[test]
    fn unknown_words_stand_for_any_run_of_words() {
        let push = rule("git push");
        assert!(could_spell(&words(&["git", "push"]), &push, false));
        assert!(could_spell(&words(&["git", "push", "x"]), &push, true));
        assert!(!could_spell(&words(&["git", "push", "x"]), &push, false));
        assert!(could_spell(&words(&["?", "push"]), &push, true));
        assert!(could_spell(&words(&["git", "?"]), &push, true));
        assert!(could_spell(&words(&["?"]), &push, false));
        assert!(could_spell(
            &words(&["?", "git", "push", "?"]),
            &push,
            false
        ));
        assert!(!could_spell(&words(&["echo", "?"]), &push, true));
        assert!(!could_spell(&words(&["git", "status", "?"]), &push, true));
        // `$X` may be `git push` itself, then `pull` is one more argument.
        assert!(could_spell(&words(&["?", "pull"]), &push, true));
        assert!(!could_spell(&words(&["?", "pull"]), &push, false));
        assert!(!could_spell(&words(&["git"]), &push, true));
        // A quoted expansion is one word.
        assert!(could_spell(&words(&["?1", "push"]), &push, true));
        assert!(!could_spell(&words(&["?1", "file"]), &push, true));
        assert!(!could_spell(&words(&["?1"]), &push, true));
    }

    #[test]
    fn an_unknown_assignment_is_one_assignment_to_its_name() {
        let assign = |text: &str| Word {
            text: text.to_string(),
            known: false,
            splits: false,
            assignment: true,
        };
        let rule = rule("FOO=1 make");
        assert!(could_spell(
            &[assign("FOO="), Word::literal("make")],
            &rule,
            false
        ));
        assert!(!could_spell(
            &[assign("BAR="), Word::literal("make")],
            &rule,
            false
        ));
        assert!(!could_spell(
            &[assign("FOO=")],
            &rule_words("git push"),
            true
        ));
    }

    #[test]
    fn rule_words_lose_their_quotes() {
        assert_eq!(rule("\"git\"  push"), ["git", "push"]);
        assert_eq!(rule("echo $HOME"), ["echo", "$HOME"]);
    }
}
