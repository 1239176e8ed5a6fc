//! A POSIX-ish lexer for deny rules: splits a command line into its simple commands (at
//! operators outside quotes, and inside `$(…)`, backticks, process substitutions and
//! unquoted here-documents), removes quotes and escapes the way the shell would, and marks
//! every word whose value is only known at run time.
//!
//! Off-the-shelf word splitters (`shell-words`, `shlex`) unquote one command but treat `;`,
//! `&&` or `$(` as ordinary characters, and splitting at operators needs the same quote
//! tracking as unquoting, so both happen here in one pass.
//!
//! Anything it cannot read the way the shell would (an unterminated quote or substitution,
//! nesting past [`MAX_NESTING`]) is an [`Undecidable`] error, never a guess.
//!
//! This file reads the line (operators, redirections, here-documents); [`word`] the words.

mod word;

/// One word of a simple command, after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The literal text; meaningful only when `known`.
    pub text: String,
    /// False when the shell computes (part of) the value: a parameter, a substitution,
    /// arithmetic, or an unquoted glob or brace pattern.
    pub known: bool,
    /// An unknown word that may become any number of words (an unquoted expansion or
    /// pattern, `"$@"`); otherwise it is exactly one.
    pub splits: bool,
    /// Starts with an unquoted `NAME=` (or `NAME+=`): an assignment when it leads a command.
    pub assignment: bool,
}

impl Word {
    pub fn literal(text: &str) -> Word {
        Word {
            text: text.to_string(),
            known: true,
            splits: false,
            assignment: false,
        }
    }

    /// Any number of unknown words.
    pub fn unknown() -> Word {
        Word {
            text: String::new(),
            known: false,
            splits: true,
            assignment: false,
        }
    }
}

/// How much is known of (part of) a word, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Value {
    Known,
    OneWord,
    Splits,
}

impl Value {
    /// An expansion: field splitting applies outside double quotes only.
    fn expanded(in_double: bool) -> Value {
        if in_double {
            Value::OneWord
        } else {
            Value::Splits
        }
    }
}

/// The line (or part of it) cannot be read reliably.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Undecidable;

type Lexed<T> = Result<T, Undecidable>;

/// Deeper nesting of substitutions, quotes and `${…}` than this is undecidable (and keeps the
/// recursion off the stack limit).
const MAX_NESTING: usize = 48;

/// Rereads of a `$((` that is not arithmetic, per line.
const MAX_RETRIES: usize = 64;

/// The simple commands of `src`, each as its words (redirections and their targets dropped).
pub fn commands(src: &str) -> Lexed<Vec<Vec<Word>>> {
    let chars: Vec<char> = src.chars().collect();
    let mut lexer = Lexer::new(&chars, 0);
    lexer.list(false)?;
    Ok(lexer.out)
}

struct Heredoc {
    delimiter: String,
    quoted: bool,
    strip_tabs: bool,
}

/// What a redirection operator wants from the next word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pending {
    None,
    Target,
    HeredocDelimiter { strip_tabs: bool },
}

struct Lexer<'a> {
    s: &'a [char],
    i: usize,
    nesting: usize,
    /// `$((` that turned out not to be arithmetic, left to reread.
    retries: usize,
    out: Vec<Vec<Word>>,
    heredocs: Vec<Heredoc>,
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r')
}

fn ends_word(c: char) -> bool {
    is_blank(c) || matches!(c, '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>')
}

