//! What a command line really runs, for deny rules: every simple command, with the words in
//! front of the real program peeled off (`FOO=1`, `command`, `env -i`, `sudo -u x`,
//! `timeout 5` …), and the code given to a shell (`bash -c '…'`, `eval …`) read in turn.
//!
//! Each simple command yields several [`Argv`]s, one per layer (`sudo env git push`,
//! `env git push`, `git push`), so a rule written for any layer matches. What cannot be
//! read — code computed at run time, read from stdin, nested past [`MAX_DEPTH`] — is
//! [`Argv::Anything`].

use super::lex::{self, Word};

/// Inputs longer than this are not read at all (undecidable).
pub const MAX_INPUT: usize = 128 * 1024;

/// Shell code inside shell code (`bash -c "eval '…'"`) deeper than this is undecidable.
pub const MAX_DEPTH: usize = 8;

/// Wrappers around one command (`sudo env nice …`) beyond this many are undecidable.
pub const MAX_LAYERS: usize = 32;

/// A program and its arguments, as far as they can be known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Argv {
    /// Unknown words stand for any run of words (unquoted `$X` may split into several).
    Words(Vec<Word>),
    /// Could be any command at all.
    Anything,
}

/// Every argv `command` may run.
pub fn argvs(command: &str) -> Vec<Argv> {
    let mut out = Vec::new();
    code(command, 0, &mut out);
    out
}

/// Shell code at nesting `depth`.
fn code(src: &str, depth: usize, out: &mut Vec<Argv>) {
    if depth > MAX_DEPTH || src.len() > MAX_INPUT {
        out.push(Argv::Anything);
        return;
    }
    match lex::commands(src) {
        Ok(commands) => {
            for words in commands {
                simple(words, depth, out);
            }
        }
        Err(lex::Undecidable) => out.push(Argv::Anything),
    }
}

/// Words that may stand before a command without being it.
const RESERVED: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "while", "until", "do", "coproc",
];

/// A program that runs the command given in its arguments (after its options).
struct Wrapper {
    name: &'static str,
    /// Short options that take an argument.
    short_args: &'static str,
    /// Long options that take the next word as their argument (unless written `--x=v`).
    long_args: &'static [&'static str],
    /// Operands before the command (`timeout DURATION`).
    operands: usize,
    /// Takes `NAME=value` words before the command.
    assignments: bool,
}

const fn wrapper(name: &'static str, short_args: &'static str) -> Wrapper {
    Wrapper {
        name,
        short_args,
        long_args: &[],
        operands: 0,
        assignments: false,
    }
}

const WRAPPERS: &[Wrapper] = &[
    wrapper("command", ""),
    wrapper("builtin", ""),
    wrapper("exec", "a"),
    wrapper("nohup", ""),
    wrapper("setsid", ""),
    wrapper("noglob", ""),
    wrapper("nocorrect", ""),
    wrapper("busybox", ""),
    wrapper("doas", "uC"),
    wrapper("ionice", "cnpPu"),
    wrapper("caffeinate", "tw"),
    Wrapper {
        long_args: &["--unset", "--chdir", "--split-string"],
        assignments: true,
        ..wrapper("env", "uCPS")
    },
    Wrapper {
        long_args: &["--adjustment"],
        ..wrapper("nice", "n")
    },
    Wrapper {
        long_args: &["--format", "--output"],
        ..wrapper("time", "fo")
    },
    Wrapper {
        long_args: &[
            "--close-from",
            "--chdir",
            "--group",
            "--host",
            "--prompt",
            "--chroot",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
            "--user",
        ],
        assignments: true,
        ..wrapper("sudo", "CDghpRrTtUu")
    },
    Wrapper {
        long_args: &["--input", "--output", "--error"],
        ..wrapper("stdbuf", "ioe")
    },
    Wrapper {
        long_args: &["--signal", "--kill-after"],
        operands: 1,
        ..wrapper("timeout", "sk")
    },
    Wrapper {
        long_args: &[
            "--arg-file",
            "--delimiter",
            "--eof",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        ..wrapper("xargs", "adEILnPs")
    },
];

/// Shells, whose `-c` takes code (fish's `-C` too).
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish",
];

