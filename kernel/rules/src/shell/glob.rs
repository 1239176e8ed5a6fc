//! Could a command with unknown words match a `Bash(…)` glob? Both become simple patterns
//! (literal characters, any one character, any string), and the question is whether some
//! text matches both.

use super::lex::Word;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    Char(char),
    AnyChar,
    AnyString,
    /// The next this many tokens may be left out (a run of words that may be empty).
    Optional(usize),
}

/// Past this many states the answer is "yes" (a deny fails closed) rather than slow.
const MAX_STATES: usize = 1 << 20;

/// The words joined by spaces, an unknown word standing for any string. One that may split
/// into any number of words may also be none, and then brings no space.
pub fn of_argv(argv: &[Word]) -> Vec<Token> {
    let mut tokens = Vec::new();
    // Nothing written yet needs a space before the next word (the start, or only groups
    // that may be empty and bring their own).
    let mut spaced = true;
    for word in argv {
        if word.splits {
            let group = if spaced {
                [Token::AnyString, Token::Char(' ')]
            } else {
                [Token::Char(' '), Token::AnyString]
            };
            tokens.push(Token::Optional(group.len()));
            tokens.extend(group);
            continue;
        }
        if !spaced {
            tokens.push(Token::Char(' '));
        }
        spaced = false;
        if word.known {
            tokens.extend(word.text.chars().map(Token::Char));
            continue;
        }
        // The name of an assignment is literal, whatever its value.
        if let Some((name, _)) = word.text.split_once('=').filter(|_| word.assignment) {
            tokens.extend(name.chars().map(Token::Char));
            tokens.push(Token::Char('='));
        }
        tokens.push(Token::AnyString);
    }
    tokens
}

/// A glob in the syntax rules use, widened where that is simpler: a class `[…]` is any
/// character and an alternative `{a,b}` any string.
pub fn of_glob(glob: &str) -> Vec<Token> {
    let chars: Vec<char> = glob.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '*' => {
                if tokens.last() != Some(&Token::AnyString) {
                    tokens.push(Token::AnyString);
                }
            }
            '?' => tokens.push(Token::AnyChar),
            '\\' => match chars.get(i) {
                Some(&next) => {
                    tokens.push(Token::Char(next));
                    i += 1;
                }
                None => tokens.push(Token::Char('\\')),
            },
            '[' => {
                // `]` right after `[` or `[!` is a member, not the end.
                let mut j = i;
                if matches!(chars.get(j), Some('!' | '^')) {
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    j += 1;
                }
                while chars.get(j).is_some_and(|c| *c != ']') {
                    j += 1;
                }
                i = (j + 1).min(chars.len());
                tokens.push(Token::AnyChar);
            }
            '{' => {
                let mut depth = 1usize;
                while let Some(&c) = chars.get(i) {
                    i += 1;
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if tokens.last() != Some(&Token::AnyString) {
                    tokens.push(Token::AnyString);
                }
            }
            other => tokens.push(Token::Char(other)),
        }
    }
    tokens
}

/// Is there a text both patterns match? (`Optional` may appear in `a` only.)
pub fn could_match(a: &[Token], b: &[Token]) -> bool {
    let width = b.len() + 1;
    let states = (a.len() + 1).saturating_mul(width);
    if states > MAX_STATES {
        return true;
    }
    let mut seen = vec![false; states];
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, j)) = stack.pop() {
        if std::mem::replace(&mut seen[i * width + j], true) {
            continue;
        }
        if i == a.len() && j == b.len() {
            return true;
        }
        let (x, y) = (a.get(i).copied(), b.get(j).copied());
        let mut next = |i: usize, j: usize| stack.push((i, j));
        if let Some(Token::Optional(n)) = x {
            next(i + 1, j);
            next((i + 1 + n).min(a.len()), j);
            continue;
        }
        // A star may match nothing, or the next character the other side produces.
        if x == Some(Token::AnyString) {
            next(i + 1, j);
        }
        if y == Some(Token::AnyString) {
            next(i, j + 1);
        }
        match (x, y) {
            (Some(Token::AnyString), Some(Token::AnyString)) => next(i + 1, j + 1),
            (Some(Token::AnyString), Some(_)) => next(i, j + 1),
            (Some(_), Some(Token::AnyString)) => next(i + 1, j),
            (Some(Token::Char(p)), Some(Token::Char(q))) if p != q => {}
            (Some(_), Some(_)) => next(i + 1, j + 1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(spec: &[&str]) -> Vec<Token> {
        let words: Vec<Word> = spec
            .iter()
            .map(|w| match *w {
                "?" => Word::unknown(),
                _ => Word::literal(w),
            })
            .collect();
        of_argv(&words)
    }

    fn hit(spec: &[&str], glob: &str) -> bool {
        could_match(&argv(spec), &of_glob(glob))
    }

    #[test]
    fn unknown_words_match_what_they_could_be() {
        assert!(hit(&["git", "?"], "git * main"));
        assert!(hit(&["?", "push"], "git p?sh*"));
        assert!(hit(&["git", "push", "?"], "git push"));
        assert!(hit(&["?"], "rm -rf*"));
        assert!(hit(&["git", "?", "x"], "git [pq]ush x"));
        assert!(hit(&["git", "?"], "git {push,pull}"));
        assert!(!hit(&["git", "commit", "-m", "?"], "git p?sh*"));
        assert!(!hit(&["ls", "?"], "git * main"));
        assert!(!hit(&["git", "?", "dev"], "git * main"));
        assert!(!hit(&["git", "?"], "git\\*"));
        assert!(!hit(&["git", "?"], "gitk*"));
        assert!(hit(&["git", "?"], "git"));
        assert!(hit(&["?", "push"], "push"));
        assert!(!hit(&["?", "push"], "xpush"));
        assert!(hit(&["a", "?", "?", "b"], "a b"));
        assert!(hit(&["?", "?", "push"], "push"));
        let assign = Word {
            text: "X=".into(),
            known: false,
            splits: false,
            assignment: true,
        };
        let tokens = of_argv(&[assign, Word::literal("make")]);
        assert!(could_match(&tokens, &of_glob("X=* make")));
        assert!(!could_match(&tokens, &of_glob("git p?sh*")));
    }

    #[test]
    fn globs_are_read_as_tokens() {
        use Token::*;
        assert_eq!(
            of_glob("a*?\\*"),
            [Char('a'), AnyString, AnyChar, Char('*')]
        );
        assert_eq!(of_glob("[]a]b"), [AnyChar, Char('b')]);
        assert_eq!(of_glob("x{a,{b,c}}y"), [Char('x'), AnyString, Char('y')]);
    }
}