impl<'a> Lexer<'a> {
    fn new(s: &'a [char], nesting: usize) -> Lexer<'a> {
        Lexer {
            s,
            i: 0,
            nesting,
            retries: MAX_RETRIES,
            out: Vec::new(),
            heredocs: Vec::new(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.s.get(self.i + ahead).copied()
    }

    fn enter(&mut self) -> Lexed<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(Undecidable);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
    }

    /// Blanks and line continuations between words.
    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(c) if is_blank(c) => self.i += 1,
                Some('\\') if self.peek_at(1) == Some('\n') => self.i += 2,
                _ => return,
            }
        }
    }

    /// A list of commands up to the end, or (`closing`) up to the `)` that closes a `$(`.
    fn list(&mut self, closing: bool) -> Lexed<()> {
        self.enter()?;
        let mut words: Vec<Word> = Vec::new();
        let mut pending = Pending::None;
        let mut parens = 0usize;
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else {
                if closing {
                    return Err(Undecidable);
                }
                break;
            };
            match c {
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\n' => {
                    self.flush(&mut words);
                    pending = Pending::None;
                    self.i += 1;
                    self.heredoc_bodies()?;
                }
                '&' if self.peek_at(1) == Some('>') => {
                    self.i += 2;
                    if self.peek() == Some('>') {
                        self.i += 1;
                    }
                    pending = Pending::Target;
                }
                ';' | '&' | '|' => {
                    self.flush(&mut words);
                    pending = Pending::None;
                    self.i += 1;
                }
                '(' => {
                    self.flush(&mut words);
                    parens += 1;
                    self.i += 1;
                }
                ')' => {
                    self.flush(&mut words);
                    self.i += 1;
                    if parens > 0 {
                        parens -= 1;
                    } else if closing {
                        self.leave();
                        return Ok(());
                    }
                    // An unmatched `)` at the top (a `case` pattern) only separates.
                }
                '<' | '>' if self.peek_at(1) == Some('(') => {
                    self.i += 2;
                    self.list(true)?;
                    if pending == Pending::None {
                        words.push(Word::unknown());
                    }
                    pending = Pending::None;
                }
                '<' | '>' => pending = self.redirection(c),
                _ => {
                    let (word, quoted) = self.word()?;
                    let fd = !quoted
                        && word.known
                        && !word.text.is_empty()
                        && word.text.chars().all(|c| c.is_ascii_digit())
                        && matches!(self.peek(), Some('<' | '>'));
                    match pending {
                        Pending::None if fd => {}
                        Pending::None => words.push(word),
                        Pending::Target => {}
                        Pending::HeredocDelimiter { strip_tabs } => self.heredocs.push(Heredoc {
                            delimiter: word.text,
                            quoted,
                            strip_tabs,
                        }),
                    }
                    pending = Pending::None;
                }
            }
        }
        self.flush(&mut words);
        self.leave();
        Ok(())
    }

    fn flush(&mut self, words: &mut Vec<Word>) {
        if !words.is_empty() {
            self.out.push(std::mem::take(words));
        }
    }

    /// Consume a redirection operator starting with `<` or `>`.
    fn redirection(&mut self, first: char) -> Pending {
        self.i += 1;
        if first == '<' && self.peek() == Some('<') {
            self.i += 1;
            if self.peek() == Some('<') {
                self.i += 1;
                return Pending::Target;
            }
            let strip_tabs = self.peek() == Some('-');
            if strip_tabs {
                self.i += 1;
            }
            return Pending::HeredocDelimiter { strip_tabs };
        }
        if matches!(self.peek(), Some('>' | '&' | '|'))
            || (first == '<' && self.peek() == Some('>'))
        {
            self.i += 1;
        }
        Pending::Target
    }

    /// After a newline: the bodies of the here-documents opened on the line. An unquoted
    /// body still runs its substitutions.
    fn heredoc_bodies(&mut self) -> Lexed<()> {
        for doc in std::mem::take(&mut self.heredocs) {
            loop {
                if self.peek().is_none() {
                    break;
                }
                let start = self.i;
                let mut end = start;
                while self.s.get(end).is_some_and(|c| *c != '\n') {
                    end += 1;
                }
                let line: String = self.s[start..end].iter().collect();
                let line = if doc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if line == doc.delimiter {
                    self.i = (end + 1).min(self.s.len());
                    break;
                }
                if doc.quoted {
                    self.i = (end + 1).min(self.s.len());
                    continue;
                }
                let mut scratch = String::new();
                while let Some(c) = self.peek() {
                    match c {
                        '\n' => {
                            self.i += 1;
                            break;
                        }
                        '\\' => self.i += 2,
                        '$' => {
                            self.dollar(&mut scratch, true)?;
                        }
                        '`' => self.backtick()?,
                        _ => self.i += 1,
                    }
                }
                self.i = self.i.min(self.s.len());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<Vec<String>> {
        commands(src)
            .unwrap()
            .into_iter()
            .map(|c| {
                c.into_iter()
                    .map(|w| if w.known { w.text } else { "?".into() })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        for src in [
            "git push",
            "  git \t push ",
            "\"git\" push",
            "'git' 'push'",
            "g\\it push",
            "g\"i\"t push",
            "$'git' push",
            "$'\\x67it' push",
            "$'\\147it' push",
            "gi\\\nt push",
            "git push # a comment",
        ] {
            assert_eq!(texts(src), [["git", "push"]], "{src}");
        }
    }

    #[test]
    fn operators_split_outside_quotes_only() {
        assert_eq!(
            texts("a && b || c; d | e & f\ng"),
            [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]]
        );
        assert_eq!(texts("echo 'a && b'"), [["echo", "a && b"]]);
        assert_eq!(texts("(a; { b; })"), [vec!["a"], vec!["{", "b"], vec!["}"]]);
    }

    #[test]
    fn substitutions_are_commands_and_unknown_words() {
        assert_eq!(
            texts("echo $(git push)"),
            [vec!["git", "push"], vec!["echo", "?"]]
        );
        assert_eq!(
            texts("echo `git push`"),
            [vec!["git", "push"], vec!["echo", "?"]]
        );
        assert_eq!(
            texts("echo \"$(a \"b\")\""),
            [vec!["a", "b"], vec!["echo", "?"]]
        );
        assert_eq!(texts("diff <(a) b"), [vec!["a"], vec!["diff", "?", "b"]]);
        assert_eq!(texts("echo ${X:-$(a)}"), [vec!["a"], vec!["echo", "?"]]);
        assert_eq!(texts("echo $((1 + $(a)))"), [vec!["a"], vec!["echo", "?"]]);
        assert_eq!(texts("$G push"), [["?", "push"]]);
        assert_eq!(texts("gi? push"), [["?", "push"]]);
        assert_eq!(texts("{git,} push"), [["?", "push"]]);
        assert_eq!(texts("[ -f x ]"), [["[", "-f", "x", "]"]]);
    }

    #[test]
    fn unknown_words_split_unless_quoted() {
        let splits = |src: &str| -> Vec<bool> {
            commands(src)
                .unwrap()
                .last()
                .unwrap()
                .iter()
                .filter(|w| !w.known)
                .map(|w| w.splits)
                .collect()
        };
        assert_eq!(
            splits("a $X \"$X\" ${X} \"${X}\" $(a) \"$(a)\""),
            [true, false, true, false, true, false]
        );
        assert_eq!(
            splits("a \"$@\" \"${a[@]}\" * `a` \"`a`\" $'\\0'"),
            [true, true, true, true, false, false]
        );
        assert_eq!(splits("X=$Y a"), [false]);
    }

    #[test]
    fn redirections_and_heredocs() {
        assert_eq!(texts("a > f 2>&1 < g &> h"), [["a"]]);
        assert_eq!(
            texts("cat <<'EOF'\nit's $(x)\nEOF\nb"),
            [vec!["cat"], vec!["b"]]
        );
        assert_eq!(
            texts("cat <<EOF\n$(git push)\nEOF"),
            [vec!["cat"], vec!["git", "push"]]
        );
        assert_eq!(
            texts("echo $((1<<2))\ngit push"),
            [vec!["echo", "?"], vec!["git", "push"]]
        );
    }

    #[test]
    fn assignments_are_marked() {
        let words = commands("FOO=1 A+=x B=$(y) \"C\"=1 git").unwrap();
        let last = &words[words.len() - 1];
        let flags: Vec<bool> = last.iter().map(|w| w.assignment).collect();
        assert_eq!(flags, [true, true, true, false, false]);
    }

    #[test]
    fn unreadable_lines_are_undecidable() {
        for src in [
            "echo 'a", "echo \"a", "echo $(a", "echo `a", "echo ${a", "$'a",
        ] {
            assert_eq!(commands(src), Err(Undecidable), "{src}");
        }
        let deep = format!("{}x{}", "$(".repeat(100), ")".repeat(100));
        assert_eq!(commands(&deep), Err(Undecidable));
    }
}