/// Operands naming the standard input, which a shell or `source` would read code from.
fn is_stdin_path(path: &str) -> bool {
    path == "-"
        || path == "/dev/stdin"
        || path.starts_with("/dev/fd/")
        || path.starts_with("/proc/")
}

fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// The argvs of one simple command, outermost layer first.
fn simple(words: Vec<Word>, depth: usize, out: &mut Vec<Argv>) {
    let mut words = words;
    for _ in 0..MAX_LAYERS {
        let lead = words
            .iter()
            .take_while(|w| w.assignment || (w.known && RESERVED.contains(&w.text.as_str())))
            .count();
        if lead > 0 {
            out.push(Argv::Words(words.clone()));
            words.drain(..lead);
        }
        let Some(first) = words.first() else {
            return;
        };
        out.push(Argv::Words(words.clone()));
        if !first.known {
            return;
        }
        let name = basename(&first.text).to_string();
        if name != first.text && !name.is_empty() {
            let mut short = words.clone();
            short[0] = Word::literal(&name);
            out.push(Argv::Words(short));
        }
        if let Some(w) = WRAPPERS.iter().find(|w| w.name == name) {
            match peel(w, &words) {
                Peeled::Rest(rest) => {
                    words = rest;
                    continue;
                }
                Peeled::Anything => out.push(Argv::Anything),
                Peeled::Nothing => {}
            }
            return;
        }
        let args = &words[1..];
        match name.as_str() {
            shell if SHELLS.contains(&shell) => shell_code(args, depth, out),
            "eval" => joined_code(args, depth, out),
            "source" | "." => match args.first() {
                Some(w) if !w.known || is_stdin_path(&w.text) => out.push(Argv::Anything),
                _ => {}
            },
            "su" | "runuser" => {
                if let Some(body) = option_value(args, "c", "--command") {
                    body_code(body, depth, out);
                }
            }
            "watch" => {
                let rest = skip_options(args, "nq", &["--interval", "--equexit"]);
                joined_code(&args[rest..], depth, out);
            }
            "find" => find_exec(args, depth, out),
            _ => {}
        }
        return;
    }
    out.push(Argv::Anything);
}

enum Peeled {
    Rest(Vec<Word>),
    Anything,
    Nothing,
}

/// The words after a wrapper's options and operands.
fn peel(w: &Wrapper, words: &[Word]) -> Peeled {
    let args = &words[1..];
    let mut i = 0;
    let mut operands = w.operands;
    let mut replace: Option<String> = None;
    while let Some(word) = args.get(i) {
        if !word.known {
            // Could be an option, an operand or the program itself: keep it as the program.
            operands = 0;
            break;
        }
        let t = word.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if t == "-" {
            i += 1;
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (opt, inline) = match long.split_once('=') {
                Some((opt, value)) => (opt, Some(value)),
                None => (long, None),
            };
            let opt = format!("--{opt}");
            let takes = w.long_args.contains(&opt.as_str());
            let value = if takes && inline.is_none() {
                i += 1;
                args.get(i).map(|v| (v.known, v.text.clone()))
            } else {
                inline.map(|v| (true, v.to_string()))
            };
            if w.name == "env" && opt == "--split-string" {
                return split_string(value, args.get(i + 1..).unwrap_or_default());
            }
            if w.name == "xargs" && opt == "--replace" {
                replace = Some(inline.unwrap_or("{}").to_string());
            }
            i += 1;
            continue;
        }
        if let Some(cluster) = t.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, c) in cluster.char_indices() {
                if w.name == "xargs" && c == 'i' {
                    let attached = &cluster[at + 1..];
                    replace = Some(if attached.is_empty() { "{}" } else { attached }.to_string());
                    break;
                }
                if w.short_args.contains(c) {
                    let attached = &cluster[at + c.len_utf8()..];
                    let value = if attached.is_empty() {
                        i += 1;
                        args.get(i).map(|v| (v.known, v.text.clone()))
                    } else {
                        Some((true, attached.to_string()))
                    };
                    if w.name == "env" && c == 'S' {
                        return split_string(value, args.get(i + 1..).unwrap_or_default());
                    }
                    if w.name == "xargs" && c == 'I' {
                        replace = value.map(|(_, v)| v);
                    }
                    break;
                }
            }
            i += 1;
            continue;
        }
        if w.assignments && word.assignment {
            i += 1;
            continue;
        }
        break;
    }
    let mut rest: Vec<Word> = args.iter().skip(i + operands).cloned().collect();
    if rest.is_empty() {
        return Peeled::Nothing;
    }
    if w.name == "xargs" {
        // Arguments read from stdin follow, and a replacement string stands for them.
        if let Some(token) = replace.filter(|r| !r.is_empty()) {
            for word in &mut rest {
                if word.text.contains(&token) {
                    *word = Word::unknown();
                }
            }
        }
        rest.push(Word::unknown());
    }
    Peeled::Rest(rest)
}

/// `env -S 'a b' c`: the string is split into words that come before the rest.
fn split_string(value: Option<(bool, String)>, rest: &[Word]) -> Peeled {
    let Some((true, text)) = value else {
        return Peeled::Anything;
    };
    match lex::commands(&text) {
        Ok(mut commands) if commands.len() <= 1 => {
            let mut words = commands.pop().unwrap_or_default();
            words.extend(rest.iter().cloned());
            Peeled::Rest(words)
        }
        _ => Peeled::Anything,
    }
}

/// The index of the first word after the leading options (`short_args` and `long_args`
/// take a value).
fn skip_options(args: &[Word], short_args: &str, long_args: &[&str]) -> usize {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let t = word.text.as_str();
        if !word.known || !t.starts_with('-') || t == "-" {
            break;
        }
        i += 1;
        if t == "--" {
            break;
        }
        let takes = if t.starts_with("--") {
            !t.contains('=') && long_args.contains(&t)
        } else {
            t.ends_with(|c| short_args.contains(c))
        };
        if takes {
            i += 1;
        }
    }
    i.min(args.len())
}

/// The word after `-c` (or `--command`), wherever it stands.
fn option_value<'w>(args: &'w [Word], short: &str, long: &str) -> Option<&'w Word> {
    let short = format!("-{short}");
    let at = args
        .iter()
        .position(|w| w.known && (w.text == short || w.text == long))?;
    args.get(at + 1)
}

/// Shell code held in one word: read it, unless it is only known at run time.
fn body_code(body: &Word, depth: usize, out: &mut Vec<Argv>) {
    if body.known {
        code(&body.text, depth + 1, out);
    } else {
        out.push(Argv::Anything);
    }
}

/// Shell code made of words joined by spaces (`eval a b`, `watch a b`).
fn joined_code(args: &[Word], depth: usize, out: &mut Vec<Argv>) {
    let args = match args.first() {
        Some(w) if w.known && w.text == "--" => &args[1..],
        _ => args,
    };
    if args.is_empty() {
        return;
    }
    if args.iter().any(|w| !w.known) {
        out.push(Argv::Anything);
        return;
    }
    let text: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    code(&text.join(" "), depth + 1, out);
}

/// `sh [options] -c CODE`, `sh SCRIPT`, or `sh` reading its code from stdin.
fn shell_code(args: &[Word], depth: usize, out: &mut Vec<Argv>) {
    let mut inline = false;
    let mut stdin = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let t = word.text.as_str();
        if !word.known {
            break;
        }
        i += 1;
        if t == "--" || t == "-" {
            break;
        }
        if t == "--version" || t == "--help" {
            return;
        }
        if let Some(long) = t.strip_prefix("--") {
            if let Some(code_text) = long.strip_prefix("command=") {
                return body_code(&Word::literal(code_text), depth, out);
            }
            if long == "command" {
                inline = true;
            } else if ["rcfile", "init-file", "init-command"].contains(&long) {
                i += 1;
            }
            continue;
        }
        let Some(cluster) = t.strip_prefix('-').or_else(|| t.strip_prefix('+')) else {
            i -= 1;
            break;
        };
        inline |= cluster.contains(['c', 'C']);
        stdin |= cluster.contains('s');
        // `-o pipefail`, `-O extglob`: the option name is the next word.
        i += cluster.chars().filter(|c| matches!(c, 'o' | 'O')).count();
    }
    match args.get(i) {
        Some(body) if inline => body_code(body, depth, out),
        None if inline => {}
        Some(_) if stdin => out.push(Argv::Anything),
        Some(script) if !script.known || is_stdin_path(&script.text) => out.push(Argv::Anything),
        Some(_) => {}
        None => out.push(Argv::Anything),
    }
}

/// `find … -exec CMD … ;` (also `-execdir`, `-ok`, `-okdir`, ending in `+`).
fn find_exec(args: &[Word], depth: usize, out: &mut Vec<Argv>) {
    let mut i = 0;
    while i < args.len() {
        let action = args[i].known
            && ["-exec", "-execdir", "-ok", "-okdir"].contains(&args[i].text.as_str());
        i += 1;
        if !action {
            continue;
        }
        let mut run = Vec::new();
        while let Some(word) = args.get(i) {
            i += 1;
            if word.known && (word.text == ";" || word.text == "+") {
                break;
            }
            run.push(if word.text.contains("{}") {
                Word::unknown()
            } else {
                word.clone()
            });
        }
        simple(run, depth, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The known argvs as strings (`?` for an unknown word), `*` for [`Argv::Anything`].
    fn shown(command: &str) -> Vec<String> {
        argvs(command)
            .into_iter()
            .map(|a| match a {
                Argv::Anything => "*".to_string(),
                Argv::Words(words) => words
                    .iter()
                    .map(|w| if w.known { w.text.as_str() } else { "?" })
                    .collect::<Vec<_>>()
                    .join(" "),
            })
            .collect()
    }

    fn reaches(command: &str, argv: &str) {
        let all = shown(command);
        assert!(all.iter().any(|a| a == argv), "{command}: {all:?}");
    }

    #[test]
    fn wrappers_and_assignments_are_peeled() {
        for command in [
            "FOO=1 git push",
            "command git push",
            "builtin git push",
            "env git push",
            "env -i FOO=1 git push",
            "env -u HOME -- git push",
            "env -S 'git push'",
            "nice -n 5 git push",
            "nice -5 git push",
            "nohup git push",
            "time -p git push",
            "exec -a name git push",
            "sudo -u root -E git push",
            "sudo --user=root FOO=1 git push",
            "timeout -s KILL 5 git push",
            "stdbuf -o0 git push",
            "! git push",
            "if git push; then :; fi",
            "/usr/bin/git push",
            "sudo /usr/bin/env git push",
            "find . -exec git push ';'",
        ] {
            reaches(command, "git push");
        }
        reaches("xargs git push", "git push ?");
        reaches("xargs -I{} git {}", "git ? ?");
    }

    #[test]
    fn shell_code_is_read() {
        for command in [
            "bash -c 'git push'",
            "sh -c \"git push\"",
            "bash -lc 'git push'",
            "bash -o pipefail -ec 'git push'",
            "zsh --login -c 'git push'",
            "eval \"git push\"",
            "eval git push",
            "bash -c \"bash -c 'git push'\"",
            "su -c 'git push' root",
            "watch -n 1 git push",
            "xargs sh -c 'git push'",
        ] {
            reaches(command, "git push");
        }
    }

    #[test]
    fn code_that_cannot_be_read_is_anything() {
        for command in [
            "bash -c \"$X\"",
            "eval \"$X\"",
            "echo git push | sh",
            "bash -s",
            "bash <(curl x)",
            "source /dev/stdin",
            "echo 'unbalanced",
            "env -S \"$X\"",
        ] {
            assert!(shown(command).contains(&"*".to_string()), "{command}");
        }
        let nested = (0..12).fold("git push".to_string(), |inner, _| {
            format!("eval {}", inner.replace('\\', "\\\\").replace(' ', "\\ "))
        });
        assert!(shown(&nested).contains(&"*".to_string()));
    }

    #[test]
    fn layers_are_bounded() {
        reaches("env -S 'nice nohup sudo command git push'", "git push");
        let deep = "nohup ".repeat(MAX_LAYERS + 1) + "git push";
        assert!(shown(&deep).contains(&"*".to_string()));
    }

    #[test]
    fn plain_commands_stay_what_they_are() {
        assert_eq!(shown("echo git push"), ["echo git push"]);
        assert_eq!(shown("bash script.sh"), ["bash script.sh"]);
        assert_eq!(shown("ls $HOME"), ["ls ?"]);
        assert_eq!(shown("bash --version"), ["bash --version"]);
    }
}
